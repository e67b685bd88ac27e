#!/bin/bash
# make bench: the emulator's storage and HTTP rows of issue 10 (GET, LIST, creates per
# --fsync mode, start to ready, memory, watch fan-out, acked creates lost to kill -9), the
# same load against json-server, the CLI rows (nodus vs kubectl) and the MCP rows (nodus mcp
# vs kubernetes-mcp-server, bench/mcp.sh; alone: make bench-mcp). Every emulator figure
# sits beside a floor measured in the same run: bench/ceiling (libmicrohttpd in the
# emulator's mode answering a fixed body) or bench/fsyncfloor (write + fdatasync).
#
#   BENCH_QUICK=1   a ~2-minute subset (N = 1k only, short runs)
#   BENCH_OUT=DIR   write DIR/benchmarks.md and DIR/bench/ (default: docs)
#   ND_BIN, ND_BUILD  where the binaries and build/bench/ tools are (bin, build)
#
# Uses only the HTTP API, the emulator's documented flags and its documented state
# directory layout (objects/<project>/<plural>/<name>.json), so it measures whatever
# bin/nodus-emulator is.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$(cd "${ND_BIN:-bin}" && pwd)
TOOLS=$(cd "${ND_BUILD:-build}/bench" && pwd)
OUT=${BENCH_OUT:-docs}
mkdir -p "$OUT/bench"
OUT=$(cd "$OUT" && pwd)
QUICK=${BENCH_QUICK:-0}
[ "$QUICK" = 0 ] || QUICK=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nodus-bench.XXXXXX")
RES=$WORK/results.tsv
: >"$RES"
T_BEGIN=$EPOCHREALTIME

if [ "$QUICK" = 1 ]; then
    NS="1000"; D=2; LD=2; FD=2; CLI_NS="100"; CLI_RUNS=5; KILL_D=3; WATCHERS=1000; ROUNDS=2
else
    NS="1000 10000 100000"; D=5; LD=4; FD=3; CLI_NS="100 1000"; CLI_RUNS=10; KILL_D=4
    WATCHERS=1000; ROUNDS=3
fi

PIDS=()
cleanup() {
    for p in "${PIDS[@]:-}"; do
        [ -n "$p" ] && kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for tool in curl jq node hyperfine /usr/bin/time gnuplot python3; do
    command -v "$tool" >/dev/null || {
        echo "bench: $tool is missing (scripts/install-deps.sh bench installs it)" >&2
        exit 1
    }
done
JSON_SERVER=$ROOT/bench/node_modules/json-server/lib/cli/bin.js
[ -f "$JSON_SERVER" ] || { echo "bench: json-server is missing: npm install --prefix bench" >&2; exit 1; }

say() { printf 'bench: %s\n' "$*" >&2; }
# rec SECTION SERVER N CONNS MODE METRIC VALUE
rec() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RES"; }
# kv LINE KEY: the value of KEY=VALUE in a tool's output line
kv() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# rec_load SECTION SERVER N CONNS MODE "OUTPUT OF load"
rec_load() {
    local k
    for k in rps p50_ms p99_ms ok errors; do rec "$1" "$2" "$3" "$4" "$5" "$k" "$(kv "$6" $k)"; done
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mem_kb() { sed -n "s/^$2:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$1/status"; }

API=/apis/nodus.dev/v1/namespaces
EMU_PID=""; EMU_PORT=""; READY_MS=""

# emu_start STATE MODE: starts the emulator, sets EMU_PID, EMU_PORT, READY_MS
emu_start() {
    rm -f "$1.port"
    local t0=$EPOCHREALTIME
    "$BIN/nodus-emulator" --state "$1" --listen 127.0.0.1:0 --port-file "$1.port" \
        --fsync "$2" --no-simulation --quiet --max-connections $((WATCHERS + 200)) \
        >/dev/null 2>>"$WORK/emulator.err" &
    EMU_PID=$!
    PIDS+=("$EMU_PID")
    local out
    out=$("$TOOLS/waitready" --since "$t0" --port-file "$1.port" --timeout 300) || {
        echo "bench: the emulator did not get ready on $1; its stderr:" >&2
        tail -n 20 "$WORK/emulator.err" >&2
        exit 1
    }
    READY_MS=$(kv "$out" ready_ms)
    EMU_PORT=$(kv "$out" port)
}
emu_stop() {
    kill "$EMU_PID" 2>/dev/null || true
    wait "$EMU_PID" 2>/dev/null || true
    EMU_PID=""
}
emu_kill9() {
    kill -9 "$EMU_PID" 2>/dev/null || true
    wait "$EMU_PID" 2>/dev/null || true
    EMU_PID=""
}

# --- the ceiling: started once, idle while the emulator is measured -------------------
"$TOOLS/ceiling" --port-file "$WORK/ceiling.port" &
CEIL_PID=$!
PIDS+=("$CEIL_PID")
CEIL_PORT=$(kv "$("$TOOLS/waitready" --since "$EPOCHREALTIME" --port-file "$WORK/ceiling.port" --path /)" port)

load() { "$TOOLS/load" "$@"; }

# --- the template state: what the emulator stores for a created Job -------------------
say "template state"
TPL=$WORK/template
emu_start "$TPL" never
for ns in bench watch kill; do
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        "http://127.0.0.1:$EMU_PORT/api/v1/namespaces" -d "{\"metadata\":{\"name\":\"$ns\"}}"
done
JOB_SPEC='"spec":{"image":"nodus/pytorch:2.8-cuda12.8","resources":{"gpu":{"model":"H100","count":1}},"maxCostUSD":"10.00"}'
printf '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"@NAME@"},%s}\n' "$JOB_SPEC" >"$WORK/job.json"
printf '{"id":"@NAME@","apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"@NAME@"},%s}\n' "$JOB_SPEC" >"$WORK/js-job.json"
sed 's/@NAME@/template/' "$WORK/job.json" | curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
    "http://127.0.0.1:$EMU_PORT$API/bench/jobs" --data-binary @-
emu_stop
TPL_JOB=$TPL/objects/bench/jobs/template.json
[ -f "$TPL_JOB" ] || { echo "bench: the emulator did not store $TPL_JOB" >&2; exit 1; }
# the revision counter, from emulator.json when the emulator wrote it, else the objects
RV_BASE=$(jq -r '.revision // empty' "$TPL/emulator.json" 2>/dev/null || true)
[ -n "$RV_BASE" ] || RV_BASE=$(cat "$TPL"/objects/*/*/*.json | jq -s '[.[].metadata.resourceVersion | tonumber] | max')
RV_BASE=$((RV_BASE + 1000))
rm -f "$TPL.port"

# seed_state N DIR: the template state plus N Jobs written as files (bench-000000 ...)
seed_state() {
    rm -rf "$2"
    mkdir -p "$2"
    # the documented, hand-editable part only (objects and the price book): the emulator
    # recovers its revision counter from the objects, as after a crash
    cp -a "$TPL/objects" "$TPL/pricebook.json" "$2/"
    "$TOOLS/seed" emulator "$TPL_JOB" "$2/objects/bench/jobs" "$1" "$RV_BASE"
}
objects_bytes() { du -sb "$1/objects" | cut -f1; }

# --- start to ready, empty ---------------------------------------------------------------
say "start to ready, empty"
for i in 1 2 3; do
    emu_start "$WORK/empty-$i" always
    rec start emulator 0 - always first_ms "$READY_MS"
    emu_stop
    t0=$EPOCHREALTIME
    "$TOOLS/ceiling" --port-file "$WORK/c$i.port" &
    cpid=$!
    rec start ceiling 0 - - first_ms "$(kv "$("$TOOLS/waitready" --since "$t0" --port-file "$WORK/c$i.port" --path /)" ready_ms)"
    kill "$cpid"; wait "$cpid" 2>/dev/null || true
done

# --- the emulator at each N --------------------------------------------------------------
for N in $NS; do
    S=$WORK/state-$N
    say "N=$N: seeding"
    seed_state "$N" "$S"
    DISK=$(objects_bytes "$S")
    OBJ=/apis/nodus.dev/v1/namespaces/bench/jobs/$(printf 'bench-%06d' $((N / 2)))
    LIST="$API/bench/jobs?limit=500"

    say "N=$N: start, GET, LIST"
    emu_start "$S" always
    rec start emulator "$N" - always first_ms "$READY_MS"
    curl -sf -o /dev/null "http://127.0.0.1:$EMU_PORT$OBJ" || { echo "bench: $OBJ is not served" >&2; exit 1; }
    for c in 1 16; do
        rec_load get ceiling "$N" "$c" - "$(load --port "$CEIL_PORT" --mode get --path "$OBJ" -c $c -d $D)"
        rec_load get emulator "$N" "$c" - "$(load --port "$EMU_PORT" --mode get --path "$OBJ" -c $c -d $D)"
    done
    if [ "$N" = "${NS%% *}" ] && command -v wrk >/dev/null; then
        # the same GET row driven by wrk, to cross-check bench/load
        for srv in ceiling emulator; do
            port=$CEIL_PORT
            [ "$srv" = ceiling ] || port=$EMU_PORT
            rec wrk "$srv" "$N" 16 - rps "$(wrk -t2 -c16 -d"${D}s" "http://127.0.0.1:$port$OBJ" | awk '/^Requests\/sec/ {print $2}')"
        done
    fi
    rec_load list ceiling "$N" 1 - "$(load --port "$CEIL_PORT" --mode list --path "$LIST" -c 1 -d $LD)"
    rec_load list emulator "$N" 1 - "$(load --port "$EMU_PORT" --mode list --path "$LIST" -c 1 -d $LD)"
    rec mem emulator "$N" - first rss_kb "$(mem_kb "$EMU_PID" VmRSS)"
    rec mem emulator "$N" - first hwm_kb "$(mem_kb "$EMU_PID" VmHWM)"
    rec mem emulator "$N" - first disk_bytes "$DISK"

    say "N=$N: $WATCHERS watchers"
    out=$("$TOOLS/watchers" --port "$EMU_PORT" --watch "$API/watch/jobs?watch=1" \
        --create "$API/watch/jobs" --body "$WORK/job.json" -w "$WATCHERS" --rounds "$ROUNDS" \
        --prefix "w$N" --ready-timeout 150)
    for k in p50_ms p99_ms max_ms samples missed setup_s; do rec watch emulator "$N" "$WATCHERS" - $k "$(kv "$out" $k)"; done
    emu_stop

    say "N=$N: restart"
    emu_start "$S" always
    rec start emulator "$N" - always restart_ms "$READY_MS"
    rec mem emulator "$N" - restart rss_kb "$(mem_kb "$EMU_PID" VmRSS)"
    rec mem emulator "$N" - restart hwm_kb "$(mem_kb "$EMU_PID" VmHWM)"
    rec mem emulator "$N" - restart disk_bytes "$(objects_bytes "$S")"

    for mode in always batch never; do
        say "N=$N: creates, --fsync $mode"
        if [ "$mode" != always ]; then
            emu_stop
            emu_start "$S" "$mode"
        fi
        if [ "$mode" = always ]; then
            rec floor fsync "$N" 1 - ops_per_s "$(kv "$("$TOOLS/fsyncfloor" "$WORK" "$FD")" ops_per_s)"
            rec floor files "$N" 1 - ops_per_s "$(kv "$("$TOOLS/fsyncfloor" "$WORK" "$FD" files)" ops_per_s)"
            rec floor files-nosync "$N" 1 - ops_per_s "$(kv "$("$TOOLS/fsyncfloor" "$WORK" "$FD" files-nosync)" ops_per_s)"
            for c in 1 8; do
                rec_load create ceiling "$N" "$c" - "$(load --port "$CEIL_PORT" --mode create --path "$API/bench/jobs" --body "$WORK/job.json" -c $c -d $D)"
            done
        fi
        for c in 1 8; do
            rec_load create emulator "$N" "$c" "$mode" "$(load --port "$EMU_PORT" --mode create --path "$API/bench/jobs" --body "$WORK/job.json" -c $c -d $D --prefix "$mode-$c")"
        done
    done
    emu_stop
    rm -rf "$S"
done

# --- json-server at each N -----------------------------------------------------------------
JS_PID=""
js_start() { # DB
    JS_PORT=$(free_port)
    local t0=$EPOCHREALTIME
    node "$JSON_SERVER" --port "$JS_PORT" --host 127.0.0.1 --quiet "$1" >/dev/null 2>>"$WORK/json-server.err" &
    JS_PID=$!
    PIDS+=("$JS_PID")
    READY_MS=$(kv "$("$TOOLS/waitready" --since "$t0" --port "$JS_PORT" --path '/jobs?_limit=1' --timeout 300)" ready_ms)
}
js_stop() { kill "${1:--TERM}" "$JS_PID" 2>/dev/null || true; wait "$JS_PID" 2>/dev/null || true; }
for N in $NS; do
    say "json-server, N=$N"
    DB=$WORK/db-$N.json
    "$TOOLS/seed" json-server "$TPL_JOB" "$DB" "$N"
    js_start "$DB"
    rec start json-server "$N" - - first_ms "$READY_MS"
    OBJ=/jobs/$(printf 'bench-%06d' $((N / 2)))
    for c in 1 16; do
        rec_load get json-server "$N" "$c" - "$(load --port "$JS_PORT" --mode get --path "$OBJ" -c $c -d $D)"
    done
    rec_load list json-server "$N" 1 - "$(load --port "$JS_PORT" --mode list --path '/jobs?_limit=500' -c 1 -d $LD)"
    rec mem json-server "$N" - first rss_kb "$(mem_kb "$JS_PID" VmRSS)"
    rec mem json-server "$N" - first disk_bytes "$(stat -c %s "$DB")"
    for c in 1 8; do
        rec_load create json-server "$N" "$c" - "$(load --port "$JS_PORT" --mode create --path /jobs --body "$WORK/js-job.json" -c $c -d $D --prefix "js-$c")"
    done
    js_stop
    rm -f "$DB"
done

# --- kill -9 mid-load: acknowledged creates missing after a restart -----------------------
KN=1000
# list_names PATH: every object's name in the list at PATH, page by page
list_names() {
    local cont="" page
    while :; do
        page=$(curl -sf "http://127.0.0.1:$EMU_PORT$1?limit=500${cont:+&continue=$cont}")
        printf '%s\n' "$page" | jq -r '.items[].metadata.name'
        cont=$(printf '%s\n' "$page" | jq -r '.metadata.continue // empty' | jq -Rr @uri)
        [ -n "$cont" ] || break
    done
}
for mode in always batch never; do
    say "kill -9 under 8 writers, --fsync $mode"
    S=$WORK/kill-$mode
    seed_state "$KN" "$S"
    emu_start "$S" "$mode"
    ACK=$WORK/acks-$mode
    : >"$ACK"
    load --port "$EMU_PORT" --mode create --path "$API/kill/jobs" --body "$WORK/job.json" -c 8 \
        -d $((KILL_D * 3)) --ack "$ACK" --prefix "k" >"$WORK/kill-load.out" 2>/dev/null &
    LPID=$!
    sleep "$KILL_D"
    emu_kill9
    wait "$LPID" || true
    emu_start "$S" "$mode"
    list_names "$API/kill/jobs" | sort >"$WORK/present"
    sort "$ACK" >"$WORK/acked"
    rec kill emulator "$KN" 8 "$mode" acked "$(wc -l <"$WORK/acked")"
    rec kill emulator "$KN" 8 "$mode" missing "$(comm -23 "$WORK/acked" "$WORK/present" | wc -l)"
    emu_stop
    rm -rf "$S"
done
say "kill -9 under 8 writers, json-server"
DB=$WORK/db-kill.json
"$TOOLS/seed" json-server "$TPL_JOB" "$DB" "$KN"
js_start "$DB"
ACK=$WORK/acks-js
: >"$ACK"
load --port "$JS_PORT" --mode create --path /jobs --body "$WORK/js-job.json" -c 8 \
    -d $((KILL_D * 3)) --ack "$ACK" --prefix "k" >/dev/null 2>&1 &
LPID=$!
sleep "$KILL_D"
js_stop -9
wait "$LPID" || true
js_start "$DB"
curl -sf "http://127.0.0.1:$JS_PORT/jobs" | jq -r '.[].id' | sort >"$WORK/present"
sort "$ACK" >"$WORK/acked"
rec kill json-server "$KN" 8 - acked "$(wc -l <"$WORK/acked")"
rec kill json-server "$KN" 8 - missing "$(comm -23 "$WORK/acked" "$WORK/present" | wc -l)"
js_stop

kill "$CEIL_PID"; wait "$CEIL_PID" 2>/dev/null || true

# --- the CLI rows: nodus vs kubectl ----------------------------------------------------------
CLI_RUNS=$CLI_RUNS CLI_NS=$CLI_NS WORK=$WORK RES=$RES BIN=$BIN bench/cli.sh

# --- the MCP rows: nodus mcp vs kubernetes-mcp-server -----------------------------------------
MCP_REPS=$([ "$QUICK" = 1 ] && echo 10 || echo 30) WORK=$WORK RES=$RES BIN=$BIN bench/mcp.sh

# --- the report ---------------------------------------------------------------------------------
T_END=$EPOCHREALTIME
python3 bench/report.py "$RES" "$OUT" \
    --quick "$QUICK" --seconds "$(echo "$T_BEGIN $T_END" | awk '{printf "%.0f", $2 - $1}')" \
    --commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- emulator pkg 2>/dev/null || echo '+changes')" \
    --machine "$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo), $(df -T "$WORK" | awk 'NR==2 {print $2}') on $(uname -sr)" \
    --durations "GET and create ${D} s, LIST ${LD} s, fsync floor ${FD} s each"
cp "$RES" "$OUT/bench/results.tsv"
say "done in $(echo "$T_BEGIN $EPOCHREALTIME" | awk '{printf "%.0f", $2 - $1}') s: $OUT/benchmarks.md"
