#!/usr/bin/env bats
# nodus logs: a Job's, Sandbox's or Function's log as it comes, the flags of kubectl
# logs, -f until the object ends (its exit code saying how it ended) and resumed after a
# dropped connection. The emulator runs Jobs' commands locally (--runtime local), so
# their logs are exact; Sandboxes' logs are simulated. The clock moves only when a test
# advances it.

load ../lib/common

bats_require_minimum_version 1.5.0

API=/apis/nodus.dev/v1/namespaces/default

setup_file() {
    start_emulator --runtime local
    export NODUS_SERVER=$EMU_URL
}

teardown_file() {
    stop_emulator
}

setup() {
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$(emu_url)
}

# A Job running a local command (a JSON array), created and left Queued.
job() {
    job_json "$1" "$(jq -cn --argjson c "$2" '{command: $c}')" |
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$(emu_url)$API/jobs" -d @-
}

phase() {
    curl -sf "$(emu_url)$API/$1" | jq -r .status.phase
}

# Waits (real time, at most 10 s) until OBJECT's phase is PHASE.
wait_phase() {
    wait_until phase_is "$1" "$2"
}

phase_is() { # OBJECT PHASE
    [ "$(phase "$1")" = "$2" ]
}

# Waits (real time, at most 10 s) until FILE holds a line matching the regex.
wait_line() {
    wait_until grep -qE -- "$2" "$1" && return 0
    cat "$1" >&2
    return 1
}

tree() {
    echo "$BATS_FILE_TMPDIR/state/files/default/jobs/$1"
}

@test "logs NAME prints a Job's output as it was written: stdout and stderr in order" {
    job three '["sh","-c","echo one; echo two >&2; echo three"]'
    clock_advance 35s
    wait_phase jobs/three Succeeded
    run -0 --separate-stderr nodus logs three
    assert_output $'one\ntwo\nthree'
    assert_equal "$stderr" ""
    run -0 --separate-stderr nodus logs job/three
    assert_output $'one\ntwo\nthree'
    run -0 --separate-stderr nodus logs jobs three
    assert_output $'one\ntwo\nthree'
    run -0 nodus logs nj/three -n default
    assert_output $'one\ntwo\nthree'
}

@test "--tail, --limit-bytes and --timestamps" {
    run -0 --separate-stderr nodus logs three --tail=2
    assert_output $'two\nthree'
    run -0 nodus logs three --tail 0
    assert_output ""
    run -0 nodus logs three --tail=-1
    assert_output $'one\ntwo\nthree'
    # the bytes as they came: no newline is added after a cut
    nodus logs three --limit-bytes=6 >"$BATS_TEST_TMPDIR/cut"
    [ "$(od -An -c "$BATS_TEST_TMPDIR/cut" | tr -s ' ')" = " o n e \n t w" ]
    run -0 nodus logs three --timestamps
    [ "${#lines[@]}" = 3 ]
    [[ ${lines[0]} =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z\ one$ ]]
    [[ ${lines[2]} =~ Z\ three$ ]]
    # exactly what the server answers
    curl -sf "$(emu_url)$API/jobs/three/log?timestamps=true" >"$BATS_TEST_TMPDIR/raw"
    nodus logs three --timestamps | cmp - "$BATS_TEST_TMPDIR/raw"
}

@test "--since and --since-time keep the newer lines" {
    run -0 nodus logs three --since=1h
    assert_output $'one\ntwo\nthree'
    run -0 nodus logs three --since-time=2000-01-01T00:00:00Z
    assert_output $'one\ntwo\nthree'
    run -0 nodus logs three --since-time=2999-01-01T00:00:00Z
    assert_output ""
    clock_advance 2h
    run -0 nodus logs three --since=1h
    assert_output ""
    run -0 nodus logs three --since=3h
    assert_output $'one\ntwo\nthree'
}

@test "usage errors exit 2 and say what is wrong" {
    run -2 --separate-stderr nodus logs
    assert_output ""
    assert_equal "$stderr" "error: name the object: nodus logs KIND/NAME (or NAME for a Job)
See 'nodus logs --help' for usage."
    run -2 --separate-stderr nodus logs three --tail=-2
    assert_equal "$stderr" "error: --tail must be greater than or equal to -1
See 'nodus logs --help' for usage."
    run -2 --separate-stderr nodus logs three --since=1h --since-time=2000-01-01T00:00:00Z
    assert_equal "$stderr" "error: at most one of \`sinceTime\` or \`sinceSeconds\` may be specified
See 'nodus logs --help' for usage."
    run -2 --separate-stderr nodus logs three --since-time=yesterday
    [[ $stderr == 'error: invalid argument "yesterday" for "--since-time" flag: invalid time "yesterday"'* ]]
    run -2 --separate-stderr nodus logs three --limit-bytes=-1
    assert_equal "$stderr" "error: --limit-bytes must be greater than 0
See 'nodus logs --help' for usage."
    run -2 --separate-stderr nodus logs volume/data
    assert_equal "$stderr" "error: volumes have no log (Jobs, Sandboxes, Functions and PoolActions do)
See 'nodus logs --help' for usage."
    run -2 --separate-stderr nodus logs job/a job/b
    assert_equal "$stderr" "error: name one object: nodus logs KIND/NAME
See 'nodus logs --help' for usage."
    run -2 --separate-stderr nodus logs three --tail=x
    assert_equal "$stderr" "error: invalid argument \"x\" for \"--tail\" flag: not an integer
fix: see 'nodus logs --help' for the flags"
}

@test "a missing object exits 3; one that has not started exits 1 with the server's fix" {
    run -3 --separate-stderr nodus logs nope
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (NotFound): jobs.nodus.dev "nope" not found' ]
    job later '["sh","-c","echo later"]'
    run -1 --separate-stderr nodus logs later
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (BadRequest): job "later" has not started yet (phase Queued): there is no log until it runs' ]
    [ "${stderr_lines[1]}" = 'fix: follow it to see the log once it runs: nodus logs -f job/later' ]
}

@test "logs -f waits for a Job to start, streams as it comes, and exits 0 when it Succeeds" {
    job stream '["sh","-c","echo first; while [ ! -f go ]; do sleep 0.05; done; echo second"]'
    out=$BATS_TEST_TMPDIR/out
    nodus logs -f stream >"$out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
    pid=$!
    sleep 0.3 # kept: a bounded look for output that must not come before the Job starts
    [ ! -s "$out" ]
    clock_advance 35s
    wait_line "$out" '^first$' # before the command ended: nothing is held back
    kill -0 "$pid"
    touch "$(tree stream)/go"
    wait "$pid" # ends by itself, exit 0
    [ "$(cat "$out")" = $'first\nsecond' ]
    [ ! -s "$BATS_TEST_TMPDIR/err" ]
}

@test "logs -f exits 1 when the Job ends Failed, and when it is deleted" {
    job bad '["sh","-c","echo oops; exit 3"]'
    clock_advance 35s
    wait_phase jobs/bad Failed
    run -1 --separate-stderr nodus logs -f bad
    assert_output oops
    assert_equal "$stderr" "error: job/bad ended Failed: the command exited with an error (exit code 3)"

    job doomed '["sh","-c","echo alive; exec sleep 300"]'
    clock_advance 35s
    out=$BATS_TEST_TMPDIR/doomed
    nodus logs -f job/doomed >"$out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
    pid=$!
    wait_line "$out" '^alive$'
    nodus delete job doomed --wait=false >/dev/null
    rc=0
    wait "$pid" || rc=$?
    [ "$rc" = 1 ]
    [ "$(head -n 1 "$out")" = alive ]
    [ "$(tail -n 1 "$out")" = "[nodus] stopping the command (SIGTERM): the Job is being deleted" ]
    [ "$(cat "$BATS_TEST_TMPDIR/err")" = "error: job/doomed was deleted" ]
}

@test "a Sandbox's simulated log; logs -f ends with 0 when it is stopped" {
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$(emu_url)$API/sandboxes" \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"dev"},
             "spec":{"image":"nodus/python:3.12","command":["/bin/bash"],"maxCostUSD":"5.00"}}'
    clock_advance 12s
    digest=$(nodus get image python -n nodus -o json | jq -r '.spec.tags[] | select(.tag == "3.12") | .digest')
    run -0 --separate-stderr nodus logs sandbox/dev
    assert_output "[nodus] pulling image nodus/python:3.12
[nodus] pulled image nodus/python:3.12@$digest
[nodus] starting: /bin/bash
[nodus] ready: open a shell with nodus exec -it sandbox/dev -- bash (stops after 30m without a session)"
    out=$BATS_TEST_TMPDIR/sbx
    nodus logs -f sbx/dev --tail=1 >"$out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
    pid=$!
    wait_line "$out" '^\[nodus\] ready'
    nodus stop sandbox/dev >/dev/null
    wait "$pid"
    [ "$(cat "$out")" = "[nodus] ready: open a shell with nodus exec -it sandbox/dev -- bash (stops after 30m without a session)
[nodus] stopping (SIGTERM): spec.state is Stopped
[nodus] stopped" ]
    [ ! -s "$BATS_TEST_TMPDIR/err" ]
}

@test "logs -f resumes after the connection drops, without printing a line twice" {
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$(emu_url)$API/sandboxes" \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"box"},
             "spec":{"image":"nodus/python:3.12","command":["/bin/bash"],"maxCostUSD":"5.00"}}'
    clock_advance 12s
    out=$BATS_TEST_TMPDIR/box
    nodus logs -f sandbox/box >"$out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
    pid=$!
    wait_line "$out" '^\[nodus\] ready'
    # the emulator goes away (the stream ends) and comes back on the same port
    port=$(cat "$BATS_FILE_TMPDIR/port")
    stop_emulator
    ! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error" "$BATS_FILE_TMPDIR/emulator.err" ||
        { cat "$BATS_FILE_TMPDIR/emulator.err" >&2; false; }
    start_emulator --runtime local --listen "127.0.0.1:$port"
    kill -0 "$pid" || { cat "$BATS_TEST_TMPDIR/err" "$out"; false; }
    nodus stop sandbox/box >/dev/null
    wait "$pid"
    cat "$out" "$BATS_TEST_TMPDIR/err"
    [ "$(cat "$out")" = "[nodus] pulling image nodus/python:3.12
$(sed -n 2p "$out")
[nodus] starting: /bin/bash
[nodus] ready: open a shell with nodus exec -it sandbox/box -- bash (stops after 30m without a session)
[nodus] stopping (SIGTERM): spec.state is Stopped
[nodus] stopped" ]
}

@test "the emulator stops cleanly, with nothing reported by the sanitizers" {
    stop_emulator
    if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error" "$BATS_FILE_TMPDIR/emulator.err"; then
        cat "$BATS_FILE_TMPDIR/emulator.err" >&2
        false
    fi
}
