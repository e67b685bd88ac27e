#!/usr/bin/env bats
# Budgets: spending per period, thresholds and their Events, the Notify, Suspend and
# Block actions, period boundaries and roll-over. Driven by the emulated clock only.

load ../lib/common

API=/apis/nodus.dev/v1

setup_file() {
    start_emulator
    # start just after a calendar month begins (UTC), so Monthly and Daily periods do not
    # end in the middle of a test
    local now next
    now=$(curl -s "$EMU_URL/emulator/v1/clock" | jq -r '.nowMs / 1000 | floor')
    next=$(date -u -d "$(date -u -d "@$now" +%Y-%m-01) +1 month" +%s)
    curl -s -X POST "$EMU_URL/emulator/v1/clock" -H 'Content-Type: application/json' -d "{\"advance\":\"$((next - now + 60))s\"}" \
        >/dev/null
}

teardown_file() {
    stop_emulator
}

advance() {
    http POST /emulator/v1/clock "{\"advance\":\"$1\"}"
    [ "$CODE" = 200 ]
}

project() {
    http POST /api/v1/namespaces "{\"metadata\":{\"name\":\"$1\"}}"
    [ "$CODE" = 201 ]
}

# budget PROJECT NAME SPEC-JSON
budget() {
    http POST "$API/namespaces/$1/budgets" \
        "$(jq -cn --arg n "$2" --argjson s "$3" '{apiVersion:"nodus.dev/v1",kind:"Budget",metadata:{name:$n},spec:$s}')"
    [ "$CODE" = 201 ]
}

# work PROJECT PLURAL NAME DURATION SPEC-JSON [LABELS-JSON]: a Job (or Sandbox) that
# runs for DURATION
job_spec() {
    jq -cn --arg m "$1" --argjson n "${2:-1}" \
        '{image:"nodus/pytorch:2.8-cuda12.8",resources:{gpu:{model:$m,count:$n}},maxCostUSD:"40.00"}'
}

launch() {
    local ns=$1 plural=$2 name=$3 dur=$4 spec=$5 labels=${6:-'{}'} kind
    kind=$([ "$plural" = jobs ] && echo Job || echo Sandbox)
    http POST "$API/namespaces/$ns/$plural" \
        "$(jq -cn --arg k "$kind" --arg n "$name" --arg d "$dur" --argjson s "$spec" --argjson l "$labels" \
            '{apiVersion:"nodus.dev/v1",kind:$k,metadata:{name:$n,labels:$l,annotations:{"emulator.nodus.dev/duration":$d}},spec:$s}')"
}

get() {
    http GET "$API/namespaces/$1/$2"
    [ "$CODE" = 200 ]
}

events_of() { # PROJECT NAME REASON: the messages of that object's Events with that reason
    http GET "/api/v1/namespaces/$1/events"
    jq -r --arg n "$2" --arg r "$3" \
        '.items[] | select(.involvedObject.name == $n and .reason == $r) | .message' "$BODY"
}

@test "the spending of a period adds up the costs of every Job in scope, deleted ones too" {
    project spend
    project elsewhere
    budget spend team '{"limitUSD":"100.00","action":"Notify"}'
    launch spend jobs a 30m "$(job_spec H100)"
    [ "$CODE" = 201 ]
    launch spend jobs b 1h "$(job_spec A100 2)"
    [ "$CODE" = 201 ]
    launch elsewhere jobs c 1h "$(job_spec H100)"
    [ "$CODE" = 201 ]
    advance 2h
    get spend jobs/a
    [ "$(body_json .status.costUSD)" = 1.245 ]
    get spend jobs/b
    [ "$(body_json .status.costUSD)" = 2.58 ]
    get spend budgets/team
    body_is .status.spentUSD 3.825 .status.remainingUSD 96.175 .status.phase Running
    # a Job deleted during the period still counts
    http DELETE "$API/namespaces/spend/jobs/a"
    advance 1m
    http GET "$API/namespaces/spend/jobs/a"
    [ "$CODE" = 404 ]
    get spend budgets/team
    [ "$(body_json .status.spentUSD)" = 3.825 ]
}

@test "each threshold is announced once per period, and Notify only notifies" {
    project notify
    budget notify watch '{"limitUSD":"2.49","action":"Notify"}'
    get notify budgets/watch
    [ "$(body_json '.spec.thresholds | join(",")')" = 50,80,100 ]
    launch notify jobs run 3h "$(job_spec H100)"
    advance 90m
    run events_of notify watch ThresholdReached
    assert_output "50% of the limit reached: \$1.25 of \$2.49 spent
80% of the limit reached: \$1.99 of \$2.49 spent
100% of the limit reached: \$2.49 of \$2.49 spent"
    get notify budgets/watch
    body_is '.status.conditions[] | select(.type == "ThresholdReached") | .status + " " + .reason' "True Threshold100" \
        '.status.conditions[] | select(.type == "Exceeded") | .status + " " + .reason' "True LimitReached"
    run events_of notify watch Exceeded
    assert_output "the limit is reached: \$2.49 of \$2.49 spent (action Notify)"
    # Notify touches nothing: the Job keeps running and costing
    get notify jobs/run
    body_is .spec.state Running .status.phase Running
    local cost
    cost=$(body_json .status.costUSD)
    advance 30m
    get notify jobs/run
    [ "$(body_json .status.costUSD)" != "$cost" ]
    run events_of notify watch ThresholdReached
    [ "${#lines[@]}" -eq 3 ]
}

@test "Block refuses a launch whose first hold passes the limit, dry runs too, and allows one under it" {
    project block
    budget block cap '{"limitUSD":"3.00"}'
    get block budgets/cap
    [ "$(body_json .spec.action)" = Block ]
    launch block jobs first 1h "$(job_spec H100)"
    [ "$CODE" = 201 ]
    advance 2h
    get block budgets/cap
    [ "$(body_json .status.spentUSD)" = 2.49 ]
    launch block jobs big 1h "$(job_spec H100)"
    [ "$CODE" = 403 ]
    body_is .reason BudgetExceeded \
        .message 'budget "cap" would be exceeded: $2.49 of its $3.00 limit is spent this period and launching job "big" holds $2.49 first'
    [[ "$(body_json .fix)" == "lower this launch's spec.maxCostUSD, wait until the period ends at "*"Z, or raise the Budget's spec.limitUSD: nodus edit budget cap -n block" ]]
    [ "$(body_json .details.name)" = big ]
    http POST "$API/namespaces/block/jobs?dryRun=All" "$(jq -cn --argjson s "$(job_spec H100)" \
        '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:{name:"big"},spec:$s}')"
    [ "$CODE" = 403 ]
    [ "$(body_json .reason)" = BudgetExceeded ]
    http GET "$API/namespaces/block/jobs/big"
    [ "$CODE" = 404 ]
    # a hold capped by maxCostUSD fits under the limit
    launch block jobs small 1h "$(job_spec H100 | jq -c '.maxCostUSD = "0.50"')"
    [ "$CODE" = 201 ]
    # created suspended it is no launch; resuming it is one
    launch block jobs later 1h "$(job_spec H100 | jq -c '.state = "Suspended"')"
    [ "$CODE" = 201 ]
    http PATCH "$API/namespaces/block/jobs/later" '{"spec":{"state":"Running"}}' \
        -H 'Content-Type: application/merge-patch+json'
    [ "$CODE" = 403 ]
    [ "$(body_json .reason)" = BudgetExceeded ]
    # a stopped Budget blocks nothing
    http PATCH "$API/namespaces/block/budgets/cap" '{"spec":{"state":"Stopped"}}' \
        -H 'Content-Type: application/merge-patch+json'
    [ "$CODE" = 200 ]
    launch block jobs big 1h "$(job_spec H100)"
    [ "$CODE" = 201 ]
}

@test "the CLI exits 8 on BudgetExceeded, with the fix" {
    project cli
    budget cli zero '{"limitUSD":"0.00"}'
    local job=$BATS_TEST_TMPDIR/job.json
    jq -cn --argjson s "$(job_spec L4)" \
        '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:{name:"x"},spec:$s}' >"$job"
    NODUS_SERVER=$(emu_url) HOME=$BATS_TEST_TMPDIR run --separate-stderr \
        nodus create -f "$job" -n cli
    [ "$status" -eq 8 ]
    [ "$output" = "" ]
    [[ "${stderr_lines[0]}" == *'(BudgetExceeded): '*'budget "zero" would be exceeded: $0.00 of its $0.00 limit is spent this period and launching job "x" holds $0.39 first' ]]
    [[ "${stderr_lines[1]}" == "fix: lower this launch's spec.maxCostUSD"*": nodus edit budget "* ]]
}

@test "Suspend suspends the Jobs and stops the Sandboxes in scope at the limit; they stop costing" {
    project susp
    budget susp stopper '{"limitUSD":"1.00","action":"Suspend","selector":{"matchLabels":{"app":"t"}}}'
    launch susp jobs train 3h "$(job_spec H100)" '{"app":"t"}'
    [ "$CODE" = 201 ]
    launch susp sandboxes dev 3h "$(job_spec L4)" '{"app":"t"}'
    [ "$CODE" = 201 ]
    launch susp jobs other 3h "$(job_spec L4)"
    [ "$CODE" = 201 ]
    advance 1h
    get susp jobs/train
    body_is .spec.state Suspended .status.phase Queued
    local cost
    cost=$(body_json .status.costUSD)
    get susp sandboxes/dev
    body_is .spec.state Stopped .status.phase Stopped
    local sbx
    sbx=$(body_json .status.costUSD)
    get susp jobs/other
    body_is .spec.state Running .status.phase Running
    get susp budgets/stopper
    body_is '(.status.spentUSD | tonumber) as $s | $s >= 1 and $s < 1.0001' true \
        '.status.conditions[] | select(.type == "Exceeded") | .status' True
    run events_of susp train BudgetExceeded
    assert_output "suspended by budget/stopper: \$1.00 of its \$1.00 limit spent"
    run events_of susp dev BudgetExceeded
    assert_output "stopped by budget/stopper: \$1.00 of its \$1.00 limit spent"
    # the two add up to the spending, and nothing more accrues
    [ "$(jq -n --arg a "$cost" --arg b "$sbx" '($a | tonumber) + ($b | tonumber) >= 1')" = true ]
    advance 1h
    get susp jobs/train
    [ "$(body_json .status.costUSD)" = "$cost" ]
    get susp sandboxes/dev
    [ "$(body_json .status.costUSD)" = "$sbx" ]
    # resumed while over the limit, the Job is suspended again at once
    http PATCH "$API/namespaces/susp/jobs/train" '{"spec":{"state":"Running"}}' \
        -H 'Content-Type: application/merge-patch+json'
    [ "$CODE" = 200 ]
    advance 1s
    get susp jobs/train
    [ "$(body_json .spec.state)" = Suspended ]
}

@test "periods follow the UTC calendar: Daily, Weekly from Monday, Monthly from the 1st; Total never ends" {
    project periods
    local p now
    for p in Daily Weekly Monthly Total; do
        budget periods "$(echo "$p" | tr A-Z a-z)" "{\"limitUSD\":\"1.00\",\"period\":\"$p\"}"
    done
    advance 1s
    now=$(curl -s "$(emu_url)/emulator/v1/clock" | jq -r '.nowMs / 1000 | floor')
    get periods budgets/daily
    [ "$(body_json .status.periodStart)" = "$(date -u -d "@$now" +%Y-%m-%dT00:00:00Z)" ]
    [ "$(body_json .status.periodEnd)" = "$(date -u -d "$(date -u -d "@$now" +%Y-%m-%d) +1 day" +%Y-%m-%dT00:00:00Z)" ]
    get periods budgets/weekly
    local start
    start=$(body_json .status.periodStart)
    [ "$(date -u -d "$start" +%u%H%M%S)" = 1000000 ]
    [ "$(date -u -d "$start" +%s)" -le "$now" ]
    [ $(($(date -u -d "$(body_json .status.periodEnd)" +%s) - $(date -u -d "$start" +%s))) -eq 604800 ]
    [ $(($(date -u -d "$start" +%s) + 604800)) -gt "$now" ]
    get periods budgets/monthly
    [ "$(body_json .status.periodStart)" = "$(date -u -d "@$now" +%Y-%m-01T00:00:00Z)" ]
    [ "$(body_json .status.periodEnd)" = "$(date -u -d "$(date -u -d "@$now" +%Y-%m-01) +1 month" +%Y-%m-%dT00:00:00Z)" ]
    get periods budgets/total
    body_is .status.periodStart "$(body_json .metadata.creationTimestamp)" .status.periodEnd null
}

@test "past periodEnd a new period starts: spending counts from zero and thresholds again" {
    project roll
    budget roll day '{"limitUSD":"2.00","period":"Daily","action":"Notify"}'
    launch roll jobs once 1h "$(job_spec H100)"
    advance 2h
    get roll budgets/day
    body_is .status.spentUSD 2.49 \
        '.status.conditions[] | select(.type == "Exceeded") | .status' True
    local end now
    end=$(body_json .status.periodEnd)
    now=$(curl -s "$(emu_url)/emulator/v1/clock" | jq -r '.nowMs / 1000 | floor')
    advance "$(($(date -u -d "$end" +%s) - now + 1))s"
    get roll budgets/day
    body_is .status.spentUSD 0.00 \
        .status.remainingUSD 2.00 \
        .status.periodStart "$end" \
        '.status.conditions[] | select(.type == "Exceeded") | .status' False \
        '.status.conditions[] | select(.type == "ThresholdReached") | .status' False
    run events_of roll day PeriodStarted
    assert_output "a new Daily period: spending counts from zero"
    # in the new period it counts again
    launch roll jobs twice 1h "$(job_spec H100)"
    [ "$CODE" = 201 ]
    advance 2h
    get roll budgets/day
    [ "$(body_json .status.spentUSD)" = 2.49 ]
    run events_of roll day ThresholdReached
    [ "${#lines[@]}" -eq 6 ]
}

@test "the emulator stops cleanly, with no sanitizer report (under make asan)" {
    stop_emulator
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/emulator.err"
    [ "$status" -eq 1 ]
}
