#!/usr/bin/env bats
# How nodus talks to the server: retries (503, 429 with Retry-After; never a 500), the
# request timeout, an absent server, Idempotency-Key on creates (the same key on a
# retry), and the -v logs (6 requests, 7 headers, 8 bodies, 9 curl commands; tokens
# masked), to stderr or to NODUS_TRACE.
#
# The emulator runs with its request log on (one line per request, on its stderr), the
# server's own count of what it was asked. Faults are injected with
# POST /emulator/v1/faults.

load ../lib/common

bats_require_minimum_version 1.5.0

TOKEN=cli-secret-token-4711
JOBS=/apis/nodus.dev/v1/namespaces/default/jobs
WJOBS=/apis/nodus.dev/v1/namespaces/writes/jobs # creates go there, reads stay the same

# start_emulator without --quiet: its request log is the evidence here.
start_logged_emulator() {
    EMU_STATE=$BATS_FILE_TMPDIR/state
    local portfile=$BATS_FILE_TMPDIR/port i
    "$ND_BIN_DIR/nodus-emulator" --state "$EMU_STATE" --listen 127.0.0.1:0 \
        --port-file "$portfile" --fsync never \
        >"$BATS_FILE_TMPDIR/emulator.out" 2>"$BATS_FILE_TMPDIR/emulator.err" 3>&- &
    EMU_PID=$!
    wait_until started "$portfile" "$EMU_PID" || true
    pid_gone "$EMU_PID" && { cat "$BATS_FILE_TMPDIR/emulator.err" >&2; return 1; }
    [ -s "$portfile" ] || { echo "emulator did not start" >&2; return 1; }
    EMU_URL="http://127.0.0.1:$(cat "$portfile")"
    echo "$EMU_PID" >"$BATS_FILE_TMPDIR/emulator.pid"
    export EMU_URL EMU_STATE EMU_PID
}

write_config() {
    mkdir -p "$HOME/.nodus"
    cat >"$HOME/.nodus/config" <<EOF
apiVersion: v1
clusters:
- cluster:
    server: $EMU_URL
  name: emulator
contexts:
- context:
    cluster: emulator
    namespace: default
    user: emulator
  name: emulator
current-context: emulator
kind: Config
preferences: {}
users:
- name: emulator
  user:
    token: $TOKEN
EOF
}

setup_file() {
    start_logged_emulator
    export HOME=$BATS_FILE_TMPDIR/home
    write_config
    curl -sS -f -o /dev/null -X POST -H 'Content-Type: application/json' \
        --data-binary "$(job_json seed)" "$EMU_URL$JOBS"
    curl -sS -f -o /dev/null -X POST -H 'Content-Type: application/json' \
        --data-binary '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"writes"}}' \
        "$EMU_URL/api/v1/namespaces"
}

teardown_file() {
    stop_emulator
}

setup() {
    unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG NO_COLOR NODUS_TRACE
    export HOME=$BATS_FILE_TMPDIR/home
    curl -sS -f -o /dev/null -X DELETE "$EMU_URL/emulator/v1/faults"
    LOG_FROM=$(($(wc -l <"$BATS_FILE_TMPDIR/emulator.err") + 1))
}

teardown() {
    [ -n "${BATS_TEST_COMPLETED:-}" ] && return 0
    echo "--- stdout:"
    printf '%s\n' "${output:-}"
    echo "--- stderr:"
    printf '%s\n' "${stderr:-}"
    echo "--- emulator log of this test:"
    tail -n "+$LOG_FROM" "$BATS_FILE_TMPDIR/emulator.err" || true
}

fault() {
    curl -sS -f -o /dev/null -X POST -H 'Content-Type: application/json' --data-binary "$1" \
        "$EMU_URL/emulator/v1/faults"
}

marker_logged() {
    tail -n "+$LOG_FROM" "$BATS_FILE_TMPDIR/emulator.err" | grep -q "^GET /healthz"
}

# The emulator's log lines of this test for METHOD PATH (exactly), as "METHOD PATH CODE".
# A request is logged once answered: a /healthz marker is asked and awaited first.
served() {
    local method=$1 path=$2
    curl -sS -f -o /dev/null "$EMU_URL/healthz?mark=$BATS_TEST_NUMBER"
    wait_until -t 3 marker_logged || true # then the lines show what is missing
    tail -n "+$LOG_FROM" "$BATS_FILE_TMPDIR/emulator.err" |
        awk -v m="$method" -v p="$path" '$1 == m && $2 == p { print $1, $2, $3 }'
}

now_ms() {
    date +%s%3N
}

@test "retries: a 503 twice, then the answer (three requests, Retry-After honoured)" {
    fault '{"path":"/jobs$","verb":"GET","status":503,"count":2}'
    local t0 t1
    t0=$(now_ms)
    run -0 --separate-stderr nodus get jobs -o name -v 6
    t1=$(now_ms)
    assert_output "job.nodus.dev/seed"
    run -0 served GET "$JOBS"
    assert_output - <<EOF
GET $JOBS 503
GET $JOBS 503
GET $JOBS 200
EOF
    # the injected 503 says Retry-After: 1; both waits are that long
    [ $((t1 - t0)) -ge 2000 ]
    run -0 grep -c "retrying GET $EMU_URL$JOBS?limit=500 in 1000 ms (attempt [12] failed: 503 Service Unavailable)" <<<"$stderr"
    assert_output 2
}

@test "retries: a 429 waits the Retry-After the server asks for" {
    fault '{"path":"/jobs$","verb":"GET","status":429,"count":1,"retryAfterSeconds":2}'
    local t0 t1
    t0=$(now_ms)
    run -0 --separate-stderr nodus get jobs -o name -v 6
    t1=$(now_ms)
    assert_output "job.nodus.dev/seed"
    [ $((t1 - t0)) -ge 2000 ]
    [ $((t1 - t0)) -lt 4000 ]
    assert_equal "$(grep -c 'retrying' <<<"$stderr")" 1
    [[ "$stderr" == *"retrying GET $EMU_URL$JOBS?limit=500 in 2000 ms (attempt 1 failed: 429 Too Many Requests)"* ]]
    run -0 served GET "$JOBS"
    assert_output - <<EOF
GET $JOBS 429
GET $JOBS 200
EOF
}

@test "retries: a 500 is never retried" {
    fault '{"path":"/jobs$","verb":"GET","status":500,"count":1}'
    run -1 --separate-stderr nodus get jobs -o name
    assert_output ""
    assert_equal "$(sed -n 1p <<<"$stderr")" "Error from server (InternalError): injected fault: GET $JOBS answers 500"
    assert_equal "$(sed -n 2p <<<"$stderr")" "fix: retry the request"
    assert_equal "$(sed -n 3p <<<"$stderr")" "docs: $EMU_URL/docs/reference/errors/#internalerror"
    [[ "$(sed -n 4p <<<"$stderr")" =~ ^requestId:\ req_[0-9a-z]{26}$ ]]
    run -0 served GET "$JOBS"
    assert_output "GET $JOBS 500"
    # neither is a 404
    run -3 --separate-stderr nodus get job nope
    run -0 served GET "$JOBS/nope"
    assert_output "GET $JOBS/nope 404"
}

@test "--request-timeout: a server slower than the limit exits 6" {
    fault '{"path":"/jobs$","verb":"GET","status":0,"delayMs":3000,"count":1}'
    local t0 t1
    t0=$(now_ms)
    run -6 --separate-stderr nodus get jobs --request-timeout=1s
    t1=$(now_ms)
    assert_output ""
    assert_equal "$stderr" "error: the server did not answer within 1s (--request-timeout)
fix: Retry with a longer --request-timeout."
    [ $((t1 - t0)) -ge 1000 ]
    [ $((t1 - t0)) -lt 2500 ]
    # a limit the server meets is no error
    run -0 --separate-stderr nodus get jobs -o name --request-timeout 5s
    assert_output "job.nodus.dev/seed"
}

@test "a server that is not there exits 7" {
    # port 1: nothing listens there
    run -7 --separate-stderr nodus get jobs --server http://127.0.0.1:1
    assert_output ""
    assert_equal "$stderr" "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?
fix: Check the server address (--server, or the cluster in nodus config view); to run a local emulator: nodus emulator start."
    NODUS_SERVER=http://127.0.0.1:1 run -7 --separate-stderr nodus get jobs -o name
    assert_equal "$(sed -n 1p <<<"$stderr")" "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"
}

@test "create: an Idempotency-Key per object, kept by the server for each" {
    local dir=$EMU_STATE/idempotency before
    before=$(find "$dir" -name '*.json' | wc -l)
    {
        job_json idem-a
        job_json idem-b
    } >"$BATS_TEST_TMPDIR/two.json"
    run -0 --separate-stderr nodus create -n writes -f "$BATS_TEST_TMPDIR/two.json" -v 7
    assert_output - <<'EOF'
job.nodus.dev/idem-a created
job.nodus.dev/idem-b created
EOF
    assert_equal "$(find "$dir" -name '*.json' | wc -l)" "$((before + 2))"
    # the keys sent (-v 7 shows the headers) are the keys the server kept
    run -0 sed -nE 's/^I[0-9]{4} [0-9:.]+ +Idempotency-Key: ([0-9a-f]+)$/\1/p' <<<"$stderr"
    local sent=$output
    assert_equal "$(wc -l <<<"$sent")" 2
    assert_equal "$(sort -u <<<"$sent" | wc -l)" 2
    [[ "$(head -n 1 <<<"$sent")" =~ ^[0-9a-f]{32}$ ]]
    run -0 bash -c "jq -r .key '$dir'/*.json | sort"
    local k
    for k in $sent; do assert_line "$k"; done
}

@test "create: a retried POST carries the same key, and one object is made" {
    fault '{"path":"/jobs$","verb":"POST","status":503,"count":1}'
    job_json idem-retry >"$BATS_TEST_TMPDIR/one.json"
    run -0 --separate-stderr nodus create -n writes -f "$BATS_TEST_TMPDIR/one.json" -v 7
    assert_output "job.nodus.dev/idem-retry created"
    run -0 served POST "$WJOBS"
    assert_output - <<EOF
POST $WJOBS 503
POST $WJOBS 201
EOF
    run -0 sed -nE 's/^I[0-9]{4} [0-9:.]+ +Idempotency-Key: ([0-9a-f]+)$/\1/p' <<<"$stderr"
    assert_equal "${#lines[@]}" 2
    assert_equal "${lines[0]}" "${lines[1]}"
    local key=${lines[0]}
    run -0 bash -c "grep -l '\"key\": \"$key\"' '$EMU_STATE'/idempotency/*.json | wc -l"
    assert_output 1
    run -0 bash -c "curl -sS '$EMU_URL$WJOBS?fieldSelector=metadata.name%3Didem-retry' | jq '.items | length'"
    assert_output 1
}

@test "-v 6: each request with its status and latency, nothing more" {
    run -0 --separate-stderr nodus get jobs -o name -v 6
    assert_output "job.nodus.dev/seed"
    assert_equal "$(wc -l <<<"$stderr")" 1
    [[ "$stderr" =~ ^I[0-9]{4}\ [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}\ GET\ http://127\.0\.0\.1:[0-9]+/apis/nodus\.dev/v1/namespaces/default/jobs\?limit=500\ 200\ OK\ in\ [0-9]+\ milliseconds$ ]]
    # without -v: nothing
    run -0 --separate-stderr nodus get jobs -o name
    assert_equal "$stderr" ""
    run -0 --separate-stderr nodus get jobs -o name --v=6
    assert_equal "$(wc -l <<<"$stderr")" 1
}

@test "-v 8: headers and bodies; -v 9: a curl command; the token never shows" {
    run -0 --separate-stderr nodus get job seed -o name -v 8
    assert_output "job.nodus.dev/seed"
    [[ "$stderr" == *" Request Headers:"* ]]
    [[ "$stderr" == *"    Authorization: <masked>"* ]]
    [[ "$stderr" == *" Response Body: {\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\""* ]]
    [[ "$stderr" != *" curl -v "* ]]
    [[ "$stderr" != *"$TOKEN"* ]]
    job_json v8-body >"$BATS_TEST_TMPDIR/b.json"
    run -0 --separate-stderr nodus create -n writes -f "$BATS_TEST_TMPDIR/b.json" -v 8
    [[ "$stderr" == *" Request Body: {\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"v8-body\""* ]]
    run -0 --separate-stderr nodus get job seed -o name -v 9
    run -0 grep -E '^I[0-9]{4} [0-9:.]+ curl ' <<<"$stderr"
    assert_output --regexp "curl -v -X GET -H \"User-Agent: nodus/[^\"]+\" -H \"Accept: application/json\" -H \"Authorization: Bearer <masked>\" 'http://127\.0\.0\.1:[0-9]+/apis/nodus\.dev/v1/namespaces/default/jobs/seed'$"
    # a token given on the command line is masked too
    run -0 --separate-stderr nodus get job seed -o name -v 9 --token other-secret-0815
    [[ "$stderr" != *other-secret-0815* ]]
    [[ "$stderr" == *"Authorization: Bearer <masked>"* ]]
}

@test "NODUS_TRACE=FILE: the log goes there (at least level 8), stderr stays clean" {
    local trace=$BATS_TEST_TMPDIR/trace
    NODUS_TRACE=$trace run -0 --separate-stderr nodus get jobs -o name
    assert_output "job.nodus.dev/seed"
    assert_equal "$stderr" ""
    run -0 grep -cE '^I[0-9]{4} [0-9:.]+ GET http://127\.0\.0\.1:[0-9]+/apis/nodus\.dev/v1/namespaces/default/jobs\?limit=500 200 OK in [0-9]+ milliseconds$' "$trace"
    assert_output 1
    run -0 grep -c ' Response Body: ' "$trace"
    assert_output 1
    # appended, never truncated; -v 9 there too
    NODUS_TRACE=$trace run -0 --separate-stderr nodus get job seed -o name -v 9
    assert_equal "$stderr" ""
    run -0 grep -c ' GET http://' "$trace"
    assert_output 2
    run -0 grep -c ' curl -v -X GET ' "$trace"
    assert_output 1
    run -1 grep -c "$TOKEN" "$trace"
}

@test "NODUS_TRACE=FILE: the file holds bodies, so it is created 0600 and a looser one tightened" {
    local trace=$BATS_TEST_TMPDIR/trace.0600
    (umask 022 && NODUS_TRACE=$trace nodus get jobs -o name >/dev/null)
    run -0 stat -c %a "$trace"
    assert_output 600
    # one made 0644 before (by an older nodus, or by hand) is tightened when written to
    local old=$BATS_TEST_TMPDIR/trace.old
    (umask 022 && : >"$old")
    run -0 stat -c %a "$old"
    assert_output 644
    NODUS_TRACE=$old run -0 nodus get jobs -o name
    run -0 stat -c %a "$old"
    assert_output 600
    run -0 grep -c ' Response Body: ' "$old"
    assert_output 1
}
