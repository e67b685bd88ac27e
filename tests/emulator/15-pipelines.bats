#!/usr/bin/env bats
# Pipelines: steps run as owned, labelled Jobs in dependency order; a failed step fails
# the Pipeline; state, maxCostUSD, Budgets; deletion cascades (Background, Foreground)
# or orphans. Driven by the emulated clock only.

load ../lib/common

API=/apis/nodus.dev/v1
NS=$API/namespaces/default
MERGE=(-H 'Content-Type: application/merge-patch+json')
IMAGE=nodus/pytorch:2.8-cuda12.8

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

advance() {
    http POST /emulator/v1/clock "{\"advance\":\"$1\"}"
    [ "$CODE" = 200 ]
}

# pipeline NAME STEPS-JSON [ANNOTATIONS-JSON] [EXTRA-SPEC-JSON] [LABELS-JSON] [PROJECT]
pipeline() {
    local empty='{}'
    http POST "$API/namespaces/${6:-default}/pipelines" \
        "$(jq -cn --arg n "$1" --argjson s "$2" --argjson a "${3:-$empty}" --argjson x "${4:-$empty}" \
            --argjson l "${5:-$empty}" \
            '{apiVersion:"nodus.dev/v1",kind:"Pipeline",metadata:{name:$n,labels:$l,annotations:$a},spec:({steps:$s} + $x)}')"
}

# step NAME [DEPENDS-ON-CSV] [GPU-MODEL]
step() {
    jq -cn --arg n "$1" --arg d "${2:-}" --arg g "${3:-}" --arg i "$IMAGE" \
        '{name:$n,dependsOn:($d | split(",") | map(select(. != ""))),
          job:({image:$i,maxCostUSD:"10.00"} + (if $g == "" then {} else {resources:{gpu:{model:$g,count:1}}} end))}'
}

steps() {
    local out='[]' s
    for s in "$@"; do out=$(jq -c --argjson s "$s" '. + [$s]' <<<"$out"); done
    echo "$out"
}

get() {
    http GET "$NS/$1"
    [ "$CODE" = 200 ]
}

phase_of() {
    http GET "$NS/$1"
    body_json .status.phase
}

@test "a 3-step graph runs in dependency order, each step an owned, labelled Job" {
    pipeline nightly "$(steps "$(step prep "" L4)" "$(step train prep H100)" "$(step eval train L4)")" \
        '{"emulator.nodus.dev/duration":"5m","emulator.nodus.dev/train.duration":"20m"}' \
        '{"maxCostUSD":"120.00"}' '{"app":"ml"}'
    [ "$CODE" = 201 ]
    local uid
    uid=$(body_json .metadata.uid)
    advance 1s
    get jobs/nightly-prep
    body_is .metadata.labels.app ml \
        '.metadata.labels["nodus.dev/pipeline"]' nightly \
        '.metadata.labels["nodus.dev/pipeline-step"]' prep \
        '.metadata.ownerReferences | length' 1 \
        '.metadata.ownerReferences[0] | [.kind, .name, .uid, .controller, .blockOwnerDeletion] | map(tostring) | join(" ")' "Pipeline nightly $uid true true" \
        '.metadata.annotations["emulator.nodus.dev/duration"]' 5m \
        '.metadata.finalizers | join(",")' nodus.dev/billing \
        .spec.resources.gpu.model L4
    http GET "$NS/jobs/nightly-train"
    [ "$CODE" = 404 ]
    get pipelines/nightly
    body_is .status.phase Provisioning \
        '[.status.steps[] | .name + "=" + .phase + "=" + (.job // "")] | join(" ")' "prep=Queued=nightly-prep train=Pending= eval=Pending="
    advance 6m
    [ "$(phase_of jobs/nightly-prep)" = Succeeded ]
    get jobs/nightly-train
    [ "$(body_json '.metadata.annotations["emulator.nodus.dev/duration"]')" = 20m ]
    http GET "$NS/jobs/nightly-eval"
    [ "$CODE" = 404 ]
    get pipelines/nightly
    [ "$(body_json .status.phase)" = Running ]
    [ "$(body_json .status.startTime)" != null ]
    advance 21m
    [ "$(phase_of jobs/nightly-train)" = Succeeded ]
    local train_done
    train_done=$(body_json .status.completionTime)
    get jobs/nightly-eval
    [[ "$(body_json .metadata.creationTimestamp)" > "$train_done" || "$(body_json .metadata.creationTimestamp)" = "$train_done" ]]
    advance 6m
    get pipelines/nightly
    body_is .status.phase Succeeded \
        '[.status.steps[] | .phase] | join(",")' Succeeded,Succeeded,Succeeded
    [ "$(body_json .status.completionTime)" != null ]
    # its cost is the sum of its Jobs': 5m of L4, 20m of H100, 5m of L4
    [ "$(body_json .status.costUSD)" = 0.895 ]
    run nodus --server "$(emu_url)" get pipelines nightly --no-headers
    assert_success
    [[ "$output" == "nightly   Running   Succeeded   3/3   \$0.90   "* ]]
}

@test "a failed step fails the Pipeline, cancels the running steps and never creates the rest" {
    pipeline broken "$(steps "$(step a)" "$(step b)" "$(step c a,b)")" \
        '{"emulator.nodus.dev/duration":"10m","emulator.nodus.dev/b.fail-at":"1m","emulator.nodus.dev/b.exit-code":"3"}'
    [ "$CODE" = 201 ]
    advance 2m
    get pipelines/broken
    body_is .status.phase Failed \
        .status.reason StepFailed \
        .status.message "step b failed: the command failed" \
        '[.status.steps[] | .name + "=" + .phase] | join(" ")' "a=Cancelled b=Failed c=Cancelled"
    get jobs/broken-b
    [ "$(body_json .status.exitCode)" = 3 ]
    get jobs/broken-a
    body_is .spec.state Cancelled .status.phase Cancelled
    http GET "$NS/jobs/broken-c"
    [ "$CODE" = 404 ]
    http GET /api/v1/namespaces/default/events
    [ "$(jq -r '.items[] | select(.involvedObject.name == "broken" and .reason == "StepFailed") | .type + ": " + .message' "$BODY")" = "Warning: step b failed: the command failed" ]
    # a finished Pipeline refuses a new state
    http PATCH "$NS/pipelines/broken" '{"spec":{"state":"Suspended"}}' "${MERGE[@]}"
    [ "$CODE" = 422 ]
}

@test "a dependency cycle is Invalid, naming the cycle" {
    pipeline loop "$(steps "$(step a b)" "$(step b a)")"
    [ "$CODE" = 422 ]
    body_is .reason Invalid \
        '.details.causes[0].field' 'spec.steps[1].dependsOn[0]' \
        '.details.causes[0].message' 'Invalid value: "a": dependency cycle: a -> b -> a'
    http GET "$NS/pipelines/loop"
    [ "$CODE" = 404 ]
}

@test "Suspended suspends the running steps and starts none; Running resumes them; Cancelled cancels" {
    pipeline pause "$(steps "$(step one "" H100)" "$(step two one)")" \
        '{"emulator.nodus.dev/duration":"30m"}'
    [ "$CODE" = 201 ]
    advance 5m
    [ "$(phase_of jobs/pause-one)" = Running ]
    http PATCH "$NS/pipelines/pause" '{"spec":{"state":"Suspended"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    advance 1s
    get jobs/pause-one
    body_is .spec.state Suspended .status.phase Queued
    local cost
    cost=$(body_json .status.costUSD)
    get pipelines/pause
    body_is .status.phase Queued \
        '.status.conditions[] | select(.type == "Suspended") | .status' True
    advance 1h
    get jobs/pause-one
    [ "$(body_json .status.costUSD)" = "$cost" ]
    http GET "$NS/jobs/pause-two"
    [ "$CODE" = 404 ]
    http PATCH "$NS/pipelines/pause" '{"spec":{"state":"Running"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    advance 1m
    get jobs/pause-one
    body_is .spec.state Running .status.phase Running
    get pipelines/pause
    body_is .status.phase Running \
        '.status.conditions[] | select(.type == "Suspended") | .status' False
    http PATCH "$NS/pipelines/pause" '{"spec":{"state":"Cancelled"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    advance 1s
    get pipelines/pause
    body_is .status.phase Cancelled '[.status.steps[] | .phase] | join(",")' Cancelled,Cancelled
    get jobs/pause-one
    body_is .spec.state Cancelled .status.phase Cancelled
}

@test "the sum of its Jobs' costs reaching maxCostUSD fails it with MaxCostReached" {
    pipeline capped "$(steps "$(step x "" H100)" "$(step y "" H100)" "$(step z x,y)")" \
        '{"emulator.nodus.dev/duration":"1h"}' '{"maxCostUSD":"1.00"}'
    [ "$CODE" = 201 ]
    advance 1h
    get pipelines/capped
    body_is .status.phase Failed .status.reason MaxCostReached
    # both steps ran 12m3s at $2.49/h when their sum reached $1.00
    [ "$(body_json .status.costUSD)" = 1.00 ]
    [ "$(phase_of jobs/capped-x)" = Cancelled ]
    [ "$(phase_of jobs/capped-y)" = Cancelled ]
    http GET "$NS/jobs/capped-z"
    [ "$CODE" = 404 ]
}

@test "a Budget that blocks a step's launch fails the Pipeline with BudgetExceeded" {
    http POST /api/v1/namespaces '{"metadata":{"name":"pipe-budget"}}'
    http POST "$API/namespaces/pipe-budget/budgets" \
        '{"apiVersion":"nodus.dev/v1","kind":"Budget","metadata":{"name":"cap"},"spec":{"limitUSD":"3.00","period":"Total"}}'
    [ "$CODE" = 201 ]
    pipeline spendy "$(steps "$(step a "" H100)" "$(step b a H100)")" \
        '{"emulator.nodus.dev/duration":"1h"}' '{}' '{}' pipe-budget
    [ "$CODE" = 201 ]
    advance 2h
    http GET "$API/namespaces/pipe-budget/pipelines/spendy"
    body_is .status.phase Failed \
        .status.reason BudgetExceeded \
        .status.message 'step b was not started: budget "cap" would be exceeded: $2.49 of its $3.00 limit is spent in total and launching job "spendy-b" holds $2.49 first'
    http GET "$API/namespaces/pipe-budget/jobs/spendy-b"
    [ "$CODE" = 404 ]
}

@test "a Budget with Suspend suspends a Pipeline in scope and its running step" {
    http POST /api/v1/namespaces '{"metadata":{"name":"pipe-susp"}}'
    http POST "$API/namespaces/pipe-susp/budgets" \
        '{"apiVersion":"nodus.dev/v1","kind":"Budget","metadata":{"name":"cap"},"spec":{"limitUSD":"1.00","action":"Suspend","selector":{"matchLabels":{"team":"a"}}}}'
    [ "$CODE" = 201 ]
    pipeline held "$(steps "$(step a "" H100)")" '{"emulator.nodus.dev/duration":"2h"}' '{}' \
        '{"team":"a"}' pipe-susp
    [ "$CODE" = 201 ]
    advance 1h
    http GET "$API/namespaces/pipe-susp/pipelines/held"
    body_is .spec.state Suspended .status.phase Queued
    http GET "$API/namespaces/pipe-susp/jobs/held-a"
    body_is .spec.state Suspended .status.phase Queued
}

@test "deleting a Pipeline deletes its Jobs (Background)" {
    pipeline bg "$(steps "$(step a "" L4)" "$(step b "" L4)")" '{"emulator.nodus.dev/duration":"1h"}'
    advance 1m
    [ "$(phase_of jobs/bg-a)" = Running ]
    http DELETE "$NS/pipelines/bg"
    [ "$CODE" = 200 ]
    http GET "$NS/pipelines/bg"
    [ "$CODE" = 404 ]
    get jobs/bg-a
    [ "$(body_json .status.phase)" = Cancelling ]
    [ "$(body_json .metadata.deletionTimestamp)" != null ]
    advance 1m
    http GET "$NS/jobs/bg-a"
    [ "$CODE" = 404 ]
    http GET "$NS/jobs/bg-b"
    [ "$CODE" = 404 ]
}

@test "with Foreground the Pipeline stays until its Jobs are gone" {
    pipeline fg "$(steps "$(step a "" L4)")" '{"emulator.nodus.dev/duration":"1h"}'
    advance 1m
    http DELETE "$NS/pipelines/fg?propagationPolicy=Foreground"
    [ "$CODE" = 200 ]
    get pipelines/fg
    body_is '.metadata.finalizers | join(",")' foregroundDeletion .status.phase Cancelling
    get jobs/fg-a
    [ "$(body_json .metadata.deletionTimestamp)" != null ]
    advance 1m
    http GET "$NS/jobs/fg-a"
    [ "$CODE" = 404 ]
    http GET "$NS/pipelines/fg"
    [ "$CODE" = 404 ]
}

@test "with Orphan (nodus delete --cascade=orphan) the Jobs stay, unowned, and keep running" {
    pipeline orphan "$(steps "$(step a "" L4)" "$(step b a)")" '{"emulator.nodus.dev/duration":"1h"}'
    advance 1m
    run nodus --server "$(emu_url)" delete pipeline orphan --cascade=orphan
    assert_success
    assert_output 'pipeline.nodus.dev "orphan" deleted'
    http GET "$NS/pipelines/orphan"
    [ "$CODE" = 404 ]
    advance 1m
    get jobs/orphan-a
    body_is .metadata.ownerReferences null \
        .metadata.deletionTimestamp null \
        .status.phase Running \
        '.metadata.labels["nodus.dev/pipeline"]' orphan
    advance 1h
    [ "$(phase_of jobs/orphan-a)" = Succeeded ]
    # nothing creates the next step any more
    http GET "$NS/jobs/orphan-b"
    [ "$CODE" = 404 ]
}

@test "the emulator stops cleanly, with no sanitizer report (under make asan)" {
    stop_emulator
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/emulator.err"
    [ "$status" -eq 1 ]
}
