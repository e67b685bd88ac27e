#!/usr/bin/env bats
# The owner index: a cascade delete finds its dependents (and a foreground owner its
# release) through the store's index of uids and owner references, kept with every
# change: owner references edited by PATCH, a dependent recreated under another owner,
# the Orphan and Foreground policies, a restart from the checkpoint and a kill -9. Each
# case also reads the stats' cascadeVisited: the objects a cascade looked at, which are
# the owners and dependents it found, never the 150 other objects of the project.

load ../lib/common

setup_file() {
    start_emulator --no-simulation
    local i cfg=$BATS_FILE_TMPDIR/bulk.cfg
    # one curl for the creates (a config of requests), not 150 curls
    for i in $(seq 1 150); do
        [ "$i" = 1 ] || echo next
        printf 'url = "%s"\nrequest = "POST"\nheader = "Content-Type: application/json"\n' \
            "$EMU_URL$VOLS"
        printf 'data = "{\\"apiVersion\\":\\"nodus.dev/v1\\",\\"kind\\":\\"Volume\\",\\"metadata\\":{\\"name\\":\\"other-%s\\"},\\"spec\\":{\\"size\\":\\"1Gi\\"}}"\n' "$i"
        printf 'output = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n'
    done >"$cfg"
    curl -s -K "$cfg" | sort | uniq -c | grep -q ' 150 201$'
}

teardown_file() {
    stop_emulator
}

VOLS=/apis/nodus.dev/v1/namespaces/default/volumes
MERGE=(-H 'Content-Type: application/merge-patch+json')

# vol NAME [OWNER-UID...]: a Volume owned by each uid (a Volume named "owner" each)
vol() {
    local name=$1
    shift
    jq -cn --arg n "$name" '$ARGS.positional as $u | {apiVersion:"nodus.dev/v1",kind:"Volume",
        metadata:({name:$n} + (if ($u | length) > 0 then {ownerReferences:[$u[] |
          {apiVersion:"nodus.dev/v1",kind:"Volume",name:"owner",uid:.}]} else {} end)),
        spec:{size:"1Gi"}}' --args "$@"
}

# create NAME [OWNER-UID...]: sets UID to the new Volume's uid
create() {
    http POST $VOLS "$(vol "$@")"
    [ "$CODE" = 201 ] || { echo "create $1: $CODE $(cat "$BODY")"; return 1; }
    UID_=$(body_json .metadata.uid)
}

visited() {
    http GET /emulator/v1/stats
    body_json .cascadeVisited
}

# names of the Volumes left among NAMES..., comma-separated
left() {
    local n out=
    for n in "$@"; do
        http GET $VOLS/$n
        [ "$CODE" != 200 ] || out=$out${out:+,}$n
    done
    echo "$out"
}

# the cascade since BEFORE looked at no more than MAX objects (a walk: 150 and more)
looked_at_most() {
    local before=$1 max=$2 now
    now=$(visited)
    echo "cascadeVisited: $before -> $now (at most $max more)"
    [[ $before =~ ^[0-9]+$ && $now =~ ^[0-9]+$ ]] # (a count, not null)
    [ "$((now - before))" -le "$max" ]
}

@test "a dependent a PATCH moved to another owner goes with that owner, not the first" {
    local a b v0
    create pa && a=$UID_
    create pb && b=$UID_
    create pd1 "$a"
    create pd2 "$a"
    http PATCH $VOLS/pd1 "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Volume\",\"name\":\"owner\",\"uid\":\"$b\"}]}}" "${MERGE[@]}"
    [ "$CODE" = 200 ]
    v0=$(visited)
    http DELETE $VOLS/pa
    [ "$CODE" = 200 ]
    run left pa pd1 pd2
    assert_output pd1
    http DELETE $VOLS/pb
    run left pb pd1
    assert_output ""
    looked_at_most "$v0" 12
}

@test "a dependent deleted and made again under another owner goes with its new owner" {
    local a b v0
    create ra && a=$UID_
    create rb && b=$UID_
    create rd "$a"
    http DELETE $VOLS/rd
    [ "$CODE" = 200 ]
    create rd "$b"
    v0=$(visited)
    http DELETE $VOLS/ra
    run left ra rd
    assert_output rd
    http DELETE $VOLS/rb
    run left rb rd
    assert_output ""
    looked_at_most "$v0" 8
}

@test "Orphan takes one owner's reference off; the other owner's delete then takes the dependent" {
    local a b v0
    create oa && a=$UID_
    create ob && b=$UID_
    create od "$a" "$b"
    v0=$(visited)
    http DELETE "$VOLS/oa?propagationPolicy=Orphan"
    [ "$CODE" = 200 ]
    http GET $VOLS/od
    [ "$CODE" = 200 ]
    run body_json '[.metadata.ownerReferences[].uid] | join(",")'
    assert_output "$b"
    http DELETE $VOLS/ob
    run left oa ob od
    assert_output ""
    looked_at_most "$v0" 10
}

@test "Foreground: the owner goes when its last held dependent does, found by its uid" {
    local a v0
    create fa && a=$UID_
    create fd1 "$a"
    create fd2 "$a"
    http PATCH $VOLS/fd1 '{"metadata":{"finalizers":["example.com/hold"]}}' "${MERGE[@]}"
    v0=$(visited)
    http DELETE $VOLS/fa '{"propagationPolicy":"Foreground"}'
    [ "$CODE" = 200 ]
    run left fa fd1 fd2
    assert_output fa,fd1
    http PATCH $VOLS/fd1 '{"metadata":{"finalizers":null}}' "${MERGE[@]}"
    run left fa fd1
    assert_output ""
    looked_at_most "$v0" 12
}

# stop the emulator as HOW says (clean: TERM; crash: KILL) and start it on the same state
restart() {
    if [ "$1" = crash ]; then
        local pid
        pid=$(cat "$BATS_FILE_TMPDIR/emulator.pid")
        kill -KILL "$pid"
        wait_until pid_gone "$pid"
        rm -f "$BATS_FILE_TMPDIR/emulator.pid"
    else
        stop_emulator
        [ -s "$EMU_STATE/history/checkpoint" ]
    fi
    start_emulator --no-simulation
}

# owners and dependents, references changed, then a restart: the index is what the
# objects say
restart_case() {
    local how=$1 a b v0
    create "$how-a" && a=$UID_
    create "$how-b" && b=$UID_
    create "$how-d1" "$a"
    create "$how-d2" "$a"
    create "$how-d3" "$b"
    http PATCH "$VOLS/$how-d2" "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Volume\",\"name\":\"owner\",\"uid\":\"$b\"}]}}" "${MERGE[@]}"
    http DELETE "$VOLS/$how-d3"
    create "$how-d3" "$a"
    restart "$how"
    v0=$(visited)
    http DELETE "$VOLS/$how-a"
    [ "$CODE" = 200 ]
    run left "$how-a" "$how-b" "$how-d1" "$how-d2" "$how-d3"
    assert_output "$how-b,$how-d2"
    http DELETE "$VOLS/$how-b"
    run left "$how-b" "$how-d2"
    assert_output ""
    looked_at_most "$v0" 12
}

@test "after a clean stop and a start from its checkpoint, cascades follow the objects" {
    restart_case clean
}

@test "after kill -9 and the journal's recovery, cascades follow the objects" {
    restart_case crash
}
