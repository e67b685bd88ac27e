#!/usr/bin/env bats
# The whole offline workflow, step by step, as a user runs it with the CLI: an emulator
# started by `nodus emulator start`, a Pool with Hosts, pool-routed and market Jobs, a
# Pipeline, costs accruing, a Budget suspending work, suspend and resume, logs, exec into
# a Sandbox and files copied in and out. The clock is advanced, never waited for.
# The tests run in order and share one emulator (examples/workflow/ holds the manifests).

load ../lib/common

bats_require_minimum_version 1.5.0

setup_file() {
    export HOME=$BATS_FILE_TMPDIR/home NODUS_EMULATOR_STATE=$BATS_FILE_TMPDIR/state
    unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG
    mkdir -p "$HOME"
    nodus emulator start --speed 0 >"$BATS_FILE_TMPDIR/start.out"
}

teardown_file() {
    nodus emulator stop >/dev/null 2>&1 || true
}

setup() {
    cd "$ND_ROOT"
}

advance() {
    nodus emulator clock advance "$1" >/dev/null
}

# jp KIND/NAME JSONPATH
jp() {
    nodus get "$1" -o "jsonpath=$2"
}

@test "1. the emulator runs in the background and the CLI's context points at it" {
    run grep -c "emulator started: http://127.0.0.1:" "$BATS_FILE_TMPDIR/start.out"
    assert_output 1
    run -0 nodus config current-context
    assert_output emulator-state # named after its state directory (not the default one)
}

@test "2. a Pool with two Hosts: their capacity is counted once they enrol" {
    run -0 nodus apply -f examples/workflow/01-pool.yaml
    assert_output - <<'OUT'
pool.nodus.dev/lab created
host.nodus.dev/node01 created
host.nodus.dev/node02 created
OUT
    advance 15s
    [ "$(jp pool/lab '{.status.phase}')" = Running ]
    [ "$(jp pool/lab '{.status.capacity.nodes} {.status.capacity.gpus.H100.free}/{.status.capacity.gpus.H100.total}')" = "2 12/12" ]
}

@test "3. a Budget, a pool-routed Job and a market Job: placed where they belong" {
    nodus apply -f examples/workflow/02-budget.yaml -f examples/workflow/03-jobs.yaml >/dev/null
    [ "$(jp job/train '{.status.phase}')" = Queued ]
    advance 35s
    [ "$(jp job/train '{.status.phase} {.status.placement.target} {.status.rateUSDPerHour}')" = "Running pool/lab 0.00" ]
    [ "$(jp job/eval '{.status.phase} {.status.placement.target} {.status.rateUSDPerHour}')" = "Running market 0.99" ]
    [ "$(jp pool/lab '{.status.capacity.gpus.H100.free}')" = 4 ]
}

@test "4. a Pipeline creates its Jobs in dependency order, owned and labelled" {
    nodus apply -f examples/workflow/04-pipeline.yaml >/dev/null
    advance 35s
    run -0 nodus get jobs -l nodus.dev/pipeline=nightly -o name
    assert_output job.nodus.dev/nightly-prep
    [ "$(jp job/nightly-prep '{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}')" = Pipeline/nightly ]
    advance 20m
    run -0 nodus get jobs -l nodus.dev/pipeline=nightly -o name
    assert_line job.nodus.dev/nightly-tune
    advance 1h
    [ "$(jp pipeline/nightly '{.status.phase}')" = Succeeded ]
    run -0 nodus get jobs -l nodus.dev/pipeline=nightly -o 'custom-columns=NAME:.metadata.name,PHASE:.status.phase' --no-headers
    assert_output - <<'OUT'
nightly-prep     Succeeded
nightly-report   Succeeded
nightly-tune     Succeeded
OUT
}

@test "5. watching the Jobs shows each change as the clock moves" {
    local url n
    url=$(sed -n 's/^emulator started: \(http[^ ]*\) .*/\1/p' "$BATS_FILE_TMPDIR/start.out")
    n=$(watches_total "$url")
    nodus get jobs --watch-only -o name >"$BATS_TEST_TMPDIR/watch" 2>&1 3>&- &
    local pid=$!
    wait_until watches_at_least $((n + 1)) "$url"
    advance 3h # train's 3 hours end
    wait_until grep -q 'job.nodus.dev/train' "$BATS_TEST_TMPDIR/watch" || true # checked below
    kill $pid
    wait $pid || true
    grep -q 'job.nodus.dev/train' "$BATS_TEST_TMPDIR/watch"
    [ "$(jp job/train '{.status.phase}')" = Succeeded ]
}

@test "6. costs accrued, and the Budget suspended the market Job at its limit" {
    [ "$(jp job/eval '{.spec.state} {.status.phase}')" = "Suspended Queued" ]
    [ "$(jp job/eval '{.status.costUSD}')" = 1.00 ]
    [ "$(jp budget/vision '{.status.spentUSD} {.status.remainingUSD}')" = "1.00 0.00" ]
    run -0 nodus get events --field-selector involvedObject.name=eval -o 'jsonpath={range .items[*]}{.reason}{"\n"}{end}'
    assert_line Suspended
}

@test "7. suspend and resume: a suspended Job costs nothing and runs on when resumed" {
    nodus patch budget vision --type merge -p '{"spec":{"limitUSD":"10.00"}}' >/dev/null
    run -0 nodus resume job/eval
    assert_output "job.nodus.dev/eval resumed"
    advance 35s
    [ "$(jp job/eval '{.status.phase}')" = Running ]
    advance 10m
    run -0 nodus suspend job/eval
    assert_output "job.nodus.dev/eval suspended"
    advance 1s
    local cost
    cost=$(jp job/eval '{.status.costUSD}')
    advance 2h
    [ "$(jp job/eval '{.status.phase} {.status.costUSD}')" = "Queued $cost" ]
    nodus resume job/eval >/dev/null
    advance 35s
    [ "$(jp job/eval '{.status.phase}')" = Running ]
}

@test "8. logs: the Job's output, read after the end and followed to the end" {
    run -0 --separate-stderr nodus logs job/train --tail 1
    [ "${#lines[@]}" = 1 ]
    assert_output --partial "exit"
    run -0 --separate-stderr nodus logs job/train
    [ "${#lines[@]}" -gt 3 ]
    # a Job followed while it runs: the stream ends by itself when the Job ends
    nodus apply -f - >/dev/null <<'YAML'
apiVersion: nodus.dev/v1
kind: Job
metadata:
  name: short
  annotations: {emulator.nodus.dev/duration: 5m}
spec:
  image: nodus/pytorch:2.8-cuda12.8
  command: [python, short.py]
  maxCostUSD: "1.00"
YAML
    nodus logs -f job/short >"$BATS_TEST_TMPDIR/follow" 2>&1 3>&- &
    local pid=$!
    advance 35s
    advance 5m
    wait_until pid_gone $pid || true # a follow that does not end is failed below
    run wait $pid
    [ "$status" = 0 ]
    [ "$(wc -l <"$BATS_TEST_TMPDIR/follow")" -gt 2 ]
}

@test "9. exec into a Running Sandbox: output, input and the exit code come back" {
    nodus apply -f examples/workflow/05-sandbox.yaml >/dev/null
    advance 15s
    [ "$(jp sandbox/dev '{.status.phase}')" = Running ]
    run -0 --separate-stderr nodus exec dev -- sh -c 'echo hello from the sandbox'
    assert_output "hello from the sandbox"
    run -0 --separate-stderr nodus exec -i dev -- tr a-z A-Z <<<"shout"
    assert_output SHOUT
    run -3 --separate-stderr nodus exec dev -- sh -c 'exit 3'
}

@test "10. files copied in and out of the Sandbox arrive exactly" {
    mkdir -p "$BATS_TEST_TMPDIR/in/sub"
    echo "notes" >"$BATS_TEST_TMPDIR/in/notes.txt"
    printf '#!/bin/sh\necho run\n' >"$BATS_TEST_TMPDIR/in/sub/run.sh"
    chmod 755 "$BATS_TEST_TMPDIR/in/sub/run.sh"
    run -0 --separate-stderr nodus cp "$BATS_TEST_TMPDIR/in" dev:/work
    run -0 --separate-stderr nodus exec dev -- sh work/sub/run.sh
    assert_output run
    run -0 --separate-stderr nodus cp dev:/work "$BATS_TEST_TMPDIR/out"
    diff -r "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
    [ "$(stat -c %a "$BATS_TEST_TMPDIR/out/sub/run.sh")" = 755 ]
}

@test "11. deleting everything: work stops, the final charges post, the objects go" {
    run -0 --separate-stderr nodus delete sandbox dev --wait=false
    advance 1m
    run -3 --separate-stderr nodus get sandbox dev
    run -0 nodus emulator stop
    assert_output --regexp '^emulator stopped'
}
