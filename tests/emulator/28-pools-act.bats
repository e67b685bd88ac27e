#!/usr/bin/env bats
# The Act tier of Pools: policies creating PoolActions in Shadow, Propose and Auto modes,
# the kill switch (paused), and what each action does when it runs.

load pools

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

# act_json MODE POLICY-JSON...: a Pool spec with Act in MODE and the given policies.
act_json() {
    local mode=$1
    shift
    jq -cn --arg m "$mode" --args '{act:{mode:$m, policies:[$ARGS.positional[] | fromjson]}}' "$@"
}

@test "Shadow records an IdleReclaim PoolAction once, and never runs it" {
    pool_with_host a1 a1-h '{"H100":1}' "$(act_json Shadow '{"action":"IdleReclaim","idleFor":"1h"}')"
    advance 59m
    run actions_of a1
    assert_output '[]'
    advance 2m
    http GET "$P/poolactions?fieldSelector=spec.pool=a1"
    run body_json '.items[] | [.spec.action, .spec.target, .spec.decision, .status.phase, .spec.params.idleFor,
        (.status.conditions[] | select(.type=="Ready") | .reason)] | @tsv'
    assert_output "$(printf 'IdleReclaim\thost/a1-h\tShadow\tCancelled\t1h\tShadow')"
    run body_json '.items[0].spec.reason'
    assert_output 'host/a1-h has run no work for 1h (idleFor 1h): return it'
    run body_json '.items[0].metadata.ownerReferences[0] | [.apiVersion, .kind, .name, .controller, .blockOwnerDeletion] | @tsv'
    assert_output "$(printf 'nodus.dev/v1\tPool\ta1\ttrue\ttrue')"
    run val hosts/a1-h '.spec.cordoned'
    assert_output false
    run val pools/a1 '[.status.act.pending, (.status.act.lastActionTime != null)] | @csv'
    assert_output '0,true'
    advance 3h
    run actions_of a1
    run jq length <<<"$output"
    assert_output 1
}

@test "Propose waits for a decision; approved, IdleReclaim returns the host" {
    pool_with_host a2 a2-h '{"H100":1}' "$(act_json Propose '{"action":"IdleReclaim","idleFor":"30m"}')"
    advance 31m
    http GET "$P/poolactions?fieldSelector=spec.pool=a2"
    run body_json '.items[] | [.spec.decision, .status.phase] | @tsv'
    assert_output "$(printf 'Pending\tQueued')"
    name=$(body_json '.items[0].metadata.name')
    [[ "$name" =~ ^a2-idlereclaim-[0-9a-f]{8}$ ]]
    run val pools/a2 '.status.act.pending'
    assert_output 1
    # nothing happens without a decision
    advance 2h
    run val "poolactions/$name" '.status.phase'
    assert_output Queued
    run val hosts/a2-h '.spec.cordoned'
    assert_output false
    patch "poolactions/$name" '{"spec":{"decision":"Approved"}}'
    [ "$CODE" = 200 ]
    advance 4s
    run val "poolactions/$name" '.status.phase'
    assert_output Queued
    advance 2s
    run val "poolactions/$name" '.status.phase'
    assert_output Provisioning
    advance 30s
    run val "poolactions/$name" '[.status.phase, .status.message, .status.decidedBy, (.status.startTime != null), (.status.completionTime != null)] | @tsv'
    assert_output "$(printf 'Succeeded\treturned host/a2-h: cordoned, no new work lands on it\temulator-user\ttrue\ttrue')"
    run val hosts/a2-h '[.spec.cordoned, .metadata.annotations["nodus.dev/reclaimed-by"]] | @tsv'
    assert_output "$(printf 'true\tpoolaction/%s' "$name")"
    run val pools/a2 '[.status.act.pending, .status.capacity.gpus.H100.free] | @csv'
    assert_output '0,0'
    # each phase was an Event
    http GET "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=$name"
    run body_json '[.items[].reason] | join(",")'
    assert_output --partial 'Provisioning,Running,Succeeded'
}

@test "Auto runs IdleReclaim at once, decided by the Pool" {
    pool_with_host a3 a3-h '{"H100":1}' "$(act_json Auto '{"action":"IdleReclaim","idleFor":"10m"}')"
    advance 10m
    http GET "$P/poolactions?fieldSelector=spec.pool=a3"
    run body_json '.items[] | [.spec.decision, .status.decidedBy] | @tsv'
    assert_output "$(printf 'Approved\tpool/a3 (Act Auto)')"
    advance 40s
    run actions_of a3
    run jq -r '.[0].phase' <<<"$output"
    assert_output Succeeded
    run val hosts/a3-h '.spec.cordoned'
    assert_output true
}

@test "a busy host is not idle; waiting work stops IdleReclaim" {
    pool_with_host a4 a4-h '{"H100":1}' "$(act_json Auto '{"action":"IdleReclaim","idleFor":"10m"}')"
    create jobs "$(pjob_json a4-j a4 1 1h)"
    advance 50m
    run actions_of a4
    assert_output '[]'
    # the host is idle from the job's end on: 10 minutes later it is reclaimed
    advance 20m
    run actions_of a4
    assert_output '[]'
    advance 6m
    run actions_of a4
    run jq -r '.[0].action' <<<"$output"
    assert_output IdleReclaim
}

@test "paused cancels pending PoolActions and proposes nothing new; unpaused, Act resumes" {
    pool_with_host a5 a5-h '{"H100":1}' "$(act_json Propose '{"action":"IdleReclaim","idleFor":"10m"}')"
    advance 11m
    http GET "$P/poolactions?fieldSelector=spec.pool=a5"
    name=$(body_json '.items[0].metadata.name')
    patch pools/a5 '{"spec":{"act":{"paused":true}}}'
    [ "$CODE" = 200 ]
    advance 1s
    run val "poolactions/$name" '[.spec.decision, .status.phase, (.status.conditions[] | select(.type=="Ready") | .reason), .status.message] | @tsv'
    assert_output "$(printf 'Pending\tCancelled\tPaused\tcancelled: the Pool'"'"'s Act is paused (spec.act.paused)')"
    # nobody decides it any more: the decision shown is Cancelled, not Pending
    run val "poolactions/$name" '.status.decision'
    assert_output Cancelled
    run nodus --server "$(emu_url)" get "poolaction/$name" --no-headers -o custom-columns=D:.status.decision
    assert_output Cancelled
    run nodus --server "$(emu_url)" get "poolaction/$name" --no-headers
    assert_output --regexp "^$name +a5 +IdleReclaim +Cancelled +Cancelled +"
    run val pools/a5 '[.status.act.pending, (.status.conditions[] | select(.type=="ActPaused") | .status)] | @tsv'
    assert_output "$(printf '0\tTrue')"
    # an ended action takes no decision
    patch "poolactions/$name" '{"spec":{"decision":"Approved"}}'
    [ "$CODE" = 422 ]
    run body_json '.details.causes[0] | [.field, .message] | @tsv'
    assert_output "$(printf 'spec.decision\tInvalid value: "Approved": the PoolAction has ended (Cancelled); it can no longer be decided')"
    # a second host goes idle while paused: nothing is proposed
    create hosts "$(host_json a5-h2 a5 '{"H100":1}')"
    advance 1h
    run actions_of a5
    run jq length <<<"$output"
    assert_output 1
    patch pools/a5 '{"spec":{"act":{"paused":false}}}'
    advance 1s
    run actions_of a5
    run jq -c '[.[] | select(.phase=="Queued") | .target]' <<<"$output"
    assert_output '["host/a5-h2"]'
    run val pools/a5 '.status.conditions[] | select(.type=="ActPaused") | .status'
    assert_output False
}

@test "Drain cordons the Pool's hosts for its window, then puts them back" {
    create pools "$(pool_json d1 "$(act_json Auto '{"action":"Drain","schedule":"0 * * * *","duration":"30m"}' | jq -c '. + {routing:{waitTimeout:"24h"}}')")"
    create hosts "$(host_json d1-a d1 '{"H100":1}')"
    create hosts "$(host_json d1-b d1 '{"H100":1}' '{"cordoned":true}')"
    advance 15s
    to_next_hour
    start=$(now_ms)
    http GET "$P/poolactions?fieldSelector=spec.pool=d1"
    run body_json '.items[] | [.spec.action, .spec.target, .spec.decision, .spec.params.windowStart, .spec.params.duration] | @tsv'
    assert_output "$(printf 'Drain\tpool/d1\tApproved\t%s\t30m' "$(rfc3339 "$start")")"
    name=$(body_json '.items[0].metadata.name')
    advance 36s
    run val "poolactions/$name" '[.status.phase, .status.message] | @tsv'
    assert_output "$(printf 'Running\tdraining 1 hosts: no new work until %s; running work finishes' "$(rfc3339 $((start + 1800000)))")"
    run val hosts/d1-a '[.spec.cordoned, .metadata.annotations["nodus.dev/drained-by"]] | @tsv'
    assert_output "$(printf 'true\tpoolaction/%s' "$name")"
    create jobs "$(pjob_json d1-j d1 1)"
    advance 1m
    run val jobs/d1-j '.status.placement // "none"'
    assert_output none
    advance 29m
    run val "poolactions/$name" '.status.phase'
    assert_output Succeeded
    run val hosts/d1-a '[.spec.cordoned, (.metadata.annotations // {} | has("nodus.dev/drained-by"))] | @tsv'
    assert_output "$(printf 'false\tfalse')"
    # the host the user cordoned stays cordoned
    run val hosts/d1-b '.spec.cordoned'
    assert_output true
    run val jobs/d1-j '.status.placement.host'
    assert_output d1-a
    patch pools/d1 '{"spec":{"act":{"mode":"Off"}}}'
    [ "$CODE" = 200 ]
}

@test "paused stops a running Drain at its next safe point" {
    create pools "$(pool_json d2 "$(act_json Auto '{"action":"Drain","schedule":"30 * * * *","duration":"2h"}')")"
    create hosts "$(host_json d2-a d2 '{"H100":1}')"
    advance 15s
    to_next_hour
    advance 31m
    http GET "$P/poolactions?fieldSelector=spec.pool=d2"
    name=$(body_json '.items[0].metadata.name')
    run val "poolactions/$name" '.status.phase'
    assert_output Running
    run val hosts/d2-a '.spec.cordoned'
    assert_output true
    patch pools/d2 '{"spec":{"act":{"paused":true}}}'
    advance 1s
    run val "poolactions/$name" '[.status.phase, .status.message] | @tsv'
    assert_output "$(printf 'Cancelled\tstopped at a safe point: the Pool'"'"'s Act is paused (spec.act.paused)')"
    run val hosts/d2-a '.spec.cordoned'
    assert_output false
    # no window opens while paused
    advance 2h
    run actions_of d2
    run jq length <<<"$output"
    assert_output 1
}

@test "Drain schedules are cron expressions in UTC: lists, steps, ranges and day names" {
    create pools "$(pool_json d3 "$(act_json Shadow '{"action":"Drain","schedule":"10,40 */2 * * *","duration":"5m"}' '{"action":"Drain","schedule":"0 3 * * sun","duration":"1h"}')")"
    advance 15s
    to_next_hour
    from=$(rfc3339 "$(now_ms)")
    advance 192h
    http GET "$P/poolactions?fieldSelector=spec.pool=d3"
    # every window of the first schedule starts at :10 or :40 of an even hour: 192 in 8 days
    run body_json '[.items[] | select(.spec.params.schedule == "10,40 */2 * * *") | .spec.params.windowStart | select(. > "'"$from"'")] | length'
    assert_output 192
    for t in $(body_json '.items[] | select(.spec.params.schedule == "10,40 */2 * * *") | .spec.params.windowStart'); do
        [[ "$(date -u -d "$t" +%M)" =~ ^(10|40)$ ]]
        [ $((10#$(date -u -d "$t" +%H) % 2)) = 0 ]
    done
    # the second: Sundays at 03:00, once or twice in eight days
    run body_json '[.items[] | select(.spec.params.schedule == "0 3 * * sun") | .spec.params.windowStart] | length'
    [[ "$output" =~ ^[12]$ ]]
    for t in $(body_json '.items[] | select(.spec.params.schedule == "0 3 * * sun") | .spec.params.windowStart'); do
        [ "$(date -u -d "$t" +%a%H%M)" = Sun0300 ]
    done
    run body_json '[.items[].spec.decision] | unique | join(",")'
    assert_output Shadow
    patch pools/d3 '{"spec":{"act":{"mode":"Off"}}}'
}

@test "Defragment moves the work of the least busy host to the others, freeing it" {
    create pools "$(pool_json f1 "$(act_json Auto '{"action":"Defragment"}' | jq -c '. + {routing:{waitTimeout:"24h"}}')")"
    create hosts "$(host_json f1-a f1 '{"H100":4}')"
    create hosts "$(host_json f1-b f1 '{"H100":4}')"
    advance 15s
    create jobs "$(pjob_json f1-big f1 3 1h)"
    advance 1s
    create jobs "$(pjob_json f1-other f1 3 10h)"
    advance 1s
    create jobs "$(pjob_json f1-small f1 1 10h)"
    advance 1s
    run val jobs/f1-small '.status.placement.host'
    assert_output f1-a
    run actions_of f1
    assert_output '[]'
    # f1-big ends: f1-a runs 1 device, f1-b 3 of 4
    advance 61m
    http GET "$P/poolactions?fieldSelector=spec.pool=f1"
    run body_json '.items[] | [.spec.action, .spec.target, .spec.decision, .spec.params.work, .spec.reason] | @tsv'
    assert_output "$(printf "Defragment\thost/f1-a\tApproved\tjob/f1-small\thost/f1-a runs 1 of its 4 H100; its work fits on the Pool's other busy hosts, which frees the whole host")"
    name=$(body_json '.items[0].metadata.name')
    advance 36s
    run val "poolactions/$name" '[.status.phase, .status.message] | @tsv'
    assert_output "$(printf 'Succeeded\tmoved 1 pieces of work off host/f1-a, which is now free')"
    run val jobs/f1-small '[.status.phase, .status.placement.host] | @tsv'
    assert_output "$(printf 'Running\tf1-b')"
    run val hosts/f1-a '.status.allocated.H100'
    assert_output 0
    run val hosts/f1-b '.status.allocated.H100'
    assert_output 4
    # packed: nothing more to do
    advance 1h
    run actions_of f1
    run jq length <<<"$output"
    assert_output 1
}

@test "WaitTuning sets waitTimeout to how long work waited, within its bounds" {
    create pools "$(pool_json w1 "$(act_json Auto '{"action":"WaitTuning","minWaitTimeout":"5m","maxWaitTimeout":"2h"}' | jq -c '. + {routing:{waitTimeout:"30m",burstToMarket:"Deny"}}')")"
    create hosts "$(host_json w1-a w1 '{"H100":1}')"
    advance 15s
    create jobs "$(pjob_json w1-first w1 1 10m)"
    advance 1s
    create jobs "$(pjob_json w1-second w1 1 10m)"
    advance 10m
    run actions_of w1
    assert_output '[]'
    # w1-first ends 10m35s after it was placed; w1-second waited 10m34s
    advance 1m
    http GET "$P/poolactions?fieldSelector=spec.pool=w1"
    run body_json '.items[] | [.spec.action, .spec.target, .spec.params.from, .spec.params.waitTimeout] | @tsv'
    assert_output "$(printf 'WaitTuning\tpool/w1\t30m\t11m')"
    run body_json '.items[0].spec.reason'
    assert_output '90 % of the work placed after waiting in the last 24h waited at most 10m34s: waitTimeout 30m -> 11m (bounds 5m to 2h)'
    advance 36s
    run val pools/w1 '[.spec.routing.waitTimeout, .metadata.generation] | @tsv'
    assert_output "$(printf '11m\t2')"
    run actions_of w1
    run jq -r '.[0].phase' <<<"$output"
    assert_output Succeeded
    # tuned: nothing new to propose
    advance 1h
    run actions_of w1
    run jq length <<<"$output"
    assert_output 1
}

@test "a Burst policy pre-approves bursts in Auto within maxGPUs and maxRateUSDPerHour" {
    pool_with_host u1 u1-h '{"H100":1}' "$(act_json Auto '{"action":"Burst","maxGPUs":2,"maxRateUSDPerHour":"3.00"}' | jq -c '. + {routing:{waitTimeout:"1m"}}')"
    create jobs "$(pjob_json u1-fill u1 1 10h)"
    advance 1s
    create jobs "$(pjob_json u1-one u1 1 10h)"
    create jobs "$(pjob_json u1-two u1 2 10h)"
    advance 2m
    # one H100 at 2.49 fits the policy; two at 4.98 do not
    run val jobs/u1-one '[.status.placement.target, .status.rateUSDPerHour] | @tsv'
    assert_output "$(printf 'market\t2.49')"
    http GET "$P/poolactions?fieldSelector=spec.pool=u1"
    run body_json '[.items[] | [.spec.target, .spec.decision, (.status.decidedBy // "-")] | join(" ")] | sort | join(",")'
    assert_output 'job/u1-one Approved pool/u1 (Act Auto),job/u1-two Pending -'
    run val jobs/u1-two '.status.placement // "none"'
    assert_output none
}

@test "a decision on a PoolAction of a paused Pool cancels; unpausing proposes the burst again" {
    pool_with_host u2 u2-h '{"H100":1}' '{"routing":{"waitTimeout":"1m"}}'
    create jobs "$(pjob_json u2-fill u2 1 10h)"
    advance 1s
    create jobs "$(pjob_json u2-wait u2 1 10h)"
    advance 2m
    patch pools/u2 '{"spec":{"act":{"paused":true}}}'
    advance 1s
    run actions_of u2
    run jq -c '[.[].phase]' <<<"$output"
    assert_output '["Cancelled"]'
    run val jobs/u2-wait '.status.conditions[] | select(.type=="Placed") | .reason'
    assert_output BurstCancelled
    patch pools/u2 '{"spec":{"act":{"paused":false}}}'
    advance 1s
    run actions_of u2
    run jq -c '[.[].phase] | sort' <<<"$output"
    assert_output '["Cancelled","Queued"]'
    run val pools/u2 '.status.routing.burstPending'
    assert_output 1
}

@test "the emulator stops cleanly, without sanitizer reports" {
    stop_emulator
    assert_no_sanitizer_reports
}
