#!/usr/bin/env bats
# A write's compact JSON is spliced from the bytes of the stored tree it replaces where
# the two share values (store/splice.h): a controller's working copy shares all it does
# not change (a running Job's minute: three values), a request's write its managedFields.
# The bytes must be jansson's dump of the new tree: this emulator runs with
# NODUS_EMULATOR_TEST_CHECK_DUMP, which dumps every spliced write again with jansson and
# aborts at a difference, through a Job's whole life (the simulation's writes) and the
# writes of requests (patches, a replace, an apply, a delete). With it too a running
# Job's minute made from its bytes without a tree (sim/controllers/job_minute.c) is made
# again by reconcile on the tree, and a difference of its bytes, its record or its due
# time aborts. 64-minute-paths.bats
# compares the two paths' objects, journals and files byte for byte.

load ../lib/common

JOBS=/apis/nodus.dev/v1/namespaces/s/jobs

setup_file() {
    NODUS_EMULATOR_TEST_CHECK_DUMP=1 start_emulator
    export T=$BATS_FILE_TMPDIR
    http POST /api/v1/namespaces '{"metadata":{"name":"s"}}'
    [ "$CODE" = 201 ]
}

teardown_file() { stop_emulator; }

alive() { kill -0 "$EMU_PID" && ! grep -q differs "$T/emulator.err"; }

spliced() { curl -sf "$(emu_url)/emulator/v1/stats" | jq .trees.spliced; }

# the members of the object in BODY in the order the store writes them
in_order() {
    jq -e '
        def order($o): . as $k | $o | map(select(. as $x | $k | index($x)));
        (keys_unsorted | . == order(["apiVersion", "kind", "metadata", "spec", "status"] +
            (. - ["apiVersion", "kind", "metadata", "spec", "status"]))) and
        (.metadata | keys_unsorted |
            . == order(["name", "generateName", "namespace", "uid", "resourceVersion",
                "generation", "creationTimestamp", "deletionTimestamp",
                "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
                "finalizers", "managedFields"]))' "$BODY"
}

@test "a Job's life, written by the simulation: every spliced write is jansson's dump" {
    # members out of the order the store writes, a value with escapes and UTF-8
    http POST $JOBS '{"spec":{"image":"nodus/pytorch:2.8-cuda12.8","command":["python","-c","print(\"é\\n{}\")"],"resources":{"gpu":{"model":"H100","count":1}},"maxCostUSD":"40.00"},"metadata":{"annotations":{"emulator.nodus.dev/duration":"3m","note":"a \"q\" \\ {"},"labels":{"tier":"1"},"name":"life"},"kind":"Job","apiVersion":"nodus.dev/v1"}'
    [ "$CODE" = 201 ]
    run in_order
    assert_success
    local before
    before=$(spliced)
    clock_advance 10s # Provisioning
    clock_advance 40s # Running
    local i
    for i in 1 2 3 4; do
        clock_advance 1m # the cost accrues, then the end (3m) and the final charge
    done
    clock_advance 5m
    alive
    http GET $JOBS/life
    [ "$CODE" = 200 ]
    run jq -r '"\(.status.phase) \(.status.billing.settled)"' "$BODY"
    assert_output "Succeeded true"
    run in_order
    assert_success
    # the minutes were spliced (the check ran on them), and one, its cost alone, made from
    # the bytes (sim/controllers/job_minute.c: checked against reconcile's write)
    [ "$(spliced)" -ge $((before + 3)) ]
    [ "$(curl -sf "$(emu_url)/emulator/v1/stats" | jq .reconciles.fromBytes)" -ge 1 ]
}

@test "the writes of requests: patches, a replace, an apply and a delete" {
    http POST $JOBS "$(job_json req '{"resources":{"gpu":{"model":"H100","count":1}}}')"
    [ "$CODE" = 201 ]
    clock_advance 1m # running
    http PATCH $JOBS/req '{"metadata":{"labels":{"a":"b","c.d/e":"f"}}}' \
        -H 'Content-Type: application/merge-patch+json'
    [ "$CODE" = 200 ]
    http PATCH $JOBS/req '[{"op":"add","path":"/metadata/annotations","value":{"x":"y"}}]' \
        -H 'Content-Type: application/json-patch+json'
    [ "$CODE" = 200 ]
    http GET $JOBS/req
    jq -c '.spec.maxCostUSD = "41.00" | .metadata.labels.a = "z"' "$BODY" >"$T/put.json"
    http PUT $JOBS/req "$(cat "$T/put.json")"
    [ "$CODE" = 200 ]
    run in_order
    assert_success
    http PATCH "$JOBS/req?fieldManager=me" \
        '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"req","labels":{"applied":"yes"}}}' \
        -H 'Content-Type: application/apply-patch+yaml'
    [ "$CODE" = 200 ]
    clock_advance 2m
    http DELETE $JOBS/req
    [[ $CODE == 20? ]]
    clock_advance 10m # the final charge, then it goes
    gone() { http GET $JOBS/req && [ "$CODE" = 404 ]; }
    wait_until gone
    alive
}

from_bytes() { curl -sf "$(emu_url)/emulator/v1/stats" | jq .reconciles.fromBytes; }

# minutes N: N emulated minutes, one at a time
minutes() {
    local i
    for ((i = 0; i < $1; i++)); do clock_advance 1m; done
}

@test "a running Job's minutes around other changes: each one made from the bytes is reconcile's" {
    # (each change below sends the next minute to reconcile, on the tree; one made from the
    # bytes when it should not be differs from reconcile's and aborts)
    http POST $JOBS "$(job_json around '{"resources":{"gpu":{"model":"H100","count":1}},"maxDuration":"40m"}' |
        jq -c '.metadata.annotations = {"emulator.nodus.dev/duration": "30m"}')"
    [ "$CODE" = 201 ]
    clock_advance 10s # Provisioning
    clock_advance 40s # Running
    minutes 3         # runMs added (the tree), then from the bytes
    local before
    before=$(from_bytes)
    [ "$before" -ge 1 ]
    patch() {
        http PATCH $JOBS/around "$1" -H 'Content-Type: application/merge-patch+json'
        [ "$CODE" = 200 ]
    }
    patch '{"metadata":{"labels":{"tier":"2"}}}' # a user's write
    minutes 2
    patch '{"metadata":{"annotations":{"emulator.nodus.dev/duration":"14m"}}}'
    minutes 2
    clock_advance 30s # (half-way through a minute: the book's change runs the Job now)
    http GET /emulator/v1/pricebook # the market's rate moves: the price check again
    http PUT /emulator/v1/pricebook "$(jq -c '.gpu.market.H100 = "2.99"' "$BODY")"
    [ "$CODE" = 200 ]
    minutes 2
    patch '{"spec":{"maxCostUSD":"41.00"}}' # a new spec (its generation: only raised)
    minutes 2
    alive
    [ "$(from_bytes)" -ge $((before + 4)) ]
    http GET $JOBS/around
    [ "$(body_json .status.phase)" = Running ]
    [ "$(body_json .status.simulation.pricedRate)" = 2990000 ]
    patch '{"spec":{"state":"Suspended"}}'
    minutes 1
    patch '{"spec":{"state":"Running"}}'
    minutes 8 # queued, provisioning, running again (Suspended=False: on the tree), the end
    alive
    http GET $JOBS/around
    run body_json '"\(.status.phase) \(.status.simulation.runMs)"'
    assert_output "Succeeded 840000"
}
