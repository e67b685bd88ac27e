#!/usr/bin/env bats
# docs/mcp.md under the official MCP client (@modelcontextprotocol/sdk, pinned in
# package.json): mcp-docs.test.mjs reads the page once, in setup_file (one node process),
# and checks that each host registration it gives starts `nodus mcp` as written and that
# each tool example marked `<!-- mcp-example: ... -->` answers what the page shows, against
# this file's emulator holding what the page says: the Job of examples/job.yaml three times
# (train-a, train-b, train-c), running for ten minutes, and the current context of a
# fresh ~/.nodus/config naming it. The page's console blocks are tests/cli/25-docs.bats's.

load ../lib/common
load ../lib/clients

setup_file() {
    mcp_setup_file mcp-docs.test.mjs || return 1
}

prepare() {
    train_jobs | nodus apply -f - >/dev/null
    # the current context of ~/.nodus/config, for a registration that names no server
    nodus config set-cluster emulator --server "$EMU_URL" >/dev/null
    nodus config set-context emulator --cluster emulator --namespace default >/dev/null
    nodus config use-context emulator >/dev/null
    clock_advance 10m
}

teardown_file() {
    stop_emulator
}

@test "mcp docs: every scenario of mcp-docs.test.mjs has a test here" {
    scenarios_listed
}

@test "mcp docs: the Claude Desktop, Cursor, .mcp.json and VS Code blocks are JSON whose command and args start nodus mcp" {
    scenario host-configs
}

@test "mcp docs: the claude mcp add lines start nodus mcp with their -e and flags" {
    scenario claude-mcp-add
}

@test "mcp docs: each read tool example answers what the page shows" {
    scenario read-tools
}

@test "mcp docs: each write tool example answers what the page shows (review, launch with the etag, PreconditionFailed after a price change, state tools, delete, exec, a --max-cost refusal)" {
    scenario write-tools
}

@test "mcp docs: nodus mcp and the emulator said no sanitizer report (under make asan)" {
    stop_emulator
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/node.log" "$BATS_FILE_TMPDIR/emulator.err"
    [ "$status" -eq 1 ]
}
