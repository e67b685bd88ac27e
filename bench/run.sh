#!/bin/bash
# make bench: the emulator's storage and HTTP rows of issues 10 and 25 (GET, LIST, creates
# per --fsync mode, start to ready, memory, watch fan-out at 1,000 and 10,000 watchers,
# acked creates lost to kill -9, one create and a cascade delete), each measured twice: on
# a state seeded as files with --no-simulation ("seeded") and on a state whose Jobs were
# created through the API with the simulation on, each with its Event ("API, sim on"),
# which also gives the restart rows (clean stop and start, and start after kill -9: time,
# memory, bytes written); the rows at a million seeded objects; the same load against
# json-server, the CLI rows (nodus vs kubectl) and the MCP rows (nodus mcp vs
# kubernetes-mcp-server, bench/mcp.sh; alone: make bench-mcp). Every emulator figure
# sits beside a floor measured in the same run: bench/ceiling (libmicrohttpd in the
# emulator's mode answering a fixed body), bench/fsyncfloor (write + fdatasync) or
# bench/fanout (the watch rows: a bare epoll server sending each create to every stream).
#
#   BENCH_QUICK=1   a ~2-minute subset (N = 1k only, short runs, no million rows)
#   BENCH_ONLY=G,.. only these groups of rows: start (empty), seeded, watch10k, api,
#                   restart (the API state's restart rows alone), million, json-server,
#                   kill, cli, mcp; the report then goes to /tmp/nodus-bench-only/ unless
#                   BENCH_OUT says otherwise
#   BENCH_MILLION_N the N of the million group (default 1000000; smaller to try it)
#   BENCH_API_NS    the N of the API-created states (default: those of the seeded ones up to
#                   10,000; at 100,000 the simulation does not keep up: bench/limits.md)
#   BENCH_OUT=DIR   write DIR/benchmarks.md and DIR/bench/ (default: docs)
#   ND_BIN, ND_BUILD  where the binaries and build/bench/ tools are (bin, build)
#
# Uses only the HTTP API, the emulator's documented flags and its documented state
# directory layout (objects/<project>/<plural>/<name>.json), so it measures whatever
# bin/nodus-emulator is.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ONLY=${BENCH_ONLY:-}
for g in ${ONLY//,/ }; do
    case $g in
    start | seeded | watch10k | api | restart | million | json-server | kill | cli | mcp) ;;
    *) echo "bench: BENCH_ONLY: no group $g (start seeded watch10k api restart million json-server kill cli mcp)" >&2; exit 2 ;;
    esac
done
BIN=$(cd "${ND_BIN:-bin}" && pwd)
TOOLS=$(cd "${ND_BUILD:-build}/bench" && pwd)
OUT=${BENCH_OUT:-docs}
[ -z "$ONLY" ] || OUT=${BENCH_OUT:-${TMPDIR:-/tmp}/nodus-bench-only}
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
# the N of the API-created states (simulation on): not 100,000 unless asked, a state the
# simulation cannot keep up with yet (bench/limits.md, "The simulation at 100k Jobs")
API_NS=${BENCH_API_NS:-$(for n in $NS; do [ "$n" -gt 10000 ] || printf '%s ' "$n"; done)}
BIG_WATCHERS=10000                 # the second watch row (at the first N, seeded)
MILLION_N=${BENCH_MILLION_N:-1000000}
# want GROUP: whether this run measures GROUP (every group when BENCH_ONLY is unset; the
# million and 10,000-watcher rows only in a full run or when named)
want() {
    if [ -z "$ONLY" ]; then
        [ "$1" != million ] && [ "$1" != watch10k ] || [ "$QUICK" = 0 ]
        return
    fi
    case ",$ONLY," in *",$1,"*) return 0 ;; esac
    return 1
}
# 10,000 watch streams are 10,000 descriptors on each side
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

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
if want json-server || want kill; then
    [ -f "$JSON_SERVER" ] || { echo "bench: json-server is missing: npm install --prefix bench" >&2; exit 1; }
fi

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
EMU_PID=""; EMU_WPID=""; EMU_PORT=""; READY_MS=""
EMU_WRAP=0  # 1: run the emulator under GNU time, for the bytes it writes (EMU_TIME)
EMU_TIME=$WORK/emulator.time
READY_TIMEOUT=600 # seconds (the million rows allow an hour)

# emu_start STATE MODE [sim]: starts the emulator (with the simulation when sim, else
# --no-simulation), sets EMU_PID (the emulator), EMU_WPID (what to wait for), EMU_PORT,
# READY_MS
emu_start() {
    rm -f "$1.port"
    local sim=(--no-simulation) wrap=()
    [ "${3:-}" != sim ] || sim=()
    [ "$EMU_WRAP" = 0 ] || wrap=(/usr/bin/time -f 'oublock=%O' -o "$EMU_TIME")
    local t0=$EPOCHREALTIME
    "${wrap[@]}" "$BIN/nodus-emulator" --state "$1" --listen 127.0.0.1:0 --port-file "$1.port" \
        --fsync "$2" "${sim[@]}" --quiet --max-connections $((BIG_WATCHERS * 9 / 8 + 200)) \
        >/dev/null 2>>"$WORK/emulator.err" &
    EMU_WPID=$!
    EMU_PID=$EMU_WPID
    PIDS+=("$EMU_WPID")
    local out
    out=$("$TOOLS/waitready" --since "$t0" --port-file "$1.port" --timeout "$READY_TIMEOUT") || {
        echo "bench: the emulator did not get ready on $1; its stderr:" >&2
        tail -n 20 "$WORK/emulator.err" >&2
        exit 1
    }
    READY_MS=$(kv "$out" ready_ms)
    EMU_PORT=$(kv "$out" port)
    if [ "$EMU_WRAP" = 1 ]; then
        EMU_PID=$(pgrep -P "$EMU_WPID" | head -n 1)
        PIDS+=("$EMU_PID")
    fi
}
emu_stop() {
    kill "${1:--TERM}" "$EMU_PID" 2>/dev/null || true
    wait "$EMU_WPID" 2>/dev/null || true
    EMU_PID=""; EMU_WPID=""
}
emu_kill9() { emu_stop -9; }
# write_bytes PID: bytes the process has had written to storage so far (/proc/PID/io)
write_bytes() { sed -n 's/^write_bytes: //p' "/proc/$1/io"; }
# the bytes the last wrapped emulator wrote in its life (GNU time's %O: 512-byte blocks)
wrapped_bytes() { echo $(($(tail -n 1 "$EMU_TIME" | sed -n 's/^oublock=//p') * 512)); }
# (a file the emulator renames as du walks is gone by its stat: du says so and fails;
# its total is still right for what the walk saw)
state_bytes() { { du -sb "$1" 2>/dev/null || true; } | cut -f1; }

# --- the ceiling: started once, idle while the emulator is measured -------------------
"$TOOLS/ceiling" --port-file "$WORK/ceiling.port" &
CEIL_PID=$!
PIDS+=("$CEIL_PID")
CEIL_PORT=$(kv "$("$TOOLS/waitready" --since "$EPOCHREALTIME" --port-file "$WORK/ceiling.port" --path /)" port)
# --- the watch floor: the least a server can do to fan a create out (bench/fanout.c) ----
"$TOOLS/fanout" --port-file "$WORK/fanout.port" &
FAN_PID=$!
PIDS+=("$FAN_PID")
FAN_PORT=$(kv "$("$TOOLS/waitready" --since "$EPOCHREALTIME" --port-file "$WORK/fanout.port" --path /)" port)

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
objects_bytes() { state_bytes "$1/objects"; }

# --- start to ready, empty ---------------------------------------------------------------
if want start; then
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
fi

# --- the rows measured on a running emulator, for either kind of state ---------------------
# SRV is the server column: emulator (seeded, --no-simulation) or emulator-sim (created
# through the API, simulation on); the floors measured beside emulator-sim rows have it in
# their mode column (fm), those beside the seeded rows "-"
fm() { if [ "$1" = emulator ]; then echo -; else echo "$1"; fi; }
# floors SRV: whether to measure the floors beside SRV's rows (a quick run with the seeded
# rows measured takes theirs, of the same N in the same run, for the API state's rows too)
floors() { [ "$1" = emulator ] || [ "$QUICK" = 0 ] || ! want seeded; }

# read_rows SRV N OBJ: GET at 1 and 16 connections and LIST 500, each beside the ceiling
read_rows() {
    local c list="$API/bench/jobs?limit=500"
    curl -sf -o /dev/null "http://127.0.0.1:$EMU_PORT$3" || { echo "bench: $3 is not served" >&2; exit 1; }
    for c in 1 16; do
        ! floors "$1" || rec_load get ceiling "$2" "$c" "$(fm "$1")" "$(load --port "$CEIL_PORT" --mode get --path "$3" -c $c -d $D)"
        rec_load get "$1" "$2" "$c" - "$(load --port "$EMU_PORT" --mode get --path "$3" -c $c -d $D)"
    done
    ! floors "$1" || rec_load list ceiling "$2" 1 "$(fm "$1")" "$(load --port "$CEIL_PORT" --mode list --path "$list" -c 1 -d $LD)"
    rec_load list "$1" "$2" 1 - "$(load --port "$EMU_PORT" --mode list --path "$list" -c 1 -d $LD)"
}
# mem_rows SRV N WHEN STATE
mem_rows() {
    rec mem "$1" "$2" - "$3" rss_kb "$(mem_kb "$EMU_PID" VmRSS)"
    rec mem "$1" "$2" - "$3" hwm_kb "$(mem_kb "$EMU_PID" VmHWM)"
    rec mem "$1" "$2" - "$3" disk_bytes "$(objects_bytes "$4")"
}
# watch_rows SRV N WATCHERS ROUNDS: the fan-out beside its floor (bench/fanout), the floor
# first, the same watchers and rounds
watch_rows() {
    local out srv port k
    for srv in fanout "$1"; do
        port=$EMU_PORT
        if [ "$srv" = fanout ]; then
            floors "$1" || continue
            port=$FAN_PORT
        fi
        out=$("$TOOLS/watchers" --port "$port" --watch "$API/watch/jobs?watch=1" \
            --create "$API/watch/jobs" --body "$WORK/job.json" -w "$3" --rounds "$4" \
            --prefix "w$1-$2-$3" --ready-timeout 300)
        for k in p50_ms p99_ms max_ms samples missed setup_s; do
            if [ "$srv" = fanout ]; then
                rec watch fanout "$2" "$3" "$(fm "$1")" $k "$(kv "$out" $k)"
            else
                rec watch "$1" "$2" "$3" - $k "$(kv "$out" $k)"
            fi
        done
    done
}
# one_create_rows SRV N: 50 creates one after another (the latency of one create)
one_create_rows() {
    local out
    out=$(load --port "$EMU_PORT" --mode create --path "$API/bench/jobs" --body "$WORK/job.json" -c 1 -n 50 --prefix "one-$1")
    for k in p50_ms p99_ms; do rec one-create "$1" "$2" 1 always $k "$(kv "$out" $k)"; done
}
# cascade_rows SRV N: a Job owning 5 Jobs among the N is deleted (propagation Background):
# the DELETE's answer, and until every dependent answers 404
cascade_rows() {
    local base="http://127.0.0.1:$EMU_PORT$API/bench/jobs" owner="cascade-$1" uid i t0 ms
    uid=$(sed "s/@NAME@/$owner/" "$WORK/job.json" | curl -sf -X POST -H 'Content-Type: application/json' \
        "$base" --data-binary @- | jq -r .metadata.uid)
    for i in 1 2 3 4 5; do
        sed "s/@NAME@/$owner-dep-$i/" "$WORK/job.json" |
            jq -c --arg uid "$uid" --arg o "$owner" '.metadata.ownerReferences = [{apiVersion: "nodus.dev/v1", kind: "Job", name: $o, uid: $uid}]' |
            curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$base" --data-binary @-
    done
    t0=$EPOCHREALTIME
    ms=$(curl -sf -o /dev/null -w '%{time_total}' -X DELETE "$base/$owner?propagationPolicy=Background" | awk '{printf "%.1f", $1 * 1000}')
    rec cascade "$1" "$2" 5 - delete_ms "$ms"
    for i in 1 2 3 4 5; do
        while [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/$owner-dep-$i")" != 404 ]; do
            if [ "$(echo "$t0 $EPOCHREALTIME" | awk '{print ($2 - $1 > 120)}')" = 1 ]; then
                say "cascade: $owner-dep-$i still there after 120 s"
                break 2
            fi
        done
    done
    rec cascade "$1" "$2" 5 - gone_ms "$(echo "$t0 $EPOCHREALTIME" | awk '{printf "%.1f", ($2 - $1) * 1000}')"
}
# create_rows SRV N STATE [sim]: creates/s per --fsync mode (the emulator restarted in
# batch and never); the fsync, file and ceiling floors beside them; leaves it running
create_rows() {
    local mode c
    for mode in always batch never; do
        say "$1 N=$2: creates, --fsync $mode"
        if [ "$mode" != always ]; then # (it runs in always when called)
            emu_stop
            emu_start "$3" "$mode" "${4:-}"
        fi
        if [ "$mode" = always ] && floors "$1"; then
            rec floor fsync "$2" 1 "$(fm "$1")" ops_per_s "$(kv "$("$TOOLS/fsyncfloor" "$WORK" "$FD")" ops_per_s)"
            rec floor files "$2" 1 "$(fm "$1")" ops_per_s "$(kv "$("$TOOLS/fsyncfloor" "$WORK" "$FD" files)" ops_per_s)"
            rec floor files-nosync "$2" 1 "$(fm "$1")" ops_per_s "$(kv "$("$TOOLS/fsyncfloor" "$WORK" "$FD" files-nosync)" ops_per_s)"
            for c in 1 8; do
                rec_load create ceiling "$2" "$c" "$(fm "$1")" "$(load --port "$CEIL_PORT" --mode create --path "$API/bench/jobs" --body "$WORK/job.json" -c $c -d $D)"
            done
        fi
        for c in 1 8; do
            rec_load create "$1" "$2" "$c" "$mode" "$(load --port "$EMU_PORT" --mode create --path "$API/bench/jobs" --body "$WORK/job.json" -c $c -d $D --prefix "$1-$mode-$c")"
        done
    done
}
obj_path() { printf '%s/bench/jobs/%s' "$API" "$1"; }

# --- seeded states at each N (--no-simulation) ----------------------------------------------
for N in $NS; do
    want seeded || { [ "$N" = "${NS%% *}" ] && want watch10k; } || continue
    S=$WORK/state-$N
    say "N=$N: seeding"
    seed_state "$N" "$S"
    OBJ=$(obj_path "$(printf 'bench-%06d' $((N / 2)))")

    emu_start "$S" always
    if want seeded; then
        say "N=$N: start, GET, LIST"
        rec start emulator "$N" - always first_ms "$READY_MS"
        read_rows emulator "$N" "$OBJ"
        mem_rows emulator "$N" first "$S"
        if [ "$N" = "${NS%% *}" ] && command -v wrk >/dev/null; then
            # the same GET row driven by wrk, to cross-check bench/load
            for srv in ceiling emulator; do
                port=$CEIL_PORT
                [ "$srv" = ceiling ] || port=$EMU_PORT
                rec wrk "$srv" "$N" 16 - rps "$(wrk -t2 -c16 -d"${D}s" "http://127.0.0.1:$port$OBJ" | awk '/^Requests\/sec/ {print $2}')"
            done
        fi
        say "N=$N: $WATCHERS watchers"
        watch_rows emulator "$N" "$WATCHERS" "$ROUNDS"
    fi
    if [ "$N" = "${NS%% *}" ] && want watch10k; then
        say "N=$N: $BIG_WATCHERS watchers"
        watch_rows emulator "$N" "$BIG_WATCHERS" "$ROUNDS"
    fi
    if want seeded; then
        one_create_rows emulator "$N"
        cascade_rows emulator "$N"
        emu_stop

        say "N=$N: restart"
        emu_start "$S" always
        rec start emulator "$N" - always restart_ms "$READY_MS"
        mem_rows emulator "$N" restart "$S"
        create_rows emulator "$N" "$S"
    fi
    emu_stop
    rm -rf "$S"
done

# --- states created through the API, simulation on, at each N -------------------------------
# The Jobs are POSTed (8 connections, --fsync always), each with the Event the emulator
# records; the emulator runs under GNU time so that the bytes a stop writes are counted.
if want api || want restart; then
    for N in $API_NS; do
        S=$WORK/api-$N
        say "API, sim on, N=$N: creating $N Jobs"
        rm -rf "$S"
        mkdir -p "$S"
        cp -a "$TPL/objects" "$TPL/pricebook.json" "$S/"
        EMU_WRAP=1
        emu_start "$S" always sim
        : >"$S.names"
        out=$(load --port "$EMU_PORT" --mode create --path "$API/bench/jobs" --body "$WORK/job.json" -c 8 -n "$N" --ack "$S.names" --prefix api)
        rec build emulator-sim "$N" 8 always rps "$(kv "$out" rps)"
        rec build emulator-sim "$N" 8 always ok "$(kv "$out" ok)"
        OBJ=$(obj_path "$(sed -n "$((N / 2 + 1))p" "$S.names")")
        if want api; then
            say "API, sim on, N=$N: GET, LIST, $WATCHERS watchers"
            read_rows emulator-sim "$N" "$OBJ"
            mem_rows emulator-sim "$N" first "$S"
            watch_rows emulator-sim "$N" "$WATCHERS" "$ROUNDS"
            one_create_rows emulator-sim "$N"
            cascade_rows emulator-sim "$N"
        fi

        say "API, sim on, N=$N: clean stop and start"
        before=$(state_bytes "$S")
        w0=$(write_bytes "$EMU_PID")
        t0=$EPOCHREALTIME
        emu_stop
        rec restart emulator-sim "$N" - clean stop_ms "$(echo "$t0 $EPOCHREALTIME" | awk '{printf "%.1f", ($2 - $1) * 1000}')"
        rec restart emulator-sim "$N" - clean stop_bytes $(($(wrapped_bytes) - w0))
        emu_start "$S" always sim
        rec restart emulator-sim "$N" - clean ready_ms "$READY_MS"
        rec restart emulator-sim "$N" - clean start_bytes "$(write_bytes "$EMU_PID")"
        rec restart emulator-sim "$N" - clean state_before "$before"
        rec restart emulator-sim "$N" - clean state_after "$(state_bytes "$S")"
        rec start emulator-sim "$N" - always restart_ms "$READY_MS"
        mem_rows emulator-sim "$N" restart "$S"

        say "API, sim on, N=$N: kill -9 and start"
        sed 's/@NAME@/after-kill/' "$WORK/job.json" | curl -sf -o /dev/null -X POST \
            -H 'Content-Type: application/json' "http://127.0.0.1:$EMU_PORT$API/bench/jobs" --data-binary @-
        before=$(state_bytes "$S")
        emu_kill9
        emu_start "$S" always sim
        rec restart emulator-sim "$N" - kill9 ready_ms "$READY_MS"
        rec restart emulator-sim "$N" - kill9 start_bytes "$(write_bytes "$EMU_PID")"
        rec restart emulator-sim "$N" - kill9 state_before "$before"
        rec restart emulator-sim "$N" - kill9 state_after "$(state_bytes "$S")"
        rec restart emulator-sim "$N" - kill9 rss_kb "$(mem_kb "$EMU_PID" VmRSS)"
        rec restart emulator-sim "$N" - kill9 hwm_kb "$(mem_kb "$EMU_PID" VmHWM)"
        curl -sf -o /dev/null "http://127.0.0.1:$EMU_PORT$API/bench/jobs/after-kill" || {
            echo "bench: after-kill, created before the kill -9, is gone after the start" >&2
            rec restart emulator-sim "$N" - kill9 lost 1
        }
        if want api; then
            create_rows emulator-sim "$N" "$S" sim
        fi
        emu_stop
        EMU_WRAP=0
        rm -rf "$S" "$S.names"
    done
fi

# --- a million objects, seeded (--no-simulation) ----------------------------------------------
if want million; then
    N=$MILLION_N
    S=$WORK/million
    need_kb=$((N * 6))              # the files (about 4 KB each on disk) and the checkpoint
    avail_kb=$(df -Pk "$WORK" | awk 'NR==2 {print $4}')
    mem_avail_kb=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
    if [ "$avail_kb" -lt "$need_kb" ] || [ "$mem_avail_kb" -lt $((N * 14)) ]; then
        say "million: skipped ($((avail_kb / 1024)) MB of disk free for $((need_kb / 1024)), $((mem_avail_kb / 1024)) MB of memory free for $((N * 14 / 1024)))"
        rec skipped million "$N" - - reason 1
    else
        say "N=$N: seeding"
        t0=$EPOCHREALTIME
        seed_state "$N" "$S"
        rec seed emulator "$N" - - secs "$(echo "$t0 $EPOCHREALTIME" | awk '{printf "%.1f", $2 - $1}')"
        OBJ=$(obj_path "$(printf 'bench-%06d' $((N / 2)))")
        say "N=$N: start, GET, LIST, one create, a watch, a cascade delete"
        READY_TIMEOUT=3600
        emu_start "$S" always
        rec start emulator "$N" - always first_ms "$READY_MS"
        read_rows emulator "$N" "$OBJ"
        one_create_rows emulator "$N"
        watch_rows emulator "$N" 10 5
        cascade_rows emulator "$N"
        mem_rows emulator "$N" first "$S"
        emu_stop
        say "N=$N: restart"
        emu_start "$S" always
        rec start emulator "$N" - always restart_ms "$READY_MS"
        mem_rows emulator "$N" restart "$S"
        emu_stop
        say "N=$N: cleaning up"
        rm -rf "$S"
    fi
fi

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
    want json-server || break
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
    want kill || break
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
if want kill; then
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
fi

kill "$CEIL_PID" "$FAN_PID"; wait "$CEIL_PID" "$FAN_PID" 2>/dev/null || true

# --- the CLI rows: nodus vs kubectl ----------------------------------------------------------
if want cli; then
    CLI_RUNS=$CLI_RUNS CLI_NS=$CLI_NS WORK=$WORK RES=$RES BIN=$BIN bench/cli.sh
    CLI_SIM=1 CLI_SECTION=cli-sim CLI_RUNS=$CLI_RUNS CLI_NS=$CLI_NS WORK=$WORK RES=$RES BIN=$BIN bench/cli.sh
fi

# --- the MCP rows: nodus mcp vs kubernetes-mcp-server -----------------------------------------
! want mcp || MCP_REPS=$([ "$QUICK" = 1 ] && echo 10 || echo 30) WORK=$WORK RES=$RES BIN=$BIN bench/mcp.sh

# --- the report ---------------------------------------------------------------------------------
T_END=$EPOCHREALTIME
python3 bench/report.py "$RES" "$OUT" \
    --quick "$QUICK" --seconds "$(echo "$T_BEGIN $T_END" | awk '{printf "%.0f", $2 - $1}')" \
    --commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- emulator pkg 2>/dev/null || echo '+changes')" \
    --machine "$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo), $(df -T "$WORK" | awk 'NR==2 {print $2}') on $(uname -sr)" \
    --durations "GET and create ${D} s, LIST ${LD} s, fsync floor ${FD} s each"
cp "$RES" "$OUT/bench/results.tsv"
say "done in $(echo "$T_BEGIN $EPOCHREALTIME" | awk '{printf "%.0f", $2 - $1}') s: $OUT/benchmarks.md"
