#!/usr/bin/env bats
# The flat-JSON store: one file per object, atomic writes, reload, broken files, reset.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs

@test "each object is one pretty-printed JSON file under objects/<project>/<plural>/" {
    http POST $JOBS "$(job_json store-a)"
    [ "$CODE" = 201 ]
    local f=$EMU_STATE/objects/default/jobs/store-a.json
    # the answer waits for the journal; the file follows within moments
    wait_until [ -f "$f" ]
    run jq -r '.metadata.name + " " + .kind + " " + .metadata.uid' "$f"
    assert_output --regexp '^store-a Job job_[0-9a-z]{26}$'
    # pretty-printed, keys in Kubernetes order
    run head -n 3 "$f"
    assert_line --index 0 '{'
    assert_line --index 1 '  "apiVersion": "nodus.dev/v1",'
    assert_line --index 2 '  "kind": "Job",'
    # no temporary files left behind
    run ls "$EMU_STATE/objects/default/jobs"
    refute_output --partial tmp
}

@test "projects and the image catalogue are files too" {
    [ -f "$EMU_STATE/objects/_cluster/namespaces/default.json" ]
    [ -f "$EMU_STATE/objects/_cluster/namespaces/nodus.json" ]
    [ -f "$EMU_STATE/objects/nodus/images/pytorch.json" ]
}

@test "a deleted object's file is removed" {
    http POST $JOBS "$(job_json store-b)"
    wait_until [ -f "$EMU_STATE/objects/default/jobs/store-b.json" ]
    http DELETE $JOBS/store-b
    [ "$CODE" = 200 ]
    wait_until [ ! -e "$EMU_STATE/objects/default/jobs/store-b.json" ]
}

@test "the journal is kept under history/" {
    [ -s "$EMU_STATE/history/journal.ndjson" ]
    run jq -r 'select(.object.metadata.name == "store-a") | .type' "$EMU_STATE/history/journal.ndjson"
    assert_line ADDED
}

@test "a restart loads every object and continues the revision counter" {
    http GET $JOBS/store-a
    local rv_before uid_before
    rv_before=$(body_json .metadata.resourceVersion)
    uid_before=$(body_json .metadata.uid)
    stop_emulator
    start_emulator
    http GET $JOBS/store-a
    [ "$CODE" = 200 ]
    [ "$(body_json .metadata.uid)" = "$uid_before" ]
    http POST $JOBS "$(job_json store-c)"
    [ "$(body_json .metadata.resourceVersion)" -gt "$rv_before" ]
}

@test "a hand-edited valid file is taken as it is; a broken one is reported and left untouched" {
    stop_emulator
    jq '.metadata.labels.edited = "by-hand"' "$EMU_STATE/objects/default/jobs/store-a.json" \
        > "$BATS_TEST_TMPDIR/a" && mv "$BATS_TEST_TMPDIR/a" "$EMU_STATE/objects/default/jobs/store-a.json"
    printf '{"apiVersion": "nodus.dev/v1", "kind": "Job", "metadata": {' \
        > "$EMU_STATE/objects/default/jobs/broken.json"
    cp "$EMU_STATE/objects/default/jobs/broken.json" "$BATS_TEST_TMPDIR/broken.orig"
    start_emulator
    run cat "$BATS_FILE_TMPDIR/emulator.err"
    assert_output --partial "objects/default/jobs/broken.json"
    assert_output --partial "left untouched"
    http GET $JOBS/store-a
    [ "$(body_json .metadata.labels.edited)" = by-hand ]
    http GET $JOBS/broken
    [ "$CODE" = 404 ]
    # a create of that name is refused: the broken file is never overwritten
    http POST $JOBS "$(job_json broken)"
    [ "$CODE" = 500 ]
    [ "$(body_json .reason)" = InternalError ]
    assert_equal "$(body_json .message)" "the state file $EMU_STATE/objects/default/jobs/broken.json is broken and was left untouched"
    cmp "$EMU_STATE/objects/default/jobs/broken.json" "$BATS_TEST_TMPDIR/broken.orig"
    rm "$EMU_STATE/objects/default/jobs/broken.json"
}

@test "names are DNS labels before they touch a path" {
    http GET "$JOBS/..%2F..%2Fetc"
    [ "$CODE" = 404 ]
    http POST $JOBS "$(job_json ../../escape)"
    [ "$CODE" = 422 ]
    [ "$(body_json .reason)" = Invalid ]
    [ "$(body_json '.details.causes[0].field')" = metadata.name ]
    http GET "/apis/nodus.dev/v1/namespaces/Bad_NS/jobs"
    [ "$CODE" = 404 ]
    [ ! -e "$EMU_STATE/escape.json" ]
    run find "$EMU_STATE" -name '*escape*'
    assert_output ""
}

@test "--reset empties the state directory first" {
    stop_emulator
    start_emulator --reset
    http GET $JOBS/store-a
    [ "$CODE" = 404 ]
    http GET /api/v1/namespaces/default
    [ "$CODE" = 200 ]
}

@test "--reset on a directory another emulator owns removes nothing" {
    http POST $JOBS "$(job_json keep-me)"
    [ "$CODE" = 201 ]
    run -1 nodus-emulator --state "$EMU_STATE" --listen 127.0.0.1:0 --reset --quiet
    assert_output --partial "in use by another emulator"
    wait_until [ -f "$EMU_STATE/objects/default/jobs/keep-me.json" ]
    http GET $JOBS/keep-me
    [ "$CODE" = 200 ]
}

@test "--fsync batch still writes every object file" {
    stop_emulator
    start_emulator --fsync batch
    http POST $JOBS "$(job_json batch-a)"
    [ "$CODE" = 201 ]
    stop_emulator
    [ -f "$EMU_STATE/objects/default/jobs/batch-a.json" ]
    start_emulator
}

@test "--seed applies the manifests of a directory before the emulator is ready" {
    local seed=$BATS_TEST_TMPDIR/seed
    mkdir -p "$seed"
    cat >"$seed/a-volume.yaml" <<'YAML'
apiVersion: nodus.dev/v1
kind: Volume
metadata:
  name: seeded-data
spec:
  size: 10Gi
---
apiVersion: v1
kind: Namespace
metadata:
  name: seeded
YAML
    printf '%s\n' "$(job_json seeded-job)" >"$seed/b-job.json"
    stop_emulator
    start_emulator --reset --seed "$seed"
    http GET /apis/nodus.dev/v1/namespaces/default/volumes/seeded-data
    [ "$CODE" = 200 ]
    http GET /apis/nodus.dev/v1/namespaces/default/jobs/seeded-job
    [ "$CODE" = 200 ]
    http GET /api/v1/namespaces/seeded
    [ "$CODE" = 200 ]
    # a later start with the same seed keeps what changed since (the seed fills an empty
    # state directory only)
    http PATCH /apis/nodus.dev/v1/namespaces/default/jobs/seeded-job '{"spec":{"maxCostUSD":"99.00"}}' \
        -H 'Content-Type: application/merge-patch+json'
    [ "$CODE" = 200 ]
    stop_emulator
    start_emulator --seed "$seed"
    http GET /apis/nodus.dev/v1/namespaces/default/jobs/seeded-job
    [ "$(body_json .spec.maxCostUSD)" = 99.00 ]
}

@test "a --seed manifest that fails validation stops the start with its path" {
    local seed=$BATS_TEST_TMPDIR/badseed
    mkdir -p "$seed"
    printf 'apiVersion: nodus.dev/v1\nkind: Job\nmetadata:\n  name: nope\nspec: {}\n' >"$seed/job.yaml"
    run -1 nodus-emulator --state "$BATS_TEST_TMPDIR/s2" --listen 127.0.0.1:0 --seed "$seed" --quiet
    assert_output --partial "$seed/job.yaml: document 1"
    assert_output --partial "Required value"
}
