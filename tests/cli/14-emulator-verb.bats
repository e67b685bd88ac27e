#!/usr/bin/env bats
# nodus emulator: start one in the background, find it again, drive its clock, stop it.

load ../lib/common

bats_require_minimum_version 1.5.0

setup_file() {
    export HOME=$BATS_FILE_TMPDIR/home
    mkdir -p "$HOME"
    unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG NODUS_EMULATOR_STATE
}

teardown_file() {
    HOME=$BATS_FILE_TMPDIR/home nodus emulator stop >/dev/null 2>&1 || true
}

setup() {
    export HOME=$BATS_FILE_TMPDIR/home
    unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG NODUS_EMULATOR_STATE
}

@test "start runs it in the background and makes the context emulator current" {
    run -0 --separate-stderr nodus emulator start --speed 0
    assert_line -n 0 --regexp "^emulator started: http://127\.0\.0\.1:[0-9]+ \(pid [0-9]+, state $HOME/\.nodus/emulator\)$"
    assert_line -n 1 'context "emulator" is current'
    run -0 nodus config current-context
    assert_output emulator
    run -0 --separate-stderr nodus get projects -o name
    assert_line namespace/default
    # a second start finds the running one
    run -0 --separate-stderr nodus emulator start
    assert_line -n 0 --regexp '^emulator already running: '
}

@test "status, env, clock and reset talk to the running emulator" {
    run -0 nodus emulator status
    assert_line -n 0 --regexp '^running: http://127\.0\.0\.1:[0-9]+ '
    assert_line -n 1 --regexp '^clock:   [0-9T:-]+Z \(speed 0\)$'
    run -0 nodus emulator env
    assert_output --regexp '^export NODUS_SERVER=http://127\.0\.0\.1:[0-9]+$'
    local before after
    before=$(nodus emulator clock | cut -d' ' -f1)
    run -0 nodus emulator clock advance 2h
    after=$(cut -d' ' -f1 <<<"$output")
    [ $(($(date -d "$after" +%s) - $(date -d "$before" +%s))) = 7200 ]
    nodus apply -f "$ND_ROOT/examples/volume.yaml" >/dev/null
    run -0 nodus emulator reset
    assert_output "emulator reset: objects, history and keys emptied"
    run -0 --separate-stderr nodus get volumes -o name
    assert_output ""
    run -2 --separate-stderr nodus emulator clock advance
    run -0 nodus emulator logs
    assert_line --regexp '^listening on http://127\.0\.0\.1:[0-9]+$'
}

@test "stop ends it; then status says so with exit 1 and the others exit 7" {
    run -0 nodus emulator stop
    assert_line -n 0 --regexp '^emulator stopped \(pid [0-9]+\)$'
    assert_line -n 1 'the context "emulator" reaches no emulator now; start it again: nodus emulator start'
    run -1 nodus emulator status
    assert_output "not running (state $HOME/.nodus/emulator)"
    run -7 --separate-stderr nodus emulator clock
    assert_output ""
    [[ "$stderr" == *"no emulator is running on $HOME/.nodus/emulator"* ]]
    [[ "$stderr" == *"fix: start it: nodus emulator start"* ]]
    run -0 nodus emulator stop
    assert_output "emulator is not running (state $HOME/.nodus/emulator)"
    run -2 --separate-stderr nodus emulator fly
}

@test "a state directory of its own with --state" {
    local dir=$BATS_TEST_TMPDIR/other
    run -0 --separate-stderr nodus emulator start --state "$dir" --speed 0
    [ -s "$dir/emulator.port" ]
    [ -s "$dir/emulator.pid" ]
    run -0 nodus emulator stop --state "$dir"
    [ ! -e "$dir/emulator.pid" ]
}
