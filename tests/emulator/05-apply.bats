#!/usr/bin/env bats
# Server-side apply: create on PATCH, managedFields, conflicts, force.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs
APPLY=(-H 'Content-Type: application/apply-patch+yaml')
MERGE=(-H 'Content-Type: application/merge-patch+json')

@test "apply creates the object on PATCH and records the manager's fields" {
    http PATCH "$JOBS/ssa?fieldManager=alice" "$(job_json ssa)" "${APPLY[@]}"
    [ "$CODE" = 201 ]
    [ "$(body_json .metadata.name)" = ssa ]
    run body_json '.metadata.managedFields[0] | .manager + " " + .operation + " " + .fieldsType'
    assert_output "alice Apply FieldsV1"
    run body_json '.metadata.managedFields[0].fieldsV1["f:spec"] | keys | join(",")'
    assert_output "f:command,f:image,f:maxCostUSD"
}

@test "apply takes a YAML body" {
    http PATCH "$JOBS/ssa-yaml?fieldManager=alice" $'apiVersion: nodus.dev/v1\nkind: Job\nmetadata:\n  name: ssa-yaml\nspec:\n  image: nodus/pytorch:2.8-cuda12.8\n  maxCostUSD: "3.00"\n' "${APPLY[@]}"
    [ "$CODE" = 201 ]
    [ "$(body_json .spec.maxCostUSD)" = 3.00 ]
}

@test "re-applying the same configuration changes nothing" {
    http GET $JOBS/ssa
    local rv
    rv=$(body_json .metadata.resourceVersion)
    http PATCH "$JOBS/ssa?fieldManager=alice" "$(job_json ssa)" "${APPLY[@]}"
    [ "$CODE" = 200 ]
    [ "$(body_json .metadata.resourceVersion)" = "$rv" ]
}

@test "apply without fieldManager is BadRequest" {
    http PATCH "$JOBS/ssa" "$(job_json ssa)" "${APPLY[@]}"
    [ "$CODE" = 400 ]
    [[ "$(body_json .message)" == *"fieldManager is required"* ]]
}

@test "a field another manager changed conflicts, with one FieldManagerConflict cause" {
    http PATCH "$JOBS/ssa?fieldManager=bob" '{"spec":{"maxCostUSD":"60.00"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    http PATCH "$JOBS/ssa?fieldManager=alice" "$(job_json ssa '{"maxCostUSD":"70.00"}')" "${APPLY[@]}"
    [ "$CODE" = 409 ]
    [ "$(body_json .reason)" = Conflict ]
    [ "$(body_json .message)" = 'Apply failed with 1 conflict: conflict with "bob" using nodus.dev/v1: .spec.maxCostUSD' ]
    [ "$(body_json '.details.causes | length')" = 1 ]
    [ "$(body_json '.details.causes[0].reason')" = FieldManagerConflict ]
    [ "$(body_json '.details.causes[0].field')" = .spec.maxCostUSD ]
    http GET $JOBS/ssa
    [ "$(body_json .spec.maxCostUSD)" = 60.00 ]
}

@test "force=true takes the field over" {
    http PATCH "$JOBS/ssa?fieldManager=alice&force=true" "$(job_json ssa '{"maxCostUSD":"70.00"}')" "${APPLY[@]}"
    [ "$CODE" = 200 ]
    [ "$(body_json .spec.maxCostUSD)" = 70.00 ]
    run body_json '[.metadata.managedFields[] | select(.manager == "bob")] | length'
    assert_output 0
}

@test "a field dropped from the applied configuration is removed" {
    http PATCH "$JOBS/ssa-prune?fieldManager=alice" "$(job_json ssa-prune '{"maxDuration":"2h"}')" "${APPLY[@]}"
    [ "$CODE" = 201 ]
    [ "$(body_json .spec.maxDuration)" = 2h ]
    http PATCH "$JOBS/ssa-prune?fieldManager=alice" "$(job_json ssa-prune)" "${APPLY[@]}"
    [ "$CODE" = 200 ]
    [ "$(body_json .spec.maxDuration)" = null ]
}

@test "apply validates as create does, and refuses a stale body" {
    http PATCH "$JOBS/ssa-bad?fieldManager=alice" "$(job_json ssa-bad '{"maxCostUSD":"much"}')" "${APPLY[@]}"
    [ "$CODE" = 422 ]
    http GET $JOBS/ssa-bad
    [ "$CODE" = 404 ]
    http PATCH "$JOBS/ssa?fieldManager=alice" '{"metadata":{"name":"ssa"}}' "${APPLY[@]}"
    [ "$CODE" = 400 ]
}

@test "a resourceVersion in the applied configuration is a precondition" {
    http GET $JOBS/ssa
    local rv
    rv=$(body_json .metadata.resourceVersion)
    http PATCH "$JOBS/ssa?fieldManager=alice&force=true" \
        "$(job_json ssa '{"maxCostUSD":"70.00"}' | jq -c '.metadata.resourceVersion = "1"')" "${APPLY[@]}"
    [ "$CODE" = 409 ]
    [ "$(body_json .reason)" = Conflict ]
    http PATCH "$JOBS/ssa?fieldManager=alice&force=true" \
        "$(job_json ssa '{"maxCostUSD":"70.00"}' | jq -c --arg rv "$rv" '.metadata.resourceVersion = $rv')" "${APPLY[@]}"
    [ "$CODE" = 200 ]
}

@test "a state set by another client survives a re-apply of the same file" {
    http PATCH "$JOBS/keep-state?fieldManager=alice" "$(job_json keep-state)" "${APPLY[@]}"
    [ "$CODE" = 201 ]
    http PATCH "$JOBS/keep-state?fieldManager=nodus-suspend" '{"spec":{"state":"Suspended"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    http PATCH "$JOBS/keep-state?fieldManager=alice" "$(job_json keep-state)" "${APPLY[@]}"
    [ "$CODE" = 200 ]
    [ "$(body_json .spec.state)" = Suspended ]
}

@test "lists the server fills defaults into do not conflict with the same list applied again" {
    local p='{"apiVersion":"nodus.dev/v1","kind":"Pipeline","metadata":{"name":"lists"},"spec":{"maxCostUSD":"5.00","steps":[{"name":"a","job":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"1.00"}}]}}'
    http POST "/apis/nodus.dev/v1/namespaces/default/pipelines?fieldManager=kubectl-create" "$p"
    [ "$CODE" = 201 ]
    [ "$(body_json '.spec.steps[0].job.backoffLimit')" = 0 ]
    http PATCH "/apis/nodus.dev/v1/namespaces/default/pipelines/lists?fieldManager=alice" "$p" "${APPLY[@]}"
    [ "$CODE" = 200 ]
    # a different list still conflicts with its owner
    http PATCH "/apis/nodus.dev/v1/namespaces/default/pipelines/lists?fieldManager=bob" \
        "$(jq -c '.spec.steps[0].job.maxCostUSD = "2.00"' <<<"$p")" "${APPLY[@]}"
    [ "$CODE" = 409 ]
    [ "$(body_json '.details.causes[0].field')" = .spec.steps ]
}

@test "dryRun apply stores nothing" {
    http PATCH "$JOBS/ssa-dry?fieldManager=alice&dryRun=All" "$(job_json ssa-dry)" "${APPLY[@]}"
    [ "$CODE" = 201 ]
    http GET $JOBS/ssa-dry
    [ "$CODE" = 404 ]
}
