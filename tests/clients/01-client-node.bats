#!/usr/bin/env bats
# The client matrix, @kubernetes/client-node part: client-node.test.mjs runs every scenario
# once, in setup_file (one node process: loading client-node takes a second), against this
# file's emulator (--speed 0), with the client-node pinned in package.json (make check runs
# `npm ci --prefix tests/clients` first). Each scenario writes "ok NAME: <what it saw>" or,
# failing, what it expected and what it got; each test below checks one.
# client-node 1.4.0 is the newest that runs on Debian 12's node (18.20): 2.x depends on
# undici 8, which needs node 22.19.

load ../lib/common
load ../lib/clients

bats_require_minimum_version 1.5.0


setup_file() {
    CLIENT_TIMEOUT=300 node_setup_file @kubernetes/client-node client-node.test.mjs
}

teardown_file() {
    stop_emulator
}

@test "client-node: the pinned version is installed" {
    run -0 node -p "require('$CLIENTS/node_modules/@kubernetes/client-node/package.json').version"
    assert_output "$(jq -r '.dependencies["@kubernetes/client-node"]' "$CLIENTS/package.json")"
}

@test "client-node: every scenario of client-node.test.mjs has a test here" {
    scenarios_listed
}

@test "client-node: CoreV1Api creates, reads, lists and deletes projects (namespaces)" {
    scenario namespaces
}

@test "client-node: create and get (CustomObjectsApi, KubernetesObjectApi); AlreadyExists, NotFound, Invalid" {
    scenario create-get
}

@test "client-node: list with label and field selectors, and pages (limit, continue, remainingItemCount)" {
    scenario list-selectors-pages
}

@test "client-node: merge patch (content type by middleware); a stale resourceVersion is Conflict" {
    scenario merge-patch
}

@test "client-node: JSON patch; a failed test op is Invalid and changes nothing" {
    scenario json-patch
}

@test "client-node: server-side apply with fieldManager and force; FieldManagerConflict" {
    scenario server-side-apply
}

@test "client-node: replace with a stale resourceVersion is 409 Conflict, read from the Status" {
    scenario replace-conflict
}

@test "client-node: delete with propagationPolicy Orphan, Foreground and Background" {
    scenario delete
}

@test "client-node: a Watch sees ADDED, MODIFIED and DELETED in order" {
    scenario watch
}

@test "client-node: an informer stays in sync across a dropped connection" {
    scenario informer-drop
}

# last: it resets the emulator
@test "client-node: an informer lists again after 410 Expired (emulator reset)" {
    scenario informer-expired
}

@test "client-node: the emulator stops cleanly, with no sanitizer report (under make asan)" {
    stop_emulator
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/emulator.err"
    [ "$status" -eq 1 ]
}
