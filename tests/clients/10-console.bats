#!/usr/bin/env bats
# The console (GET / on the emulator) in a real browser: Debian's chromium, headless,
# driven by playwright-core (tests/clients, pinned; it downloads no browser).
# console.test.mjs runs every scenario once in setup_file, against this file's emulator
# (the demo's Pool and Jobs created through the API, the clock stopped) and a second one
# with tokens; each test below checks one scenario's line. Screenshots: $BATS_FILE_TMPDIR/shots.
# How the files are served (headers, --no-console) is checked with curl.

load ../lib/common
load ../lib/clients

TOKEN=console-test-token-0123456789

prepare() {
    "$ND_BIN_DIR/nodus" apply -f "$ND_ROOT/examples/workflow/01-pool.yaml" \
        -f "$ND_ROOT/examples/workflow/03-jobs.yaml" >/dev/null || return 1
    start_token_extra "$TOKEN" ci admin || return 1
    NODUS_TOKEN=$TOKEN "$ND_BIN_DIR/nodus" --server "$XURL" apply -f - >/dev/null <<'YAML' || return 1
apiVersion: nodus.dev/v1
kind: Job
metadata: {name: secret-job, namespace: default}
spec: {image: nodus/pytorch:2.8-cuda12.8, command: [python, x.py], resources: {gpu: {model: L40S, count: 1}}, maxCostUSD: "5.00"}
YAML
    export TOKEN_URL=$XURL TOKEN SHOTS=$BATS_FILE_TMPDIR/shots
}

setup_file() {
    node_setup_file playwright-core console.test.mjs
}

teardown_file() {
    stop_extras
    stop_emulator
}

@test "every scenario of console.test.mjs has its test here" {
    scenarios_listed
}

@test "the console loads with no console error and no request outside the emulator" {
    scenario loads-clean
}

@test "the demo's objects are listed with the server's columns" {
    scenario lists-demo
}

@test "after a clock advance a Job's row changes phase with no reload" {
    scenario phase-live
}

@test "with tokens on, the page without a token shows a sign-in and no data" {
    scenario tokens-login
}

@test "inline script and style are blocked by the Content-Security-Policy" {
    scenario csp-blocks-inline
}

@test "at a phone's width in the dark scheme the page does not scroll sideways" {
    scenario phone-dark
}

@test "a table's watch lists again after a 410 and resumes from its resourceVersion after a dropped stream" {
    scenario watch-relist-resume
}

@test "each scenario saved its screenshot" {
    screenshots_saved
}

@test "GET / serves the page with a strict CSP, nosniff and no framing" {
    run curl -s -D - -o "$BATS_FILE_TMPDIR/index.html" "$EMU_URL/"
    assert_line --partial "HTTP/1.1 200"
    assert_line --partial "Content-Type: text/html; charset=utf-8"
    assert_line --regexp "^Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self';.*frame-ancestors 'none'"
    assert_line --partial "X-Content-Type-Options: nosniff"
    assert_line --partial "X-Frame-Options: DENY"
    run grep -c '<script type="module" src="/console/app.js"></script>' "$BATS_FILE_TMPDIR/index.html"
    assert_output 1
    # no inline script or style in the page itself
    run grep -E '<script>|<style|style=' "$BATS_FILE_TMPDIR/index.html"
    assert_failure
}

@test "a file the console does not have is NotFound, and so is a path outside it" {
    run curl -s -o /dev/null -w '%{http_code}' "$EMU_URL/console/nope.js"
    assert_output 404
    run curl -s --path-as-is -o /dev/null -w '%{http_code}' "$EMU_URL/console/../console/app.js"
    assert_output 404
}

@test "--no-console: / and /console/ are NotFound with a fix; the API is served" {
    start_extra off --no-console
    run curl -s -w '\n%{http_code}' "$XURL/"
    assert_line --index 1 404
    assert_line --index 0 --partial '"fix":"start the emulator without the --no-console flag'
    run curl -s -o /dev/null -w '%{http_code}' "$XURL/console/app.js"
    assert_output 404
    run curl -s -o /dev/null -w '%{http_code}' "$XURL/apis/nodus.dev/v1/jobs"
    assert_output 200
    run grep -c '^console: ' "$BATS_FILE_TMPDIR/extra-off/out" 
    assert_output 0
}

@test "the emulator prints the console's URL once it is ready" {
    run grep -x "console: $EMU_URL/" "$BATS_FILE_TMPDIR/emulator.out"
    assert_success
}

@test "nodus emulator start prints the console's URL; with -- --no-console it does not" {
    local home=$BATS_TEST_TMPDIR/home
    mkdir -p "$home"
    HOME=$home run "$ND_BIN_DIR/nodus" emulator start --state "$BATS_TEST_TMPDIR/s1"
    assert_success
    assert_line --regexp '^console: http://127\.0\.0\.1:[0-9]+/ \(open it in a browser\)$'
    HOME=$home run "$ND_BIN_DIR/nodus" emulator stop
    HOME=$home run "$ND_BIN_DIR/nodus" emulator start --state "$BATS_TEST_TMPDIR/s2" -- --no-console
    assert_success
    refute_line --partial 'console:'
    HOME=$home run "$ND_BIN_DIR/nodus" emulator stop
}

@test "a create from a page of the emulator's own origin is launched-by console; curl's is api" {
    local body='{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"NAME"},"spec":{"size":"1Gi"}}'
    run curl -s -X POST "$EMU_URL/apis/nodus.dev/v1/namespaces/default/volumes" \
        -H 'Content-Type: application/json' -H 'User-Agent: Mozilla/5.0 (X11; Linux x86_64)' \
        -H 'Sec-Fetch-Site: same-origin' -d "${body/NAME/from-page}"
    assert_output --partial '"nodus.dev/launched-by":"console"'
    # a browser on another site (were it allowed) is not the console
    run curl -s -X POST "$EMU_URL/apis/nodus.dev/v1/namespaces/default/volumes" \
        -H 'Content-Type: application/json' -H 'User-Agent: Mozilla/5.0 (X11; Linux x86_64)' \
        -H 'Sec-Fetch-Site: cross-site' -d "${body/NAME/from-elsewhere}"
    assert_output --partial '"nodus.dev/launched-by":"api"'
    run curl -s -X POST "$EMU_URL/apis/nodus.dev/v1/namespaces/default/volumes" \
        -H 'Content-Type: application/json' -d "${body/NAME/from-curl}"
    assert_output --partial '"nodus.dev/launched-by":"api"'
}
