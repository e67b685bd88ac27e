#!/usr/bin/env bats
# nodus invoke: the data from -d, -d @FILE, -d @- or -f, the Function named as
# function/NAME, fn/NAME, `function NAME` or NAME, the answer on stdout as it came;
# errors on stderr with the exit codes of cli.md.

load ../lib/common

bats_require_minimum_version 1.5.0

setup_file() {
    start_emulator
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$EMU_URL
    unset NODUS_CONFIG KUBECONFIG NODUS_TOKEN NODUS_CONTEXT
    mkdir -p "$HOME"
    local fn
    for fn in echo idle; do
        curl -sSf -o /dev/null -H 'Content-Type: application/json' --data-binary \
            "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Function\",\"metadata\":{\"name\":\"$fn\"},\"spec\":{\"image\":\"nodus/pytorch:2.8-cuda12.8\",\"maxCostUSD\":\"5.00\"}}" \
            "$EMU_URL/apis/nodus.dev/v1/namespaces/default/functions"
    done
    curl -sSf -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"advance":"12s"}' "$EMU_URL/emulator/v1/clock"
    curl -sSf -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
        -d '{"spec":{"state":"Stopped"}}' "$EMU_URL/apis/nodus.dev/v1/namespaces/default/functions/idle"
}

teardown_file() {
    stop_emulator
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

# The simulated answer for a body.
answer() {
    printf '{"function":"%s","project":"default","bytes":%d,"sha256":"%s"}' "$1" "${#2}" \
        "$(printf %s "$2" | sha256sum | cut -d' ' -f1)"
}

@test "-d sends the data and prints the answer as it came" {
    run --separate-stderr -0 nodus invoke function/echo -d hello
    [ "$output" = "$(answer echo hello)" ]
    [ "$stderr" = "" ]
}

@test "-d @FILE, -d @- and -f FILE|- read the data from a file or standard input" {
    printf 'from a file' >body.txt
    run --separate-stderr -0 nodus invoke function/echo -d @body.txt
    [ "$output" = "$(answer echo 'from a file')" ]
    run --separate-stderr -0 nodus invoke function/echo -f body.txt
    [ "$output" = "$(answer echo 'from a file')" ]
    run --separate-stderr -0 bash -c 'printf piped | nodus invoke function/echo -d @-'
    [ "$output" = "$(answer echo piped)" ]
    run --separate-stderr -0 bash -c 'printf piped | nodus invoke function/echo -f -'
    [ "$output" = "$(answer echo piped)" ]
    # no data: an empty body
    run --separate-stderr -0 nodus invoke function/echo
    [ "$output" = "$(answer echo '')" ]
}

@test "the Function may be named fn/NAME, functions NAME or NAME, in the project of -n" {
    run -0 nodus invoke fn/echo -d x
    [ "$output" = "$(answer echo x)" ]
    run -0 nodus invoke functions echo -d x
    [ "$output" = "$(answer echo x)" ]
    run -0 nodus invoke echo -d x -n default
    [ "$output" = "$(answer echo x)" ]
    run --separate-stderr -3 nodus invoke echo -d x -n elsewhere
    [ "$output" = "" ]
}

@test "a Function that is not Running is refused: exit 1, the server's error and its fix" {
    run --separate-stderr -1 nodus invoke function/idle -d x
    [ "$output" = "" ]
    [ "${stderr_lines[0]}" = 'Error from server (BadRequest): functions.nodus.dev "idle" cannot be invoked: it is not Running (phase Stopped)' ]
    [ "${stderr_lines[1]}" = "fix: start it and wait until it is ready: nodus start function/idle -n default && nodus wait function/idle -n default --for=condition=Ready" ]
    [[ "${stderr_lines[2]}" == "docs: "*"/docs/reference/errors/#badrequest" ]]
    [[ "${stderr_lines[3]}" == "requestId: req_"* ]]
}

@test "a missing Function exits 3" {
    run --separate-stderr -3 nodus invoke function/nope -d x
    [ "$output" = "" ]
    [ "${stderr_lines[0]}" = 'Error from server (NotFound): functions.nodus.dev "nope" not found' ]
}

@test "usage errors exit 2: another kind, no name, -d and -f together, an unreadable file" {
    run --separate-stderr -2 nodus invoke job/echo -d x
    [ "${stderr_lines[0]}" = "error: only Functions can be invoked, not jobs" ]
    run --separate-stderr -2 nodus invoke
    [ "${stderr_lines[0]}" = "error: name one Function: nodus invoke function/NAME" ]
    run --separate-stderr -2 nodus invoke function/echo -d x -f y
    [ "${stderr_lines[0]}" = "error: give the data with -d or -f, not both" ]
    run --separate-stderr -2 nodus invoke function/echo -d @missing.txt
    [ "${stderr_lines[0]}" = "error: cannot read missing.txt: No such file or directory" ]
    run --separate-stderr -2 nodus invoke function/echo --bogus
    [ "$output" = "" ]
}

@test "each invocation counts for the Function's scaling" {
    local before after
    before=$(nodus get function echo -o jsonpath='{.status.simulation.invocationCount}')
    run -0 nodus invoke function/echo -d once
    after=$(nodus get function echo -o jsonpath='{.status.simulation.invocationCount}')
    [ "$after" -eq $((before + 1)) ]
    curl -sSf -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"advance":"1s"}' "$EMU_URL/emulator/v1/clock"
    [ "$(nodus get function echo -o jsonpath='{.status.replicas}')" = 1 ]
}

@test "the emulator stops cleanly, with no sanitizer report (under make asan)" {
    stop_emulator
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/emulator.err"
    [ "$status" -eq 1 ]
}
