#!/usr/bin/env bats
# The conditions kubectl users wait for: a run-to-completion object (Job, Pipeline) that
# (Job, Pipeline, PoolAction) ends carries Complete=True when it Succeeded and Failed=True
# when it Failed or was Cancelled, with the end's reason and message, since
# completionTime, as Kubernetes Jobs do; an object that ended in a state saved before the emulator set them gains them at
# the next start. Then `nodus wait --for=condition=Complete` on a Succeeded Job returns at
# once, and a wait that can never be met ends at once with its reason.

load pools # ../lib/common, and the Pools and Hosts a PoolAction needs

bats_require_minimum_version 1.5.0

API=/apis/nodus.dev/v1/namespaces/default
IMAGE=nodus/pytorch:2.8-cuda12.8

setup_file() {
    start_emulator # --speed 0: the clock moves only when a test advances it
}

teardown_file() {
    stop_emulator
}

setup() {
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$(emu_url)
    cd "$BATS_TEST_TMPDIR"
}

# job NAME [ANNOTATIONS-JSON] [EXTRA-SPEC-JSON]: a Job of an emulated 10 minutes.
job() {
    http POST "$API/jobs" "$(job_json "$1" "${3:-{\}}" | jq -c --argjson a "${2:-{\}}" \
        '.metadata.annotations = ({"emulator.nodus.dev/duration": "10m"} + $a)')"
    [ "$CODE" = 201 ]
}

# The conditions of an object, one "type=status reason: message" per line, Ready left out.
ends() {
    http GET "$API/$1"
    [ "$CODE" = 200 ]
    body_json '.status.conditions[] | select(.type != "Ready")
        | "\(.type)=\(.status) \(.reason): \(.message)"'
}

# lastTransitionTime of the condition TYPE of the last GET.
since() {
    body_json ".status.conditions[] | select(.type == \"$1\") | .lastTransitionTime"
}

@test "a Job that succeeds: Complete=True since completionTime, and no Failed" {
    job ok
    run -0 ends jobs/ok
    assert_output ""
    advance 15m
    run -0 ends jobs/ok
    assert_output "Complete=True Succeeded: the command exited 0"
    http GET "$API/jobs/ok"
    [ "$(since Complete)" = "$(body_json .status.completionTime)" ]
    [ "$(body_json '.status.conditions[] | select(.type == "Complete") | .observedGeneration')" = 1 ]
}

@test "a Job that fails, or is stopped by a limit, or cancelled: Failed=True with the reason" {
    job bad '{"emulator.nodus.dev/exit-code":"3"}'
    job slow '{"emulator.nodus.dev/duration":"2h"}' '{"maxDuration":"30m"}'
    job gone '{"emulator.nodus.dev/duration":"2h"}'
    advance 5m
    http PATCH "$API/jobs/gone" '{"spec":{"state":"Cancelled"}}' -H 'Content-Type: application/merge-patch+json'
    [ "$CODE" = 200 ]
    advance 40m
    run -0 ends jobs/bad
    assert_output "Failed=True Error: the command exited with an error"
    run -0 ends jobs/slow
    assert_output "Failed=True DeadlineExceeded: stopped: the run reached maxDuration"
    run -0 ends jobs/gone
    assert_output "Failed=True Cancelled: cancelled: spec.state is Cancelled"
    [ "$(since Failed)" = "$(body_json .status.completionTime)" ]
}

@test "a Pipeline ends the same way: Complete=True when every step succeeded" {
    http POST "$API/pipelines" "$(jq -cn --arg i "$IMAGE" '{apiVersion:"nodus.dev/v1",
        kind:"Pipeline",metadata:{name:"pipe",annotations:{"emulator.nodus.dev/duration":"5m"}},
        spec:{steps:[{name:"a",job:{image:$i,maxCostUSD:"10.00"}}]}}')"
    [ "$CODE" = 201 ]
    advance 10m
    run -0 ends pipelines/pipe
    assert_line "Complete=True Succeeded: every step succeeded"
    run -0 ends jobs/pipe-a
    assert_output "Complete=True Succeeded: the command exited 0"
}

@test "a PoolAction ends the same way: a Shadow one, Cancelled, has Failed=True" {
    pool_with_host act act-h '{"H100":1}' \
        '{"act":{"mode":"Shadow","policies":[{"action":"IdleReclaim","idleFor":"1h"}]}}'
    advance 61m
    http GET "$API/poolactions?fieldSelector=spec.pool=act"
    run body_json '.items[] | .status.phase, (.status.conditions[] | select(.type != "Ready")
        | "\(.type)=\(.status) \(.reason)")'
    assert_output "Cancelled
Failed=True Shadow"
}

@test "wait --for=condition=Complete on a Succeeded Job: met at once; Ready: ends at once, exit 1" {
    job done
    advance 15m
    run -0 --separate-stderr nodus wait job/done --for=condition=Complete --timeout=20s
    assert_output "job.nodus.dev/done condition met"
    run -1 --separate-stderr nodus wait job/done --for=condition=Ready --timeout=20s
    assert_output ""
    assert_equal "$stderr" "error: job.nodus.dev/done ended Succeeded without meeting the condition: Ready is False (Succeeded: the command exited 0)
fix: an ended Job's conditions do not change; to wait for its end: nodus wait job/done -n default --for=condition=Complete"
    # the fix works
    run -0 --separate-stderr nodus wait job/done -n default --for=condition=Complete
    # and Failed never comes to it
    run -1 --separate-stderr nodus wait job/done --for=condition=Failed --timeout=20s
    [ "${stderr_lines[0]}" = "error: job.nodus.dev/done ended Succeeded without meeting the condition: it has no condition Failed" ]
}

@test "wait --for=condition=Complete on a Failed Job ends at once with why, exit 1" {
    job broke '{"emulator.nodus.dev/exit-code":"2"}'
    advance 15m
    run -1 --separate-stderr nodus wait job/broke --for=condition=Complete --timeout=20s
    assert_output ""
    assert_equal "$stderr" "error: job.nodus.dev/broke ended Failed without meeting the condition: it has no condition Complete
fix: it will not run again; see why it ended: nodus describe job/broke -n default"
    run -0 --separate-stderr nodus wait job/broke --for=condition=Failed --timeout=20s
    assert_output "job.nodus.dev/broke condition met"
}

@test "a Job that ended in a state saved without the conditions gains them at the next start" {
    job old
    advance 15m
    http GET "$API/jobs/old"
    [ "$(body_json '[.status.conditions[].type] | sort | join(",")')" = Complete,Ready ]
    stop_emulator
    # the state as an emulator that did not set them saved it
    local f=$EMU_STATE/objects/default/jobs/old.json
    jq -c '.status.conditions |= map(select(.type != "Complete"))' "$f" >"$f.new"
    mv "$f.new" "$f"
    # with no controller to add it, wait says how to wait on such a server
    start_emulator --no-simulation
    export NODUS_SERVER=$(emu_url)
    run -1 --separate-stderr nodus wait job/old --for=condition=Complete --timeout=20s
    assert_equal "$stderr" "error: job.nodus.dev/old ended Succeeded without meeting the condition: it has no condition Complete
fix: its server sets no Complete condition; wait for the phase: nodus wait job/old -n default --for=jsonpath='{.status.phase}'=Succeeded"
    run -0 --separate-stderr nodus wait job/old -n default --for=jsonpath='{.status.phase}'=Succeeded
    stop_emulator
    start_emulator
    export NODUS_SERVER=$(emu_url)
    run -0 ends jobs/old
    assert_output "Complete=True Succeeded: the command exited 0"
    [ "$(since Complete)" = "$(body_json .status.completionTime)" ]
    run -0 --separate-stderr nodus wait job/old --for=condition=Complete --timeout=20s
}
