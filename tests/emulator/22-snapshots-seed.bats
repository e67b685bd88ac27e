#!/usr/bin/env bats
# Snapshots of the whole state, and --seed with manifests and a state tree.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs
SNAP=/emulator/v1/snapshots

clock_ms() {
    curl -sf "$(emu_url)/emulator/v1/clock" | jq .nowMs
}

@test "a snapshot saves every object; a restore brings them back and the clock with them" {
    http POST $JOBS "$(job_json keep)"
    http POST $SNAP/before {}
    [ "$CODE" = 201 ]
    [ "$(body_json .name)" = before ]
    local at
    at=$(clock_ms)
    clock_advance 1h
    http POST $JOBS "$(job_json extra)"
    http DELETE $JOBS/keep
    clock_advance 1m
    http GET $JOBS/keep
    [ "$CODE" = 404 ]
    http POST $SNAP/before/restore {}
    [ "$CODE" = 200 ]
    http GET $JOBS/keep
    [ "$CODE" = 200 ]
    [ "$(body_json .status.phase)" = Queued ]
    http GET $JOBS/extra
    [ "$CODE" = 404 ]
    [ "$(clock_ms)" = "$at" ]
}

@test "watchers see a restore as events, with resourceVersions that only grow" {
    http POST $JOBS "$(job_json w1)"
    http POST $SNAP/two {}
    http DELETE $JOBS/w1
    clock_advance 1m
    http POST $JOBS "$(job_json w2)"
    http GET "$JOBS?limit=1"
    local rv n
    rv=$(body_json .metadata.resourceVersion)
    n=$(watches_total)
    curl -sN "$(emu_url)$JOBS?watch=true&resourceVersion=$rv&timeoutSeconds=2" >"$BATS_TEST_TMPDIR/w" 3>&- &
    local pid=$!
    wait_until watches_at_least $((n + 1))
    http POST $SNAP/two/restore {}
    [ "$CODE" = 200 ]
    wait $pid || true
    run jq -r 'select(.object.metadata.name == "w1" or .object.metadata.name == "w2") | .type + " " + .object.metadata.name' "$BATS_TEST_TMPDIR/w"
    assert_line "DELETED w2"
    assert_line "ADDED w1"
    run jq -s --argjson rv "$rv" '[.[].object.metadata.resourceVersion | tonumber] | all(. > $rv)' "$BATS_TEST_TMPDIR/w"
    assert_output true
}

@test "snapshots are listed by name and can be deleted; bad names and missing ones are refused" {
    http POST $SNAP/zeta {}
    http POST $SNAP/alpha {}
    http GET $SNAP
    [ "$CODE" = 200 ]
    run body_json '[.items[].name] | join(",")'
    assert_output --partial "alpha,before,two,zeta"
    http POST $SNAP/alpha {}
    [ "$CODE" = 200 ] # replaced
    http DELETE $SNAP/zeta
    [ "$CODE" = 200 ]
    http POST $SNAP/zeta/restore {}
    [ "$CODE" = 404 ]
    [ "$(body_json .reason)" = NotFound ]
    http POST "$SNAP/Bad_Name" {}
    [ "$CODE" = 422 ]
    [ "$(body_json .reason)" = Invalid ]
    http PUT $SNAP/alpha
    [ "$CODE" = 405 ]
}

@test "a snapshot keeps the files and logs trees" {
    mkdir -p "$EMU_STATE/files/default/sandboxes/box"
    echo one >"$EMU_STATE/files/default/sandboxes/box/a.txt"
    http POST $SNAP/files {}
    echo two >"$EMU_STATE/files/default/sandboxes/box/a.txt"
    echo new >"$EMU_STATE/files/default/sandboxes/box/b.txt"
    http POST $SNAP/files/restore {}
    [ "$CODE" = 200 ]
    [ "$(cat "$EMU_STATE/files/default/sandboxes/box/a.txt")" = one ]
    [ ! -e "$EMU_STATE/files/default/sandboxes/box/b.txt" ]
}

@test "--seed applies manifests and a state tree before /readyz says ok; a later start keeps changes" {
    local seed=$BATS_TEST_TMPDIR/seed state=$BATS_TEST_TMPDIR/state port
    mkdir -p "$seed/objects/default/jobs" "$seed/files/default/volumes/data"
    job_json from-tree | jq '.metadata.namespace = "default" | .metadata.uid = "job_01jseedtree0000000000000000" |
        .metadata.resourceVersion = "1" | .metadata.creationTimestamp = "2026-01-01T00:00:00Z" |
        .metadata.generation = 1 | .status = {phase: "Queued"}' >"$seed/objects/default/jobs/from-tree.json"
    echo hello >"$seed/files/default/volumes/data/readme"
    cat >"$seed/10-jobs.yaml" <<'YAML'
apiVersion: nodus.dev/v1
kind: Job
metadata:
  name: from-manifest
spec:
  image: nodus/pytorch:2.8-cuda12.8
  maxCostUSD: "5.00"
YAML
    nodus-emulator --state "$state" --listen 127.0.0.1:0 --port-file "$BATS_TEST_TMPDIR/port" \
        --fsync never --quiet --speed 0 --seed "$seed" >"$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
    local pid=$!
    wait_until test -s "$BATS_TEST_TMPDIR/port"
    port=$(cat "$BATS_TEST_TMPDIR/port")
    run curl -s "http://127.0.0.1:$port/readyz"
    assert_output ok
    run curl -sf "http://127.0.0.1:$port$JOBS" 
    run jq -r '[.items[].metadata.name] | join(",")' <<<"$output"
    assert_output from-manifest,from-tree
    [ "$(cat "$state/files/default/volumes/data/readme")" = hello ]
    curl -sf -o /dev/null -X DELETE "http://127.0.0.1:$port$JOBS/from-manifest"
    curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/emulator/v1/clock" -H 'Content-Type: application/json' -d '{"advance":"1m"}'
    kill -TERM $pid
    wait $pid
    # started again on the same state: the seed is not applied again
    rm -f "$BATS_TEST_TMPDIR/port"
    nodus-emulator --state "$state" --listen 127.0.0.1:0 --port-file "$BATS_TEST_TMPDIR/port" \
        --fsync never --quiet --speed 0 --seed "$seed" >"$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
    pid=$!
    wait_until test -s "$BATS_TEST_TMPDIR/port"
    port=$(cat "$BATS_TEST_TMPDIR/port")
    run curl -sf "http://127.0.0.1:$port$JOBS"
    run jq -r '[.items[].metadata.name] | join(",")' <<<"$output"
    assert_output from-tree
    kill -TERM $pid
    wait $pid
}
