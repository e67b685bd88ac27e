#!/usr/bin/env bats
# The console's terminal (terminal.js): a Sandbox's shell over exec's WebSocket, in a
# real browser (Debian's chromium, headless, driven by playwright-core). The Sandbox of
# examples/workflow/05-sandbox.yaml runs on this file's emulator and on a second one with
# tokens, where the page's token goes as the subprotocol
# base64url.bearer.authorization.k8s.io.<token>. console-exec.test.mjs runs every
# scenario once in setup_file; each test below checks one scenario's line. Screenshots:
# $BATS_FILE_TMPDIR/shots.

load ../lib/common
load ../lib/clients

TOKEN=console-exec-token-0123456789

running() { # URL [curl args...]: the Sandbox dev is Running
    local url=$1
    shift
    [ "$(curl -sf "$@" "$url/apis/nodus.dev/v1/namespaces/default/sandboxes/dev" |
        jq -r .status.phase)" = Running ]
}

prepare() {
    local auth=(-H "Authorization: Bearer $TOKEN")
    "$ND_BIN_DIR/nodus" apply -f "$ND_ROOT/examples/workflow/05-sandbox.yaml" >/dev/null || return 1
    clock_advance 1m || return 1
    wait_until running "$EMU_URL" || return 1
    start_token_extra "$TOKEN" ci admin --speed 0 || return 1
    NODUS_TOKEN=$TOKEN "$ND_BIN_DIR/nodus" --server "$XURL" apply \
        -f "$ND_ROOT/examples/workflow/05-sandbox.yaml" >/dev/null || return 1
    curl -sf -o /dev/null "${auth[@]}" -H 'Content-Type: application/json' \
        -d '{"advance":"1m"}' "$XURL/emulator/v1/clock" || return 1
    wait_until running "$XURL" "${auth[@]}" || return 1
    export TOKEN_URL=$XURL TOKEN SHOTS=$BATS_FILE_TMPDIR/shots
}

setup_file() {
    node_setup_file playwright-core console-exec.test.mjs
}

teardown_file() {
    stop_extras
    stop_emulator
}

@test "every scenario of console-exec.test.mjs has its test here" {
    scenarios_listed
}

@test "a Sandbox's terminal runs a command" {
    scenario terminal-runs
}

@test "with tokens on, the terminal works with the tab's token (the bearer subprotocol), at a phone's width" {
    scenario terminal-token
}

@test "each scenario saved its screenshot" {
    screenshots_saved terminal-exited
}
