#!/usr/bin/env bats
# Query parameters as kube-apiserver reads them: every row of fixtures/query-params.tsv
# (method, path, query, parameter, expected answer) against a real emulator, one test per
# parameter: each accepted spelling of a boolean (Go's strconv.ParseBool: 1 t T TRUE true
# True, 0 f F FALSE false False), integers as strconv.ParseInt (junk and overflow are
# 400), enums, the ListOptions rules (resourceVersionMatch, sendInitialEvents: 422 as
# kube-apiserver), streaming lists, pretty. A refused value is a 400 Status naming the
# parameter and the value, with a fix.

load ../lib/common

TABLE=$BATS_TEST_DIRNAME/fixtures/query-params.tsv
NS=/apis/nodus.dev/v1/namespaces/qp
KEY=dGhlIHNhbXBsZSBub25jZQ==

setup_file() {
    start_emulator
    post() {
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' -d "$2" "$EMU_URL$1"
    }
    post /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"qp"}}'
    post "$NS/volumes" "$(volume v1)"
    post "$NS/jobs" "$(job_json j1 '{"resources":{"gpu":{"model":"H100","count":1}}}' |
        jq -c '.metadata.annotations = {"emulator.nodus.dev/duration": "10m"}')"
    post "$NS/sandboxes" '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"box"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"10.00"}}'
    # the Job writes its log and the Sandbox runs
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"advance":"2m"}' \
        "$EMU_URL/emulator/v1/clock"
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

volume() {
    echo "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"$1\",\"labels\":{\"app\":\"a\"}},\"spec\":{\"size\":\"1Gi\"}}"
}

# send METHOD PATH QUERY: CODE, BODY as http() sets them.
send() {
    local url="$NS/$2?$3"
    : >"$BATS_TEST_TMPDIR/body" # curl writes no file for an empty answer
    case $1 in
    GET | DELETE) http "$1" "$url" - -m 10 ;; # a watch taken for a list must not hang us
    POST) http POST "$url" "$(volume qp-new)" ;;
    PUT) http PUT "$url" "$(volume v1)" ;;
    PATCH) http PATCH "$url" '{"metadata":{"labels":{"x":"y"}}}' \
        -H 'Content-Type: application/merge-patch+json' ;;
    APPLY) http PATCH "$url" "$(volume v1)" -H 'Content-Type: application/apply-patch+yaml' ;;
    WATCH) # a watch stays open: its first moment counts (on a loaded machine the first
        # moment may pass before the answer even starts: then once more, given longer)
        http GET "$url" - -m 0.3
        [ "$CODE" != 000 ] || http GET "$url" - -m 3 ;;
    WS)
        BODY=$BATS_TEST_TMPDIR/body HDRS=$BATS_TEST_TMPDIR/headers
        CODE=$(curl -s -m 5 -o "$BODY" -D "$HDRS" -w '%{http_code}' -H 'Connection: Upgrade' \
            -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' \
            -H "Sec-WebSocket-Key: $KEY" -H 'Sec-WebSocket-Protocol: v5.channel.k8s.io' \
            "$(emu_url)$url" </dev/null || true)
        ;;
    *) echo "unknown method $1" >&2; return 1 ;;
    esac
}

# What the answer shows, for the expected behaviour word.
behaves() {
    case $1 in
    watch) jq -se 'length >= 1 and all(.[]; .type == "ADDED")' "$BODY" >/dev/null ;;
    list) [ "$(jq -r .kind "$BODY")" = VolumeList ] ;;
    silent) [ ! -s "$BODY" ] ;;
    initial-end)
        jq -se 'length >= 2 and (.[:-1] | all(.type == "ADDED")) and .[-1].type == "BOOKMARK"
            and .[-1].object.metadata.annotations["k8s.io/initial-events-end"] == "true"
            and (.[-1].object.metadata.resourceVersion | test("^[0-9]+$"))' "$BODY" >/dev/null ;;
    initial-only) jq -se 'length >= 1 and all(.[]; .type == "ADDED")' "$BODY" >/dev/null ;;
    pretty) local two=()
        mapfile -t -n 2 two <"$BODY"
        [ "${two[1]-}" = '  "apiVersion": "nodus.dev/v1",' ] || [ "${two[1]-}" = '  "kind": "Status",' ] ;;
    compact) [ "$(wc -l <"$BODY")" = 1 ] && jq -e . "$BODY" >/dev/null ;;
    log) grep -qi '^content-type: text/plain' "$HDRS" ;;
    stat) jq -e '.type == "Directory"' "$BODY" >/dev/null ;;
    ignored) [ "$(jq -r .kind "$BODY")" = Volume ] ;;
    *) echo "unknown behaviour $1" >&2; return 1 ;;
    esac
}

# check QUERY PARAM EXPECT: the answer in CODE and BODY is what EXPECT says.
check() {
    local query=$1 param=$2 code reason behaviour
    read -r code reason behaviour <<<"$3"
    [ "$CODE" = "$code" ] || return 1
    case $reason in
    [A-Z]*)
        # a refusal of the query names the parameter (the selectors' own parsers answer
        # in kube-apiserver's words, which do not) and has a fix; the table's own 400 shows
        # the value too
        local got_reason fix msg value
        { IFS= read -r got_reason && IFS= read -r fix && IFS= read -r msg; } < <(
            jq -r '.reason, (.fix // "" | length), .message' "$BODY")
        [ "$got_reason" = "$reason" ] && [ "$fix" -gt 0 ] || return 1
        case $code:$param in
        400:labelSelector | 400:fieldSelector | 4[0-9][0-9]:continue) ;;
        400:* | 422:*) [[ $msg == *"$param"* ]] || return 1 ;;
        esac
        value= # (the last one, as sed's longest match took it)
        [[ "?$query" =~ .*[?\&]$param=([^\&]*) ]] && value=${BASH_REMATCH[1]}
        [[ $value == *%* ]] && value='*' # shown decoded
        if [[ $msg == "invalid value for query parameter "* ]]; then
            [[ $msg == "invalid value for query parameter $param: \""$value"\" (want "* ]] ||
                return 1
        fi
        [ -z "$behaviour" ] || behaves "$behaviour"
        ;;
    "") ;;
    *) behaves "$reason" ;;
    esac
}

# rows PARAM: walks every row of the table for PARAM; fails on the first one that does
# not answer as it says, printing it and the answer.
rows() {
    local method path query param expect n=0
    while IFS=$'\t' read -r method path query param expect; do
        [[ -z $method || $method == \#* ]] && continue
        [ "$param" = "$1" ] || continue
        send "$method" "$path" "$query"
        if ! check "$query" "$param" "$expect"; then
            echo "$method $NS/$path?$query: expected $expect, got $CODE:" >&2
            head -c 2000 "$BODY" >&2
            return 1
        fi
        n=$((n + 1))
    done <"$TABLE"
    echo "$n rows for $1"
    [ "$n" -gt 0 ]
}

@test "watch: every ParseBool spelling; anything else is a 400" { rows watch; }
@test "allowWatchBookmarks: every spelling turns the initial-events BOOKMARK on or off" { rows allowWatchBookmarks; }
@test "sendInitialEvents: a streaming list ends with the initial-events-end BOOKMARK" { rows sendInitialEvents; }
@test "resourceVersion: an unsigned integer" { rows resourceVersion; }
@test "resourceVersionMatch: Exact and NotOlderThan, with kube-apiserver's rules" { rows resourceVersionMatch; }
@test "limit: a whole number, 0 or more; junk and overflow are 400" { rows limit; }
@test "continue: a token from a list" { rows continue; }
@test "timeoutSeconds: a whole number, 0 or more" { rows timeoutSeconds; }
@test "labelSelector and fieldSelector" { rows labelSelector && rows fieldSelector; }
@test "includeObject: None, Metadata, Object" { rows includeObject; }
@test "pretty: indents the JSON answer" { rows pretty; }
@test "dryRun: All only, on every write" { rows dryRun; }
@test "fieldManager and fieldValidation (Ignore, Warn, Strict)" { rows fieldManager && rows fieldValidation; }
@test "force: server-side apply's boolean" { rows force; }
@test "propagationPolicy, gracePeriodSeconds, orphanDependents" {
    rows propagationPolicy && rows gracePeriodSeconds && rows orphanDependents
}
@test "logs: follow, previous, timestamps, tailLines, limitBytes, sinceSeconds, sinceTime" {
    local p
    for p in follow previous timestamps tailLines limitBytes sinceSeconds sinceTime; do
        rows "$p" || return 1
    done
}
@test "exec: command, stdin, stdout, stderr, tty" {
    local p
    for p in command stdin stdout stderr tty; do rows "$p" || return 1; done
}
@test "files: path and stat" { rows path && rows stat; }
@test "unknown parameters are ignored, as kube-apiserver ignores them" {
    rows unknownParameter && rows export
}

@test "a refused value is a whole Status: 400, reason, message, fix and nothing written" {
    local before
    before=$(find "$EMU_STATE/objects" -type f -printf '%p %s %T@\n' | sort)
    http GET "$NS/volumes?watch=yes"
    [ "$CODE" = 400 ]
    body_is .kind Status \
        .message 'invalid value for query parameter watch: "yes" (want true or false)' \
        .fix 'send watch=true or watch=false (1, t, T, TRUE, True and 0, f, F, FALSE, False are taken too)'
    http POST "$NS/volumes?dryRun=yes" "$(volume refused)"
    [ "$CODE" = 400 ]
    body_is .message 'invalid value for query parameter dryRun: "yes" (want All)' \
        .fix 'send dryRun=All, or leave it out'
    http DELETE "$NS/volumes/v1?gracePeriodSeconds=9223372036854775808"
    [ "$CODE" = 400 ]
    body_is .message 'invalid value for query parameter gracePeriodSeconds: "9223372036854775808" (want a whole number: strconv.ParseInt: value out of range)' \
        .fix 'send gracePeriodSeconds=N with N a whole number from 0 to 9223372036854775807'
    http GET "$NS/volumes?resourceVersionMatch=Exact"
    [ "$CODE" = 422 ]
    body_is .message 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided' \
        '.details.causes[0].field' resourceVersionMatch \
        .details.kind ListOptions
    [ "$(find "$EMU_STATE/objects" -type f -printf '%p %s %T@\n' | sort)" = "$before" ]
}

@test "a streaming list as client-go sends it: the objects, the BOOKMARK, then changes" {
    local out=$BATS_TEST_TMPDIR/stream
    curl -s -N -o "$out" "$(emu_url)$NS/volumes?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=5" &
    local pid=$!
    wait_until grep -q BOOKMARK "$out"
    http POST "$NS/volumes" "$(volume after-bookmark)"
    [ "$CODE" = 201 ]
    wait_until grep -q after-bookmark "$out"
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    run jq -rs '.[:3] | map(.type + " " + (.object.metadata.name // .object.metadata.annotations["k8s.io/initial-events-end"])) | join(",")' "$out"
    [ "$output" = "ADDED v1,BOOKMARK true,ADDED after-bookmark" ]
    http DELETE "$NS/volumes/after-bookmark"
}

@test "every parameter of docs/api.md's table has rows here" {
    local p missing= method path query param expect
    local -A have=()
    while IFS=$'\t' read -r method path query param expect; do
        if [ -n "$param" ]; then have[$param]=1; fi
    done <"$TABLE"
    for p in $(awk -F'|' '/^## /{t = /^## Query parameters/} t && /^\| `/{gsub(/[` ]/, "", $2); print $2}' \
        "$ND_ROOT/docs/api.md"); do
        [ -n "${have[$p]-}" ] || missing+=" $p"
    done
    [ -z "$missing" ] || { echo "no rows for:$missing" >&2; return 1; }
    [ "$(awk -F'|' '/^## /{t = /^## Query parameters/} t && /^\| `/' "$ND_ROOT/docs/api.md" | wc -l)" -ge 30 ]
}
