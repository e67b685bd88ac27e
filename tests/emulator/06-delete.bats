#!/usr/bin/env bats
# Delete: finalizers, deleting phases, propagation policies, collections, projects.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

NS=/apis/nodus.dev/v1/namespaces/default
JOBS=$NS/jobs
MERGE=(-H 'Content-Type: application/merge-patch+json')

owned_job() { # name owner-uid
    jq -cn --arg n "$1" --arg u "$2" \
        '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:{name:$n,ownerReferences:[{apiVersion:"nodus.dev/v1",kind:"Pipeline",name:"owner",uid:$u,controller:true}]},
          spec:{image:"nodus/pytorch:2.8-cuda12.8",maxCostUSD:"1.00"}}'
}

pipeline_json() {
    jq -cn --arg n "$1" '{apiVersion:"nodus.dev/v1",kind:"Pipeline",metadata:{name:$n},
        spec:{maxCostUSD:"5.00",steps:[{name:"a",job:{image:"nodus/pytorch:2.8-cuda12.8",maxCostUSD:"1.00"}}]}}'
}

@test "a Job that never ran goes at once: its billing finalizer has nothing to wait for" {
    http POST $JOBS "$(job_json gone)"
    [ "$(body_json '.metadata.finalizers[0]')" = nodus.dev/billing ]
    http DELETE $JOBS/gone
    [ "$CODE" = 200 ]
    [ "$(body_json .metadata.name)" = gone ]
    http GET $JOBS/gone
    [ "$CODE" = 404 ]
}

@test "a user finalizer holds the object in Cancelling with a deletionTimestamp" {
    http POST $JOBS "$(job_json held)"
    http PATCH $JOBS/held '{"metadata":{"finalizers":["example.com/hold","nodus.dev/billing"]}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    http DELETE $JOBS/held
    [ "$CODE" = 200 ]
    http GET $JOBS/held
    [ "$CODE" = 200 ]
    [ "$(body_json .status.phase)" = Cancelling ]
    [ "$(body_json .metadata.deletionTimestamp)" != null ]
    run body_json '.metadata.finalizers | join(",")'
    assert_output example.com/hold
}

@test "no new finalizer may be added while deleting; removing the last one removes the object" {
    http PATCH $JOBS/held '{"metadata":{"finalizers":["example.com/hold","example.com/more"]}}' "${MERGE[@]}"
    [ "$CODE" = 422 ]
    http PATCH $JOBS/held '{"metadata":{"finalizers":null}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    http GET $JOBS/held
    [ "$CODE" = 404 ]
}

@test "long-running kinds show Terminating while held" {
    http POST $NS/volumes '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"vt","finalizers":["example.com/hold"]},"spec":{"size":"1Gi"}}'
    [ "$CODE" = 201 ]
    http DELETE $NS/volumes/vt
    http GET $NS/volumes/vt
    [ "$(body_json .status.phase)" = Terminating ]
    http PATCH $NS/volumes/vt '{"metadata":{"finalizers":null}}' "${MERGE[@]}"
    http GET $NS/volumes/vt
    [ "$CODE" = 404 ]
}

@test "Background propagation deletes owned objects" {
    http POST $NS/pipelines "$(pipeline_json owner)"
    [ "$CODE" = 201 ]
    local uid
    uid=$(body_json .metadata.uid)
    http POST $JOBS "$(owned_job child-bg "$uid")"
    [ "$CODE" = 201 ]
    http DELETE $NS/pipelines/owner '{"propagationPolicy":"Background"}'
    [ "$CODE" = 200 ]
    http GET $JOBS/child-bg
    [ "$CODE" = 404 ]
}

@test "Orphan propagation keeps owned objects and takes their owner reference off" {
    http POST $NS/pipelines "$(pipeline_json owner)"
    local uid
    uid=$(body_json .metadata.uid)
    http POST $JOBS "$(owned_job child-orphan "$uid")"
    http DELETE "$NS/pipelines/owner?propagationPolicy=Orphan"
    [ "$CODE" = 200 ]
    http GET $NS/pipelines/owner
    [ "$CODE" = 404 ]
    http GET $JOBS/child-orphan
    [ "$CODE" = 200 ]
    [ "$(body_json .metadata.ownerReferences)" = null ]
}

@test "Foreground propagation removes owned objects before the owner" {
    http POST $NS/pipelines "$(pipeline_json owner)"
    local uid
    uid=$(body_json .metadata.uid)
    http POST $JOBS "$(owned_job child-fg "$uid")"
    http PATCH $JOBS/child-fg '{"metadata":{"finalizers":["example.com/hold"]}}' "${MERGE[@]}"
    http DELETE $NS/pipelines/owner '{"propagationPolicy":"Foreground"}'
    [ "$CODE" = 200 ]
    http GET $NS/pipelines/owner
    [ "$CODE" = 200 ]
    run body_json '.metadata.finalizers | join(",")'
    assert_output foregroundDeletion
    http PATCH $JOBS/child-fg '{"metadata":{"finalizers":null}}' "${MERGE[@]}"
    http GET $JOBS/child-fg
    [ "$CODE" = 404 ]
    http GET $NS/pipelines/owner
    [ "$CODE" = 404 ]
}

@test "dry-run delete changes nothing" {
    http POST $JOBS "$(job_json drydel)"
    http DELETE $JOBS/drydel '{"dryRun":["All"]}'
    [ "$CODE" = 200 ]
    http GET $JOBS/drydel
    [ "$CODE" = 200 ]
    [ "$(body_json .metadata.deletionTimestamp)" = null ]
    http DELETE "$JOBS/drydel?dryRun=All"
    http GET $JOBS/drydel
    [ "$CODE" = 200 ]
}

@test "preconditions guard a delete" {
    http DELETE $JOBS/drydel '{"preconditions":{"resourceVersion":"1"}}'
    [ "$CODE" = 409 ]
    [[ "$(body_json .message)" == "Precondition failed: ResourceVersion in precondition: 1,"* ]]
    http GET $JOBS/drydel
    [ "$CODE" = 200 ]
}

@test "bad delete options are BadRequest; a missing object NotFound" {
    http DELETE $JOBS/drydel '{"propagationPolicy":"Sideways"}'
    [ "$CODE" = 400 ]
    http DELETE $JOBS/never
    [ "$CODE" = 404 ]
}

@test "deletecollection deletes what the selector picks" {
    for n in c1 c2 c3; do
        http POST $JOBS "$(jq -cn --arg n $n '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:{name:$n,labels:{batch:"x"}},spec:{image:"nodus/pytorch:2.8-cuda12.8",maxCostUSD:"1.00"}}')"
    done
    http DELETE "$JOBS?labelSelector=batch%3Dx"
    [ "$CODE" = 200 ]
    [ "$(body_json '.items | length')" = 3 ]
    [ "$(body_json .kind)" = JobList ]
    http GET "$JOBS?labelSelector=batch%3Dx"
    [ "$(body_json '.items | length')" = 0 ]
    http GET $JOBS/drydel
    [ "$CODE" = 200 ]
}

@test "deleting a project deletes everything in it; default and nodus stay" {
    http POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"scratch"}}'
    [ "$CODE" = 201 ]
    http POST /apis/nodus.dev/v1/namespaces/scratch/jobs "$(job_json in-scratch)"
    [ "$CODE" = 201 ]
    http DELETE /api/v1/namespaces/scratch
    [ "$CODE" = 200 ]
    http GET /api/v1/namespaces/scratch
    [ "$CODE" = 404 ]
    http GET /apis/nodus.dev/v1/namespaces/scratch/jobs/in-scratch
    [ "$CODE" = 404 ]
    http DELETE /api/v1/namespaces/default
    [ "$CODE" = 403 ]
    http DELETE /api/v1/namespaces/nodus
    [ "$CODE" = 403 ]
}

@test "a project of 600 Volumes goes in the delete that empties it, with their Events" {
    # 600 Volumes and their Events: more changes than the history keeps trees of (1,024),
    # so the project's tree the deletion read its name from (and marked Terminating) is
    # dropped by the history midway; the store keeps it until the request ends (entry.h)
    http POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"many"}}'
    [ "$CODE" = 201 ]
    echo '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"v"},"spec":{"size":"1Gi"}}' \
        >"$BATS_TEST_TMPDIR/vol.json"
    post_copies "$(emu_url)/apis/nodus.dev/v1/namespaces/many/volumes" "$BATS_TEST_TMPDIR/vol.json" 600
    http GET '/api/v1/namespaces/many/events?limit=1'
    [ "$(body_json '.items | length')" = 1 ]
    http DELETE /api/v1/namespaces/many
    [ "$CODE" = 200 ]
    [ "$(body_json '.metadata.name')" = many ]
    http GET /api/v1/namespaces/many
    [ "$CODE" = 404 ]
    http GET /api/v1/namespaces/many/events
    [ "$(body_json '.items | length')" = 0 ]
    http GET /apis/nodus.dev/v1/namespaces/many/volumes
    [ "$(body_json '.items | length')" = 0 ]
}

@test "a deleted object gets a DELETED event in the journal" {
    run jq -r 'select(.object.metadata.name == "gone") | .type' "$EMU_STATE/history/journal.ndjson"
    assert_line DELETED
}
