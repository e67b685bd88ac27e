#!/usr/bin/env bats
# Replace, merge patch, JSON patch, conditional writes, immutability, status subresource.

load ../lib/common

setup_file() {
    # no controller: these tests write status themselves, and the last one needs no
    # controller write between its own to show a status write's old use-after-free
    start_emulator --no-simulation
    EMU_URL=$(emu_url)
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        "$EMU_URL/apis/nodus.dev/v1/namespaces/default/jobs" -d "$(job_json upd)"
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs
MERGE=(-H 'Content-Type: application/merge-patch+json')
JSONP=(-H 'Content-Type: application/json-patch+json')

@test "a merge patch of a label bumps resourceVersion but not generation" {
    http GET $JOBS/upd
    local rv gen
    rv=$(body_json .metadata.resourceVersion)
    gen=$(body_json .metadata.generation)
    http PATCH $JOBS/upd '{"metadata":{"labels":{"team":"vision"}}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    [ "$(body_json .metadata.labels.team)" = vision ]
    [ "$(body_json .metadata.resourceVersion)" -gt "$rv" ]
    [ "$(body_json .metadata.generation)" = "$gen" ]
}

@test "a change to spec bumps generation" {
    http GET $JOBS/upd
    local gen
    gen=$(body_json .metadata.generation)
    http PATCH $JOBS/upd '{"spec":{"state":"Suspended"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    [ "$(body_json .spec.state)" = Suspended ]
    [ "$(body_json .metadata.generation)" = $((gen + 1)) ]
}

@test "a write that changes nothing keeps the resourceVersion" {
    http GET $JOBS/upd
    local rv
    rv=$(body_json .metadata.resourceVersion)
    http PATCH $JOBS/upd '{"metadata":{"labels":{"team":"vision"}}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    [ "$(body_json .metadata.resourceVersion)" = "$rv" ]
}

@test "a stale resourceVersion is a Conflict, in a PUT and inside a merge patch" {
    http GET $JOBS/upd
    jq '.metadata.resourceVersion = "1"' "$BODY" > "$BATS_TEST_TMPDIR/stale.json"
    http PUT $JOBS/upd "@$BATS_TEST_TMPDIR/stale.json"
    [ "$CODE" = 409 ]
    [ "$(body_json .reason)" = Conflict ]
    [[ "$(body_json .message)" == 'Operation cannot be fulfilled on jobs.nodus.dev "upd": the object has been modified'* ]]
    http PATCH $JOBS/upd '{"metadata":{"resourceVersion":"1","labels":{"x":"y"}}}' "${MERGE[@]}"
    [ "$CODE" = 409 ]
    http GET $JOBS/upd
    [ "$(body_json .metadata.labels.x)" = null ]
}

@test "a PUT with the current resourceVersion replaces the object" {
    http GET $JOBS/upd
    jq '.metadata.labels.replaced = "yes"' "$BODY" > "$BATS_TEST_TMPDIR/cur.json"
    http PUT $JOBS/upd "@$BATS_TEST_TMPDIR/cur.json"
    [ "$CODE" = 200 ]
    [ "$(body_json .metadata.labels.replaced)" = yes ]
    # server-set labels survive a PUT that leaves them out
    jq 'del(.metadata.labels["nodus.dev/created-by"]) | del(.metadata.resourceVersion)' "$BODY" \
        > "$BATS_TEST_TMPDIR/nolabel.json"
    http PUT $JOBS/upd "@$BATS_TEST_TMPDIR/nolabel.json"
    [ "$CODE" = 200 ]
    [ "$(body_json '.metadata.labels["nodus.dev/created-by"]')" = emulator-user ]
}

@test "a PUT to a missing object is NotFound; a name mismatch is BadRequest" {
    http PUT $JOBS/missing "$(job_json missing)"
    [ "$CODE" = 404 ]
    http PUT $JOBS/upd "$(job_json other)"
    [ "$CODE" = 400 ]
}

@test "changing immutable fields fails FieldImmutable with one cause per field" {
    http PATCH $JOBS/upd '{"spec":{"image":"nodus/cuda:12.8-runtime","command":["bash"]}}' "${MERGE[@]}"
    [ "$CODE" = 422 ]
    [ "$(body_json .reason)" = FieldImmutable ]
    run body_json '[.details.causes[].field] | sort | join(",")'
    assert_output "spec.command,spec.image"
    run body_json '.details.causes[0].message'
    assert_output --partial "field is immutable"
}

@test "raise-only fields may grow but not shrink" {
    http PATCH $JOBS/upd '{"spec":{"maxCostUSD":"80.00"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    http PATCH $JOBS/upd '{"spec":{"maxCostUSD":"10.00"}}' "${MERGE[@]}"
    [ "$CODE" = 422 ]
    [ "$(body_json '.details.causes[0].field')" = spec.maxCostUSD ]
}

@test "a JSON patch applies every operation, and a failed test changes nothing" {
    http PATCH $JOBS/upd '[{"op":"add","path":"/metadata/labels/tier","value":"gold"},{"op":"replace","path":"/spec/state","value":"Running"}]' "${JSONP[@]}"
    [ "$CODE" = 200 ]
    body_is .metadata.labels.tier gold .spec.state Running
    http PATCH $JOBS/upd '[{"op":"remove","path":"/metadata/labels/tier"},{"op":"test","path":"/spec/state","value":"Suspended"}]' "${JSONP[@]}"
    [ "$CODE" = 422 ]
    http GET $JOBS/upd
    [ "$(body_json .metadata.labels.tier)" = gold ]
    http PATCH $JOBS/upd '{"op":"add"}' "${JSONP[@]}"
    [ "$CODE" = 400 ]
}

@test "strategic merge patch and unknown patch types answer 415" {
    http PATCH $JOBS/upd '{"metadata":{"labels":{"a":"b"}}}' -H 'Content-Type: application/strategic-merge-patch+json'
    [ "$CODE" = 415 ]
    body_is .reason UnsupportedMediaType \
        .fix "jobs.nodus.dev takes a merge patch, a JSON patch or apply, as a custom resource does (not a strategic merge patch): nodus patch jobs.nodus.dev upd --type merge -p PATCH; kubectl patch --type merge"
    http PATCH $JOBS/upd '{}' -H 'Content-Type: text/plain'
    [ "$CODE" = 415 ]
}

@test "a strategic merge patch of a Namespace: the checks of a merge patch hold" {
    local SMP=(-H 'Content-Type: application/strategic-merge-patch+json') rv
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL/api/v1/namespaces" \
        -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"smp","labels":{"a":"1"}}}'
    http PATCH "/api/v1/namespaces/smp?fieldManager=smp-test" '{"metadata":{"labels":{"a":null,"b":"2"}}}' "${SMP[@]}"
    [ "$CODE" = 200 ]
    body_is '.metadata.labels | tojson' '{"kubernetes.io/metadata.name":"smp","b":"2"}' \
        '.metadata.managedFields[] | select(.manager == "smp-test") | .operation' Update
    rv=$(body_json .metadata.resourceVersion)
    # dry run: answered, not stored
    http PATCH "/api/v1/namespaces/smp?dryRun=All" '{"metadata":{"labels":{"c":"3"}}}' "${SMP[@]}"
    [ "$CODE" = 200 ]
    [ "$(body_json .metadata.labels.c)" = 3 ]
    http GET /api/v1/namespaces/smp
    [ "$(body_json .metadata.labels.c)" = null ]
    # a stale resourceVersion in the patch is a Conflict
    http PATCH /api/v1/namespaces/smp '{"metadata":{"resourceVersion":"1","labels":{"c":"3"}}}' "${SMP[@]}"
    [ "$CODE" = 409 ]
    # what may not change, may not change through this patch either
    http PATCH /api/v1/namespaces/smp '{"metadata":{"name":"other"}}' "${SMP[@]}"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "the name of the object (other) does not match the name on the URL (smp)" ]
    http PATCH /api/v1/namespaces/smp "{\"metadata\":{\"resourceVersion\":\"$rv\",\"labels\":{\"\$patch\":\"merge\"}}}" "${SMP[@]}"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = 'unknown patch type in map: {"$patch":"merge"}' ]
}

@test "a patch of a missing object is NotFound" {
    http PATCH $JOBS/nope '{"metadata":{"labels":{"a":"b"}}}' "${MERGE[@]}"
    [ "$CODE" = 404 ]
    [ "$(body_json .message)" = 'jobs.nodus.dev "nope" not found' ]
}

@test "status cannot be written through the main resource" {
    http PATCH $JOBS/upd '{"status":{"phase":"Succeeded"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    [ "$(body_json .status.phase)" = Queued ]
}

@test "the status subresource writes status only" {
    http PATCH $JOBS/upd/status '{"status":{"phase":"Running","costUSD":"1.25"},"spec":{"state":"Cancelled"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    body_is .status.phase Running .status.costUSD 1.25 .spec.state Running
    http GET $JOBS/upd/status
    [ "$CODE" = 200 ]
    [ "$(body_json .status.phase)" = Running ]
    http PATCH $JOBS/upd/status '{"status":{"phase":"Sleeping"}}' "${MERGE[@]}"
    [ "$CODE" = 422 ]
}

@test "a finished Job refuses a new state" {
    http PATCH $JOBS/upd/status '{"status":{"phase":"Succeeded"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    http PATCH $JOBS/upd '{"spec":{"state":"Suspended"}}' "${MERGE[@]}"
    [ "$CODE" = 422 ]
    body_is .reason Invalid '.details.causes[0].field' spec.state
}

@test "dryRun on patch changes nothing" {
    http GET $JOBS/upd
    local rv
    rv=$(body_json .metadata.resourceVersion)
    http PATCH "$JOBS/upd?dryRun=All" '{"metadata":{"labels":{"dry":"run"}}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    [ "$(body_json .metadata.labels.dry)" = run ]
    http GET $JOBS/upd
    body_is .metadata.labels.dry null .metadata.resourceVersion "$rv"
}

@test "every write records its manager in managedFields" {
    http PATCH "$JOBS/upd?fieldManager=tester" '{"metadata":{"labels":{"owner":"t"}}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    run body_json '.metadata.managedFields[] | select(.manager == "tester") | .operation'
    assert_output Update
    run body_json '.metadata.managedFields[] | select(.manager == "tester") | .fieldsV1["f:metadata"]["f:labels"] | keys | join(",")'
    assert_output "f:owner"
}

@test "status writes leave the stored object whole (no resourceVersion lands in managedFields)" {
    # A status write once kept a pointer to the metadata it had just replaced, and set
    # resourceVersion through it: into freed memory, often reused by managedFields.
    local i bad=0
    cd "$BATS_TEST_TMPDIR"
    for i in $(seq 1 20); do
        sed "s/name: train-a/name: st$i/" "$ND_ROOT/examples/job.yaml" >job.yaml
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/yaml' \
            "$(emu_url)$JOBS" --data-binary @job.yaml
        http GET "$JOBS/st$i"
        http PATCH "$JOBS/st$i?fieldManager=nodus-suspend" '{"spec":{"state":"Suspended"}}' \
            "${MERGE[@]}"
        http GET "$JOBS/st$i"
        http PATCH "$JOBS/st$i/status" '{"status":{"phase":"Succeeded"}}' "${MERGE[@]}"
        [ "$CODE" = 200 ]
        [ "$(body_json '[.. | objects | select(has("resourceVersion"))] | length')" = 1 ] ||
            bad=$((bad + 1))
        http GET "$JOBS/st$i"
        [ "$(body_json '[.. | objects | select(has("resourceVersion"))] | length')" = 1 ] ||
            bad=$((bad + 1))
    done
    [ "$bad" = 0 ]
}

@test "a Namespace keeps its kubernetes.io/metadata.name label through every update, as kube-apiserver keeps it" {
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL/api/v1/namespaces" \
        -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"keeps","labels":{"x":"1"}}}'
    http PATCH /api/v1/namespaces/keeps '{"metadata":{"labels":null}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    assert_equal "$(body_json ".metadata.labels | tojson")" '{"kubernetes.io/metadata.name":"keeps"}'
    http PUT /api/v1/namespaces/keeps '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"keeps","labels":{"y":"2"}}}'
    [ "$CODE" = 200 ]
    assert_equal "$(body_json ".metadata.labels | tojson")" '{"y":"2","kubernetes.io/metadata.name":"keeps"}'
}
