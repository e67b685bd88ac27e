#!/usr/bin/env bats
# The simulation of Sandboxes: Pending, Starting after 2s, Running after 10s more, cost
# while Running, spec.state Stopped and back, idleTimeout, restart requests, Terminating.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

SBX=/apis/nodus.dev/v1/namespaces/default/sandboxes
MERGE=(-H 'Content-Type: application/merge-patch+json')

get() {
    curl -sf "$(emu_url)$SBX/$1" | jr "$2"
}

# sandbox NAME [extra spec]: an L4 Sandbox (0.39/h).
sandbox() {
    jq -cn --arg n "$1" --argjson x "${2:-{\}}" \
        '{apiVersion:"nodus.dev/v1",kind:"Sandbox",metadata:{name:$n},
          spec:({image:"nodus/pytorch:2.8-cuda12.8",maxCostUSD:"10.00",
                 resources:{gpu:{model:"L4",count:1}}} + $x)}'
}

@test "a Sandbox goes Pending, Starting after 2s, Running after 10s more" {
    http POST $SBX "$(sandbox up)"
    [ "$CODE" = 201 ]
    [ "$(body_json .status.phase)" = Pending ]
    clock_advance 2s
    [ "$(get up .status.phase)" = Starting ]
    clock_advance 9s
    [ "$(get up .status.phase)" = Starting ]
    clock_advance 1s
    [ "$(get up .status.phase)" = Running ]
    [ "$(get up '.status.conditions[] | select(.type=="Ready") | .status')" = True ]
    [ "$(get up .status.rateUSDPerHour)" = 0.39 ]
}

@test "a Running Sandbox costs its rate; Stopped stops the cost, Running starts it again" {
    http POST $SBX "$(sandbox work '{"idleTimeout":"100h"}')"
    clock_advance 12s
    clock_advance 1h
    [ "$(get work .status.costUSD)" = 0.39 ]
    http PATCH $SBX/work '{"spec":{"state":"Stopped"}}' "${MERGE[@]}"
    clock_advance 1s
    [ "$(get work .status.phase)" = Stopped ]
    clock_advance 5h
    [ "$(get work .status.costUSD)" = 0.39 ]
    http PATCH $SBX/work '{"spec":{"state":"Running"}}' "${MERGE[@]}"
    clock_advance 1s
    [ "$(get work .status.phase)" = Pending ]
    clock_advance 12s
    [ "$(get work .status.phase)" = Running ]
    clock_advance 1h
    [ "$(get work .status.costUSD)" = 0.78 ]
}

@test "with no exec session for idleTimeout it stops, reason IdleTimeout" {
    http POST $SBX "$(sandbox idle '{"idleTimeout":"10m"}')"
    clock_advance 12s
    clock_advance 9m59s
    [ "$(get idle .status.phase)" = Running ]
    clock_advance 1s
    [ "$(get idle .status.phase)" = Stopped ]
    [ "$(get idle .status.reason)" = IdleTimeout ]
    [ "$(get idle '.status.conditions[] | select(.type=="Ready") | .reason')" = IdleTimeout ]
}

@test "maxCostUSD stops it with MaxCostReached" {
    http POST $SBX "$(sandbox dear '{"maxCostUSD":"0.10","idleTimeout":"100h"}')"
    clock_advance 12s
    clock_advance 10h
    [ "$(get dear .status.phase)" = Stopped ]
    [ "$(get dear .status.reason)" = MaxCostReached ]
    [ "$(get dear .status.costUSD)" = 0.10 ]
}

@test "a restart request restarts it once per new value" {
    http POST $SBX "$(sandbox again)"
    clock_advance 12s
    http PATCH $SBX/again '{"metadata":{"annotations":{"nodus.dev/restart-requested-at":"2026-01-01T00:00:00Z"}}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    clock_advance 1s
    [ "$(get again .status.phase)" = Pending ]
    [ "$(get again .status.restartCount)" = 1 ]
    [ "$(get again .status.requests.restart)" = 2026-01-01T00:00:00Z ]
    clock_advance 12s
    [ "$(get again .status.phase)" = Running ]
    # the same value again is not a new request
    http PATCH $SBX/again '{"metadata":{"labels":{"touch":"1"}}}' "${MERGE[@]}"
    clock_advance 1s
    [ "$(get again .status.phase)" = Running ]
    [ "$(get again .status.restartCount)" = 1 ]
    http PATCH $SBX/again '{"metadata":{"annotations":{"nodus.dev/restart-requested-at":"2026-01-02T00:00:00Z"}}}' "${MERGE[@]}"
    clock_advance 1s
    [ "$(get again .status.restartCount)" = 2 ]
}

@test "a deleted Sandbox is Terminating until its final charge posts" {
    http POST $SBX "$(sandbox bye)"
    clock_advance 12s
    clock_advance 10m
    http DELETE $SBX/bye
    clock_advance 1s
    [ "$(get bye .status.phase)" = Terminating ]
    clock_advance 30s
    http GET $SBX/bye
    [ "$CODE" = 404 ]
}

@test "every transition is an Event on the Sandbox" {
    http POST $SBX "$(sandbox told '{"idleTimeout":"1m"}')"
    clock_advance 12s
    clock_advance 1m
    run bash -c "curl -sf '$(emu_url)/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dtold' |
        jq -r '.items | sort_by(.metadata.resourceVersion | tonumber) | [.[].reason] | join(\",\")'"
    assert_output Created,Starting,Running,IdleTimeout
}
