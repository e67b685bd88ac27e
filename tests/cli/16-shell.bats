#!/usr/bin/env bats
# nodus shell: command lines read from a script or a terminal, use project, built-ins,
# Tab completion from the live server and the history file.

load ../lib/common

bats_require_minimum_version 1.5.0

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

setup() {
    export HOME=$BATS_TEST_TMPDIR/home NODUS_SERVER=$(emu_url)
    mkdir -p "$HOME"
}

@test "a script on standard input runs each line as a nodus command" {
    run -0 --separate-stderr nodus shell <<'IN'
get projects -o name
use project nodus
get image pytorch -o name
get projects -o 'jsonpath={.items[0].metadata.name}'
IN
    assert_output - <<'OUT'
namespace/default
namespace/nodus
commands now run in project nodus
image.nodus.dev/pytorch
default
OUT
}

@test "the exit status is the last command's; a bad line is an error, not the end" {
    run -3 --separate-stderr nodus shell <<'IN'
bogus "unbalanced
get job missing
IN
    [[ "$stderr" == *"error: unbalanced quotes"* ]]
    [[ "$stderr" == *'jobs.nodus.dev "missing" not found'* ]]
    run -3 --separate-stderr nodus shell <<'IN'
get projects default -o name
get job missing
exit
get projects default -o name
IN
    assert_output namespace/default # nothing after exit runs
    run -2 --separate-stderr nodus shell <<'IN'
get jobs | wc -l
IN
    [[ "$stderr" == *"unquoted special character"* ]]
    run -2 --separate-stderr nodus shell extra
}

@test "-n before shell picks the first project; a line's own -n wins" {
    run -0 --separate-stderr nodus -n nodus shell <<'IN'
get image cuda -o name
get projects default -o name -n default
IN
    assert_output - <<'OUT'
image.nodus.dev/cuda
namespace/default
OUT
}

@test "on a terminal: a prompt, Tab completes from the server, lines go to the history" {
    # typed as a user does: each line once the shell has answered the one before
    local out=$BATS_TEST_TMPDIR/out in=$BATS_TEST_TMPDIR/in pid
    mkfifo "$in"
    script -qec "nodus shell" /dev/null <"$in" >"$out" 3>&- &
    pid=$!
    exec 4>"$in"
    printf 'use project nodus\n' >&4
    wait_until grep -aq 'nodus nodus> ' "$out"
    printf 'get imag\t' >&4
    wait_until grep -aqE 'get imag.?e' "$out" # completed from the server (a bell may come first)
    printf -- ' pytorch -o name\n' >&4
    wait_until grep -aq 'image.nodus.dev/pytorch' "$out"
    printf 'exit\n' >&4
    exec 4>&-
    wait "$pid"
    run grep -a -c 'image.nodus.dev/pytorch' "$BATS_TEST_TMPDIR/out"
    assert_output 1
    grep -aq 'nodus nodus> ' "$BATS_TEST_TMPDIR/out"
    run cat "$HOME/.nodus/history"
    assert_output - <<'OUT'
use project nodus
get image pytorch -o name
exit
OUT
}
