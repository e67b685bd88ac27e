#!/usr/bin/env bats
# The store holds bytes (docs/emulator.md, "Memory"): each object is kept as its compact
# JSON and a small record of the fields selectors read; a tree is built only for what
# works on one object, and /emulator/v1/stats counts them (trees.built). A restart from
# the checkpoint of a clean stop, then GET, LIST (plain, by label, by field), a watch
# with its initial events and a Table's rows of bytes... builds no tree.

load ../lib/common

N=120

setup_file() {
    start_emulator --no-simulation
    export T=$BATS_FILE_TMPDIR
    http POST /api/v1/namespaces '{"metadata":{"name":"b"}}'
    [ "$CODE" = 201 ]
    local i url m
    url=$(emu_url)/apis/nodus.dev/v1/namespaces/b/jobs
    for i in $(seq -w 1 $N); do
        [ "$i" = 001 ] || printf 'next\n'
        # the manifest with its label, quoted as a JSON string for curl's config (by the
        # shell: a jq each was 120 processes, ~4 s of CPU)
        m=$(job_json "j$i")
        m=${m/'"metadata":{"name":"'j$i'"}'/'"metadata":{"name":"'j$i'","labels":{"tier":"'$((10#$i % 2))'"}}'}
        [[ $m == *'"labels":{"tier":'* ]] || { echo "no label in $m" >&2; return 1; }
        m=${m//\\/\\\\}
        printf 'url = "%s"\nrequest = "POST"\nheader = "Content-Type: application/json"\ndata = "%s"\nwrite-out = "%%{http_code}\\n"\noutput = /dev/null\n' \
            "$url" "${m//\"/\\\"}"
    done >"$T/creates.cfg"
    curl -s --no-progress-meter --parallel --parallel-max 8 -K "$T/creates.cfg" >"$T/codes"
    [ "$(grep -c '^201$' "$T/codes")" = "$N" ]
}

teardown_file() { stop_emulator; }

trees() { curl -sf "$(emu_url)/emulator/v1/stats" | jq -c "$@" .trees; }
built() { curl -sf "$(emu_url)/emulator/v1/stats" | jq -e .trees.built; }

restart() {
    stop_emulator
    start_emulator --no-simulation --listen "127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")"
}

@test "stats count the trees built and the hot ones, with the bound" {
    run trees -e
    assert_success
    run jq -e '.built >= 0 and .hot >= 0 and .bound > 0' <<<"$output"
    assert_success
}

@test "a restart from the checkpoint, then GET, LIST, selectors and a watch build no tree" {
    restart
    run built
    assert_output 0
    url=$(emu_url)/apis/nodus.dev/v1/namespaces/b/jobs
    run curl -sf "$url/j007"
    assert_success
    [ "$(jq -r .metadata.name <<<"$output")" = j007 ]
    run curl -sf "$url?limit=50"
    [ "$(jq '.items | length' <<<"$output")" = 50 ]
    [ "$(jq -r .metadata.remainingItemCount <<<"$output")" = $((N - 50)) ]
    run curl -sf "$url?labelSelector=tier%3D1"
    [ "$(jq '.items | length' <<<"$output")" = $((N / 2)) ]
    [ "$(jq -r '[.items[].metadata.labels.tier] | unique | join(",")' <<<"$output")" = 1 ]
    run curl -sf "$url?fieldSelector=metadata.name%3Dj042"
    [ "$(jq -r '[.items[].metadata.name] | join(",")' <<<"$output")" = j042 ]
    run curl -sf "$(emu_url)/apis/nodus.dev/v1/jobs?fieldSelector=metadata.namespace%3Db&limit=500"
    [ "$(jq '.items | length' <<<"$output")" = $N ]
    # a watch from now: every object ADDED first, from its bytes
    curl -sfN "$url?watch=1&timeoutSeconds=1" >"$BATS_TEST_TMPDIR/w"
    [ "$(jq -s '[.[] | select(.type == "ADDED")] | length' "$BATS_TEST_TMPDIR/w")" = $N ]
    run built
    assert_output 0
}

@test "a write builds the tree of the object it changes, and reads see the change" {
    restart
    url=$(emu_url)/apis/nodus.dev/v1/namespaces/b/jobs
    run curl -sf -X PATCH -H 'Content-Type: application/merge-patch+json' \
        -d '{"metadata":{"labels":{"tier":"9"}}}' "$url/j003"
    assert_success
    run built
    assert_success
    [ "$output" -ge 1 ] && [ "$output" -le 3 ]
    run curl -sf "$url?labelSelector=tier%3D9"
    [ "$(jq -r '[.items[].metadata.name] | join(",")' <<<"$output")" = j003 ]
    run trees -e
    run jq -e '.hot <= .bound' <<<"$output"
    assert_success
}

@test "a restart without a checkpoint (after a crash) loads the files and keeps no tree" {
    kill -KILL "$(cat "$BATS_FILE_TMPDIR/emulator.pid")"
    wait_until pid_gone "$(cat "$BATS_FILE_TMPDIR/emulator.pid")"
    rm -f "$BATS_FILE_TMPDIR/emulator.pid"
    start_emulator --no-simulation --listen "127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")"
    run trees -e
    assert_success
    run jq -e '.built == 0 and .hot == 0' <<<"$output"
    assert_success
    run curl -sf "$(emu_url)/apis/nodus.dev/v1/namespaces/b/jobs?labelSelector=tier%3D9"
    [ "$(jq -r '[.items[].metadata.name] | join(",")' <<<"$output")" = j003 ]
    run built
    assert_output 0
}

# every item of every kind the state holds, and a few GETs, as served
served() {
    local u=$(emu_url)
    curl -sf "$u/apis/nodus.dev/v1/jobs?limit=500"
    curl -sf "$u/apis/nodus.dev/v1/namespaces/b/jobs?labelSelector=tier%3D1"
    curl -sf "$u/apis/nodus.dev/v1/namespaces/b/jobs?fieldSelector=status.phase%21%3DX"
    curl -sf "$u/api/v1/namespaces"
    curl -sf "$u/apis/nodus.dev/v1/namespaces/b/jobs/j007"
    curl -sf "$u/apis/nodus.dev/v1/namespaces/b/jobs/hand-1"
    curl -sf "$u/apis/nodus.dev/v1/namespaces/b/jobs/hand-2"
    curl -sf "$u/apis/nodus.dev/v1/namespaces/b/jobs/hand-3"
}

crash_and_start() {
    kill -KILL "$(cat "$BATS_FILE_TMPDIR/emulator.pid")"
    wait_until pid_gone "$(cat "$BATS_FILE_TMPDIR/emulator.pid")"
    rm -f "$BATS_FILE_TMPDIR/emulator.pid" "$EMU_STATE/history/checkpoint"
    start_emulator --no-simulation --listen "127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")"
}

@test "a start from the files serves the same bytes with the one-pass read as with jansson's" {
    # beside the files the emulator wrote, hand-edited ones: an escape jansson writes
    # otherwise, UTF-8 and control characters, no namespace, blanks of another style
    local d=$EMU_STATE/objects/b/jobs
    printf '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"hand-1","namespace":"b","labels":{"tier":"1","x":"a\\/b"}},"spec":{"image":"i"}}' >"$d/hand-1.json"
    printf '{ "apiVersion" : "nodus.dev/v1", "kind": "Job",\n\t"metadata": {"name": "hand-2", "labels": {"tier": "1", "y": "\xc3\xa9\\u001F\\n"}},\r\n "spec": {"image": "i", "n": [1.5, -2, 1e20]} }\n' >"$d/hand-2.json"
    printf '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"hand-3","namespace":"b","uid":"u\\u0041"},"spec":{"image":"i"},"status":{"phase":"Running"}}' >"$d/hand-3.json"
    NODUS_EMULATOR_TEST_JANSSON_LOAD=1 crash_and_start
    served >"$BATS_TEST_TMPDIR/jansson"
    crash_and_start
    served >"$BATS_TEST_TMPDIR/scan"
    [ "$(grep -c hand- "$BATS_TEST_TMPDIR/scan")" -ge 3 ]
    run cmp "$BATS_TEST_TMPDIR/jansson" "$BATS_TEST_TMPDIR/scan"
    assert_success
}
