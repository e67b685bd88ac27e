#!/usr/bin/env bats
# The console's Money page (#/money) in a real browser: Debian's chromium, headless,
# driven by playwright-core. console-money.test.mjs runs every scenario once in
# setup_file against this file's emulator (the workflow's Pool, Budget and Jobs applied
# with bin/nodus, the clock stopped) and a second one with tokens; each test below checks
# one scenario's line. Screenshots: $BATS_FILE_TMPDIR/shots.

load ../lib/common
load ../lib/clients

prepare() {
    "$ND_BIN_DIR/nodus" apply -f "$ND_ROOT/examples/workflow/01-pool.yaml" \
        -f "$ND_ROOT/examples/workflow/02-budget.yaml" \
        -f "$ND_ROOT/examples/workflow/03-jobs.yaml" >/dev/null || return 1
    start_token_extra t-read-0123456789 rita read || return 1
    export TOKEN_URL=$XURL READ_TOKEN=t-read-0123456789 SHOTS=$BATS_FILE_TMPDIR/shots
}

setup_file() {
    node_setup_file playwright-core console-money.test.mjs
}

teardown_file() {
    stop_extras
    stop_emulator
}

@test "every scenario of console-money.test.mjs has its test here" {
    scenarios_listed
}

@test "the Money page shows the price book: each GPU model's market and Pool rate" {
    scenario pricebook
}

@test "after a clock advance the chart gains points and the totals grow, the API's numbers, no reload" {
    scenario spend-live
}

@test "a Budget shows its limit, thresholds, first hold and what it has spent" {
    scenario budget
}

@test "without an admin token the spend is refused (403) and the page says how to fix it" {
    scenario spend-forbidden
}

@test "each scenario saved its screenshot" {
    screenshots_saved
}
