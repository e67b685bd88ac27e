#!/usr/bin/env bats
# The console's Pools page (#/pools) and clock page (#/clock), and the header's clock, in
# a real browser (Debian's chromium, headless, driven by playwright-core).
# console-pools-clock.test.mjs runs every scenario once in setup_file against this file's
# emulator (the demo's Pool, Hosts and Jobs applied with bin/nodus, the clock stopped);
# each test below checks one scenario's line. Screenshots: $BATS_FILE_TMPDIR/shots.

load ../lib/common
load ../lib/clients

prepare() {
    "$ND_BIN_DIR/nodus" apply -f "$ND_ROOT/examples/workflow/01-pool.yaml" \
        -f "$ND_ROOT/examples/workflow/03-jobs.yaml" >/dev/null || return 1
    export SHOTS=$BATS_FILE_TMPDIR/shots
}

setup_file() {
    node_setup_file playwright-core console-pools-clock.test.mjs
}

teardown_file() {
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

@test "each scenario saved its screenshot" {
    local name
    for name in $(cat "$BATS_FILE_TMPDIR/results/scenarios.list"); do
        [ -s "$BATS_FILE_TMPDIR/shots/$name.png" ] || { echo "no screenshot of $name" >&2; return 1; }
    done
}
