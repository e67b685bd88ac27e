#!/usr/bin/env bats
# The console's Pools page (#/pools) and clock page (#/clock), and the header's clock, in
# a real browser (Debian's chromium, headless, driven by playwright-core).
# console-pools-clock.test.mjs runs every scenario once in setup_file against this file's
# emulator (the demo's Pool, Hosts and Jobs applied with bin/nodus, the clock stopped) and
# a second one with tokens (READ_TOKEN: read only);
# each test below checks one scenario's line. Screenshots: $BATS_FILE_TMPDIR/shots.

load ../lib/common
load ../lib/clients

READ_TOKEN=console-reader-token-0123456789

prepare() {
    "$ND_BIN_DIR/nodus" apply -f "$ND_ROOT/examples/workflow/01-pool.yaml" \
        -f "$ND_ROOT/examples/workflow/03-jobs.yaml" >/dev/null || return 1
    start_token_extra "$READ_TOKEN" reader read || return 1
    export TOKEN_URL=$XURL READ_TOKEN SHOTS=$BATS_FILE_TMPDIR/shots
}

setup_file() {
    node_setup_file playwright-core console-pools-clock.test.mjs
}

teardown_file() {
    stop_extras
    stop_emulator
}

@test "every scenario of console-pools-clock.test.mjs has its test here" {
    scenarios_listed
}

@test "the Pools page shows the pool lab's hosts, and the Job placed on one after an advance, live" {
    scenario pools-live
}

@test "the clock page's advance button moves the header's time by that much" {
    scenario clock-advance
}

@test "pausing from the clock page sets the speed to 0, resuming brings the speed back" {
    scenario clock-pause
}

@test "a snapshot saved and restored from the clock page: a Job made after the save leaves a table, no reload" {
    scenario snapshot-restore
}

@test "the header's clock follows an advance made outside the page, no reload" {
    scenario header-outside
}

@test "without admin the clock page shows the 403 with its fix, and the header says it uses the browser's clock" {
    scenario clock-forbidden
}

@test "each scenario saved its screenshot" {
    screenshots_saved
}
