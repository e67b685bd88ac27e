#!/usr/bin/env bats
# nodus mcp bounds what a hostile request can make it do (issue 23, the review): an
# argument that reaches a verb's argv or a URL is a name (a project a project's name, never
# "../x" or "a?b"; a word never a flag such as --server, never longer than a name), the
# calls running at once are bounded (past MCP_MAX_CALLS: TooManyRequests), a running
# request's id is not taken twice, and a call's child holds no fd it does not need (the
# audit file is the parent's). Lines are printed into `nodus mcp`, answers checked with jq.

load ../lib/common
load ../lib/mcp

bats_require_minimum_version 1.5.0

setup_file() {
    mcp_start_emulator
    mcp_slow_job
}

teardown_file() {
    stop_emulator
}

setup() {
    mcp_test_setup
}

@test "mcp bounds: a project that is not a project's name never reaches a URL (../, ?, /, %2F)" {
    mcp "$(call 1 get '{"kind":"job","name":"slow","project":"../.."}')" \
        "$(call 2 list '{"kind":"job","project":"a?watch=1"}')" \
        "$(call 3 describe '{"kind":"job","name":"slow","project":"default/../x"}')" \
        "$(call 4 delete '{"kind":"job","name":"slow","project":"a%2Fb"}')" \
        "$(call 5 get '{"kind":"job","name":"slow","project":"default"}')" \
        "$(call 6 get '{"kind":"job","name":"slow","project":""}')"
    assert_equal "$RC" 0
    for id in 1 2 3 4; do
        answer $id '.result | "\(.isError) \(.structuredContent.status.reason)"' 'true BadRequest'
        answer $id '.result.structuredContent.status.message | test("is not a project.s name")' true
    done
    answer 5 '.result.structuredContent.object.metadata.name // .result.isError' slow
    answer 6 '.result.structuredContent.object.metadata.name // .result.isError' slow # (the context's)
    running slow
}

@test "mcp bounds: a word that would be a verb's flag (--server=..., --help) is refused, never parsed" {
    mcp "$(call 1 can_i '{"verb":"--server=http://127.0.0.1:1","kind":"job"}')" \
        "$(call 2 explain '{"field":"--kubeconfig=/etc/passwd"}')" \
        "$(call 3 request '{"kind":"job","name":"slow","action":"--help"}')" \
        "$(call 4 describe '{"kind":"job","name":"-o"}')" \
        "$(call 5 explain '{"field":"job.spec"}')"
    for id in 1 2 3 4; do
        answer $id '.result | "\(.isError) \(.structuredContent.status.reason)"' 'true BadRequest'
        answer $id ".result.structuredContent.status.message | test(\"not starting with '-'\")" true
    done
    answer 5 '.result.isError // false' false
}

@test "mcp bounds: a name longer than any name (300 KB) is refused whole, never cut to another name" {
    local long
    long=$(head -c 300000 /dev/zero | tr '\0' a)
    mcp "$(call 1 describe "{\"kind\":\"job\",\"name\":\"$long\"}")" \
        "$(call 2 delete "{\"kind\":\"job\",\"name\":\"slow$long\"}")"
    answer 1 '.result.structuredContent.status.message | test("at most 253 bytes")' true
    answer 2 '.result.structuredContent.status.reason' BadRequest
    [ "$(wc -c <"$OUT")" -lt 20000 ]
    running slow
}

@test "mcp bounds: at most 16 calls run at once: the 17th and later are TooManyRequests, the session goes on" {
    local lines=() i
    for i in $(seq 1 20); do
        lines+=("$(call "$i" logs '{"name":"slow","follow":true,"followSeconds":2}')")
    done
    mcp "${lines[@]}" '{"jsonrpc":"2.0","id":99,"method":"ping"}'
    assert_equal "$RC" 0
    run -0 jq -s '[.[] | select(.id >= 1 and .id <= 20) | .result.structuredContent.status.reason // "ok"] | group_by(.) | map("\(.[0]) \(length)") | join(", ")' "$OUT"
    assert_output '"TooManyRequests 4, ok 16"'
    answer 17 '.result.structuredContent.status.fix | test("cancel one")' true
    answer 99 '.result' '{}'
}

@test "mcp bounds: a request id already running is -32600, the running call still answers once" {
    mcp "$(call 1 logs '{"name":"slow","follow":true,"followSeconds":1}')" \
        "$(call 1 get '{"kind":"job","name":"slow"}')"
    run -0 jq -sc '[.[] | select(.id == 1) | .error.code // .result.structuredContent.ended]' "$OUT"
    assert_output '[-32600,"followed for followSeconds"]'
}

@test "mcp bounds: a call's child holds no fd of the parent's but its pipe (not the audit file)" {
    local fifo=$BATS_TEST_TMPDIR/in audit=$BATS_TEST_TMPDIR/audit
    mkfifo "$fifo"
    exec 7<>"$fifo"
    nodus mcp --audit-file "$audit" <"$fifo" >"$OUT" 2>"$ERR" 7<&- &
    local srv=$!
    printf '%s\n' "$INIT" "$(call 1 logs '{"name":"slow","follow":true,"followSeconds":2}')" >&7
    wait_until pgrep -P "$srv"
    local child fds
    child=$(pgrep -P "$srv" | head -1)
    fds=$(ls -l "/proc/$child/fd" 2>&1)
    exec 7>&-
    wait "$srv"
    echo "$fds"
    [[ "$fds" != *"$audit"* ]]
    answer 1 '.result.structuredContent.ended' 'followed for followSeconds'
}

@test "mcp bounds: exec is destructiveHint (it runs any command): --disable-destructive leaves it out and refuses it" {
    MCP_FLAGS=(--allow-exec)
    mcp '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    answer 1 '.result.tools[] | select(.name == "exec") | .annotations | "\(.destructiveHint) \(.idempotentHint) \(.readOnlyHint)"' 'true false false'
    MCP_FLAGS=(--allow-exec --disable-destructive)
    mcp '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
        "$(call 2 exec '{"name":"slow","command":["rm","-rf","/data"]}')"
    answer 1 '[.result.tools[].name] | index("exec")' null
    answer 2 '.result.structuredContent.status.reason' Forbidden
}

@test "mcp bounds: a resource URI with . or .. for its project, kind or name is -32602, never a moved URL" {
    local i=0 uri lines=()
    for uri in nodus://../jobs/slow nodus://default/jobs/.. nodus://default/../slow \
        nodus://./jobs/slow nodus:///namespaces/..; do
        i=$((i + 1))
        lines+=("{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"resources/read\",\"params\":{\"uri\":\"$uri\"}}")
    done
    mcp "${lines[@]}" '{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"nodus://default/jobs/slow?format=json"}}'
    for id in 1 2 3 4 5; do
        answer $id '.error | "\(.code) \(.message | test("empty, [.] or [.][.], or holds a character"))"' '-32602 true'
    done
    answer 9 '.result.contents[0].text | fromjson | .metadata.name' slow
}

@test "mcp bounds: a prompt's arguments are held to the same: a project's name, a name without ',' (a selector's separator)" {
    mcp '{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"why-failed","arguments":{"name":"slow","project":"../.."}}}' \
        '{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"why-failed","arguments":{"name":"slow,involvedObject.kind=Pool"}}}' \
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"events","arguments":{"kind":"job","name":"slow\nx"}}}'
    answer 1 '.error | "\(.code) \(.message | test("is not a project.s name"))"' '-32602 true'
    answer 2 '.error | "\(.code) \(.message | test("no control character or .,."))"' '-32602 true'
    answer 3 '.result.structuredContent.status.reason' BadRequest
}

@test "mcp bounds: apply of a manifest of 10,000 documents is refused before any dry run (at most 100 a call)" {
    local args
    args=$(awk 'BEGIN { for (i = 0; i < 10000; i++) printf "---\n{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"v%d\"},\"spec\":{\"size\":\"1Gi\"}}\n", i }' |
        jq -Rsc '{manifest: .}')
    mcp "$(call 1 apply "$args")"
    answer 1 '.result.structuredContent.status | "\(.reason): \(.message)"' 'BadRequest: the manifest holds 10000 objects; one call applies at most 100'
    run -0 curl -sf "$EMU_URL$API/volumes"
    [ "$(jq '.items | length' <<<"$output")" = 0 ]
}
