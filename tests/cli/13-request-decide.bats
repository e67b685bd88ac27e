#!/usr/bin/env bats
# nodus request (one-off actions through nodus.dev/ACTION-requested-at) and
# nodus approve / reject (PoolAction decisions).

load ../lib/common

bats_require_minimum_version 1.5.0

API=/apis/nodus.dev/v1/namespaces/default

setup_file() {
    start_emulator
    export NODUS_SERVER=$EMU_URL
}

teardown_file() {
    stop_emulator
}

setup() {
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$(emu_url)
}

poolaction() {
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$(emu_url)$API/poolactions" \
        -d "$(jq -cn --arg n "$1" '{apiVersion:"nodus.dev/v1",kind:"PoolAction",metadata:{name:$n},
              spec:{pool:"lab",action:"IdleReclaim",target:"host/h1",reason:"idle for 2h",decision:"Pending"}}')"
}

@test "request restart sets the annotation to now and the Sandbox restarts once" {
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$(emu_url)$API/sandboxes" \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"dev"},
             "spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"5.00"}}'
    clock_advance 12s
    run -0 --separate-stderr nodus request restart sandbox/dev
    assert_output "sandbox.nodus.dev/dev restart requested"
    local at
    at=$(curl -sf "$(emu_url)$API/sandboxes/dev" | jq -r '.metadata.annotations["nodus.dev/restart-requested-at"]')
    [[ "$at" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$ ]]
    clock_advance 1s
    run -0 nodus get sandbox dev -o 'jsonpath={.status.restartCount} {.status.requests.restart} {.status.phase}'
    assert_output "1 $at Pending"
}

@test "request: usage errors name what is missing" {
    run -2 --separate-stderr nodus request restart
    assert_equal "$stderr" "error: name the action and the objects: nodus request ACTION KIND/NAME... (e.g. nodus request restart sandbox/dev)
See 'nodus request --help' for usage."
    run -2 --separate-stderr nodus request Restart sandbox/dev
    assert_equal "$stderr" "error: action \"Restart\": must be lower-case letters, digits and '-' (e.g. restart)
See 'nodus request --help' for usage."
    run -3 --separate-stderr nodus request restart sandbox/nope
    assert_output ""
    [[ "$stderr" == *'sandboxes.nodus.dev "nope" not found'* ]]
}

@test "approve and reject set spec.decision; a bare name is a PoolAction" {
    # PoolActions belong to a Pool (without one they end Cancelled at once)
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$(emu_url)$API/pools" \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Pool","metadata":{"name":"lab"},"spec":{}}'
    poolaction reclaim-1
    poolaction reclaim-2
    run -0 --separate-stderr nodus approve reclaim-1 --dry-run=server
    assert_output "poolaction.nodus.dev/reclaim-1 approved (server dry run)"
    [ "$(curl -sf "$(emu_url)$API/poolactions/reclaim-1" | jq -r .spec.decision)" = Pending ]
    run -0 --separate-stderr nodus approve reclaim-1
    assert_output "poolaction.nodus.dev/reclaim-1 approved"
    [ "$(curl -sf "$(emu_url)$API/poolactions/reclaim-1" | jq -r .spec.decision)" = Approved ]
    run -0 --separate-stderr nodus reject poolaction/reclaim-2
    assert_output "poolaction.nodus.dev/reclaim-2 rejected"
    [ "$(curl -sf "$(emu_url)$API/poolactions/reclaim-2" | jq -r .spec.decision)" = Rejected ]
}

@test "approve: only PoolActions; a decided one cannot be decided again" {
    run -2 --separate-stderr nodus approve job/train
    assert_equal "$stderr" "error: jobs cannot be approved: only PoolActions wait for a decision
See 'nodus approve --help' for usage."
    run -1 --separate-stderr nodus reject reclaim-1
    [[ "$stderr" == *"Invalid"* || "$stderr" == *"invalid"* ]]
    [ "$(curl -sf "$(emu_url)$API/poolactions/reclaim-1" | jq -r .spec.decision)" = Approved ]
    run -2 --separate-stderr nodus approve
    [[ "$stderr" == *"name the PoolActions"* ]]
}
