#!/usr/bin/env bats
# Conformance: the rules of writes a client relies on (docs/conformance.md).
# create by name retried, AlreadyExists with the differences, resourceVersion conflicts,
# FieldImmutable, dry run with an estimate and ETag / If-Match, Idempotency-Key.

load conformance

setup() { conf_setup; }
teardown() { conf_teardown; }

@test "create by name: 201, then the same spec again is 200 with the same object" {
    api POST $NS/volumes "$(volume_json data)"
    expect_code 201
    local uid created
    uid=$(jb .metadata.uid)
    created=$(jb .metadata.creationTimestamp)
    [ -n "$uid" ] && [ "$uid" != null ]
    api POST $NS/volumes "$(volume_json data)"
    expect_code 200
    expect_eq uid "$uid" "$(jb .metadata.uid)"
    expect_eq creationTimestamp "$created" "$(jb .metadata.creationTimestamp)"
    api GET $NS/volumes
    expect_code 200
    expect_eq "objects in the project" 1 "$(jb '.items | length')"
}

@test "create by name with a different spec: AlreadyExists 409, one cause per differing field" {
    api POST $NS/volumes "$(volume_json data 1Gi)"
    expect_code 201
    api POST $NS/volumes '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"data"},"spec":{"size":"2Gi","accessMode":"ReadWriteMany"}}'
    expect_status 409 AlreadyExists
    expect_eq "details.causes[].field" "spec.accessMode,spec.size" \
        "$(jb '[.details.causes[].field] | sort | join(",")')"
    expect_eq details.name data "$(jb .details.name)"
}

@test "a stale resourceVersion on replace and on merge patch is Conflict 409" {
    api POST $NS/volumes "$(volume_json data)"
    expect_code 201
    local stale
    stale=$(jb .metadata.resourceVersion)
    api PATCH $NS/volumes/data '{"metadata":{"labels":{"step":"one"}}}' "${MERGE[@]}"
    expect_code 200
    local now
    now=$(jb .metadata.resourceVersion)
    [ "$now" != "$stale" ] || { echo "a label change did not change resourceVersion ($now)" >&2; false; }
    # PUT with the resourceVersion read before the change
    local body
    body=$(jq -c --arg rv "$stale" '.metadata.resourceVersion = $rv | .metadata.labels.step = "two"' "$BODY")
    api PUT $NS/volumes/data "$body"
    expect_status 409 Conflict
    # a merge patch that carries the stale resourceVersion
    api PATCH $NS/volumes/data "{\"metadata\":{\"resourceVersion\":\"$stale\",\"labels\":{\"step\":\"three\"}}}" "${MERGE[@]}"
    expect_status 409 Conflict
    # nothing changed; with the current resourceVersion the write goes through
    api GET $NS/volumes/data
    expect_code 200
    expect_eq labels.step one "$(jb .metadata.labels.step)"
    api PATCH $NS/volumes/data "{\"metadata\":{\"resourceVersion\":\"$now\",\"labels\":{\"step\":\"four\"}}}" "${MERGE[@]}"
    expect_code 200
    expect_eq labels.step four "$(jb .metadata.labels.step)"
}

@test "changing an immutable field is FieldImmutable 422 with one cause per field" {
    api POST $NS/volumes "$(volume_json data)"
    expect_code 201
    api PATCH $NS/volumes/data '{"spec":{"accessMode":"ReadWriteMany"}}' "${MERGE[@]}"
    expect_status 422 FieldImmutable
    expect_eq "details.causes[].field" spec.accessMode "$(jb '[.details.causes[].field] | join(",")')"
    # a Job: two immutable fields, two causes
    api POST $NS/jobs "$(job_json train)"
    expect_code 201
    api PATCH $NS/jobs/train '{"spec":{"command":["bash"],"args":["-c","true"]}}' "${MERGE[@]}"
    expect_status 422 FieldImmutable
    expect_eq "details.causes[].field" "spec.args,spec.command" \
        "$(jb '[.details.causes[].field] | sort | join(",")')"
    # a mutable field (a raise of size) goes through
    api PATCH $NS/volumes/data '{"spec":{"size":"2Gi"}}' "${MERGE[@]}"
    expect_code 200
}

@test "a server dry run answers an estimate and an ETag, and stores nothing" {
    api POST "$NS/jobs?dryRun=All" "$(job_json reviewed)"
    [ "$CODE" = 200 ] || [ "$CODE" = 201 ] || { expect_code 201; }
    local field
    for field in rateUSDPerHour expectedCostUSD firstHoldUSD startTime; do
        [ -n "$(jb ".status.estimate.$field // empty")" ] ||
            { echo "status.estimate.$field is missing" >&2; seen; false; }
    done
    [[ "$(jb .status.estimate.expectedCostUSD)" =~ ^[0-9]+\.[0-9]+$ ]] ||
        { echo "expectedCostUSD is not a decimal string" >&2; seen; false; }
    [ -n "$(hdr ETag)" ] || { echo "no ETag header on the dry run" >&2; cat "$HDRS" >&2; false; }
    api GET $NS/jobs/reviewed
    expect_status 404 NotFound
}

@test "If-Match with the dry run's ETag: the reviewed spec is created, a changed one is PreconditionFailed 412" {
    api POST "$NS/jobs?dryRun=All" "$(job_json reviewed)"
    local etag
    etag=$(hdr ETag)
    [ -n "$etag" ] || { echo "no ETag header on the dry run" >&2; seen; false; }
    api POST $NS/jobs "$(job_json reviewed '{"maxCostUSD":"2.00"}')" -H "If-Match: $etag"
    expect_status 412 PreconditionFailed
    api GET $NS/jobs/reviewed
    expect_code 404
    api POST $NS/jobs "$(job_json reviewed)" -H "If-Match: $etag"
    expect_code 201
    expect_eq spec.maxCostUSD 1.00 "$(jb .spec.maxCostUSD)"
}

@test "Idempotency-Key: the same key and body replay the first answer with Idempotent-Replayed: true" {
    local key="conf-$P-replay"
    local obj='{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"generateName":"gen-"},"spec":{"size":"1Gi"}}'
    api POST $NS/volumes "$obj"
    expect_status 428 IdempotencyKeyRequired
    api POST $NS/volumes "$obj" -H "Idempotency-Key: $key"
    expect_code 201
    cp "$BODY" "$BATS_TEST_TMPDIR/first"
    [ -z "$(hdr Idempotent-Replayed)" ] || { echo "a first answer says it was replayed" >&2; false; }
    api POST $NS/volumes "$obj" -H "Idempotency-Key: $key"
    expect_code 201
    expect_eq "Idempotent-Replayed header" true "$(hdr Idempotent-Replayed)"
    cmp "$BATS_TEST_TMPDIR/first" "$BODY" || { echo "the replay differs from the first answer" >&2; false; }
    api GET $NS/volumes
    expect_code 200
    expect_eq "objects created" 1 "$(jb '.items | length')"
}

@test "Idempotency-Key reused with a different body is IdempotencyKeyReused 422 and writes nothing" {
    local key="conf-$P-reuse"
    api POST $NS/volumes "$(volume_json first)" -H "Idempotency-Key: $key"
    expect_code 201
    api POST $NS/volumes "$(volume_json second)" -H "Idempotency-Key: $key"
    expect_status 422 IdempotencyKeyReused
    api GET $NS/volumes/second
    expect_code 404
}
