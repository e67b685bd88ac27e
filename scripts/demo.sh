#!/bin/sh
# The offline demo: a whole GPU workflow against nodus-emulator, with the emulator's clock
# advanced instead of waited for. A Pool with Hosts, pool-routed and market Jobs, a
# Pipeline, costs, a Budget that suspends work, suspend and resume, logs, exec into a
# Sandbox, files in and out, snapshots. Run by `make demo` (which installs and builds
# first); the manifests are in examples/workflow/. Under a minute. The console's URL is
# printed first: it follows every step live. On a terminal (or with DEMO_KEEP=1) the
# emulator is left running at the end, its clock at 60x, until Enter; in CI and pipes it
# stops at once.
set -eu
cd "$(dirname "$0")/.."
BIN=$(cd "${ND_BIN:-bin}" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nodus-demo.XXXXXX")
export HOME="$TMP/home" NODUS_EMULATOR_STATE="$TMP/state" PATH="$BIN:$PATH"
unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG
mkdir -p "$HOME"

cleanup() {
    nodus emulator stop >/dev/null 2>&1 || true
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

if [ -t 1 ]; then B=$(printf '\033[1m'); R=$(printf '\033[0m'); else B= R=; fi
say() { printf '\n%s== %s%s\n' "$B" "$*" "$R"; }
# One word as the user would type it: bare when the shell leaves it alone, else in single
# quotes (a ' inside as '\''), so that a printed command line can be copied and pasted.
quote() {
    case $1 in
    '' | *[!A-Za-z0-9_./:=,@%+-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
    *) printf '%s' "$1" ;;
    esac
}
run() {
    line=
    for word in "$@"; do line="$line${line:+ }$(quote "$word")"; done
    printf '%s$ %s%s\n' "$B" "$line" "$R"
    "$@"
}
advance() { run nodus emulator clock advance "$1"; }

say "Start an emulator in the background; its clock stands still until we move it"
run nodus emulator start --speed 0
URL=$(nodus emulator env | sed 's/^export NODUS_SERVER=//')
printf '\n%sOpen the console: %s/ \342\200\224 it follows every step live%s\n' "$B" "$URL" "$R"

say "What would a Job cost? A server-side dry run answers with an estimate"
run nodus apply -f examples/workflow/03-jobs.yaml --dry-run=server

say "A Pool of our own GPUs: two Hosts enrol in it"
run nodus apply -f examples/workflow/01-pool.yaml
advance 15s
run nodus get pools,hosts

say "A Budget for the vision team, then a Job on the Pool and one on the market"
run nodus apply -f examples/workflow/02-budget.yaml -f examples/workflow/03-jobs.yaml
advance 35s
run nodus get jobs -o wide

say "A Pipeline: prep, then tune on the Pool, then report, each a Job it owns"
run nodus apply -f examples/workflow/04-pipeline.yaml
advance 21m
run nodus get pipelines,jobs

say "Watch the Jobs' phases while an hour passes (a row when a Job's state or phase changes)"
( sleep 1; nodus emulator clock advance 1h >/dev/null ) &
WRITER=$!
run timeout 3 nodus get jobs --watch-only \
    -o custom-columns=NAME:.metadata.name,STATE:.spec.state,PHASE:.status.phase || true
wait "$WRITER"

say "Costs have accrued; the Budget stopped the market Job at its limit"
advance 30m
run nodus get jobs,budgets
run nodus get events --field-selector involvedObject.name=eval

say "Raise the Budget, resume the Job; suspend it again: no cost while suspended"
run nodus patch budget vision --type merge -p '{"spec":{"limitUSD":"10.00"}}'
run nodus resume job/eval
advance 10m
run nodus suspend job/eval
advance 1h
run nodus get job eval -o custom-columns=NAME:.metadata.name,STATE:.spec.state,PHASE:.status.phase,COST:.status.costUSD

say "Logs: what the training Job printed"
advance 2h
run nodus logs job/train --tail 6

say "A Sandbox: exec into it, copy files in and out"
run nodus apply -f examples/workflow/05-sandbox.yaml
advance 15s
run nodus exec dev -- sh -c 'echo "hello from $(pwd)"; uname -s'
mkdir -p "$TMP/project"
echo "print('hello')" >"$TMP/project/main.py"
run nodus cp "$TMP/project" dev:/work
run nodus exec dev -- ls -l work
run nodus cp dev:/work "$TMP/back"
run ls "$TMP/back"

say "A snapshot of the whole state, to come back to"
run curl -s --json '{}' "$URL/emulator/v1/snapshots/after-demo"
echo

if [ "${DEMO_KEEP:-}" = 1 ] || { [ -t 0 ] && [ -t 1 ]; }; then
    say "Leave the emulator running, its clock 60 times faster than real time"
    run nodus emulator clock speed 60
    printf '\nThe emulator keeps running at 60x so you can watch the Jobs move and cost money in the console at %s/; press Enter to stop\n' "$URL"
    read -r _ || true
fi

say "Stop the emulator"
run nodus emulator stop
printf '\nDone. The same steps by hand: README.md ("A GPU workflow, offline").\n'
