#!/usr/bin/env bats
# Issue 25, item 4: a watch waits under its kind and project. A publish wakes only the
# watches whose project (or every project) its changes touched, and a watch that the
# ring of recent changes has passed goes on from the ring when none of the changes that
# left it were its own: a burst in one project (the simulation's first minute of 10,000
# Jobs) never sends the watches of another to the history under the server lock. The
# ring is 16 changes here (NODUS_EMULATOR_TEST_FEED_CAP), passed by 40 creates.

load ../lib/common

bats_require_minimum_version 1.5.0

API=/apis/nodus.dev/v1

setup_file() {
    NODUS_EMULATOR_TEST_FEED_CAP=16 start_emulator --no-simulation
    local ns
    for ns in quiet busy busy2 busy3; do
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
            "$(emu_url)/api/v1/namespaces" -d "{\"metadata\":{\"name\":\"$ns\"}}"
    done
    job_json template >"$BATS_FILE_TMPDIR/job.json"
}

teardown_file() {
    stop_emulator
}

teardown() {
    local p
    for p in ${WATCH_PIDS:-}; do
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
}

# watch_bg PATH OUT: a background JSON watch (no bookmarks: the ring's streams)
watch_bg() {
    curl -sN "$(emu_url)$1" >"$2" 3>&- &
    WATCH_PIDS="${WATCH_PIDS:-} $!"
}

stat_of() { curl -sf "$(emu_url)/emulator/v1/stats" | jq -r "$1"; }
wakes() { stat_of '.watchWakes.afterAnswer + .watchWakes.atOnce'; }
lines_at_least() { [ "$(grep -c . "$1")" -ge "$2" ]; }
rv_now() { curl -sf "$(emu_url)$API/namespaces/quiet/jobs?limit=1" | jq -r .metadata.resourceVersion; }

@test "another project's 40 creates wake no watch of this one; its own change comes on from the ring" {
    local w0 skipped0 behind0 out=$BATS_TEST_TMPDIR/quiet
    watch_bg "$API/namespaces/quiet/jobs?watch=1&resourceVersion=$(rv_now)" "$out"
    wait_for_watches 1
    w0=$(wakes)
    skipped0=$(stat_of .watchWakes.skippedAhead)
    behind0=$(stat_of .watchWakes.behindRing)
    post_copies "$(emu_url)$API/namespaces/busy/jobs" "$BATS_FILE_TMPDIR/job.json" 40
    # no stream was woken for them (each publish woke this one before)
    [ "$(wakes)" -eq "$w0" ]
    [ "$(grep -c . "$out")" -eq 0 ]
    job_json mine | curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        "$(emu_url)$API/namespaces/quiet/jobs" --data-binary @-
    wait_until lines_at_least "$out" 1
    sleep 0.3 # (nothing more comes)
    [ "$(grep -c . "$out")" -eq 1 ]
    [ "$(jq -r '.type + " " + .object.metadata.name' "$out")" = "ADDED mine" ]
    # the ring had passed it, none of the changes that left were its own: on from the ring
    [ "$(stat_of .watchWakes.skippedAhead)" -gt "$skipped0" ]
    [ "$(stat_of .watchWakes.behindRing)" -eq "$behind0" ]
}

@test "a watch of every project gets every change of each, in order, once" {
    local out=$BATS_TEST_TMPDIR/all
    watch_bg "$API/jobs?watch=1&resourceVersion=$(rv_now)" "$out"
    wait_for_watches 1
    post_copies "$(emu_url)$API/namespaces/busy2/jobs" "$BATS_FILE_TMPDIR/job.json" 40
    wait_until lines_at_least "$out" 40
    sleep 0.3
    run jq -r 'select(.type == "ADDED") | .object.metadata.namespace + "/" + .object.metadata.name' "$out"
    [ "${#lines[@]}" -eq 40 ]
    # the creates ran 8 at a time: every name once, the revisions rising
    [ "$(printf '%s\n' "${lines[@]}" | sort -u | wc -l)" -eq 40 ]
    [ "$(printf '%s\n' "${lines[@]}" | grep -vc '^busy2/j00[0-4][0-9]$')" -eq 0 ]
    run jq -s '[.[].object.metadata.resourceVersion | tonumber] | . == sort' "$out"
    [ "$output" = true ]
}

@test "a watch resumed from before the ring passed it gets its own change from the history" {
    local rv0 behind0 out=$BATS_TEST_TMPDIR/resumed
    rv0=$(rv_now)
    job_json early | curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        "$(emu_url)$API/namespaces/quiet/jobs" --data-binary @-
    post_copies "$(emu_url)$API/namespaces/busy3/jobs" "$BATS_FILE_TMPDIR/job.json" 40
    behind0=$(stat_of .watchWakes.behindRing)
    watch_bg "$API/namespaces/quiet/jobs?watch=1&resourceVersion=$rv0" "$out"
    wait_until lines_at_least "$out" 1
    sleep 0.3
    [ "$(grep -c . "$out")" -eq 1 ]
    [ "$(jq -r '.type + " " + .object.metadata.name' "$out")" = "ADDED early" ]
    [ "$(stat_of .watchWakes.behindRing)" -gt "$behind0" ]
}

@test "a Table watch resumed from before 1,500 creates in another project builds no tree of theirs" {
    local rv0 built0 out=$BATS_TEST_TMPDIR/table
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        "$(emu_url)/api/v1/namespaces" -d '{"metadata":{"name":"busy4"}}'
    rv0=$(rv_now)
    # 3,000 changes with their Events: the history gives up the older ones' trees
    post_copies "$(emu_url)$API/namespaces/busy4/jobs" "$BATS_FILE_TMPDIR/job.json" 1500
    job_json late | curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        "$(emu_url)$API/namespaces/quiet/jobs" --data-binary @-
    built0=$(stat_of .trees.fromHistory)
    # a Table stream reads the history under the server lock (not the ring)
    curl -sN -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io' \
        "$(emu_url)$API/namespaces/quiet/jobs?watch=1&resourceVersion=$rv0" >"$out" 3>&- &
    WATCH_PIDS="${WATCH_PIDS:-} $!"
    wait_until lines_at_least "$out" 1
    sleep 0.3
    [ "$(jq -r '.type + " " + .object.rows[0].object.metadata.name' "$out")" = "ADDED late" ]
    # the changes of busy4 were passed over on their project's hash, not built again
    [ "$(($(stat_of .trees.fromHistory) - built0))" -lt 10 ]
}
