#!/usr/bin/env bats
# A full disk: the state directory is a small filesystem of its own (a loop-mounted ext4
# image, so fsync is real), filled with a ballast file. A write the disk refuses is a 507
# StorageFull and nothing of it is kept, in memory or on disk; every acknowledged write
# survives kill -9 (--fsync always); reads go on; writes work again once space is freed,
# without a restart; the episode is logged once; a stop that cannot write says so in its
# exit status. Needs root (mount); skipped, saying why, without it.

load ../lib/common

NS=/apis/nodus.dev/v1/namespaces/default

setup_file() {
    export MNT=$BATS_FILE_TMPDIR/mnt
    local img=$BATS_FILE_TMPDIR/disk.img why=$BATS_FILE_TMPDIR/skip
    if [ "$(id -u)" != 0 ]; then
        echo "not root: a small filesystem for the state directory needs mount" >"$why"
        return 0
    fi
    mkdir -p "$MNT"
    truncate -s 24M "$img"
    if ! mkfs.ext4 -q -F -m 0 "$img" >"$why" 2>&1 ||
        ! mount -o loop "$img" "$MNT" >"$why" 2>&1; then
        sed -i '1s/^/cannot mount a loop ext4 image: /' "$why"
        return 0
    fi
    rm -f "$why"
}

teardown_file() {
    if mountpoint -q "$MNT" 2>/dev/null; then
        umount "$MNT" || umount -l "$MNT"
    fi
}

setup() {
    [ ! -e "$BATS_FILE_TMPDIR/skip" ] || skip "$(cat "$BATS_FILE_TMPDIR/skip")"
    STATE=$MNT/state
    PORTFILE=$BATS_FILE_TMPDIR/port # read by http (common.bash)
    ERR=$BATS_TEST_TMPDIR/err
    OPS=$BATS_TEST_TMPDIR/ops
    : >"$OPS"
    # a 60 KB annotation: the journal's space ahead runs out in a few writes
    PAD=$(head -c 60000 /dev/zero | tr '\0' x)
}

teardown() {
    [ -n "${PID:-}" ] && kill -KILL "$PID" 2>/dev/null || true
    rm -f "$MNT"/ballast*
}

start() {
    rm -f "$PORTFILE"
    nodus-emulator --state "$STATE" --listen 127.0.0.1:0 --port-file "$PORTFILE" \
        --fsync always --speed 0 "$@" >>"$BATS_TEST_TMPDIR/out" 2>>"$ERR" 3>&- &
    PID=$!
    wait_until started "$PORTFILE" "$PID" || true
    [ -s "$PORTFILE" ] || { cat "$ERR" >&2; return 1; }
}

fill() { # the disk is full: a ballast file takes every free block
    dd if=/dev/zero of="$MNT/ballast.$1" bs=64k >/dev/null 2>&1 || true
}

# op WHAT NAME METHOD PATH [BODY] [CONTENT-TYPE]: runs a request and records "WHAT NAME CODE"
op() {
    local what=$1 name=$2 method=$3 path=$4 body=${5:--} type=${6:-application/json}
    http "$method" "$path" "$body" -H "Content-Type: $type"
    echo "$what $name $CODE" >>"$OPS"
    if [ "$CODE" = 507 ]; then
        [ "$(body_json .reason)" = StorageFull ] || { cat "$BODY" >&2; return 1; }
    fi
}

create() {
    op create "$1" POST "$NS/volumes" "{\"metadata\":{\"name\":\"$1\",\"annotations\":{\"pad\":\"$PAD\"}},\"spec\":{\"size\":\"1Gi\"}}"
}

# creates until the disk refuses one (at most 100)
create_until_full() {
    local i
    for i in $(seq 1 100); do
        create "$1-$i"
        [ "$CODE" = 507 ] && return 0
    done
    echo "100 creates on a full disk, none refused" >&2
    return 1
}

names() { # PATH: the names of a list, as the server has them
    http GET "$1"
    [ "$CODE" = 200 ]
    body_json '.items[].metadata.name' | sort
}

@test "full disk: every write refused is a 507 and absent after kill -9, every one acknowledged is there" {
    start
    local i
    for i in $(seq 1 6); do create "base-$i"; done
    run ! grep -v ' 201$' "$OPS"
    fill a
    create_until_full full
    for i in 1 2 3; do
        op label "base-$i" PATCH "$NS/volumes/base-$i" '{"metadata":{"labels":{"full":"yes"}}}' \
            application/merge-patch+json
    done
    for i in 4 5 6; do op delete "base-$i" DELETE "$NS/volumes/base-$i"; done
    for i in 1 2; do create "late-$i"; done
    head -c 1048576 /dev/urandom >"$BATS_TEST_TMPDIR/blob"
    tar -C "$BATS_TEST_TMPDIR" -cf "$BATS_TEST_TMPDIR/up.tar" blob
    op upload base-1 PUT "$NS/volumes/base-1/files?path=/" "@$BATS_TEST_TMPDIR/up.tar" \
        application/x-tar
    op snapshot full POST /emulator/v1/snapshots/full
    # every answer was a success or a 507 StorageFull, and the disk did refuse some
    run ! grep -Ev ' (200|201|507)$' "$OPS"
    grep -q ' 507$' "$OPS"
    grep -q '^upload base-1 507$' "$OPS"
    grep -q '^snapshot full 507$' "$OPS"
    # reads go on
    http GET "$NS/volumes/base-1"
    [ "$CODE" = 200 ]
    names "$NS/volumes" >"$BATS_TEST_TMPDIR/volumes.before"
    names /api/v1/namespaces/default/events >"$BATS_TEST_TMPDIR/events.before"
    [ -s "$BATS_TEST_TMPDIR/events.before" ]
    grep -q '^storage: cannot write .*No space left on device' \
        <(sed 's/^nodus-emulator: //' "$ERR")

    kill -KILL "$PID"
    wait "$PID" 2>/dev/null || true
    rm -f "$MNT"/ballast*
    start
    # memory was the disk: the restart finds exactly what was served before
    names "$NS/volumes" | diff "$BATS_TEST_TMPDIR/volumes.before" -
    # every Event served before is there (a start adds Events of its own: issue 19 item 8)
    names /api/v1/namespaces/default/events >"$BATS_TEST_TMPDIR/events.after"
    run comm -23 "$BATS_TEST_TMPDIR/events.before" "$BATS_TEST_TMPDIR/events.after"
    [ -z "$output" ]
    # each write as it was answered: a 2xx is there, a 507 is not
    http GET "$NS/volumes"
    local -A label=()
    local what name code got lost=0 kept=0 acked=0
    while read -r name got; do label[$name]=$got; done \
        < <(body_json '.items[].metadata | "\(.name) \(.labels.full // "-")"')
    while read -r what name code; do
        got=${label[$name]:-absent}
        case "$what $code" in
        "create 201") acked=$((acked + 1)); [ "$got" != absent ] || lost=$((lost + 1)) ;;
        "create 507") [ "$got" = absent ] || kept=$((kept + 1)) ;;
        "label 200") acked=$((acked + 1)); [ "$got" = yes ] || lost=$((lost + 1)) ;;
        "label 507") [ "$got" = - ] || kept=$((kept + 1)) ;;
        "delete 200") acked=$((acked + 1)); [ "$got" = absent ] || lost=$((lost + 1)) ;;
        "delete 507") [ "$got" != absent ] || kept=$((kept + 1)) ;;
        esac
    done <"$OPS"
    echo "acknowledged $acked, lost $lost; refused but kept $kept" >&2
    # what the emulator said, for a failure: each 507 in order, and storage's messages
    [ "$kept" = 0 ] || grep -E ' 507 |storage' "$ERR" >&2
    [ "$lost" = 0 ]
    [ "$kept" = 0 ]
    [ ! -e "$STATE/snapshots/full" ]
    [ ! -e "$STATE/files/default/volumes/base-1/blob" ]
}

# the storage lines of the log: how many times an outage was logged again before writes
# reached the disk again (0: each one once); and whether the last says they do
twice_logged() {
    grep 'storage:' "$ERR" | awk '/cannot write/ { if (out) n++; out = 1; next } { out = 0 }
        END { print n + 0 }'
}
recovered_last() { grep 'storage:' "$ERR" | tail -n 1 | grep -q 'writes reach the disk again'; }

@test "full disk: writes work again once space is freed, without a restart; logged once" {
    start
    local logged
    fill b
    create_until_full again
    create again-x
    [ "$CODE" = 507 ]
    op label again-1 PATCH "$NS/volumes/again-1" '{"metadata":{"labels":{"a":"b"}}}' \
        application/merge-patch+json
    [ "$CODE" = 507 ]
    # once an outage: the file writer, behind the journal, may be refused first and then
    # write again (the room a cut-back frees) before the journal is refused
    logged=$(twice_logged)
    [ "$logged" = 0 ] || { grep -n 'storage' "$ERR" >&2; false; }
    [ "$(grep -c 'storage: cannot write' "$ERR")" -ge 1 ]
    rm -f "$MNT"/ballast*
    create recovered
    [ "$CODE" = 201 ]
    http GET "$NS/volumes/recovered"
    [ "$CODE" = 200 ]
    wait_until recovered_last
    [ "$(twice_logged)" = 0 ]
    kill -TERM "$PID"
    local rc=0
    wait "$PID" || rc=$?
    PID=
    [ "$rc" = 0 ]
}

@test "full disk: SIGTERM that cannot write its state exits non-zero and says why" {
    start
    fill c
    create_until_full stop
    kill -TERM "$PID"
    local rc=0
    wait "$PID" || rc=$?
    [ "$rc" = 1 ]
    grep -q 'cannot write .*No space left on device' "$ERR"
    grep -q 'the stop could not write its state' "$ERR"
    # and the next start, with room, has every write it acknowledged
    rm -f "$MNT"/ballast*
    start
    http GET "$NS/volumes"
    body_json '.items[].metadata.name' | sort >"$BATS_TEST_TMPDIR/there"
    # the creates answered 201 are there, and no other
    run comm -3 <(awk '$3 == 201 {print $2}' "$OPS" | sort) \
        <(grep '^stop-' "$BATS_TEST_TMPDIR/there")
    [ -z "$output" ]
}
