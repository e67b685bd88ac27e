#!/usr/bin/env bats
# A power loss can leave the file of a write of the last few milliseconds torn (half of
# its new text, zeros): its record is in the journal's tail (after the last marker), so
# the journal is the truth for it. The start moves the broken file aside, to
# broken/<project>/<plural>/<name>.json.<time> (never overwritten, never lost), writes the
# file again from the journal's newest record (or leaves it removed, for a deletion), and
# says so in one line. A broken file with no record in the tail (a hand edit gone wrong)
# is still reported where it is and left untouched. An Event's hour file torn at its last
# line keeps the cut bytes aside too. Each test makes the power loss's state by hand: the
# file writer held back (a test hook), a kill -9, then the torn file written.

load ../lib/common

setup() {
    STATE=$BATS_TEST_TMPDIR/state
    PORTFILE=$BATS_TEST_TMPDIR/port
    DIR=$STATE/objects/p/volumes
}

teardown() {
    [ -n "${PID:-}" ] && { kill -KILL "$PID"; wait "$PID"; } 2>/dev/null || true
}

# start [ENV=VALUE...]
start() {
    rm -f "$PORTFILE"
    : >"$BATS_TEST_TMPDIR/err"
    env "$@" "$ND_BIN_DIR/nodus-emulator" --state "$STATE" --listen 127.0.0.1:0 \
        --port-file "$PORTFILE" --quiet --speed 0 --no-simulation --fsync always \
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

create() { # NAME: prints the created object
    curl -sf -X POST -H 'Content-Type: application/json' "$VOLS" \
        -d "{\"metadata\":{\"name\":\"$1\",\"labels\":{\"t\":\"one\"}},\"spec\":{\"size\":\"1Gi\"}}"
}

label() { # NAME VALUE: prints the patched object
    curl -sf -X PATCH -H 'Content-Type: application/merge-patch+json' \
        -d "{\"metadata\":{\"labels\":{\"t\":\"$2\"}}}" "$VOLS/$1"
}

# the project p and the Volumes a and b, their files written by a clean stop; then a run
# whose files the writer holds back (so a kill -9 leaves them behind the journal)
base() {
    start
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$URL/api/v1/namespaces" \
        -d '{"metadata":{"name":"p"}}'
    create a >/dev/null
    create b >/dev/null
    stop TERM
    start NODUS_EMULATOR_TEST_HOLD_FILES=1
}

# the copy the report names for FILE (the text after "the broken file is kept as")
kept_as() {
    sed -n "s|^.*state: $1: .*the broken file is kept as \(.*\))\$|\1|p" "$BATS_TEST_TMPDIR/err"
}

@test "a torn file of the journal's tail is written from its newest record, the broken one kept aside" {
    base
    label a two >/dev/null
    local ack rv
    ack=$(label a three | jq -cS .) # the last acknowledged write
    rv=$(jq -r .metadata.resourceVersion <<<"$ack")
    stop KILL
    [ "$(jq -r .metadata.labels.t "$DIR/a.json")" = one ] # behind: held back
    # the power loss: half of the file's new text
    jq . <<<"$ack" | head -c 70 >"$DIR/a.json"
    cp "$DIR/a.json" "$BATS_TEST_TMPDIR/torn"
    start
    run curl -sf "$VOLS/a"
    assert_success
    [ "$(jq -cS . <<<"$output")" = "$ack" ]
    [ "$(jq -cS . "$DIR/a.json")" = "$ack" ] # the GET and the file agree
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "state: $DIR/a.json: brought up to revision $rv from the journal (a write the last stop interrupted left it broken; the broken file is kept as $STATE/broken/p/volumes/a.json."
    refute_output --partial "left untouched"
    [ "$(grep -c 'a.json' "$BATS_TEST_TMPDIR/err")" = 1 ] # one line
    local aside
    aside=$(kept_as "$DIR/a.json")
    [ -n "$aside" ]
    cmp "$aside" "$BATS_TEST_TMPDIR/torn"
    # writes to it are taken, and the copy stays through a clean stop and a start
    label a four >/dev/null
    stop TERM
    start
    [ "$(jq -r .metadata.labels.t "$DIR/a.json")" = four ]
    cmp "$aside" "$BATS_TEST_TMPDIR/torn"
    run cat "$BATS_TEST_TMPDIR/err"
    refute_output --partial "a.json"
}

@test "a torn file whose newest record in the tail is its deletion is kept aside and stays removed" {
    base
    label b two >/dev/null
    curl -sf -o /dev/null -X DELETE "$VOLS/b"
    stop KILL
    local rv
    rv=$(jq -r 'select(.type == "DELETED" and .plural == "volumes") | .rev' \
        "$STATE/history/journal.ndjson")
    [ -n "$rv" ]
    [ -e "$DIR/b.json" ] # behind: held back
    printf '{\n  "apiVersion": "nodus.dev/v1",\n  "kind": "Vol' >"$DIR/b.json"
    cp "$DIR/b.json" "$BATS_TEST_TMPDIR/torn"
    start
    run curl -s -o /dev/null -w '%{http_code}' "$VOLS/b"
    assert_output 404
    [ ! -e "$DIR/b.json" ]
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "state: $DIR/b.json: removed, as revision $rv of the journal says (a write the last stop interrupted left it broken; the broken file is kept as $STATE/broken/p/volumes/b.json."
    cmp "$(kept_as "$DIR/b.json")" "$BATS_TEST_TMPDIR/torn"
    # the name is free again; a is whole
    run create b
    assert_success
    [ "$(curl -sf "$VOLS/a" | jq -r .metadata.labels.t)" = one ]
}

@test "a broken file with no record in the tail is reported where it is and never overwritten" {
    base
    stop TERM # a clean stop: the journal's tail is empty
    printf '{"metadata": {"name": "a"' >"$DIR/a.json"
    cp "$DIR/a.json" "$BATS_TEST_TMPDIR/hand"
    start
    run curl -s -o /dev/null -w '%{http_code}' "$VOLS/a"
    assert_output 404
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "state: $DIR/a.json: line 1"
    assert_output --partial "(left untouched; fix or remove it)"
    refute_output --partial "brought up"
    # no write reaches it: a create, a replace, a delete
    run curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        "$VOLS" -d '{"metadata":{"name":"a"},"spec":{"size":"1Gi"}}'
    assert_output 500
    run curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
        "$VOLS/a" -d '{"metadata":{"name":"a"},"spec":{"size":"1Gi"}}'
    [ "$output" != 200 ] && [ "$output" != 201 ]
    stop KILL
    start
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "state: $DIR/a.json: line 1"
    stop TERM
    cmp "$DIR/a.json" "$BATS_TEST_TMPDIR/hand"
    [ ! -e "$STATE/broken" ]
}

@test "an Event's hour file torn at its last line: the cut bytes kept aside, the Event appended from the journal" {
    base
    create c >/dev/null # its Event's line is held back too
    stop KILL
    local ev hour file
    ev=$(jq -c 'select(.plural == "events") | .object' "$STATE/history/journal.ndjson" | tail -n 1)
    [ -n "$ev" ]
    hour=$(jq -r '.metadata.creationTimestamp[0:13]' <<<"$ev")
    file=$STATE/objects/p/events/$hour.ndjson
    mkdir -p "$(dirname "$file")"
    # the power loss: half of the append
    printf '%s' "$(head -c 60 <<<"$ev")" >>"$file"
    head -c 60 <<<"$ev" >"$BATS_TEST_TMPDIR/torn"
    start
    run curl -sf "$URL/api/v1/namespaces/p/events/$(jq -r .metadata.name <<<"$ev")"
    assert_success
    [ "$(jq -cS . <<<"$output")" = "$(jq -cS . <<<"$ev")" ]
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "state: $file: cut 60 bytes of a torn last line (a write the last stop interrupted); they are kept as $STATE/broken/p/events/$hour.ndjson."
    local aside
    aside=$(sed -n "s|^.*state: $file: cut .* are kept as \(.*\)\$|\1|p" "$BATS_TEST_TMPDIR/err")
    cmp "$aside" "$BATS_TEST_TMPDIR/torn"
    # every line of the hour file parses again
    jq -e . "$file" >/dev/null
}
