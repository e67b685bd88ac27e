# The conformance kit's helpers (docs/conformance.md). Every test talks to the server
# named by NODUS_SERVER through its public API only, with curl and jq: never the
# emulator's control endpoints (/emulator/v1/...) nor its state directory.
#
#   NODUS_SERVER   the server's base URL (required), e.g. http://127.0.0.1:8443
#   NODUS_TOKEN    a bearer token, sent when set
#   NODUS_CA       a CA bundle (PEM) for an https:// server with a private CA
#   NODUS_INSECURE=1  do not verify the server's certificate
#   NODUS_CONFORMANCE_PREFIX  prefix of the projects the kit creates (default conformance)
#
# Each test runs in a project of its own, created in setup and deleted in teardown:
#   conf_setup / conf_teardown    (called from the suites' setup/teardown)
#   api METHOD PATH [BODY|-] [curl args...]   sets CODE, BODY (a file), HDRS (a file)
#   jb FILTER                     jq -r FILTER over the last body
#   hdr NAME                      a header of the last answer
#   expect_code CODE              the last answer's HTTP status, else print what came
#   expect_status CODE REASON     the last answer is a Status with every field a client reads
#   expect_eq WHAT WANT GOT       compare, print both on failure

if [ -z "${NODUS_SERVER:-}" ]; then
    echo "NODUS_SERVER is not set: the conformance kit needs a server to test" >&2
    echo "fix: NODUS_SERVER=http://127.0.0.1:PORT make conformance" >&2
    exit 1
fi
SERVER=${NODUS_SERVER%/}
V1=/apis/nodus.dev/v1

# curl's arguments for every request: token and TLS.
conf_curl_args() {
    CURL_ARGS=(-sS --max-time 30)
    [ -n "${NODUS_TOKEN:-}" ] && CURL_ARGS+=(-H "Authorization: Bearer $NODUS_TOKEN")
    [ -n "${NODUS_CA:-}" ] && CURL_ARGS+=(--cacert "$NODUS_CA")
    [ "${NODUS_INSECURE:-}" = 1 ] && CURL_ARGS+=(-k)
    return 0
}
conf_curl_args

api() {
    local method=$1 path=$2 data=${3:--}
    shift 3 2>/dev/null || shift $#
    BODY=$BATS_TEST_TMPDIR/body
    HDRS=$BATS_TEST_TMPDIR/headers
    local args=("${CURL_ARGS[@]}" -X "$method" -o "$BODY" -D "$HDRS" -w '%{http_code}')
    if [ "$data" != "-" ]; then
        args+=(--data-binary "$data")
        case " $* " in
        *"Content-Type"*) ;;
        *) args+=(-H 'Content-Type: application/json') ;;
        esac
    fi
    LAST="$method $path"
    # (exec: a command substitution in a bats test, which has traps, would fork again)
    CODE=$(exec curl "${args[@]}" "$@" "$SERVER$path") || CODE=000
}

jb() { jq -r "$@" "$BODY" 2>/dev/null; }

hdr() { # the last NAME: line's value (read by the shell: no grep, tail, cut, sed)
    local line want=${1,,}: val found=
    while IFS= read -r line || [ -n "$line" ]; do
        [[ ${line,,} == "$want"* ]] || continue
        val=${line#*:}
        val=${val# }
        val=${val%$'\r'}
        found=1
    done <"$HDRS"
    [ -n "$found" ] && printf '%s\n' "$val"
    return 0
}

# What came back, for a failure message.
seen() {
    echo "  request: $LAST" >&2
    echo "  answer:  HTTP $CODE" >&2
    head -c 2000 "$BODY" >&2 2>/dev/null
    echo >&2
}

expect_code() {
    [ "$CODE" = "$1" ] && return 0
    echo "expected HTTP $1" >&2
    seen
    return 1
}

expect_eq() { # WHAT WANT GOT
    [ "$2" = "$3" ] && return 0
    printf 'expected %s: %s\n     got: %s\n' "$1" "$2" "$3" >&2
    return 1
}

# The last answer is a Status error with the given code and reason, and every field a
# client relies on: status Failure, a message, fix (top level, or details.fix), docs,
# and a requestId equal to the X-Request-Id header.
expect_status() {
    local code=$1 reason=$2 bad
    # one jq for every field (jq is the slow part of a check)
    bad=$(exec jq -r --argjson code "$code" --arg reason "$reason" --arg rid "$(hdr X-Request-Id)" '
        def has_text(f): (f | type) == "string" and (f | length) > 0;
        [ (if .kind != "Status" then "kind" else empty end),
          (if .apiVersion != "v1" then "apiVersion" else empty end),
          (if .status != "Failure" then "status" else empty end),
          (if .code != $code then "code" else empty end),
          (if .reason != $reason then "reason" else empty end),
          (if has_text(.message) then empty else "message" end),
          (if has_text(.fix) or has_text(.details.fix) then empty else "fix" end),
          (if has_text(.docs) then empty else "docs" end),
          (if has_text(.requestId) then empty else "requestId" end),
          (if has_text(.requestId) and .requestId != $rid
           then "X-Request-Id(header \"\($rid)\")" else empty end)
        ] | join(" ")' "$BODY" 2>/dev/null) || bad="(not a JSON Status)"
    [ "$CODE" = "$code" ] || bad="HTTP-status $bad"
    [ -z "$bad" ] && return 0
    echo "expected a Status $code $reason with message, fix, docs and requestId; wrong: $bad" >&2
    seen
    return 1
}

# A fresh project for each test; its name is unique to this run and test.
conf_setup() {
    local prefix=${NODUS_CONFORMANCE_PREFIX:-conformance}
    printf -v P '%s-%s-%s-%s' "$prefix" "$$" "${BATS_TEST_NUMBER:-0}" "$RANDOM"
    P=${P:0:63}
    NS=$V1/namespaces/$P
    api POST /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$P\"}}"
    if [ "$CODE" != 201 ] && [ "$CODE" != 200 ]; then
        echo "could not create the project $P for this test" >&2
        seen
        return 1
    fi
}

conf_teardown() {
    [ -n "${P:-}" ] || return 0
    curl "${CURL_ARGS[@]}" -o /dev/null -X DELETE "$SERVER/api/v1/namespaces/$P" || true
}

# Manifests. Volumes cost next to nothing and run nothing; Jobs are created Suspended
# (they never run) where a compute kind is needed.
volume_json() { # NAME [SIZE] [extra metadata (JSON object)]
    jq -cn --arg n "$1" --arg s "${2:-1Gi}" --argjson m "${3:-{\}}" \
        '{apiVersion:"nodus.dev/v1",kind:"Volume",metadata:({name:$n}+$m),spec:{size:$s}}'
}

job_json() { # NAME [extra spec (JSON object)]
    jq -cn --arg n "$1" --argjson x "${2:-{\}}" \
        '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:{name:$n},
          spec:({image:"nodus/pytorch:2.8-cuda12.8",command:["python","train.py"],
                 maxCostUSD:"1.00",state:"Suspended"} + $x)}'
}

MERGE=(-H 'Content-Type: application/merge-patch+json')

# poll_until SECONDS COMMAND...: runs COMMAND every 0.1 s until it succeeds (bounded).
poll_until() {
    local limit=$1 i
    shift
    for ((i = 0; i < limit * 10; i++)); do
        "$@" && return 0
        sleep 0.1
    done
    "$@"
}

gone() { # PATH: a GET answers 404
    api GET "$1"
    [ "$CODE" = 404 ]
}
