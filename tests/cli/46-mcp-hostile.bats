#!/usr/bin/env bats
# nodus mcp against a hostile or clumsy client (issue 23): lines printed into `nodus mcp`
# on stdin, each answer checked with jq. Broken JSON-RPC gets its protocol error
# (-32700, -32600, -32601, -32602) and the next message is answered still; a notification
# is never answered; closing stdin mid-call lets the running call answer, then nodus mcp
# exits 0; a client that closes stdout ends it without a crash; stdout carries nothing but
# whole JSON-RPC lines. The emulator runs Jobs' commands (--runtime local): a Job that
# prints a line and sleeps is a log to follow while stdin closes, one that printed 5 MB
# an answer past the 4 MiB bound of a message.

load ../lib/common
load ../lib/mcp

bats_require_minimum_version 1.5.0

setup_file() {
    mcp_start_emulator
    mcp_job big '["sh","-c","yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 5000000"]'
    mcp_slow_job
    wait_until phase_is big Succeeded
}

teardown_file() {
    stop_emulator
}

setup() {
    mcp_test_setup
}

# Every line of $OUT is one JSON-RPC 2.0 object, and the output ends with a newline.
only_jsonrpc_lines() {
    [ ! -s "$OUT" ] || [ "$(tail -c 1 "$OUT" | od -An -c | tr -d ' ')" = '\n' ]
    while IFS= read -r line; do
        jq -e 'type == "object" and .jsonrpc == "2.0"' <<<"$line" >/dev/null ||
            { echo "not a JSON-RPC line: ${line:0:300}" >&2; return 1; }
    done <"$OUT"
}

@test "mcp hostile: malformed JSON is -32700 and a JSON value that is not an object -32600; the next message is answered" {
    mcp '{"jsonrpc":"2.0","id":1,"method":' '"just a string"' '42' '{"jsonrpc":"2.0","id":2,"method":"ping"}'
    assert_equal "$RC" 0
    run -0 jq -sc '[.[] | select(.id == null) | .error.code]' "$OUT"
    assert_output '[-32700,-32600,-32600]'
    answer 2 '.result' '{}'
    only_jsonrpc_lines
}

@test "mcp hostile: a batch array is -32600 (one message a line), answered once" {
    mcp '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]' \
        '{"jsonrpc":"2.0","id":3,"method":"ping"}'
    run -0 jq -sc '[.[] | select(.id == null) | .error | .code, (.message | test("batch"))]' "$OUT"
    assert_output '[-32600,true]'
    answer 3 '.result' '{}'
    run -0 jq -s 'length' "$OUT"
    assert_output 3 # initialize, the batch's error, ping
}

@test "mcp hostile: a 10 MiB message is -32600 (messages are at most 4 MiB) and the next one is answered" {
    RC=0
    {
        printf '%s\n{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' "$INIT"
        head -c $((10 * 1024 * 1024)) /dev/zero | tr '\0' a
        printf '"}}\n%s\n' '{"jsonrpc":"2.0","id":2,"method":"ping"}'
    } | nodus mcp >"$OUT" 2>"$ERR" || RC=$?
    assert_equal "$RC" 0
    run -0 jq -r 'select(.id == null) | "\(.error.code) \(.error.message)"' "$OUT"
    assert_output "-32600 message too large: a message is at most 4194304 bytes"
    answer 2 '.result' '{}'
}

@test "mcp hostile: an unknown method is -32601 for a request and nothing for a notification" {
    mcp '{"jsonrpc":"2.0","id":"a","method":"tools/run"}' '{"jsonrpc":"2.0","method":"notifications/whatever"}' \
        '{"jsonrpc":"2.0","id":"b","method":"ping"}'
    answer '"a"' '.error.code' -32601
    answer '"b"' '.result' '{}'
    run -0 jq -s 'length' "$OUT"
    assert_output 3
}

@test "mcp hostile: wrong params are -32602 (params not an object, a bad level, unknown tool, arguments not an object); a notification's are not answered" {
    mcp '{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}' \
        '{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"loud"}}' \
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool"}}' \
        '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get","arguments":["jobs"]}}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}' \
        '{"jsonrpc":"2.0","id":5,"method":"initialize","params":{}}'
    for id in 1 2 3 4 5; do
        answer "$id" '.error.code' -32602
    done
    run -0 jq -s 'length' "$OUT"
    assert_output 6
}

@test "mcp hostile: a call before initialize is -32600; ping is answered before it" {
    RC=0
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' '{"jsonrpc":"2.0","id":2,"method":"ping"}' \
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"logs","arguments":{"name":"slow"}}}' |
        nodus mcp >"$OUT" 2>"$ERR" || RC=$?
    assert_equal "$RC" 0
    answer 1 '.error | "\(.code) \(.message)"' '-32600 the session is not initialized: send initialize first'
    answer 2 '.result' '{}'
    answer 3 '.error.code' -32600
}

@test "mcp hostile: notifications need no answer (initialized, cancelled of nothing, a response to nothing); one sent with an id is -32600" {
    mcp '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}' \
        '{"jsonrpc":"2.0","id":77,"result":{}}' \
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"logs","arguments":{"name":"slow","tail":1}}}' \
        '{"jsonrpc":"2.0","id":2,"method":"notifications/cancelled","params":{"requestId":1}}'
    run -0 jq -sc '[.[].id] | sort' "$OUT"
    assert_output '[0,1,2]'
    answer 1 '.result.content[0].text' 'started'
    answer 2 '.error.code' -32600
}

@test "mcp hostile: stdin closed mid-call: the running call answers, then a clean exit 0, whole lines only" {
    # the follow runs for 1 s; stdin ends right after the request
    mcp '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"logs","arguments":{"name":"slow","follow":true,"followSeconds":1}}}'
    assert_equal "$RC" 0
    answer 1 '.result.structuredContent | "\(.lines) \(.ended)"' '1 followed for followSeconds'
    answer 1 '.result.content[0].text | startswith("started\n")' true
    only_jsonrpc_lines
    run grep -E "AddressSanitizer|runtime error" "$ERR"
    [ "$status" -eq 1 ]
}

@test "mcp hostile: a client that closes stdout ends nodus mcp without a crash" {
    # stdout closed before nodus mcp starts: every write fails (EBADF)
    RC=0
    printf '%s\n' "$INIT" '{"jsonrpc":"2.0","id":1,"method":"ping"}' | nodus mcp >&- 2>"$ERR" || RC=$?
    assert_equal "$RC" 0
    # a pipe whose reader is gone: the first answer is EPIPE (no SIGPIPE death). The
    # input is a fifo held open here (read-write: no open blocks), written once the
    # reader of nodus mcp's stdout has exited, then closed.
    local fifo=$BATS_TEST_TMPDIR/in rcf=$BATS_TEST_TMPDIR/rc
    mkfifo "$fifo"
    exec 7<>"$fifo"
    (nodus mcp <"$fifo" 2>"$ERR" 7<&-; echo $? >"$rcf") | true &
    local reader=$!
    wait_until pid_gone "$reader"
    printf '%s\n' "$INIT" '{"jsonrpc":"2.0","id":1,"method":"ping"}' >&7
    exec 7>&-
    wait_until test -s "$rcf"
    assert_equal "$(cat "$rcf")" 0
    run grep -E "AddressSanitizer|runtime error" "$ERR"
    [ "$status" -eq 1 ]
}

@test "mcp hostile: stdout carries only JSON-RPC lines: the verbs' output and errors never leak" {
    mcp '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"describe","arguments":{"kind":"job","name":"slow"}}}' \
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"logs","arguments":{"name":"slow"}}}' \
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"logs","arguments":{"kind":"volume","name":"x"}}}' \
        '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get","arguments":{"kind":"job","name":"none"}}}'
    only_jsonrpc_lines
    answer 1 '.result.content[0].text | test("slow")' true
    answer 2 '.result.content[0].text' 'started'
    answer 3 '.result.isError' true
    answer 4 '.result.structuredContent.status.reason' NotFound
    run -0 jq -s 'length' "$OUT"
    assert_output 5
}

@test "mcp hostile: an answer past the 4 MiB bound of a message is -32603 saying to ask for less; the session goes on" {
    RC=0
    printf '%s\n' "$INIT" \
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"logs","arguments":{"name":"big"}}}' \
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"logs","arguments":{"name":"big","tail":1}}}' |
        nodus mcp --max-output 8000000 >"$OUT" 2>"$ERR" || RC=$?
    assert_equal "$RC" 0
    answer 1 '.error | "\(.code) \(.message)"' "-32603 the call's answer passed 4194304 bytes: ask for less (a limit, a selector, a tail)"
    answer 2 '.result.structuredContent.lines' 1
    only_jsonrpc_lines
}
