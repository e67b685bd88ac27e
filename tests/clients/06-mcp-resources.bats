#!/usr/bin/env bats
# nodus mcp's resources (nodus://PROJECT/PLURAL/NAME: list paged, read as YAML and JSON,
# templates), subscriptions (notifications/resources/updated from a watch, unsubscribe,
# 410 Expired) and prompts (why-failed, spend-review), under the official MCP client
# (@modelcontextprotocol/sdk, pinned in package.json): mcp-resources.test.mjs runs every
# scenario once in setup_file (one node process), against this file's emulator
# (--speed 0); each test below checks one scenario's line (tests/lib/clients.bash).

load ../lib/common
load ../lib/clients

bats_require_minimum_version 1.5.0

CLIENTS=$BATS_TEST_DIRNAME
CLIENT_LOG=node.log

setup_file() {
    if ! command -v node >/dev/null; then
        echo "node is not installed: make check installs it (scripts/install-deps.sh)" >&2
        return 1
    fi
    if [ ! -d "$CLIENTS/node_modules/@modelcontextprotocol/sdk" ]; then
        echo "the MCP client is not installed: run make check, or npm ci --prefix tests/clients" >&2
        return 1
    fi
    start_emulator
    mkdir -p "$BATS_FILE_TMPDIR/results"
    # the exit status is the tests' business: each reads its own scenario's line
    timeout 120 node "$CLIENTS/mcp-resources.test.mjs" --out "$BATS_FILE_TMPDIR/results" \
        >"$BATS_FILE_TMPDIR/node.log" 2>&1 || true
}

teardown_file() {
    stop_emulator
}

@test "mcp resources: every scenario of mcp-resources.test.mjs has a test here" {
    run -0 node "$CLIENTS/mcp-resources.test.mjs" --list
    local listed here
    listed=$(printf '%s\n' "$output" | sort)
    here=$(sed -n 's/^ *scenario \([a-z-]*\)$/\1/p' "$BATS_TEST_FILENAME" | sort)
    assert_equal "$here" "$listed"
}

@test "mcp resources: initialize advertises resources (subscribe) and prompts" {
    scenario capabilities
}

@test "mcp resources: resources/list pages with cursors (NODUS_MCP_PAGE_SIZE=2); a bad cursor is -32602" {
    scenario list-paged
}

@test "mcp resources: resources/read answers YAML, and JSON with ?format=json" {
    scenario read-yaml-json
}

@test "mcp resources: a missing object is -32002 with its Status; an unknown kind too; not nodus:// is -32602" {
    scenario read-missing
}

@test "mcp resources: resources/templates/list has one template per kind, RFC 6570 as the SDK reads it" {
    scenario templates
}

@test "mcp resources: a subscription gets notifications/resources/updated when nodus label changes the object" {
    scenario subscribe-update
}

@test "mcp resources: unsubscribe stops the notifications" {
    scenario unsubscribe
}

@test "mcp resources: --projects keeps other projects out of list, read, subscribe and prompts" {
    scenario projects-filter
}

@test "mcp prompts: prompts/list names why-failed and spend-review; bad names and arguments are -32602" {
    scenario prompts
}

@test "mcp prompts: why-failed carries the failed Job's describe, events and log tail" {
    scenario why-failed
}

@test "mcp prompts: spend-review carries what runs, its rate and cost, and the Budgets" {
    scenario spend-review
}

@test "mcp resources: a subscription resumes when the server drops its watch (restarted) and goes on" {
    scenario subscribe-dropped
}

@test "mcp resources: no nodus mcp of this file wrote a sanitizer report (under make asan)" {
    scenario no-sanitizer-report
}

# last: it resets the emulator
@test "mcp resources: a subscription lists again after 410 Expired (emulator reset) and goes on" {
    scenario subscribe-expired
}
