#!/usr/bin/env bats
# The memory of a state made through the API with the simulation on (bench/limits.md,
# "Memory at 10k and 100k objects"): a jansson tree takes about 11 times its object's
# compact JSON, so what holds trees is bounded by bytes. The trees the simulation keeps
# for the objects it runs again within a minute (store/entry.h, em_entry_keep) are at
# most EM_ENTRY_KEPT_BYTES (2 MiB) of objects, not 8,192 trees; the hot list and the
# history's newest changes hold at most 2 MiB of objects' trees besides their counts
# (EM_ENTRY_HOT_BYTES, EM_HISTORY_HOT_BYTES); the watch feed's ring (core/feed.h) holds
# the records of its 4,096 changes, which select as the objects do, not their trees.
# Jobs with a 4 KB annotation (5 KB of JSON, a 50 KB tree) make it show with 900 of
# them: 4.5 MB of running Jobs, and 3,600 changes of their minutes. (What the process
# holds then is a figure for bench/limits.md, not a test: its resident memory moved from
# 145 to 281 MB between two runs of the same binary on this machine. The hot list's and
# the history's bounds by bytes are checked in test_store_bytes and test_store_history.)
# A running Job's minute that only accrues its cost is written from its bytes without a
# tree (sim/controllers/job_minute.c), so its tree is not kept past the first: this runs
# the minutes on the tree (NODUS_EMULATOR_TEST_TREE_MINUTE), as the Jobs whose minute
# needs more do.

load ../lib/common

N=900
JOBS=/apis/nodus.dev/v1/namespaces/s/jobs

setup_file() {
    NODUS_EMULATOR_TEST_TREE_MINUTE=1 start_emulator
    export T=$BATS_FILE_TMPDIR
    http POST /api/v1/namespaces '{"metadata":{"name":"s"}}'
    [ "$CODE" = 201 ]
    local note
    note=$(head -c 4096 /dev/zero | tr '\0' 'n')
    job_json j '{"resources":{"gpu":{"model":"H100","count":1}}}' |
        jq -c --arg note "$note" '.metadata.annotations = {"emulator.nodus.dev/duration": "1h", note: $note}' >"$T/job.json"
    post_copies "$(emu_url)$JOBS" "$T/job.json" $N
    clock_advance 40s # the queue and provisioning: every Job running
    local i
    for i in 1 2 3 4; do # four minutes: 3,600 changes of running Jobs
        clock_advance 1m
    done
}

teardown_file() {
    stop_emulator
}

@test "the kept trees are bounded by their objects' bytes, not by count" {
    http GET "$JOBS?limit=1&labelSelector=tier%3D1"
    [ "$(body_json '.items[0].status.phase')" = Running ]
    run curl -sf "$(emu_url)/emulator/v1/stats"
    [ "$status" = 0 ]
    # 4.5 MB of running Jobs, each due again within a minute: 2 MiB of them kept
    echo "$output" | jq -e '.trees.keptBytes <= 2097152 and .trees.keptBytes > 1572864' >/dev/null
    echo "$output" | jq -e --argjson n $N '.trees.kept > 0 and .trees.kept < $n / 2' >/dev/null
}

@test "a selector watch through the feed sees the minute's changes of its Jobs only" {
    local rv n
    http GET "$JOBS?limit=1"
    rv=$(body_json .metadata.resourceVersion)
    curl -sN "$(emu_url)$JOBS?watch=true&resourceVersion=$rv&labelSelector=tier%3D1" >"$T/w" 3>&- &
    local pid=$!
    wait_until watches_at_least 1
    clock_advance 1m
    wait_until -t 30 bash -c "[ \$(wc -l <'$T/w') -ge $((N / 2)) ]" || true
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    n=$(jq -r 'select(.type == "MODIFIED" and .object.metadata.labels.tier == "1") | .object.metadata.name' "$T/w" | sort -u | wc -l)
    [ "$n" = $((N / 2)) ]
    # none of the other tier, and every line the object's whole JSON
    [ "$(jq -r '.object.metadata.labels.tier' "$T/w" | sort -u)" = 1 ]
    [ "$(jq -r '.object.metadata.annotations.note | length' "$T/w" | sort -u)" = 4096 ]
}
