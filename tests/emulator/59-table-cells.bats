#!/usr/bin/env bats
# Tables from bytes (issue 25, item 2): each revision's Table row is made once and kept
# (emulator/api/table_cells.c), so a list of unchanged objects reuses its rows; a change
# of the object makes a new row (its cells and its metadata follow), and the AGE cells
# follow the clock on every answer. The rows kept are the rows a fresh rendering makes,
# for every kind. The stats endpoint's tableRows counts rows made and reused.

load ../lib/common

setup_file() {
    start_emulator --no-simulation
    local i
    for i in 1 2 3; do
        curl -sf -o /dev/null -X POST "$EMU_URL$JOBS" -H 'Content-Type: application/json' \
            -d "$(job_json "t$i")"
    done
    local f
    for f in "$ND_ROOT"/examples/*.yaml; do
        NODUS_SERVER=$EMU_URL HOME=$BATS_FILE_TMPDIR "$ND_BIN_DIR/nodus" apply -f "$f" >/dev/null
    done
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs
MERGE=(-H 'Content-Type: application/merge-patch+json')
TABLE=(-H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io')

# ROWS_MADE and ROWS_REUSED from the stats endpoint.
table_stats() {
    http GET /emulator/v1/stats
    [ "$CODE" = 200 ]
    json_get "$BODY" .tableRows.made .tableRows.reused
    ROWS_MADE=${JV[0]} ROWS_REUSED=${JV[1]}
}

# The cells of job NAME's row in a Table list of the Jobs (name, then every column).
job_row() { # NAME [QUERY]
    http GET "$JOBS${2:-}" - "${TABLE[@]}"
    [ "$CODE" = 200 ]
    ROW=$(jq -r --arg n "$1" '.rows[] | select(.cells[0] == $n) | .cells | join("|")' "$BODY")
}

@test "a Table of unchanged objects reuses their rows; a changed object gets a new row" {
    job_row t1
    table_stats
    local made=$ROWS_MADE reused=$ROWS_REUSED n
    job_row t1
    n=$(jq '.rows | length' "$BODY")
    [ "$n" -ge 3 ]
    table_stats
    [ "$ROWS_MADE" -eq "$made" ]
    [ "$ROWS_REUSED" -eq $((reused + n)) ] || { echo "reused $reused -> $ROWS_REUSED, $n rows; made $made -> $ROWS_MADE" >&2; return 1; }
    http PATCH $JOBS/t2 '{"metadata":{"labels":{"team":"vision"}}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    job_row t2
    # the row's metadata is the new revision's
    [ "$(jq -r '.rows[] | select(.cells[0] == "t2") | .object.metadata.labels.team' "$BODY")" = vision ]
    [ "$(jq -r '.rows[0].object | .kind + " " + (.metadata | has("managedFields") | tostring)' "$BODY")" = "PartialObjectMetadata false" ]
    table_stats
    [ "$ROWS_MADE" -eq $((made + 1)) ]
    # the objects themselves, when asked for, are the current revisions too
    http GET "$JOBS?includeObject=Object" - "${TABLE[@]}"
    [ "$(jq -r '.rows[] | select(.cells[0] == "t2") | .object.metadata.labels.team' "$BODY")" = vision ]
}

@test "a Table's cells follow the object: the phase, the state, the price columns" {
    job_row t3
    [[ $ROW == "t3|Running|Queued|"* ]]
    http PATCH $JOBS/t3/status '{"status":{"phase":"Running","costUSD":"1.25"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    job_row t3
    [[ $ROW == "t3|Running|Running|-|\$1.25|"* ]]
    http PATCH $JOBS/t3 '{"spec":{"maxCostUSD":"55.00"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    job_row t3
    [[ $ROW == *"|\$55.00|"* ]]
    # the same object by name: the same row
    http GET "$JOBS/t3" - "${TABLE[@]}"
    [ "$(jq -r '.rows[0].cells | join("|")' "$BODY")" = "$ROW" ]
}

@test "AGE follows the clock on every answer, for rows reused as they were" {
    job_row t1 "?includeObject=None"
    local before=$ROW
    table_stats
    local made=$ROWS_MADE
    clock_advance 3h
    job_row t1 "?includeObject=None"
    table_stats
    [ "$ROWS_MADE" -eq "$made" ]
    # only the age moved (AGE is the 6th of the Job's columns)
    [ "$(cut -d'|' -f6 <<<"$ROW")" != "$(cut -d'|' -f6 <<<"$before")" ]
    [[ "$(cut -d'|' -f6 <<<"$ROW")" == 3h* ]]
    [ "$(cut -d'|' -f1-5,7- <<<"$ROW")" = "$(cut -d'|' -f1-5,7- <<<"$before")" ]
}

@test "every kind's kept rows are what a fresh rendering of each object makes (the -o wide cells)" {
    local path kinds=0 rows=0 name
    http GET /apis/nodus.dev/v1
    for path in $(jq -r '.resources[] | select(.name | contains("/") | not) | .name' "$BODY"); do
        # twice: the second answer is made of kept rows
        http GET "/apis/nodus.dev/v1/namespaces/default/$path" - "${TABLE[@]}"
        http GET "/apis/nodus.dev/v1/namespaces/default/$path" - "${TABLE[@]}"
        [ "$CODE" = 200 ]
        cp "$BODY" "$BATS_TEST_TMPDIR/list"
        # every column, priority 1 ones (-o wide) too
        [ "$(jq '[.rows[].cells | length] - [.columnDefinitions | length] | length' "$BODY")" = 0 ]
        kinds=$((kinds + 1))
        for name in $(jq -r '.rows[].object.metadata.name' "$BATS_TEST_TMPDIR/list"); do
            # one object by name is rendered for its answer, not taken from the cache
            http GET "/apis/nodus.dev/v1/namespaces/default/$path/$name" - "${TABLE[@]}"
            [ "$(jq -c '.rows[0].cells' "$BODY")" = "$(jq -c --arg n "$name" '.rows[] | select(.object.metadata.name == $n) | .cells' "$BATS_TEST_TMPDIR/list")" ] ||
                { echo "$path/$name: $(jq -c '.rows[0].cells' "$BODY")" >&2; return 1; }
            rows=$((rows + 1))
        done
    done
    [ "$kinds" -ge 8 ]
    [ "$rows" -ge 6 ]
}
