#!/usr/bin/env bats
# A power loss (the machine's crash) within the writeback delay: the object files are
# written behind the journal without a flush of their own, into a spare whose name is
# then exchanged with the file's, so a file whose record is well before the journal's last
# marker can come back at an older revision the journal wrote, empty, or holding the
# spare's older text of another object. The start brings such a file up from the journal;
# a hand edit (any other text) still wins and a broken file of any other kind is still
# left untouched. Each test makes the leftover by hand after a kill -9.

load ../lib/common

setup() {
    STATE=$BATS_TEST_TMPDIR/state
    PORTFILE=$BATS_TEST_TMPDIR/port
    VOLS=
}

teardown() {
    [ -n "${PID:-}" ] && { kill -KILL "$PID"; wait "$PID"; } 2>/dev/null || true
}

start() {
    rm -f "$PORTFILE"
    : >"$BATS_TEST_TMPDIR/err"
    nodus-emulator --state "$STATE" --listen 127.0.0.1:0 --port-file "$PORTFILE" \
        --quiet --speed 0 --no-simulation --fsync always >>"$BATS_TEST_TMPDIR/out" \
        2>>"$BATS_TEST_TMPDIR/err" 3>&- &
    PID=$!
    wait_until started "$PORTFILE" "$PID" || true
    [ -s "$PORTFILE" ] || { cat "$BATS_TEST_TMPDIR/err" >&2; return 1; }
    URL="http://127.0.0.1:$(cat "$PORTFILE")"
    VOLS=$URL/apis/nodus.dev/v1/namespaces/p/volumes
}

crash() {
    { kill -KILL "$PID"; wait "$PID"; } 2>/dev/null || true
    PID=
}

# the Volumes a and b in the namespace p; a's first file is kept as a.v1 (with its mtime),
# then a is patched (its newest revision in $RV) and b after it, so that a's record is
# followed by a marker (out of the journal's tail, which the start repairs anyway)
make_state() {
    start
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$URL/api/v1/namespaces" \
        -d '{"metadata":{"name":"p"}}'
    local v
    for v in a b; do
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$VOLS" \
            -d "{\"metadata\":{\"name\":\"$v\",\"labels\":{\"t\":\"one\"}},\"spec\":{\"size\":\"1Gi\"}}"
    done
    DIR=$STATE/objects/p/volumes
    wait_until test -s "$DIR/b.json"
    cp -p "$DIR/a.json" "$BATS_TEST_TMPDIR/a.v1"
    RV=$(curl -sf -X PATCH -H 'Content-Type: application/merge-patch+json' \
        -d '{"metadata":{"labels":{"t":"two"}}}' "$VOLS/a" | jq -r .metadata.resourceVersion)
    [ -n "$RV" ]
    curl -sf -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
        -d '{"metadata":{"labels":{"u":"x"}}}' "$VOLS/b"
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$VOLS" \
        -d '{"metadata":{"name":"c"},"spec":{"size":"1Gi"}}'
    wait_until test -s "$DIR/c.json"
    crash
    # a's record is before the last marker: the start's tail repair does not see it
    local last
    last=$(jq -s '[.[] | select(.applied != null) | .applied] | max' \
        "$STATE/history/journal.ndjson")
    [ "$last" -ge "$RV" ]
}

# a is served at the journal's newest revision, its file holds it, and the report says why
brought_up() {
    start
    run curl -sf "$VOLS/a"
    assert_success
    [ "$(jq -r .metadata.labels.t <<<"$output")" = two ]
    [ "$(jq -r .metadata.resourceVersion <<<"$output")" = "$RV" ]
    [ "$(jq -r .metadata.resourceVersion "$DIR/a.json")" = "$RV" ]
    [ "$(jq -r .metadata.labels.t "$DIR/a.json")" = two ]
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "a.json: brought up to revision $RV from the journal ($1"
    refute_output --partial "left untouched"
}

@test "power loss (a): a file at an older revision the journal wrote is brought up" {
    make_state
    cp -p "$BATS_TEST_TMPDIR/a.v1" "$DIR/a.json"
    touch -d '@1000000000' "$DIR/a.json"
    brought_up "its file held revision $(jq -r .metadata.resourceVersion "$DIR/a.json"), which the journal wrote before"
}

@test "power loss (b): an empty file is brought up" {
    make_state
    : >"$DIR/a.json"
    brought_up "its file was empty"
}

@test "power loss (c): a file holding another object's older text the journal wrote is brought up" {
    make_state
    # b's first revision (the spare's text): b.json holds b's patched one by now
    jq -c 'select(.plural == "volumes" and .object.metadata.name == "b") | .object' \
        "$STATE/history/journal.ndjson" | head -n 1 >"$DIR/a.json"
    local brv
    brv=$(jq -r .metadata.resourceVersion "$DIR/a.json")
    brought_up "its file held revision $brv of volumes p/b, which the journal wrote"
}

@test "power loss: a hand edit of other text still wins, even at an older resourceVersion" {
    make_state
    jq '.metadata.labels.t = "hand"' "$BATS_TEST_TMPDIR/a.v1" >"$DIR/a.json"
    local rv
    rv=$(jq -r .metadata.resourceVersion "$DIR/a.json")
    start
    run curl -sf "$VOLS/a"
    assert_success
    [ "$(jq -r .metadata.labels.t <<<"$output")" = hand ]
    [ "$(jq -r .metadata.resourceVersion <<<"$output")" = "$rv" ]
    run cat "$BATS_TEST_TMPDIR/err"
    refute_output --partial "brought up to revision"
}

@test "power loss: a broken file of other text is still left untouched and reported" {
    make_state
    printf '{"metadata": {"name": "a"' >"$DIR/a.json"
    start
    run curl -s -o /dev/null -w '%{http_code}' "$VOLS/a"
    [ "$output" != 200 ]
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "a.json: line 1"
    assert_output --partial "left untouched"
    refute_output --partial "brought up to revision"
    [ "$(cat "$DIR/a.json")" = '{"metadata": {"name": "a"' ]
}
