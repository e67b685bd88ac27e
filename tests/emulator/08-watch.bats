#!/usr/bin/env bats
# Watches: order, initial events, selectors, Tables, bookmarks, expiry, timeouts, many at once.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs
MERGE=(-H 'Content-Type: application/merge-patch+json')

# watch PATH-AND-QUERY OUTFILE [curl args]: a background watch; its pid in WATCH_PID.
# Returns once the emulator has registered it.
watch_bg() {
    local url=$1 out=$2 n
    shift 2
    n=$(watches_total)
    curl -sN "$@" "$(emu_url)$url" >"$out" 3>&- &
    WATCH_PID=$!
    wait_until watches_at_least $((n + 1))
}

# wait_for FILE REGEX: waits (up to 15 s) until a line of FILE matches, then ends the watch.
wait_for() {
    wait_until -t 15 grep -qE "$2" "$1" || true # the test's assertions say what is missing
    kill "$WATCH_PID" 2>/dev/null || true
    wait "$WATCH_PID" 2>/dev/null || true
}

# The emulator's controllers write status too (a Job's first conditions), so a test of
# the stream's order compares the distinct consecutive events (uniq).

lines_at_least() { # FILE N
    [ "$(wc -l <"$1")" -ge "$2" ]
}

# wait_lines FILE N: waits (up to 15 s) until FILE has N lines, then ends the watch.
wait_lines() {
    wait_until -t 15 lines_at_least "$1" "$2" || true # the test's assertions say what is missing
    kill "$WATCH_PID" 2>/dev/null || true
    wait "$WATCH_PID" 2>/dev/null || true
}

rv_now() {
    http GET "$JOBS?limit=1"
    body_json .metadata.resourceVersion
}

@test "a watch from a resourceVersion sends every later change in order" {
    local rv
    rv=$(rv_now)
    watch_bg "$JOBS?watch=true&resourceVersion=$rv" "$BATS_TEST_TMPDIR/w"
    http POST $JOBS "$(job_json w1)"
    http PATCH $JOBS/w1 '{"metadata":{"labels":{"a":"b"}}}' "${MERGE[@]}"
    http DELETE $JOBS/w1
    wait_for "$BATS_TEST_TMPDIR/w" '"type":"DELETED"'
    run bash -c "jq -r '.type + \" \" + .object.metadata.name' '$BATS_TEST_TMPDIR/w' | uniq"
    assert_output $'ADDED w1\nMODIFIED w1\nDELETED w1'
    # resourceVersions strictly increase
    run jq -s '[.[].object.metadata.resourceVersion | tonumber] | . == (sort | unique)' "$BATS_TEST_TMPDIR/w"
    assert_output true
}

@test "a watch without a resourceVersion starts with the current objects as ADDED" {
    http POST $JOBS "$(job_json w2)"
    http POST $JOBS "$(job_json w3)"
    curl -sN "$(emu_url)$JOBS?watch=true&timeoutSeconds=1" >"$BATS_TEST_TMPDIR/w"
    run jq -r '.type + " " + .object.metadata.name' "$BATS_TEST_TMPDIR/w"
    assert_output $'ADDED w2\nADDED w3'
}

@test "the stream is chunked JSON, or ndjson when asked" {
    curl -sN -D "$BATS_TEST_TMPDIR/h" -o /dev/null "$(emu_url)$JOBS?watch=1&timeoutSeconds=1"
    grep -qi '^Transfer-Encoding: chunked' "$BATS_TEST_TMPDIR/h"
    grep -qi '^Content-Type: application/json' "$BATS_TEST_TMPDIR/h"
    curl -sN -D "$BATS_TEST_TMPDIR/h" -o /dev/null -H 'Accept: application/x-ndjson' \
        "$(emu_url)$JOBS?watch=1&timeoutSeconds=1"
    grep -qi '^Content-Type: application/x-ndjson' "$BATS_TEST_TMPDIR/h"
}

@test "a selector watch sends ADDED on entering and DELETED on leaving the selection" {
    local rv
    rv=$(rv_now)
    watch_bg "$JOBS?watch=true&resourceVersion=$rv&labelSelector=pick%3Dme" "$BATS_TEST_TMPDIR/w"
    http PATCH $JOBS/w2 '{"metadata":{"labels":{"pick":"me"}}}' "${MERGE[@]}"
    http PATCH $JOBS/w2 '{"metadata":{"labels":{"x":"y"}}}' "${MERGE[@]}"
    http PATCH $JOBS/w2 '{"metadata":{"labels":{"pick":null}}}' "${MERGE[@]}"
    http PATCH $JOBS/w3 '{"metadata":{"labels":{"other":"1"}}}' "${MERGE[@]}"
    # a marker that enters the selection last: everything before it has been sent
    http PATCH $JOBS/w3 '{"metadata":{"labels":{"pick":"me"}}}' "${MERGE[@]}"
    wait_lines "$BATS_TEST_TMPDIR/w" 4
    run jq -r '.type + " " + .object.metadata.name' "$BATS_TEST_TMPDIR/w"
    assert_output $'ADDED w2\nMODIFIED w2\nDELETED w2\nADDED w3'
}

@test "a Table watch sends one-row Tables, with column definitions only first" {
    local rv
    rv=$(rv_now)
    watch_bg "$JOBS?watch=true&resourceVersion=$rv&fieldSelector=metadata.name%3Dw4" "$BATS_TEST_TMPDIR/w" \
        -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json'
    http POST $JOBS "$(job_json w4)"
    http PATCH $JOBS/w4 '{"metadata":{"labels":{"a":"b"}}}' "${MERGE[@]}"
    wait_lines "$BATS_TEST_TMPDIR/w" 2
    run bash -c "jq -r '.type + \" \" + .object.kind + \" \" + (.object.columnDefinitions | length | tostring) + \" \" + .object.rows[0].cells[0]' '$BATS_TEST_TMPDIR/w' | uniq"
    # every column of Job (pkg/kinds/kinds.c), as many as its CRD has and NAME
    local ncols
    ncols=$(nodus crds --kind Job -o json | jq '[.. | .additionalPrinterColumns? // empty | .[]] | length + 1')
    assert_output $'ADDED Table '"$ncols"$' w4\nMODIFIED Table 0 w4'
}

@test "bookmarks come every 30 seconds of the emulator's clock when allowed" {
    local rv
    rv=$(rv_now)
    watch_bg "$JOBS?watch=true&resourceVersion=$rv&allowWatchBookmarks=true" "$BATS_TEST_TMPDIR/w"
    curl -sf -o /dev/null -X POST "$(emu_url)/emulator/v1/clock" -H 'Content-Type: application/json' -d '{"advance":"31s"}'
    wait_lines "$BATS_TEST_TMPDIR/w" 1
    run jq -r '.type + " " + .object.kind + " " + (.object.metadata.resourceVersion | test("^[0-9]+$") | tostring)' "$BATS_TEST_TMPDIR/w"
    assert_line "BOOKMARK Job true"
    # without the flag, no bookmark
    watch_bg "$JOBS?watch=true&resourceVersion=$rv&timeoutSeconds=1" "$BATS_TEST_TMPDIR/w2"
    curl -sf -o /dev/null -X POST "$(emu_url)/emulator/v1/clock" -H 'Content-Type: application/json' -d '{"advance":"31s"}'
    wait "$WATCH_PID"
    run grep -c BOOKMARK "$BATS_TEST_TMPDIR/w2"
    assert_output 0
}

@test "timeoutSeconds ends the stream cleanly; without it the stream stays open" {
    local start end
    start=$(date +%s)
    run curl -sN "$(emu_url)$JOBS?watch=true&resourceVersion=$(rv_now)&timeoutSeconds=1"
    [ "$status" -eq 0 ]
    end=$(date +%s)
    [ $((end - start)) -le 3 ]
    run curl -sN --max-time 2 "$(emu_url)$JOBS?watch=true&resourceVersion=$(rv_now)"
    [ "$status" -eq 28 ] # curl's own timeout: the server did not close it
}

@test "the cluster-wide watch sees every project" {
    http POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}}'
    local rv
    rv=$(rv_now)
    watch_bg "/apis/nodus.dev/v1/jobs?watch=true&resourceVersion=$rv" "$BATS_TEST_TMPDIR/w"
    http POST /apis/nodus.dev/v1/namespaces/other/jobs "$(job_json w5)"
    http POST $JOBS "$(job_json w6)"
    wait_for "$BATS_TEST_TMPDIR/w" '"name":"w6"'
    run bash -c "jq -r '.object.metadata.namespace + \"/\" + .object.metadata.name' '$BATS_TEST_TMPDIR/w' | uniq"
    assert_output $'other/w5\ndefault/w6'
}

@test "hundreds of concurrent watches each get every event" {
    local i n=200 rv pids=() url args=()
    rv=$(rv_now)
    mkdir -p "$BATS_TEST_TMPDIR/many"
    url="$(emu_url)$JOBS?watch=true&resourceVersion=$rv&timeoutSeconds=120"
    for i in $(seq 1 $n); do args+=(-o "$BATS_TEST_TMPDIR/many/$i" "$url"); done
    # one curl holds the n watches, each on its own connection (--parallel), instead of n
    # curls: the emulator sees the same n concurrent watches
    curl -sN --parallel --parallel-immediate --parallel-max $n "${args[@]}" 3>&- &
    pids+=($!)
    watches_open_at_least() {
        http GET /emulator/v1/stats
        [ "$(body_json .watchesOpen)" -ge $n ]
    }
    wait_until -t 30 watches_open_at_least || true
    [ "$(body_json .watchesOpen)" -ge $n ]
    http POST $JOBS "$(job_json crowd)"
    [ "$CODE" = 201 ]
    all_got_crowd() {
        [ "$(grep -l '"name":"crowd"' "$BATS_TEST_TMPDIR"/many/* | wc -l)" -eq $n ]
    }
    wait_until all_got_crowd || true
    kill "${pids[@]}" 2>/dev/null || true
    wait
    [ "$(grep -l '"name":"crowd"' "$BATS_TEST_TMPDIR"/many/* | wc -l)" -eq $n ]
}

@test "resuming from before the kept history sends an ERROR event with 410 Expired" {
    local rv
    rv=$(rv_now)
    http POST $JOBS "$(job_json w7)"
    curl -sf -o /dev/null -X POST "$(emu_url)/emulator/v1/clock" -H 'Content-Type: application/json' -d '{"advance":"25h"}'
    http POST $JOBS "$(job_json w8)"
    curl -sN "$(emu_url)$JOBS?watch=true&resourceVersion=$rv&timeoutSeconds=1" >"$BATS_TEST_TMPDIR/w"
    run jq -r '.type + " " + (.object.code|tostring) + " " + .object.reason' "$BATS_TEST_TMPDIR/w"
    assert_output "ERROR 410 Expired"
}

@test "bad watch parameters are BadRequest" {
    http GET "$JOBS?watch=true&resourceVersion=abc"
    [ "$CODE" = 400 ]
    http GET "$JOBS?watch=true&timeoutSeconds=soon"
    [ "$CODE" = 400 ]
    http GET "$JOBS?watch=true&labelSelector=a+in+("
    [ "$CODE" = 400 ]
}
