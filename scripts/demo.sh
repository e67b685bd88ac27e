#!/bin/sh
# The offline demo: an emulator on a free port in a temporary directory, the manifests of
# examples/ applied and looked at, watched, changed, suspended and resumed, deleted.
# Run by `make demo` (which installs and builds first); about twenty seconds.
set -eu
cd "$(dirname "$0")/.."
BIN=$(cd "${ND_BIN:-bin}" && pwd)
STATE=$(mktemp -d "${TMPDIR:-/tmp}/nodus-demo.XXXXXX")
EMU_PID=""

cleanup() {
    [ -n "$EMU_PID" ] && kill "$EMU_PID" 2>/dev/null && wait "$EMU_PID" 2>/dev/null
    rm -rf "$STATE"
}
trap cleanup EXIT INT TERM

if [ -t 1 ]; then B=$(printf '\033[1m'); D=$(printf '\033[2m'); R=$(printf '\033[0m'); else B= D= R=; fi
say() { printf '\n%s== %s%s\n' "$B" "$*" "$R"; }
run() { printf '%s$ %s%s\n' "$B" "$*" "$R"; "$@"; }

say "Start nodus-emulator: a free port, a temporary state directory"
"$BIN/nodus-emulator" --state "$STATE/state" --listen 127.0.0.1:0 --port-file "$STATE/port" \
    --fsync never --quiet >"$STATE/emulator.out" 2>"$STATE/emulator.err" &
EMU_PID=$!
i=0
while [ ! -s "$STATE/port" ]; do
    i=$((i + 1))
    if [ $i -gt 100 ] || ! kill -0 "$EMU_PID" 2>/dev/null; then
        echo "the emulator did not start:" >&2
        cat "$STATE/emulator.err" >&2
        exit 1
    fi
    sleep 0.05
done
cat "$STATE/emulator.out"
export NODUS_SERVER="http://127.0.0.1:$(cat "$STATE/port")" HOME="$STATE" PATH="$BIN:$PATH"
printf '%sexport NODUS_SERVER=%s%s\n' "$D" "$NODUS_SERVER" "$R"

say "What would these manifests cost? A server-side dry run answers with an estimate"
run nodus apply -f examples/job.yaml -f examples/sandbox.yaml --dry-run=server

say "Apply every manifest of examples/ (server-side apply)"
run nodus apply -f examples/

say "Look at them"
run nodus get all
run nodus get jobs -o wide
run nodus get pools,budgets
run nodus describe job train-a

say "Watch the Jobs for a few seconds while another client changes one"
( sleep 1; nodus label job train-a stage=demo >/dev/null ) &
WRITER=$!
run timeout 3 nodus get jobs -w || true
wait "$WRITER"

say "Edit a manifest, and ask what apply would change"
cp examples/job.yaml "$STATE/job.yaml"
sed -i 's/maxCostUSD: "40.00"/maxCostUSD: "60.00"/' "$STATE/job.yaml"
run nodus diff -f "$STATE/job.yaml" || true
run nodus apply -f "$STATE/job.yaml"

say "Suspend and resume the Job: spec.state, through a patch"
run nodus patch job train-a -p '{"spec":{"state":"Suspended"}}'
run nodus get job train-a -o custom-columns=NAME:.metadata.name,STATE:.spec.state,MAX:.spec.maxCostUSD
run nodus resume job/train-a

say "Errors say what went wrong, what to do, and where to read more"
run nodus patch job train-a -p '{"spec":{"image":"nodus/cuda:12.8-runtime"}}' || true

say "Delete everything, and stop the emulator"
run nodus delete -f examples/
run nodus get all
kill "$EMU_PID"
wait "$EMU_PID" 2>/dev/null || true
EMU_PID=""
printf '\nDone. The same steps by hand are in README.md ("A first session").\n'
