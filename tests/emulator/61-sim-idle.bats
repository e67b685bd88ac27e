#!/usr/bin/env bats
# An ended Job whose final charge has posted has nothing left for its controller to do;
# the controller reads that from the object's record (emulator/store/entry.h) and builds
# no tree of it (emulator/sim/sim.c, the Job controller's idle). What makes every object
# due at once (a price book's edit, a start after a crash) then costs a large state of
# ended Jobs no tree each (trees.built and reconciles in /emulator/v1/stats), and writes
# nothing, as before.

load ../lib/common

N=30
JOBS=/apis/nodus.dev/v1/namespaces/s/jobs

setup_file() {
    start_emulator
    export T=$BATS_FILE_TMPDIR
    http POST /api/v1/namespaces '{"metadata":{"name":"s"}}'
    [ "$CODE" = 201 ]
    local i
    for i in $(seq 1 $((N - 2))); do
        http POST $JOBS "$(job_json "j$i")"
        [ "$CODE" = 201 ]
    done
    # ends of other kinds: a failure after a minute, and a cancel before it ran
    http POST $JOBS "$(job_json fails '{"resources":{"gpu":{"model":"L4","count":1}}}' |
        jq -c '.metadata.annotations = {"emulator.nodus.dev/fail-at": "1m"}')"
    [ "$CODE" = 201 ]
    http POST $JOBS "$(job_json cancelled '{"state":"Cancelled"}')"
    [ "$CODE" = 201 ]
    # the queue, provisioning, ten minutes of running and the final charge
    clock_advance 12m
}

teardown_file() { stop_emulator; }

stats() { curl -sf "$(emu_url)/emulator/v1/stats"; }
# the Jobs' names, phases and resourceVersions, and the Events' count
snapshot() {
    curl -sf "$(emu_url)$JOBS" |
        jq -c '[.items[] | [.metadata.name, .status.phase, .metadata.resourceVersion,
                .status.billing.settled]]'
    curl -sf "$(emu_url)/api/v1/namespaces/s/events" | jq '.items | length'
}
# whether the controllers have run over N objects more than $1 (reconciles.run)
ran_over() { [ "$(stats | jq .reconciles.run)" -ge $(($1 + N)) ]; }

@test "every Job ended and its final charge posted, each with its Events" {
    local jobs phases
    jobs=$(snapshot | head -n 1)
    phases=$(jq -r '.[] | .[1]' <<<"$jobs")
    [ "$(grep -c '^Succeeded$' <<<"$phases")" = $((N - 2)) ]
    [ "$(grep -c '^Failed$' <<<"$phases")" = 1 ]
    [ "$(grep -c '^Cancelled$' <<<"$phases")" = 1 ]
    run jq -e 'all(.[]; .[3] == true)' <<<"$jobs"
    assert_success
    run curl -sf "$(emu_url)/api/v1/namespaces/s/events?fieldSelector=reason%3DCharged"
    [ "$(jq '.items | length' <<<"$output")" = $((N - 1)) ] # the cancelled one never ran
}

@test "after a crash every ended Job is looked at again from its record alone" {
    snapshot >"$T/before"
    # a clean stop writes the checkpoint (the records the next start reads back), a start
    # takes the schedule back, and a kill leaves none: the start after it runs every object
    stop_emulator
    start_emulator --listen "127.0.0.1:$(cat "$T/port")"
    kill -KILL "$EMU_PID"
    wait_until pid_gone "$EMU_PID"
    rm -f "$T/emulator.pid"
    start_emulator --listen "127.0.0.1:$(cat "$T/port")"
    wait_until ran_over 0
    run stats
    echo "$output" | jq -c '{trees, reconciles, revision}'
    run jq -e --argjson n $N '.reconciles.run == $n and .reconciles.idle == $n and
        .reconciles.treesBuilt == 0 and .trees.built == 0' <<<"$output"
    assert_success
    snapshot >"$T/after"
    diff "$T/before" "$T/after"
}

@test "a price book's edit looks at every ended Job again without building its tree" {
    snapshot >"$T/before"
    local s0
    s0=$(stats)
    http GET /emulator/v1/pricebook
    http PUT /emulator/v1/pricebook "$(jq -c '.gpu.market.L4 = "0.45"' "$BODY")"
    [ "$CODE" = 200 ]
    wait_until ran_over "$(jq .reconciles.run <<<"$s0")"
    local s1
    s1=$(stats)
    echo "$s0" | jq -c '{trees, reconciles, revision}'
    echo "$s1" | jq -c '{trees, reconciles, revision}'
    # each Job's controller ran; none built a tree (their trees are cold since the
    # restart), none wrote
    run jq -n --argjson a "$s0" --argjson b "$s1" --argjson n $N \
        '($b.reconciles.idle - $a.reconciles.idle) >= $n and
         $b.reconciles.treesBuilt == $a.reconciles.treesBuilt and
         $b.trees.built == $a.trees.built and $b.revision == $a.revision'
    assert_output true
    snapshot >"$T/after"
    diff "$T/before" "$T/after"
}

@test "an ended Job whose final charge is ahead is not idle: the charge posts on time" {
    http POST $JOBS "$(job_json late | jq -c '.metadata.annotations = {"emulator.nodus.dev/duration": "1m"}')"
    [ "$CODE" = 201 ]
    # queued 5 s, provisioning 30 s, running 1 m: ended at 95 s, charged at 125 s
    clock_advance 2m
    http GET $JOBS/late
    [ "$(body_json .status.phase)" = Succeeded ]
    [ "$(body_json .status.billing.settled)" = null ]
    local s0 s1
    s0=$(stats)
    clock_advance 10s
    http GET $JOBS/late
    [ "$(body_json .status.billing.settled)" = true ]
    [ "$(body_json .status.billing.finalChargeTime)" = "$(body_json .status.completionTime |
        jq -Rr 'fromdateiso8601 + 30 | todateiso8601')" ]
    s1=$(stats)
    echo "$s0" | jq -c .reconciles
    echo "$s1" | jq -c .reconciles
    run jq -n --argjson a "$s0" --argjson b "$s1" \
        '($b.reconciles.run - $b.reconciles.idle) > ($a.reconciles.run - $a.reconciles.idle)'
    assert_output true
    run curl -sf "$(emu_url)/api/v1/namespaces/s/events?fieldSelector=involvedObject.name%3Dlate,reason%3DCharged"
    [ "$(jq '.items | length' <<<"$output")" = 1 ]
}
