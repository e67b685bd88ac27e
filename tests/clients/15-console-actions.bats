#!/usr/bin/env bats
# The console's actions in a real browser (Debian's chromium, headless, driven by
# playwright-core): console-actions.test.mjs runs every scenario once in setup_file
# against this file's emulator (the clock stopped; each scenario makes its own objects
# through the API), and each test below checks one scenario's line. Screenshots:
# $BATS_FILE_TMPDIR/shots.

load ../lib/common
load ../lib/clients

prepare() {
    export SHOTS=$BATS_FILE_TMPDIR/shots
}

setup_file() {
    node_setup_file playwright-core console-actions.test.mjs
}

teardown_file() {
    stop_emulator
}

@test "every scenario of console-actions.test.mjs has its test here" {
    scenarios_listed
}

@test "an apply shows its estimate before anything is created and launches with the ETag" {
    scenario apply-review-launch
}

@test "a price book changed between review and launch: PreconditionFailed and a fresh estimate" {
    scenario apply-pricebook-changed
}

@test "a manifest file of two documents loaded with the file input: both reviewed, nothing created (phone width)" {
    scenario apply-file
}

@test "an apply the server refuses shows the Status and its fix, and launches nothing" {
    scenario apply-shows-status
}

@test "suspend then resume of a Job changes its spec.state, as nodus suspend and resume do" {
    scenario suspend-resume
}

@test "request restart of a Sandbox sets nodus.dev/restart-requested-at" {
    scenario request-restart
}

@test "approve of a pending PoolAction sets spec.decision Approved" {
    scenario approve-poolaction
}

@test "a delete asks first: the dialog names what cascades, Cancel deletes nothing" {
    scenario delete-asks-first
}

@test "each scenario saved its screenshot" {
    screenshots_saved
}

@test "js-yaml is served from the console's files, the npm release as it is, its licence beside it" {
    run curl -s -D - -o "$BATS_FILE_TMPDIR/js-yaml.js" "$EMU_URL/console/js-yaml.js"
    assert_line --partial "HTTP/1.1 200"
    assert_line --partial "Content-Type: text/javascript"
    [ -s "$ND_ROOT/emulator/console/vendor/js-yaml.LICENSE" ]
    local version
    version=$(sed -n 's/^- js-yaml \([0-9.]*\) .*/\1/p' "$ND_ROOT/docs/console.md")
    [ -n "$version" ] || { echo "docs/console.md names no js-yaml version" >&2; return 1; }
    local npm=$CLIENTS/node_modules/js-yaml
    if [ "$(jq -r .version "$npm/package.json" 2>/dev/null)" != "$version" ]; then
        skip "tests/clients has no js-yaml $version to compare with"
    fi
    cmp "$npm/dist/js-yaml.mjs" "$BATS_FILE_TMPDIR/js-yaml.js"
}
