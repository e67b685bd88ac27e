#!/usr/bin/env bats
# nodus apply --review: the estimate of a server dry run, a question, then the write
# with If-Match, so the server does exactly what was reviewed.

load ../lib/common
load ../lib/watch

bats_require_minimum_version 1.5.0

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

setup() {
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$(emu_url)
    cat >"$BATS_FILE_TMPDIR/job.yaml" <<'YAML'
apiVersion: nodus.dev/v1
kind: Job
metadata:
  name: reviewed
spec:
  image: nodus/pytorch:2.8-cuda12.8
  resources:
    gpu: {model: H100, count: 2}
  maxCostUSD: "40.00"
YAML
}

@test "without a terminal the question is not asked: exit 2 naming --yes, nothing created" {
    run -2 --separate-stderr nodus apply -f "$BATS_FILE_TMPDIR/job.yaml" --review </dev/null
    assert_line -n 0 "job.nodus.dev/reviewed: review"
    assert_line -n 1 --regexp '^  estimate: rate \$4\.98/h, expected \$0\.83, first hold \$4\.98, starts in ~35s$'
    assert_equal "$stderr" 'error: cannot ask "apply job/reviewed?" without a terminal: pass --yes to answer yes'
    run -3 --separate-stderr nodus get job reviewed
}

@test "on a terminal the question goes to stderr, the review to stdout; n applies nothing" {
    cd "$BATS_TEST_TMPDIR"
    mkfifo in
    script -qfec "nodus apply -f '$BATS_FILE_TMPDIR/job.yaml' --review >stdout" tty <in \
        >/dev/null 2>&1 3>&- &
    local pid=$!
    exec 4>in
    wait_for_line tty 'apply job/reviewed\? \[y/N\] '
    printf 'N\r' >&4
    local rc=0
    wait "$pid" || rc=$?
    exec 4>&-
    [ "$rc" = 0 ]
    run -0 cat stdout
    assert_line -n 0 "job.nodus.dev/reviewed: review"
    assert_line -n 2 "not applied"
    refute_output --partial "[y/N]"
    run -3 --separate-stderr nodus get job reviewed
}

@test "--yes applies what was reviewed: the write carries If-Match and records the rate cap" {
    run -0 --separate-stderr nodus apply -f "$BATS_FILE_TMPDIR/job.yaml" --review --yes -v 8
    assert_output - <<'OUT'
job.nodus.dev/reviewed: review
  estimate: rate $4.98/h, expected $0.83, first hold $4.98, starts in ~35s
job.nodus.dev/reviewed created
OUT
    [[ "$stderr" == *"If-Match: \""* ]]
    run -0 nodus get job reviewed -o 'jsonpath={.status.maxRateUSDPerHour}'
    assert_output 5.478
}

@test "--review refuses --dry-run and client-side apply" {
    run -2 --separate-stderr nodus apply -f "$BATS_FILE_TMPDIR/job.yaml" --review --dry-run=server
    [[ "$stderr" == "error: --review reviews a server-side apply: it cannot be combined with --dry-run or --server-side=false"* ]]
}

@test "a core kind is named without a group: namespace/NAME, not namespace./NAME" {
    printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: reviewed-ns\n' >"$BATS_FILE_TMPDIR/ns.yaml"
    run -0 --separate-stderr nodus apply -f "$BATS_FILE_TMPDIR/ns.yaml" --review --yes
    assert_output - <<'OUT'
namespace/reviewed-ns: review
namespace/reviewed-ns created
OUT
}
