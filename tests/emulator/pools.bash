# Helpers shared by 13-pools.bats, 28-pools-act.bats and 33-pools-predict.bats: Pools,
# Hosts and pool-routed work, driven by the emulator's clock (never by sleeping).

load ../lib/common

P=/apis/nodus.dev/v1/namespaces/default

# The control endpoints' credentials: an admin token when the emulator requires tokens.
ADMIN_AUTH=()

# advance DURATION: moves the emulated clock, running what falls due on the way.
advance() {
    http POST /emulator/v1/clock "{\"advance\":\"$1\"}" "${ADMIN_AUTH[@]}"
    [ "$CODE" = 200 ] || { cat "$BODY" >&2; return 1; }
}

now_ms() { # (the number read by the shell, jq only for an answer of another shape)
    http GET /emulator/v1/clock - "${ADMIN_AUTH[@]}"
    local b=
    IFS= read -r -d '' b <"$BODY"
    if [[ $b =~ \"nowMs\":([0-9]+)[,}] ]]; then
        echo "${BASH_REMATCH[1]}"
        return 0
    fi
    body_json .nowMs
}

# Advances to the start of the next clock hour (UTC).
to_next_hour() {
    local now
    now=$(now_ms)
    advance "$((3600000 - now % 3600000))ms"
}

# rfc3339 MS: the time as the API writes it.
rfc3339() { # (bash's strftime, in UTC: no date process)
    local TZ=UTC0
    printf '%(%Y-%m-%dT%H:%M:%SZ)T\n' "$(($1 / 1000))"
}

# create PLURAL JSON [curl args...]: POST, which must answer 201.
create() {
    local plural=$1 json=$2
    shift 2
    http POST "$P/$plural" "$json" "$@"
    [ "$CODE" = 201 ] || { echo "create $plural: $CODE $(cat "$BODY")" >&2; return 1; }
}

# patch PLURAL/NAME MERGE-JSON [curl args...]
patch() {
    local path=$1 json=$2
    shift 2
    http PATCH "$P/$path" "$json" -H 'Content-Type: application/merge-patch+json' "$@"
}

# val PLURAL/NAME JQ: a field of the stored object.
val() {
    http GET "$P/$1"
    [ "$CODE" = 200 ] || { echo "get $1: $CODE" >&2; return 1; }
    body_json "$2"
}

# The manifests below are written by the shell when every string argument is a plain word
# (no quote, backslash or control character: nothing to escape) and no extra spec field
# replaces one the manifest sets; else by jq, as before (a jq a manifest was a good part of
# these suites' CPU). A JSON argument goes in as it is; the emulator parses it. (_plain and
# _no_keys: tests/lib/common.bash)
# pool_json NAME [SPEC-JSON]
pool_json() {
    local spec=${2:-'{}'}
    if _plain "$1"; then
        printf '{"apiVersion":"nodus.dev/v1","kind":"Pool","metadata":{"name":"%s"},"spec":%s}\n' \
            "$1" "$spec"
        return
    fi
    jq -cn --arg n "$1" --argjson s "$spec" \
        '{apiVersion:"nodus.dev/v1",kind:"Pool",metadata:{name:$n},spec:$s}'
}

# host_json NAME POOL GPUS-JSON [EXTRA-SPEC-JSON]
host_json() {
    local extra=${4:-'{}'}
    if _plain "$1" "$2" && _no_keys "$extra" pool gpus; then
        [[ $extra =~ ^[[:space:]]*\{[[:space:]]*\}[[:space:]]*$ ]] && extra= || extra=,${extra#*\{}
        [ -n "$extra" ] || extra='}'
        printf '{"apiVersion":"nodus.dev/v1","kind":"Host","metadata":{"name":"%s"},"spec":{"pool":"%s","gpus":%s%s}\n' \
            "$1" "$2" "$3" "$extra"
        return
    fi
    jq -cn --arg n "$1" --arg p "$2" --argjson g "$3" --argjson x "$extra" \
        '{apiVersion:"nodus.dev/v1",kind:"Host",metadata:{name:$n},spec:({pool:$p,gpus:$g} + $x)}'
}

# pjob_json NAME POOL COUNT [DURATION] [EXTRA-SPEC-JSON]: a Job of COUNT H100 routed to
# POOL that runs DURATION (default 1h).
pjob_json() {
    local extra=${5:-'{}'}
    if _plain "$1" "$2" "${4:-1h}" && _no_keys "$extra" image maxCostUSD placement resources; then
        [[ $extra =~ ^[[:space:]]*\{[[:space:]]*\}[[:space:]]*$ ]] && extra= || extra=,${extra#*\{}
        [ -n "$extra" ] || extra='}'
        printf '%s%s%s%s%s%s%s\n' '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"' \
            "$1" '","annotations":{"emulator.nodus.dev/duration":"' "${4:-1h}" \
            '"}},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"100.00","placement":{"pool":"' \
            "$2" "\"},\"resources\":{\"gpu\":{\"model\":\"H100\",\"count\":$3}}$extra}"
        return
    fi
    jq -cn --arg n "$1" --arg p "$2" --argjson c "$3" --arg d "${4:-1h}" --argjson x "$extra" \
        '{apiVersion:"nodus.dev/v1",kind:"Job",
          metadata:{name:$n,annotations:{"emulator.nodus.dev/duration":$d}},
          spec:({image:"nodus/pytorch:2.8-cuda12.8",maxCostUSD:"100.00",
                 placement:{pool:$p},resources:{gpu:{model:"H100",count:$c}}} + $x)}'
}

# A Pool with one Ready Host: pool_with_host POOL HOST GPUS-JSON [POOL-SPEC-JSON]
pool_with_host() {
    local spec=${4:-'{}'}
    create pools "$(pool_json "$1" "$spec")"
    create hosts "$(host_json "$2" "$1" "$3")"
    advance 15s
}

# refresh POOL [curl args...]: a write makes the Pool recompute its status now (utilization is otherwise
# brought up to date every minute while devices are busy, and every hour).
refresh() {
    local pool=$1
    shift
    patch "pools/$pool" "{\"metadata\":{\"annotations\":{\"refreshed\":\"$RANDOM$RANDOM\"}}}" "$@"
    [ "$CODE" = 200 ]
    advance 1ms
}

# The PoolActions of a Pool, as a JSON array.
actions_of() {
    http GET "$P/poolactions?fieldSelector=spec.pool=$1"
    jq -c '[.items[] | {name: .metadata.name, action: .spec.action, target: .spec.target,
            decision: .spec.decision, phase: .status.phase}]' "$BODY"
}

# Fails when the emulator's stderr holds a sanitizer report.
assert_no_sanitizer_reports() {
    ! grep -E "ERROR: AddressSanitizer|runtime error|ERROR: LeakSanitizer" \
        "$BATS_FILE_TMPDIR/emulator.err"
}
