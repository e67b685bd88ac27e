#!/usr/bin/env bats
# The console from the keyboard (emulator/console/keys.js) in a real browser: Debian's
# chromium, headless, driven by playwright-core (tests/clients). console-keys.test.mjs runs
# every scenario once in setup_file against this file's emulator (the demo's Pool and
# Jobs, the clock stopped); each test checks one scenario's line.
# Screenshots: $BATS_FILE_TMPDIR/shots.

load ../lib/common
load ../lib/clients

prepare() {
    "$ND_BIN_DIR/nodus" apply -f "$ND_ROOT/examples/workflow/01-pool.yaml" \
        -f "$ND_ROOT/examples/workflow/03-jobs.yaml" >/dev/null || return 1
    export SHOTS=$BATS_FILE_TMPDIR/shots
}

setup_file() {
    node_setup_file playwright-core console-keys.test.mjs
}

teardown_file() {
    stop_emulator
}

@test "every scenario of console-keys.test.mjs has its test here" {
    scenarios_listed
}

@test "keyboard alone: the skip link, then Tab and Enter to a kind's table and an object" {
    scenario tab-to-object
}

@test "g h, g m, g p, g c, g a, g e go to their pages; / focuses the filter; not while typing" {
    scenario shortcuts
}

@test "? lists the shortcuts in a dialog that Escape closes" {
    scenario help-dialog
}

@test "each scenario saved its screenshot" {
    screenshots_saved
}
