#!/usr/bin/env bats
# Control endpoints: stats, reset, faults, clock.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs

@test "stats count objects per kind, requests and the revision" {
    http POST $JOBS "$(job_json s1)"
    http GET /emulator/v1/stats
    [ "$CODE" = 200 ]
    [ "$(body_json .objects.jobs)" = 1 ]
    [ "$(body_json .objects.images)" -ge 5 ]
    [ "$(body_json .objects.namespaces)" = 2 ]
    [ "$(body_json .requests)" -ge 2 ]
    [ "$(body_json .revision)" -gt 0 ]
    [ "$(body_json .watchesOpen)" = 0 ]
}

@test "injected faults answer as asked, count down, and can be cleared" {
    http POST /emulator/v1/faults '{"path":"/jobs$","verb":"GET","status":503,"count":2}'
    [ "$CODE" = 201 ]
    http GET $JOBS
    [ "$CODE" = 503 ]
    [ "$(body_json .reason)" = ServiceUnavailable ]
    [ "$(header Retry-After)" = 1 ]
    http GET $JOBS
    [ "$CODE" = 503 ]
    http GET $JOBS
    [ "$CODE" = 200 ]
    http POST /emulator/v1/faults '{"path":"/jobs","status":429,"retryAfterSeconds":3}'
    http GET $JOBS/s1
    [ "$CODE" = 429 ]
    [ "$(header Retry-After)" = 3 ]
    [ "$(body_json .details.retryAfterSeconds)" = 3 ]
    http GET /emulator/v1/faults
    [ "$(body_json '.faults | length')" = 1 ]
    http DELETE /emulator/v1/faults
    [ "$(body_json '.faults | length')" = 0 ]
    http GET $JOBS/s1
    [ "$CODE" = 200 ]
}

@test "a fault may only delay" {
    http POST /emulator/v1/faults '{"path":"/jobs/s1$","status":0,"delayMs":400,"count":1}'
    local start end
    start=$(date +%s%N)
    http GET $JOBS/s1
    end=$(date +%s%N)
    [ "$CODE" = 200 ]
    [ $(((end - start) / 1000000)) -ge 400 ]
}

@test "bad fault specifications are refused" {
    http POST /emulator/v1/faults '{"path":"(","status":503}'
    [ "$CODE" = 422 ]
    http POST /emulator/v1/faults '{"status":200}'
    [ "$CODE" = 422 ]
    http POST /emulator/v1/faults '{"count":0}'
    [ "$CODE" = 422 ]
    http POST /emulator/v1/faults 'not json'
    [ "$CODE" = 400 ]
    http GET /emulator/v1/faults
    [ "$(body_json '.faults | length')" = 0 ]
}

@test "the clock reads and jumps forward" {
    http GET /emulator/v1/clock
    local before
    before=$(body_json .nowMs)
    http POST /emulator/v1/clock '{"advance":"2h"}'
    [ "$CODE" = 200 ]
    [ $(( $(body_json .nowMs) - before )) -ge 7200000 ]
    http POST /emulator/v1/clock '{"advance":"-1h"}'
    [ "$CODE" = 422 ]
    http POST /emulator/v1/clock '{"advance":"soon"}'
    [ "$CODE" = 422 ]
    [[ "$(body_json .message)" == 'advance: time: invalid duration "soon"'* ]]
    http POST /emulator/v1/clock '{}'
    [ "$CODE" = 400 ]
}

@test "a clock jump survives kill -9" {
    http GET /emulator/v1/clock
    local before
    before=$(body_json .nowMs)
    http POST /emulator/v1/clock '{"advance":"48h"}'
    local pid
    pid=$(cat "$BATS_FILE_TMPDIR/emulator.pid")
    kill -KILL "$pid"
    wait_until pid_gone "$pid"
    rm -f "$BATS_FILE_TMPDIR/emulator.pid"
    start_emulator
    http GET /emulator/v1/clock
    [ $(( $(body_json .nowMs) - before )) -ge $((48 * 3600 * 1000)) ]
}

@test "a delay-only fault lets a later fault answer" {
    http POST /emulator/v1/faults '[{"path":"/jobs$","status":0,"delayMs":200,"count":1},{"path":"/jobs$","status":503,"count":1}]'
    [ "$CODE" = 201 ]
    http GET $JOBS
    [ "$CODE" = 503 ]
    http GET $JOBS
    [ "$CODE" = 200 ]
}

@test "ages follow the emulator's clock" {
    http POST $JOBS "$(job_json aged)"
    http POST /emulator/v1/clock '{"advance":"3h"}'
    http GET $JOBS/aged - -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io'
    [ "$(body_json '.rows[0].cells[5]')" = 3h ]
}

@test "reset empties objects, history and keys, and keeps the built-in projects" {
    http POST $JOBS "$(job_json r1)" -H 'Idempotency-Key: before-reset'
    http POST /emulator/v1/reset {}
    [ "$CODE" = 200 ]
    http GET $JOBS
    [ "$(body_json '.items | length')" = 0 ]
    [ ! -e "$EMU_STATE/objects/default/jobs/r1.json" ]
    http GET /api/v1/namespaces/default
    [ "$CODE" = 200 ]
    http GET /apis/nodus.dev/v1/namespaces/nodus/images/pytorch
    [ "$CODE" = 200 ]
    # the key is forgotten: the same request runs again
    http POST $JOBS "$(job_json r1)" -H 'Idempotency-Key: before-reset'
    [ "$CODE" = 201 ]
    [ -z "$(header Idempotent-Replayed)" ]
}

@test "unknown control endpoints are NotFound; wrong verbs MethodNotAllowed" {
    http GET /emulator/v1/nothing
    [ "$CODE" = 404 ]
    http DELETE /emulator/v1/stats
    [ "$CODE" = 405 ]
}
