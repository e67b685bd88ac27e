#!/usr/bin/env bats
# A power loss (the machine's crash) keeps what the journal's last marker counts: under
# --fsync always and batch, the object files (and the Events' hour files) a marker's
# applied revision covers are on the disk before the marker is written. A power loss cannot
# be made here, so the order is watched instead: tests/lib/syncorder.c (LD_PRELOAD) logs
# each file put in place (renamed or exchanged in, an Event appended), each flush of the
# filesystem (syncfs, sync) and each marker, and says VIOLATION when a marker counts a file
# no flush has covered yet, or when a spare is written over while an object's name on the
# disk may still point to it (an exchange not flushed yet: the object would come back with
# another's text, or a torn mix).

load ../lib/common

setup() {
    STATE=$BATS_TEST_TMPDIR/state
    PORTFILE=$BATS_TEST_TMPDIR/port
    ORDER=$BATS_TEST_TMPDIR/order.log
    local b=${ND_BUILD:-build}
    [[ $b == /* ]] || b=$ND_ROOT/$b
    SHIM=$b/tests/lib/syncorder.so
    [ -f "$SHIM" ] || { echo "no $SHIM: run make test-bins" >&2; return 1; }
}

teardown() {
    [ -n "${PID:-}" ] && { kill -KILL "$PID"; wait "$PID"; } 2>/dev/null || true
}

# start MODE [ENV=VALUE...]: the emulator under the shim
start() {
    local mode=$1
    shift
    rm -f "$PORTFILE"
    env "$@" LD_PRELOAD="$SHIM" SYNCORDER_LOG="$ORDER" \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
        "$ND_BIN_DIR/nodus-emulator" --state "$STATE" --listen 127.0.0.1:0 \
        --port-file "$PORTFILE" --quiet --speed 0 --no-simulation --fsync "$mode" \
        >>"$BATS_TEST_TMPDIR/out" 2>>"$BATS_TEST_TMPDIR/err" 3>&- &
    PID=$!
    wait_until started "$PORTFILE" "$PID" || true
    [ -s "$PORTFILE" ] || { cat "$BATS_TEST_TMPDIR/err" >&2; return 1; }
    URL="http://127.0.0.1:$(cat "$PORTFILE")"
    VOLS=$URL/apis/nodus.dev/v1/namespaces/p/volumes
}

stop() { # SIGNAL
    kill "-$1" "$PID"
    wait "$PID" 2>/dev/null || true
    PID=
}

post() { # URL JSON: prints the resourceVersion
    curl -sf -X POST -H 'Content-Type: application/json' "$1" -d "$2" | jq -r .metadata.resourceVersion
}

vol() { # NAME
    post "$VOLS" "{\"metadata\":{\"name\":\"$1\"},\"spec\":{\"size\":\"1Gi\"}}"
}

# the shim saw files put in place, markers that count them (the highest applied at least
# $1) and flushes; and nothing out of order
in_order() {
    run cat "$ORDER"
    refute_output --partial VIOLATION
    [ "$(grep -c '^file ' "$ORDER")" -ge 6 ]
    [ "$(grep -c '^sync$' "$ORDER")" -ge 1 ]
    [ "$(sed -n 's/^marker //p' "$ORDER" | sort -n | tail -n 1)" -ge "$1" ]
}

# Volumes created one at a time, each file written before the next: the next create's
# marker counts it (an Event of each is appended to the hour file too)
one_at_a_time() {
    post "$URL/api/v1/namespaces" '{"metadata":{"name":"p"}}' >/dev/null
    local i
    for i in 1 2 3 4 5 6; do
        RV=$(vol "v$i")
        [ -n "$RV" ]
        wait_until test -s "$STATE/objects/p/volumes/v$i.json"
    done
    curl -sf -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
        -d '{"metadata":{"labels":{"t":"x"}}}' "$VOLS/v1"
    curl -sf -o /dev/null -X DELETE "$VOLS/v2"
    RV=$(vol v7)
}

# held_labels N: Volumes v1..vN written and their files on the disk (a clean stop), then
# each labelled t=x by an emulator whose file writer holds the files back (the test
# switch): the journal has the N new texts, the files the old; RV is the last one's, and
# the shim's log holds this second emulator's work only
held_labels() {
    start always
    post "$URL/api/v1/namespaces" '{"metadata":{"name":"p"}}' >/dev/null
    local i
    for i in $(seq "$1"); do vol "v$i" >/dev/null; done
    stop TERM
    : >"$ORDER" # (the shim's log from here)
    start always NODUS_EMULATOR_TEST_HOLD_FILES=1
    for i in $(seq "$1"); do
        RV=$(curl -sf -X PATCH -H 'Content-Type: application/merge-patch+json' \
            -d '{"metadata":{"labels":{"t":"x"}}}' "$VOLS/v$i" | jq -r .metadata.resourceVersion)
    done
    [ "$(jq -r '.metadata.labels.t // "none"' "$STATE/objects/p/volumes/v$1.json")" = none ]
}

@test "always: a marker counts only files a flush of the filesystem covered" {
    start always
    one_at_a_time
    stop TERM
    in_order "$RV"
    # the clean stop's marker counts every one
    [ "$(tail -n 1 "$STATE/history/journal.ndjson" | jq .applied)" -ge "$RV" ]
}

@test "batch: a marker counts only files a flush covered, creates in parallel too" {
    start batch
    one_at_a_time
    local i
    for i in $(seq 30); do
        printf 'url = "%s"\nrequest = "POST"\nheader = "Content-Type: application/json"\ndata = "{\\"metadata\\":{\\"name\\":\\"w%s\\"},\\"spec\\":{\\"size\\":\\"1Gi\\"}}"\noutput = /dev/null\nnext\n' "$VOLS" "$i"
    done | sed '$d' >"$BATS_TEST_TMPDIR/cfg"
    curl -s --no-progress-meter --parallel --parallel-max 8 -K "$BATS_TEST_TMPDIR/cfg"
    RV=$(vol last)
    wait_until test -s "$STATE/objects/p/volumes/last.json"
    vol after >/dev/null
    stop TERM
    in_order "$RV"
}

@test "a round of many files writes no spare over before its exchange is flushed" {
    # the files wait for the stop, then go in one round: twelve exchanges (each spare
    # once, then one flush)
    held_labels 12
    stop TERM
    in_order "$RV"
    [ "$(grep -c '^file [0-9]* .*/volumes/v[0-9]*\.json$' "$ORDER")" = 12 ]
    [ "$(jq -r .metadata.labels.t "$STATE/objects/p/volumes/v12.json")" = x ]
    # a clean stop leaves no spare
    run find "$STATE" -name '*.spare*'
    assert_output ""
}

@test "the start's repair of the journal's tail is flushed before a marker counts it" {
    start always NODUS_EMULATOR_TEST_HOLD_FILES=1
    post "$URL/api/v1/namespaces" '{"metadata":{"name":"p"}}' >/dev/null
    local i
    for i in $(seq 6); do RV=$(vol "v$i"); done
    stop KILL # the files were never written: the journal's tail holds them
    [ ! -e "$STATE/objects/p/volumes/v1.json" ]
    : >"$ORDER"
    start always
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "v6.json: brought up to revision $RV"
    vol next >/dev/null # its flush's marker counts the repaired files
    stop TERM
    in_order "$RV"
}

@test "the start brings the tail's files up through the spares, each once before a flush" {
    held_labels 6 # the journal's tail holds the six new texts
    stop KILL
    : >"$ORDER"
    start always
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "v6.json: brought up to revision $RV"
    # each in place by an exchange with a spare (no new inode a file), none written over
    # before the start's flush, and the files the journal's next marker counts are flushed
    [ "$(grep -c '^exchange .*/volumes/v[1-6]\.json$' "$ORDER")" = 6 ]
    [ "$(jq -r .metadata.labels.t "$STATE/objects/p/volumes/v6.json")" = x ]
    vol next >/dev/null
    stop TERM
    in_order "$RV"
}

@test "never: the files are not flushed (no promise across a power loss, no cost)" {
    start never
    one_at_a_time
    stop TERM
    [ "$(grep -c '^file ' "$ORDER")" -ge 6 ]
    [ "$(grep -c '^sync' "$ORDER")" = 0 ]
}
