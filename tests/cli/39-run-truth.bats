#!/usr/bin/env bats
# nodus run tells the truth (issue 20, item 6): on the emulator's simulated runtime it
# says, once and before the log, that the log is made up and how to see the command's
# real output; a simulated run is short (30s, --sim-duration); the same run again is
# "unchanged" (the server answers the existing Job) and another Job of the name exits 4.
# The clock moves only when a test advances it; an attached `nodus run` runs in the
# background meanwhile (under `timeout`, so that a bug fails the test instead of
# hanging it).

load ../lib/common

bats_require_minimum_version 1.5.0

API=/apis/nodus.dev/v1/namespaces/default
PY=nodus/python:3.12
NOTE="  simulated: the emulator simulates Jobs (--runtime simulate): the log below is made up, the command does not run, the run lasts 30s (--sim-duration)
  to see the command's real output: restart the emulator with --runtime local (nodus emulator stop, then nodus emulator start --runtime local)"

setup_file() {
    start_emulator
}

teardown_file() {
    stop_extras
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$(emu_url)
}

# nodus run ARGS... in the background: stdout to run.out, stderr to run.err; RUN_PID.
run_bg() {
    OUT=$BATS_TEST_TMPDIR/run.out ERR=$BATS_TEST_TMPDIR/run.err
    timeout 30 nodus run "$@" >"$OUT" 2>"$ERR" &
    RUN_PID=$!
}

wait_run() {
    RUN_RC=0
    wait "$RUN_PID" || RUN_RC=$?
}

wait_line() { # FILE REGEX
    wait_until grep -qE -- "$2" "$1" && return 0
    cat "$1" >&2
    return 1
}

annotation() { # NAME [URL]: the Job's emulator.nodus.dev/duration, or "none"
    curl -sf "${2:-$(emu_url)}$API/jobs/$1" |
        jq -r '.metadata.annotations["emulator.nodus.dev/duration"] // "none"'
}

@test "run on the simulated runtime says once, before the log, that it is made up; --runtime local runs the command and says nothing" {
    run_bg sim --image "$PY" -- python -c 'print("real output")'
    wait_line "$ERR" 'runtime local\)$'
    # before the log: nothing is on stdout yet (the Job is queued)
    assert_equal "$(cat "$OUT")" ""
    clock_advance 2m
    wait_run
    assert_equal "$RUN_RC" 0
    assert_equal "$(cat "$ERR")" "job.nodus.dev/sim created
  estimate: rate \$0.00/h, expected \$0.00, first hold \$0.00, starts in ~35s
$NOTE"
    # stdout is the (made-up) log only
    assert_equal "$(head -n 1 "$OUT")" "[nodus] pulling image nodus/python:3.12"
    run ! grep -qx 'real output' "$OUT" # the command did not run (the log only names it)
    run ! grep -q simulated "$OUT"

    # the stats endpoint is how run tells
    run -0 curl -sf "$(emu_url)/emulator/v1/stats"
    assert_equal "$(jq -r .runtime <<<"$output")" simulate

    # an emulator that runs commands for real: the real output, no note
    start_extra local --runtime local --speed 0
    run -0 curl -sf "$XURL/emulator/v1/stats"
    assert_equal "$(jq -r .runtime <<<"$output")" local
    OUT=$BATS_TEST_TMPDIR/local.out ERR=$BATS_TEST_TMPDIR/local.err
    NODUS_SERVER=$XURL timeout 30 nodus run real --image "$PY" -- sh -c 'echo real output; exit 3' >"$OUT" 2>"$ERR" &
    RUN_PID=$!
    wait_line "$ERR" estimate:
    clock_advance 40s "$XURL"
    wait_run
    assert_equal "$RUN_RC" 3
    assert_equal "$(cat "$OUT")" "real output"
    run ! grep -q simulated "$ERR"
}

@test "run: a simulated run lasts 30s unless --sim-duration or the annotation says; only where the server simulates" {
    run -0 nodus run short --image "$PY" -d -- true
    assert_equal "$(annotation short)" 30s
    # it ends 30s after it starts running (queued 5s + provisioning 30s), not 10 minutes
    clock_advance 60s
    run -0 curl -sf "$(emu_url)$API/jobs/short"
    assert_equal "$(jq -r .status.phase <<<"$output")" Running
    clock_advance 10s
    run -0 curl -sf "$(emu_url)$API/jobs/short"
    assert_equal "$(jq -r .status.phase <<<"$output")" Succeeded

    run -0 nodus run longer --image "$PY" --sim-duration 2m30s -d -- true
    assert_equal "$(annotation longer)" 2m30s
    run -0 nodus run ann --image "$PY" --annotations emulator.nodus.dev/duration=5s -d -- true
    assert_equal "$(annotation ann)" 5s
    # the estimate counts the simulated run: 30s of 2 H100s ($4.98/h) is $0.04
    run -0 --separate-stderr nodus run est --image nodus/pytorch:2.8-cuda12.8 --gpu H100:2 --dry-run=server -- true
    assert_line -n 1 "  estimate: rate \$4.98/h, expected \$0.04, first hold \$4.98, starts in ~35s"
    # a client dry run asks no server: the flag's annotation only
    run -0 --separate-stderr nodus run c --image "$PY" --dry-run=client -o jsonpath='{.metadata.annotations}' -- true
    assert_output ""
    run -0 --separate-stderr nodus run c --image "$PY" --sim-duration 1.5s --dry-run=client -o jsonpath='{.metadata.annotations}' -- true
    assert_output '{"emulator.nodus.dev/duration":"1.5s"}'

    run -2 --separate-stderr nodus run bad --image "$PY" --sim-duration 1m --annotations emulator.nodus.dev/duration=5s -- true
    assert_equal "${stderr%%$'\n'*}" "error: --sim-duration sets the annotation emulator.nodus.dev/duration: give one of them"
    run -2 --separate-stderr nodus run bad --image "$PY" --sim-duration 0s -- true
    assert_equal "${stderr%%$'\n'*}" "error: --sim-duration must be greater than 0"
    run ! curl -sf "$(emu_url)$API/jobs/bad"

    # a server that does not simulate gets no default annotation (the flag still sets it)
    start_extra plain --runtime local --speed 0
    NODUS_SERVER=$XURL run -0 nodus run plain --image "$PY" -d -- true
    assert_equal "$(annotation plain "$XURL")" none
    NODUS_SERVER=$XURL run -0 nodus run flagged --image "$PY" --sim-duration 1m -d -- true
    assert_equal "$(annotation flagged "$XURL")" 1m
    # nor does one that runs nothing (--no-simulation)
    start_extra none --no-simulation
    run -0 curl -sf "$XURL/emulator/v1/stats"
    assert_equal "$(jq -r .runtime <<<"$output")" none
    NODUS_SERVER=$XURL run -0 nodus run idle --image "$PY" -d -- true
    assert_equal "$(annotation idle "$XURL")" none
}

@test "run again: the same Job is unchanged and followed (its exit code again); another spec under the name exits 4" {
    run -0 --separate-stderr nodus run same --image "$PY" --annotations emulator.nodus.dev/exit-code=3 -d -- sh -c 'exit 3'
    assert_line -n 0 "job.nodus.dev/same created"
    run -0 --separate-stderr nodus run same --image "$PY" --annotations emulator.nodus.dev/exit-code=3 -d -- sh -c 'exit 3'
    assert_output "job.nodus.dev/same unchanged
  follow it: nodus logs -f job/same -n default"
    run -0 --separate-stderr nodus run same --image "$PY" -d -o name -- sh -c 'exit 3'
    assert_output "job.nodus.dev/same"
    run -0 --separate-stderr nodus run same --image "$PY" --dry-run=server -- sh -c 'exit 3'
    assert_output "job.nodus.dev/same unchanged (server dry run)"

    # attached: says unchanged, follows the existing Job to its end and exits with its code
    run_bg same --image "$PY" -- sh -c 'exit 3'
    wait_line "$ERR" 'runtime local\)$'
    clock_advance 2m
    wait_run
    assert_equal "$RUN_RC" 3
    assert_equal "$(head -n 1 "$ERR")" "job.nodus.dev/same unchanged"
    assert_equal "$(tail -n 1 "$OUT")" "[nodus] the command exited with code 3"
    # once it has ended, the same run prints its log again and exits 3 again
    run -3 --separate-stderr timeout 30 nodus run same --image "$PY" -- sh -c 'exit 3'
    assert_equal "${lines[-1]}" "[nodus] the command exited with code 3"

    # another spec under the name: 4, nothing changed, the fix names the field
    run -4 --separate-stderr nodus run same --image "$PY" -- sh -c 'exit 4'
    assert_output ""
    assert_equal "${stderr%%$'\n'*}" 'Error from server (AlreadyExists): jobs.nodus.dev "same" already exists'
    [[ "$stderr" == *$'\nfix: job/same exists with another spec (spec.command differs): choose another name, or delete it first: nodus delete job/same -n default --wait\n'* ]]
    run -4 --separate-stderr nodus run same --image "$PY" --gpu L4 -d -- sh -c 'exit 3'
    [[ "$stderr" == *$'\nfix: job/same exists with another spec (spec.resources differs): '* ]]
    run -0 curl -sf "$(emu_url)$API/jobs/same"
    assert_equal "$(jq -c '.spec.command' <<<"$output")" '["sh","-c","exit 3"]'
}
