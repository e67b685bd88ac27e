#!/usr/bin/env bats
# Quiet, true output: "did you mean" for verbs, kinds and flags; `get -w` prints a row
# only when what it shows changed, with columns that keep their place; describe hides
# the emulator's bookkeeping and shows times as times; a wait longer than a second says
# what it waits for on a terminal, and nothing when stderr is not one.

load ../lib/common
load ../lib/watch

bats_require_minimum_version 1.5.0

API=/apis/nodus.dev/v1/namespaces

setup_file() {
    start_emulator
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$EMU_URL
    mkdir -p "$HOME"
}

teardown_file() {
    stop_emulator
}

setup() {
    unset NODUS_CONFIG KUBECONFIG NODUS_TOKEN NO_COLOR
    export NODUS_SERVER=$(emu_url)
    WATCH_PID=
}

teardown() {
    if [ -n "$WATCH_PID" ]; then
        kill "$WATCH_PID" 2>/dev/null || true
        wait "$WATCH_PID" 2>/dev/null || true
    fi
    [ -n "${BATS_TEST_COMPLETED:-}" ] && return 0
    if [ -n "${WATCH_OUT:-}" ]; then
        echo "--- watch output:"
        cat -A "$WATCH_OUT" || true
        cat "$WATCH_OUT.err" || true
    fi
}

project() {
    curl -sSf -o /dev/null -H 'Content-Type: application/json' \
        --data-binary "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$1\"}}" \
        "$(emu_url)/api/v1/namespaces"
}

# A Job NAME in project PROJECT, one H100 unless SPEC (a JSON object) says otherwise.
job() {
    local spec=${3:-'{"resources":{"gpu":{"model":"H100","count":1}}}'}
    curl -sSf -o /dev/null -H 'Content-Type: application/json' \
        --data-binary "$(job_json "$1" "$spec")" "$(emu_url)$API/$2/jobs"
}

# Waits until the emulator has delivered every event so far to its watchers: a marker
# object in project $1, then its line in FILE.
sync_watch() {
    local file=$1 ns=$2 marker=$3
    job "$marker" "$ns"
    wait_for_line "$file" "^$marker "
}

mask_age_last() {
    sed -E 's/ [0-9]+[smhd][0-9smhd]*$/ <age>/' "$1"
}

# ---- did you mean ----

@test "did you mean: an unknown verb lists the verbs within two edits, as cobra" {
    run -2 --separate-stderr nodus gte jobs
    assert_output ""
    assert_equal "$stderr" 'error: unknown command "gte" for "nodus"

Did you mean this?
	get

Run '\''nodus --help'\'' for usage.'
    run -2 --separate-stderr nodus dleete job x
    assert_equal "${stderr_lines[2]}" $'\tdelete'
    # or that it begins
    run -2 --separate-stderr nodus api-r
    assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c $'^\t')" 1
    assert_equal "${stderr_lines[2]}" $'\tapi-resources'
    # nothing close: no list
    run -2 --separate-stderr nodus frobnicate
    assert_equal "$stderr" 'error: unknown command "frobnicate" for "nodus"
Run '\''nodus --help'\'' for usage.'
}

@test "did you mean: an unknown kind suggests the closest name, in the form typed" {
    run -2 --separate-stderr nodus get jbos
    assert_equal "$stderr" 'error: the server doesn'\''t have a resource type "jbos"
fix: did you mean jobs? list the kinds: nodus api-resources'
    run -2 --separate-stderr nodus describe sandbx/dev
    assert_equal "${stderr_lines[1]}" 'fix: did you mean sandbox? list the kinds: nodus api-resources'
    run -2 --separate-stderr nodus get jobs,piplines
    assert_equal "${stderr_lines[1]}" 'fix: did you mean pipelines? list the kinds: nodus api-resources'
    run -2 --separate-stderr nodus get jbos.nodus.dev
    assert_equal "${stderr_lines[1]}" 'fix: did you mean jobs.nodus.dev? list the kinds: nodus api-resources'
    run -2 --separate-stderr nodus get proejcts
    assert_equal "${stderr_lines[1]}" 'fix: did you mean projects? list the kinds: nodus api-resources'
    # the kinds the server serves (explain reads discovery)
    run -2 --separate-stderr nodus explain poolactons.spec
    assert_equal "$stderr" 'error: the server doesn'\''t have a resource type "poolactons"
fix: did you mean poolactions? list the kinds: nodus api-resources'
    # nothing close: kubectl's message alone
    run -2 --separate-stderr nodus get frobnications
    assert_equal "$stderr" 'error: the server doesn'\''t have a resource type "frobnications"
fix: list the kinds: nodus api-resources'
}

@test "did you mean: an unknown flag suggests the verb's and the global flags" {
    run -2 --separate-stderr nodus get jobs --wach
    assert_equal "$stderr" "error: unknown flag: --wach
fix: did you mean --watch? see 'nodus get --help' for the flags"
    run -2 --separate-stderr nodus delete job x --cascde=orphan
    assert_equal "${stderr_lines[1]}" "fix: did you mean --cascade? see 'nodus delete --help' for the flags"
    run -2 --separate-stderr nodus get jobs --projct x
    assert_equal "${stderr_lines[1]}" "fix: did you mean --project? see 'nodus get --help' for the flags"
    run -2 --separate-stderr nodus get jobs --frobnicate
    assert_equal "$stderr" "error: unknown flag: --frobnicate
fix: see 'nodus get --help' for the flags"
}

# ---- get -w ----

@test "get -w: a cost tick that leaves COST as shown prints nothing; one that moves it a row" {
    project q1
    job cheap q1 '{"resources":{"gpu":{"model":"L4","count":1}}}' # $0.39 an hour
    watch_bg "$BATS_TEST_TMPDIR/w" get jobs -w -n q1
    local json=$BATS_TEST_TMPDIR/j json_pid
    nodus get jobs -w -n q1 --output-watch-events -o json >"$json" 2>/dev/null 3>&- &
    json_pid=$!
    wait_for_line "$WATCH_OUT" '^cheap '
    wait_for_watches 2
    clock_advance 5m # Queued -> Provisioning -> Running
    local i
    for i in $(seq 1 10); do clock_advance 1m; done # a tick a minute, Succeeded, the final charge
    # a marker after the last event: both watchers have seen every event of the Job
    sync_watch "$WATCH_OUT" q1 zz-marker
    wait_for_line "$json" '"name":"zz-marker"'
    kill "$json_pid"
    wait "$json_pid" 2>/dev/null || true
    stop_watch
    # every event, as -o json shows them: 14 for the Job
    assert_equal "$(jq -r 'select(.object.metadata.name == "cheap") | .type' "$json" | wc -l)" 14
    # the table: only the rows that look different (AGE aside)
    run -0 mask_age_last "$WATCH_OUT"
    assert_output - <<'EOF'
NAME    STATE       PHASE          GPU    COST      AGE
cheap   Running     Queued         1xL4   -         <age>
cheap   Running     Provisioning   1xL4   -         <age>
cheap   Running     Running        1xL4   $0.00     <age>
cheap   Running     Running        1xL4   $0.01     <age>
cheap   Running     Running        1xL4   $0.02     <age>
cheap   Running     Running        1xL4   $0.03     <age>
cheap   Running     Running        1xL4   $0.04     <age>
cheap   Running     Running        1xL4   $0.05     <age>
cheap   Running     Running        1xL4   $0.06     <age>
cheap   Running     Succeeded      1xL4   $0.07     <age>
zz-marker   Running     Queued         1xH100   -         <age>
EOF
    assert_equal "$(cat "$WATCH_OUT.err")" ""
}

@test "get -w: columns keep their place when a longer name or phase arrives" {
    project q2
    job a q2
    watch_bg "$BATS_TEST_TMPDIR/w" get jobs -w -n q2 -o wide
    wait_for_line "$WATCH_OUT" '^a '
    wait_for_watches 1
    job a-much-longer-name q2
    wait_for_line "$WATCH_OUT" '^a-much-longer-name '
    clock_advance 5m
    wait_for_line "$WATCH_OUT" '^a-much-longer-name +Running +Running'
    stop_watch
    # STATE is as wide as Suspended, PHASE as Provisioning and COST as "$000.00" from the
    # first line; NAME grows for the longer name and stays grown
    run -0 cat "$WATCH_OUT"
    assert_line --index 0 --regexp '^NAME   STATE       PHASE          GPU      COST      AGE   '
    assert_line --index 1 --regexp '^a      Running     Queued         1xH100   -         [0-9]'
    assert_line --index 2 --regexp '^a-much-longer-name   Running     Queued         1xH100   -         [0-9]'
    assert_line --index 3 --regexp '^a                    Running     Provisioning   1xH100   -         [0-9]'
    assert_line --index 4 --regexp '^a-much-longer-name   Running     Provisioning   1xH100   -         [0-9]'
}

@test "get -w -o name: a MODIFIED that prints what the previous MODIFIED printed is left out" {
    project q3
    job n q3
    watch_bg "$BATS_TEST_TMPDIR/w" get jobs -w -n q3 -o name
    wait_for_line "$WATCH_OUT" '^job.nodus.dev/n$'
    wait_for_watches 1
    clock_advance 5m
    clock_advance 1m
    clock_advance 1m
    job zz-marker q3
    wait_for_line "$WATCH_OUT" '^job.nodus.dev/zz-marker$'
    stop_watch
    # ADDED, then the first MODIFIED; the MODIFIED after it print the same: left out
    run -0 grep -c '^job.nodus.dev/n$' "$WATCH_OUT"
    assert_output 2
}

# ---- describe ----

@test "describe: no status.simulation, times as times, never raw milliseconds" {
    project d1
    job run d1
    clock_advance 10m
    run -0 --separate-stderr nodus describe job run -n d1
    refute_output --partial "Simulation"
    refute_output --regexp '[0-9]{12,}'
    assert_output --regexp $'\n  Start Time: +[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z\n'
    local k
    for k in pools budgets volumes sandboxes hosts pipelines poolactions functions; do
        run -0 --separate-stderr nodus describe "$k" -A
        refute_output --partial "Simulation"
        refute_output --regexp '[0-9]{12,}'
    done
}

# ---- waits that speak ----

@test "delete: on a terminal a wait past a second says what it waits for, then erases it" {
    project t1
    job final t1
    clock_advance 5m
    local out=$BATS_TEST_TMPDIR/tty
    # script gives nodus a terminal; the final charge waits for the emulator's clock
    script -qfec "nodus delete job final -n t1" "$out" >/dev/null 2>&1 3>&- &
    local pid=$!
    wait_for_line "$out" 'waiting for job/final'
    clock_advance 1m
    wait "$pid"
    run -0 bash -c 'grep -a "waiting for" "$1" | cat -v' _ "$out"
    assert_output '^M^[[Kwaiting for job/final: the final charge (finalizer nodus.dev/billing) ...^M^[[K'
    run -0 grep -ac 'job.nodus.dev "final" deleted' "$out"
}

@test "wait: on a terminal it says what it waits for; without one it says nothing" {
    project t2
    job w t2
    local out=$BATS_TEST_TMPDIR/tty
    script -qfec "nodus wait job/w -n t2 --for=condition=Ready --timeout=1m" "$out" \
        >/dev/null 2>&1 3>&- &
    local pid=$!
    wait_for_line "$out" 'waiting for job/w'
    clock_advance 5m
    wait "$pid"
    run -0 bash -c 'grep -a "waiting for" "$1" | cat -v' _ "$out"
    # the line is rewritten as the phase moves (Provisioning, Running), erased at the end
    assert_output --regexp '^\^M\^\[\[Kwaiting for job/w: --for=condition=Ready \(phase Queued\) \.\.\.(\^M\^\[\[Kwaiting for job/w: [^^]*)*\^M\^\[\[Kjob\.nodus\.dev/w condition met\^M$'
    # not a terminal: only the result
    job w2 t2
    nodus wait job/w2 -n t2 --for=condition=Ready --timeout=1m >"$out" 2>"$out.err" 3>&- &
    pid=$!
    local i
    for i in $(seq 1 15); do sleep 0.1; done # kept: past the second after which a terminal
    # hears (the behaviour under test: nothing but the result on a file)
    clock_advance 5m
    wait "$pid"
    assert_equal "$(cat "$out")" "job.nodus.dev/w2 condition met"
    assert_equal "$(cat "$out.err")" ""
}

@test "logs -f: on a terminal it says it waits for a Queued Job's first line, erased when one comes" {
    project t3
    job l t3 '{"resources":{"gpu":{"model":"H100","count":1}},"maxDuration":"10m"}'
    local out=$BATS_TEST_TMPDIR/tty
    script -qfec "nodus logs -f job/l -n t3" "$out" >/dev/null 2>&1 3>&- &
    local pid=$!
    wait_for_line "$out" 'waiting for job/l'
    clock_advance 2h
    wait "$pid" || true
    run -0 bash -c 'grep -a "waiting for" "$1" | cat -v' _ "$out"
    # the line, then erased before the first log line
    assert_output --regexp '^\^M\^\[\[Kwaiting for job/l: its first log line \(phase Queued\) \.\.\.\^M\^\[\[K\[nodus\] '
    # not a terminal: the log only
    job l2 t3 '{"resources":{"gpu":{"model":"H100","count":1}},"maxDuration":"10m"}'
    nodus logs -f job/l2 -n t3 >"$out" 2>"$out.err" 3>&- &
    pid=$!
    local i
    for i in $(seq 1 15); do sleep 0.1; done # kept: past the second after which a terminal
    # hears (the behaviour under test: nothing but the result on a file)
    clock_advance 2h
    wait "$pid" || true
    run -0 head -c 7 "$out"
    assert_output "[nodus]"
    run -1 grep -c "waiting for" "$out" "$out.err"
    assert_output "$out:0
$out.err:0"
}
