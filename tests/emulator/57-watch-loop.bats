#!/usr/bin/env bats
# Issue 25, item 4: watches on one loop. A watch waiting for news is a suspended
# connection of libmicrohttpd's event loop, not a thread (emulator/http/loop.h): two
# thousand open watches keep the emulator's threads few and its memory per watch small,
# each still gets every change in order, one that stops reading stalls no other, and a
# stop with all of them open is prompt.

load ../lib/common

bats_require_minimum_version 1.5.0

N=2000
MANY=$BATS_TEST_DIRNAME/fixtures/manywatch.py
JOBS=/apis/nodus.dev/v1/namespaces/default/jobs

setup_file() {
    start_emulator --no-simulation --max-connections 3000 --max-connections-per-client 0
}

teardown_file() {
    stop_emulator
}

teardown() {
    [ -z "${CLIENT_PID:-}" ] || kill "$CLIENT_PID" 2>/dev/null || true
    [ -z "${HOLD_PID:-}" ] || kill "$HOLD_PID" 2>/dev/null || true
}

threads() { awk '/^Threads:/ {print $2}' "/proc/$EMU_PID/status"; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$EMU_PID/status"; }
watches_open() { curl -s "$(emu_url)/emulator/v1/stats" | jq -r .watchesOpen; }
port_of() { cat "$BATS_FILE_TMPDIR/port"; }
open_at_least() { [ "$(watches_open)" -ge "$1" ]; }
threads_below() { [ "$(threads)" -lt "$1" ]; }

# many_bg OUT ARGS...: manywatch.py in the background (its stdin held open by a sleep, so
# that it keeps its connections until the test ends); waits for its streams.
many_bg() {
    local out=$1
    shift
    local fifo=$BATS_TEST_TMPDIR/hold
    mkfifo "$fifo"
    sleep 600 >"$fifo" 3>&- &
    HOLD_PID=$!
    python3 "$MANY" "$@" <"$fifo" >"$out" 2>&1 3>&- &
    CLIENT_PID=$!
    wait_until -t 60 grep -qx ready "$out"
}

@test "2,000 open watches: few threads, bounded memory, every change in order; a stalled one stalls none" {
    local rv base_rss base_threads i
    base_rss=$(rss_kb)
    base_threads=$(threads)
    http GET "$JOBS?limit=1"
    rv=$(body_json .metadata.resourceVersion)
    # the first one never reads after its headers
    many_bg "$BATS_TEST_TMPDIR/out" "$(port_of)" "$JOBS?watch=1&resourceVersion=$rv" "$N" 5 --stalled 1
    wait_until open_at_least "$N"
    # a thread per watch would be 2,000 more; the loop adds a handful (idle workers leave)
    wait_until threads_below $((base_threads + 100))
    for i in 1 2 3 4 5; do
        http POST "$JOBS" "$(job_json "w$i")"
        [ "$CODE" = 201 ]
    done
    wait_until -t 60 grep -qx done "$BATS_TEST_TMPDIR/out"
    run cat "$BATS_TEST_TMPDIR/out"
    assert_line "ordered $((N - 1))"
    assert_line "complete $((N - 1))"
    threads_below $((base_threads + 100))
    # memory per open watch: its connection's buffers and its state, not a thread's stack
    local per=$((($(rss_kb) - base_rss) / N))
    echo "RSS per watch: $per KiB" >&3
    [ "$per" -lt 160 ] # under the 160 KiB libmicrohttpd may hold of a connection
}

# A write's publish only marks the watches due; they are resumed on the writer's worker
# once its answer is sent (emulator/core/feed.h): ten thousand resumes on libmicrohttpd's
# threads never hold the answer back. The stats count the watches so woken.
@test "the watches a write is news to are woken after its answer, each getting every change once in order" {
    local rv i before after
    http GET "$JOBS?limit=1"
    rv=$(body_json .metadata.resourceVersion)
    many_bg "$BATS_TEST_TMPDIR/out" "$(port_of)" "$JOBS?watch=1&resourceVersion=$rv" 50 3
    wait_until open_at_least 50
    http GET /emulator/v1/stats
    before=$(body_json .watchWakes.afterAnswer)
    [[ "$before" =~ ^[0-9]+$ ]]
    for i in 1 2 3; do
        http POST "$JOBS" "$(job_json "after-answer-$i")"
        [ "$CODE" = 201 ]
    done
    wait_until -t 60 grep -qx done "$BATS_TEST_TMPDIR/out"
    run cat "$BATS_TEST_TMPDIR/out"
    assert_line "ordered 50"
    assert_line "complete 50"
    http GET /emulator/v1/stats
    after=$(body_json .watchWakes.afterAnswer)
    # woken after the answers (a stream reading when a change came needs no wake)
    [ "$after" -gt "$before" ]
    [[ "$(body_json .watchWakes.atOnce)" =~ ^[0-9]+$ ]]
}

# the request handlers' threads (loop.c names them)
workers() { grep -lx em-worker /proc/"$EMU_PID"/task/*/comm 2>/dev/null | wc -l; }
no_workers() { [ "$(workers)" -eq 0 ]; }

@test "a read that cannot wait is answered on the loop's thread: GETs, HEADs, pages and probes start no worker; a write does" {
    local u codes
    post_created "$JOBS" "$(job_json quick-read)"
    u=$(emu_url)
    wait_until -t 20 no_workers # an idle worker leaves after 3 s
    codes=$(for i in $(seq 20); do
        printf -- '-o /dev/null\nurl = "%s"\n' "$u$JOBS/quick-read" "$u$JOBS/quick-read/status" \
            "$u$JOBS?limit=500" "$u$JOBS/missing" "$u/readyz" "$u/healthz"
    done | curl -s -w '%{http_code} ' -K -)
    [ "$codes" = "$(printf '200 200 200 404 200 200 %.0s' $(seq 20))" ]
    curl -sfI -o /dev/null "$u$JOBS/quick-read"
    [ "$(workers)" -eq 0 ]
    # what may wait goes to a worker: a LIST of everything, a newer resourceVersion, a write
    http GET "$JOBS"
    [ "$CODE" = 200 ]
    [ "$(workers)" -ge 1 ]
    post_created "$JOBS" "$(job_json quick-read-2)"
}

# date_of URL [CURL ARGS...]: the epoch seconds of the Date header answering a GET of URL
date_of() {
    local url=$1
    shift
    date -d "$(curl -s -o /dev/null -D - "$@" "$url" | sed -n 's/^Date: //Ip' | tr -d '\r')" +%s
}

@test "a read answered on the loop's thread carries the emulator's Date, refused or served" {
    local u host
    u=$(emu_url)
    http POST /emulator/v1/clock '{"advance":"48h"}'
    [ "$CODE" = 200 ]
    http GET "$JOBS/quick-read" # the housekeeping the advance made due runs on a worker
    host=$(date +%s)
    # refused by the front door (a Host that is not this emulator's), then served
    [ "$(date_of "$u$JOBS/quick-read" -H 'Host: evil.example')" -gt $((host + 47 * 3600)) ]
    [ "$(date_of "$u$JOBS/quick-read")" -gt $((host + 47 * 3600)) ]
}

@test "a stop with 2,000 watches open is prompt, and they end cleanly" {
    local rv
    http GET "$JOBS?limit=1"
    rv=$(body_json .metadata.resourceVersion)
    many_bg "$BATS_TEST_TMPDIR/out" "$(port_of)" "$JOBS?watch=1&resourceVersion=$rv" "$N" 1 --secs 120
    wait_until open_at_least "$N"
    # no thread a watch: the workers the burst of first lists started leave once idle
    # (3 s), so the count falls under 150 with the 2,000 streams still open
    wait_until -t 15 threads_below 150
    open_at_least "$N"
    local start=$SECONDS
    kill -TERM "$EMU_PID"
    wait_until -t 20 pid_gone "$EMU_PID"
    [ $((SECONDS - start)) -le 10 ]
    # every stream was ended by the server (the client saw each end): it stops waiting
    wait_until -t 20 grep -qx done "$BATS_TEST_TMPDIR/out"
    rm -f "$BATS_FILE_TMPDIR/emulator.pid"
}
