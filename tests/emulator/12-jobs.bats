#!/usr/bin/env bats
# The simulation of Jobs: phases timed by the emulator's clock, costs, limits, spec.state,
# conditions and Events, the final charge. The clock stands still (--speed 0) and every
# test moves it with POST /emulator/v1/clock.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs
MERGE=(-H 'Content-Type: application/merge-patch+json')
L4='{"resources":{"gpu":{"model":"L4","count":1}}}'

# get NAME FILTER: jq FILTER over the Job NAME.
get() {
    curl -sf "$(emu_url)$JOBS/$1" | jr "$2"
}

# An L4 Job (0.39/h) with extra spec fields and annotations.
l4_job() {
    local name=$1 spec=${2:-'{}'} ann=${3:-'{}'}
    job_json "$name" "$(jq -cn --argjson a "$L4" --argjson b "$spec" '$a + $b')" |
        jq -c --argjson ann "$ann" '.metadata.annotations = $ann'
}

events_of() {
    curl -sf "$(emu_url)/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D$1" |
        jq -r '.items | sort_by(.metadata.resourceVersion | tonumber) | .[].reason' | paste -sd, -
}

@test "a Job goes Queued, Provisioning after 5s, Running after 30s more, Succeeded after its 10m run" {
    http POST $JOBS "$(l4_job phases)"
    [ "$CODE" = 201 ]
    [ "$(body_json .status.phase)" = Queued ]
    clock_advance 4s
    [ "$(get phases .status.phase)" = Queued ]
    clock_advance 1s
    [ "$(get phases .status.phase)" = Provisioning ]
    [ "$(get phases .status.placement.target)" = market ]
    clock_advance 29s
    [ "$(get phases .status.phase)" = Provisioning ]
    clock_advance 1s
    [ "$(get phases .status.phase)" = Running ]
    [ "$(get phases '.status.conditions[] | select(.type=="Ready") | .status')" = True ]
    clock_advance 9m59s
    [ "$(get phases .status.phase)" = Running ]
    clock_advance 1s
    [ "$(get phases .status.phase)" = Succeeded ]
    [ "$(get phases .status.exitCode)" = 0 ]
    run events_of phases
    assert_output Created,Provisioning,Running,Succeeded
}

@test "cost accrues per emulated second at the Job's rate and stops at the end" {
    http POST $JOBS "$(l4_job cost)"
    clock_advance 35s
    [ "$(get cost .status.rateUSDPerHour)" = 0.39 ]
    clock_advance 1h # far past the 10m run: only 10 minutes are billed
    [ "$(get cost .status.phase)" = Succeeded ]
    [ "$(get cost .status.costUSD)" = 0.065 ] # 0.39 x 10/60
    clock_advance 1h
    [ "$(get cost .status.costUSD)" = 0.065 ]
}

@test "maxCostUSD ends the Job Failed with MaxCostReached at the limit" {
    http POST $JOBS "$(l4_job capped '{"maxCostUSD":"0.02"}' '{"emulator.nodus.dev/duration":"10h"}')"
    clock_advance 35s
    clock_advance 2m
    [ "$(get capped .status.phase)" = Running ]
    clock_advance 2h
    [ "$(get capped .status.phase)" = Failed ]
    [ "$(get capped .status.reason)" = MaxCostReached ]
    [ "$(get capped .status.costUSD)" = 0.02 ]
    [ "$(get capped '.status.conditions[] | select(.type=="Ready") | .reason')" = MaxCostReached ]
}

@test "maxDuration ends the Job Failed with DeadlineExceeded" {
    http POST $JOBS "$(l4_job deadline '{"maxDuration":"3m"}')"
    clock_advance 35s
    clock_advance 2m59s
    [ "$(get deadline .status.phase)" = Running ]
    clock_advance 1s
    [ "$(get deadline .status.phase)" = Failed ]
    [ "$(get deadline .status.reason)" = DeadlineExceeded ]
}

@test "the duration, exit-code and fail-at annotations decide how the run ends" {
    http POST $JOBS "$(l4_job short '{}' '{"emulator.nodus.dev/duration":"90s"}')"
    http POST $JOBS "$(l4_job exits '{}' '{"emulator.nodus.dev/duration":"1m","emulator.nodus.dev/exit-code":"3"}')"
    http POST $JOBS "$(l4_job breaks '{}' '{"emulator.nodus.dev/fail-at":"20s","emulator.nodus.dev/exit-code":"137"}')"
    clock_advance 35s
    clock_advance 20s
    [ "$(get breaks .status.phase)/$(get breaks .status.exitCode)" = Failed/137 ]
    [ "$(get breaks .status.reason)" = Error ]
    clock_advance 40s
    [ "$(get exits .status.phase)/$(get exits .status.exitCode)" = Failed/3 ]
    [ "$(get short .status.phase)" = Running ]
    clock_advance 30s
    [ "$(get short .status.phase)" = Succeeded ]
}

@test "suspend goes back to Queued with Suspended=True and no cost; resume runs it again" {
    http POST $JOBS "$(l4_job pause '{}' '{"emulator.nodus.dev/duration":"1h"}')"
    clock_advance 35s
    clock_advance 10m
    local before
    before=$(get pause .status.costUSD)
    [ "$before" = 0.065 ]
    http PATCH $JOBS/pause '{"spec":{"state":"Suspended"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    clock_advance 1s
    [ "$(get pause .status.phase)" = Queued ]
    [ "$(get pause '.status.conditions[] | select(.type=="Suspended") | .status')" = True ]
    [ "$(get pause '.status.conditions[] | select(.type=="Suspended") | .observedGeneration')" = 2 ]
    clock_advance 2h
    [ "$(get pause .status.phase)" = Queued ]
    [ "$(get pause .status.costUSD)" = "$before" ]
    http PATCH $JOBS/pause '{"spec":{"state":"Running"}}' "${MERGE[@]}"
    clock_advance 35s
    [ "$(get pause .status.phase)" = Running ]
    [ "$(get pause '.status.conditions[] | select(.type=="Suspended") | .status')" = False ]
    [ "$(get pause .status.attempts)" = 2 ]
    # the run so far counts: 50 more minutes finish the hour
    clock_advance 49m
    [ "$(get pause .status.phase)" = Running ]
    clock_advance 1m
    [ "$(get pause .status.phase)" = Succeeded ]
    [ "$(get pause .status.costUSD)" = 0.39 ]
    run events_of pause
    assert_output Created,Provisioning,Running,Suspended,Provisioning,Running,Succeeded
}

@test "cancel ends it Cancelled; a finished Job refuses a new state with Invalid" {
    http POST $JOBS "$(l4_job stopme)"
    clock_advance 35s
    http PATCH $JOBS/stopme '{"spec":{"state":"Cancelled"}}' "${MERGE[@]}"
    clock_advance 1s
    [ "$(get stopme .status.phase)" = Cancelled ]
    [ "$(get stopme .status.reason)" = Cancelled ]
    http PATCH $JOBS/stopme '{"spec":{"state":"Running"}}' "${MERGE[@]}"
    [ "$CODE" = 422 ]
    [ "$(body_json .reason)" = Invalid ]
    run body_json .message
    assert_output --partial "has finished (Cancelled)"
}

@test "status.observedGeneration follows the generation the controller has seen" {
    http POST $JOBS "$(l4_job gen)"
    clock_advance 1s
    [ "$(get gen .status.observedGeneration)" = 1 ]
    http PATCH $JOBS/gen '{"spec":{"maxCostUSD":"50.00"}}' "${MERGE[@]}"
    clock_advance 1s
    [ "$(get gen .metadata.generation)" = 2 ]
    [ "$(get gen .status.observedGeneration)" = 2 ]
}

@test "a deleted running Job stays Cancelling until the final charge posts 30s later" {
    http POST $JOBS "$(l4_job gone)"
    clock_advance 35s
    clock_advance 1m
    http DELETE $JOBS/gone
    [ "$CODE" = 200 ]
    clock_advance 1s
    [ "$(get gone .status.phase)" = Cancelling ]
    [ "$(get gone '.metadata.finalizers | index("nodus.dev/billing") != null')" = true ]
    clock_advance 28s
    http GET $JOBS/gone
    [ "$CODE" = 200 ]
    clock_advance 2s
    http GET $JOBS/gone
    [ "$CODE" = 404 ]
}

@test "a finished Job's final charge posts 30s after the end" {
    http POST $JOBS "$(l4_job settle '{}' '{"emulator.nodus.dev/duration":"1m"}')"
    clock_advance 35s
    clock_advance 1m
    [ "$(get settle .status.phase)" = Succeeded ]
    [ "$(get settle '.status.billing.settled // false')" = false ]
    clock_advance 30s
    [ "$(get settle .status.billing.settled)" = true ]
    run events_of settle
    assert_output Created,Provisioning,Running,Succeeded,Charged
}

@test "a clock jump runs every timer on the way, in order" {
    http POST $JOBS "$(l4_job chain1 '{}' '{"emulator.nodus.dev/duration":"1m"}')"
    http POST $JOBS "$(l4_job chain2 '{}' '{"emulator.nodus.dev/duration":"2m"}')"
    clock_advance 24h
    [ "$(get chain1 .status.phase)" = Succeeded ]
    [ "$(get chain2 .status.phase)" = Succeeded ]
    # the times recorded are the emulated times of each step, not of the jump's end
    local c1 s1
    s1=$(get chain1 .status.startTime)
    c1=$(get chain1 .status.completionTime)
    [ $(($(date -d "$c1" +%s) - $(date -d "$s1" +%s))) = 60 ]
}

@test "--no-simulation keeps objects as written: no phases, no costs, deletes at once" {
    local state=$BATS_TEST_TMPDIR/frozen port pid
    nodus-emulator --state "$state" --listen 127.0.0.1:0 --port-file "$BATS_TEST_TMPDIR/port" \
        --fsync never --quiet --speed 0 --no-simulation >/dev/null 2>&1 3>&- &
    pid=$!
    wait_until test -s "$BATS_TEST_TMPDIR/port"
    local url=http://127.0.0.1:$(cat "$BATS_TEST_TMPDIR/port")
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$url$JOBS" -d "$(l4_job still)"
    curl -sf -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
        "$url$JOBS/still/status" -d '{"status":{"phase":"Running","startTime":"2026-01-01T00:00:00Z"}}'
    curl -sf -o /dev/null -X POST "$url/emulator/v1/clock" -H 'Content-Type: application/json' -d '{"advance":"2h"}'
    run bash -c "curl -sf '$url$JOBS/still' | jq -c '[.status.phase, .status.costUSD, .status.conditions]'"
    assert_output '["Running",null,null]'
    curl -sf -o /dev/null -X DELETE "$url$JOBS/still"
    run curl -s -o /dev/null -w '%{http_code}' "$url$JOBS/still"
    assert_output 404
    kill -TERM $pid
    wait $pid
}
