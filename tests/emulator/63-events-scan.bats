#!/usr/bin/env bats
# A restart reads the Events' hour files (objects/<project>/events/<hour>.ndjson) with the
# one-pass reader of the lines as the emulator writes them, building no tree
# (emulator/store/events_file.h, objscan.h): its lines are all read so
# (`start.eventLinesParsed` 0 in /emulator/v1/stats), a line edited by hand is still read,
# by jansson, and the Events served (lists, field selectors on involvedObject, the
# events.k8s.io view, nodus get's table) are byte for byte those of the old read, which
# NODUS_EMULATOR_TEST_JANSSON_LOAD forces.

load ../lib/common

setup_file() {
    start_emulator
    export T=$BATS_FILE_TMPDIR
    for p in p q; do
        http POST /api/v1/namespaces "{\"metadata\":{\"name\":\"$p\"}}"
        [ "$CODE" = 201 ]
    done
    for n in j1 j2 j3; do
        http POST /apis/nodus.dev/v1/namespaces/p/jobs "$(job_json "$n")"
        [ "$CODE" = 201 ]
    done
    http POST /apis/nodus.dev/v1/namespaces/q/jobs "$(job_json j1)"
    [ "$CODE" = 201 ]
    # the simulation moves them on: Provisioning, Running, each with its Event
    clock_advance 2m
    wait_until -t 20 has_events 3
}

teardown_file() { stop_emulator; }

has_events() {
    [ "$(curl -sf "$(emu_url)/api/v1/namespaces/p/events?fieldSelector=involvedObject.name%3Dj1" |
        jq '.items | length')" -ge "$1" ]
}

start_stats() { curl -sf "$(emu_url)/emulator/v1/stats" | jq -c .start; }

# what a client is served of the Events
served() {
    local u
    u=$(emu_url)
    curl -sf "$u/api/v1/namespaces/p/events"
    curl -sf "$u/api/v1/events?limit=2"
    curl -sf "$u/api/v1/namespaces/p/events?fieldSelector=involvedObject.name%3Dj1"
    curl -sf "$u/api/v1/namespaces/p/events?fieldSelector=involvedObject.kind%3DJob,reason%3DCreated"
    curl -sf "$u/api/v1/events?fieldSelector=involvedObject.namespace%3Dq"
    curl -sf "$u/apis/events.k8s.io/v1/namespaces/p/events"
    nodus --server "$u" get events -n p
    nodus --server "$u" get events -A --field-selector involvedObject.name=j2 -o wide
}

@test "a restart with the simulation on reads every line the emulator wrote in one pass" {
    stop_emulator
    start_emulator
    run start_stats
    assert_success
    run jq -e '.eventLines >= 8 and .eventLinesParsed == 0' <<<"$output"
    assert_success
    run has_events 3
    assert_success
}

@test "a restart serves the same Events with the one-pass read as with jansson's" {
    stop_emulator
    local f
    f=$(ls "$EMU_STATE"/objects/p/events/*.ndjson | head -n 1)
    # beside the emulator's lines, one edited by hand: blanks, an escape, no namespace
    printf '{ "apiVersion": "v1", "kind": "Event", "metadata": {"name": "hand.1", "resourceVersion": "1", "creationTimestamp": "%s"}, "involvedObject": {"kind": "Job", "name": "j1", "namespace": "p"}, "reason": "Edited", "message": "by \\u0068and", "type": "Normal"}\n' \
        "$(jq -r .metadata.creationTimestamp <(head -n 1 "$f"))" >>"$f"
    NODUS_EMULATOR_TEST_JANSSON_LOAD=1 start_emulator --no-simulation
    run start_stats
    run jq -e '.eventLinesParsed == .eventLines' <<<"$output"
    assert_success
    served >"$BATS_TEST_TMPDIR/jansson"
    stop_emulator
    start_emulator --no-simulation
    run start_stats
    run jq -e '.eventLines >= 9 and .eventLinesParsed == 1' <<<"$output"
    assert_success
    served >"$BATS_TEST_TMPDIR/scan"
    [ "$(grep -c 'by hand' "$BATS_TEST_TMPDIR/scan")" -ge 4 ]
    run cmp "$BATS_TEST_TMPDIR/jansson" "$BATS_TEST_TMPDIR/scan"
    assert_success
}
