#!/usr/bin/env bats
# Conformance: delete with finalizers (deletionTimestamp, the object stays until they
# clear) and cascade over ownerReferences (Background, Foreground, Orphan).

load conformance

setup() { conf_setup; }
teardown() { conf_teardown; }

HOLD='{"finalizers":["example.com/hold"]}'

# owned NAME OWNER-NAME OWNER-UID: a Volume owned by another Volume
owned() {
    volume_json "$1" 1Gi "$(jq -cn --arg n "$2" --arg u "$3" \
        '{ownerReferences:[{apiVersion:"nodus.dev/v1",kind:"Volume",name:$n,uid:$u}]}')"
}

@test "a finalizer holds a deleted object: deletionTimestamp set, Terminating, gone once it clears" {
    api POST $NS/volumes "$(volume_json held 1Gi "$HOLD")"
    expect_code 201
    api DELETE $NS/volumes/held
    [ "$CODE" = 200 ] || [ "$CODE" = 202 ] || expect_code 200
    api GET $NS/volumes/held
    expect_code 200
    [ -n "$(jb '.metadata.deletionTimestamp // empty')" ] ||
        { echo "no metadata.deletionTimestamp while a finalizer holds the object" >&2; seen; false; }
    expect_eq status.phase Terminating "$(jb .status.phase)"
    expect_eq "finalizers still there" true "$(jb '.metadata.finalizers | index("example.com/hold") != null')"
    # the object stays while the finalizer is there (read it again)
    api GET $NS/volumes/held
    expect_code 200
    # a client clears its finalizer: the object goes
    api PATCH $NS/volumes/held '{"metadata":{"finalizers":null}}' "${MERGE[@]}"
    [ "$CODE" = 200 ] || [ "$CODE" = 404 ] || expect_code 200
    poll_until 10 gone $NS/volumes/held || { echo "the object stayed after its finalizers cleared" >&2; seen; false; }
}

@test "a Job being deleted shows Cancelling while a finalizer holds it" {
    api POST $NS/jobs "$(job_json held)"
    expect_code 201
    api PATCH $NS/jobs/held '{"metadata":{"finalizers":["example.com/hold"]}}' "${MERGE[@]}"
    expect_code 200
    api DELETE $NS/jobs/held
    api GET $NS/jobs/held
    expect_code 200
    expect_eq status.phase Cancelling "$(jb .status.phase)"
    [ -n "$(jb '.metadata.deletionTimestamp // empty')" ] || { echo "no deletionTimestamp" >&2; seen; false; }
    api PATCH $NS/jobs/held '{"metadata":{"finalizers":null}}' "${MERGE[@]}"
    # the Job never ran, so what Nodus itself tracks (billing) has nothing to wait for
    poll_until 15 gone $NS/jobs/held || { echo "the Job stayed after its finalizers cleared" >&2; seen; false; }
}

@test "Background propagation deletes what the object owns" {
    api POST $NS/volumes "$(volume_json owner)"
    expect_code 201
    local uid
    uid=$(jb .metadata.uid)
    api POST $NS/volumes "$(owned child owner "$uid")"
    expect_code 201
    api DELETE $NS/volumes/owner '{"propagationPolicy":"Background"}'
    [ "$CODE" = 200 ] || [ "$CODE" = 202 ] || expect_code 200
    poll_until 10 gone $NS/volumes/owner || { echo "the owner stayed" >&2; seen; false; }
    poll_until 10 gone $NS/volumes/child || { echo "the owned object stayed" >&2; seen; false; }
}

@test "Foreground propagation: the owner stays (foregroundDeletion) until what it owns is gone" {
    api POST $NS/volumes "$(volume_json owner)"
    local uid
    uid=$(jb .metadata.uid)
    api POST $NS/volumes "$(owned child owner "$uid" | jq -c '.metadata.finalizers = ["example.com/hold"]')"
    expect_code 201
    api DELETE $NS/volumes/owner '{"propagationPolicy":"Foreground"}'
    [ "$CODE" = 200 ] || [ "$CODE" = 202 ] || expect_code 200
    api GET $NS/volumes/owner
    expect_code 200
    [ -n "$(jb '.metadata.deletionTimestamp // empty')" ] || { echo "no deletionTimestamp on the owner" >&2; seen; false; }
    expect_eq "owner finalizers" true "$(jb '.metadata.finalizers | index("foregroundDeletion") != null')"
    api GET $NS/volumes/child
    expect_code 200
    [ -n "$(jb '.metadata.deletionTimestamp // empty')" ] || { echo "the owned object is not being deleted" >&2; seen; false; }
    api PATCH $NS/volumes/child '{"metadata":{"finalizers":null}}' "${MERGE[@]}"
    poll_until 10 gone $NS/volumes/child || { echo "the owned object stayed" >&2; seen; false; }
    poll_until 10 gone $NS/volumes/owner || { echo "the owner stayed after what it owns went" >&2; seen; false; }
}

@test "Orphan propagation keeps what the object owned, without the owner reference" {
    api POST $NS/volumes "$(volume_json owner)"
    local uid
    uid=$(jb .metadata.uid)
    api POST $NS/volumes "$(owned child owner "$uid")"
    expect_code 201
    api DELETE "$NS/volumes/owner?propagationPolicy=Orphan"
    [ "$CODE" = 200 ] || [ "$CODE" = 202 ] || expect_code 200
    poll_until 10 gone $NS/volumes/owner || { echo "the owner stayed" >&2; seen; false; }
    api GET $NS/volumes/child
    expect_code 200
    expect_eq "owner references of $uid left" 0 \
        "$(jb --arg u "$uid" '[.metadata.ownerReferences // [] | .[] | select(.uid == $u)] | length')"
    [ -z "$(jb '.metadata.deletionTimestamp // empty')" ] || { echo "the orphan is being deleted" >&2; seen; false; }
}

@test "a stale precondition guards a delete (Conflict 409)" {
    api POST $NS/volumes "$(volume_json guarded)"
    expect_code 201
    api DELETE $NS/volumes/guarded '{"preconditions":{"resourceVersion":"1"}}'
    expect_status 409 Conflict
    api GET $NS/volumes/guarded
    expect_code 200
}
