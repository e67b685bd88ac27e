#!/usr/bin/env bats
# nodus top pools|jobs: utilization and cost from the objects' status.

load ../lib/common

bats_require_minimum_version 1.5.0

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

setup() {
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$(emu_url)
    cd "$ND_ROOT"
}

@test "nothing running yet: top says so on stderr" {
    run -0 --separate-stderr nodus top jobs
    assert_output ""
    assert_equal "$stderr" "No running Jobs."
}

@test "top pools: hosts, devices in use, waiting work" {
    nodus apply -f examples/workflow/01-pool.yaml -f examples/workflow/03-jobs.yaml >/dev/null
    clock_advance 15s
    clock_advance 30s
    run -0 --separate-stderr nodus top pools
    assert_line -n 0 --regexp '^NAME +HOSTS +GPUS-USED +UTIL +WAITING +BURSTS +ACTIONS$'
    assert_line -n 1 --regexp '^lab +2/2 +8/12 +[0-9]+% +0 +0 +0$'
}

@test "top jobs: the most expensive first, cost against the limit, a total" {
    clock_advance 1h
    run -0 --separate-stderr nodus top jobs
    assert_output - <<'OUT'
NAME    PHASE     GPU      PLACEMENT   RATE      COST    OF-MAX
eval    Running   1xL40S   market      $0.99/h   $0.99   4%
train   Running   8xH100   pool/lab    $0.00/h   $0.00   0%
2 running, $0.99/h, $0.99 so far
OUT
    run -0 --separate-stderr nodus top jobs -A --no-headers
    assert_line -n 0 --regexp '^default +eval +Running '
}

@test "top: usage errors" {
    run -2 --separate-stderr nodus top
    [[ "$stderr" == "error: nodus top pools|jobs"* ]]
    run -2 --separate-stderr nodus top sandboxes
}

@test "top takes each view's singular and short names, as the registry spells them" {
    run -0 --separate-stderr nodus top jobs
    local jobs=$output
    for name in job nj; do
        run -0 --separate-stderr nodus top "$name"
        assert_equal "$output" "$jobs"
    done
    run -0 --separate-stderr nodus top pools
    local pools=$output
    for name in pool pl; do
        run -0 --separate-stderr nodus top "$name"
        assert_equal "$output" "$pools"
    done
    for name in Pools JOBS jobs.nodus.dev pipe; do
        run -2 --separate-stderr nodus top "$name"
        [[ "$stderr" == "error: nodus top pools|jobs"* ]]
    done
}
