# nodus.bash: helpers for bats suites that test against nodus-emulator (docs/testing.md).
# Installed as $(PREFIX)/share/nodus/bats/nodus.bash. Load it with
#   load /usr/local/share/nodus/bats/nodus
# or, with BATS_LIB_PATH=/usr/local/share/nodus/bats (where nodus/load.bash is this
# file again, as bats_load_library wants),
#   bats_load_library nodus
#
#   nodus_emulator_start [FLAGS...]  in setup_file: an emulator of this file's own, on a
#                          free port, state under BATS_FILE_TMPDIR, clock stopped
#                          (--speed 0) unless FLAGS say otherwise; waits until /readyz says
#                          ok; exports NODUS_SERVER (and NODUS_EMULATOR_PID)
#   nodus_emulator_stop    in teardown_file (the emulator also goes if the suite dies)
#   nodus_clock_advance D  move the emulator's clock forward by a duration (90s, 2h)
#   nodus_clock_speed N    run the clock N times real time (0 stops it)
#   nodus_snapshot NAME    save the emulator's whole state (and clock) as NAME
#   nodus_restore NAME     bring it back (e.g. in setup, so each test starts clean)
#   nodus_api METHOD PATH [BODY]   one request; prints the body, fails on a non-2xx
#   assert_phase KIND/NAME PHASE [-n PROJECT]
#   assert_cost KIND/NAME '$0.52'  (or '<= $1.00'; also <, >, >=, ==, !=)
#   assert_status_reason REASON -- COMMAND...   COMMAND fails with that Status reason
#
# The assertions print what they saw when they fail. They work with or without
# bats-support and bats-assert, and under bats' errexit (a failing command inside is
# caught, not fatal). Needs curl and jq, and nodus / nodus-emulator on PATH
# (or NODUS_BIN_DIR naming their directory).

if [ -n "${NODUS_BIN_DIR:-}" ]; then
    PATH="$NODUS_BIN_DIR:$PATH"
fi

# _nodus_fail MESSAGE...: print the lines on stderr (bats shows them) and fail.
_nodus_fail() {
    printf '%s\n' "$@" >&2
    return 1
}

_nodus_need_server() {
    [ -n "${NODUS_SERVER:-}" ] && return 0
    _nodus_fail "NODUS_SERVER is not set: call nodus_emulator_start in setup_file first"
}

nodus_emulator_start() {
    local dir=${BATS_FILE_TMPDIR:?nodus_emulator_start runs inside bats (setup_file)}/nodus-emulator
    local speed=(--speed 0) a
    for a in "$@"; do
        case $a in --speed|--speed=*) speed=() ;; esac
    done
    mkdir -p "$dir"
    rm -f "$dir/port"
    # fd 3 is bats' own: an emulator holding it open would keep bats waiting
    nodus-emulator --state "$dir/state" --listen 127.0.0.1:0 --port-file "$dir/port" \
        --fsync never --quiet "${speed[@]}" "$@" \
        >"$dir/stdout" 2>"$dir/stderr" 3>&- &
    NODUS_EMULATOR_PID=$!
    echo "$NODUS_EMULATOR_PID" >"$dir/pid"
    # a watchdog: if this suite dies without teardown_file, the emulator goes with it
    ( tail --pid=$$ -f /dev/null 2>/dev/null; kill -TERM "$NODUS_EMULATOR_PID" 2>/dev/null ) \
        </dev/null >/dev/null 2>&1 3>&- &
    echo $! >"$dir/watchdog"
    local i
    for ((i = 0; i < 200; i++)); do
        [ -s "$dir/port" ] && break
        kill -0 "$NODUS_EMULATOR_PID" 2>/dev/null ||
            _nodus_fail "nodus-emulator exited at start:" "$(cat "$dir/stderr")" || return 1
        sleep 0.05
    done
    [ -s "$dir/port" ] || _nodus_fail "nodus-emulator wrote no port file in 10 s" || return 1
    NODUS_SERVER="http://127.0.0.1:$(cat "$dir/port")"
    for ((i = 0; i < 200; i++)); do
        [ "$(curl -s --max-time 2 "$NODUS_SERVER/readyz" 2>/dev/null)" = ok ] && break
        sleep 0.05
    done
    [ "$(curl -s --max-time 2 "$NODUS_SERVER/readyz")" = ok ] ||
        _nodus_fail "nodus-emulator at $NODUS_SERVER is not ready after 10 s:" \
            "$(cat "$dir/stderr")" || return 1
    # the suite talks to this emulator only: not to a server of the user's config
    NODUS_CONFIG=$dir/config
    : >"$NODUS_CONFIG"
    unset NODUS_TOKEN
    export NODUS_SERVER NODUS_CONFIG NODUS_EMULATOR_PID
}

nodus_emulator_stop() {
    local dir=${BATS_FILE_TMPDIR:-}/nodus-emulator pid
    [ -s "$dir/watchdog" ] && kill "$(cat "$dir/watchdog")" 2>/dev/null
    rm -f "$dir/watchdog"
    [ -s "$dir/pid" ] || return 0
    pid=$(cat "$dir/pid")
    rm -f "$dir/pid"
    kill -TERM "$pid" 2>/dev/null || return 0
    local i
    for ((i = 0; i < 200; i++)); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null
    return 0
}

# nodus_api METHOD PATH [BODY]: prints the answer's body; fails, printing it, on a
# non-2xx answer.
nodus_api() {
    _nodus_need_server || return 1
    local method=$1 path=$2 out code
    local args=(-sS -X "$method" -w '\n%{http_code}')
    [ $# -ge 3 ] && args+=(-H 'Content-Type: application/json' --data-binary "$3")
    out=$(curl "${args[@]}" "$NODUS_SERVER$path") ||
        { _nodus_fail "curl failed: $method $path"; return 1; }
    code=${out##*$'\n'}
    out=${out%$'\n'*}
    case $code in
    2??) printf '%s\n' "$out" ;;
    *) _nodus_fail "$method $path answered $code:" "$out" ;;
    esac
}

nodus_clock_advance() {
    nodus_api POST /emulator/v1/clock "{\"advance\":\"$1\"}" >/dev/null
}

nodus_clock_speed() {
    nodus_api POST /emulator/v1/clock "{\"speed\":$1}" >/dev/null
}

nodus_snapshot() {
    nodus_api POST "/emulator/v1/snapshots/$1" "{}" >/dev/null
}

nodus_restore() {
    nodus_api POST "/emulator/v1/snapshots/$1/restore" "{}" >/dev/null
}

# _nodus_get KIND/NAME [-n P]: the object as JSON (nodus get -o json), else fails
# printing what nodus said.
_nodus_get() {
    local out err rc
    err=$(mktemp)
    rc=0
    out=$(nodus get "$@" -o json 2>"$err") || rc=$?
    if [ $rc -ne 0 ]; then
        _nodus_fail "nodus get $* failed (exit $rc):" "$(cat "$err")"
        rm -f "$err"
        return 1
    fi
    rm -f "$err"
    printf '%s\n' "$out"
}

# assert_phase KIND/NAME PHASE [-n PROJECT]
assert_phase() {
    local ref=$1 want=$2 obj got
    shift 2
    obj=$(_nodus_get "$ref" "$@") || return 1
    got=$(jq -r '.status.phase // "(none)"' <<<"$obj")
    [ "$got" = "$want" ] && return 0
    _nodus_fail "assert_phase: $ref: expected phase $want, got $got" \
        "conditions: $(jq -c '[.status.conditions[]? | {type, status, reason}]' <<<"$obj")"
}

# $1.23 or 1.23 -> micro-dollars, an integer (money is never a float)
_nodus_micros() {
    local v=${1#\$} whole frac
    [[ $v =~ ^[0-9]+(\.[0-9]{0,6})?$ ]] || return 1
    whole=${v%%.*}
    frac=
    [[ $v == *.* ]] && frac=${v#*.}
    frac=${frac}000000
    echo $((10#$whole * 1000000 + 10#${frac:0:6}))
}

# assert_cost KIND/NAME '$0.52' | '<= $1.00' [-n PROJECT]: status.costUSD
assert_cost() {
    local ref=$1 spec=$2 op want obj got g w ok=1
    shift 2
    if [[ $spec =~ ^[[:space:]]*(<=|>=|==|!=|<|>)?[[:space:]]*(\$?[0-9.]+)[[:space:]]*$ ]]; then
        op=${BASH_REMATCH[1]:-==}
        want=${BASH_REMATCH[2]}
    else
        _nodus_fail "assert_cost: cannot read '$spec' (use '\$0.52' or '<= \$1.00')"
        return 1
    fi
    obj=$(_nodus_get "$ref" "$@") || return 1
    got=$(jq -r '.status.costUSD // "(none)"' <<<"$obj")
    w=$(_nodus_micros "$want") || { _nodus_fail "assert_cost: '$want' is not an amount"; return 1; }
    if g=$(_nodus_micros "$got"); then
        case $op in
        '==') ((g == w)) && ok=0 ;;
        '!=') ((g != w)) && ok=0 ;;
        '<') ((g < w)) && ok=0 ;;
        '<=') ((g <= w)) && ok=0 ;;
        '>') ((g > w)) && ok=0 ;;
        '>=') ((g >= w)) && ok=0 ;;
        esac
    fi
    [ $ok -eq 0 ] && return 0
    _nodus_fail "assert_cost: $ref: expected cost $op \$${want#\$}, got \$$got" \
        "$(jq -r '"phase: \(.status.phase // "(none)"), rate: \(.status.rateUSDPerHour // "(none)")/h"' \
            <<<"$obj")"
}

# assert_status_reason REASON -- COMMAND...: COMMAND (usually a nodus command) fails,
# and the error it prints is the server's Status with that reason.
assert_status_reason() {
    local want=$1 out err rc got
    shift
    [ "${1:-}" = -- ] && shift
    [ $# -gt 0 ] || { _nodus_fail "assert_status_reason: no command after --"; return 1; }
    out=$(mktemp)
    err=$(mktemp)
    rc=0
    "$@" >"$out" 2>"$err" || rc=$?
    # kubectl's two forms: "Error from server (Reason): ..." and, for Invalid,
    # "The Kind "name" is invalid: ..."
    got=$(sed -n -e 's/^Error from server (\([A-Za-z]*\)).*/\1/p' \
        -e 's/^The [A-Za-z.]* ".*" is invalid: .*/Invalid/p' "$err" | head -n 1)
    if [ $rc -ne 0 ] && [ "$got" = "$want" ]; then
        rm -f "$out" "$err"
        return 0
    fi
    if [ $rc -eq 0 ]; then
        _nodus_fail "assert_status_reason: expected '$*' to fail with $want; it succeeded (exit 0)"
    else
        local what="got ${got:-no Status} (exit $rc)"
        _nodus_fail "assert_status_reason: expected '$*' to fail with $want; $what"
    fi
    printf '%s\n' "stdout: $(cat "$out")" "stderr: $(cat "$err")" >&2
    rm -f "$out" "$err"
    return 1
}
