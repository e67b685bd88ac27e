#!/usr/bin/env bats
# The client matrix, Python part: Debian's python3-kubernetes (installed by
# scripts/install-deps.sh; importable by Debian's /usr/bin/python3 only, not by another
# python3 on PATH). python-client.py runs every scenario once, in setup_file (one python
# process: importing the client takes a second), against this file's emulator; each test
# below checks one scenario's "ok NAME: ..." line.

load ../lib/common
load ../lib/clients

bats_require_minimum_version 1.5.0

CLIENTS=$BATS_TEST_DIRNAME
CLIENT_LOG=python.log
PY=/usr/bin/python3

setup_file() {
    if ! "$PY" -c 'import kubernetes' 2>"$BATS_FILE_TMPDIR/missing"; then
        return 0 # each test skips, saying why
    fi
    rm -f "$BATS_FILE_TMPDIR/missing"
    start_emulator
    mkdir -p "$BATS_FILE_TMPDIR/results"
    # the exit status is the tests' business: each reads its own scenario's line
    timeout 120 "$PY" "$CLIENTS/python-client.py" --server "$EMU_URL" \
        --out "$BATS_FILE_TMPDIR/results" >"$BATS_FILE_TMPDIR/python.log" 2>&1 || true
}

teardown_file() {
    [ -z "${EMU_PID:-}" ] || stop_emulator
}

setup() {
    if [ -f "$BATS_FILE_TMPDIR/missing" ]; then
        skip "$PY cannot import kubernetes (install Debian's python3-kubernetes: scripts/install-deps.sh): $(tail -n 1 "$BATS_FILE_TMPDIR/missing")"
    fi
}

@test "python: every scenario of python-client.py has a test here" {
    run -0 "$PY" "$CLIENTS/python-client.py" --list
    local listed here
    listed=$(printf '%s\n' "$output" | sort)
    here=$(sed -n 's/^ *scenario \([a-z-]*\)$/\1/p' "$BATS_TEST_FILENAME" | sort)
    assert_equal "$here" "$listed"
}

@test "python: CoreV1Api lists namespaces and reads one" {
    scenario typed-list-read
}

@test "python: patch_namespace (a strategic merge patch): labels merge, null deletes, finalizers merge" {
    scenario patch-namespace
}

@test "python: the dynamic client reads a nodus.dev kind; its default strategic patch: Namespace yes, Job 415 with a fix" {
    scenario dynamic-client
}
