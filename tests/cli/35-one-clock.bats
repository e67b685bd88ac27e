#!/usr/bin/env bats
# One clock: every age the CLI prints is measured against the server's clock (the Date
# header of its answers; the emulator sends its own emulated clock there), so after
# `clock advance` describe agrees with get, nothing reads <invalid>, and describe's
# Conditions and Events columns stay aligned whatever their cells hold.

load ../lib/common

bats_require_minimum_version 1.5.0

setup_file() {
    start_emulator # --speed 0: the clock moves only when a test advances it
}

teardown_file() {
    stop_emulator
}

setup() {
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$(emu_url)
    cd "$BATS_TEST_TMPDIR"
}

# The emulator's clock, as an HTTP date.
clock_http_date() {
    http GET /emulator/v1/clock
    date -u -d "$(body_json .now)" '+%a, %d %b %Y %H:%M:%S GMT'
}

# A Job that runs an emulated hour once placed, in project NS.
long_job() {
    local ns=$1 name=$2
    http POST "/apis/nodus.dev/v1/namespaces/$ns/jobs" "$(job_json "$name" | jq -c \
        '.metadata.annotations = {"emulator.nodus.dev/duration": "1h"}')"
    [ "$CODE" = 201 ]
}

project() {
    http POST /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$1\"}}"
    [ "$CODE" = 201 ]
}

# The column (0-based) where WORD starts in LINE.
col_of() {
    local line=$1 word=$2 pre
    pre=${line%%"$word"*}
    echo "${#pre}"
}

@test "the emulator's Date header is its own clock, also after an advance" {
    clock_advance 4h
    http GET /healthz
    [ "$(header Date)" = "$(clock_http_date)" ]
    http GET /api/v1/namespaces
    [ "$(header Date)" = "$(clock_http_date)" ]
    # 4 hours ahead of this host: not the host's time
    [ "$(header Date)" != "$(date -u '+%a, %d %b %Y %H:%M:%S GMT')" ]
}

@test "after clock advance 4h, describe's ages agree with get's; nothing reads <invalid>" {
    project aged
    long_job aged old
    clock_advance 4h
    # get: the server's Table, on its clock
    run -0 --separate-stderr nodus get job old -n aged
    assert_line -n 1 --regexp '^old +Running +Succeeded +.* 4h$'
    # describe: the same age from the same clock
    run -0 --separate-stderr nodus describe job old -n aged
    assert_line --regexp '^Created: +[0-9TZ:-]+ \(4h ago\)$'
    refute_output --partial '<invalid>'
    assert_line --regexp '^  Complete +True +Succeeded +179m +the command exited 0$'
    assert_line --regexp '^  Normal +Created +4h +nodus +created by '
    # an object created on the advanced clock is 0s old, not in the future
    long_job aged new
    run -0 --separate-stderr nodus describe job new -n aged
    assert_line --regexp '^Created: +[0-9TZ:-]+ \(0s ago\)$'
    assert_line --regexp '^  Normal +Created +0s +nodus +created by '
    refute_output --partial '<invalid>'
    clock_advance 90s
    run -0 --separate-stderr nodus get job new -n aged -o wide
    assert_line -n 1 --regexp ' 90s( |$)'
    run -0 --separate-stderr nodus describe job new -n aged
    assert_line --regexp '^Created: +[0-9TZ:-]+ \(90s ago\)$'
}

@test "describe: Conditions and Events columns stay aligned with long reasons and ages" {
    project wide
    long_job wide cols
    http PATCH /apis/nodus.dev/v1/namespaces/wide/jobs/cols/status \
        '{"status":{"conditions":[{"type":"Custom","status":"False","reason":"AReasonLongerThanTheColumn","message":"m1","lastTransitionTime":"2026-01-02T03:04:05Z"},{"type":"SomeVeryLongConditionTypeName","status":"Unknown","reason":"Short","message":"m2","lastTransitionTime":"2026-01-02T03:04:05Z"}]}}' \
        -H 'Content-Type: application/merge-patch+json'
    [ "$CODE" = 200 ]
    run -0 --separate-stderr nodus describe job cols -n wide
    local head r1 r2
    head=$(grep -A1 '^Conditions:' <<<"$output" | tail -n 1)
    r1=$(grep '^  Custom ' <<<"$output")
    r2=$(grep '^  SomeVeryLongConditionTypeName ' <<<"$output")
    [ "$(col_of "$head" Status)" = "$(col_of "$r1" False)" ]
    [ "$(col_of "$head" Status)" = "$(col_of "$r2" Unknown)" ]
    [ "$(col_of "$head" Reason)" = "$(col_of "$r2" Short)" ]
    [ "$(col_of "$head" Age)" = "$(col_of "$r1" "$(awk '{print $4}' <<<"$r1")")" ]
    [ "$(col_of "$head" Message)" = "$(col_of "$r1" m1)" ]
    [ "$(col_of "$head" Message)" = "$(col_of "$r2" m2)" ]
    # the dashes under each header are as long as the header
    assert_line --regexp '^  ----  +------  +------  +---  +-------$'
}
