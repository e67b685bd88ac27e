#!/usr/bin/env bats
# A running Job is reconciled and written every emulated minute (its cost accrues). Five
# things make that minute cheaper: a minute that only accrues the cost is written from
# the Job's stored bytes and record, no tree built (sim/controllers/job_minute.c: its
# four values replaced in the bytes); the simulation keeps the tree of an object it runs
# again within a minute (store/entry.h, em_entry_keep: not built from the bytes again),
# its working copy shares all but the few values the Job controller changes
# (sim/controllers/common.c, em_ctl_begin_light), the write's compact JSON is spliced
# from the bytes of the tree it replaces where the two share values (store/splice.h:
# only what changed dumped again), and the file writer writes an object file into a
# spare and exchanges the two names (store/journal_files.c: no inode allocated or freed a
# write). None may change a byte: the same state is run through the same minutes with
# them (the default) and without (NODUS_EMULATOR_TEST_TREE_MINUTE,
# NODUS_EMULATOR_TEST_NO_KEPT_TREES, NODUS_EMULATOR_TEST_RENAME_FILES,
# NODUS_EMULATOR_TEST_DEEP_COPY, NODUS_EMULATOR_TEST_FULL_DUMP: the old paths), and the objects, their watch events, the
# journal's records and the files must be the same. More Jobs than the hot list holds
# (1,024), so the old path builds trees.

load ../lib/common

N=1100
JOBS=/apis/nodus.dev/v1/namespaces/s/jobs

setup_file() {
    # the state both start from is made on the old paths
    NODUS_EMULATOR_TEST_TREE_MINUTE=1 NODUS_EMULATOR_TEST_NO_KEPT_TREES=1 NODUS_EMULATOR_TEST_RENAME_FILES=1 NODUS_EMULATOR_TEST_DEEP_COPY=1 NODUS_EMULATOR_TEST_FULL_DUMP=1 start_emulator
    export T=$BATS_FILE_TMPDIR
    http POST /api/v1/namespaces '{"metadata":{"name":"s"}}'
    [ "$CODE" = 201 ]
    # N running for an hour (labels of two kinds), one failing at 3m, one stopped by its
    # maxCostUSD, one ending at 2m: ends from a kept tree too
    job_json j '{"resources":{"gpu":{"model":"H100","count":1}}}' |
        jq -c '.metadata.annotations = {"emulator.nodus.dev/duration": "1h"}' >"$T/job.json"
    post_copies "$(emu_url)$JOBS" "$T/job.json" $N
    http POST $JOBS "$(jq -c '.metadata = {name: "fails", annotations: {"emulator.nodus.dev/fail-at": "3m", "emulator.nodus.dev/exit-code": "3"}}' "$T/job.json")"
    [ "$CODE" = 201 ]
    http POST $JOBS "$(jq -c '.metadata.name = "capped" | .spec.maxCostUSD = "0.09"' "$T/job.json")"
    [ "$CODE" = 201 ]
    http POST $JOBS "$(jq -c '.metadata = {name: "short", annotations: {"emulator.nodus.dev/duration": "2m"}}' "$T/job.json")"
    [ "$CODE" = 201 ]
    clock_advance 40s # the queue and provisioning: every Job running
    curl -sf "$(emu_url)/emulator/v1/stats" | jq -r .revision >"$T/rev"
    stop_emulator # a clean stop: both copies start from the same checkpoint and clock
    local v
    for v in old new; do
        mkdir -p "$T/extra-$v"
        cp -a "$EMU_STATE" "$T/extra-$v/state"
    done
}

teardown_file() {
    stop_extras
    stop_emulator
}

# stdin with the uids of Events blanked out: those the minutes record (a Job's end, its
# final charge) are new each run (the real time and chance make them)
uids() { sed -E 's/"evt_[0-9a-z]{26}"/"evt_"/g'; }

# the inode numbers of the Jobs' files of a copy, one a line, sorted
inodes() { find "$T/extra-$1/state/objects/s/jobs" -name '*.json' -printf '%i\n' | sort; }

# run VARIANT [ENV...]: starts the copy VARIANT with ENV, runs six minutes of the Jobs one
# at a time, keeps what it serves, stops it (cleanly: every file written)
run_minutes() {
    local v=$1 i u out
    out=$T/out-$v
    shift
    inodes "$v" >"$T/inodes-before-$v"
    local kv
    for kv in "$@"; do export "${kv?}"; done
    start_extra "$v" --speed 0
    for kv in "$@"; do unset "${kv%%=*}"; done
    u=$XURL
    for i in 1 2 3 4 5 6; do
        clock_advance 1m "$u"
    done
    list_items "$u$JOBS?" >"$out.jobs"
    list_items "$u/api/v1/namespaces/s/events?" >"$out.events"
    # the watch events of the minutes, as a watch from before them gets them (of half the
    # Jobs: a stream of all takes longer than its timeout on a loaded machine)
    curl -sfN "$u$JOBS?watch=1&labelSelector=tier%3D1&resourceVersion=$(cat "$T/rev")&timeoutSeconds=4" \
        >"$out.watch"
    curl -sfN "$u/api/v1/namespaces/s/events?watch=1&resourceVersion=$(cat "$T/rev")&timeoutSeconds=1" \
        >"$out.watch-events"
    curl -sf "$u/emulator/v1/stats" >"$out.stats"
    local pid
    pid=$(cat "$T/extra-$v.pid")
    stop_extras
    wait_until -t 120 pid_gone "$pid" # (a clean stop writes the checkpoint)
    inodes "$v" >"$T/inodes-after-$v"
    # the journal's records (without the flush markers, which carry the real time)
    grep -v '^{"wall"' "$T/extra-$v/state/history/journal.ndjson" >"$out.journal"
}

@test "six minutes of running Jobs: the same objects, watch events, journal and files on both paths" {
    run_minutes old NODUS_EMULATOR_TEST_TREE_MINUTE=1 NODUS_EMULATOR_TEST_NO_KEPT_TREES=1 NODUS_EMULATOR_TEST_RENAME_FILES=1 NODUS_EMULATOR_TEST_DEEP_COPY=1 NODUS_EMULATOR_TEST_FULL_DUMP=1
    run_minutes new
    # the minutes happened: every Job accrued six times, the three ended
    [ "$(jq -s '[.[] | select(.status.phase == "Running" and .status.simulation.runMs == 365000)] | length' "$T/out-new.jobs")" = $N ]
    run jq -r 'select(.metadata.name | test("^j") | not) | "\(.metadata.name)=\(.status.phase)/\(.status.reason // "-")"' "$T/out-new.jobs"
    assert_output "capped=Failed/MaxCostReached
fails=Failed/Error
short=Succeeded/-"
    [ "$(grep -c '^{"type":"MODIFIED"' "$T/out-new.watch")" -ge $((N / 2 * 6)) ]
    local f
    for f in jobs events watch watch-events journal; do
        cmp <(uids <"$T/out-old.$f") <(uids <"$T/out-new.$f")
    done
    diff -r -x events "$T/extra-old/state/objects" "$T/extra-new/state/objects"
    for f in "$T"/extra-old/state/objects/s/events/*; do
        cmp <(uids <"$f") <(uids <"$T/extra-new/state/objects/s/events/${f##*/}")
    done
    [ "$(ls "$T/extra-old/state/objects/s/events")" = "$(ls "$T/extra-new/state/objects/s/events")" ]
    # the spare goes at a clean stop; none was left among the objects
    run find "$T/extra-new/state" -name '*.spare' -o -name '*.tmp-*'
    assert_output ""
}

@test "the new path wrote the minutes from the bytes, spliced, wrote no new inode; the old did not" {
    jq -c '{trees, reconciles}' "$T/out-old.stats" "$T/out-new.stats"
    # the old path built a tree for most of the Jobs' minutes (the hot list holds 1,024 of
    # the 1,100); the new one for the first minute after the start only (the checkpoint's
    # records, no tree; the Jobs' money not read yet), kept them, spliced their bytes;
    # then wrote the five minutes left from the bytes, no tree (so none is kept at the end)
    run jq -e '.trees.kept == 0 and .trees.spliced == 0 and .reconciles.fromBytes == 0' \
        "$T/out-old.stats"
    assert_success
    # (how many trees more than the first minute's depends on the machine's load: reads
    # and safe points that land mid-round; the old path's 3,379 to 3,792 move the same way)
    run jq -e --argjson n $N '.reconciles.fromBytes >= 5 * $n and .trees.built < 2 * $n and
        .trees.spliced >= $n and .trees.kept < $n' "$T/out-new.stats"
    assert_success
    run jq -se --argjson n $N '.[0].trees.built >= .[1].trees.built + $n' "$T/out-old.stats" \
        "$T/out-new.stats"
    assert_success
    # the spare exchanged: the Jobs' files hold the inodes they held before the minutes,
    # and the spare's first one (a temporary file and a rename would give each Job's file
    # a new one, or one freed a while ago)
    ! cmp -s "$T/inodes-before-old" "$T/inodes-after-old"
    comm -13 "$T/inodes-before-new" "$T/inodes-after-new" | head -5 | sed 's/^/new inode: /'
    [ "$(comm -13 "$T/inodes-before-new" "$T/inodes-after-new" | wc -l)" -le 1 ]
}

@test "a spare that has another name (a hard link of a backup) or is a link is never written into" {
    local spare=$T/extra-new/state/history/journal.ndjson.spare pid
    # put in place while the emulator is stopped (a clean stop removed its spare)
    one_minute() {
        rm -f "$T/extra-new/port" # (the port of its last run)
        start_extra new --speed 0
        clock_advance 1m "$XURL" # every running Job's file written again
        pid=$(cat "$T/extra-new.pid")
        stop_extras
        wait_until -t 120 pid_gone "$pid"
    }
    echo backup >"$T/backup"
    ln "$T/backup" "$spare"
    one_minute
    [ "$(cat "$T/backup")" = backup ]
    echo outside >"$T/outside"
    ln -s "$T/outside" "$spare"
    one_minute
    [ "$(cat "$T/outside")" = outside ]
    # and the Jobs' files are whole: each parses
    run jq -s 'map(select(.status.phase == "Running")) | length' "$T"/extra-new/state/objects/s/jobs/j*.json
    assert_output "$N"
}
