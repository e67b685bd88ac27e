#!/usr/bin/env bats
# The start's loader threads make each object's store entry, index entry and owner-index
# entries as they read its file (store/checkpoint.h), so the thread that opens the store
# only links them in; /emulator/v1/stats counts them (start.indexedOnLoaders), and the
# files they opened (or stat-ed) by name in their directory's descriptor, not by a path
# from the root (start.openedInDir). Restarted from the checkpoint of a clean stop and
# from the files alone, with enough objects for both threads: every object file is
# counted, and lists, label and field selectors and a cascade delete through the owner
# index answer as before the restart.

load ../lib/common

NDEP=200 # Volumes owned by one Volume, in project b
NJOB=60  # Jobs, in project c

setup_file() {
    start_emulator --no-simulation
    export T=$BATS_FILE_TMPDIR
    local p i
    for p in b c; do
        http POST /api/v1/namespaces "{\"metadata\":{\"name\":\"$p\"}}"
        [ "$CODE" = 201 ]
    done
    http POST /apis/nodus.dev/v1/namespaces/b/volumes \
        '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"owner"},"spec":{"size":"1Gi"}}'
    [ "$CODE" = 201 ]
    local owner
    owner=$(body_json .metadata.uid)
    local url=$EMU_URL/apis/nodus.dev/v1/namespaces
    # one curl for the creates (a config of requests), not 260 curls
    for i in $(seq -w 1 $NDEP); do
        [ "$i" = 001 ] || echo next
        printf 'url = "%s/b/volumes"\nrequest = "POST"\nheader = "Content-Type: application/json"\n' "$url"
        printf 'data = "{\\"apiVersion\\":\\"nodus.dev/v1\\",\\"kind\\":\\"Volume\\",\\"metadata\\":{\\"name\\":\\"v%s\\",\\"labels\\":{\\"tier\\":\\"%s\\"},\\"ownerReferences\\":[{\\"apiVersion\\":\\"nodus.dev/v1\\",\\"kind\\":\\"Volume\\",\\"name\\":\\"owner\\",\\"uid\\":\\"%s\\"}]},\\"spec\\":{\\"size\\":\\"1Gi\\"}}"\n' \
            "$i" $((10#$i % 2)) "$owner"
        printf 'output = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n'
    done >"$T/creates.cfg"
    for i in $(seq -w 1 $NJOB); do
        echo next
        local m
        m=$(job_json "j$i")
        printf 'url = "%s/c/jobs"\nrequest = "POST"\nheader = "Content-Type: application/json"\ndata = "%s"\n' \
            "$url" "${m//\"/\\\"}"
        printf 'output = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n'
    done >>"$T/creates.cfg"
    curl -s --no-progress-meter --parallel --parallel-max 8 -K "$T/creates.cfg" >"$T/codes"
    [ "$(grep -c '^201$' "$T/codes")" = $((NDEP + NJOB)) ]
    answers >"$T/before"
}

teardown_file() { stop_emulator; }

# What the store serves of the objects: a list with names, revisions, uids, labels and
# owners; a label selector; a field selector; a list of every project's Jobs filtered by
# project.
answers() {
    local u
    u=$(emu_url)/apis/nodus.dev/v1
    curl -sf "$u/namespaces/b/volumes?limit=500" | jq -c '[.items[] | [.metadata.name,
        .metadata.resourceVersion, .metadata.uid, .metadata.labels.tier,
        ((.metadata.ownerReferences // []) | map(.uid))]]'
    curl -sf "$u/namespaces/b/volumes?labelSelector=tier%3D1" | jq -c '[.items[].metadata.name]'
    curl -sf "$u/namespaces/b/volumes?fieldSelector=metadata.name%3Dv042" | jq -c '[.items[].metadata.name]'
    curl -sf "$u/jobs?fieldSelector=metadata.namespace%3Dc&limit=500" | jq -c '[.items[].metadata.name]'
}

indexed_on_loaders() { curl -sf "$(emu_url)/emulator/v1/stats" | jq -e .start.indexedOnLoaders; }
opened_in_dir() { curl -sf "$(emu_url)/emulator/v1/stats" | jq -e .start.openedInDir; }

# restart [files]: a clean stop, then a start (from the files alone with "files": the
# checkpoint removed); FILES is the number of object files the start found
restart() {
    stop_emulator
    [ "${1:-}" != files ] || rm "$EMU_STATE/history/checkpoint"
    FILES=$(find "$EMU_STATE/objects" -name '*.json' | wc -l)
    start_emulator --no-simulation --listen "127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")"
}

@test "from the checkpoint, every object file's index entries are made on the loader threads" {
    restart
    [ "$FILES" -gt $((NDEP + NJOB)) ]
    run indexed_on_loaders
    assert_output "$FILES"
    run opened_in_dir
    assert_output "$FILES"
    run answers
    assert_output "$(cat "$T/before")"
}

@test "from the files, the same; and a cascade delete finds every dependent" {
    restart files
    run indexed_on_loaders
    assert_output "$FILES"
    run opened_in_dir
    assert_output "$FILES"
    run answers
    assert_output "$(cat "$T/before")"
    http DELETE /apis/nodus.dev/v1/namespaces/b/volumes/owner
    [ "$CODE" = 200 ] || [ "$CODE" = 202 ]
    wait_until volumes_left 0
}

volumes_left() {
    [ "$(curl -sf "$(emu_url)/apis/nodus.dev/v1/namespaces/b/volumes?limit=500" |
        jq '.items | length')" = "$1" ]
}
