#!/usr/bin/env bats
# kubectl wait --for=condition=Complete (and Failed) on Nodus Jobs, as on Kubernetes
# Jobs: the emulator sets Complete=True when a Job succeeds and Failed=True when it fails.
# Every name carries the kubectl version ($SFX); the waiters of all versions run at once,
# in the background, so the suite waits once.
# The clock stands still (start_emulator runs --speed 0): the Jobs end when a test
# advances it.

load ../lib/common
load ../lib/kubectl

bats_require_minimum_version 1.5.0

# A Job NAME of an emulated 10 minutes, with more annotations (YAML flow pairs) if given.
make_job() {
    emu_apply_yaml default jobs "$(fixture job-min.yaml "s/NAME/$1/" \
        "s|^metadata:\$|metadata:\n  annotations: {emulator.nodus.dev/duration: 10m${2:+, $2}}|")"
}

@test "wait --for=condition=Complete: met when the Job succeeds, and at once once it has" {
    for KV in $(kc_versions); do
        kc_use
        make_job "c-$SFX"
        kc_bg "$BATS_TEST_TMPDIR/wait.$SFX" wait nj "c-$SFX" --for=condition=Complete --timeout=30s
        printf -v "PID_$SFX" '%s' "$KC_BG_PID"
        WAITERS="${WAITERS:-} $KC_BG_PID"
    done
    wait_for_watches "$(wc -w <<<"$(kc_versions)")"
    clock_advance 15m
    for KV in $(kc_versions); do
        kc_use
        local var="PID_$SFX"
        status=0
        wait "${!var}" || status=$?
        output=$(cat "$BATS_TEST_TMPDIR/wait.$SFX")
        assert_equal "$status" 0
        assert_output "job.nodus.dev/c-$SFX condition met"
        run -0 --separate-stderr kc wait "jobs.nodus.dev/c-$SFX" --for=condition=Complete --timeout=5s
        assert_output "job.nodus.dev/c-$SFX condition met"
    done
}

@test "wait --for=condition=Failed: met by a Job that exited with an error" {
    for KV in $(kc_versions); do
        kc_use
        make_job "f-$SFX" "emulator.nodus.dev/exit-code: '3'"
    done
    clock_advance 15m
    for KV in $(kc_versions); do
        kc_use
        run -0 --separate-stderr kc wait nj "f-$SFX" --for=condition=Failed --timeout=5s
        assert_output "job.nodus.dev/f-$SFX condition met"
    done
}
