#!/bin/sh
# make bench: warm `nodus get jobs` (100 Jobs, table) against the emulator, next to
# `kubectl get jobs.nodus.dev` on the same emulator in the same run. Wall time with
# hyperfine (no shell in between), peak memory with GNU time. Writes the figures to
# docs/benchmarks.md and prints them.
#
# Targets (issue 4): nodus takes at most a tenth of kubectl's wall time and at most a
# fifth of its peak memory.
set -eu
cd "$(dirname "$0")/.."
BIN=$(cd "${ND_BIN:-bin}" && pwd)
RUNS=${BENCH_RUNS:-30}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nodus-bench.XXXXXX")
EMU=""
cleanup() {
    [ -n "$EMU" ] && kill "$EMU" 2>/dev/null && wait "$EMU" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

for tool in hyperfine /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
KUBECTL=""
if command -v kubectl >/dev/null; then
    dir=$(dirname "$(readlink -f "$(command -v kubectl)")")
    if [ -x "$dir/kubectl.1.33" ]; then KUBECTL="$dir/kubectl.1.33"; else KUBECTL=$(command -v kubectl); fi
fi

"$BIN/nodus-emulator" --state "$WORK/state" --listen 127.0.0.1:0 --port-file "$WORK/port" \
    --fsync never --quiet >/dev/null 2>&1 &
EMU=$!
while [ ! -s "$WORK/port" ]; do sleep 0.05; done
SERVER="http://127.0.0.1:$(cat "$WORK/port")"
export NODUS_SERVER="$SERVER" HOME="$WORK"

i=1
while [ $i -le 100 ]; do
    printf '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"bench-%03d"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","resources":{"gpu":{"model":"H100","count":1}},"maxCostUSD":"10.00"}}\n' $i
    i=$((i + 1))
done >"$WORK/jobs.json"
"$BIN/nodus" create -f "$WORK/jobs.json" >/dev/null

NODUS_CMD="$BIN/nodus get jobs"
KUBECTL_CMD="$KUBECTL --server $SERVER --cache-dir $WORK/kube-cache get jobs.nodus.dev"

# warm both: the CLI's discovery cache and kubectl's
$NODUS_CMD >/dev/null
[ -n "$KUBECTL" ] && $KUBECTL_CMD >/dev/null

if [ -n "$KUBECTL" ]; then
    hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/h.json" \
        -n nodus "$NODUS_CMD" -n kubectl "$KUBECTL_CMD" >/dev/null
else
    hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/h.json" -n nodus "$NODUS_CMD" >/dev/null
fi

rss() { # peak resident memory in KiB, the highest of 5 runs
    best=0
    for _ in 1 2 3 4 5; do
        k=$(/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n 1)
        [ "$k" -gt "$best" ] && best=$k
    done
    echo "$best"
}
N_RSS=$(rss $NODUS_CMD)
K_RSS=0
[ -n "$KUBECTL" ] && K_RSS=$(rss $KUBECTL_CMD)

mean() { jq -r --arg n "$1" '.results[] | select(.command == $n) | .mean * 1000' "$WORK/h.json"; }
sdev() { jq -r --arg n "$1" '.results[] | select(.command == $n) | .stddev * 1000' "$WORK/h.json"; }
N_MS=$(mean nodus)
N_SD=$(sdev nodus)
if [ -n "$KUBECTL" ]; then
    K_MS=$(mean kubectl)
    K_SD=$(sdev kubectl)
    TIME_RATIO=$(echo "$K_MS $N_MS" | awk '{printf "%.1f", $1 / $2}')
    MEM_RATIO=$(echo "$K_RSS $N_RSS" | awk '{printf "%.1f", $1 / $2}')
    KVER=$($KUBECTL version --client 2>/dev/null | head -n 1 | sed 's/Client Version: //')
fi

result=$(cat <<REPORT
Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m)), $RUNS runs each after 3
warm-up runs, 100 Jobs in the project, table output, the emulator on loopback with
\`--fsync never\`.

| command | wall time (mean ± σ) | peak memory |
| --- | --- | --- |
| \`nodus get jobs\` | $(printf '%.1f' "$N_MS") ms ± $(printf '%.1f' "$N_SD") ms | $((N_RSS / 1024)).$(( (N_RSS % 1024) * 10 / 1024 )) MiB |
REPORT
)
if [ -n "$KUBECTL" ]; then
    result="$result
| \`kubectl get jobs.nodus.dev\` ($KVER) | $(printf '%.1f' "$K_MS") ms ± $(printf '%.1f' "$K_SD") ms | $((K_RSS / 1024)).$(( (K_RSS % 1024) * 10 / 1024 )) MiB |

nodus takes **1/$TIME_RATIO** of kubectl's wall time (target: 1/10 or less) and
**1/$MEM_RATIO** of its peak memory (target: 1/5 or less)."
else
    result="$result

kubectl is not installed here: no comparison was made."
fi

{
    sed -n '1,/^<!-- results -->$/p' docs/benchmarks.md
    printf '%s\n' "$result"
} >"$WORK/bench.md"
mv "$WORK/bench.md" docs/benchmarks.md
printf '%s\n' "$result"
