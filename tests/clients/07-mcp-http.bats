#!/usr/bin/env bats
# nodus mcp --listen: the MCP server over Streamable HTTP. mcp-http.test.mjs runs the
# official MCP client's StreamableHTTPClientTransport once, in setup_file (one node
# process), against two servers of this file: one without a token, one with; each test
# below checks one scenario's line. The raw HTTP rules (status codes, headers) are
# checked with curl.

load ../lib/common
load ../lib/clients

bats_require_minimum_version 1.5.0

TOKEN=nodus-test-token-0123456789abcdef
ACCEPT='Accept: application/json, text/event-stream'

# start_mcp NAME [FLAGS...]: nodus mcp --listen 127.0.0.1:0 in the background, its stderr
# in NAME.err, its pid in NAME.pid and, once it exits, its status in NAME.rc.
start_mcp() {
    local name=$1 d=$BATS_FILE_TMPDIR
    shift
    (
        "$ND_BIN_DIR/nodus" mcp --listen 127.0.0.1:0 "$@" </dev/null 2>"$d/$name.err" &
        echo $! >"$d/$name.pid"
        wait $!
        echo $? >"$d/$name.rc"
    ) 3>&- &
    wait_until grep -q 'serving MCP' "$d/$name.err" || { cat "$d/$name.err" >&2; return 1; }
}

# url_of NAME: the URL the server printed.
url_of() {
    sed -n 's|^nodus mcp: serving MCP (Streamable HTTP) at \(http://[^ ]*\).*|\1|p' \
        "$BATS_FILE_TMPDIR/$1.err"
}

stop_mcp() {
    local f=$BATS_FILE_TMPDIR/$1.pid pid
    [ -s "$f" ] || return 0
    pid=$(cat "$f")
    kill -TERM "$pid" 2>/dev/null || return 0
    wait_until pid_gone "$pid" || kill -KILL "$pid" 2>/dev/null || true
}

setup_file() {
    mcp_setup_file mcp-http.test.mjs
}

prepare() {
    # a running Job, for the logs tool's follow (when this build has it)
    job_json ticker | curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        "$EMU_URL/apis/nodus.dev/v1/namespaces/default/jobs" -d @-
    clock_advance 35s
    start_mcp plain
    NODUS_MCP_TOKEN=$TOKEN start_mcp tok
    export MCP_URL MCP_TOKEN_URL MCP_TOKEN=$TOKEN MCP_JOB=ticker
    MCP_URL=$(url_of plain)
    MCP_TOKEN_URL=$(url_of tok)
}

teardown_file() {
    stop_mcp plain
    stop_mcp tok
    stop_emulator
}

# A scenario that ran and passed, or skipped with its reason.
scenario_or_skip() {
    local f=$BATS_FILE_TMPDIR/results/$1.out
    if [ -f "$f" ] && [[ $(head -n 1 "$f") =~ ^skip\ $1:\ (.*)$ ]]; then
        skip "${BASH_REMATCH[1]}"
    fi
    scenario "$1"
}

# mcp METHOD URL [DATA|-] [CURL-ARGS...]: one request; CODE, BODY and HDRS as http() sets.
mcp() {
    local method=$1 url=$2 data=${3:--}
    shift 3 2>/dev/null || shift $#
    BODY=$BATS_TEST_TMPDIR/body
    HDRS=$BATS_TEST_TMPDIR/headers
    local args=(-sS -X "$method" -o "$BODY" -D "$HDRS" -w '%{http_code}')
    [ "$data" = - ] || args+=(--data-binary "$data")
    CODE=$(curl "${args[@]}" "$@" "$url")
}

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'

# A session of the plain server opened with curl: SID.
open_session() {
    mcp POST "$(url_of plain)" "$INIT" -H 'Content-Type: application/json' -H "$ACCEPT"
    [ "$CODE" = 200 ] || { cat "$BODY" >&2; return 1; }
    SID=$(header Mcp-Session-Id)
    [[ $SID =~ ^[0-9a-f]{32}$ ]]
}

@test "mcp http: the ready line names the URL, and the port the system chose for port 0" {
    run -0 cat "$BATS_FILE_TMPDIR/plain.err"
    assert_output --regexp '^nodus mcp: serving MCP \(Streamable HTTP\) at http://127\.0\.0\.1:([0-9]+)/mcp \(port 0: the system chose [0-9]+\)$'
    local port=${output#*127.0.0.1:}
    port=${port%%/*}
    assert_output --partial "the system chose $port)"
}

@test "mcp http: every scenario of mcp-http.test.mjs has a test here" {
    scenarios_listed
}

@test "mcp http: the SDK's transport initializes a session (newest revision, an Mcp-Session-Id)" {
    scenario_or_skip initialize
}

@test "mcp http: tools/list over HTTP" {
    scenario_or_skip tools-list
}

@test "mcp http: tools/call of get answers on the call's event stream" {
    scenario_or_skip call-get
}

@test "mcp http: tools/call of describe" {
    scenario_or_skip call-describe
}

@test "mcp http: a call's progress comes on its event stream before its answer" {
    scenario_or_skip progress
}

@test "mcp http: notifications/cancelled ends the call's stream, without an answer" {
    scenario_or_skip cancel-ends-stream
}

@test "mcp http: GET opens the session's event stream" {
    scenario_or_skip get-stream
}

@test "mcp http: a request needs its Mcp-Session-Id (400 without, 404 for an unknown one)" {
    scenario_or_skip session-required
}

@test "mcp http: DELETE ends the session and its streams" {
    scenario_or_skip delete-ends-session
}

@test "mcp http: a web page's Origin is refused (403)" {
    scenario_or_skip bad-origin
}

@test "mcp http: with a token, a missing or wrong one is 401" {
    scenario_or_skip token
}

@test "mcp http: a notification is 202 without a body; an answer is JSON naming the session" {
    open_session
    assert_equal "$(header Content-Type)" application/json
    body_is .result.protocolVersion 2025-06-18 .result.serverInfo.name nodus
    mcp POST "$(url_of plain)" '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        -H 'Content-Type: application/json' -H "$ACCEPT" -H "Mcp-Session-Id: $SID"
    assert_equal "$CODE" 202
    assert_equal "$(wc -c <"$BODY")" 0
    mcp POST "$(url_of plain)" '{"jsonrpc":"2.0","id":2,"method":"ping"}' \
        -H 'Content-Type: application/json' -H "$ACCEPT" -H "Mcp-Session-Id: $SID" \
        -H 'MCP-Protocol-Version: 2025-06-18'
    assert_equal "$CODE" 200
    body_is .id 2 .result '{}'
}

@test "mcp http: a POST's Content-Type (415), Accept (406), size (413) and JSON (400, -32700)" {
    local u
    u=$(url_of plain)
    mcp POST "$u" "$INIT" -H 'Content-Type: text/plain' -H "$ACCEPT"
    assert_equal "$CODE" 415
    body_is .error.data.status.reason UnsupportedMediaType .id null
    mcp POST "$u" "$INIT" -H 'Content-Type: application/json' -H 'Accept: application/json'
    assert_equal "$CODE" 406
    body_is .error.data.status.reason NotAcceptable
    head -c $((4 * 1024 * 1024 + 1)) /dev/zero >"$BATS_TEST_TMPDIR/big"
    mcp POST "$u" @"$BATS_TEST_TMPDIR/big" -H 'Content-Type: application/json' -H "$ACCEPT"
    assert_equal "$CODE" 413
    body_is .error.code -32600 .error.message "message too large: a message is at most 4194304 bytes"
    mcp POST "$u" '{"jsonrpc":' -H 'Content-Type: application/json' -H "$ACCEPT"
    assert_equal "$CODE" 400
    body_is .error.code -32700
}

@test "mcp http: another method is 405 with Allow; another path is 404" {
    mcp PUT "$(url_of plain)" "$INIT" -H 'Content-Type: application/json' -H "$ACCEPT"
    assert_equal "$CODE" 405
    assert_equal "$(header Allow)" "GET, POST, DELETE"
    body_is .error.data.status.reason MethodNotAllowed
    mcp POST "$(url_of plain)x" "$INIT" -H 'Content-Type: application/json' -H "$ACCEPT"
    assert_equal "$CODE" 404
    body_is .error.message "nothing is served at /mcpx: the MCP endpoint is /mcp"
}

@test "mcp http: an MCP-Protocol-Version not served is 400; initialize naming a session is 400" {
    open_session
    mcp POST "$(url_of plain)" '{"jsonrpc":"2.0","id":2,"method":"ping"}' \
        -H 'Content-Type: application/json' -H "$ACCEPT" -H "Mcp-Session-Id: $SID" \
        -H 'MCP-Protocol-Version: 1999-01-01'
    assert_equal "$CODE" 400
    body_is .error.data.status.reason BadRequest
    assert_equal "$(jq -r .error.message "$BODY")" "MCP-Protocol-Version 1999-01-01 is not served: this server serves 2025-11-25, 2025-06-18 and 2025-03-26"
    mcp POST "$(url_of plain)" "$INIT" -H 'Content-Type: application/json' -H "$ACCEPT" \
        -H "Mcp-Session-Id: $SID"
    assert_equal "$CODE" 400
    body_is .error.code -32600
}

@test "mcp http: GET needs Accept: text/event-stream (406)" {
    open_session
    mcp GET "$(url_of plain)" - -H 'Accept: application/json' -H "Mcp-Session-Id: $SID"
    assert_equal "$CODE" 406
    body_is .error.data.status.reason NotAcceptable
}

@test "mcp http: a Host that is not this machine's is 403 (DNS rebinding)" {
    mcp POST "$(url_of plain)" "$INIT" -H 'Content-Type: application/json' -H "$ACCEPT" \
        -H 'Host: attacker.example:80'
    assert_equal "$CODE" 403
    body_is .error.data.status.reason Forbidden
    # the server's own origin passes
    local own
    own=$(url_of plain)
    mcp POST "$own" "$INIT" -H 'Content-Type: application/json' -H "$ACCEPT" -H "Origin: ${own%/mcp}"
    assert_equal "$CODE" 200
}

@test "mcp http: with a token, 401 carries WWW-Authenticate; the token serves" {
    mcp POST "$(url_of tok)" "$INIT" -H 'Content-Type: application/json' -H "$ACCEPT"
    assert_equal "$CODE" 401
    assert_equal "$(header WWW-Authenticate)" 'Bearer realm="nodus mcp"'
    body_is .error.data.status.reason Unauthorized .error.message "a bearer token is required"
    mcp POST "$(url_of tok)" "$INIT" -H 'Content-Type: application/json' -H "$ACCEPT" \
        -H "Authorization: Bearer ${TOKEN%?}"
    assert_equal "$CODE" 401
    body_is .error.message "the bearer token is not the one nodus mcp was started with"
    mcp POST "$(url_of tok)" "$INIT" -H 'Content-Type: application/json' -H "$ACCEPT" \
        -H "Authorization: Bearer $TOKEN"
    assert_equal "$CODE" 200
}

@test "mcp http: off loopback it does not start without a token, nor with a short one" {
    run -2 nodus mcp --listen 0.0.0.0:0
    assert_output --partial "--listen 0.0.0.0:0 is not a loopback address: anyone who reaches it could drive your account, so it needs a bearer token"
    NODUS_MCP_TOKEN=short run -2 nodus mcp --listen 0.0.0.0:0
    assert_output --partial "the listen token is 5 characters: use at least 16"
    run -2 nodus mcp --listen nowhere
    assert_output --partial "--listen nowhere: want HOST:PORT with an IPv4 address"
    run -2 nodus mcp --listen-token "$TOKEN"
    assert_output --partial "--listen-token is for --listen HOST:PORT"
}

@test "mcp http: SIGTERM ends it, exit 0, with no sanitizer report (under make asan)" {
    local pid
    pid=$(cat "$BATS_FILE_TMPDIR/plain.pid")
    kill -TERM "$pid"
    wait_until test -s "$BATS_FILE_TMPDIR/plain.rc"
    assert_equal "$(cat "$BATS_FILE_TMPDIR/plain.rc")" 0
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/plain.err"
    [ "$status" -eq 1 ]
}
