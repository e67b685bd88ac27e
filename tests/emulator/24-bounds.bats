#!/usr/bin/env bats
# Bounded work per request: patches that would grow without end, selectors, query
# parameters and paths past their limits; each refused with a Status naming the limit,
# the object untouched and the server still answering.

load ../lib/common

NS=/apis/nodus.dev/v1/namespaces/default
JOBS=$NS/jobs
JSONP=(-H 'Content-Type: application/json-patch+json')
MERGE=(-H 'Content-Type: application/merge-patch+json')

setup_file() {
    start_emulator
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d "$(job_json grow)" "$EMU_URL$JOBS"
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

# kB of the emulator's peak resident memory
peak_kb() {
    awk '/^VmHWM:/ {print $2}' "/proc/$EMU_PID/status"
}

@test "JSON patch: twenty self-copies (a 2.7 KB patch) stop at 3 MiB of copies, 422" {
    http GET $JOBS/grow
    local before
    before=$(jq -cS . "$BODY")
    local seed ops
    seed=$(head -c 1200 /dev/zero | tr '\0' x)
    ops=$(jq -cn --arg s "$seed" '[{op:"add",path:"/metadata/annotations",value:{seed:$s}}] +
        [range(1;21) | {op:"copy",from:"/metadata/annotations",
                        path:"/metadata/annotations/c\(.)"}]')
    [ "${#ops}" -lt 3000 ]
    http PATCH $JOBS/grow "$ops" "${JSONP[@]}"
    [ "$CODE" = 422 ]
    [ "$(body_json .reason)" = Invalid ]
    [ "$(body_json .details.name)" = grow ]
    run body_json .message
    assert_output --regexp '^ops\[12\]: Unable to complete the copy, the accumulated size increase of copy is 4983547, exceeding the limit 3145728$'
    # memory stayed small: the document never passed a few MiB
    [ "$(peak_kb)" -lt 262144 ]
    # the server answers and the object is unchanged
    http GET $JOBS/grow
    [ "$CODE" = 200 ]
    [ "$(jq -cS . "$BODY")" = "$before" ]
}

@test "JSON patch: more than 10,000 operations, 413 before any applies" {
    local ops
    jq -cn '[range(0;10001) | {op:"test",path:"/kind",value:"Job"}]' >ops.json
    http PATCH $JOBS/grow @ops.json "${JSONP[@]}"
    [ "$CODE" = 413 ]
    [ "$(body_json .reason)" = RequestEntityTooLarge ]
    [ "$(body_json .message)" = "The allowed maximum operations in a JSON patch is 10000, got 10001" ]
    jq -cn '[range(0;10000) | {op:"test",path:"/kind",value:"Job"}]' >ops.json
    http PATCH $JOBS/grow @ops.json "${JSONP[@]}"
    [ "$CODE" = 200 ]
}

@test "JSON patch: copies that would nest past 100 levels, 422 naming the op" {
    local ops
    # /spec/x holds 50 levels; copying it under its own deepest level passes 100
    ops=$(jq -cn '[{op:"add",path:"/metadata/annotations",value:{}},
                   {op:"add",path:"/spec/x",value:(reduce range(0;50) as $i ("v"; {a:.}))},
                   {op:"copy",from:"/spec/x",path:("/spec/x" + ([range(0;49)] | map("/a") | join("")) + "/b")}]')
    http PATCH $JOBS/grow "$ops" "${JSONP[@]}"
    [ "$CODE" = 422 ]
    [ "$(body_json .reason)" = Invalid ]
    run body_json .message
    assert_output --regexp '^ops\[2\]: the value at "/spec/x(/a){49}/b" would nest 102 levels deep, more than the limit of 100$'
}
