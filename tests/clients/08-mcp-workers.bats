#!/usr/bin/env bats
# nodus mcp's warm workers (cmd/nodus/mcp/worker.c): a tool call runs in a worker forked
# once and reused call after call. A raw client (a bash coproc speaking JSON lines) sends
# one call at a time and reads its answer, so that the calls share a worker; each answer
# is compared with a fresh server's answer to the same call (no per-call state leaks from
# one call to the next), and the server's children are read from /proc.

load ../lib/common

bats_require_minimum_version 1.5.0

API=/apis/nodus.dev/v1/namespaces

setup_file() {
    start_emulator
    export HOME=$BATS_FILE_TMPDIR/home
    mkdir -p "$HOME"
    unset KUBECONFIG NODUS_CONFIG NODUS_TOKEN NODUS_TRACE
    export NODUS_SERVER=$EMU_URL
    local ns
    for ns in alpha beta; do
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
            "$EMU_URL/api/v1/namespaces" -d "{\"metadata\":{\"name\":\"$ns\"}}"
    done
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL$API/alpha/volumes" \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"va"},"spec":{"size":"1Gi"}}'
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL$API/beta/volumes" \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"vb"},"spec":{"size":"2Gi"}}'
}

teardown_file() {
    stop_emulator
}

teardown() {
    if [ -n "${TO:-}" ]; then
        exec {TO}>&- {FROM}<&-
    fi
    if [ -n "${MCP_PID:-}" ]; then
        kill "$MCP_PID" 2>/dev/null || true
        wait "$MCP_PID" 2>/dev/null || true
    fi
}

INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bats","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}'

call_line() { # ID TOOL ARGS: a tools/call request
    jq -cn --argjson id "$1" --arg t "$2" --argjson a "$3" \
        '{jsonrpc:"2.0",id:$id,method:"tools/call",params:{name:$t,arguments:$a}}'
}

start_mcp() {
    coproc MCP { exec "$ND_BIN_DIR/nodus" mcp 2>"$BATS_TEST_TMPDIR/mcp.err"; }
    # copies of the coproc's fds: command substitutions (subshells) do not see its own
    exec {TO}>&"${MCP[1]}" {FROM}<&"${MCP[0]}"
    printf '%s\n' "$INIT" >&"$TO"
    answer 0 >/dev/null
}

answer() { # ID: the answer to request ID (lines before it are notifications)
    local line
    while read -t 20 -r line <&"$FROM"; do
        if [ "$(jq -c .id <<<"$line")" = "$1" ]; then
            printf '%s\n' "$line"
            return 0
        fi
        printf '%s\n' "$line" >>"$BATS_TEST_TMPDIR/before"
    done
    echo "no answer to $1" >&2
    cat "$BATS_TEST_TMPDIR/mcp.err" >&2
    return 1
}

workers() { # the server's children
    cat "/proc/$MCP_PID/task/$MCP_PID/children"
}

# an answer but its request's id (every request has its own)
SAME='.result | walk(if type == "string" then gsub("req_[0-9a-z]+"; "REQ") else . end)'

fresh() { # TOOL ARGS: the answer of a fresh server to this one call
    { printf '%s\n' "$INIT"; call_line 1 "$1" "$2"; } |
        "$ND_BIN_DIR/nodus" mcp 2>/dev/null | jq -c 'select(.id == 1)'
}

@test "mcp workers: one worker answers call after call, as fresh servers do (projects and flags do not leak)" {
    start_mcp
    local calls=(
        'get {"kind":"volume","name":"va","project":"alpha"}'
        'get {"kind":"volume","name":"va"}'
        'list {"kind":"volumes","allProjects":true}'
        'list {"kind":"volumes"}'
        'get {"kind":"volume","name":"vb","project":"beta","format":"json"}'
        'list {"kind":"volumes","project":"beta","full":true}'
        'get {"kind":"volume","name":"vb"}'
        'list {"kind":"volums","project":"alpha"}'
        'list {"kind":"volumes","project":"alpha"}'
    )
    local i=1 first="" c tool args got want
    for c in "${calls[@]}"; do
        tool=${c%% *} args=${c#* }
        call_line "$i" "$tool" "$args" >&"$TO"
        got=$(answer "$i" | jq -cS "$SAME")
        want=$(fresh "$tool" "$args" | jq -cS "$SAME")
        [ -n "$want" ] && [ "$want" != null ]
        assert_equal "$got" "$want"
        [ -n "$first" ] || first=$(workers)
        assert_equal "$(workers)" "$first" # the same worker, still there
        i=$((i + 1))
    done
    [ -n "$first" ]
    [ "$(wc -w <<<"$first")" -eq 1 ]
}

@test "mcp workers: a cancelled call's worker is killed and replaced; the next call is answered" {
    start_mcp
    call_line 1 get '{"kind":"volume","name":"va","project":"alpha"}' >&"$TO"
    answer 1 | jq -e '.result.structuredContent.object.metadata.name == "va" or .result.isError != true' >/dev/null
    local old
    old=$(workers)
    [ -n "$old" ]
    # a call that is still running when its cancel comes: the emulator holds its GET 8 s
    # (a fault), whenever the server reads the cancel (bash writes line by line)
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL/emulator/v1/faults" \
        -d '{"path":"/volumes/held$","verb":"GET","status":0,"delayMs":8000,"count":1}'
    call_line 2 get '{"kind":"volume","name":"held","project":"alpha"}' >&"$TO"
    echo '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}' >&"$TO"
    wait_until pid_gone "$old"
    call_line 3 get '{"kind":"volume","name":"vb","project":"beta"}' >&"$TO"
    run -0 answer 3
    [ "$(jq -r '.result.isError // false' <<<"$output")" = false ]
    [ -n "$(workers)" ]
    [ "$(workers)" != "$old" ]
    call_line 4 list '{"kind":"volumes"}' >&"$TO"
    run -0 answer 4
    # the cancelled call was answered nothing
    touch "$BATS_TEST_TMPDIR/before"
    run -1 grep '"id":2' "$BATS_TEST_TMPDIR/before"
}

@test "mcp workers: nodus mcp's requests say User-Agent nodus-mcp/VERSION (an object it creates is launched-by mcp)" {
    start_mcp
    local m='apiVersion: nodus.dev/v1
kind: Volume
metadata:
  name: agent
spec:
  size: 1Gi
'
    call_line 1 apply "$(jq -cn --arg m "$m" '{manifest:$m}')" >&"$TO"
    run -0 answer 1
    [ "$(jq -r '.result.isError // false' <<<"$output")" = false ]
    run -0 curl -sf "$EMU_URL$API/default/volumes/agent"
    assert_equal "$(jq -r '.metadata.labels["nodus.dev/launched-by"]' <<<"$output")" mcp
    # the CLI's own requests stay nodus/VERSION
    "$ND_BIN_DIR/nodus" create -f - <<<"${m/name: agent/name: person}" >/dev/null
    run -0 curl -sf "$EMU_URL$API/default/volumes/person"
    assert_equal "$(jq -r '.metadata.labels["nodus.dev/launched-by"]' <<<"$output")" cli
}
