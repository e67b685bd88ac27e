#!/usr/bin/env bats
# Issue 20, item 2: the emulator belongs to its context. `nodus emulator start` records
# the state directory with the context it writes (named after the directory when it is
# not the default), the other subcommands act on the emulator of the current context
# (or --context) from any shell, start never points a context that reaches a running
# emulator at another one, and every fix says what is true. Also (item 8): `emulator
# start --help` shows the `--` pass-through, and an interrupted tests/run-tests.sh ends
# with a clean summary.

load ../lib/common

bats_require_minimum_version 1.5.0

setup() {
    export HOME=$BATS_TEST_TMPDIR/home
    mkdir -p "$HOME"
    unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG NODUS_EMULATOR_STATE
    cd "$BATS_TEST_TMPDIR"
}

teardown() {
    # every emulator this test started (each context records its state directory)
    local d
    for d in "$HOME/.nodus/emulator" "$BATS_TEST_TMPDIR"/*/ "$BATS_TEST_TMPDIR"/*/*/; do
        [ -s "$d/emulator.pid" ] && nodus emulator stop --state "$d" >/dev/null 2>&1
    done
    stop_emulator
}

group_gone() { # PGID: no process of the group is left
    ! kill -0 -- "-$1" 2>/dev/null
}

# The emulated time of the context's emulator, in seconds since 1970.
clock_s() {
    date -d "$(nodus emulator clock "$@" | cut -d' ' -f1)" +%s
}

@test "a second shell with no exports drives the emulator its context points at" {
    # the first terminal: a state directory of its own
    export NODUS_EMULATOR_STATE=$BATS_TEST_TMPDIR/workflow
    run -0 --separate-stderr nodus emulator start --speed 0
    assert_line -n 0 --regexp "^emulator started: http://127\.0\.0\.1:[0-9]+ \(pid [0-9]+, state $BATS_TEST_TMPDIR/workflow\)$"
    assert_line -n 1 'context "emulator-workflow" is current'
    local pid before
    pid=$(cat "$BATS_TEST_TMPDIR/workflow/emulator.pid")
    before=$(clock_s)
    # the second terminal: same HOME, nothing exported
    run -0 env -u NODUS_EMULATOR_STATE nodus emulator clock advance 1m
    [ $(($(date -d "${output%% *}" +%s) - before)) = 60 ]
    run -0 env -u NODUS_EMULATOR_STATE nodus emulator status
    assert_line -n 0 --regexp "^running: http://127\.0\.0\.1:[0-9]+ \(pid $pid, state $BATS_TEST_TMPDIR/workflow\)$"
    # the context records the directory, as a cluster extension kubectl keeps
    run -0 nodus config view -o jsonpath='{.clusters[0].cluster.extensions[0].name} {.clusters[0].cluster.extensions[0].extension.state}'
    assert_output "emulator.nodus.dev $BATS_TEST_TMPDIR/workflow"
    # a start there finds it too, rather than starting a second one on ~/.nodus/emulator
    run -0 --separate-stderr env -u NODUS_EMULATOR_STATE nodus emulator start
    assert_line -n 0 --regexp "^emulator already running: http://127\.0\.0\.1:[0-9]+ \(pid $pid, state $BATS_TEST_TMPDIR/workflow\)$"
    assert_line -n 1 'context "emulator-workflow" is current'
    [ ! -e "$HOME/.nodus/emulator" ]
    # and the second terminal stops that one, not a guess
    run -0 env -u NODUS_EMULATOR_STATE nodus emulator stop
    assert_line -n 0 "emulator stopped (pid $pid)"
    wait_until pid_gone "$pid"
}

@test "two emulators get two contexts; start never repoints a context that reaches a running one" {
    run -0 --separate-stderr nodus emulator start --speed 0
    assert_line -n 1 'context "emulator" is current'
    mkdir -p a b
    run -0 --separate-stderr nodus emulator start --speed 0 --state a/lab
    assert_line -n 1 'context "emulator-lab" is current'
    assert_line -n 2 "the context \"emulator\" still reaches the emulator of $HOME/.nodus/emulator (nodus config use-context emulator)"
    # the same name from another directory: the running one keeps its context
    run -0 --separate-stderr nodus emulator start --speed 0 --state b/lab
    assert_line -n 1 'context "emulator-lab-2" is current'
    run -0 nodus config get-contexts -o name
    assert_output $'emulator\nemulator-lab\nemulator-lab-2'
    # each context reaches its own emulator: one clock moves, the others stay
    local t0 t1 t2
    t0=$(clock_s) t1=$(clock_s --context emulator-lab) t2=$(clock_s --context emulator)
    nodus emulator clock advance 1h --context emulator-lab >/dev/null
    [ $(($(clock_s --context emulator-lab) - t1)) = 3600 ]
    [ "$(clock_s)" = "$t0" ] && [ "$(clock_s --context emulator)" = "$t2" ]
    run -0 nodus get projects --context emulator-lab -o name
    assert_line namespace/default
    # starting one again finds its context: no new name, and the current context moves to it
    run -0 --separate-stderr nodus emulator start --state "$BATS_TEST_TMPDIR/a/lab"
    assert_line -n 0 --regexp '^emulator already running: '
    assert_line -n 1 'context "emulator-lab" is current'
    run -0 nodus emulator env
    [ "$output" = "export NODUS_SERVER=$(nodus config view --minify -o jsonpath='{.clusters[0].cluster.server}')" ]
}

@test "a context nodus did not record that reaches a server is never taken over" {
    # an older nodus wrote "emulator" without the record; its emulator still runs
    start_emulator
    nodus config set-cluster emulator --server "$EMU_URL" >/dev/null
    nodus config set-context emulator --cluster emulator >/dev/null
    nodus config use-context emulator >/dev/null
    run -0 --separate-stderr nodus emulator start --speed 0
    assert_line -n 1 'context "emulator-2" is current'
    run -0 nodus config view -o jsonpath='{.clusters[0].cluster.server}'
    assert_output "$EMU_URL"
    # a context of another server, named like ours, neither
    nodus config set-cluster emulator-x --server https://gpu.example.com >/dev/null
    nodus config set-context emulator-x --cluster emulator-x >/dev/null
    run -0 --separate-stderr nodus emulator start --speed 0 --state "$BATS_TEST_TMPDIR/x"
    assert_line -n 1 'context "emulator-x-2" is current'
    # once the old one is gone, "emulator" is free again (for a start with no context yet)
    stop_emulator
    nodus emulator stop --context emulator-2 >/dev/null
    nodus config delete-context emulator-2 >/dev/null
    nodus config use-context emulator >/dev/null
    run -0 --separate-stderr nodus emulator start --speed 0
    assert_line -n 1 'context "emulator" is current'
}

@test "stop says which context reaches nothing now; errors against it say what is true" {
    nodus emulator start --speed 0 --state "$BATS_TEST_TMPDIR/lab" >/dev/null
    run -0 nodus emulator stop
    assert_line -n 0 --regexp '^emulator stopped \(pid [0-9]+\)$'
    assert_line -n 1 "the context \"emulator-lab\" reaches no emulator now; start it again: nodus emulator start --state $BATS_TEST_TMPDIR/lab"
    # a command of any verb against it: stopped, and the start that brings it back
    run -7 --separate-stderr nodus get jobs
    assert_output ""
    [[ "$stderr" == *$'\n'"fix: the emulator of the context \"emulator-lab\" is not running (state $BATS_TEST_TMPDIR/lab); start it again: nodus emulator start --state $BATS_TEST_TMPDIR/lab" ]]
    run -7 --separate-stderr nodus emulator clock advance 1m
    [ "$stderr" = "no emulator is running on $BATS_TEST_TMPDIR/lab
fix: start it: nodus emulator start --state $BATS_TEST_TMPDIR/lab" ]
    # with NODUS_EMULATOR_STATE naming it, the plain start is the true one
    NODUS_EMULATOR_STATE=$BATS_TEST_TMPDIR/lab run -7 --separate-stderr nodus emulator clock
    [[ "$stderr" == *$'\nfix: start it: nodus emulator start' ]]
    # another emulator runs under another context: the fixes name it first, and both work
    # (without --state, start would run the current context's again)
    nodus emulator start --speed 0 --state "$HOME/.nodus/emulator" >/dev/null
    nodus config use-context emulator-lab >/dev/null
    run -7 --separate-stderr nodus get jobs
    [[ "$stderr" == *"; the context \"emulator\" reaches a running emulator (state $HOME/.nodus/emulator): nodus config use-context emulator; to start this one again: nodus emulator start --state $BATS_TEST_TMPDIR/lab" ]]
    run -7 --separate-stderr nodus emulator clock
    [[ "$stderr" == *$'\n'"fix: the context \"emulator\" reaches a running emulator (state $HOME/.nodus/emulator): nodus config use-context emulator (or add --context emulator); to start this one instead: nodus emulator start --state $BATS_TEST_TMPDIR/lab" ]]
    run -0 nodus emulator clock --context emulator
    # a context of another server, refused: the running emulator's context, not a start
    nodus config set-cluster gone --server http://127.0.0.1:9 >/dev/null
    nodus config set-context gone --cluster gone >/dev/null
    run -7 --separate-stderr nodus get jobs --context gone
    [[ "$stderr" == *$'\n'"fix: Check the server address (the cluster in nodus config view); the context \"emulator\" reaches a running emulator (state $HOME/.nodus/emulator): nodus config use-context emulator" ]]
    run -0 nodus config use-context emulator
    run -0 nodus get jobs
    # --context starts the emulator that context records
    run -0 --separate-stderr nodus emulator start --context emulator-lab --speed 0
    assert_line -n 0 --regexp "^emulator started: .* \(pid [0-9]+, state $BATS_TEST_TMPDIR/lab\)$"
    assert_line -n 1 'context "emulator-lab" is current'
    run -0 nodus get jobs
}

@test "a state directory with a space: a context name without it, a fix that runs as printed" {
    run -0 --separate-stderr nodus emulator start --speed 0 --state "$BATS_TEST_TMPDIR/my lab's"
    assert_line -n 1 "context \"emulator-my-lab-s\" is current"
    run -0 nodus emulator stop
    assert_line -n 1 "the context \"emulator-my-lab-s\" reaches no emulator now; start it again: nodus emulator start --state '$BATS_TEST_TMPDIR/my lab'\\''s'"
    local fix=${lines[1]#*start it again: }
    run -0 bash -c "$fix --speed 0"
    assert_line -n 1 'context "emulator-my-lab-s" is current'
}

@test "--context names the emulator; one that does not exist or records none is an error" {
    run -2 --separate-stderr nodus emulator clock --context nothing
    [ "$stderr" = 'error: context "nothing" does not exist
fix: list the contexts: nodus config get-contexts' ]
    nodus config set-cluster gpu --server https://gpu.example.com >/dev/null
    nodus config set-context gpu --cluster gpu >/dev/null
    run -2 --separate-stderr nodus emulator status --context gpu
    [ "$stderr" = 'error: context "gpu" records no emulator: nodus emulator start did not write it
fix: name its state directory instead: nodus emulator status --state DIR; or give a context nodus emulator start wrote (nodus config get-contexts)' ]
    # --state still names a directory, whatever the context
    run -1 nodus emulator status --state "$BATS_TEST_TMPDIR/none" --context gpu
    assert_output "not running (state $BATS_TEST_TMPDIR/none)"
}

@test "emulator start --help shows the -- pass-through and the contexts; so does nodus-emulator(1)" {
    run -0 nodus emulator start --help
    assert_line --partial '[-- EMULATOR-FLAG...]'
    assert_line '  nodus emulator start --state /tmp/lab -- --no-simulation --fsync never'
    assert_line 'Flags after -- go to nodus-emulator as they are (nodus-emulator --help lists them),'
    assert_line 'except those start sets itself: --state, --listen, --port-file, --tls-cert, --tls-key.'
    assert_line --partial 'The other subcommands act on the emulator of the current context (or'
    command -v man >/dev/null || skip "man is not installed: nodus-emulator(1) cannot be read"
    local page
    page=$(MANWIDTH=200 man -l "$ND_ROOT/man/nodus-emulator.1" 2>/dev/null | tr -s ' \n' ' ')
    [[ "$page" == *"names it after the state directory: emulator-NAME"* ]]
    [[ "$page" == *"act on the emulator of the current context (or --context NAME)"* ]]
}

@test "an interrupted run-tests.sh ends with a clean summary: the counts so far, exit 130" {
    # a tree of its own: run-tests.sh, prove's exec helper, and a suite "slow" whose
    # second file is still running when Ctrl-C comes
    local tree=$BATS_TEST_TMPDIR/tree
    mkdir -p "$tree/tests/lib" "$tree/tests/slow"
    cp "$ND_ROOT/tests/run-tests.sh" "$tree/tests/"
    cp "$ND_ROOT/tests/lib/tap-exec" "$tree/tests/lib/"
    printf '@test "quick" { true; }\n' >"$tree/tests/slow/01-quick.bats"
    # the long test: the one this test interrupts
    printf '@test "long" { sleep 60; }\n' >"$tree/tests/slow/02-long.bats"
    # as Ctrl-C: SIGINT to the run's process group (a session of its own, with SIGINT
    # not ignored as a shell's background job has it), in a clean environment (the
    # inner bats must not see this one's variables)
    env -i PATH="${PATH//"$BATS_LIBEXEC:"/}" HOME="$HOME" ND_SUITES=slow ND_BIN="$ND_BIN_DIR" ND_JOBS=2 perl -MPOSIX -e \
        'POSIX::setsid(); $SIG{INT} = "DEFAULT"; exec @ARGV' "$tree/tests/run-tests.sh" \
        >"$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
    local pid=$!
    wait_until -t 20 grep -q '^ok 1 quick' "$BATS_TEST_TMPDIR/out" ||
        { cat "$BATS_TEST_TMPDIR/out"; return 1; }
    # and Ctrl-C only once the long test is in its sleep: bats traps SIGINT in a test
    # before it runs the test's body and only records one that comes then, so the body's
    # `sleep 60` would run to its end and outlive the summary (the group not gone in 10 s)
    wait_until -t 20 pgrep -g "$pid" -x sleep >/dev/null ||
        { ps -o pid,stat,args -g "$pid"; return 1; }
    kill -INT -- "-$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$rc" = 130 ] || { cat "$BATS_TEST_TMPDIR/out"; return 1; }
    run -0 tail -n 2 "$BATS_TEST_TMPDIR/out"
    assert_output $'\ninterrupted (SIGINT): 1 passed, 0 failed, 0 skipped in the files that ended before it'
    # nothing of the shell's: no missing log, no unset parameter
    run -1 grep -E 'run-tests\.sh:|cannot open|No such file|parameter not set' "$BATS_TEST_TMPDIR/out"
    # and the interrupted suite is gone with it
    wait_until group_gone "$pid"
}
