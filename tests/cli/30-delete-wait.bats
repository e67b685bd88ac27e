#!/usr/bin/env bats
# nodus delete (by name, kind/name, -f, -l, --all, cascades, waiting by watching,
# finalizers, --timeout, --wait=false, --ignore-not-found, -o name) and nodus wait
# (--for=jsonpath, condition, delete, create; an object that ends Failed) against the
# emulator, with the exit codes of cli.md. Concurrent writers run in the background with
# fd 3 closed.

load ../lib/common
load fixtures/write
load ../lib/watch

bats_require_minimum_version 1.5.0

FIX=$BATS_TEST_DIRNAME/fixtures/write

setup_file() {
    write_setup_file --no-simulation # its waits watch conditions the tests write
}

teardown_file() {
    stop_emulator
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

new_job() {
    emu POST "$API/jobs" "$(job_yaml "$@")" application/yaml
}

# A Job with a user finalizer: deleting it leaves it Cancelling until the finalizer goes.
held_job() {
    emu POST "$API/jobs" "$(job_json "$1" | jq -c '.metadata.finalizers = ["example.com/hold"]')"
}

release() {
    emu PATCH "$API/jobs/$1" '{"metadata":{"finalizers":null}}' application/merge-patch+json
}

# owner NAME: a Pipeline; owned NAME OWNER: a Job that the Pipeline owns (as a step's).
owner() {
    emu POST "$API/pipelines" "$(jq -cn --arg n "$1" '{apiVersion:"nodus.dev/v1",kind:"Pipeline",
        metadata:{name:$n},spec:{maxCostUSD:"20.00",steps:[{name:"prep",
        job:{image:"nodus/pytorch:2.8-cuda12.8",maxCostUSD:"10.00"}}]}}')"
}

owned() {
    local uid
    uid=$(nodus get pipeline "$2" -o jsonpath='{.metadata.uid}')
    emu POST "$API/jobs" "$(job_json "$1" | jq -c --arg o "$2" --arg u "$uid" \
        '.metadata.ownerReferences = [{apiVersion:"nodus.dev/v1",kind:"Pipeline",name:$o,
                                       uid:$u,controller:true}]')"
}

# Runs "$@" in the background once the waiter started next is watching: the emulator has
# registered one more watch.
later() {
    local n
    n=$(watches_total)
    (wait_until watches_at_least $((n + 1)) && "$@" >/dev/null) 3>&- &
}

@test "delete KIND NAME and KIND/NAME: deleted, and gone when it returns" {
    new_job d1
    new_job d2
    run --separate-stderr -0 nodus delete job d1
    assert_output 'job.nodus.dev "d1" deleted'
    [ -z "$stderr" ]
    run -3 nodus get job d1
    run --separate-stderr -0 nodus delete job/d2 -o name
    assert_output "job.nodus.dev/d2"
    run -3 nodus get job d2
}

@test "delete several names; a missing one is exit 3, or nothing with --ignore-not-found" {
    new_job d3
    run --separate-stderr -3 nodus delete job d3 nope
    assert_output 'job.nodus.dev "d3" deleted'
    [ "${stderr_lines[0]}" = 'Error from server (NotFound): jobs.nodus.dev "nope" not found' ]
    run -3 nodus get job d3
    run --separate-stderr -3 nodus delete job nope
    assert_output ""
    run --separate-stderr -0 nodus delete job nope --ignore-not-found
    assert_output ""
    [ -z "$stderr" ]
}

@test "delete -f: the objects of manifests; kubectl's context on errors" {
    run -0 nodus create -f "$FIX/list.json"
    run --separate-stderr -0 nodus delete -f "$FIX/list.json"
    assert_output 'job.nodus.dev "list-job" deleted
volume.nodus.dev "list-vol" deleted'
    run -3 nodus get volume list-vol
    cp "$FIX/list.json" .
    run --separate-stderr -3 nodus delete -f list.json
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (NotFound): error when deleting "list.json": jobs.nodus.dev "list-job" not found' ]
    run --separate-stderr -0 nodus delete -f list.json --ignore-not-found
    assert_output ""
}

@test "delete --field-selector; an empty selector or value deletes nothing (a script's empty variable)" {
    new_job fs1 40.00 fsel
    new_job fs2 40.00 fsel
    local v
    for v in va-fs vb-fs; do
        emu POST "$API/volumes" "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"$v\"},\"spec\":{\"size\":\"1Gi\"}}"
    done
    run --separate-stderr -0 nodus delete volumes --field-selector metadata.name=va-fs -o name
    assert_output "volume.nodus.dev/va-fs"
    # refused before anything is listed, with the server's words for a collection write
    run --separate-stderr -2 nodus delete volumes --field-selector metadata.name!=
    assert_output ""
    assert_equal "${stderr%%$'\n'*}" "error: invalid selector: 'metadata.name!='; 'metadata.name!=' has no value: 'not empty' selects (nearly) every object, which is what a script's empty variable would ask (at character 14)"
    run --separate-stderr -2 nodus delete jobs -l app=fsel --field-selector status.phase=
    assert_equal "${stderr%%$'\n'*}" "error: invalid selector: 'status.phase='; 'status.phase=' has an empty value, refused in a collection write: a missing field or label reads as empty, so a script's empty variable would choose what is deleted (at character 13)"
    run --separate-stderr -2 nodus delete jobs -l app=
    [[ $stderr == *"app has an empty value, refused in a collection write"* ]]
    for sel in "-l=" "--field-selector="; do
        run --separate-stderr -2 nodus delete volumes "$sel"
        assert_equal "${stderr%%$'\n'*}" "error: an empty selector selects every object (use --all to delete every one)"
    done
    run -0 nodus get volumes vb-fs -o name
    assert_output "volume.nodus.dev/vb-fs"
    run -0 nodus get jobs -l app=fsel -o name
    assert_output "job.nodus.dev/fs1
job.nodus.dev/fs2"
    # (the next test counts every Volume and Job)
    run -0 nodus delete volumes --field-selector metadata.name=vb-fs -o name
    assert_output "volume.nodus.dev/vb-fs"
    run -0 nodus delete jobs -l app=fsel -o name
    assert_output "job.nodus.dev/fs1
job.nodus.dev/fs2"
}

@test "delete -l and --all" {
    new_job dl1 40.00 gone
    new_job dl2 40.00 gone
    new_job dl3 40.00 stays
    run --separate-stderr -0 nodus delete jobs -l app=gone
    assert_output 'job.nodus.dev "dl1" deleted
job.nodus.dev "dl2" deleted'
    run -0 nodus get jobs -l 'app in (gone,stays)' -o name
    assert_output "job.nodus.dev/dl3"
    run --separate-stderr -0 nodus delete jobs -l app=none
    assert_output ""
    [ "$stderr" = "No resources found" ]
    emu POST "$API/volumes" '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"va"},"spec":{"size":"1Gi"}}'
    emu POST "$API/volumes" '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"vb"},"spec":{"size":"1Gi"}}'
    run --separate-stderr -0 nodus delete volumes --all -o name
    assert_output "volume.nodus.dev/va
volume.nodus.dev/vb"
    run --separate-stderr -0 nodus get volumes
    [ "$stderr" = "No resources found in default namespace." ]
    # a kind without a name, -l or --all is a usage error
    run --separate-stderr -2 nodus delete jobs
    assert_output ""
    run -0 nodus get job dl3 -o name
}

# delete NAMES on a terminal (script gives one; fd 4 types the answer once it is asked)
# ANSWER: its output on the terminal in tty, its standard output in stdout; DELETE_RC.
delete_on_tty() {
    local answer=$1
    shift
    rm -f tty stdout in
    mkfifo in
    script -qfec "nodus delete $* >stdout" tty <in >/dev/null 2>&1 3>&- &
    local pid=$!
    exec 4>in
    wait_for_line tty 'Delete [0-9]+ objects\? \[y/N\] '
    printf '%s\r' "$answer" >&4
    DELETE_RC=0
    wait "$pid" || DELETE_RC=$?
    exec 4>&-
}

@test "delete of several names on a terminal asks first, on stderr; only y or yes deletes" {
    new_job dp1
    new_job dp2
    delete_on_tty n job dp1 dp2
    [ "$DELETE_RC" = 1 ]
    run -0 grep -ac 'Delete 2 objects? \[y/N\] ' tty
    assert_output 1
    run -0 grep -ac 'Nothing deleted\.' tty
    assert_output 1
    [ ! -s stdout ] # the question is not output
    run -0 nodus get job dp1 dp2 -o name
    assert_output 'job.nodus.dev/dp1
job.nodus.dev/dp2'
    delete_on_tty yup job dp1 dp2
    [ "$DELETE_RC" = 1 ]
    run -0 grep -ac 'Nothing deleted\.' tty
    delete_on_tty YES job dp1 dp2
    [ "$DELETE_RC" = 0 ]
    run -1 grep -ac 'Nothing deleted' tty
    assert_output 0
    run -0 cat stdout
    assert_output 'job.nodus.dev "dp1" deleted
job.nodus.dev "dp2" deleted'
}

@test "delete --dry-run=server and client change nothing" {
    new_job dd1
    run --separate-stderr -0 nodus delete job dd1 --dry-run=server
    assert_output 'job.nodus.dev "dd1" deleted (server dry run)'
    run --separate-stderr -0 nodus delete job dd1 --dry-run=client
    assert_output 'job.nodus.dev "dd1" deleted (dry run)'
    run -0 nodus get job dd1 -o jsonpath='{.metadata.deletionTimestamp}'
    assert_output ""
}

@test "delete --cascade=orphan keeps the owned Job, without its ownerReference" {
    owner po
    owned po-step po
    run -0 nodus get job po-step -o jsonpath='{.metadata.ownerReferences[0].name}'
    assert_output "po"
    run --separate-stderr -0 nodus delete pipeline po --cascade=orphan
    assert_output 'pipeline.nodus.dev "po" deleted'
    run -3 nodus get pipeline po
    run -0 nodus get job po-step -o json
    run jq -r '.metadata.ownerReferences' <<<"$output"
    assert_output "null"
}

@test "delete (background, the default) deletes the owned Job too" {
    owner pb
    owned pb-step pb
    run -0 nodus delete pipeline pb
    assert_output 'pipeline.nodus.dev "pb" deleted'
    run -3 nodus get pipeline pb
    run -3 nodus get job pb-step
}

@test "delete --cascade=foreground waits for the owned Job, then the owner goes" {
    owner pf
    owned pf-step pf
    emu PATCH "$API/jobs/pf-step" '{"metadata":{"finalizers":["example.com/hold"]}}' \
        application/merge-patch+json
    nodus delete pipeline pf --cascade=foreground --timeout=20s >out 2>err 3>&- &
    local pid=$!
    # the owner waits with foregroundDeletion while its Job is held
    pf_held() {
        [ "$(nodus get pipeline pf -o jsonpath='{.metadata.finalizers}')" = '["foregroundDeletion"]' ]
    }
    wait_until pf_held || true # the checks below say what is wrong
    run -0 nodus get job pf-step -o jsonpath='{.status.phase}'
    assert_output "Cancelling"
    run -0 nodus get pipeline pf -o jsonpath='{.metadata.finalizers}'
    assert_output '["foregroundDeletion"]'
    release pf-step
    wait "$pid"
    [ "$(cat out)" = 'pipeline.nodus.dev "pf" deleted' ]
    [ ! -s err ]
    run -3 nodus get pipeline pf
    run -3 nodus get job pf-step
}

@test "delete --cascade=foreground of an owner whose Job goes at once returns" {
    owner pg
    owned pg-step pg
    run -0 --separate-stderr nodus delete pipeline pg --cascade=foreground --timeout=3s
    assert_output 'pipeline.nodus.dev "pg" deleted'
    run -3 nodus get pipeline pg
    run -3 nodus get job pg-step
}

@test "delete waits by watching: a held object times out (exit 6); --wait=false returns" {
    held_job h1
    run --separate-stderr -6 nodus delete job h1 --timeout=1s
    assert_output 'job.nodus.dev "h1" deleted'
    [ "${stderr_lines[0]}" = "error: timed out waiting for the deletion of jobs.nodus.dev/h1" ]
    run -0 nodus get job h1 -o jsonpath='{.status.phase}'
    assert_output "Cancelling"
    held_job h2
    local t0=$SECONDS
    run --separate-stderr -0 nodus delete job h2 --wait=false
    assert_output 'job.nodus.dev "h2" deleted'
    [ $((SECONDS - t0)) -le 1 ]
    run -0 nodus get job h2
    [[ "${lines[1]}" == "h2 "*" Cancelling "* ]]
    # the waiter returns as soon as the finalizer goes
    later release h2
    run --separate-stderr -0 nodus delete job h2 --timeout=10s
    run -3 nodus get job h2
    release h1
    run -3 nodus get job h1
}

@test "wait --for=jsonpath: a value that is already met" {
    new_job w1
    run --separate-stderr -0 nodus wait job/w1 --for=jsonpath='{.status.phase}'=Queued
    assert_output "job.nodus.dev/w1 condition met"
    [ -z "$stderr" ]
    run --separate-stderr -0 nodus wait job w1 --for=jsonpath='{.spec.maxCostUSD}'=40.00 --timeout=1s
    assert_output "job.nodus.dev/w1 condition met"
}

@test "wait --for=jsonpath: met by a change made while waiting" {
    new_job w2
    later set_phase jobs w2 Running
    run --separate-stderr -0 nodus wait job/w2 --for=jsonpath='{.status.phase}'=Running --timeout=10s
    assert_output "job.nodus.dev/w2 condition met"
}

@test "wait --for=condition=Ready --timeout=1s: exit 6 with the message" {
    new_job w3
    local t0=$SECONDS
    run --separate-stderr -6 nodus wait job/w3 --for=condition=Ready --timeout=1s
    assert_output ""
    [ "${stderr_lines[0]}" = "error: timed out waiting for the condition on jobs.nodus.dev/w3" ]
    [ $((SECONDS - t0)) -le 3 ]
}

@test "wait --for=condition: met when the condition is set" {
    new_job w4
    later emu PATCH "$API/jobs/w4/status" \
        '{"status":{"conditions":[{"type":"Ready","status":"True","reason":"Started","message":"up","lastTransitionTime":"2025-01-01T00:00:00Z"}]}}' \
        application/merge-patch+json
    run --separate-stderr -0 nodus wait job/w4 --for=condition=Ready --timeout=10s
    assert_output "job.nodus.dev/w4 condition met"
    run --separate-stderr -6 nodus wait job/w4 --for=condition=Ready=False --timeout=1s
    assert_output ""
}

@test "wait --for=delete: with a concurrent delete (exit 0); an absent object is met" {
    new_job w5
    later nodus delete job w5 --wait=false
    run --separate-stderr -0 nodus wait job/w5 --for=delete --timeout=10s
    assert_output "job.nodus.dev/w5 condition met"
    run -3 nodus get job w5
    run --separate-stderr -0 nodus wait job/w5 --for=delete --timeout=1s
}

@test "wait --for=create: with a concurrent create" {
    job_yaml w6 >w6.yaml
    later nodus create -f w6.yaml
    run --separate-stderr -0 nodus wait job/w6 --for=create --timeout=10s
    assert_output "job.nodus.dev/w6 condition met"
    run -0 nodus get job w6 -o name
}

@test "wait: a Job that ends Failed never meets Succeeded (exit 1, ended Failed)" {
    new_job w7
    later set_phase jobs w7 Failed
    run --separate-stderr -1 nodus wait job/w7 --for=jsonpath='{.status.phase}'=Succeeded --timeout=10s
    assert_output ""
    [ "$stderr" = "error: job.nodus.dev/w7 ended Failed without meeting the condition
fix: it will not run again; see why it ended: nodus describe job/w7 -n default" ]
    # and already ended: at once, with the condition as it ended
    run --separate-stderr -1 nodus wait job/w7 --for=condition=Ready --timeout=10s
    [ "${stderr_lines[0]}" = "error: job.nodus.dev/w7 ended Failed without meeting the condition: it has no condition Ready" ]
}

@test "wait: a missing object is NotFound (exit 3); usage errors are exit 2" {
    run --separate-stderr -3 nodus wait job/nope --for=jsonpath='{.status.phase}'=Queued --timeout=5s
    assert_output ""
    [ "$stderr" = 'Error from server (NotFound): jobs.nodus.dev "nope" not found' ]
    run --separate-stderr -2 nodus wait job/nope
    assert_output ""
    [[ "${stderr_lines[0]}" == "error: --for must be set" ]]
    run --separate-stderr -2 nodus wait job/nope --for=sometimes
    assert_output ""
    run --separate-stderr -2 nodus wait jobs --for=delete
    assert_output ""
}

@test "wait -l: every object the selector matches" {
    new_job wl1 40.00 wl
    new_job wl2 40.00 wl
    run --separate-stderr -0 nodus wait jobs -l app=wl --for=jsonpath='{.status.phase}'=Queued --timeout=5s
    assert_output "job.nodus.dev/wl1 condition met
job.nodus.dev/wl2 condition met"
}
