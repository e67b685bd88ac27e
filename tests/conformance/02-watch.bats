#!/usr/bin/env bats
# Conformance: watch order, resume from a resourceVersion, 410 Expired.

load conformance

setup() { conf_setup; }
teardown() {
    if [ -n "${WATCH_PID:-}" ]; then
        kill "$WATCH_PID" 2>/dev/null || true
        wait "$WATCH_PID" 2>/dev/null || true
    fi
    conf_teardown
}

list_rv() { # PATH: the list's resourceVersion
    api GET "$1?limit=1"
    jb .metadata.resourceVersion
}

# watch_to FILE PATH-AND-QUERY: a watch whose stream ends by itself (timeoutSeconds).
watch_to() {
    curl "${CURL_ARGS[@]}" --max-time 20 -N "$SERVER$2" >"$1" 2>/dev/null || true
}

# The distinct consecutive events of FILE as "TYPE NAME" lines (a server may write
# status in between, which shows as more MODIFIED events).
events() {
    jq -r '.type + " " + (.object.metadata.name // "")' "$1" | uniq
}

# resourceVersions strictly increase along the stream (compared as opaque
# strings they must at least differ; numerically when they are numbers)
increasing() {
    jq -s -e '[.[] | select(.type != "BOOKMARK") | .object.metadata.resourceVersion] |
        (if all(test("^[0-9]+$")) then map(tonumber) else . end) as $v |
        ($v | length) < 2 or ([range(1; $v | length) | $v[.] > $v[. - 1]] | all)' "$1" >/dev/null
}

@test "a watch sends ADDED, MODIFIED, DELETED in order with increasing resourceVersions" {
    local rv out=$BATS_TEST_TMPDIR/w
    rv=$(list_rv $NS/volumes)
    [ -n "$rv" ] && [ "$rv" != null ] || { echo "a list has no metadata.resourceVersion" >&2; seen; false; }
    curl "${CURL_ARGS[@]}" --max-time 30 -N \
        "$SERVER$NS/volumes?watch=true&resourceVersion=$rv&timeoutSeconds=20" >"$out" 2>/dev/null &
    WATCH_PID=$!
    api POST $NS/volumes "$(volume_json w1)"
    expect_code 201
    api PATCH $NS/volumes/w1 '{"metadata":{"labels":{"a":"b"}}}' "${MERGE[@]}"
    expect_code 200
    api DELETE $NS/volumes/w1
    [ "$CODE" = 200 ] || [ "$CODE" = 202 ] || expect_code 200
    poll_until 15 grep -q '"DELETED"' "$out" || { echo "no DELETED event within 15 s; the stream:" >&2; cat "$out" >&2; false; }
    kill "$WATCH_PID" 2>/dev/null || true
    wait "$WATCH_PID" 2>/dev/null || true
    WATCH_PID=
    local got
    got=$(events "$out" | grep -v '^BOOKMARK')
    expect_eq events $'ADDED w1\nMODIFIED w1\nDELETED w1' "$got"
    increasing "$out" || { echo "resourceVersions do not increase:" >&2; jq -c '[.type, .object.metadata.resourceVersion]' "$out" >&2; false; }
}

@test "a watch resumed from a resourceVersion sends exactly the changes after it" {
    local rv out=$BATS_TEST_TMPDIR/all again=$BATS_TEST_TMPDIR/again
    rv=$(list_rv $NS/volumes)
    api POST $NS/volumes "$(volume_json r1)"
    expect_code 201
    api POST $NS/volumes "$(volume_json r2)"
    expect_code 201
    api PATCH $NS/volumes/r1 '{"metadata":{"labels":{"x":"1"}}}' "${MERGE[@]}"
    expect_code 200
    api DELETE $NS/volumes/r2
    watch_to "$out" "$NS/volumes?watch=true&resourceVersion=$rv&timeoutSeconds=1"
    jq -c 'select(.type != "BOOKMARK")' "$out" >"$out.ev"
    local n
    n=$(wc -l <"$out.ev")
    [ "$n" -ge 4 ] || { echo "expected at least 4 events from $rv, got $n:" >&2; cat "$out" >&2; false; }
    increasing "$out.ev" || { echo "resourceVersions do not increase" >&2; cat "$out" >&2; false; }
    # resume from the second event: the stream is the rest of the first one
    local mid
    mid=$(sed -n 2p "$out.ev" | jq -r .object.metadata.resourceVersion)
    watch_to "$again" "$NS/volumes?watch=true&resourceVersion=$mid&timeoutSeconds=1"
    expect_eq "events after resourceVersion $mid" \
        "$(tail -n +3 "$out.ev" | jq -r '.type + " " + .object.metadata.name + " " + .object.metadata.resourceVersion')" \
        "$(jq -r 'select(.type != "BOOKMARK") | .type + " " + .object.metadata.name + " " + .object.metadata.resourceVersion' "$again")"
}

@test "a watch without a resourceVersion starts with the current objects as ADDED" {
    api POST $NS/volumes "$(volume_json a1)"
    expect_code 201
    api POST $NS/volumes "$(volume_json a2)"
    expect_code 201
    watch_to "$BATS_TEST_TMPDIR/w" "$NS/volumes?watch=true&timeoutSeconds=1"
    expect_eq events $'ADDED a1\nADDED a2' "$(events "$BATS_TEST_TMPDIR/w" | grep -v '^BOOKMARK' | sort)"
}

@test "resuming from a resourceVersion older than the kept history is 410 Expired" {
    # Portable only where the server has dropped history: "1" is the oldest point there
    # is, so a server that has dropped any history answers Expired for it. Write once so
    # a server that drops history as it writes gets the chance.
    api POST $NS/volumes "$(volume_json e1)"
    expect_code 201
    local out=$BATS_TEST_TMPDIR/w
    api GET "$NS/volumes?watch=true&resourceVersion=1&timeoutSeconds=1"
    cp "$BODY" "$out"
    if [ "$CODE" = 410 ]; then
        expect_status 410 Expired
        return 0
    fi
    expect_code 200
    if ! grep -q '"ERROR"' "$out"; then
        skip "this server still keeps its history from resourceVersion 1 (it keeps 24 hours; run against a server with older history to check Expired)"
    fi
    local first
    first=$(grep '"ERROR"' "$out" | head -n 1)
    expect_eq "the ERROR event" "ERROR Status 410 Expired Failure" \
        "$(jq -r '.type + " " + .object.kind + " " + (.object.code|tostring) + " " + .object.reason + " " + .object.status' <<<"$first")"
    [ -n "$(jq -r '.object.message // empty' <<<"$first")" ] || { echo "the Expired Status has no message: $first" >&2; false; }
}
