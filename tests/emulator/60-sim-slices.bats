#!/usr/bin/env bats
# The simulation runs a round over many due objects in slices (emulator/sim/sim.c): the
# hot trees are trimmed between slices, so a round over 1,200 Jobs holds the trees of a
# slice (trees.peak in /emulator/v1/stats), not those of every Job it ran, and the round
# still runs every Job, in order, at its due time, with its Event.

load ../lib/common

N=1200

setup_file() {
    start_emulator
    export T=$BATS_FILE_TMPDIR
    http POST /api/v1/namespaces '{"metadata":{"name":"s"}}'
    [ "$CODE" = 201 ]
    # one curl config of N creates (one jq for all: N of them take minutes)
    job_json j >"$T/job.json"
    jq -r --arg url "$(emu_url)/apis/nodus.dev/v1/namespaces/s/jobs" --argjson n $N '
        [range(1; $n + 1) as $i | (.metadata.name = "j\($i + 10000 | tostring | .[1:])") |
        "url = \"\($url)\"\nrequest = \"POST\"\nheader = \"Content-Type: application/json\"\n" +
        "data = \(tojson | tojson)\nwrite-out = \"%{http_code}\\n\"\noutput = /dev/null\n"] | join("next\n")' \
        "$T/job.json" >"$T/creates.cfg"
    curl -s --no-progress-meter --parallel --parallel-max 8 -K "$T/creates.cfg" >"$T/codes"
    [ "$(grep -c '^201$' "$T/codes")" = "$N" ]
}

teardown_file() { stop_emulator; }

trees() { curl -sf "$(emu_url)/emulator/v1/stats" | jq -c .trees; }

phases() {
    list_items "$(emu_url)/apis/nodus.dev/v1/namespaces/s/jobs?" |
        jq -rs '[.[].status.phase] | group_by(.) | map("\(.[0])=\(length)") | join(",")'
}

@test "the Jobs wait in the queue, each reconciled once as it was created" {
    queued() { [ "$(phases)" = "Queued=$N" ]; }
    wait_until queued
    run trees
    assert_success
    run jq -e '.peak >= .hot and .hot <= .bound' <<<"$output"
    assert_success
}

@test "a round over $N due Jobs holds the trees of a slice, not of every Job" {
    before=$(curl -sf "$(emu_url)/emulator/v1/stats" | jq .trees.built)
    # all fall due at once (the queue's 5 s): one round of N Jobs
    clock_advance 10s
    run phases
    assert_output "Provisioning=$N"
    t=$(trees)
    echo "$t"
    # each Job's tree was built again from its bytes, or kept since its last run (a Job due
    # again within a minute, here the queue's 5 s: trees.kept, bounded apart), and its new
    # revision's and its Event's trees were made: about 2 N trees for the round, of which
    # the bound and a slice's (256 Jobs: their trees and their Events') are held at once
    # in the hot list
    run jq -e --argjson b "$before" --argjson n $N '.built - $b + .kept >= $n' <<<"$t"
    assert_success
    run jq -e '.peak <= .bound + 768 and .hot <= .bound' <<<"$t"
    assert_success
}

@test "the sliced round recorded each Job's Event, in the order the Jobs came" {
    list_items "$(emu_url)/api/v1/namespaces/s/events?fieldSelector=reason%3DProvisioning" | jq -s '{items: .}' \
        >"$BATS_TEST_TMPDIR/list"
    run cat "$BATS_TEST_TMPDIR/list"
    [ "$(jq '.items | length' <<<"$output")" = $N ]
    # one write per Job and its Event after it, Job by Job: the Events' order is the
    # order of the Jobs' writes
    jq -r '.items | sort_by(.metadata.resourceVersion | tonumber) | .[].involvedObject.name' \
        <<<"$output" >"$BATS_TEST_TMPDIR/events"
    list_items "$(emu_url)/apis/nodus.dev/v1/namespaces/s/jobs?" |
        jq -rs 'sort_by(.metadata.resourceVersion | tonumber) | .[].metadata.name' \
            >"$BATS_TEST_TMPDIR/jobs"
    run diff "$BATS_TEST_TMPDIR/jobs" "$BATS_TEST_TMPDIR/events"
    assert_success
    run jq -e '[.items[].firstTimestamp] | unique | length == 1' <<<"$output"
    assert_success
}
