#!/usr/bin/env bats
# The console's object page (#/o/PLURAL/NS/NAME: view-object.js, object-panels.js,
# object-log.js, yaml.js) in a real browser: Debian's chromium, headless, driven by
# playwright-core. console-object.test.mjs runs every scenario once in setup_file against
# this file's emulator: examples/workflow/*.yaml applied through the API with the clock
# stopped, then the clock advanced 5m (train and eval run and cost money); each test below
# checks one scenario's line. Screenshots: $BATS_FILE_TMPDIR/shots.

load ../lib/common
load ../lib/clients

prepare() {
    local f args=()
    for f in "$ND_ROOT"/examples/workflow/*.yaml; do args+=(-f "$f"); done
    "$ND_BIN_DIR/nodus" apply "${args[@]}" >/dev/null || return 1
    clock_advance 5m || return 1
    export SHOTS=$BATS_FILE_TMPDIR/shots
}

setup_file() {
    node_setup_file playwright-core console-object.test.mjs
}

teardown_file() {
    stop_emulator
}

@test "every scenario of console-object.test.mjs has its test here" {
    scenarios_listed
}

@test "a Job's page shows its conditions, its YAML (by keyboard) and the Events about it" {
    scenario job-page
}

@test "the Money tab shows the cost so far, the rate and maxCostUSD, and a Budget's spending, as the API has them" {
    scenario money
}

@test "a new Event appears on the page after a clock advance, with no reload" {
    scenario event-live
}

@test "a log streams: a running Job's new lines appear as the clock moves, with no reload" {
    scenario log-streams
}

@test "a log stream the server ends while the Job runs is asked for again from its last line" {
    scenario log-resumes
}

@test "a Job not started yet: the Logs tab shows the server's Status with its fix, then the log" {
    scenario log-not-started
}

@test "a deleted object stays on its page, marked deleted" {
    scenario deleted
}

@test "the YAML shown reads back as the object the API has" {
    scenario yaml-reads-back
}

@test "the Events table links each Event to its object's page" {
    scenario events-link
}

@test "at a phone's width in the dark scheme no tab of the page scrolls sideways" {
    scenario phone-dark
}

@test "each scenario saved its screenshot" {
    screenshots_saved
}
