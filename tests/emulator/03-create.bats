#!/usr/bin/env bats
# Create: object shape, server-set metadata, retries, idempotency keys, validation.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs

@test "create answers 201 with server-set metadata" {
    http POST $JOBS "$(job_json shape)" -H 'User-Agent: nodus/0.1'
    [ "$CODE" = 201 ]
    [[ "$(body_json .metadata.uid)" =~ ^job_[0-9a-z]{26}$ ]]
    [ "$(body_json .metadata.generation)" = 1 ]
    [[ "$(body_json .metadata.creationTimestamp)" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$ ]]
    [[ "$(body_json .metadata.resourceVersion)" =~ ^[0-9]+$ ]]
    body_is '.metadata.labels["nodus.dev/created-by"]' emulator-user \
        '.metadata.labels["nodus.dev/launched-by"]' cli \
        .metadata.namespace default \
        .status.phase Queued \
        .spec.state Running \
        '.metadata.finalizers[0]' nodus.dev/billing
}

@test "launched-by is read from the User-Agent" {
    local ua
    for pair in "kubectl/v1.33.0 (linux/amd64) kubernetes/abc:kubectl" "curl/7.88:api" \
        "nodus-sdk/1.0:sdk" "nodus-console/2:console" "nodus-mcp/1:mcp"; do
        ua=${pair%:*}
        http POST $JOBS "$(job_json "ua-${pair##*:}")" -H "User-Agent: $ua"
        [ "$CODE" = 201 ]
        [ "$(body_json '.metadata.labels["nodus.dev/launched-by"]')" = "${pair##*:}" ]
    done
}

@test "uid prefixes follow the kind" {
    http POST /apis/nodus.dev/v1/namespaces/default/volumes \
        '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"v1"},"spec":{"size":"10Gi"}}'
    [ "$CODE" = 201 ]
    [[ "$(body_json .metadata.uid)" =~ ^vol_ ]]
    http POST /apis/nodus.dev/v1/namespaces/default/pools \
        '{"apiVersion":"nodus.dev/v1","kind":"Pool","metadata":{"name":"lab"},"spec":{}}'
    [ "$CODE" = 201 ]
    [[ "$(body_json .metadata.uid)" =~ ^pool_ ]]
}

@test "the Pool gets every default of its reference" {
    http GET /apis/nodus.dev/v1/namespaces/default/pools/lab
    body_is .spec.routing.mode Prefer \
        .spec.routing.burstToMarket Approve \
        .spec.routing.waitPolicy Timeout \
        .spec.routing.waitTimeout 30m \
        .spec.predict.horizon 168h \
        .spec.act.mode Off
}

@test "the same create again answers 200 with the existing object" {
    http POST $JOBS "$(job_json retry)"
    [ "$CODE" = 201 ]
    local uid
    uid=$(body_json .metadata.uid)
    http POST $JOBS "$(job_json retry)"
    [ "$CODE" = 200 ]
    [ "$(body_json .metadata.uid)" = "$uid" ]
}

@test "a create with a different spec fails AlreadyExists with one cause per field" {
    http POST $JOBS "$(job_json retry '{"command":["python","other.py"],"maxCostUSD":"50.00"}')"
    [ "$CODE" = 409 ]
    body_is .reason AlreadyExists .message 'jobs.nodus.dev "retry" already exists'
    run body_json '[.details.causes[].field] | join(",")'
    assert_output "spec.command,spec.maxCostUSD"
}

@test "generateName needs an Idempotency-Key" {
    local obj='{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"generateName":"gen-"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"1.00"}}'
    http POST $JOBS "$obj"
    [ "$CODE" = 428 ]
    [ "$(body_json .reason)" = IdempotencyKeyRequired ]
    http POST $JOBS "$obj" -H 'Idempotency-Key: gen-key-1'
    [ "$CODE" = 201 ]
    [[ "$(body_json .metadata.name)" =~ ^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$ ]]
}

@test "a retry with the same key replays the first response byte for byte" {
    local obj='{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"generateName":"replay-"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"1.00"}}'
    http POST $JOBS "$obj" -H 'Idempotency-Key: replay-key'
    [ "$CODE" = 201 ]
    cp "$BODY" "$BATS_TEST_TMPDIR/first"
    [ -z "$(header Idempotent-Replayed)" ]
    http POST $JOBS "$obj" -H 'Idempotency-Key: replay-key'
    [ "$CODE" = 201 ]
    [ "$(header Idempotent-Replayed)" = true ]
    cmp "$BODY" "$BATS_TEST_TMPDIR/first"
    # only one object was created
    http GET "$JOBS"
    run body_json '[.items[].metadata.name | select(startswith("replay-"))] | length'
    assert_output 1
}

@test "the same key for a different request fails IdempotencyKeyReused" {
    http POST $JOBS "$(job_json keyed-a)" -H 'Idempotency-Key: shared-key'
    [ "$CODE" = 201 ]
    http POST $JOBS "$(job_json keyed-b)" -H 'Idempotency-Key: shared-key'
    [ "$CODE" = 422 ]
    [ "$(body_json .reason)" = IdempotencyKeyReused ]
    http GET $JOBS/keyed-b
    [ "$CODE" = 404 ]
}

@test "idempotency keys survive a restart" {
    http POST $JOBS "$(job_json keyed-c)" -H 'Idempotency-Key: durable-key'
    [ "$CODE" = 201 ]
    stop_emulator
    start_emulator
    http POST $JOBS "$(job_json keyed-c)" -H 'Idempotency-Key: durable-key'
    [ "$CODE" = 201 ]
    [ "$(header Idempotent-Replayed)" = true ]
}

@test "creating in a missing project is NotFound; in project nodus Forbidden" {
    http POST /apis/nodus.dev/v1/namespaces/nowhere/jobs "$(job_json x)"
    [ "$CODE" = 404 ]
    [ "$(body_json .message)" = 'namespaces "nowhere" not found' ]
    http POST /apis/nodus.dev/v1/namespaces/nodus/jobs "$(job_json x)"
    [ "$CODE" = 403 ]
    [ "$(body_json .reason)" = Forbidden ]
}

@test "validation failures are Invalid with one cause per field" {
    http POST $JOBS '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"bad"},"spec":{"resources":{"gpu":{"model":"H100","count":-1}}}}'
    [ "$CODE" = 422 ]
    [ "$(body_json .reason)" = Invalid ]
    run body_json '[.details.causes[] | .field + "=" + .reason] | sort | join(",")'
    assert_output "spec.image=FieldValueRequired,spec.maxCostUSD=FieldValueRequired,spec.resources.gpu.count=FieldValueInvalid"
    [[ "$(body_json .message)" == 'Job.nodus.dev "bad" is invalid: ['* ]]
}

@test "enums and Pool bounds are checked" {
    http POST /apis/nodus.dev/v1/namespaces/default/pools \
        '{"apiVersion":"nodus.dev/v1","kind":"Pool","metadata":{"name":"p2"},"spec":{"routing":{"mode":"Sometimes","waitTimeout":"30s"},"predict":{"horizon":"12h"}}}'
    [ "$CODE" = 422 ]
    run body_json '[.details.causes[] | .field + "=" + .reason] | sort | join(",")'
    assert_output "spec.predict.horizon=FieldValueInvalid,spec.routing.mode=FieldValueNotSupported,spec.routing.waitTimeout=FieldValueInvalid"
}

@test "an image outside the catalogue is Invalid" {
    http POST $JOBS "$(job_json noimage '{"image":"nodus/nope:1"}')"
    [ "$CODE" = 422 ]
    [ "$(body_json '.details.causes[0].field')" = spec.image ]
}

@test "labels under nodus.dev/ are reserved" {
    http POST $JOBS '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"reserved","labels":{"nodus.dev/created-by":"me"}},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"1.00"}}'
    [ "$CODE" = 422 ]
    [ "$(body_json '.details.causes[0].field')" = 'metadata.labels[nodus.dev/created-by]' ]
}

@test "fieldValidation: Strict fails, Warn warns, Ignore is silent" {
    local obj
    obj=$(job_json fv-strict '{"colour":"blue"}')
    http POST "$JOBS?fieldValidation=Strict" "$obj"
    [ "$CODE" = 422 ]
    [ "$(body_json '.details.causes[0].message')" = 'unknown field "spec.colour"' ]
    http POST "$JOBS?fieldValidation=Warn" "$(job_json fv-warn '{"colour":"blue"}')"
    [ "$CODE" = 201 ]
    [ "$(header Warning)" = '299 - "unknown field \"spec.colour\""' ]
    http POST "$JOBS" "$(job_json fv-default '{"colour":"blue"}')"
    [ "$CODE" = 201 ]
    [ -n "$(header Warning)" ]
    http POST "$JOBS?fieldValidation=Ignore" "$(job_json fv-ignore '{"colour":"blue"}')"
    [ "$CODE" = 201 ]
    [ -z "$(header Warning)" ]
    http POST "$JOBS?fieldValidation=Sometimes" "$(job_json fv-bad)"
    [ "$CODE" = 400 ]
}

@test "dryRun=All checks everything and stores nothing" {
    http POST "$JOBS?dryRun=All" "$(job_json dry)"
    [ "$CODE" = 201 ]
    body_is .metadata.name dry .spec.state Running
    http GET $JOBS/dry
    [ "$CODE" = 404 ]
    [ ! -e "$EMU_STATE/objects/default/jobs/dry.json" ]
    http POST "$JOBS?dryRun=All" "$(job_json dry-bad '{"maxCostUSD":"lots"}')"
    [ "$CODE" = 422 ]
    http POST "$JOBS?dryRun=Some" "$(job_json dry)"
    [ "$CODE" = 400 ]
}

@test "unknown fields are not kept, whatever the field validation" {
    http POST "$JOBS?fieldValidation=Warn" "$(job_json pruned '{"colour":"blue","resources":{"gpu":{"model":"L4","count":1,"speed":"fast"}}}')"
    [ "$CODE" = 201 ]
    body_is .spec.colour null .spec.resources.gpu.speed null .spec.resources.gpu.model L4
    wait_until [ -f "$EMU_STATE/objects/default/jobs/pruned.json" ] # written after the answer
    run jq -r '.spec.colour' "$EMU_STATE/objects/default/jobs/pruned.json"
    assert_output null
}

@test "a dry-run create answers an estimate and an ETag; If-Match holds the real create to it" {
    local obj
    obj=$(job_json reviewed '{"resources":{"gpu":{"model":"H100","count":2}},"maxDuration":"2h"}')
    http POST "$JOBS?dryRun=All" "$obj"
    [ "$CODE" = 201 ]
    body_is .status.estimate.rateUSDPerHour 4.98 .status.estimate.firstHoldUSD 4.98
    # the default run is 10 minutes: 4.98 * 10 / 60
    [ "$(body_json .status.estimate.expectedCostUSD)" = 0.83 ]
    [[ "$(body_json .status.estimate.startTime)" =~ Z$ ]]
    local etag
    etag=$(header ETag)
    [[ "$etag" =~ ^\"[0-9a-f]{16}-[0-9]+\"$ ]]
    # a different spec than the one reviewed fails PreconditionFailed
    http POST $JOBS "$(job_json reviewed '{"resources":{"gpu":{"model":"H100","count":4}},"maxDuration":"2h"}')" \
        -H "If-Match: $etag"
    [ "$CODE" = 412 ]
    [ "$(body_json .reason)" = PreconditionFailed ]
    http GET $JOBS/reviewed
    [ "$CODE" = 404 ]
    # the reviewed one goes ahead
    http POST $JOBS "$obj" -H "If-Match: $etag"
    [ "$CODE" = 201 ]
    # kinds without compute answer no estimate
    http POST "/apis/nodus.dev/v1/namespaces/default/volumes?dryRun=All" \
        '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"v"},"spec":{"size":"1Gi"}}'
    [ "$(body_json .status.estimate)" = null ]
}

@test "YAML bodies are accepted on create" {
    http POST $JOBS $'apiVersion: nodus.dev/v1\nkind: Job\nmetadata:\n  name: from-yaml\nspec:\n  image: nodus/pytorch:2.8-cuda12.8\n  maxCostUSD: "2.00"\n' \
        -H 'Content-Type: application/yaml'
    [ "$CODE" = 201 ]
    [ "$(body_json .spec.maxCostUSD)" = 2.00 ]
}

@test "malformed bodies and mismatched headers are BadRequest" {
    http POST $JOBS '{"apiVersion": "nodus.dev/v1", "kind": "Job", "metadata": {'
    [ "$CODE" = 400 ]
    [ "$(body_json .reason)" = BadRequest ]
    http POST $JOBS '{"apiVersion":"v2","kind":"Job","metadata":{"name":"x"}}'
    [ "$CODE" = 400 ]
    [[ "$(body_json .message)" == *"does not match the expected API version"* ]]
    http POST $JOBS '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"x","namespace":"other"}}'
    [ "$CODE" = 400 ]
    http POST $JOBS '[1,2]'
    [ "$CODE" = 400 ]
    http POST $JOBS '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"x","resourceVersion":"5"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"1"}}'
    [ "$CODE" = 400 ]
}

@test "read-only kinds refuse writes" {
    http POST /apis/nodus.dev/v1/namespaces/default/images '{"apiVersion":"nodus.dev/v1","kind":"Image","metadata":{"name":"mine"},"spec":{}}'
    [ "$CODE" = 405 ]
    http DELETE /apis/nodus.dev/v1/namespaces/default/images/pytorch
    [ "$CODE" = 405 ]
    # in project nodus every write is Forbidden first: the project is read-only
    http DELETE /apis/nodus.dev/v1/namespaces/nodus/images/pytorch
    [ "$CODE" = 403 ]
    [ "$(body_json .reason)" = Forbidden ]
}

@test "idempotency keys are forgotten after 24 hours of the emulator's clock" {
    http POST $JOBS "$(job_json keyed-d)" -H 'Idempotency-Key: short-lived'
    [ "$CODE" = 201 ]
    http POST /emulator/v1/clock '{"advance":"25h"}'
    http DELETE $JOBS/keyed-d
    http POST $JOBS "$(job_json keyed-d)" -H 'Idempotency-Key: short-lived'
    [ "$CODE" = 201 ]
    [ -z "$(header Idempotent-Replayed)" ]
}
