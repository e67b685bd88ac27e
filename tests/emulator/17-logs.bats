#!/usr/bin/env bats
# The log subresource: the simulated log of Jobs and Sandboxes on the emulator's clock
# (it grows as the clock moves, the same every time), the query parameters of
# Kubernetes' pod log (tailLines, sinceSeconds, sinceTime, timestamps, limitBytes,
# follow), and --runtime local, where a Job's command really runs. The clock stands
# still (--speed 0) and moves only when a test advances it; only real processes are
# waited for.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs
SBX=/apis/nodus.dev/v1/namespaces/default/sandboxes
MERGE=(-H 'Content-Type: application/merge-patch+json')
TS='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z'
STEP='step [0-9]+/[0-9]+ \| loss [0-9]+\.[0-9]{4} \| lr [0-9]\.[0-9]e-0[0-9] \| [0-9]+\.[0-9] samples/s'

now_ms() {
    curl -sf "$(emu_url)/emulator/v1/clock" | jq -r .nowMs
}

# A Job running DURATION (simulated) with an H100, and extra annotations.
sim_job() {
    local name=$1 duration=$2 ann=${3:-'{}'}
    job_json "$name" '{"resources":{"gpu":{"model":"H100","count":1}}}' |
        jq -c --arg d "$duration" --argjson a "$ann" \
            '.metadata.annotations = ({"emulator.nodus.dev/duration": $d} + $a)'
}

# A Job running a local command (a JSON array).
cmd_job() {
    job_json "$1" "$(jq -cn --argjson c "$2" '{command: $c}')"
}

# The log of a Job (or of PATH when it starts with /) with a query, to stdout.
log() {
    local path=$1
    [[ $path == /* ]] || path=$JOBS/$path
    curl -sf "$(emu_url)$path/log$2"
}

# RFC 3339 with nanoseconds -> ms since the epoch.
ts_ms() {
    echo $(($(date -u -d "$1" +%s%N) / 1000000))
}

# Waits (real time, at most 10 s) until FILE holds a line matching the regex.
wait_line() {
    wait_until grep -qE -- "$2" "$1" 2>/dev/null && return 0
    echo "no line matching '$2' in $1:" >&2
    cat "$1" >&2
    return 1
}

# Waits (real time, at most 10 s) until the Job's phase is PHASE.
wait_phase() {
    wait_until phase_is "$1" "$2" 2>/dev/null && return 0
    curl -sf "$(emu_url)$JOBS/$1" | jq -c .status >&2
    return 1
}

lines_are() { # FILE N
    [ "$(wc -l <"$1")" = "$2" ]
}

phase_is() { # JOB PHASE
    [ "$(curl -sf "$(emu_url)$JOBS/$1" | jq -r .status.phase)" = "$2" ]
}

# Fails when the emulator's stderr shows a sanitizer report (builds with ASan/UBSan).
no_sanitizer_reports() {
    if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error" "$BATS_FILE_TMPDIR/emulator.err"; then
        cat "$BATS_FILE_TMPDIR/emulator.err" >&2
        return 1
    fi
}

@test "a Job that has not started has no log yet: BadRequest, with a fix" {
    http POST $JOBS "$(sim_job early 5m)"
    [ "$CODE" = 201 ]
    http GET $JOBS/early/log
    [ "$CODE" = 400 ]
    body_is .reason BadRequest \
        .message 'job "early" has not started yet (phase Queued): there is no log until it runs' \
        .fix 'follow it to see the log once it runs: nodus logs -f job/early' \
        .details.name early
    # one that ends without having run has an empty log
    http POST $JOBS "$(sim_job never 5m)"
    http PATCH $JOBS/never '{"spec":{"state":"Cancelled"}}' "${MERGE[@]}"
    clock_advance 0s # the controller acts on it now
    [ "$(curl -sf "$(emu_url)$JOBS/never" | jq -r .status.phase)" = Cancelled ]
    http GET $JOBS/never/log
    [ "$CODE" = 200 ]
    [ ! -s "$BODY" ]
    run curl -sfN "$(emu_url)$JOBS/never/log?follow=true"
    [ "$status" = 0 ]
    [ "$output" = "" ]
}

@test "a missing object, or a kind without a log, is NotFound; only GET is served" {
    http GET $JOBS/nope/log
    [ "$CODE" = 404 ]
    [ "$(body_json .message)" = 'jobs.nodus.dev "nope" not found' ]
    http GET /apis/nodus.dev/v1/namespaces/default/volumes/v/log
    [ "$CODE" = 404 ]
    body_is .reason NotFound .message "the server could not find the requested resource"
    http GET /apis/nodus.dev/v1/namespaces/default/budgets/b/log
    [ "$CODE" = 404 ]
    http POST $JOBS/early/log '{}'
    [ "$CODE" = 405 ]
    [ "$(body_json .reason)" = MethodNotAllowed ]
    http GET "$JOBS/early/log?previous=true"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "previous: a job keeps the log of its last run only" ]
}

@test "the simulated log grows with the clock: the pull and start at Running, a line per minute, the exit" {
    http POST $JOBS "$(sim_job grow 5m)"
    clock_advance 34s
    http GET $JOBS/grow/log
    [ "$CODE" = 400 ] # Provisioning
    clock_advance 1s
    http GET $JOBS/grow/log
    [ "$CODE" = 200 ]
    [ "$(header Content-Type)" = text/plain ]
    mapfile -t l <"$BODY"
    [ "${#l[@]}" = 4 ]
    [ "${l[0]}" = "[nodus] pulling image nodus/pytorch:2.8-cuda12.8" ]
    digest=$(curl -sf "$(emu_url)/apis/nodus.dev/v1/namespaces/nodus/images/pytorch" |
        jq -r '.spec.tags[] | select(.tag == "2.8-cuda12.8") | .digest')
    [ "${l[1]}" = "[nodus] pulled image nodus/pytorch:2.8-cuda12.8@$digest" ]
    [ "${l[2]}" = "[nodus] starting on market, 1x H100: python train.py" ]
    [[ ${l[3]} =~ ^training:\ [0-9]+\ steps,\ batch\ size\ [0-9]+$ ]]
    clock_advance 59s
    [ "$(log grow | wc -l)" = 4 ]
    clock_advance 1s
    run log grow
    [ "${#lines[@]}" = 5 ]
    [[ ${lines[4]} =~ ^$STEP$ ]]
    # every line is stamped with the emulated time it was printed: none after now, and
    # the first progress line exactly one minute after the start
    run log grow '?timestamps=true'
    now=$(now_ms)
    for line in "${lines[@]}"; do
        [ "$(ts_ms "${line%% *}")" -le "$now" ]
    done
    [ $(($(ts_ms "${lines[4]%% *}") - $(ts_ms "${lines[0]%% *}"))) = 60000 ]
    clock_advance 4m
    [ "$(curl -sf "$(emu_url)$JOBS/grow" | jq -r .status.phase)" = Succeeded ]
    run log grow
    [ "${#lines[@]}" = 12 ]
    [ "$(printf '%s\n' "${lines[@]}" | grep -cE "^$STEP$")" = 5 ]
    [[ ${lines[9]} =~ ^saved\ checkpoint\ step-[0-9]+$ ]]
    [[ ${lines[10]} =~ ^training\ finished:\ [0-9]+\ steps,\ final\ loss\ [0-9.]+$ ]]
    [ "${lines[11]}" = "[nodus] the command exited with code 0" ]
    clock_advance 10m
    [ "$(log grow | wc -l)" = 12 ] # an ended Job prints nothing more
}

@test "the simulated log is deterministic: the same bytes on every read, and the same lines for the same spec" {
    log grow '?timestamps=true' >"$BATS_TEST_TMPDIR/a"
    log grow '?timestamps=true' >"$BATS_TEST_TMPDIR/b"
    cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
    # another Job of the same spec prints the same lines; only the uid-seeded numbers differ
    http POST $JOBS "$(sim_job twin 5m)"
    clock_advance 35s
    clock_advance 5m
    diff <(log grow | sed 's/[0-9]/N/g; s/NN*/N/g') <(log twin | sed 's/[0-9]/N/g; s/NN*/N/g')
    run cmp -s <(log grow) <(log twin)
    [ "$status" = 1 ]
}

@test "tailLines: the last N lines; 0 none; negative is Invalid, not a number BadRequest" {
    log grow >"$BATS_TEST_TMPDIR/all"
    [ "$(log grow '?tailLines=2')" = "$(tail -n 2 "$BATS_TEST_TMPDIR/all")" ]
    [ "$(log grow '?tailLines=1')" = "[nodus] the command exited with code 0" ]
    [ "$(log grow '?tailLines=0' | wc -c)" = 0 ]
    log grow '?tailLines=500' | cmp - "$BATS_TEST_TMPDIR/all"
    http GET "$JOBS/grow/log?tailLines=-1"
    [ "$CODE" = 422 ]
    body_is .reason Invalid \
        .message "tailLines: Invalid value: -1: must be greater than or equal to 0" \
        '.details.causes[0].field' tailLines
    http GET "$JOBS/grow/log?tailLines=ten"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = 'invalid value for query parameter tailLines: "ten" (want a whole number: strconv.ParseInt: invalid syntax)' ]
}

@test "timestamps: RFC 3339 with nine fraction digits and a space before each line" {
    run log grow '?timestamps=true'
    [ "${#lines[@]}" = 12 ]
    for line in "${lines[@]}"; do
        [[ $line =~ ^$TS\ . ]]
    done
    diff <(log grow '?timestamps=true' | cut -d' ' -f2-) <(log grow)
    # in time order
    log grow '?timestamps=true' | cut -d' ' -f1 | sort -c
}

@test "sinceSeconds and sinceTime keep the lines printed since; both at once is Invalid" {
    http POST $JOBS "$(sim_job since 5m)"
    clock_advance 35s
    clock_advance 5m # now is the end of the run
    [ "$(curl -sf "$(emu_url)$JOBS/since" | jq -r .status.phase)" = Succeeded ]
    run log since '?sinceSeconds=59'
    [ "${#lines[@]}" = 4 ] # the last progress line, its checkpoint, the end
    [[ ${lines[0]} =~ ^step\ ([0-9]+)/([0-9]+)\  ]]
    [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
    [ "${lines[3]}" = "[nodus] the command exited with code 0" ]
    [ "$(log since '?sinceSeconds=60' | wc -l)" = 5 ]
    [ "$(log since '?sinceSeconds=1000000' | wc -l)" = 12 ]
    # from the time of the third progress line on
    t3=$(log since '?timestamps=true' | grep -E " $STEP$" | sed -n 3p | cut -d' ' -f1)
    run log since "?sinceTime=$t3"
    [ "${#lines[@]}" = 6 ]
    [[ ${lines[0]} =~ ^$STEP$ ]]
    [ "$(log since '?sinceTime=2999-01-01T00:00:00Z' | wc -c)" = 0 ]
    [ "$(log since '?sinceTime=2000-01-01T00:00:00Z' | wc -l)" = 12 ]
    http GET "$JOBS/since/log?sinceSeconds=10&sinceTime=2000-01-01T00:00:00Z"
    [ "$CODE" = 422 ]
    [ "$(body_json .message)" = 'at most one of `sinceTime` or `sinceSeconds` may be specified' ]
    http GET "$JOBS/since/log?sinceSeconds=0"
    [ "$CODE" = 422 ]
    [ "$(body_json .message)" = "sinceSeconds: Invalid value: 0: must be greater than 0" ]
    http GET "$JOBS/since/log?sinceTime=yesterday"
    [ "$CODE" = 400 ]
    [ "$(body_json .reason)" = BadRequest ]
    [[ $(body_json .message) == 'sinceTime: invalid time "yesterday"'* ]]
}

@test "limitBytes: at most that many bytes, cut inside a line; timestamps count" {
    [ "$(log grow '?limitBytes=10')" = "[nodus] pu" ]
    [ "$(log grow '?limitBytes=10' | wc -c)" = 10 ]
    log grow '?limitBytes=10&timestamps=true' | grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
    [ "$(log grow '?limitBytes=1000000' | wc -c)" = "$(log grow | wc -c)" ]
    [ "$(log grow '?tailLines=1&limitBytes=7')" = "[nodus]" ]
    http GET "$JOBS/grow/log?limitBytes=0"
    [ "$CODE" = 422 ]
    [ "$(body_json .message)" = "limitBytes: Invalid value: 0: must be greater than 0" ]
}

@test "follow streams new lines as the clock moves and ends by itself when the Job ends" {
    http POST $JOBS "$(sim_job follow 3m)"
    out=$BATS_TEST_TMPDIR/follow
    # the Job has not started: the stream waits for it
    curl -sN "$(emu_url)$JOBS/follow/log?follow=true" >"$out" 2>&1 3>&- &
    pid=$!
    # kept: a bounded look for output that must not come before the Job starts (the
    # stream stays open and silent)
    sleep 0.3
    [ ! -s "$out" ]
    kill -0 "$pid"
    clock_advance 35s
    wait_line "$out" '^training: '
    [ "$(wc -l <"$out")" = 4 ]
    clock_advance 1m
    wait_line "$out" "^$STEP$"
    [ "$(wc -l <"$out")" = 5 ]
    kill -0 $pid # still following
    clock_advance 2m
    wait "$pid" # curl ends by itself, successfully
    [ "$(tail -n 1 "$out")" = "[nodus] the command exited with code 0" ]
    cmp "$out" <(log follow)
}

@test "follow with tailLines starts from the last lines; with limitBytes it ends at the limit" {
    http POST $JOBS "$(sim_job tailf 10m)"
    clock_advance 35s
    clock_advance 2m
    out=$BATS_TEST_TMPDIR/tailf
    curl -sN "$(emu_url)$JOBS/tailf/log?follow=true&tailLines=1" >"$out" 3>&- &
    pid=$!
    wait_line "$out" "^$STEP$"
    [ "$(wc -l <"$out")" = 1 ]
    [ "$(cat "$out")" = "$(log tailf '?tailLines=1')" ]
    clock_advance 1m
    wait_until lines_are "$out" 2
    [ "$(cat "$out")" = "$(log tailf '?tailLines=2')" ]
    kill "$pid"
    # a limit ends a followed stream once reached
    run curl -sN "$(emu_url)$JOBS/tailf/log?follow=true&limitBytes=12"
    [ "$status" = 0 ]
    [ "$output" = "[nodus] pull" ]
}

@test "a followed Job that is deleted ends the stream; a followed Sandbox ends when it stops" {
    http POST $JOBS "$(sim_job gone 10m)"
    clock_advance 35s
    out=$BATS_TEST_TMPDIR/gone
    curl -sN "$(emu_url)$JOBS/gone/log?follow=true" >"$out" 3>&- &
    pid=$!
    wait_line "$out" '^training: '
    http DELETE $JOBS/gone
    wait "$pid"
    [ "$(tail -n 1 "$out")" = "[nodus] the command stopped" ]
    grep -qx '\[nodus\] stopping the command (SIGTERM): the Job is being deleted' "$out"

    http POST $SBX '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"dev"},"spec":{"image":"nodus/python:3.12","command":["/bin/bash"],"maxCostUSD":"10.00","idleTimeout":"1h"}}'
    [ "$CODE" = 201 ]
    clock_advance 12s
    run log $SBX/dev
    [ "${#lines[@]}" = 4 ]
    [ "${lines[0]}" = "[nodus] pulling image nodus/python:3.12" ]
    [ "${lines[2]}" = "[nodus] starting: /bin/bash" ]
    [ "${lines[3]}" = "[nodus] ready: open a shell with nodus exec -it sandbox/dev -- bash (stops after 1h without a session)" ]
    out=$BATS_TEST_TMPDIR/sbx
    curl -sN "$(emu_url)$SBX/dev/log?follow=true&tailLines=1" >"$out" 3>&- &
    pid=$!
    wait_line "$out" '^\[nodus\] ready'
    http PATCH $SBX/dev '{"spec":{"state":"Stopped"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    wait "$pid"
    run cat "$out"
    [ "${lines[0]}" = "[nodus] ready: open a shell with nodus exec -it sandbox/dev -- bash (stops after 1h without a session)" ]
    [ "${lines[1]}" = "[nodus] stopping (SIGTERM): spec.state is Stopped" ]
    [ "${lines[2]}" = "[nodus] stopped" ]
    [ "${#lines[@]}" = 3 ]
}

@test "a suspended Job's log says so; resumed, its new run goes on from its checkpoint" {
    http POST $JOBS "$(sim_job pause 10m)"
    clock_advance 35s
    clock_advance 2m
    http PATCH $JOBS/pause '{"spec":{"state":"Suspended"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    clock_advance 0s
    run log pause
    [ "${lines[-3]}" = "[nodus] stopping the command (SIGTERM): the Job was suspended" ]
    [[ ${lines[-2]} =~ ^received\ SIGTERM:\ saved\ checkpoint\ step-[0-9]+$ ]]
    [ "${lines[-1]}" = "[nodus] the command stopped" ]
    step=${lines[-2]##*step-}
    clock_advance 1h # suspended: nothing new
    [ "$(log pause | wc -l)" = "${#lines[@]}" ]
    http PATCH $JOBS/pause '{"spec":{"state":"Running"}}' "${MERGE[@]}"
    clock_advance 35s
    [ "$(curl -sf "$(emu_url)$JOBS/pause" | jq -r .status.phase)" = Running ]
    run log pause
    [ "${#lines[@]}" = 4 ]
    [ "${lines[3]}" = "resuming from checkpoint step-$step" ]
    clock_advance 1m
    run log pause
    [[ ${lines[4]} =~ ^step\ ([0-9]+)/ ]]
    [ "${BASH_REMATCH[1]}" -gt "$step" ]
}

@test "a Job that fails prints the error and its exit code" {
    http POST $JOBS "$(sim_job crash 10m '{"emulator.nodus.dev/fail-at":"2m","emulator.nodus.dev/exit-code":"7"}')"
    clock_advance 35s
    clock_advance 2m
    [ "$(curl -sf "$(emu_url)$JOBS/crash" | jq -r .status.phase)" = Failed ]
    run log crash
    [[ ${lines[-2]} =~ ^RuntimeError:\ CUDA\ error:\ an\ illegal\ memory\ access\ was\ encountered\ \(step\ [0-9]+\)$ ]]
    [ "${lines[-1]}" = "[nodus] the command exited with code 7" ]
}

@test "a restarted emulator serves the same log" {
    log grow '?timestamps=true' >"$BATS_TEST_TMPDIR/before"
    log $SBX/dev '?timestamps=true' >>"$BATS_TEST_TMPDIR/before"
    stop_emulator
    no_sanitizer_reports
    start_emulator
    log grow '?timestamps=true' >"$BATS_TEST_TMPDIR/after"
    log $SBX/dev '?timestamps=true' >>"$BATS_TEST_TMPDIR/after"
    cmp "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
    stop_emulator
    no_sanitizer_reports
}

# ---- --runtime local ----

@test "local: a failing command ends the Job Failed with its exit code, and its output is the log" {
    EMU_STATE=$BATS_FILE_TMPDIR/local start_emulator --runtime local
    http POST $JOBS "$(cmd_job fail '["sh","-c","echo hello; echo to stderr >&2; exit 3"]')"
    clock_advance 35s
    wait_phase fail Failed
    [ "$(curl -sf "$(emu_url)$JOBS/fail" | jq -c '[.status.reason, .status.exitCode]')" = '["Error",3]' ]
    [ "$(log fail)" = $'hello\nto stderr' ]
    log fail '?timestamps=true' | grep -qE "^$TS hello$"
    [ -f "$BATS_FILE_TMPDIR/local/logs/default/jobs/fail.log" ]
}

@test "local: a command that exits 0 Succeeds; it runs in its file tree (its /) with spec.env" {
    job=$(cmd_job ok '["sh","-c","echo \"$GREETING from $PWD as $NODUS_JOB in $NODUS_PROJECT\"; printf no-newline"]' |
        jq -c '.spec.env = [{"name":"GREETING","value":"hi there"}]')
    http POST $JOBS "$job"
    clock_advance 35s
    wait_phase ok Succeeded
    [ "$(curl -sf "$(emu_url)$JOBS/ok" | jq -r .status.exitCode)" = 0 ]
    [ "$(log ok)" = "hi there from / as ok in default
no-newline" ]
}

@test "local: a command that is not found fails with 127 and says so" {
    http POST $JOBS "$(cmd_job missing '["no-such-command-here","x"]')"
    clock_advance 35s
    wait_phase missing Failed
    [ "$(curl -sf "$(emu_url)$JOBS/missing" | jq -r .status.exitCode)" = 127 ]
    [ "$(log missing)" = "[nodus] cannot start: no-such-command-here: command not found" ]
}

@test "local: a suspended Job's process is killed, and a resumed one runs its command again" {
    # the run's processes are the ones in the Job's tree (their $$ is of their own PID namespace)
    local tree=$BATS_FILE_TMPDIR/local/files/default/jobs/sleeper
    http POST $JOBS "$(cmd_job sleeper '["sh","-c","echo run >>runs; echo started; exec sleep 300"]')"
    clock_advance 35s
    wait_phase sleeper Running
    out=$BATS_TEST_TMPDIR/sleeper
    curl -sN "$(emu_url)$JOBS/sleeper/log?follow=true" >"$out" 3>&- &
    wait_line "$out" '^started$'
    run ! tree_idle "$tree"
    http PATCH $JOBS/sleeper '{"spec":{"state":"Suspended"}}' "${MERGE[@]}"
    wait_until tree_idle "$tree"
    wait_line "$out" 'stopping the command \(SIGTERM\): suspended: spec.state is Suspended'
    [ "$(curl -sf "$(emu_url)$JOBS/sleeper" | jq -r .status.phase)" = Queued ]
    http PATCH $JOBS/sleeper '{"spec":{"state":"Running"}}' "${MERGE[@]}"
    clock_advance 35s
    wait_phase sleeper Running
    wait_line "$out" '^started$'
    [ "$(cat "$tree/runs")" = $'run\nrun' ]
    run ! tree_idle "$tree"
    [ "$(log sleeper)" = started ] # the new run's log
    http DELETE $JOBS/sleeper
    wait_until tree_idle "$tree"
}

@test "local: a followed Job's stream ends when its process exits" {
    http POST $JOBS "$(cmd_job waits '["sh","-c","echo first; while [ ! -f go ]; do sleep 0.05; done; echo second"]')"
    clock_advance 35s
    out=$BATS_TEST_TMPDIR/waits
    curl -sN "$(emu_url)$JOBS/waits/log?follow=true" >"$out" 3>&- &
    pid=$!
    wait_line "$out" '^first$'
    [ "$(wc -l <"$out")" = 1 ]
    touch "$BATS_FILE_TMPDIR/local/files/default/jobs/waits/go"
    wait "$pid"
    [ "$(cat "$out")" = $'first\nsecond' ]
    [ "$(curl -sf "$(emu_url)$JOBS/waits" | jq -r .status.phase)" = Succeeded ]
}

@test "local: the log stops at 8 MiB and says so" {
    http POST $JOBS "$(cmd_job loud '["sh","-c","yes 0123456789012345678901234567890123456789 | head -n 250000"]')"
    clock_advance 35s
    wait_phase loud Succeeded
    size=$(stat -c %s "$BATS_FILE_TMPDIR/local/logs/default/jobs/loud.log")
    [ "$size" -le $((8 * 1024 * 1024)) ]
    [ "$size" -gt $((8 * 1024 * 1024 - 200)) ]
    [ "$(log loud '?tailLines=1')" = "[nodus] the log reached its limit of 8 MiB: further output is dropped" ]
    [ "$(log loud '?tailLines=2' | head -n 1)" = 0123456789012345678901234567890123456789 ]
}

@test "local: stopping the emulator kills what runs, and nothing is reported by the sanitizers" {
    local tree=$BATS_FILE_TMPDIR/local/files/default/jobs/bg
    http POST $JOBS "$(cmd_job bg '["sh","-c","sleep 300 & echo $! >child; echo $$ >pid; wait"]')"
    clock_advance 35s
    wait_phase bg Running
    wait_until test -s "$tree/child"
    run ! tree_idle "$tree" # the shell and its child, in the Job's tree
    stop_emulator
    wait_until tree_idle "$tree"
    no_sanitizer_reports
}
