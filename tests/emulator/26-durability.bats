#!/usr/bin/env bats
# Durability: an acknowledged write survives kill -9. Eight writers create Volumes as
# fast as they can; the emulator is killed with SIGKILL mid-stream, restarted on the
# same state directory, and every create it acknowledged (201) must be there, in each
# --fsync mode, a few times over. (The long version is `make torture`.)

load ../lib/common

setup() {
    STATE=$BATS_TEST_TMPDIR/state
    PORTFILE=$BATS_TEST_TMPDIR/port
}

teardown() {
    [ -n "${PID:-}" ] && kill -KILL "$PID" 2>/dev/null || true
}

start() {
    rm -f "$PORTFILE"
    nodus-emulator --state "$STATE" --listen 127.0.0.1:0 --port-file "$PORTFILE" \
        --quiet --speed 0 --no-simulation "$@" >>"$BATS_TEST_TMPDIR/out" \
        2>>"$BATS_TEST_TMPDIR/err" 3>&- &
    PID=$!
    wait_until started "$PORTFILE" "$PID" || true
    [ -s "$PORTFILE" ] || { cat "$BATS_TEST_TMPDIR/err" >&2; return 1; }
    URL="http://127.0.0.1:$(cat "$PORTFILE")"
}

# writer ID ROUND: creates the volumes rROUND-wID-1, -2, ... one after the other on one
# connection of one curl (a curl a request was most of this file's CPU), until the
# emulator is gone (each request left then fails at once); prints each acknowledged (201)
# name when curl ends (its output comes in blocks: the round counts the object files)
writer() {
    local id=$1 round=$2 cfg=$BATS_TEST_TMPDIR/writer.$1
    # one request of the config (printf's format: %d the request's number)
    local one='url = "URL/apis/nodus.dev/v1/namespaces/default/volumes"
request = "POST"
header = "Content-Type: application/json"
data = {"metadata":{"name":"NAME%d"},"spec":{"size":"1Gi"}}
output = "/dev/null"
max-time = 5
write-out = "%%{http_code}\\n"
next
'
    one=${one/URL/$URL}
    printf "${one/NAME/r$round-w$id-}" {1..1000} >"$cfg"
    curl -s -K "$cfg" 2>/dev/null | awk -v name="r$round-w$id-" '$0 == 201 { print name NR }'
}

# files_at_least N ROUND: the state holds N object files of the round's volumes (a create
# writes its file before it answers: at most one a writer more than were acknowledged)
files_at_least() {
    local f=("$STATE/objects/default/volumes/r$2-"*.json)
    [ -e "${f[0]}" ] && [ "${#f[@]}" -ge "$1" ]
}

# volume_names: every Volume's name, page after page (a list stops at 500 unless `limit`
# says more, and a round can leave more than that)
volume_names() {
    local page=$BATS_TEST_TMPDIR/page cont=
    while :; do
        curl -sfG --data limit=1000 ${cont:+--data-urlencode "continue=$cont"} \
            "$URL/apis/nodus.dev/v1/namespaces/default/volumes" >"$page" || return 1
        jq -r '.items[].metadata.name' "$page"
        cont=$(jq -r '.metadata.continue // empty' "$page")
        [ -n "$cont" ] || return 0
    done
}

# kill_round MODE ROUND WANT: 8 writers, a SIGKILL once WANT creates (and 8 more, see
# files_at_least) were made, a restart; every acknowledged create must be there
kill_round() {
    local mode=$1 round=$2 want=$3 w
    start --fsync "$mode"
    local acked=$BATS_TEST_TMPDIR/acked.$round
    local pids=()
    for w in 1 2 3 4 5 6 7 8; do
        writer "$w" "$round" >"$acked.w$w" & # a file each: no two writes interleave
        pids+=($!)
    done
    # 60 s: 8 writers under a loaded machine or the sanitizers can take more than 10; 8
    # files more than wanted, as the answers of the last ones may be on their way
    wait_until -t 60 files_at_least "$((want + 8))" "$round" || true # the count is checked below
    kill -KILL "$PID"
    wait "$PID" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
    PID=
    cat "$acked".w* >"$acked"
    [ "$(wc -l <"$acked")" -ge "$want" ] || { echo "only $(wc -l <"$acked") acked" >&2; return 1; }
    start --fsync "$mode"
    volume_names | sort >"$BATS_TEST_TMPDIR/present.$round"
    # every acknowledged create is there, as an object and as a file
    local missing
    missing=$(sort "$acked" | comm -23 - "$BATS_TEST_TMPDIR/present.$round")
    if [ -n "$missing" ]; then
        echo "mode $mode round $round: acknowledged but missing after kill -9:" >&2
        echo "$missing" | head -20 >&2
        return 1
    fi
    local name
    while read -r name; do
        [ -f "$STATE/objects/default/volumes/$name.json" ] ||
            { echo "no file for $name" >&2; return 1; }
    done <"$acked"
    # the revision counter continues past everything the journal holds
    local rv last
    last=$(grep -o '"rev":[0-9]*' "$STATE/history/journal.ndjson" | cut -d: -f2 | sort -n | tail -n 1)
    rv=$(curl -sf -X POST -H 'Content-Type: application/json' \
        -d "{\"metadata\":{\"name\":\"after-$round\"},\"spec\":{\"size\":\"1Gi\"}}" \
        "$URL/apis/nodus.dev/v1/namespaces/default/volumes" | jq -r .metadata.resourceVersion)
    [ "$rv" -gt "$last" ] || { echo "rv $rv not past the journal's $last" >&2; return 1; }
    kill -TERM "$PID"
    wait "$PID" || true
    PID=
}

@test "--fsync always: no acknowledged create is lost across kill -9 (3 rounds)" {
    kill_round always 1 60
    kill_round always 2 150
    kill_round always 3 30
    [ "$(ls "$STATE/objects/default/volumes" | wc -l)" -ge 240 ]
}

@test "--fsync batch: no acknowledged create is lost across kill -9 (3 rounds)" {
    kill_round batch 1 60
    kill_round batch 2 150
    kill_round batch 3 30
}

@test "--fsync never: a kill -9 of the emulator alone loses nothing acknowledged either" {
    kill_round never 1 100
}

@test "a SIGKILL between the journal's flush and the files is repaired at the next start" {
    start --fsync always
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"metadata":{"name":"kept"},"spec":{"size":"1Gi"}}' \
        "$URL/apis/nodus.dev/v1/namespaces/default/volumes"
    kill -KILL "$PID"
    wait "$PID" 2>/dev/null || true
    PID=
    # as if the kill came after the flush and before the file write (the file writer may
    # not have written it yet either: the answer does not wait for it)
    rm -f "$STATE/objects/default/volumes/kept.json"
    start --fsync always
    run curl -sf "$URL/apis/nodus.dev/v1/namespaces/default/volumes/kept"
    assert_success
    assert_output --partial '"name":"kept"'
    [ -f "$STATE/objects/default/volumes/kept.json" ]
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "kept.json: brought up to revision"
    # a clean stop marks everything applied: the next start repairs nothing
    kill -TERM "$PID"
    wait "$PID"
    PID=
    : >"$BATS_TEST_TMPDIR/err"
    start --fsync always
    run cat "$BATS_TEST_TMPDIR/err"
    refute_output --partial "brought up to revision"
}

@test "a file of an earlier revision written after a later record's marker is repaired, not taken as a hand edit" {
    start --fsync always
    local vols=$URL/apis/nodus.dev/v1/namespaces/default/volumes
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"metadata":{"name":"late","labels":{"t":"one"}},"spec":{"size":"1Gi"}}' "$vols"
    local rv
    rv=$(curl -sf -X PUT -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"late","labels":{"t":"two"}},"spec":{"size":"1Gi"}}' \
        "$vols/late" | jq -r .metadata.resourceVersion)
    kill -KILL "$PID"
    wait "$PID" 2>/dev/null || true
    PID=
    # as a kill leaves it when the create's file is written while the update's batch
    # flushes and the update's file write never comes: the file holds the journal's
    # record of the create, newer than the update's marker
    jq -c 'select(.plural == "volumes" and .object.metadata.name == "late") | .object' \
        "$STATE/history/journal.ndjson" | head -n 1 >"$STATE/objects/default/volumes/late.json"
    start --fsync always
    run curl -sf "$URL/apis/nodus.dev/v1/namespaces/default/volumes/late"
    assert_success
    [ "$(jq -r .metadata.labels.t <<<"$output")" = two ]
    [ "$(jq -r .metadata.resourceVersion <<<"$output")" = "$rv" ]
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "late.json: brought up to revision $rv"
}

@test "the answer waits for the journal alone: a kill -9 before the object's file is written loses nothing" {
    # the file writer holds every file until a stop (a test hook): the create is answered
    # once its journal line is flushed, before its file exists
    NODUS_EMULATOR_TEST_HOLD_FILES=1 start --fsync always
    local vols=$URL/apis/nodus.dev/v1/namespaces/default/volumes
    run curl -sf -X POST -H 'Content-Type: application/json' \
        -d '{"metadata":{"name":"ahead"},"spec":{"size":"1Gi"}}' "$vols"
    assert_success
    local rv
    rv=$(jq -r .metadata.resourceVersion <<<"$output")
    [ ! -e "$STATE/objects/default/volumes/ahead.json" ]
    grep -q '"name":"ahead"' "$STATE/history/journal.ndjson"
    run curl -sf "$vols/ahead"
    assert_success
    kill -KILL "$PID"
    wait "$PID" 2>/dev/null || true
    PID=
    [ ! -e "$STATE/objects/default/volumes/ahead.json" ]
    # the next start writes the file from the journal
    start --fsync always
    run curl -sf "$URL/apis/nodus.dev/v1/namespaces/default/volumes/ahead"
    assert_success
    [ "$(jq -r .metadata.resourceVersion <<<"$output")" = "$rv" ]
    [ "$(jq -r .metadata.name "$STATE/objects/default/volumes/ahead.json")" = ahead ]
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "ahead.json: brought up to revision $rv"
}

@test "a clean stop writes every file the writer still held" {
    NODUS_EMULATOR_TEST_HOLD_FILES=1 start --fsync batch
    local vols=$URL/apis/nodus.dev/v1/namespaces/default/volumes i
    for i in 1 2 3; do
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
            -d "{\"metadata\":{\"name\":\"held-$i\"},\"spec\":{\"size\":\"1Gi\"}}" "$vols"
    done
    curl -sf -o /dev/null -X DELETE "$vols/held-2"
    [ ! -e "$STATE/objects/default/volumes/held-1.json" ]
    kill -TERM "$PID"
    wait "$PID"
    PID=
    [ -f "$STATE/objects/default/volumes/held-1.json" ]
    [ ! -e "$STATE/objects/default/volumes/held-2.json" ]
    [ -f "$STATE/objects/default/volumes/held-3.json" ]
    : >"$BATS_TEST_TMPDIR/err"
    start --fsync batch
    run cat "$BATS_TEST_TMPDIR/err"
    refute_output --partial "brought up to revision"
}
