# Shared set-up for the bats suites: each file starts its own emulator on port 0 in
# BATS_FILE_TMPDIR, and helpers to talk to it with curl.
#
#   start_emulator [flags...]   in setup_file; exports EMU_URL, EMU_STATE, EMU_PID. The
#                               clock stands still (--speed 0: it moves only when a test
#                               advances it) unless EMU_SPEED or a --speed flag says otherwise
#   stop_emulator               in teardown_file
#   http METHOD PATH [BODY] [curl args...]
#                               sets CODE (HTTP status), BODY (file holding the body) and
#                               HDRS (file holding the headers); BODY "-" means none
#   body_json FILTER            jq FILTER over the last body (raw output)

bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

ND_ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
export ND_BIN_DIR=${ND_BIN_DIR:-$ND_ROOT/bin}
export PATH="$ND_BIN_DIR:$PATH"

start_emulator() {
    EMU_STATE=${EMU_STATE:-$BATS_FILE_TMPDIR/state}
    local portfile=$BATS_FILE_TMPDIR/port
    rm -f "$portfile"
    "$ND_BIN_DIR/nodus-emulator" --state "$EMU_STATE" --listen 127.0.0.1:0 \
        --port-file "$portfile" --fsync never --quiet --speed "${EMU_SPEED:-0}" "$@" \
        >"$BATS_FILE_TMPDIR/emulator.out" 2>"$BATS_FILE_TMPDIR/emulator.err" 3>&- &
    EMU_PID=$!
    local i
    for i in $(seq 1 200); do
        [ -s "$portfile" ] && break
        if ! kill -0 "$EMU_PID" 2>/dev/null; then
            echo "emulator exited early:" >&2
            cat "$BATS_FILE_TMPDIR/emulator.err" >&2
            return 1
        fi
        sleep 0.05
    done
    [ -s "$portfile" ] || { echo "emulator did not start" >&2; return 1; }
    EMU_URL="http://127.0.0.1:$(cat "$portfile")"
    echo "$EMU_PID" >"$BATS_FILE_TMPDIR/emulator.pid"
    export EMU_URL EMU_STATE EMU_PID
}

# Stops the emulator of this file, whichever test started it, and waits until it is gone.
stop_emulator() {
    local pidfile=$BATS_FILE_TMPDIR/emulator.pid pid
    [ -s "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    rm -f "$pidfile"
    kill -TERM "$pid" 2>/dev/null || return 0
    local i
    for i in $(seq 1 200); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null || true
}

# The emulator's URL, read each time (a test may have restarted it on a new port).
emu_url() {
    echo "http://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")"
}

http() {
    local method=$1 path=$2 data=${3:--}
    shift 3 2>/dev/null || shift $#
    BODY=$BATS_TEST_TMPDIR/body.$$
    HDRS=$BATS_TEST_TMPDIR/headers.$$
    local args=(-sS -X "$method" -o "$BODY" -D "$HDRS" -w '%{http_code}')
    if [ "$data" != "-" ]; then
        args+=(--data-binary "$data")
        case " $* " in
        *"Content-Type"*) ;;
        *) args+=(-H 'Content-Type: application/json') ;;
        esac
    fi
    EMU_URL=$(emu_url)
    CODE=$(curl "${args[@]}" "$@" "$EMU_URL$path")
}

body_json() {
    jq -r "$1" "$BODY"
}

header() {
    grep -i "^$1:" "$HDRS" | head -n 1 | cut -d: -f2- | sed 's/^ //; s/\r$//'
}

# A Job manifest (JSON) with a name and optional extra spec fields (a JSON object).
job_json() {
    local name=$1 extra=${2:-'{}'}
    jq -cn --arg n "$name" --argjson x "$extra" \
        '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:{name:$n},
          spec:({image:"nodus/pytorch:2.8-cuda12.8",command:["python","train.py"],
                 maxCostUSD:"40.00"} + $x)}'
}
