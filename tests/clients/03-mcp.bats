#!/usr/bin/env bats
# nodus mcp's protocol core under the official MCP client (@modelcontextprotocol/sdk, pinned
# in package.json): mcp-protocol.test.mjs runs every scenario once, in setup_file (one node
# process: the SDK takes half a second to load), against this file's emulator; each test
# below checks one scenario's line (tests/lib/clients.bash). The emulator runs Jobs'
# commands (--runtime local): the Job "slow" prints "started" and sleeps, a log to follow.

load ../lib/common
load ../lib/clients
load ../lib/mcp

bats_require_minimum_version 1.5.0

setup_file() {
    mcp_setup_file mcp-protocol.test.mjs --runtime local
}

prepare() {
    mcp_slow_job
}

teardown_file() {
    stop_emulator
}

@test "mcp: every scenario of mcp-protocol.test.mjs has a test here" {
    scenarios_listed
}

@test "mcp: initialize for 2025-11-25 answers 2025-11-25" {
    scenario initialize-2025-11-25
}

@test "mcp: initialize for 2025-06-18 answers 2025-06-18" {
    scenario initialize-2025-06-18
}

@test "mcp: initialize for 2025-03-26 answers 2025-03-26" {
    scenario initialize-2025-03-26
}

@test "mcp: initialize for an unknown revision answers the newest (a raw client: the SDK sends none it does not know)" {
    scenario initialize-unknown
}

@test "mcp: ping, also while a call runs" {
    scenario ping
}

@test "mcp: logging/setLevel and notifications/message (at the level and above only); a bad level is -32602" {
    scenario logging
}

@test "mcp: tools/list, and get and logs answers the SDK checks against their outputSchema" {
    scenario tools-list
}

@test "mcp: a followed log sends notifications/progress per batch of lines and ends at followSeconds" {
    scenario progress
}

@test "mcp: cancelling a follow (the SDK's AbortSignal) stops the call, its child is gone, later calls are answered" {
    scenario cancellation
}

@test "mcp: errors are isError with the Status: NotFound and did-you-mean for a misspelt kind, BadRequest for a misspelt argument, requestId" {
    scenario errors
}
