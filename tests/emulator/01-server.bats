#!/usr/bin/env bats
# The emulator process: start-up, flags, health, request ids, limits, shutdown, errors.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

@test "the first line of output names the address, and the port file holds the port" {
    run cat "$BATS_FILE_TMPDIR/emulator.out"
    assert_line --index 0 "listening on $EMU_URL"
    assert_line --index 1 "console: $EMU_URL/"
    assert_equal "${#lines[@]}" 2
}

@test "healthz, livez and readyz answer ok" {
    for p in /healthz /livez /readyz; do
        http GET "$p"
        [ "$CODE" = 200 ]
        run cat "$BODY"
        assert_output ok
    done
}

@test "every response carries X-Request-Id, errors carry the same id in requestId" {
    http GET /version
    [ "$CODE" = 200 ]
    [[ "$(header X-Request-Id)" =~ ^req_[0-9a-z]{26}$ ]]
    http GET /apis/nodus.dev/v1/namespaces/default/jobs/missing
    [ "$CODE" = 404 ]
    [ "$(body_json .requestId)" = "$(header X-Request-Id)" ]
}

@test "an unknown path is a NotFound Status with fix, docs and requestId" {
    http GET /no/such/path
    [ "$CODE" = 404 ]
    [ "$(body_json .kind)" = Status ]
    [ "$(body_json .reason)" = NotFound ]
    [ "$(body_json .status)" = Failure ]
    [ "$(body_json .code)" = 404 ]
    [ "$(body_json .docs)" = "$EMU_URL/docs/reference/errors/#notfound" ]
    [ -n "$(body_json .fix)" ]
}

@test "the docs page of every error code is served offline" {
    http GET /docs/reference/errors/
    [ "$CODE" = 200 ]
    [[ "$(header Content-Type)" == text/html* ]]
    for r in badrequest unauthorized forbidden notfound methodnotallowed notacceptable \
        alreadyexists conflict expired idempotencykeyreused idempotencykeyrequired \
        preconditionfailed requestentitytoolarge unsupportedmediatype invalid fieldimmutable \
        budgetexceeded consentrequired toomanyrequests internalerror serviceunavailable \
        requesturitoolong requestheaderfieldstoolarge; do
        grep -q "id=\"$r\"" "$BODY" || { echo "missing anchor $r"; return 1; }
    done
    http GET /docs/nope
    [ "$CODE" = 404 ]
}

@test "a body over 3 MiB is refused with RequestEntityTooLarge" {
    head -c $((3 * 1024 * 1024 + 10)) /dev/zero | tr '\0' 'a' > "$BATS_TEST_TMPDIR/big"
    http POST /apis/nodus.dev/v1/namespaces/default/jobs "@$BATS_TEST_TMPDIR/big"
    [ "$CODE" = 413 ]
    [ "$(body_json .reason)" = RequestEntityTooLarge ]
}

@test "a verb not served on a path is MethodNotAllowed" {
    http PUT /apis/nodus.dev/v1/namespaces/default/jobs '{}'
    [ "$CODE" = 405 ]
    [ "$(body_json .reason)" = MethodNotAllowed ]
}

@test "an Accept header naming nothing servable is NotAcceptable" {
    http GET /apis/nodus.dev/v1/namespaces/default/jobs - -H 'Accept: application/vnd.kubernetes.protobuf'
    [ "$CODE" = 406 ]
    [ "$(body_json .reason)" = NotAcceptable ]
}

@test "a second emulator on the same state directory is refused" {
    run -1 nodus-emulator --state "$EMU_STATE" --listen 127.0.0.1:0 --quiet
    assert_output --partial "is in use by another emulator"
}

@test "--help and --version; bad flags exit 2" {
    run -0 nodus-emulator --help
    assert_output --partial "--state DIR"
    assert_output --partial "--fsync MODE"
    run -0 nodus-emulator --version
    assert_output --regexp '^nodus-emulator [0-9]+\.[0-9]+\.[0-9]+$'
    run -2 nodus-emulator --fsync sometimes
    assert_output --partial "--fsync is always, batch or never"
    run -2 nodus-emulator --listen nowhere
    assert_output --partial "--listen wants ADDR:PORT"
    run -2 nodus-emulator --speed -1
    assert_output --partial "--speed wants a number from 0"
    run -2 nodus-emulator --speed fast
    run -2 nodus-emulator --bogus
    assert_output --partial "unknown flag --bogus"
}

@test "listening beyond loopback needs --token-file" {
    run -2 nodus-emulator --state "$BATS_TEST_TMPDIR/s" --listen 0.0.0.0:0
    assert_output --partial "needs --token-file"
}

@test "SIGTERM ends the emulator cleanly with exit 0, an open watch included" {
    local dir=$BATS_TEST_TMPDIR/term
    mkdir -p "$dir"
    nodus-emulator --state "$dir/state" --listen 127.0.0.1:0 --port-file "$dir/port" \
        --fsync never --quiet >"$dir/out" 2>"$dir/err" &
    local pid=$!
    wait_until test -s "$dir/port"
    curl -sN "http://127.0.0.1:$(cat "$dir/port")/apis/nodus.dev/v1/namespaces/default/jobs?watch=true" \
        >"$dir/watch" &
    local cpid=$!
    wait_until watches_at_least 1 "http://127.0.0.1:$(cat "$dir/port")"
    kill -TERM "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 0 ] || { echo "exit $rc"; cat "$dir/err"; return 1; }
    wait "$cpid" || true
    [ -f "$dir/state/emulator.json" ]
}

@test "/version reports Kubernetes minor 33 with a nodus gitVersion" {
    http GET /version
    [ "$(body_json .major)" = 1 ]
    [ "$(body_json .minor)" = 33 ]
    [[ "$(body_json .gitVersion)" == v1.33.0-nodus.* ]]
}

@test "--log-format json writes one JSON line per request" {
    local dir=$BATS_TEST_TMPDIR/logjson
    mkdir -p "$dir"
    nodus-emulator --state "$dir/state" --listen 127.0.0.1:0 --port-file "$dir/port" \
        --fsync never --log-format json >"$dir/out" 2>"$dir/err" 3>&- &
    local pid=$!
    wait_until test -s "$dir/port"
    curl -s -o /dev/null -H 'User-Agent: probe/1' "http://127.0.0.1:$(cat "$dir/port")/version"
    kill -TERM "$pid"
    wait "$pid" || true
    run jq -r 'select(.path == "/version") | [.method, (.code|tostring), .userAgent, (.requestId | test("^req_")|tostring)] | join(" ")' "$dir/err"
    assert_output "GET 200 probe/1 true"
    # the duration to the microsecond, without the noise of a double ("ms":0.87804199999999999)
    run grep -o '"ms":[^,]*' "$dir/err"
    assert_output --regexp '^"ms":[0-9]+(\.[0-9]{1,3})?$'
}

@test "the request log escapes control characters: a path cannot forge a line or colour a terminal" {
    local dir=$BATS_TEST_TMPDIR/logtext
    mkdir -p "$dir"
    nodus-emulator --state "$dir/state" --listen 127.0.0.1:0 --port-file "$dir/port" \
        --fsync never >"$dir/out" 2>"$dir/err" 3>&- &
    local pid=$! url
    wait_until test -s "$dir/port"
    url=http://127.0.0.1:$(cat "$dir/port")
    # a newline and a forged line, ESC and a C1 CSI (U+009B)
    curl -gs -o /dev/null "$url/x%0aGET%20/fake%20200%201.0ms%20req_fake%1b[31mred%c2%9b2J"
    curl -s -o /dev/null "$url/version"
    kill -TERM "$pid"
    wait "$pid" || true
    # one line per request, no control byte anywhere, the path quoted as Go's %q does
    run grep -c $'\e\|\xc2\x9b' "$dir/err"
    assert_output 0
    run grep -c '^GET /fake' "$dir/err"
    assert_output 0
    run sed -n 's/ [0-9.]*ms req_[0-9a-z]*$//p' "$dir/err"
    assert_output "$(printf '%s\n' 'GET "/x\nGET /fake 200 1.0ms req_fake\x1b[31mred\u009b2J" 404' \
        'GET /version 200')"
    # --log-format json escapes them as JSON does
    nodus-emulator --state "$dir/state" --listen 127.0.0.1:0 --port-file "$dir/port2" \
        --fsync never --log-format json >"$dir/out" 2>"$dir/err2" 3>&- &
    pid=$!
    wait_until test -s "$dir/port2"
    curl -gs -o /dev/null "http://127.0.0.1:$(cat "$dir/port2")/x%0ay%1bz%ff"
    curl -gs -o /dev/null "http://127.0.0.1:$(cat "$dir/port2")/c1%c2%9b2J"
    kill -TERM "$pid"
    wait "$pid" || true
    run grep -c $'\e\\|\xc2\x9b' "$dir/err2"
    assert_output 0
    # not UTF-8: quoted as in the text log; UTF-8: as JSON, all ASCII
    run jq -r 'select(.code == 404 and (.path | startswith("\"/x"))) | .path' "$dir/err2"
    assert_output '"/x\ny\x1bz\xff"'
    run grep -ciF '"path":"/c1\u009b2J"' "$dir/err2"
    assert_output 1
}

@test "--quiet writes no request log" {
    run grep -c "GET /" "$BATS_FILE_TMPDIR/emulator.err"
    assert_output 0
}
