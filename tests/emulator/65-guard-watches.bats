#!/usr/bin/env bats
# Issue 25, watch fan-out: the slow-client guard's watchdog (emulator/http/guard.c) looks
# five times a second at the connections waiting for a request's bytes (headers, a body,
# idle between requests), never at one being answered or streaming: ten thousand watches
# waiting for news are not walked. The stats count the connections it looked at
# (watchWakes.guardLooked); a connection trickling its headers is still cut at its deadline
# while the watches are open.

load ../lib/common

bats_require_minimum_version 1.5.0

N=300
MANY=$BATS_TEST_DIRNAME/fixtures/manywatch.py
SLOW=$BATS_TEST_DIRNAME/fixtures/slowclient.py
JOBS=/apis/nodus.dev/v1/namespaces/default/jobs

setup_file() {
    start_emulator --no-simulation --max-connections 1000 --max-connections-per-client 0 \
        --header-timeout 1s
}

teardown_file() {
    stop_emulator
}

teardown() {
    [ -z "${CLIENT_PID:-}" ] || kill "$CLIENT_PID" 2>/dev/null || true
    [ -z "${HOLD_PID:-}" ] || kill "$HOLD_PID" 2>/dev/null || true
}

port_of() { cat "$BATS_FILE_TMPDIR/port"; }
stat_of() { curl -s "$(emu_url)/emulator/v1/stats" | jq -r "$1"; }
open_at_least() { [ "$(stat_of .watchesOpen)" -ge "$1" ]; }

@test "the guard's watchdog does not look at open watches; it still cuts slow headers meanwhile" {
    local fifo=$BATS_TEST_TMPDIR/hold out=$BATS_TEST_TMPDIR/out before after
    mkfifo "$fifo"
    sleep 600 >"$fifo" 3>&- &
    HOLD_PID=$!
    python3 "$MANY" "$(port_of)" "$JOBS?watch=1" "$N" 1 --secs 600 <"$fifo" >"$out" 2>&1 3>&- &
    CLIENT_PID=$!
    wait_until -t 60 grep -qx ready "$out"
    wait_until open_at_least "$N"
    before=$(stat_of .watchWakes.guardLooked)
    [[ "$before" =~ ^[0-9]+$ ]]
    sleep 2
    after=$(stat_of .watchWakes.guardLooked)
    # ten ticks over 300 streaming watches would be 3,000 looks; what is left is the
    # stats requests' own connections between two requests (a handful)
    echo "looked at $((after - before)) connections in 2 s with $N watches open" >&3
    [ "$((after - before))" -lt 100 ]
    # a client trickling its headers is still timed: 408 at the 1 s deadline
    run -0 python3 "$SLOW" partial "$(port_of)"
    assert_line "status 408"
    # and the watches still get their news
    http POST "$JOBS" "$(job_json guard-1)"
    [ "$CODE" = 201 ]
    wait_until -t 60 grep -qx done "$out"
    run cat "$out"
    assert_line "complete $N"
}
