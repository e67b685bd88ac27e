#!/usr/bin/env bats
# Slow clients cost slots, not the server (emulator/http/guard.c): a deadline for a
# request's headers, a minimum body rate, a cap of connections per client address, and a
# reserve that health checks and admin tokens always get through. The slow clients are
# tests/emulator/fixtures/slowclient.py (loopback, bounded in count and time).

load ../lib/common

NS=/apis/nodus.dev/v1/namespaces/default
SLOW=$BATS_TEST_DIRNAME/fixtures/slowclient.py

setup_file() {
    cat >"$BATS_FILE_TMPDIR/tokens.json" <<'EOF'
{"tokens": {
  "t-admin": {"identity": "ada", "projects": ["*"], "scopes": ["admin"]},
  "t-read":  {"identity": "rita", "projects": ["*"], "scopes": ["read", "write"]}}}
EOF
    chmod 600 "$BATS_FILE_TMPDIR/tokens.json"
    start_emulator --token-file "$BATS_FILE_TMPDIR/tokens.json" --max-connections 20 \
        --header-timeout 1s --min-body-rate 1000 --body-rate-window 1s
}

teardown_file() {
    stop_slow
    stop_extras
    stop_emulator
}

# The slow clients started in the background (their PIDs in slow.pids), stopped by PID.
stop_slow() {
    local pid
    [ -e "$BATS_FILE_TMPDIR/slow.pids" ] || return 0
    while read -r pid; do
        kill "$pid" 2>/dev/null || true
        wait_until pid_gone "$pid" || true
    done <"$BATS_FILE_TMPDIR/slow.pids"
    rm -f "$BATS_FILE_TMPDIR/slow.pids"
}

# slow_bg OUT ARGS...: slowclient.py ARGS in the background, its lines in OUT; waits
# until it has opened its connections.
slow_bg() {
    local out=$1
    shift
    python3 "$SLOW" "$@" >"$out" 2>&1 3>&- &
    echo $! >>"$BATS_FILE_TMPDIR/slow.pids"
    wait_until grep -qx ready "$out"
}

port() { echo "${EMU_URL##*:}"; }

# code URL [curl args...]: the HTTP status of a GET
code() {
    local url=$1
    shift
    curl -s -m 10 -o /dev/null -w '%{http_code}' "$@" "$url"
}

refused_503() { [ "$(code "$EMU_URL/api/v1/namespaces" -H 'Authorization: Bearer t-read')" = 503 ]; }

@test "request headers not all in within --header-timeout: 408 RequestTimeout, then closed" {
    run -0 python3 "$SLOW" partial "$(port)"
    assert_line "status 408"
    assert_line "reason RequestTimeout"
    local after
    after=$(sed -n 's/^after //p' <<<"$output")
    # the deadline is 1 s; the margin is for a loaded machine
    awk -v a="$after" 'BEGIN { exit !(a >= 0.9 && a < 6) }'
}

@test "slowloris: connections trickling a header byte every 0.2 s are closed at the deadline" {
    run -0 python3 "$SLOW" headers "$(port)" 8 8
    assert_line "open 0"
    [ "$(grep -c '^closed ' <<<"$output")" = 8 ]
    # each was answered 408 and closed after about 1 s, not kept alive by its trickle
    [ "$(grep -c '^closed .* 408$' <<<"$output")" = 8 ]
    awk '/^closed / { if ($2 < 0.9 || $2 >= 6) bad++ } END { exit bad > 0 }' <<<"$output"
}

@test "slow clients holding every slot: /readyz and an admin token get 200, others 503" {
    # 30 slow connections past --max-connections 20, each opened again once closed
    slow_bg "$BATS_TEST_TMPDIR/slow" headers "$(port)" 30 12 --reconnect --token t-read
    wait_until refused_503
    local i
    for i in 1 2 3; do
        [ "$(code "$EMU_URL/readyz")" = 200 ]
        [ "$(code "$EMU_URL/healthz")" = 200 ]
        [ "$(code "$EMU_URL/emulator/v1/stats" -H 'Authorization: Bearer t-admin')" = 200 ]
    done
    # an ordinary client is told why and when to retry
    run curl -s -m 10 -D "$BATS_TEST_TMPDIR/h" -o "$BATS_TEST_TMPDIR/b" -w '%{http_code}' \
        -H 'Authorization: Bearer t-read' "$EMU_URL/api/v1/namespaces"
    if [ "$output" = 503 ]; then
        grep -qi '^Retry-After: 1' "$BATS_TEST_TMPDIR/h"
        [ "$(jq -r .reason "$BATS_TEST_TMPDIR/b")" = ServiceUnavailable ]
        [ "$(jq -r .message "$BATS_TEST_TMPDIR/b")" = "the emulator is serving its limit of 20 connections" ]
        jq -e '.fix | contains("health checks and admin tokens are still served")' "$BATS_TEST_TMPDIR/b"
    fi
    stop_slow
    # the attack is over: every slot comes back (its connections' headers time out)
    wait_until [ "$(code "$EMU_URL/api/v1/namespaces" -H 'Authorization: Bearer t-read')" = 200 ]
    # logged once for the episode, not once per connection
    local err=$BATS_FILE_TMPDIR/emulator.err
    [ "$(grep -c 'slow clients: closed a connection from 127.0.0.1 whose request headers' "$err")" = 1 ]
    [ "$(grep -c 'slow clients: refused a request from 127.0.0.1: the 20 connections' "$err")" = 1 ]
}

@test "a body slower than --min-body-rate is cut with 408; one at speed, a watch, an exec are not" {
    run -0 python3 "$SLOW" body "$(port)" "$NS/jobs" t-read
    assert_line "status 408"
    local after
    after=$(sed -n 's/^after //p' <<<"$output")
    awk -v a="$after" 'BEGIN { exit !(a >= 0.9 && a < 8) }'
    grep -q 'slow clients: closed a connection from 127.0.0.1 whose request body came slower than --min-body-rate (1000 bytes a second over 1s)' \
        "$BATS_FILE_TMPDIR/emulator.err"
    # 100 KB in one go: far above the rate
    printf '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"dev","annotations":{"pad":"%s"}},"spec":{"image":"nodus/python:3.12"}}' \
        "$(head -c 100000 /dev/zero | tr '\0' x)" >"$BATS_TEST_TMPDIR/big.json"
    http POST "$NS/sandboxes" "@$BATS_TEST_TMPDIR/big.json" -H 'Authorization: Bearer t-read'
    [ "$CODE" = 201 ]
    # a watch that waits 2 s with nothing to say is answering, not sending headers
    run curl -sN -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer t-read' \
        "$EMU_URL$NS/jobs?watch=true&timeoutSeconds=2"
    assert_output 200
    curl -sf -o /dev/null -H 'Authorization: Bearer t-admin' --json '{"advance":"15s"}' \
        "$EMU_URL/emulator/v1/clock"
    # the command runs past the header deadline on purpose: the sleep is what is tested
    HOME=$BATS_TEST_TMPDIR NODUS_SERVER=$EMU_URL NODUS_TOKEN=t-read \
        run -0 nodus exec dev -- sh -c 'sleep 1.5; echo done'
    assert_output done
}

@test "--max-connections-per-client: the excess gets 429 with Retry-After; other addresses 200" {
    start_extra cap --max-connections 8 --max-connections-per-client 4 --header-timeout 5s
    # 10 from 127.0.0.1: 4 hold slots, the 6 past the cap hold none
    slow_bg "$BATS_TEST_TMPDIR/slow" headers "$XPORT" 10 6
    run curl -s -m 10 -D "$BATS_TEST_TMPDIR/h" -o "$BATS_TEST_TMPDIR/b" -w '%{http_code}' \
        "$XURL/api/v1/namespaces"
    assert_output 429
    grep -qi '^Retry-After: 1' "$BATS_TEST_TMPDIR/h"
    grep -qi '^Connection: close' "$BATS_TEST_TMPDIR/h"
    [ "$(jq -r .reason "$BATS_TEST_TMPDIR/b")" = TooManyRequests ]
    jq -e '.message | test("^127.0.0.1 has [0-9]+ connections open, over the limit of 4 a client address$")' \
        "$BATS_TEST_TMPDIR/b"
    jq -e '.fix | contains("--max-connections-per-client")' "$BATS_TEST_TMPDIR/b"
    [ "$(code "$XURL/readyz")" = 200 ]
    # another address is served: the capped connections took no slot from it
    [ "$(code "$XURL/api/v1/namespaces" --interface 127.0.0.2)" = 200 ]
    stop_slow
    wait_until [ "$(code "$XURL/api/v1/namespaces")" = 200 ]
}

@test "the slow-client flags: help, bad values exit 2; the emulators stop with no sanitizer report" {
    run -0 nodus-emulator --help
    for f in --header-timeout --min-body-rate --body-rate-window --max-connections-per-client; do
        [[ "$output" == *"$f"* ]] || { echo "no $f"; return 1; }
    done
    run -2 nodus-emulator --header-timeout 500ms
    assert_output "nodus-emulator: --header-timeout wants a duration from 1s to 24h (or 0 for none), got 500ms"
    run -2 nodus-emulator --body-rate-window 0
    run -2 nodus-emulator --min-body-rate fast
    assert_output "nodus-emulator: --min-body-rate wants bytes a second from 0 (none) to 1Gi, such as 1Ki, got fast"
    run -2 nodus-emulator --max-connections-per-client -1
    # last: the emulators stop cleanly, and under make asan report nothing
    stop_slow
    stop_extras
    stop_emulator
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/emulator.err" "$BATS_FILE_TMPDIR"/extra-*/err
    [ "$status" -eq 1 ]
}
