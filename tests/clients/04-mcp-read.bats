#!/usr/bin/env bats
# nodus mcp's read tools through the official MCP client (@modelcontextprotocol/sdk, pinned
# in package.json): mcp-read.test.mjs runs every scenario once, in setup_file (one node
# process, one `nodus mcp`), against this file's emulator (--speed 0) holding the objects
# made below with the CLI; each scenario compares a tool's answer with what the CLI prints
# for the same thing and writes "ok NAME: <what it saw>"; each test below checks one.

load ../lib/common
load ../lib/clients

bats_require_minimum_version 1.5.0


setup_file() {
    mcp_setup_file mcp-read.test.mjs
}

prepare() {
    local ex=$ND_ROOT/examples
    # three Jobs in default (two app=trainer, one app=eval), one in project lab, a Pool
    { train_jobs; printf -- '---\n'; cat "$ex/pool.yaml"; } | nodus apply -f - >/dev/null
    nodus create project lab >/dev/null
    sed 's/train-a/probe/' "$ex/job.yaml" | nodus apply -n lab -f - >/dev/null
    nodus create project empty >/dev/null
    clock_advance 10m # every Job Running, with a cost and its Events
}

teardown_file() {
    stop_emulator
}

@test "mcp read: every scenario of mcp-read.test.mjs has a test here" {
    scenarios_listed
}

@test "mcp read: tools/list has every read tool with its title, schemas and readOnlyHint" {
    scenario tools-listed
}

@test "mcp read: api_resources is api-resources -o wide, with verbs, short names, subresources" {
    scenario api-resources
}

@test "mcp read: list is the table of nodus get, with compact rows" {
    scenario list-table
}

@test "mcp read: list pages with limit and continue; a limit past 500 is BadRequest" {
    scenario list-pages
}

@test "mcp read: list with a label selector, a field selector, allProjects, a project" {
    scenario list-selectors
}

@test "mcp read: list full gives the whole objects, without managedFields" {
    scenario list-full
}

@test "mcp read: a misspelt kind is NotFound with did-you-mean" {
    scenario misspelt-kind
}

@test "mcp read: get and describe as the CLI prints them; a missing object is NotFound" {
    scenario get-describe
}

@test "mcp read: explain as nodus explain; a misspelt field answers did-you-mean" {
    scenario explain
}

@test "mcp read: events of an object, as get events with its field selector" {
    scenario events
}

@test "mcp read: top is nodus top, then the spend per project and kind" {
    scenario top
}

@test "mcp read: can_i answers allowed and why not" {
    scenario can-i
}

@test "mcp read: nodus mcp and the emulator said no sanitizer report (under make asan)" {
    stop_emulator
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/node.log" "$BATS_FILE_TMPDIR/emulator.err"
    [ "$status" -eq 1 ]
}
