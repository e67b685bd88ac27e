#!/usr/bin/env bats
# kubectl delete (plain, held by a finalizer, cascading or orphaning owned objects) and
# kubectl wait (jsonpath, delete, a condition that never comes) against the emulator.
# Objects are created and read back with curl; every name carries the kubectl version
# ($SFX). The waits run all versions at once, in the background, so the suite waits once.

load ../lib/common
load ../lib/kubectl

bats_require_minimum_version 1.5.0

# Creates the Job NAME (fixtures/job-min.yaml) with curl, through extra sed expressions;
# prints its uid.
make_job() {
    local name=$1
    shift
    emu_apply_yaml default jobs "$(fixture job-min.yaml "s/NAME/$name/" "$@")"
    jq -r .metadata.uid "$BATS_FILE_TMPDIR/emu_apply.out"
}

# The waiters of one test: kc_bg per version, pid in PID_<sfx>, all in WAITERS.
start_waiter() {
    kc_bg "$BATS_TEST_TMPDIR/wait.$SFX" "$@"
    printf -v "PID_$SFX" '%s' "$KC_BG_PID"
    WAITERS="${WAITERS:-} $KC_BG_PID"
}

# Waits for this version's waiter; sets output (what it printed) and status (its exit code).
join_waiter() {
    local var="PID_$SFX"
    status=0
    wait "${!var}" || status=$?
    output=$(cat "$BATS_TEST_TMPDIR/wait.$SFX")
}

@test "delete: deleted, then gone; again: NotFound" {
    for KV in $(kc_versions); do
        kc_use
        make_job "x-$SFX" >/dev/null
        run -0 --separate-stderr kc delete nj "x-$SFX"
        assert_output "job.nodus.dev \"x-$SFX\" deleted"
        assert_equal "$stderr" ""
        emu_get default jobs "x-$SFX"
        assert_equal "$EMU_CODE" 404
        run -1 --separate-stderr kc delete nj "x-$SFX"
        assert_output ""
        assert_equal "$stderr" "Error from server (NotFound): jobs.nodus.dev \"x-$SFX\" not found"
    done
}

@test "delete --wait=false with a user finalizer: Cancelling until the finalizer goes" {
    for KV in $(kc_versions); do
        kc_use
        make_job "f-$SFX" '/^  labels:/i\  finalizers: [example.com/hold]' >/dev/null
        run -0 --separate-stderr kc delete nj "f-$SFX" --wait=false
        assert_output "job.nodus.dev \"f-$SFX\" deleted"
        run -0 --separate-stderr kc get nj "f-$SFX" \
            -o 'jsonpath={.metadata.deletionTimestamp}|{.status.phase}|{.metadata.finalizers}'
        assert_output --regexp '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\|Cancelling\|\["example.com/hold"\]$'
        run -0 --separate-stderr kc patch nj "f-$SFX" --type merge -p '{"metadata":{"finalizers":null}}'
        assert_output "job.nodus.dev/f-$SFX patched"
        emu_get default jobs "f-$SFX"
        assert_equal "$EMU_CODE" 404
    done
}

@test "delete --cascade=orphan keeps the owned object without its ownerReference; plain delete cascades" {
    local uid
    for KV in $(kc_versions); do
        kc_use
        uid=$(make_job "o-$SFX")
        make_job "oc-$SFX" "/^  labels:/i\\  ownerReferences: [{apiVersion: nodus.dev/v1, kind: Job, name: o-$SFX, uid: $uid}]" >/dev/null
        run -0 --separate-stderr kc delete nj "o-$SFX" --cascade=orphan
        assert_output "job.nodus.dev \"o-$SFX\" deleted"
        emu_get default jobs "oc-$SFX"
        assert_equal "$EMU_CODE" 200
        jq -e '.metadata | has("ownerReferences") | not' <<<"$EMU_OBJ"
        uid=$(make_job "b-$SFX")
        make_job "bc-$SFX" "/^  labels:/i\\  ownerReferences: [{apiVersion: nodus.dev/v1, kind: Job, name: b-$SFX, uid: $uid}]" >/dev/null
        run -0 --separate-stderr kc delete nj "b-$SFX"
        assert_output "job.nodus.dev \"b-$SFX\" deleted"
        run -0 --separate-stderr kc wait nj "bc-$SFX" --for=delete --timeout=5s
    done
}

@test "wait --for=jsonpath: met at once, and met after a concurrent change" {
    for KV in $(kc_versions); do
        kc_use
        make_job "w-$SFX" >/dev/null
        run -0 --separate-stderr kc wait nj "w-$SFX" --for='jsonpath={.status.phase}=Queued' --timeout=5s
        assert_output "job.nodus.dev/w-$SFX condition met"
        start_waiter wait nj "w-$SFX" --for='jsonpath={.spec.state}=Suspended' --timeout=20s
    done
    wait_for_watches "$(wc -w <<<"$(kc_versions)")"
    for KV in $(kc_versions); do
        kc_use
        http PATCH "/apis/nodus.dev/v1/namespaces/default/jobs/w-$SFX" \
            '{"spec":{"state":"Suspended"}}' -H 'Content-Type: application/merge-patch+json'
        assert_equal "$CODE" 200
    done
    for KV in $(kc_versions); do
        kc_use
        join_waiter
        assert_equal "$status" 0
        assert_output "job.nodus.dev/w-$SFX condition met"
    done
}

@test "wait --for=delete: returns once a concurrent delete removes the object" {
    for KV in $(kc_versions); do
        kc_use
        make_job "wd-$SFX" >/dev/null
        start_waiter wait nj "wd-$SFX" --for=delete --timeout=20s
    done
    # The deletes come while every waiter is watching.
    wait_for_watches "$(wc -w <<<"$(kc_versions)")"
    for KV in $(kc_versions); do
        kc_use
        http DELETE "/apis/nodus.dev/v1/namespaces/default/jobs/wd-$SFX"
        assert_equal "$CODE" 200
    done
    for KV in $(kc_versions); do
        kc_use
        join_waiter
        assert_equal "$status" 0
        assert_output "job.nodus.dev/wd-$SFX condition met"
    done
}

@test "wait --for=condition=Ready --timeout=2s: times out, exit 1" {
    for KV in $(kc_versions); do
        kc_use
        make_job "wc-$SFX" >/dev/null
        start_waiter wait nj "wc-$SFX" --for=condition=Ready --timeout=2s
    done
    for KV in $(kc_versions); do
        kc_use
        join_waiter
        assert_equal "$status" 1
        assert_output "error: timed out waiting for the condition on jobs/wc-$SFX"
    done
}
