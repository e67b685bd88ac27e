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


setup_file() {
    mcp_setup_file mcp-resources.test.mjs
}

teardown_file() {
    stop_emulator
}

@test "mcp resources: every scenario of mcp-resources.test.mjs has a test here" {
    scenarios_listed
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
