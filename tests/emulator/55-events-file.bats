#!/usr/bin/env bats
# Events are kept one NDJSON file per project and hour (objects/<project>/events/<hour>.ndjson,
# docs/emulator.md): a create adds one new file (its object's), not two; the lines read
# with jq; Events survive a clean stop and a kill -9, go with their project, and a file
# edited, broken or removed by hand is handled as the docs say.

load ../lib/common

# the simulation off: the Events are the creates' own, none comes later
setup() {
    EMU_STATE=$BATS_TEST_TMPDIR/state
    start_emulator --no-simulation
    EV=$EMU_STATE/objects/default/events
}

teardown() {
    stop_emulator
}

vol() { # NAME [PROJECT]: creates a Volume through the API
    http POST "/apis/nodus.dev/v1/namespaces/${2:-default}/volumes" \
        "{\"metadata\":{\"name\":\"$1\"},\"spec\":{\"size\":\"1Gi\"}}"
    [ "$CODE" = 201 ]
}

# names PROJECT: the Events the API lists in PROJECT ("name reason"), sorted
names() {
    curl -sf "$(emu_url)/api/v1/namespaces/$1/events" |
        jq -r '.items[] | "\(.metadata.name) \(.reason)"' | sort
}

# restart [--kill]: stops the emulator (SIGTERM, or SIGKILL) and starts it again
restart() {
    local pid
    pid=$(cat "$BATS_FILE_TMPDIR/emulator.pid")
    rm -f "$BATS_FILE_TMPDIR/emulator.pid"
    if [ "${1:-}" = --kill ]; then kill -KILL "$pid"; else kill -TERM "$pid"; fi
    wait_until pid_gone "$pid"
    start_emulator --no-simulation
}

stop_only() {
    local pid
    pid=$(cat "$BATS_FILE_TMPDIR/emulator.pid")
    rm -f "$BATS_FILE_TMPDIR/emulator.pid"
    kill -TERM "$pid"
    wait_until pid_gone "$pid"
}

@test "N creates through the API add about N new files to the state directory, not 2N" {
    vol first
    local before after n=20 i
    before=$(find "$EMU_STATE" -type f ! -name "*.spare" | wc -l)
    for i in $(seq $n); do vol "v$i"; done
    # the files follow the answers within moments (the journal's file writer)
    wait_until eval '[ "$(find "$EMU_STATE/objects/default/volumes" -type f | wc -l)" -ge $((n + 1)) ]'
    after=$(find "$EMU_STATE" -type f ! -name "*.spare" | wc -l)
    # each Volume's own file, plus at most a new hour file or two (a clock hour boundary)
    echo "new files: $((after - before)) for $n creates"
    [ $((after - before)) -ge $n ]
    [ $((after - before)) -le $((n + 2)) ]
    # and every Event is there
    [ "$(names default | grep -c ' Created$')" -eq $((n + 1)) ]
}

@test "the Events read with jq from their hour file: one line per revision, as the API returns them" {
    vol a
    vol b
    # the hour file follows the answers within moments (the journal's file writer)
    wait_until eval '[ "$(cat "$EV"/*.ndjson | grep -c "\"kind\":\"Event\"")" -ge "$(names default | wc -l)" ]'
    run find "$EV" -type f
    assert_success
    [ "${#lines[@]}" -ge 1 ]
    for f in "${lines[@]}"; do
        [[ $f =~ /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}\.ndjson$ ]]
    done
    jq -r 'select(.kind == "Event") | "\(.metadata.name) \(.reason)"' "$EV"/*.ndjson | sort \
        >"$BATS_TEST_TMPDIR/file"
    names default >"$BATS_TEST_TMPDIR/api"
    [ -s "$BATS_TEST_TMPDIR/api" ]
    diff "$BATS_TEST_TMPDIR/api" "$BATS_TEST_TMPDIR/file"
    # the line is the object the API serves
    local n
    n=$(jq -r 'select(.involvedObject.name == "a") | .metadata.name' "$EV"/*.ndjson | head -n 1)
    diff <(curl -sf "$(emu_url)/api/v1/namespaces/default/events/$n" | jq -cS .) \
        <(jq -cS "select(.metadata.name == \"$n\")" "$EV"/*.ndjson)
}

@test "Events survive a clean stop (and its checkpoint) and a kill -9, in their hour files" {
    vol a
    vol b
    names default >"$BATS_TEST_TMPDIR/before"
    [ -s "$BATS_TEST_TMPDIR/before" ]
    restart
    diff "$BATS_TEST_TMPDIR/before" <(names default)
    vol c
    names default >"$BATS_TEST_TMPDIR/before"
    restart --kill
    diff "$BATS_TEST_TMPDIR/before" <(names default)
    run ls "$EV"
    refute_output --partial '.json'
    assert_output --partial '.ndjson'
    # kubectl's field selector and the events.k8s.io view still find them
    run curl -sf "$(emu_url)/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=c"
    assert_success
    [ "$(jq '.items | length' <<<"$output")" -ge 1 ]
    run curl -sf "$(emu_url)/apis/events.k8s.io/v1/namespaces/default/events"
    assert_success
    [ "$(jq '.items | length' <<<"$output")" -eq "$(wc -l <"$BATS_TEST_TMPDIR/before")" ]
}

@test "an Event whose append a kill -9 cut off is appended again from the journal" {
    vol a
    vol b
    names default >"$BATS_TEST_TMPDIR/before"
    local f pid
    f=$(ls "$EV"/*.ndjson | tail -n 1)
    pid=$(cat "$BATS_FILE_TMPDIR/emulator.pid")
    rm -f "$BATS_FILE_TMPDIR/emulator.pid"
    kill -KILL "$pid"
    wait_until pid_gone "$pid"
    # as if the kill came after the journal's flush and before the append
    sed -i '$d' "$f"
    touch -d '-1 hour' "$f"
    start_emulator --no-simulation
    diff "$BATS_TEST_TMPDIR/before" <(names default)
    run cat "$BATS_FILE_TMPDIR/emulator.err"
    assert_output --partial "$(basename "$f"): appended revision"
}

@test "Events go with their project: the hour file goes as a whole" {
    http POST /api/v1/namespaces '{"metadata":{"name":"gone"}}'
    [ "$CODE" = 201 ]
    vol a gone
    vol b gone
    wait_until eval 'ls "$EMU_STATE/objects/gone/events" | grep -q "\.ndjson"'
    http DELETE /api/v1/namespaces/gone
    wait_until eval '[ "$(curl -s -o /dev/null -w "%{http_code}" "$(emu_url)/api/v1/namespaces/gone")" = 404 ]'
    wait_until eval '[ -z "$(ls "$EMU_STATE/objects/gone/events")" ]' 
    restart
    [ -z "$(names gone)" ]
}

@test "a line edited by hand wins; a line that does not parse is reported and skipped; a removed file removes its Events" {
    vol a
    vol b
    stop_only
    local f n
    f=$(ls "$EV"/*.ndjson | head -n 1)
    n=$(jq -r 'select(.involvedObject.name == "a") | .metadata.name' "$f" | head -n 1)
    # edited in place: the line keeps its resourceVersion and stays the newest
    jq -c "if .metadata.name == \"$n\" then .message = \"edited by hand\" else . end" "$f" \
        >"$BATS_TEST_TMPDIR/f" && mv "$BATS_TEST_TMPDIR/f" "$f"
    echo '{"not json' >>"$f"
    cp "$f" "$BATS_TEST_TMPDIR/orig"
    start_emulator --no-simulation
    run curl -sf "$(emu_url)/api/v1/namespaces/default/events/$n"
    assert_success
    [ "$(jq -r .message <<<"$output")" = "edited by hand" ]
    run cat "$BATS_FILE_TMPDIR/emulator.err"
    assert_output --partial "$f: line"
    # the other Events load; the broken line is left where it is
    [ "$(names default | grep -c ' Created$')" -eq 2 ]
    stop_only
    cmp <(head -c "$(stat -c %s "$BATS_TEST_TMPDIR/orig")" "$f") "$BATS_TEST_TMPDIR/orig"
    rm "$EV"/*.ndjson
    start_emulator --no-simulation
    [ -z "$(names default)" ]
}

@test "Events of the one-file-each layout are read and moved into their hour file" {
    vol a
    stop_only
    local n
    n=$(jq -r 'select(.involvedObject.name == "a") | .metadata.name' "$EV"/*.ndjson | head -n 1)
    jq "select(.metadata.name == \"$n\") | .metadata.name = \"old-layout\"" "$EV"/*.ndjson \
        >"$EV/old-layout.json"
    start_emulator --no-simulation
    run curl -sf "$(emu_url)/api/v1/namespaces/default/events/old-layout"
    assert_success
    [ ! -e "$EV/old-layout.json" ]
    [ "$(jq -r 'select(.metadata.name == "old-layout") | .reason' "$EV"/*.ndjson)" = Created ]
}
