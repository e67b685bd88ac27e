#!/usr/bin/env bats
# The front door: origins, hosts, content types, request sizes, connection and rate
# limits, checked before any handler runs (emulator/api/frontdoor.c).

load ../lib/common

NS=/apis/nodus.dev/v1/namespaces/default
ALLOWED=http://localhost:3000

setup_file() {
    start_emulator --allow-origin "$ALLOWED"
}

teardown_file() {
    stop_extras
    stop_emulator
}

port() { echo "${EMU_URL##*:}"; }

serves_version() { # URL: an ordinary request (not a health check) answers 200
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$1/version")" = 200 ]
}

# A raw HTTP request from a file of bytes (curl cannot send some of them); sets RAW.
raw() {
    local port=$1 file=$2 fd
    exec {fd}<>"/dev/tcp/127.0.0.1/$port"
    cat "$file" >&"$fd" 2>/dev/null || true
    RAW=$(timeout 10 cat <&"$fd" | tr -d '\r')
    exec {fd}<&-
}

@test "a cross-site POST (text/plain, no preflight) is refused 403 and creates nothing" {
    http POST "$NS/jobs" "$(job_json csrf)" -H 'Origin: https://evil.example' \
        -H 'Content-Type: text/plain'
    [ "$CODE" = 403 ]
    body_is .reason Forbidden \
        .message "requests from web pages of origin https://evil.example are refused: a page a browser shows may not drive this emulator" \
        .fix "if you trust that page, start the emulator with --allow-origin https://evil.example"
    [ -z "$(header Access-Control-Allow-Origin)" ]
    http GET "$NS/jobs/csrf"
    [ "$CODE" = 404 ]
}

@test "a cross-site form POST to /emulator/v1/reset is refused and the state stays" {
    http POST "$NS/jobs" "$(job_json keepme)"
    [ "$CODE" = 201 ]
    http POST /emulator/v1/reset "" -H 'Origin: http://evil.example:8080' \
        -H 'Content-Type: application/x-www-form-urlencoded'
    [ "$CODE" = 403 ]
    [ "$(body_json .reason)" = Forbidden ]
    http GET "$NS/jobs/keepme"
    [ "$CODE" = 200 ]
}

@test "Origin: null (sandboxed frames, file: pages) is refused" {
    http GET "$NS/jobs" - -H 'Origin: null'
    [ "$CODE" = 403 ]
    body_is .reason Forbidden \
        .fix "if you trust that page, start the emulator with --allow-origin ORIGIN"
}

@test "a WebSocket exec from another site's page is refused before the upgrade" {
    http POST "$NS/sandboxes" '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"box"},"spec":{"image":"nodus/python:3.12"}}'
    [ "$CODE" = 201 ]
    http POST /emulator/v1/clock '{"advance":"15s"}'
    http GET "$NS/sandboxes/box"
    [ "$(body_json .status.phase)" = Running ]
    http GET "$NS/sandboxes/box/exec?command=id&stdout=true" - -m 5 -H 'Origin: https://evil.example' \
        -H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' \
        -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' \
        -H 'Sec-WebSocket-Protocol: v5.channel.k8s.io'
    [ "$CODE" = 403 ]
    [ "$(body_json .reason)" = Forbidden ]
}

@test "an Origin or a Host that is not UTF-8 is refused, not ignored" {
    http GET "$NS/jobs" - -H $'Origin: http://\xff\xfe.example'
    [ "$CODE" = 403 ]
    [ "$(body_json .message)" = "requests from web pages of origin http://??.example are refused: a page a browser shows may not drive this emulator" ]
    http GET "$NS/jobs" - -H $'Host: \xff\xfe.example'
    [ "$CODE" = 403 ]
}

@test "the emulator's own origin, by 127.0.0.1 or localhost, is served" {
    http POST "$NS/jobs" "$(job_json own1)" -H "Origin: http://127.0.0.1:$(port)"
    [ "$CODE" = 201 ]
    http POST "$NS/jobs" "$(job_json own2)" -H "Origin: http://localhost:$(port)"
    [ "$CODE" = 201 ]
    [ -z "$(header Access-Control-Allow-Origin)" ]
    http GET "$NS/jobs" - -H "Origin: http://localhost:$(( $(port) + 1 ))"
    [ "$CODE" = 403 ]
}

@test "--allow-origin: its preflight is answered with CORS headers, its requests served" {
    http OPTIONS "$NS/jobs" - -H "Origin: $ALLOWED" -H 'Access-Control-Request-Method: POST' \
        -H 'Access-Control-Request-Headers: content-type'
    [ "$CODE" = 204 ]
    [ "$(header Access-Control-Allow-Origin)" = "$ALLOWED" ]
    [[ "$(header Access-Control-Allow-Methods)" == *PATCH* ]]
    [[ "$(header Access-Control-Allow-Headers)" == *Content-Type* ]]
    [ "$(header Vary)" = Origin ]
    http POST "$NS/jobs" "$(job_json fromapp)" -H "Origin: $ALLOWED"
    [ "$CODE" = 201 ]
    [ "$(header Access-Control-Allow-Origin)" = "$ALLOWED" ]
    # another origin's preflight gets no CORS header: the browser stops there
    http OPTIONS "$NS/jobs" - -H 'Origin: http://localhost:3001' \
        -H 'Access-Control-Request-Method: POST'
    [ "$CODE" = 403 ]
    [ -z "$(header Access-Control-Allow-Origin)" ]
}

@test "on loopback a Host that is not 127.0.0.1, localhost or [::1] is refused (DNS rebinding)" {
    http GET "$NS/jobs" - -H "Host: rebind.evil.example:$(port)"
    [ "$CODE" = 403 ]
    body_is .reason Forbidden \
        .fix "use http://127.0.0.1:$(port), or start the emulator with --allow-host NAME"
    for h in "localhost:$(port)" localhost 127.0.0.1 "127.0.0.1:$(port)" "[::1]:$(port)" LOCALHOST; do
        http GET "$NS/jobs" - -H "Host: $h"
        [ "$CODE" = 200 ] || { echo "Host $h: $CODE"; return 1; }
    done
    # HTTP/1.0 without a Host header
    http GET "$NS/jobs" - --http1.0 -H 'Host:'
    [ "$CODE" = 200 ]
}

@test "--allow-host lets one more name in" {
    start_extra hosts --allow-host emulator.test
    run curl -s -o /dev/null -w '%{http_code}' -H "Host: emulator.test:$XPORT" "$XURL/healthz"
    assert_output 200
    run curl -s -o /dev/null -w '%{http_code}' -H "Host: other.test:$XPORT" "$XURL/healthz"
    assert_output 403
}

@test "writes take only the API's content types: others are 415 UnsupportedMediaType" {
    http POST "$NS/jobs" "$(job_json plain)" -H 'Content-Type: text/plain'
    [ "$CODE" = 415 ]
    body_is .reason UnsupportedMediaType \
        .message "the body's Content-Type text/plain is not accepted by POST $NS/jobs: it takes application/json, application/yaml or a patch type"
    http POST "$NS/jobs" "$(job_json form)" -H 'Content-Type: application/x-www-form-urlencoded'
    [ "$CODE" = 415 ]
    http PUT "$NS/jobs/own1" '{}' -H 'Content-Type: multipart/form-data; boundary=x'
    [ "$CODE" = 415 ]
    # a body without a Content-Type
    http POST "$NS/jobs" "$(job_json untyped)" -H 'Content-Type:'
    [ "$CODE" = 415 ]
    [ "$(body_json .message)" = "the request has a body but no Content-Type: POST $NS/jobs takes application/json, application/yaml or a patch type" ]
    http GET "$NS/jobs/plain"
    [ "$CODE" = 404 ]
    # the types the API defines still work, parameters and case aside
    http POST "$NS/jobs" "$(job_json typed)" -H 'Content-Type: Application/JSON; charset=utf-8'
    [ "$CODE" = 201 ]
    printf 'apiVersion: nodus.dev/v1\nkind: Job\nmetadata: {name: yamljob}\nspec: {image: "nodus/pytorch:2.8-cuda12.8", command: [a], maxCostUSD: "1.00"}\n' >"$BATS_TEST_TMPDIR/j.yaml"
    http POST "$NS/jobs" "@$BATS_TEST_TMPDIR/j.yaml" -H 'Content-Type: application/yaml'
    [ "$CODE" = 201 ]
    http PATCH "$NS/jobs/typed" '{"metadata":{"labels":{"a":"b"}}}' \
        -H 'Content-Type: application/merge-patch+json'
    [ "$CODE" = 200 ]
    http PATCH "$NS/jobs/typed" '{}' -H 'Content-Type: application/strategic-merge-patch+json'
    [ "$CODE" = 415 ]
}

@test "control endpoints take JSON only, a bodiless POST too (reset, snapshot, restore)" {
    http POST /emulator/v1/clock '{"advance":"1s"}' -H 'Content-Type: application/x-www-form-urlencoded'
    [ "$CODE" = 415 ]
    [ "$(body_json .fix)" = "send the body as JSON: curl -H 'Content-Type: application/json' -d '{...}' (or curl --json '{...}')" ]
    http POST /emulator/v1/faults '{"status":503}' -H 'Content-Type: text/plain'
    [ "$CODE" = 415 ]
    http PUT /emulator/v1/pricebook '{}' -H 'Content-Type: multipart/form-data'
    [ "$CODE" = 415 ]
    http POST /emulator/v1/snapshots/s1 "" -H 'Content-Type: text/plain'
    [ "$CODE" = 415 ]
    http POST /emulator/v1/clock '{"advance":"1s"}'
    [ "$CODE" = 200 ]
    # no body and no Content-Type: what a browser may send unasked (fetch, a form's POST
    # without fields); nothing happens
    local p
    for p in reset snapshots/s1 snapshots/s1/restore; do
        run curl -s -w ' %{http_code}' -X POST "$EMU_URL/emulator/v1/$p"
        assert_equal "$(jq -r '[.reason, .message] | @tsv' <<<"${output% *}") ${output##* }" \
            "$(printf 'UnsupportedMediaType\tthe request has no Content-Type: POST /emulator/v1/%s takes application/json, even without a body' "$p") 415"
    done
    [ ! -e "$EMU_STATE/snapshots/s1" ]
    run curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Length: 0' \
        "$EMU_URL/emulator/v1/reset"
    assert_output 415
    run curl -s -o /dev/null -w '%{http_code}' -X POST --json '{}' "$EMU_URL/emulator/v1/snapshots/s1"
    assert_output 201
    run curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        "$EMU_URL/emulator/v1/snapshots/s1/restore"
    assert_output 200
}

@test "files PUT takes a tar (application/x-tar), invoke any type but a browser's form types" {
    http PUT "$NS/volumes/v/files?path=/" 'x' -H 'Content-Type: application/x-www-form-urlencoded'
    [ "$CODE" = 415 ]
    [ "$(body_json .fix)" = "send the archive with Content-Type: application/x-tar (as the CLI's cp does)" ]
    http PUT "$NS/volumes/v/files?path=/" 'x' -H 'Content-Type: application/x-tar'
    [ "$CODE" = 404 ] # past the front door: no such Volume
    http POST "$NS/functions/f/invoke" 'hello' -H 'Content-Type: text/plain'
    [ "$CODE" = 415 ]
    http POST "$NS/functions/f/invoke" 'hello' -H 'Content-Type: application/x-www-form-urlencoded'
    [ "$CODE" = 415 ]
    for t in application/octet-stream application/json text/csv; do
        http POST "$NS/functions/f/invoke" 'hello' -H "Content-Type: $t"
        [ "$CODE" = 404 ] || { echo "$t: $CODE"; return 1; }
    done
}

@test "every response says X-Content-Type-Options: nosniff" {
    for p in /healthz /version "$NS/jobs" /no/such/path /docs/reference/errors/; do
        http GET "$p"
        [ "$(header X-Content-Type-Options)" = nosniff ] || { echo "$p"; return 1; }
    done
    http POST "$NS/jobs" x -H 'Content-Type: text/plain'
    [ "$(header X-Content-Type-Options)" = nosniff ]
}

@test "a request target over 32 KiB is 414 RequestURITooLong, as a Status" {
    local q
    q=$(head -c 34000 /dev/zero | tr '\0' a)
    printf 'GET %s/jobs?labelSelector=%s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' \
        "$NS" "$q" >"$BATS_TEST_TMPDIR/req"
    raw "$(port)" "$BATS_TEST_TMPDIR/req"
    [[ "$RAW" == "HTTP/1.1 414 "* ]]
    [ "$(jq -r .reason <<<"${RAW#*$'\n\n'}")" = RequestURITooLong ]
    [ "$(jq -r .message <<<"${RAW#*$'\n\n'}")" = "the request target is $((${#NS} + 20 + 34000)) bytes, over the limit of 32768" ]
}

@test "large headers are 431 RequestHeaderFieldsTooLarge, as a Status" {
    printf 'X-Big: %s\r\n' "$(head -c 40000 /dev/zero | tr '\0' a)" >"$BATS_TEST_TMPDIR/h1"
    http GET /healthz - -H "@$BATS_TEST_TMPDIR/h1"
    [ "$CODE" = 431 ]
    body_is .reason RequestHeaderFieldsTooLarge \
        .message "a header line is 40009 bytes, over the limit of 32768"
    : >"$BATS_TEST_TMPDIR/h5"
    for i in 1 2 3 4 5; do
        printf 'X-Big-%s: %s\r\n' "$i" "$(head -c 15000 /dev/zero | tr '\0' a)" >>"$BATS_TEST_TMPDIR/h5"
    done
    http GET /healthz - -H "@$BATS_TEST_TMPDIR/h5"
    [ "$CODE" = 431 ]
    [[ "$(body_json .message)" == "the headers are "*" bytes, over the limit of 65536" ]]
    # 120 KB of header still gets a Status, not libmicrohttpd's HTML page
    printf 'X-Big: %s\r\n' "$(head -c 120000 /dev/zero | tr '\0' a)" >"$BATS_TEST_TMPDIR/h9"
    http GET /healthz - -H "@$BATS_TEST_TMPDIR/h9"
    [ "$CODE" = 431 ]
    [ "$(body_json .reason)" = RequestHeaderFieldsTooLarge ]
    # past the connection's 160 KiB buffer libmicrohttpd answers 431 itself
    printf 'X-Big: %s\r\n' "$(head -c 900000 /dev/zero | tr '\0' a)" >"$BATS_TEST_TMPDIR/h9"
    http GET /healthz - -H "@$BATS_TEST_TMPDIR/h9"
    [ "$CODE" = 431 ]
}

@test "more than 1000 query parameters is 400 BadRequest" {
    local q
    q=$(for i in $(seq 1 1001); do printf 'a=%s&' "$i"; done)
    http GET "$NS/jobs?$q"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "the request has 1001 query parameters, over the limit of 1000" ]
}

@test "past --max-connections a new client gets 503 with Retry-After, then 200 once they close" {
    start_extra conns --max-connections 8 --idle-timeout 30s
    local fds=() fd i
    for i in $(seq 1 10); do
        exec {fd}<>"/dev/tcp/127.0.0.1/$XPORT"
        fds+=("$fd")
    done
    run curl -s -D "$BATS_TEST_TMPDIR/h" -o "$BATS_TEST_TMPDIR/b" -w '%{http_code}' "$XURL/version"
    assert_output 503
    grep -qi '^Retry-After: 1' "$BATS_TEST_TMPDIR/h"
    grep -qi '^Connection: close' "$BATS_TEST_TMPDIR/h"
    [ "$(jq -r .reason "$BATS_TEST_TMPDIR/b")" = ServiceUnavailable ]
    [ "$(jq -r .details.retryAfterSeconds "$BATS_TEST_TMPDIR/b")" = 1 ]
    [ "$(jq -r .message "$BATS_TEST_TMPDIR/b")" = "the emulator is serving its limit of 8 connections" ]
    # a health check is served past the limit (37-slow-clients.bats: the reserve)
    run curl -s -o /dev/null -w '%{http_code}' "$XURL/healthz"
    assert_output 200
    for fd in "${fds[@]}"; do exec {fd}<&-; done
    wait_until serves_version "$XURL"
}

@test "1100 idle connections do not lock a new client out: it gets 503, not a reset" {
    ulimit -n 4096 2>/dev/null || skip "this shell may not open 1100 sockets (ulimit -n)"
    start_extra flood
    local fds=() fd i
    for i in $(seq 1 1100); do
        exec {fd}<>"/dev/tcp/127.0.0.1/$XPORT"
        fds+=("$fd")
    done
    run curl -s -m 10 -o "$BATS_TEST_TMPDIR/b" -w '%{http_code}' "$XURL/version"
    assert_output 503
    [ "$(jq -r .message "$BATS_TEST_TMPDIR/b")" = "the emulator is serving its limit of 256 connections" ]
    run curl -s -m 10 -o /dev/null -w '%{http_code}' "$XURL/readyz"
    assert_output 200
    for fd in "${fds[@]}"; do exec {fd}<&-; done
    wait_until serves_version "$XURL"
}

@test "--idle-timeout closes an idle connection; a watch outlives it" {
    start_extra idle --idle-timeout 1s --speed 0
    local fd
    exec {fd}<>"/dev/tcp/127.0.0.1/$XPORT"
    # the server closes it: cat sees the end well before its own 10 s
    run timeout 10 cat <&"$fd"
    exec {fd}<&-
    [ "$status" = 0 ]
    # a watch that waits 2 s with nothing to say is a stream, not an idle connection
    run curl -sN -o "$BATS_TEST_TMPDIR/w" -w '%{http_code}' \
        "$XURL$NS/jobs?watch=true&timeoutSeconds=2"
    [ "$status" = 0 ]
    assert_output 200
    # the connection of a finished stream may idle out again
    run curl -s -o /dev/null -w '%{http_code}' "$XURL/healthz"
    assert_output 200
}

@test "an exec session outlives --idle-timeout" {
    start_extra execidle --idle-timeout 1s --speed 0
    run curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"dev"},"spec":{"image":"nodus/python:3.12"}}' \
        "$XURL$NS/sandboxes"
    assert_output 201
    curl -sf -o /dev/null --json '{"advance":"15s"}' "$XURL/emulator/v1/clock"
    # the command runs past the idle timeout on purpose: the sleep is what is tested
    HOME=$BATS_TEST_TMPDIR NODUS_SERVER=$XURL run -0 nodus exec dev -- sh -c 'sleep 2; echo done'
    assert_output done
}

@test "--rate-limit: past the burst a client gets 429 with Retry-After" {
    start_extra rate --rate-limit 1
    local args=() i
    for i in $(seq 1 9); do args+=(-o /dev/null "$XURL/healthz"); done
    # one curl, one connection: the ten requests come well within a second or two
    run curl -s -D "$BATS_TEST_TMPDIR/h" -w '%{http_code}\n' "${args[@]}" \
        -o "$BATS_TEST_TMPDIR/b" "$XURL/version"
    [ "${lines[0]}" = 200 ]
    [ "${lines[1]}" = 200 ]
    [ "${lines[9]}" = 429 ]
    grep -qi '^Retry-After: 1' "$BATS_TEST_TMPDIR/h"
    [ "$(jq -r .reason "$BATS_TEST_TMPDIR/b")" = TooManyRequests ]
    [ "$(jq -r .details.retryAfterSeconds "$BATS_TEST_TMPDIR/b")" = 1 ]
    [ "$(jq -r .message "$BATS_TEST_TMPDIR/b")" = "127.0.0.1 sends faster than the limit of 1 requests a second (bursts of 2)" ]
}

@test "on loopback there is no rate limit unless asked" {
    local urls=() i
    for i in $(seq 1 300); do urls+=(-o /dev/null "$EMU_URL/healthz"); done
    run curl -s -w '%{http_code}\n' "${urls[@]}"
    [ "${#lines[@]}" = 300 ]
    [ "$(printf '%s\n' "${lines[@]}" | sort -u)" = 200 ]
}

@test "the front door's flags: help, and bad values exit 2" {
    run -0 nodus-emulator --help
    for f in --allow-origin --allow-host --max-connections --idle-timeout --rate-limit; do
        [[ "$output" == *"$f"* ]] || { echo "no $f"; return 1; }
    done
    run -2 nodus-emulator --allow-origin evil.example
    assert_output "nodus-emulator: --allow-origin wants an origin such as http://localhost:3000 (scheme://host:port, no path), or *, got evil.example"
    run -2 nodus-emulator --allow-origin http://localhost:3000/
    run -2 nodus-emulator --max-connections 0
    run -2 nodus-emulator --idle-timeout 500ms
    run -2 nodus-emulator --idle-timeout soon
    run -2 nodus-emulator --rate-limit -1
}

@test "the emulators stop cleanly, with no sanitizer report (under make asan)" {
    stop_extras
    stop_emulator
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/emulator.err" "$BATS_FILE_TMPDIR"/extra-*/err
    [ "$status" -eq 1 ]
}
