#!/usr/bin/env bats
# Pools and Hosts in the emulator: enrolment, capacity, routing of pool-routed work
# (placement, waits, bursts, mode Only, cordons), the Pool's defaults and bounds.
# Every test uses its own Pool; time moves only by advancing the clock.

load pools

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

TABLE='Accept: application/json;as=Table;v=v1;g=meta.k8s.io'

@test "Hosts enrol their devices; the Pool's capacity, conditions and columns show them" {
    create pools "$(pool_json cap)"
    create hosts "$(host_json cap-a cap '{"H100":4}')"
    create hosts "$(host_json cap-b cap '{"H100":2,"L4":1}')"
    advance 1s
    # enrolled, not Ready yet: nothing free
    run val pools/cap '.status.capacity | [.nodes, .readyNodes, .gpus.H100.free, .gpus.H100.total] | @csv'
    assert_output '2,0,0,6'
    run val hosts/cap-a '.status.phase'
    assert_output Pending
    advance 15s
    run val hosts/cap-a '[.status.phase, (.status.conditions[] | select(.type=="Ready") | .status),
        (.status.conditions[] | select(.type=="Enrolled") | .status), (.status.allocated | tojson)] | @tsv'
    assert_output "$(printf 'Running\tTrue\tTrue\t{"H100":0}')"
    run val pools/cap '.status.capacity | tojson'
    assert_output '{"gpus":{"H100":{"free":6,"total":6},"L4":{"free":1,"total":1}},"nodes":2,"readyNodes":2}'
    run val pools/cap '[.status.phase, (.status.conditions[] | select(.type=="HostsReady") | .status + " " + .message)] | @tsv'
    assert_output "$(printf 'Running\tTrue 2 of 2 hosts Ready')"
    run val pools/cap '[.status.routing.waiting, .status.routing.burstPending, .status.act.pending,
        .status.utilization.gpuPercent, .status.utilization.window] | @csv'
    assert_output '0,0,0,0,"24h"'
    http GET "$P/pools/cap" - -H "$TABLE"
    run body_json '.rows[0].cells[0:6] | @csv'
    assert_output '"cap","Running","2","7/7","Off","0%"'
    http GET "$P/hosts/cap-b" - -H "$TABLE"
    run body_json '.rows[0].cells[0:5] | @csv'
    assert_output '"cap-b","cap","Running","2xH100,1xL4","false"'
}

@test "a Host of a Pool that does not exist is not Enrolled" {
    create hosts "$(host_json stray nopool '{"H100":1}')"
    advance 15s
    run val hosts/stray '.status.conditions[] | select(.type=="Enrolled") | [.status, .reason] | @tsv'
    assert_output "$(printf 'False\tPoolNotFound')"
}

@test "a pool-routed Job is placed on a free device of its Pool at the Pool's rate" {
    pool_with_host r1 r1-a '{"H100":2}'
    create jobs "$(pjob_json r1-j1 r1 1)"
    advance 1s
    run val jobs/r1-j1 '[(.status.placement | tojson), .status.rateUSDPerHour,
        (.status.conditions[] | select(.type=="Placed") | .status + " " + .message)] | @tsv'
    assert_output "$(printf '{"target":"pool/r1","host":"r1-a","gpuModel":"H100"}\t0.00\tTrue placed on host/r1-a of pool/r1')"
    advance 40s
    run val jobs/r1-j1 '.status.phase'
    assert_output Running
    run val hosts/r1-a '.status.allocated.H100'
    assert_output 1
    run val pools/r1 '.status.capacity.gpus.H100 | [.free, .total] | @csv'
    assert_output '1,2'
    # the wide PLACEMENT and RATE columns read the placement
    http GET "$P/jobs/r1-j1" - -H "$TABLE"
    run body_json '[.columnDefinitions[].name] as $n | [.rows[0].cells[($n|index("PLACEMENT"))], .rows[0].cells[($n|index("RATE"))]] | @csv'
    assert_output '"pool/r1","$0.00/h"'
}

@test "work waits while the devices are taken, first in first out, and is placed when they free up" {
    pool_with_host r2 r2-a '{"H100":3}' '{"routing":{"waitTimeout":"24h"}}'
    create jobs "$(pjob_json r2-first r2 2 10m)"
    advance 1s
    create jobs "$(pjob_json r2-second r2 2 10m)"
    advance 1s
    create jobs "$(pjob_json r2-third r2 1 10m)"
    advance 1s
    # one device is free, but r2-third waits behind r2-second
    run val jobs/r2-second '[.status.phase, (.status.placement // "none" | tostring),
        (.status.conditions[] | select(.type=="Placed") | .reason)] | @tsv'
    assert_output "$(printf 'Queued\tnone\tWaiting')"
    run val jobs/r2-third '.status.placement // "none"'
    assert_output none
    run val pools/r2 '[.status.routing.waiting, .status.capacity.gpus.H100.free] | @csv'
    assert_output '2,1'
    # r2-first runs 5s + 30s + 10m
    advance 10m
    run val jobs/r2-second '.status.placement // "none"'
    assert_output none
    advance 40s
    run val jobs/r2-first '.status.phase'
    assert_output Succeeded
    run val jobs/r2-second '.status.placement.host'
    assert_output r2-a
    run val jobs/r2-third '.status.placement.host'
    assert_output r2-a
    run val pools/r2 '[.status.routing.waiting, .status.capacity.gpus.H100.free] | @csv'
    assert_output '0,0'
    run val jobs/r2-first '.status.placement.target'
    assert_output pool/r2
}

@test "suspending or deleting work gives its devices back; resumed work waits its turn" {
    pool_with_host r3 r3-a '{"H100":1}' '{"routing":{"waitTimeout":"24h"}}'
    create jobs "$(pjob_json r3-a r3 1 10h)"
    advance 1s
    create jobs "$(pjob_json r3-b r3 1 10h)"
    advance 1m
    run val jobs/r3-b '.status.placement // "none"'
    assert_output none
    patch jobs/r3-a '{"spec":{"state":"Suspended"}}'
    [ "$CODE" = 200 ]
    advance 1s
    run val jobs/r3-a '[.status.phase, (.status.placement // "none" | tostring)] | @tsv'
    assert_output "$(printf 'Queued\tnone')"
    run val jobs/r3-b '.status.placement.host'
    assert_output r3-a
    # back to Running: it waits behind nobody, but the device is taken
    patch jobs/r3-a '{"spec":{"state":"Running"}}'
    advance 1s
    run val jobs/r3-a '[(.status.placement // "none" | tostring), (.status.conditions[] | select(.type=="Placed") | .reason)] | @tsv'
    assert_output "$(printf 'none\tWaiting')"
    http DELETE "$P/jobs/r3-b"
    [ "$CODE" = 200 ]
    advance 1s
    run val jobs/r3-a '.status.placement.host'
    assert_output r3-a
    run val hosts/r3-a '.status.allocated.H100'
    assert_output 1
}

@test "after waitTimeout, burstToMarket Allow sends the work to the market at the market rate" {
    pool_with_host b1 b1-a '{"H100":1}' '{"routing":{"waitTimeout":"5m","burstToMarket":"Allow"}}'
    create jobs "$(pjob_json b1-fill b1 1 10h)"
    advance 1s
    create jobs "$(pjob_json b1-wait b1 1 10h)"
    advance 4m
    run val jobs/b1-wait '[.status.phase, (.status.placement // "none" | tostring),
        (.status.conditions[] | select(.type=="Placed") | .message)] | @tsv'
    assert_output "$(printf 'Queued\tnone\tno 1 free H100 in pool/b1; waiting up to waitTimeout 5m, then burstToMarket Allow')"
    advance 2m
    run val jobs/b1-wait '[(.status.placement | tojson), .status.rateUSDPerHour,
        (.status.conditions[] | select(.type=="Placed") | .reason)] | @tsv'
    assert_output "$(printf '{"target":"market","gpuModel":"H100"}\t2.49\tBurst')"
    run actions_of b1
    assert_output '[]'
    advance 40s
    run val jobs/b1-wait '.status.phase'
    assert_output Running
}

@test "burstToMarket Approve proposes a Burst PoolAction; approving it bursts the work" {
    pool_with_host b2 b2-a '{"H100":1}' '{"routing":{"waitTimeout":"1m"}}'
    create jobs "$(pjob_json b2-fill b2 1 10h)"
    advance 1s
    create jobs "$(pjob_json b2-wait b2 2 10h)"
    advance 59s
    run actions_of b2
    assert_output '[]'
    advance 2s
    http GET "$P/poolactions?fieldSelector=spec.pool=b2"
    run body_json '.items[] | [.spec.action, .spec.target, .spec.decision, .status.phase, .spec.params.rateUSDPerHour, .spec.params.gpus] | @tsv'
    assert_output "$(printf 'Burst\tjob/b2-wait\tPending\tQueued\t4.98\t2')"
    run body_json '.items[0].metadata.ownerReferences[0] | [.kind, .name, .controller] | @tsv'
    assert_output "$(printf 'Pool\tb2\ttrue')"
    name=$(body_json '.items[0].metadata.name')
    [[ "$name" =~ ^b2-burst-[0-9a-f]{8}$ ]]
    run val pools/b2 '[.status.routing.burstPending, .status.act.pending, (.status.act.lastActionTime != null)] | @csv'
    assert_output '1,1,true'
    run val jobs/b2-wait '[(.status.placement // "none" | tostring), (.status.conditions[] | select(.type=="Placed") | .reason)] | @tsv'
    assert_output "$(printf 'none\tBurstPending')"
    # waiting longer proposes nothing new
    advance 10m
    run val pools/b2 '.status.act.pending'
    assert_output 1
    patch "poolactions/$name" '{"spec":{"decision":"Approved"}}'
    [ "$CODE" = 200 ]
    run body_json '.status.decidedBy'
    assert_output emulator-user
    advance 1s
    run val jobs/b2-wait '[.status.placement.target, .status.rateUSDPerHour] | @tsv'
    assert_output "$(printf 'market\t4.98')"
    advance 40s
    run val "poolactions/$name" '[.status.phase, .status.message] | @tsv'
    assert_output "$(printf 'Succeeded\tjob/b2-wait runs on the market')"
    run val pools/b2 '[.status.routing.burstPending, .status.act.pending] | @csv'
    assert_output '0,0'
    # the decision is taken: it no longer changes
    patch "poolactions/$name" '{"spec":{"decision":"Rejected"}}'
    [ "$CODE" = 422 ]
    run body_json '.details.causes[0].field'
    assert_output spec.decision
}

@test "a rejected burst ends Cancelled and the work keeps waiting for the Pool" {
    pool_with_host b3 b3-a '{"H100":1}' '{"routing":{"waitTimeout":"1m","burstToMarket":"Approve"}}'
    create jobs "$(pjob_json b3-fill b3 1 2h)"
    advance 1s
    create jobs "$(pjob_json b3-wait b3 1 10h)"
    advance 2m
    http GET "$P/poolactions?fieldSelector=spec.pool=b3"
    name=$(body_json '.items[0].metadata.name')
    # users decide with Approved or Rejected only
    patch "poolactions/$name" '{"spec":{"decision":"Shadow"}}'
    [ "$CODE" = 422 ]
    run body_json '.details.causes[0].message'
    assert_output --partial 'decide with Approved or Rejected'
    patch "poolactions/$name" '{"spec":{"decision":"Rejected"}}'
    [ "$CODE" = 200 ]
    advance 1s
    run val "poolactions/$name" '[.status.phase, (.status.conditions[] | select(.type=="Ready") | .reason)] | @tsv'
    assert_output "$(printf 'Cancelled\tRejected')"
    run val jobs/b3-wait '[(.status.placement // "none" | tostring), (.status.conditions[] | select(.type=="Placed") | .reason)] | @tsv'
    assert_output "$(printf 'none\tBurstRejected')"
    # the Pool frees up: the work runs there
    advance 2h
    run val jobs/b3-wait '.status.placement.target'
    assert_output pool/b3
    run actions_of b3
    run jq length <<<"$output"
    assert_output 1
}

@test "burstToMarket Deny keeps the work waiting after waitTimeout" {
    pool_with_host b4 b4-a '{"H100":1}' '{"routing":{"waitTimeout":"1m","burstToMarket":"Deny"}}'
    create jobs "$(pjob_json b4-fill b4 1 10h)"
    advance 1s
    create jobs "$(pjob_json b4-wait b4 1 10h)"
    advance 5m
    run val jobs/b4-wait '[.status.phase, (.status.placement // "none" | tostring), (.status.conditions[] | select(.type=="Placed") | .reason)] | @tsv'
    assert_output "$(printf 'Queued\tnone\tBurstDenied')"
    run actions_of b4
    assert_output '[]'
    run val pools/b4 '.status.routing.waiting'
    assert_output 1
}

@test "waitPolicy Never bursts at once, Cheaper waits for the cheaper Pool; mode Only never uses the market" {
    pool_with_host b5 b5-a '{"H100":1}' '{"routing":{"waitPolicy":"Never","burstToMarket":"Allow"}}'
    create jobs "$(pjob_json b5-fill b5 1 10h)"
    advance 1s
    create jobs "$(pjob_json b5-now b5 1 10h)"
    advance 1s
    run val jobs/b5-now '.status.placement.target'
    assert_output market

    pool_with_host b6 b6-a '{"H100":1}' '{"routing":{"mode":"Only","waitPolicy":"Never","burstToMarket":"Allow"}}'
    create jobs "$(pjob_json b6-fill b6 1 10h)"
    advance 1s
    create jobs "$(pjob_json b6-wait b6 1 10h)"
    advance 3h
    run val jobs/b6-wait '[(.status.placement // "none" | tostring), (.status.conditions[] | select(.type=="Placed") | .message)] | @tsv'
    assert_output "$(printf 'none\tno 1 free H100 in pool/b6; routing mode Only keeps it waiting for the Pool')"
    run actions_of b6
    assert_output '[]'

    # Cheaper: the Pool costs 0.00, so the work waits for it however long it takes
    pool_with_host b8 b8-a '{"H100":1}' '{"routing":{"waitPolicy":"Cheaper","burstToMarket":"Allow"}}'
    create jobs "$(pjob_json b8-fill b8 1 10h)"
    advance 1s
    create jobs "$(pjob_json b8-wait b8 1 10h)"
    advance 5h
    run val jobs/b8-wait '[(.status.placement // "none" | tostring), (.status.conditions[] | select(.type=="Placed") | .message)] | @tsv'
    assert_output "$(printf 'none\tno 1 free H100 in pool/b8; waitPolicy Cheaper waits while the Pool is cheaper than the market')"
    advance 6h
    run val jobs/b8-wait '.status.placement.target'
    assert_output pool/b8
}

@test "a Job's maxRateUSDPerHour below the market keeps it in the Pool" {
    pool_with_host b7 b7-a '{"H100":1}' '{"routing":{"waitPolicy":"Never","burstToMarket":"Allow"}}'
    create jobs "$(pjob_json b7-fill b7 1 10h)"
    advance 1s
    create jobs "$(pjob_json b7-cheap b7 1 10h '{"placement":{"pool":"b7","maxRateUSDPerHour":"1.00"}}')"
    advance 1s
    run val jobs/b7-cheap '[(.status.placement // "none" | tostring), (.status.conditions[] | select(.type=="Placed") | .reason)] | @tsv'
    assert_output "$(printf 'none\tMarketAboveMax')"
}

@test "cordoned Hosts take no new work; uncordoned, they do" {
    create pools "$(pool_json c1 '{"routing":{"waitTimeout":"24h"}}')"
    create hosts "$(host_json c1-a c1 '{"H100":2}' '{"cordoned":true}')"
    advance 15s
    run val pools/c1 '.status.capacity.gpus.H100 | [.free, .total] | @csv'
    assert_output '0,2'
    create jobs "$(pjob_json c1-j c1 1)"
    advance 1m
    run val jobs/c1-j '.status.placement // "none"'
    assert_output none
    patch hosts/c1-a '{"spec":{"cordoned":false}}'
    [ "$CODE" = 200 ]
    advance 1s
    run val jobs/c1-j '.status.placement.host'
    assert_output c1-a
    # cordoning again leaves running work alone
    patch hosts/c1-a '{"spec":{"cordoned":true}}'
    advance 1m
    run val jobs/c1-j '[.status.phase, .status.placement.host] | @tsv'
    assert_output "$(printf 'Running\tc1-a')"
    run val hosts/c1-a '.status.allocated.H100'
    assert_output 1
    # the Host's spec.pool does not change
    patch hosts/c1-a '{"spec":{"pool":"other"}}'
    [ "$CODE" = 422 ]
}

@test "work for a Pool that does not exist waits until it does" {
    create jobs "$(pjob_json n1-j n1 1)"
    advance 1m
    run val jobs/n1-j '[.status.phase, (.status.conditions[] | select(.type=="Placed") | .reason)] | @tsv'
    assert_output "$(printf 'Queued\tPoolNotFound')"
    pool_with_host n1 n1-a '{"H100":1}'
    advance 1s
    run val jobs/n1-j '.status.placement.target'
    assert_output pool/n1
}

@test "CPU Sandboxes run in a sandboxCapable Pool, and wait in one that is not" {
    pool_with_host s1 s1-a '{"H100":1}' '{"sandboxCapable":true}'
    create sandboxes '{"metadata":{"name":"s1-box"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","placement":{"pool":"s1"}}}'
    advance 15s
    run val sandboxes/s1-box '[.status.phase, .status.placement.target, .status.placement.host, .status.rateUSDPerHour] | @tsv'
    assert_output "$(printf 'Running\tpool/s1\ts1-a\t0.00')"
    # CPU work takes no device
    run val pools/s1 '.status.capacity.gpus.H100.free'
    assert_output 1

    pool_with_host s2 s2-a '{"H100":1}' '{"routing":{"mode":"Only"}}'
    create sandboxes '{"metadata":{"name":"s2-box"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","placement":{"pool":"s2"}}}'
    advance 1m
    run val sandboxes/s2-box '[.status.phase, (.status.conditions[] | select(.type=="Placed") | .message)] | @tsv'
    assert_output "$(printf 'Pending\tpool/s2 does not run CPU Sandboxes (spec.sandboxCapable); routing mode Only keeps it waiting for the Pool')"
}

@test "a GPU Sandbox takes a device of its Pool until it stops" {
    pool_with_host s3 s3-a '{"H100":1}' '{"routing":{"waitTimeout":"24h"}}'
    create sandboxes '{"metadata":{"name":"s3-box"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","idleTimeout":"24h","placement":{"pool":"s3"},"resources":{"gpu":{"model":"H100","count":1}}}}'
    advance 15s
    run val hosts/s3-a '.status.allocated.H100'
    assert_output 1
    patch sandboxes/s3-box '{"spec":{"state":"Stopped"}}'
    advance 1s
    run val hosts/s3-a '.status.allocated.H100'
    assert_output 0
    # started again, it is placed again
    patch sandboxes/s3-box '{"spec":{"state":"Running"}}'
    advance 15s
    run val sandboxes/s3-box '[.status.phase, .status.placement.host] | @tsv'
    assert_output "$(printf 'Running\ts3-a')"
    run val hosts/s3-a '.status.allocated.H100'
    assert_output 1
}

@test "utilization: device-hours and the busy share over the last 24 hours" {
    create pools "$(pool_json u1)"
    # the work is there before the host: it takes the device the moment the host is Ready
    create jobs "$(pjob_json u1-j u1 1 2h)"
    create hosts "$(host_json u1-a u1 '{"H100":1}')"
    advance 15s
    run val jobs/u1-j '.status.placement.host'
    assert_output u1-a
    advance 1h
    refresh u1
    run val pools/u1 '.status.utilization | [.deviceHours, .gpuPercent, .window] | @tsv'
    assert_output "$(printf '1.00\t100\t24h')"
    http GET "$P/pools/u1" - -H "$TABLE"
    run body_json '.rows[0].cells[5]'
    assert_output '100%'
    # it ends 2h35s after it was placed; a day later the window has moved past it
    advance 2h
    refresh u1
    run val pools/u1 '.status.utilization | [.deviceHours, .gpuPercent] | @tsv'
    assert_output "$(printf '2.01\t67')"
    advance 25h
    run val pools/u1 '.status.utilization | [.deviceHours, .gpuPercent] | @tsv'
    assert_output "$(printf '0.00\t0')"
}

@test "a Pool created with nothing gets every default of its reference" {
    create pools "$(pool_json d0)"
    run body_json '.spec | tojson'
    assert_output '{"act":{"mode":"Off"},"predict":{"horizon":"168h"},"routing":{"burstToMarket":"Approve","mode":"Prefer","waitPolicy":"Timeout","waitTimeout":"30m"}}'
    http POST "$P/pools" '{"apiVersion":"nodus.dev/v1","kind":"Pool","metadata":{"name":"d00"}}'
    [ "$CODE" = 422 ]
    run body_json '.details.causes[0].field'
    assert_output spec
}

# bound VALUE-JSON-PATCH expected-code [field]
bound() {
    http POST "$P/pools?dryRun=All" "$(pool_json bounds "$1")"
    [ "$CODE" = "$2" ] || { echo "$1: $CODE $(cat "$BODY")" >&2; return 1; }
    if [ -n "${3:-}" ]; then
        [ "$(body_json .reason)" = Invalid ]
        [ "$(body_json '.details.causes[0].field')" = "$3" ] || { cat "$BODY" >&2; return 1; }
    fi
}

@test "the Pool's bounds: waitTimeout 1m to 24h, horizon 24h to 720h, 16 policies, its enums" {
    bound '{"routing":{"waitTimeout":"1m"}}' 201
    bound '{"routing":{"waitTimeout":"24h"}}' 201
    bound '{"routing":{"waitTimeout":"59s"}}' 422 spec.routing.waitTimeout
    bound '{"routing":{"waitTimeout":"24h0m1s"}}' 422 spec.routing.waitTimeout
    bound '{"predict":{"horizon":"24h"}}' 201
    bound '{"predict":{"horizon":"720h"}}' 201
    bound '{"predict":{"horizon":"23h59m"}}' 422 spec.predict.horizon
    bound '{"predict":{"horizon":"721h"}}' 422 spec.predict.horizon
    bound '{"routing":{"mode":"Sometimes"}}' 422 spec.routing.mode
    bound '{"routing":{"burstToMarket":"Maybe"}}' 422 spec.routing.burstToMarket
    bound '{"routing":{"waitPolicy":"Forever"}}' 422 spec.routing.waitPolicy
    bound '{"act":{"mode":"Manual"}}' 422 spec.act.mode
    bound '{"act":{"policies":[{"action":"Sleep"}]}}' 422 'spec.act.policies[0].action'
    bound '{"act":{"policies":[{"idleFor":"1h"}]}}' 422 'spec.act.policies[0].action'
    bound '{"act":{"policies":[{"action":"Burst","maxRateUSDPerHour":"cheap"}]}}' 422 'spec.act.policies[0].maxRateUSDPerHour'
    bound '{"act":{"policies":[{"action":"Drain","schedule":"every night"}]}}' 422 'spec.act.policies[0].schedule'
    bound "$(jq -cn '{act:{policies:[range(16) | {action:"Defragment"}]}}')" 201
    bound "$(jq -cn '{act:{policies:[range(17) | {action:"Defragment"}]}}')" 422 spec.act.policies
}

@test "every spec field of a Pool may change; a Host's only cordoned" {
    create pools "$(pool_json m1)"
    http PUT "$P/pools/m1" "$(pool_json m1 '{"sandboxCapable":true,"routing":{"mode":"Only","waitTimeout":"2h"},"act":{"mode":"Auto","paused":true}}')"
    [ "$CODE" = 200 ]
    run body_json '[.spec.sandboxCapable, .spec.routing.mode, .spec.routing.waitTimeout, .spec.routing.burstToMarket, .spec.act.mode, .metadata.generation] | @csv'
    assert_output 'true,"Only","2h","Approve","Auto",2'
    create hosts "$(host_json m1-a m1 '{"H100":1}')"
    patch hosts/m1-a '{"spec":{"gpus":{"H100":2}}}'
    [ "$CODE" = 422 ]
    run body_json .reason
    assert_output FieldImmutable
}

@test "deleting a Pool deletes its PoolActions; its work then waits for it" {
    pool_with_host x1 x1-a '{"H100":1}' '{"routing":{"waitTimeout":"1m"}}'
    create jobs "$(pjob_json x1-fill x1 1 10h)"
    advance 1s
    create jobs "$(pjob_json x1-wait x1 1 10h)"
    advance 2m
    run actions_of x1
    run jq length <<<"$output"
    assert_output 1
    http DELETE "$P/pools/x1"
    [ "$CODE" = 200 ]
    advance 1s
    run actions_of x1
    assert_output '[]'
    run val jobs/x1-wait '(.status.conditions[] | select(.type=="Placed") | .reason)'
    assert_output PoolNotFound
    run val hosts/x1-a '.status.conditions[] | select(.type=="Enrolled") | .status'
    assert_output False
}

@test "the emulator stops cleanly, without sanitizer reports" {
    stop_emulator
    assert_no_sanitizer_reports
}
