#!/usr/bin/env bats
# GET /emulator/v1/spend: what the billed objects have cost per project and kind (the sum
# of their status.costUSD), the samples of it over the emulator's clock (ordered, at most
# maxSamples), ?watch=true's stream of new samples, admin only.

load ../lib/common

setup_file() {
    start_emulator
    http POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"proj-b"}}'
    local j
    for j in a1 a2; do
        http POST "$JOBS/default/jobs" "$(long_job "$j" L40S 1)"
        [ "$CODE" = 201 ]
    done
    http POST "$JOBS/proj-b/jobs" "$(long_job b1 H100 2)"
    [ "$CODE" = 201 ]
    http POST "$JOBS/default/volumes" '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"v1"},"spec":{"size":"100Gi"}}'
    [ "$CODE" = 201 ]
    clock_advance 90m # a Volume's cost moves once an hour
}

# long_job NAME MODEL COUNT: a Job that runs for months and may cost a lot
long_job() {
    job_json "$1" "{\"resources\":{\"gpu\":{\"model\":\"$2\",\"count\":$3}},\"maxCostUSD\":\"99999.00\"}" |
        jq -c '.metadata.annotations["emulator.nodus.dev/duration"] = "5000h"'
}

teardown_file() {
    stop_extras
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces
SPEND=/emulator/v1/spend

# costs KIND: [{project, kind, costUSD (a number)}] of every object of KIND, from the API
costs() {
    curl -sf "$(emu_url)/apis/nodus.dev/v1/$1" |
        jq -c --arg k "$1" '[.items[] | {project: .metadata.namespace, kind: $k,
                                        cost: (.status.costUSD // "0" | tonumber)}]'
}

@test "the totals after a clock advance are the sum of the objects' costUSD per project and kind" {
    local want
    want=$(jq -cs 'add | group_by([.project, .kind]) |
                   map({project: .[0].project, kind: .[0].kind, cost: (map(.cost) | add)}) |
                   map(select(.cost > 0))' <(costs jobs) <(costs volumes) <(costs sandboxes) <(costs functions))
    http GET $SPEND
    [ "$CODE" = 200 ]
    # three series cost something: default's Jobs and Volume, proj-b's Jobs
    assert_equal "$(jq -r 'map("\(.project)/\(.kind)") | join(" ")' <<<"$want")" \
        "default/jobs default/volumes proj-b/jobs"
    run jq -r --argjson want "$want" '
        [.totals[] | select((.costUSD | tonumber) > 0)] as $got
        | if ($got | length) != ($want | length) then "rows: \($got | length) != \($want | length)"
          else [range($want | length) as $i | $want[$i] as $w | $got[$i] as $g
                | select($g.project != $w.project or $g.kind != $w.kind
                         or (($g.costUSD | tonumber) - $w.cost | fabs) > 0.0000005)
                | "\($g) != \($w)"] | join("; ") end' "$BODY"
    assert_output ""
    # the total is their sum, and the newest sample holds the totals
    run jq -r '[((.totals | map(.costUSD | tonumber) | add) - (.totalUSD | tonumber) | fabs < 0.000001),
                .samples[-1].totalUSD == .totalUSD,
                .samples[-1].costUSD["proj-b"].jobs == (.totals[] | select(.project == "proj-b" and .kind == "jobs") | .costUSD),
                .kind, .maxSamples] | map(tostring) | join(" ")' "$BODY"
    assert_output "true true true Spend 1000"
}

@test "samples are ordered by the emulator's clock and at most maxSamples are kept" {
    # a fast clock: the Job's cost moves each emulated minute, each move one sample
    start_extra fast --speed 100000
    curl -sf -o /dev/null -H 'Content-Type: application/json' "$XURL$JOBS/default/jobs" \
        -d "$(long_job f1 L40S 1)"
    wait_until -t 60 _ring_turned "$XURL"
    run curl -sf -o "$BATS_TEST_TMPDIR/s.json" "$XURL$SPEND"
    run jq -r '.samples as $s | [($s | length),
               ([range(1; $s | length) | select($s[.].timeMs <= $s[. - 1].timeMs or $s[.].seq <= $s[. - 1].seq)] | length),
               ([range(1; $s | length) | select(($s[.].totalUSD | tonumber) < ($s[. - 1].totalUSD | tonumber))] | length),
               ($s[0].seq > 1)] | map(tostring) | join(" ")' "$BATS_TEST_TMPDIR/s.json"
    # 1000 kept (the oldest dropped), in order of seq and time, spend never going down
    assert_output "1000 0 0 true"
    # a reset starts the spend again: an open stream, caught up or not, ends with a 410
    # (what it sent is of the state before), and the spend reads zero
    curl -sN "$XURL$SPEND?watch=true&timeoutSeconds=20" >"$BATS_TEST_TMPDIR/w.out" &
    local pid=$!
    wait_until test -s "$BATS_TEST_TMPDIR/w.out"
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$XURL/emulator/v1/reset"
    wait "$pid"
    run jq -r 'select(.type == "ERROR") | "\(.object.code) \(.object.reason)"' "$BATS_TEST_TMPDIR/w.out"
    assert_output "410 Expired"
    run curl -sf "$XURL$SPEND"
    assert_equal "$(jq -r '[.totalUSD, (.totals | length)] | join(" ")' <<<"$output")" "0.00 0"
    stop_extras
}

# _ring_turned URL: the emulator at URL has dropped its first sample
_ring_turned() {
    [ "$(curl -sf "$1$SPEND" | jq -r '.samples[0].seq')" -gt 1 ]
}

_last_total_is() {
    [ "$(jq -r 'select(.type == "SAMPLE") | .object.totalUSD' "$1" | tail -n 1)" = "$2" ]
}

# the lines of the stream in FILE whose seq is above SEQ
_sample_after() {
    jq -e --argjson s "$2" 'select(.type == "SAMPLE" and .object.seq > $s)' "$1"
}

@test "?watch=true sends the newest sample, then a new one after an advance" {
    local out=$BATS_TEST_TMPDIR/watch.out before last
    before=$(watches_total)
    curl -sN "$(emu_url)$SPEND?watch=true&timeoutSeconds=20" >"$out" &
    local pid=$!
    wait_until watches_at_least $((before + 1))
    wait_until test -s "$out"
    last=$(head -n 1 "$out" | jq -r 'select(.type == "SAMPLE") | .object.seq')
    [ -n "$last" ]
    clock_advance 2h
    wait_until _sample_after "$out" "$last"
    http GET $SPEND
    # the newest line the stream sent holds the totals the GET says
    wait_until _last_total_is "$out" "$(body_json .totalUSD)"
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

@test "GET spend needs an admin token (403 otherwise); POST is 405; a watch ends at shutdown" {
    cat >"$BATS_FILE_TMPDIR/tokens.json" <<'TOK'
{"tokens": {
  "t-root": {"identity": "root", "projects": ["*"], "scopes": ["admin"]},
  "t-read": {"identity": "rita", "projects": ["*"], "scopes": ["read"]}}}
TOK
    chmod 600 "$BATS_FILE_TMPDIR/tokens.json"
    start_extra tok --token-file "$BATS_FILE_TMPDIR/tokens.json"
    run curl -s -w '\n%{http_code}' -H 'Authorization: Bearer t-read' "$XURL$SPEND"
    assert_equal "$(tail -n 1 <<<"$output")" 403
    assert_equal "$(head -n 1 <<<"$output" | jq -r '[.reason, .message, .fix] | @tsv')" \
        "$(printf 'Forbidden\trita may not use %s: it needs the token scope admin\tuse a token with the admin scope' $SPEND)"
    run curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer t-root' \
        -H 'Content-Type: application/json' "$XURL$SPEND"
    assert_output 405
    run curl -s -w '%{http_code}' -o "$BATS_TEST_TMPDIR/s.json" -H 'Authorization: Bearer t-root' "$XURL$SPEND"
    assert_output 200
    assert_equal "$(jq -r '[.kind, .totalUSD, (.totals | length)] | join(" ")' "$BATS_TEST_TMPDIR/s.json")" "Spend 0.00 0"
    # a watch open at shutdown ends with it
    curl -sN -H 'Authorization: Bearer t-root' "$XURL$SPEND?watch=true" >"$BATS_TEST_TMPDIR/w.out" &
    local pid=$! rc=0
    wait_until _open_at "$XURL" 1
    stop_extras
    wait "$pid" || rc=$?
    # it ended (0: the chunked body's end; 18: the daemon closed the socket first)
    [[ $rc == 0 || $rc == 18 ]]
}

_open_at() {
    [ "$(curl -sS -H 'Authorization: Bearer t-root' "$1/emulator/v1/stats" | jq -r .watchesOpen)" -ge "$2" ]
}
