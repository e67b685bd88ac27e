# tests/lib/mcp.bash: what the bash suites of nodus mcp share (tests/cli/46-mcp-hostile,
# 47-mcp-bounds, tests/clients/03-mcp): JSON-RPC lines printed into `nodus mcp`, answers
# read with jq, and a Job that runs (its log to follow). Load after common.bash.

API=/apis/nodus.dev/v1/namespaces/default
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bats","version":"1"}}}'

# mcp_start_emulator: the file's emulator, running Jobs' commands (--runtime local), and a
# HOME of the file's own (no user configuration).
mcp_start_emulator() {
    start_emulator --runtime local
    export HOME=$BATS_FILE_TMPDIR/home
    mkdir -p "$HOME"
}

# mcp_job NAME COMMAND_JSON: creates Job NAME running COMMAND (an emulator started with
# --runtime local runs it).
mcp_job() {
    job_json "$1" "{\"command\":$2}" |
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL$API/jobs" -d @-
}

# mcp_slow_job: Job "slow" prints a line and sleeps: Running once the clock has passed
# its start.
mcp_slow_job() {
    mcp_job slow '["sh","-c","echo started; exec sleep 120"]'
    clock_advance 35s
    wait_until running slow
}

phase_is() { # JOB PHASE
    [ "$(curl -sf "$EMU_URL$API/jobs/$1" | jq -r .status.phase)" = "$2" ]
}

running() {
    phase_is "$1" Running
}

# mcp_test_setup: each test's nodus mcp reaches the file's emulator, no user setting.
mcp_test_setup() {
    unset NODUS_TOKEN NODUS_CONFIG KUBECONFIG NODUS_TRACE
    export NODUS_SERVER=$EMU_URL
    OUT=$BATS_TEST_TMPDIR/out
    ERR=$BATS_TEST_TMPDIR/err
}

# mcp LINE...: initialize, then each LINE, into nodus mcp ${MCP_FLAGS[@]} (stdin then
# closed); its stdout in $OUT, stderr in $ERR, its exit status in $RC. Fails on a
# sanitizer report (under make asan).
mcp() {
    RC=0
    printf '%s\n' "$INIT" "$@" | nodus mcp ${MCP_FLAGS[@]+"${MCP_FLAGS[@]}"} >"$OUT" 2>"$ERR" ||
        RC=$?
    ! grep -E "Sanitizer|runtime error" "$ERR"
}

# call ID TOOL ARGS: a tools/call line.
call() {
    printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2" "$3"
}

# answer ID FILTER VALUE: the answer to request ID (one, exactly) has FILTER == VALUE.
answer() {
    run -0 jq -rs --argjson id "$1" "[.[] | select(.id == \$id)] | if length == 1 then .[0] | $2 else \"\\(length) answers to \\(\$id)\" end" "$OUT"
    assert_output "$3"
}
