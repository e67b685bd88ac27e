#!/usr/bin/env bats
# GET /emulator/v1/clock?watch=true: the clock as a stream of JSON lines, the clock first
# and then a line for each change other than by flowing (an advance, a speed change, a
# reset, a snapshot restore); admin only, like every control endpoint.

load ../lib/common

ROOT=(-H 'Authorization: Bearer t-root')

setup_file() {
    cat >"$BATS_FILE_TMPDIR/tokens.json" <<'JSON'
{"tokens": {
  "t-root": {"identity": "root", "projects": ["*"], "scopes": ["admin"]},
  "t-read": {"identity": "rita", "projects": ["proj-a"], "scopes": ["read"]}}}
JSON
    chmod 600 "$BATS_FILE_TMPDIR/tokens.json"
    start_emulator --token-file "$BATS_FILE_TMPDIR/tokens.json"
}

teardown() {
    [ -z "${WATCH_PID:-}" ] || { kill "$WATCH_PID" 2>/dev/null; wait "$WATCH_PID" 2>/dev/null; } || true
}

teardown_file() {
    stop_emulator
}

# clock_watch OUT: a clock watch into OUT (its headers in OUT.h), once its first line came
clock_watch() {
    curl -sN -D "$1.h" "${ROOT[@]}" "$(emu_url)/emulator/v1/clock?watch=true" >"$1" 3>&- &
    WATCH_PID=$!
    wait_until lines_at_least 1 "$1"
}
lines_at_least() { [ "$(grep -c . "$2")" -ge "$1" ]; }
line() { sed -n "${1}p" "$2"; }
post() { # PATH [BODY]: an admin's POST to /emulator/v1/PATH
    curl -sf -o /dev/null "${ROOT[@]}" -H 'Content-Type: application/json' \
        -X POST "$(emu_url)/emulator/v1/$1" ${2:+-d "$2"}
}
post_clock() { post clock "$1"; }

@test "the first line is the clock, and the stream stays open" {
    local w=$BATS_TEST_TMPDIR/w
    clock_watch "$w"
    now=$(curl -sf "${ROOT[@]}" "$(emu_url)/emulator/v1/clock" | jq .nowMs)
    run jq -c '[.nowMs, .speed, (.now | test("^[0-9-]+T"))]' <<<"$(line 1 "$w")"
    assert_output "[$now,0,true]"
    grep -qi '^transfer-encoding: chunked' "$w.h"
    kill -0 "$WATCH_PID" # still streaming
}

@test "an advance delivers a line with the new time" {
    local w=$BATS_TEST_TMPDIR/w
    clock_watch "$w"
    before=$(line 1 "$w" | jq .nowMs)
    post_clock '{"advance":"1h"}'
    wait_until lines_at_least 2 "$w"
    run jq -c '[.nowMs, .speed]' <<<"$(line 2 "$w")"
    assert_output "[$((before + 3600000)),0]"
}

@test "a speed change, a reset and a snapshot restore each deliver a line" {
    local w=$BATS_TEST_TMPDIR/w
    clock_watch "$w"
    post_clock '{"speed":2}'
    wait_until lines_at_least 2 "$w"
    run jq .speed <<<"$(line 2 "$w")"
    assert_output 2
    post_clock '{"speed":0}'
    wait_until lines_at_least 3 "$w"
    run jq .speed <<<"$(line 3 "$w")"
    assert_output 0
    post snapshots/s1
    saved=$(line 3 "$w" | jq .nowMs)
    post_clock '{"advance":"2h"}'
    wait_until lines_at_least 4 "$w"
    post snapshots/s1/restore
    wait_until lines_at_least 5 "$w"
    run jq .nowMs <<<"$(line 5 "$w")"
    assert_output "$saved"
    post reset
    wait_until lines_at_least 6 "$w"
}

@test "without admin a clock watch is refused (403); a bad watch value is a 400 with its fix" {
    run curl -s -w '\n%{http_code}' -H 'Authorization: Bearer t-read' \
        "$(emu_url)/emulator/v1/clock?watch=true"
    assert_line --index 1 403
    [ "$(head -1 <<<"$output" | jq -r .reason)" = Forbidden ]
    [ -n "$(head -1 <<<"$output" | jq -r '.fix // empty')" ]
    run curl -s -w '\n%{http_code}' "${ROOT[@]}" "$(emu_url)/emulator/v1/clock?watch=maybe"
    assert_line --index 1 400
    run jq -r '.reason + ": " + .fix' <<<"$(head -1 <<<"$output")"
    assert_output 'BadRequest: send watch=true, or leave it out'
}

@test "the stream ends when the emulator shuts down" {
    start_extra down --token-file "$BATS_FILE_TMPDIR/tokens.json"
    local w=$BATS_TEST_TMPDIR/w
    curl -sN "${ROOT[@]}" "$XURL/emulator/v1/clock?watch=true" >"$w" 3>&- &
    WATCH_PID=$!
    wait_until lines_at_least 1 "$w"
    kill -0 "$WATCH_PID"
    stop_extras
    wait_until pid_gone "$WATCH_PID"
}

@test "timeoutSeconds ends a clock watch after its first line, as it ends the spend stream" {
    run curl -sN -m 20 -w '\n%{http_code}' "${ROOT[@]}" \
        "$(emu_url)/emulator/v1/clock?watch=true&timeoutSeconds=1"
    assert_success # ended by the server, well before curl's 20 s
    assert_equal "${#lines[@]}" 2
    assert_line --index 1 200
    [ "$(jq -r '.nowMs | type' <<<"${lines[0]}")" = number ]
}
