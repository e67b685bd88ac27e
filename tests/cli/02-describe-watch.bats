#!/usr/bin/env bats
# nodus describe (the summary, spec, status, owner and owned objects, events) and
# nodus get -w (with a concurrent writer, --watch-only, --output-watch-events, a stream
# the server drops, and a resume point the server no longer has: 410 Expired).
#
# Each watch test works in its own project. The last test moves the emulator's clock
# 25 hours, so it stays last.

load ../lib/common
load ../lib/watch

bats_require_minimum_version 1.5.0

API=/apis/nodus.dev/v1/namespaces

# curl against the emulator (read anew: a test restarts it); fails unless 2xx.
emu() {
    local method=$1 path=$2 body=${3:-} ctype=${4:-application/json}
    local args=(-sS -f -o "$BATS_FILE_TMPDIR/emu.out" -X "$method")
    [ -n "$body" ] && args+=(-H "Content-Type: $ctype" --data-binary "$body")
    curl "${args[@]}" "$(emu_url)$path" || {
        echo "$method $path failed:" >&2
        cat "$BATS_FILE_TMPDIR/emu.out" >&2
        return 1
    }
}

project() {
    emu POST /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$1\"}}"
}

# A Suspended Job (it stays Queued whatever the simulation does): NAME PROJECT [EXTRA
# metadata, a JSON object].
job() {
    local name=$1 ns=$2 meta=${3:-'{}'}
    emu POST "$API/$ns/jobs" "$(jq -cn --arg n "$name" --argjson m "$meta" \
        '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:({name:$n} + $m),
          spec:{image:"nodus/pytorch:2.8-cuda12.8",command:["python","train.py"],
                maxCostUSD:"5.00",state:"Suspended"}}')"
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
    namespace: desc
    user: emulator
  name: emulator
current-context: emulator
kind: Config
preferences: {}
users:
- name: emulator
  user: {}
EOF
}

setup_file() {
    start_emulator --no-simulation # these tests show states written as fixtures
    export HOME=$BATS_FILE_TMPDIR/home
    write_config
    project desc
    job train-a desc '{"labels":{"tier":"gold","app":"trainer"},"annotations":{"note":"first run"}}'
    emu POST "$API/desc/pipelines" '{"apiVersion":"nodus.dev/v1","kind":"Pipeline",
        "metadata":{"name":"nightly"},
        "spec":{"maxCostUSD":"20.00","state":"Suspended","steps":[{"name":"prep",
          "job":{"image":"nodus/pytorch:2.8-cuda12.8","command":["python","prep.py"],
                 "maxCostUSD":"10.00"}}]}}'
    local uid
    uid=$(jq -r .metadata.uid "$BATS_FILE_TMPDIR/emu.out")
    job nightly-manual desc "$(jq -cn --arg u "$uid" '{ownerReferences:[{apiVersion:"nodus.dev/v1",
        kind:"Pipeline",name:"nightly",uid:$u,controller:true}]}')"
    project empty
}

teardown_file() {
    stop_emulator
}

setup() {
    unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG NO_COLOR NODUS_TRACE
    export HOME=$BATS_FILE_TMPDIR/home
    WATCH_PID=
}

teardown() {
    if [ -n "$WATCH_PID" ]; then
        kill -CONT "$WATCH_PID" 2>/dev/null || true
        kill "$WATCH_PID" 2>/dev/null || true
        wait "$WATCH_PID" 2>/dev/null || true
    fi
    [ -n "${BATS_TEST_COMPLETED:-}" ] && return 0
    echo "--- stdout:"
    printf '%s\n' "${output:-}"
    echo "--- stderr:"
    printf '%s\n' "${stderr:-}"
    if [ -n "${WATCH_OUT:-}" ]; then
        echo "--- watch output:"
        cat "$WATCH_OUT" || true
        echo "--- watch stderr:"
        cat "$WATCH_OUT.err" || true
    fi
}

# Describe output with the times that move masked: "(<age> ago)" and event ages.
mask_describe() {
    sed -E -e 's/^(Created: +[0-9TZ:-]+) \([0-9a-z]+ ago\)$/\1 (<age> ago)/' \
        -e 's/^(Created: +)[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/\1<time>/' \
        -e 's/^(UID: +[a-z]+_)[0-9a-z]{26}$/\1<ulid>/' \
        -e 's/^(  Normal   [A-Za-z]+ +)[0-9a-z]+ +/\1<age>  /'
}

# Waits (up to ~10 s) until FILE has N lines matching RE.
wait_for_count() {
    local file=$1 re=$2 n=$3
    wait_until _count_at_least "$file" "$re" "$n" 2>/dev/null && return 0
    echo "fewer than $n lines matching '$re' in $file:" >&2
    cat "$file" "$file.err" >&2
    return 1
}

_count_at_least() { # FILE RE N
    [ "$(grep -Ec "$2" "$1" 2>/dev/null)" -ge "$3" ]
}

# A table as printed, its last cell (AGE) masked.
mask_age_last() {
    sed -E 's/ [0-9]+[smhd][0-9smhd]*$/ <age>/' "$1"
}

@test "describe: summary, labels sorted, spec, status, events" {
    run -0 --separate-stderr nodus describe job train-a
    assert_equal "$stderr" ""
    run -0 mask_describe <<<"$output"
    assert_output - <<'EOF'
Name:         train-a
Project:      desc
Kind:         Job (nodus.dev/v1)
Labels:       app=trainer
              nodus.dev/created-by=emulator-user
              nodus.dev/launched-by=api
              tier=gold
Annotations:  note=first run
Created:      <time> (<age> ago)
UID:          job_<ulid>
Finalizers:   nodus.dev/billing
State:        Suspended
Phase:        Queued
Cost:         $0.00 of $5.00 max
Spec:
  Image:          nodus/pytorch:2.8-cuda12.8
  Command:
    python
    train.py
  Max Cost USD:   5.00
  State:          Suspended
  Backoff Limit:  0
Status:
  Phase:  Queued
Events:
  Type     Reason          Age    From    Message
  ----     ------          ---    ----    -------
  Normal   Created         <age>  nodus   created by emulator-user
EOF
    run -0 --separate-stderr nodus describe job train-a --show-events=false
    refute_line --partial "Events"
    assert_line "  Phase:  Queued"
}

@test "get events.events.k8s.io: the Events in the events.k8s.io shape; get event NAME" {
    run -0 --separate-stderr nodus get events.events.k8s.io --field-selector regarding.name=train-a \
        -o jsonpath='{range .items[*]}{.apiVersion} {.regarding.kind}/{.regarding.name} {.reason}: {.note}{"\n"}{end}'
    assert_output "events.k8s.io/v1 Job/train-a Created: created by emulator-user"
    run -0 --separate-stderr nodus get events --field-selector involvedObject.name=train-a -o name
    [[ "$output" =~ ^event/train-a\.[0-9a-f]+$ ]]
    run -0 --separate-stderr nodus get "$output" -o jsonpath='{.involvedObject.name} {.reason}'
    assert_output "train-a Created"
}

@test "describe: status as Nodus wrote it, cost against the limit, conditions" {
    project desc2
    job running desc2
    emu PATCH "$API/desc2/jobs/running/status" '{"status":{"phase":"Running","costUSD":"1.25",
        "rateUSDPerHour":"2.49","conditions":[{"type":"Ready","status":"True","reason":"Started",
        "message":"running on the market","lastTransitionTime":"2026-01-02T03:04:05Z"}]}}' \
        application/merge-patch+json
    run -0 --separate-stderr nodus describe job running --show-events=false -n desc2
    run -0 sed -E 's/^(  Ready +True +Started +)[0-9a-z]+ +/\1<age>  /' <<<"$output"
    run -0 sed -n '/^Phase:/,$p' <<<"$output"
    assert_output - <<'EOF'
Phase:        Running
Cost:         $1.25 of $5.00 max
Spec:
  Image:          nodus/pytorch:2.8-cuda12.8
  Command:
    python
    train.py
  Max Cost USD:   5.00
  State:          Suspended
  Backoff Limit:  0
Status:
  Phase:              Running
  Cost USD:           1.25
  Rate USD Per Hour:  2.49
Conditions:
  Type                Status  Reason              Age    Message
  ----                ------  ------              ---    -------
  Ready               True    Started             <age>  running on the market
EOF
}

@test "describe: a Job with a controlling owner shows Controlled By, its owner Owns" {
    run -0 --separate-stderr nodus describe job/nightly-manual
    run -0 mask_describe <<<"$output"
    assert_line --index 0 "Name:           nightly-manual"
    assert_line "Annotations:    <none>"
    assert_line "Controlled By:  Pipeline/nightly"
    assert_line "Finalizers:     nodus.dev/billing"
    run -0 --separate-stderr nodus describe pipeline nightly
    run -0 mask_describe <<<"$output"
    assert_line --index 0 "Name:         nightly"
    assert_line "Kind:         Pipeline (nodus.dev/v1)"
    refute_line --partial "Controlled By"
    # the owned objects, after Status, before Events
    run -0 sed -n '/^Status:/,/^Events:/p' <<<"$output"
    assert_output - <<'EOF'
Status:
  Phase:  Queued
Owns:
  job.nodus.dev/nightly-manual (Queued)
Events:
EOF
    run -0 --separate-stderr nodus describe job train-a
    refute_line --partial "Owns:"
    refute_line --partial "Controlled By"
}

@test "describe: several objects, selectors, a blank line between them" {
    run -0 --separate-stderr nodus describe jobs
    run -0 grep -c '^Name:' <<<"$output"
    assert_output 2
    run -0 --separate-stderr nodus describe jobs -l tier=gold --show-events=false
    assert_line --index 0 "Name:         train-a"
    run -0 grep -c '^Name:' <<<"$output"
    assert_output 1
    run -0 --separate-stderr nodus describe job/train-a pipeline/nightly --show-events=false
    run -0 grep -n -e '^Name:' -e '^$' <<<"$output"
    assert_output - <<'EOF'
1:Name:         train-a
25:
26:Name:         nightly
EOF
}

@test "describe: errors and empty results" {
    run -3 --separate-stderr nodus describe job nope
    assert_output ""
    assert_equal "$(sed -n 1p <<<"$stderr")" 'Error from server (NotFound): jobs.nodus.dev "nope" not found'
    assert_equal "$(sed -n 2p <<<"$stderr")" "fix: list what exists: nodus get jobs -n desc"
    [[ "$(sed -n 4p <<<"$stderr")" =~ ^requestId:\ req_[0-9a-z]{26}$ ]]
    run -2 --separate-stderr nodus describe frobs
    assert_equal "$(sed -n 1p <<<"$stderr")" 'error: the server doesn'\''t have a resource type "frobs"'
    run -2 --separate-stderr nodus describe
    assert_equal "$stderr" 'error: You must specify the type of resource to describe. Use "nodus api-resources" for a complete list of supported resources.
See '\''nodus describe --help'\'' for usage.'
    run -0 --separate-stderr nodus describe jobs -n empty
    assert_output ""
    assert_equal "$stderr" "No resources found in empty namespace."
}

@test "get -w: the list, then each change a concurrent writer makes" {
    project w1
    job seed w1
    watch_bg "$BATS_TEST_TMPDIR/w" get jobs -w -n w1
    wait_for_line "$WATCH_OUT" '^seed '
    wait_for_watches 1
    job new w1
    wait_for_line "$WATCH_OUT" '^new '
    # a change the row does not show (a label) prints nothing (quiet: see 24-output)
    emu PATCH "$API/w1/jobs/new" '{"metadata":{"labels":{"x":"y"}}}' application/merge-patch+json
    emu DELETE "$API/w1/jobs/new"
    wait_for_line "$WATCH_OUT" '^new +Suspended +Cancelling'
    stop_watch
    run -0 mask_age_last "$WATCH_OUT"
    assert_output - <<'EOF'
NAME   STATE       PHASE          GPU   COST      AGE
seed   Suspended   Queued         -     -         <age>
new    Suspended   Queued         -     -         <age>
new    Suspended   Cancelling     -     -         <age>
EOF
    assert_equal "$(cat "$WATCH_OUT.err")" ""
}

@test "get -w NAME: one object's changes only" {
    project w1n
    job one w1n
    job other w1n
    watch_bg "$BATS_TEST_TMPDIR/w" get job one -w -n w1n -o name
    wait_for_line "$WATCH_OUT" '^job.nodus.dev/one$'
    wait_for_watches 1
    emu PATCH "$API/w1n/jobs/other" '{"metadata":{"labels":{"x":"y"}}}' application/merge-patch+json
    emu PATCH "$API/w1n/jobs/one" '{"metadata":{"labels":{"x":"y"}}}' application/merge-patch+json
    wait_for_count "$WATCH_OUT" '^job.nodus.dev/one$' 2
    sleep 0.3 # kept: a bounded look for a line that must not come (other's change, a repeat)
    stop_watch
    run -0 cat "$WATCH_OUT"
    assert_output - <<'EOF'
job.nodus.dev/one
job.nodus.dev/one
EOF
}

@test "get --watch-only: changes only, the header with the first one" {
    project w2
    job seed w2
    watch_bg "$BATS_TEST_TMPDIR/w" get jobs --watch-only -n w2
    wait_for_watches 1
    sleep 0.2 # kept: a bounded look for what must not come before a change (seed, a header)
    assert_equal "$(cat "$WATCH_OUT")" ""
    job new w2
    wait_for_line "$WATCH_OUT" '^new '
    stop_watch
    run -0 mask_age_last "$WATCH_OUT"
    assert_output - <<'EOF'
NAME   STATE       PHASE          GPU   COST      AGE
new    Suspended   Queued         -     -         <age>
EOF
}

@test "get -w --output-watch-events: an EVENT column; JSON events one per line" {
    project w3
    job seed w3
    watch_bg "$BATS_TEST_TMPDIR/w" get jobs -w --output-watch-events -n w3
    local json=$BATS_TEST_TMPDIR/j json_pid
    nodus get jobs -w --output-watch-events -o json -n w3 >"$json" 2>"$json.err" 3>&- &
    json_pid=$!
    wait_for_watches 2
    job new w3
    emu PATCH "$API/w3/jobs/new" '{"metadata":{"labels":{"x":"y"}}}' application/merge-patch+json
    emu DELETE "$API/w3/jobs/new"
    wait_for_line "$WATCH_OUT" '^DELETED '
    wait_for_line "$json" '"type":"DELETED"'
    stop_watch
    kill "$json_pid"
    wait "$json_pid" 2>/dev/null || true
    run -0 mask_age_last "$WATCH_OUT"
    assert_output - <<'EOF'
EVENT      NAME   STATE       PHASE          GPU   COST      AGE
ADDED      seed   Suspended   Queued         -     -         <age>
ADDED      new    Suspended   Queued         -     -         <age>
MODIFIED   new    Suspended   Queued         -     -         <age>
DELETED    new    Suspended   Cancelling     -     -         <age>
EOF
    # kubectl's shape: compact, "type" then "object", the object's keys sorted
    run -0 jq -rc '[.type, .object.kind, .object.metadata.name, (.object.metadata.labels.x // "-")]
                   | join(" ")' "$json"
    assert_output - <<'EOF'
ADDED Job seed -
ADDED Job new -
MODIFIED Job new y
DELETED Job new y
EOF
    assert_equal "$(wc -l <"$json")" 4
    run -0 cut -c1-50 "$json"
    assert_line --index 0 '{"type":"ADDED","object":{"apiVersion":"nodus.dev/'
    assert_equal "$(cat "$json.err" "$WATCH_OUT.err")" ""
}

@test "get -w -o yaml: each object a document, separated by ---" {
    project w3y
    job seed w3y
    watch_bg "$BATS_TEST_TMPDIR/w" get jobs -w -o yaml -n w3y
    wait_for_line "$WATCH_OUT" '^  name: seed$'
    wait_for_watches 1
    job new w3y
    wait_for_line "$WATCH_OUT" '^  name: new$'
    stop_watch
    run -0 grep -E '^(---|apiVersion:|kind:|  name:)' "$WATCH_OUT"
    assert_output - <<'EOF'
apiVersion: nodus.dev/v1
kind: Job
  name: seed
---
apiVersion: nodus.dev/v1
kind: Job
  name: new
EOF
}

@test "get -w survives the server dropping the stream: resumes where it was" {
    project w4
    job seed w4
    watch_bg "$BATS_TEST_TMPDIR/w" get jobs -w -n w4
    wait_for_line "$WATCH_OUT" '^seed '
    wait_for_watches 1
    local port
    port=$(cat "$BATS_FILE_TMPDIR/port")
    # the same state and port: a stopped server, then a new one
    stop_emulator
    kill -0 "$WATCH_PID"
    start_emulator --no-simulation --listen "127.0.0.1:$port"
    wait_for_watches 1
    job new w4
    wait_for_line "$WATCH_OUT" '^new '
    sleep 0.2 # kept: a bounded look for a line that must not come (one printed twice)
    stop_watch
    # nothing printed twice (it resumed from the last version it saw), no error
    run -0 mask_age_last "$WATCH_OUT"
    assert_output - <<'EOF'
NAME   STATE       PHASE          GPU   COST      AGE
seed   Suspended   Queued         -     -         <age>
new    Suspended   Queued         -     -         <age>
EOF
    assert_equal "$(cat "$WATCH_OUT.err")" ""
}

@test "get -w lists again after 410 Expired, then keeps watching" {
    project w5
    job seed w5
    watch_bg "$BATS_TEST_TMPDIR/w" get jobs -w --output-watch-events -n w5
    wait_for_line "$WATCH_OUT" '^ADDED +seed '
    wait_for_watches 1
    local port
    port=$(cat "$BATS_FILE_TMPDIR/port")
    # the watcher cannot reconnect while the server forgets the point it watches from
    kill -STOP "$WATCH_PID"
    stop_emulator
    start_emulator --no-simulation --listen "127.0.0.1:$port"
    # a change the watcher misses, then 25 hours: the history to resume from is gone
    job early w5
    emu POST /emulator/v1/clock '{"advance":"25h"}'
    job late w5
    kill -CONT "$WATCH_PID"
    wait_for_line "$WATCH_OUT" '^ADDED +late '
    wait_for_watches 1
    job later w5
    wait_for_line "$WATCH_OUT" '^ADDED +later '
    stop_watch
    run -0 mask_age_last "$WATCH_OUT"
    assert_output - <<'EOF'
EVENT      NAME   STATE       PHASE          GPU   COST      AGE
ADDED      seed   Suspended   Queued         -     -         <age>
ADDED      early   Suspended   Queued         -     -         <age>
ADDED      late    Suspended   Queued         -     -         <age>
ADDED      later   Suspended   Queued         -     -         <age>
EOF
    # the relisted objects as one block; the seed, which looks as it did (its AGE aside),
    # is not printed again
    run -0 grep -Ec '^ADDED +seed ' "$WATCH_OUT"
    assert_output 1
    assert_equal "$(cat "$WATCH_OUT.err")" ""
}
