#!/bin/bash
# The MCP rows of make bench (called by bench/run.sh, or alone by make bench-mcp): nodus
# mcp beside kubernetes-mcp-server (bench/package.json pins it), both over stdio, driven by
# the official MCP client (bench/mcp/driver.mjs) against one emulator with the simulation
# on, holding N Jobs created through the API in project mcp-list; applies and deletes go
# to project mcp-write. Appends rows to RES.
#
# Alone (make bench-mcp: RES unset) it makes its own WORK and RES and rewrites only the
# section "nodus mcp vs kubernetes-mcp-server" of $BENCH_OUT/benchmarks.md (default docs).
#
# Environment: BIN (nodus, nodus-emulator), WORK (scratch), RES (results.tsv),
# MCP_REPS (repetitions, default 30), MCP_STARTS (server starts, default 3), MCP_N (100),
# MCP_LOG (a file: keep the emulator's request log there, to see what each call asks).
set -euo pipefail
cd "$(dirname "$0")/.."
ALONE=0
if [ -z "${RES:-}" ]; then
    ALONE=1
    BIN=$(cd "${BIN:-${ND_BIN:-bin}}" && pwd)
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/nodus-bench-mcp.XXXXXX")
    RES=$WORK/results.tsv
    : >"$RES"
fi
: "${BIN:?}" "${WORK:?}" "${MCP_REPS:=30}" "${MCP_STARTS:=3}" "${MCP_N:=100}"
say() { printf 'bench: %s\n' "$*" >&2; }
rec() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RES"; }

PEER=$PWD/bench/node_modules/kubernetes-mcp-server-linux-amd64/bin/kubernetes-mcp-server-linux-amd64
SDK=$PWD/tests/clients/node_modules
[ -x "$PEER" ] || { echo "bench: kubernetes-mcp-server is missing: npm install --prefix bench" >&2; exit 1; }
[ -d "$SDK/@modelcontextprotocol/sdk" ] || { echo "bench: the MCP client is missing: make client-deps" >&2; exit 1; }
# the driver's reading of answers, checked before it measures anything
node --test bench/mcp/lib.test.mjs >"$WORK/mcp-test.out" 2>&1 || {
    cat "$WORK/mcp-test.out" >&2
    echo "bench: bench/mcp/lib.test.mjs failed" >&2
    exit 1
}

say "MCP rows: nodus mcp vs kubernetes-mcp-server, $MCP_N Jobs, $MCP_REPS repetitions"
S=$WORK/mcp-state
rm -rf "$S" "$S.port"
EMU=""
LOGARGS=(--quiet)
[ -z "${MCP_LOG:-}" ] || LOGARGS=(--log-format json)
cleanup() {
    [ -z "$EMU" ] || { kill "$EMU" 2>/dev/null; wait "$EMU" 2>/dev/null; }
    [ "$ALONE" = 0 ] || rm -rf "$WORK"
}
trap cleanup EXIT
"$BIN/nodus-emulator" --state "$S" --listen 127.0.0.1:0 --port-file "$S.port" \
    --fsync never "${LOGARGS[@]}" >/dev/null \
    2>"${MCP_LOG:-$WORK/mcp-emulator.err}" &
EMU=$!
while [ ! -s "$S.port" ]; do
    kill -0 "$EMU" 2>/dev/null || { cat "${MCP_LOG:-$WORK/mcp-emulator.err}" >&2; exit 1; }
    sleep 0.02
done
SERVER="http://127.0.0.1:$(cat "$S.port")"
H=$WORK/mcp-home
mkdir -p "$H"
KC=$H/kubeconfig
cat >"$KC" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: nodus-emulator
  cluster:
    server: $SERVER
users:
- name: emulator-user
  user: {}
contexts:
- name: emulator
  context:
    cluster: nodus-emulator
    user: emulator-user
    namespace: default
current-context: emulator
EOF
for p in mcp-list mcp-write; do
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        "$SERVER/api/v1/namespaces" -d "{\"metadata\":{\"name\":\"$p\"}}"
done
i=0
while [ $i -lt "$MCP_N" ]; do
    printf '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"bench-%03d"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","resources":{"gpu":{"model":"H100","count":1}},"maxCostUSD":"10.00"}}\n' $i
    i=$((i + 1))
done >"$WORK/mcp-jobs.json"
HOME=$H KUBECONFIG=$KC "$BIN/nodus" create -n mcp-list -f "$WORK/mcp-jobs.json" >/dev/null

rec mcp-version peer - - - version "$("$PEER" --version 2>/dev/null | head -n 1)"
rec mcp-version nodus - - - version "$("$BIN/nodus" version --client 2>/dev/null | head -n 1 || true)"
rec mcp-date run - - - date "$(date -u '+%Y-%m-%d %H:%M UTC')"
rec mcp-load before - - - loadavg "$(cut -d ' ' -f 1 /proc/loadavg)"
BENCH_HOME=$H node bench/mcp/driver.mjs --nodus "$BIN/nodus" --peer "$PEER" --kubeconfig "$KC" \
    --server "$SERVER" --sdk "$SDK" --n "$MCP_N" --reps "$MCP_REPS" --starts "$MCP_STARTS" \
    --clk-tck "$(getconf CLK_TCK)" --out "$WORK/mcp.tsv"
rec mcp-load after - - - loadavg "$(cut -d ' ' -f 1 /proc/loadavg)"
cat "$WORK/mcp.tsv" >>"$RES"
kill "$EMU"
wait "$EMU" 2>/dev/null || true
EMU=""

if [ "$ALONE" = 1 ]; then
    OUT=${BENCH_OUT:-docs}
    mkdir -p "$OUT"
    python3 bench/mcp/section.py "$RES" --splice "$OUT/benchmarks.md" \
        --commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- cmd pkg 2>/dev/null || echo '+changes')" \
        --machine "$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
    say "done: the section \"nodus mcp vs kubernetes-mcp-server\" of $OUT/benchmarks.md"
fi
