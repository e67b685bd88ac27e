#!/usr/bin/env bats
# The one-liners of day one: nodus run (a Job from an image, GPU and command: its
# estimate, its log, its exit code), logs -l SELECTOR (every matching object's log,
# prefixed, followed side by side) and auth whoami / auth can-i against an emulator
# without a token file. The clock moves only when a test advances it; `nodus run` runs
# in the background meanwhile (under `timeout`, so that a bug fails the test instead of
# hanging it).

load ../lib/common

bats_require_minimum_version 1.5.0

API=/apis/nodus.dev/v1/namespaces/default
PY=nodus/python:3.12
TORCH=nodus/pytorch:2.8-cuda12.8

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$(emu_url)
}

# Waits (real time, at most 10 s) until FILE holds a line matching the regex.
wait_line() {
    wait_until grep -qE -- "$2" "$1" && return 0
    cat "$1" >&2
    return 1
}

# nodus run ARGS... in the background: stdout to run.out, stderr to run.err; RUN_PID.
run_bg() {
    OUT=$BATS_TEST_TMPDIR/run.out ERR=$BATS_TEST_TMPDIR/run.err
    timeout 30 nodus run "$@" >"$OUT" 2>"$ERR" &
    RUN_PID=$!
}

# Waits for the background run; RUN_RC its exit status.
wait_run() {
    RUN_RC=0
    wait "$RUN_PID" || RUN_RC=$?
}

no_job() {
    run -0 curl -s -o /dev/null -w '%{http_code}' "$(emu_url)$API/jobs/$1"
    assert_output 404
}

# ---- nodus run ----

@test "run --dry-run=server: the Job and its estimate as apply shows them; nothing is created" {
    run -0 --separate-stderr nodus run plan --image "$TORCH" --gpu H100:2 --dry-run=server -- python train.py
    assert_output "job.nodus.dev/plan created (server dry run)
  estimate: rate \$4.98/h, expected \$0.04, first hold \$4.98, starts in ~35s"
    assert_equal "$stderr" ""
    no_job plan
}

@test "run --dry-run=client -o yaml: the Job the flags make, env values keeping their commas" {
    run -0 --separate-stderr nodus run mk --image "$TORCH" --gpu A100 --max-cost 25 \
        -e LIST=a,b -e X=1 --volume datasets:/data:ro -l team=ml,tier=gold --dry-run=client \
        -o yaml -- python train.py --epochs 3
    assert_output 'apiVersion: nodus.dev/v1
kind: Job
metadata:
  labels:
    team: ml
    tier: gold
  name: mk
  namespace: default
spec:
  command:
  - python
  - train.py
  - --epochs
  - "3"
  env:
  - name: LIST
    value: a,b
  - name: X
    value: "1"
  image: nodus/pytorch:2.8-cuda12.8
  maxCostUSD: "25"
  resources:
    gpu:
      count: 1
      model: A100
  volumes:
  - mountPath: /data
    name: datasets
    readOnly: true'
    no_job mk
}

@test "run: bad flags are usage errors (exit 2) before anything is created" {
    run -2 --separate-stderr nodus run bad --image "$TORCH" --gpu H1000 -- true
    assert_equal "$stderr" "error: --gpu H1000: the image nodus/pytorch:2.8-cuda12.8 is built for H100, A100, L40S, L4; choose one of them
See 'nodus run --help' for usage."
    run -2 --separate-stderr nodus run bad --image "$PY" --gpu B300 -- true
    assert_equal "${stderr%%$'\n'*}" "error: --gpu B300: unknown GPU model; the models are H100, A100, L40S, L4"
    run -2 --separate-stderr nodus run bad --image "$TORCH" --gpu H100:9 -- true
    assert_equal "${stderr%%$'\n'*}" 'error: invalid --gpu "H100:9": the count after : is 1 to 8 (e.g. --gpu H100:2)'
    run -2 --separate-stderr nodus run bad --image "$TORCH" --env FOO -- true
    assert_equal "${stderr%%$'\n'*}" 'error: invalid --env "FOO": expected NAME=VALUE, NAME made of letters, digits, _ . - and not starting with a digit (e.g. --env WANDB_MODE=offline)'
    run -2 --separate-stderr nodus run bad --image "$TORCH" --env 9X=1 -- true
    assert_equal "${stderr%%$'\n'*}" 'error: invalid --env "9X=1": expected NAME=VALUE, NAME made of letters, digits, _ . - and not starting with a digit (e.g. --env WANDB_MODE=offline)'
    run -2 --separate-stderr nodus run bad --image "$TORCH" --volume data -- true
    assert_equal "${stderr%%$'\n'*}" 'error: invalid --volume "data": expected VOLUME:/PATH, or VOLUME:/PATH:ro (e.g. --volume datasets:/data:ro)'
    run -2 --separate-stderr nodus run bad --image "$TORCH" --max-cost lots -- true
    assert_equal "${stderr%%$'\n'*}" 'error: invalid --max-cost "lots": a positive amount of US dollars, e.g. --max-cost 25.00'
    run -2 --separate-stderr nodus run bad -- true
    assert_equal "${stderr%%$'\n'*}" 'error: name the image: --image nodus/NAME:TAG (nodus get images -n nodus lists them)'
    run -2 --separate-stderr nodus run --image "$TORCH"
    assert_equal "${stderr%%$'\n'*}" 'error: name the Job: nodus run NAME --image IMAGE -- COMMAND...'
    run -2 --separate-stderr nodus run bad python --image "$TORCH"
    assert_equal "${stderr%%$'\n'*}" 'error: put the command after --: nodus run bad --image IMAGE -- python ...'
    run -2 --separate-stderr nodus run bad --image "$TORCH" -o yaml -- true
    assert_equal "${stderr%%$'\n'*}" 'error: -o prints the Job: use it with --detach or --dry-run (attached, stdout is the Job'"'"'s log)'
    no_job bad
    # the server's dry run refuses what the server would refuse, before the create
    run -1 --separate-stderr nodus run bad --image nodus/nothing:1 -- true
    assert_output ""
    no_job bad
}

@test "run: streams the log on stdout, says the rest on stderr, exits 0 when the Job succeeds" {
    run_bg ok --image "$PY" --annotations emulator.nodus.dev/duration=30s -- python -c 'print(1)'
    wait_line "$ERR" estimate:
    clock_advance 5m
    wait_run
    assert_equal "$RUN_RC" 0
    assert_equal "$(head -n 2 "$ERR")" "job.nodus.dev/ok created
  estimate: rate \$0.00/h, expected \$0.00, first hold \$0.00, starts in ~35s"
    assert_equal "$(grep -c simulated: "$ERR")" 1 # the log is made up: 39-run-truth.bats
    assert_equal "$(head -n 1 "$OUT")" "[nodus] pulling image nodus/python:3.12"
    assert_equal "$(tail -n 1 "$OUT")" "[nodus] the command exited with code 0"
    run -0 curl -sf "$(emu_url)$API/jobs/ok"
    assert_equal "$(jq -c '[.status.phase, .spec.command, .spec.maxCostUSD]' <<<"$output")" '["Succeeded",["python","-c","print(1)"],"10.00"]'
}

@test "run: exits with the Job's exit code (3)" {
    run_bg three --image "$PY" --annotations emulator.nodus.dev/duration=20s,emulator.nodus.dev/exit-code=3 -- sh -c 'exit 3'
    wait_line "$ERR" estimate:
    clock_advance 5m
    wait_run
    assert_equal "$RUN_RC" 3
    assert_equal "$(tail -n 1 "$OUT")" "[nodus] the command exited with code 3"
    assert_equal "$(tail -n 1 "$ERR")" "error: job/three ended Failed: the command exited with an error (exit code 3)"
}

@test "run: a Job cancelled before its command ends exits 125" {
    run_bg gone --image "$PY" -- sleep 100
    wait_line "$ERR" estimate:
    run -0 nodus cancel job/gone
    wait_run
    assert_equal "$RUN_RC" 125
    assert_equal "$(tail -n 1 "$ERR")" "error: job/gone ended Cancelled: cancelled: spec.state is Cancelled"
}

@test "run: Ctrl-C detaches (exit 130), says how to follow and cancel, and the Job runs on" {
    OUT=$BATS_TEST_TMPDIR/run.out ERR=$BATS_TEST_TMPDIR/run.err
    nodus run bg --image "$PY" -- sleep 100 >"$OUT" 2>"$ERR" &
    RUN_PID=$!
    wait_line "$ERR" estimate:
    kill -INT "$RUN_PID"
    wait_run
    assert_equal "$RUN_RC" 130
    assert_equal "$(tail -n 4 "$ERR")" "
job/bg keeps running (detached).
  follow it: nodus logs -f job/bg -n default
  cancel it: nodus cancel job/bg -n default"
    clock_advance 40s
    run -0 curl -sf "$(emu_url)$API/jobs/bg"
    assert_equal "$(jq -r '.spec.state + " " + .status.phase' <<<"$output")" "Running Running"
    nodus cancel job/bg >/dev/null
}

@test "run --detach: creates the Job and returns; -o name; a second run of the name exits 4" {
    run -0 --separate-stderr nodus run det --image "$TORCH" --gpu L4 -d -- python t.py
    assert_output "job.nodus.dev/det created
  estimate: rate \$0.39/h, expected \$0.00, first hold \$0.39, starts in ~35s
  follow it: nodus logs -f job/det -n default"
    run -0 --separate-stderr nodus run det2 --image "$TORCH" --detach -o name -- python t.py
    assert_output "job.nodus.dev/det2"
    run -4 --separate-stderr nodus run det --image "$TORCH" -d -- python t.py
    assert_output ""
    assert_equal "${stderr%%$'\n'*}" 'Error from server (AlreadyExists): jobs.nodus.dev "det" already exists'
    nodus cancel job/det job/det2 >/dev/null
}

# ---- logs -l ----

@test "logs -l: every matching Job's log, each line prefixed; --tail per object (10 by default)" {
    nodus run la --image "$PY" -l suite=logs -d --annotations emulator.nodus.dev/duration=20s -- echo a >/dev/null
    nodus run lb --image "$PY" -l suite=logs -d --annotations emulator.nodus.dev/duration=20s -- echo b >/dev/null
    nodus run lc --image "$PY" -l suite=other -d -- echo c >/dev/null
    clock_advance 5m
    run -0 --separate-stderr nodus logs -l suite=logs --tail 1
    assert_output "[job/la] [nodus] the command exited with code 0
[job/lb] [nodus] the command exited with code 0"
    run -0 --separate-stderr nodus logs jobs -l suite=logs --tail 1 --prefix=false
    assert_output "[nodus] the command exited with code 0
[nodus] the command exited with code 0"
    # one object: no prefix unless asked for
    run -0 nodus logs la --tail 1 --prefix
    assert_output "[job/la] [nodus] the command exited with code 0"
    run -0 nodus logs la --tail 1
    assert_output "[nodus] the command exited with code 0"
    # with a selector, the last 10 lines of each unless --tail says otherwise
    run -0 --separate-stderr nodus logs -l suite=logs
    assert_equal "$(grep -c '^\[job/la\] ' <<<"$output")" "$(nodus logs la --tail 10 | wc -l)"
    assert_equal "$(grep -c '^\[job/lb\] ' <<<"$output")" "$(nodus logs lb --tail 10 | wc -l)"
    run -0 --separate-stderr nodus logs -l suite=logs --tail=-1
    assert_equal "$(grep -c '^\[job/la\] ' <<<"$output")" "$(nodus logs la | wc -l)"
    run -0 --separate-stderr nodus logs -l suite=nobody
    assert_output ""
    assert_equal "$stderr" "No resources found in default namespace."
}

@test "logs -l -f: follows every match side by side until all end; the worst exit status; --max-log-requests" {
    nodus run fa --image "$PY" -l suite=follow -d --annotations emulator.nodus.dev/duration=60s -- echo a >/dev/null
    nodus run fb --image "$PY" -l suite=follow -d --annotations emulator.nodus.dev/duration=90s,emulator.nodus.dev/exit-code=2 -- echo b >/dev/null
    run -2 --separate-stderr nodus logs -l suite=follow -f --max-log-requests 1
    assert_output ""
    assert_equal "${stderr%%$'\n'*}" "error: you are attempting to follow 2 log streams, but maximum allowed concurrency is 1, use --max-log-requests to increase the limit (--max-log-requests=2), or narrow the selector"
    out=$BATS_TEST_TMPDIR/follow.out err=$BATS_TEST_TMPDIR/follow.err
    timeout 30 nodus logs -l suite=follow -f >"$out" 2>"$err" &
    pid=$!
    clock_advance 40s
    wait_line "$out" '^\[job/fa\] \[nodus\] starting on market: echo a$'
    wait_line "$out" '^\[job/fb\] \[nodus\] starting on market: echo b$'
    clock_advance 5m
    rc=0
    wait "$pid" || rc=$?
    assert_equal "$rc" 1
    grep -qx '\[job/fa\] \[nodus\] the command exited with code 0' "$out"
    grep -qx '\[job/fb\] \[nodus\] the command exited with code 2' "$out"
    # every line is whole, and belongs to one of them
    assert_equal "$(grep -cvE '^\[job/f[ab]\] ' "$out")" 0
    assert_equal "$(cat "$err")" "error: job/fb ended Failed: the command exited with an error (exit code 2)"
}

@test "logs -l: usage errors" {
    run -2 --separate-stderr nodus logs job/x -l a=b
    assert_equal "${stderr%%$'\n'*}" "error: with -l, name a kind at most (nodus logs [KIND] -l SELECTOR), not objects"
    run -2 --separate-stderr nodus logs volumes -l a=b
    assert_equal "${stderr%%$'\n'*}" "error: volumes have no log (Jobs, Sandboxes, Functions and PoolActions do)"
    run -2 --separate-stderr nodus logs job/x --max-log-requests 2
    assert_equal "${stderr%%$'\n'*}" "error: --max-log-requests goes with -l SELECTOR"
    run -2 --separate-stderr nodus logs -l a=b -f --max-log-requests 0
    assert_equal "${stderr%%$'\n'*}" "error: --max-log-requests must be greater than 0"
}

# ---- auth ----

@test "auth whoami: kubectl's table; an emulator without a token file answers emulator-user" {
    run -0 --separate-stderr nodus auth whoami
    assert_output "ATTRIBUTE                   VALUE
Username                    emulator-user
Groups                      [system:authenticated]
Extra: nodus.dev/projects   [*]
Extra: nodus.dev/scopes     [read write billing:write admin]"
    assert_equal "$stderr" ""
    run -0 nodus auth whoami -o json
    assert_equal "$(jq -c '[.kind, .status.userInfo.username, .status.userInfo.groups]' <<<"$output")" \
        '["SelfSubjectReview","emulator-user",["system:authenticated"]]'
    run -0 nodus auth whoami -o 'jsonpath={.status.userInfo.username}'
    assert_output emulator-user
    run -2 --separate-stderr nodus auth whoami extra
    assert_equal "${stderr%%$'\n'*}" "error: whoami takes no arguments"
}

@test "auth can-i: yes (exit 0), no with the server's reason (exit 1), -q, usage errors" {
    run -0 --separate-stderr nodus auth can-i create jobs
    assert_output yes
    run -0 nodus auth can-i delete job/train-a
    assert_output yes
    run -0 nodus auth can-i get nj --subresource log -A
    assert_output yes
    run -1 --separate-stderr nodus auth can-i create jobs -n nodus
    assert_output "no - the project nodus is read-only"
    assert_equal "$stderr" ""
    run -0 nodus auth can-i list images -n nodus
    assert_output yes
    run -1 nodus auth can-i create jobs -n nodus -q
    assert_output ""
    run -1 nodus auth can-i fly jobs
    assert_output 'no - the verb "fly" is not one this server knows (get, list, watch, create, update, patch, delete, deletecollection)'
    run -2 --separate-stderr nodus auth can-i create jbos
    assert_output ""
    run -2 --separate-stderr nodus auth can-i create
    assert_equal "${stderr%%$'\n'*}" "error: name a verb and a kind: nodus auth can-i VERB KIND[/NAME] (e.g. nodus auth can-i create jobs)"
    run -2 --separate-stderr nodus auth can-i get volumes --subresource log
    assert_equal "${stderr%%$'\n'*}" "error: volumes have no subresource log"
    run -2 --separate-stderr nodus auth
    assert_equal "${stderr%%$'\n'*}" "error: name a subcommand: nodus auth whoami, or nodus auth can-i VERB KIND"
    run -2 --separate-stderr nodus auth sudo
    assert_equal "${stderr%%$'\n'*}" 'error: unknown subcommand "sudo" of nodus auth (whoami, can-i)'
}

@test "the new verbs complete without crashing" {
    run -0 nodus __complete auth ""
    assert_output "whoami
can-i"
    run -0 nodus __complete run x --gpu ""
    run -0 nodus __complete logs -l ""
}
