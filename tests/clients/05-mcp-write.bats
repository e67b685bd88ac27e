#!/usr/bin/env bats
# nodus mcp's write tools, review before you pay and the safety modes, driven by the
# official MCP client (@modelcontextprotocol/sdk, pinned in package.json):
# mcp-write.test.mjs runs every scenario once, in setup_file (one node process, several
# `nodus mcp` with different flags), against this file's emulator (--speed 0). Each
# scenario writes "ok NAME: <what it saw>" or, failing, what went wrong; each test below
# checks one.

load ../lib/common
load ../lib/clients

bats_require_minimum_version 1.5.0


setup_file() {
    mcp_setup_file mcp-write.test.mjs
}

prepare() {
    export AUDIT_FILE=$BATS_FILE_TMPDIR/audit.log
}

teardown_file() {
    stop_emulator
}

@test "mcp write: every scenario of mcp-write.test.mjs has a test here" {
    scenarios_listed
}

@test "mcp write: the write tools are listed with titles, schemas and annotations; exec only with --allow-exec" {
    scenario tools-list
}

@test "mcp write: apply of work that costs money answers the estimate and an etag, and launches nothing" {
    scenario review
}

@test "mcp write: apply with the review's etag launches exactly what was reviewed (If-Match)" {
    scenario launch
}

@test "mcp write: after a price-book change the etag is PreconditionFailed with the fresh estimate and etag" {
    scenario precondition-failed
}

@test "mcp write: a manifest of several documents is reviewed as one; its etag names each priced document" {
    scenario several-documents
}

@test "mcp write: --max-cost refuses a launch above it, saying the estimate and the bound" {
    scenario max-cost
}

@test "mcp write: apply of what costs nothing applies at once" {
    scenario free-apply
}

@test "mcp write: a manifest that does not parse is BadRequest naming its line" {
    scenario bad-manifest
}

@test "mcp write: suspend, resume and cancel set spec.state; a kind without that state is refused" {
    scenario suspend-resume-cancel
}

@test "mcp write: request, stop and start on a Sandbox" {
    scenario stop-start-request
}

@test "mcp write: approve and reject decide PoolActions" {
    scenario approve-reject
}

@test "mcp write: exec answers stdout, stderr and the exit code, bounded in bytes and time; refused without --allow-exec" {
    scenario exec
}

@test "mcp write: delete says what it deleted; a missing object is NotFound" {
    scenario delete
}

@test "mcp write: --read-only lists and serves no write tool" {
    scenario read-only
}

@test "mcp write: --disable-destructive leaves delete out and refuses it" {
    scenario disable-destructive
}

@test "mcp write: --projects refuses other projects, in arguments and in manifests" {
    scenario projects
}

@test "mcp write: one audit line per mutating call: time, client, tool, project, objects, outcome, requestId" {
    scenario audit
    # and the servers said nothing else on stderr (no sanitizer report under make asan)
    run -0 cat "$BATS_FILE_TMPDIR/results/mcp-stderr.log"
    run grep -v '^nodus-mcp audit: ' "$BATS_FILE_TMPDIR/results/mcp-stderr.log"
    assert_output ""
}

@test "mcp write: the emulator stops cleanly, with no sanitizer report (under make asan)" {
    stop_emulator
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/emulator.err"
    [ "$status" -eq 1 ]
}
