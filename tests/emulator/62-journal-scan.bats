#!/usr/bin/env bats
# A restart reads the journal (the last 24 hours of changes) with a reader of the lines
# as the emulator writes them, building no tree (emulator/store/journal_scan.h): its
# lines are all read so (`start.journalParsed` 0 in /emulator/v1/stats), and a line
# edited by hand is still read, by jansson, with the same meaning: its change is in the
# history a watch resumes from and in the object it leaves.

load ../lib/common

setup_file() {
    start_emulator
    export T=$BATS_FILE_TMPDIR
    http POST /api/v1/namespaces '{"metadata":{"name":"p"}}'
    [ "$CODE" = 201 ]
    for n in a b c; do
        http POST /apis/nodus.dev/v1/namespaces/p/volumes \
            "{\"metadata\":{\"name\":\"$n\",\"annotations\":{\"say\":\"caf\\u00e9 \\\"q\\\"\"}},\"spec\":{\"size\":\"1Gi\"}}"
        [ "$CODE" = 201 ]
    done
}

teardown_file() { stop_emulator; }

start_stats() { curl -sf "$(emu_url)/emulator/v1/stats" | jq -c .start; }
restart() {
    stop_emulator
    start_emulator
}

@test "a restart reads every line the emulator wrote without parsing it as general JSON" {
    rev=$(curl -sf "$(emu_url)/emulator/v1/stats" | jq .historyEvents)
    restart
    run start_stats
    assert_success
    run jq -e --argjson n "$rev" '.journalRecords == $n and .journalParsed == 0' <<<"$output"
    assert_success
    # the changes are the same ones, the annotation's escapes and UTF-8 included
    run jq -r .metadata.annotations.say < <(curl -sf "$(emu_url)/apis/nodus.dev/v1/namespaces/p/volumes/b")
    assert_output 'café "q"'
}

@test "a line edited by hand (spaces, a \\u escape) is read by jansson, to the same effect" {
    local J=$EMU_STATE/history/journal.ndjson rv t
    stop_emulator
    rv=$(($(jq -s 'map(.rev // 0) | max' "$J") + 1))
    t=$(jq -s 'map(.time // 0) | max' "$J")
    # a change of volume c, as a person would write it: with spaces and an escape
    printf '{ "rev": %d, "time": %d, "type": "MODIFIED", "plural": "volumes", "object": {"apiVersion": "nodus.dev/v1", "kind": "Volume", "metadata": {"name": "c", "namespace": "p", "resourceVersion": "%d", "annotations": {"say": "\\u0068and"}}, "spec": {"size": "2Gi"}}}\n' \
        "$rv" "$t" "$rv" >>"$J"
    start_emulator
    run start_stats
    assert_success
    run jq -e '.journalParsed == 1' <<<"$output"
    assert_success
    run curl -sf "$(emu_url)/apis/nodus.dev/v1/namespaces/p/volumes/c"
    assert_success
    run jq -r '"\(.metadata.annotations.say) \(.spec.size)"' <<<"$output"
    assert_output "hand 2Gi"
    # and a watch resuming from before it sees it
    run curl -sf --max-time 2 "$(emu_url)/apis/nodus.dev/v1/namespaces/p/volumes?watch=1&resourceVersion=$((rv - 1))"
    run jq -rs '.[0] | "\(.type) \(.object.metadata.name) \(.object.metadata.resourceVersion)"' <<<"$output"
    assert_output "MODIFIED c $rv"
}
