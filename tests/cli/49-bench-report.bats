#!/usr/bin/env bats
# The bench's own check (issue 25, items 0 and 6), without running a benchmark: bench/
# report.py turns a results file holding the new rows (the API-created state with the
# simulation on, its restart and kill -9 rows with the bytes written, 10,000 watchers, a
# million objects, one create and a cascade delete) into their tables, beside their
# targets and the figures of the run before issue 25 (bench/before.tsv); bench/run.sh
# refuses a BENCH_ONLY group it does not know before it starts anything. No timing is
# asserted: the figures here are made up.

load ../lib/common

# row SECTION SERVER N CONNS MODE METRIC VALUE
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$BATS_FILE_TMPDIR/r.tsv"; }

# the results file, and its report rendered once for every case
setup_file() {
    command -v python3 >/dev/null || return 0
    : >"$BATS_FILE_TMPDIR/r.tsv"
    row start ceiling 0 - - first_ms 5
    row start emulator 0 - always first_ms 9
    row get ceiling 1000 1 - rps 8000
    row get emulator 1000 1 - rps 7000
    row get ceiling 1000 1 emulator-sim rps 8000
    row get emulator-sim 1000 1 - rps 2000 # 0.25 of the ceiling: misses
    row build emulator-sim 1000 8 always rps 600
    row restart emulator-sim 1000 - clean stop_ms 400
    row restart emulator-sim 1000 - clean stop_bytes 2097152
    row restart emulator-sim 1000 - clean ready_ms 1200
    row restart emulator-sim 1000 - clean start_bytes 1048576
    row restart emulator-sim 1000 - clean state_before 5242880
    row restart emulator-sim 1000 - clean state_after 6291456
    row start emulator-sim 1000 - always restart_ms 1200
    row restart emulator-sim 1000 - kill9 ready_ms 1500
    row restart emulator-sim 1000 - kill9 start_bytes 3145728
    row restart emulator-sim 1000 - kill9 rss_kb 49152
    row mem emulator-sim 1000 - restart rss_kb 32768
    row mem emulator-sim 1000 - restart disk_bytes 2621440
    row watch emulator 1000 10000 - p99_ms 40
    row watch emulator 1000 10000 - missed 0
    row start emulator 1000000 - always first_ms 9000
    row seed emulator 1000000 - - secs 80
    row one-create emulator 1000000 1 always p50_ms 1.5
    row cascade emulator 1000000 5 - gone_ms 30
    row cli nodus 1000 - get-json mean_ms 20
    row cli kubectl 1000 - get-json mean_ms 100 # 5 x: misses the 6 x
    row watch emulator 1000 1000 - p99_ms 64 # twice the 32 ms of the run before: worse
    row watch fanout 1000 1000 - p50_ms 8 # the fan-out floor beside it
    row watch fanout 1000 1000 - p99_ms 16
    python3 "$ND_ROOT/bench/report.py" "$BATS_FILE_TMPDIR/r.tsv" "$BATS_FILE_TMPDIR/out" --quick 1 \
        >"$BATS_FILE_TMPDIR/report.log" 2>&1 || echo "exit $?" >>"$BATS_FILE_TMPDIR/report.log"
}

report() {
    command -v python3 >/dev/null || skip "python3 is not installed (bench/report.py needs it)"
    MD=$BATS_FILE_TMPDIR/out/benchmarks.md
    [ -s "$MD" ] || { cat "$BATS_FILE_TMPDIR/report.log"; return 1; }
}

@test "bench/report.py: the API-created state's rows, beside the seeded ones and their targets" {
    report
    grep -F '| seeded | 1k | 1 | 7,000 ' "$MD"
    grep -F '| API, sim on | 1k | 1 | 2,000 ' "$MD"
    grep -F -- '- GET one object, N=1k, 1 conn [API, sim on]' "$MD"
    grep -F '| API, sim on | 1k | restart | 1,200 | 5 | 240 | ≤ 1,000 | 0.83 | **misses** |' "$MD"
    grep -F '| API, sim on | 1k | after kill -9 | 1,500 |' "$MD"
}

@test "bench/report.py: the restart rows give time, memory and the bytes the stop and the start wrote" {
    report
    grep -F '## Restart' "$MD"
    grep -F '| 1k | 600 | clean stop, start | 400 | 1,200 | 32 (—) | 2 | 1 | 5 → 6 |' "$MD"
    grep -F '| 1k | 600 | kill -9, start | — | 1,500 | 48 (—) | — | 3 | — → — |' "$MD"
}

@test "bench/report.py: a watch row beside its fan-out floor (bench/fanout), with their ratio" {
    report
    grep -F '| seeded | 1k | 1,000 | — | — | — | — | 64 | — | 8 / 16 | 4 | ≤ 10 | 0.16 | **misses** |' "$MD"
    # the fan-out floor is no state of its own
    ! grep -F '| fanout |' "$MD"
}

@test "bench/report.py: 10,000 watchers against 50 ms, a million objects against 10 s" {
    report
    grep -F '| seeded | 1k | 10,000 | — | — | 0 | — | 40 | — | — / — | — | ≤ 50 | 1.25 | **meets** |' "$MD"
    grep -F '| seeded | 1M | first | 9,000 | 5 | 1,800 | ≤ 10,000 | 1.11 | **meets** |' "$MD"
    grep -F '## A million objects' "$MD"
    grep -F '(written by `bench/seed.c` in 80 s)' "$MD"
    grep -F '| seeded | 1M | 1.50 / — | — | 30 |' "$MD"
}

@test "bench/report.py: get jobs -o json is held to 6 x kubectl; a row worse than before issue 25 misses" {
    report
    grep -F -- '- CLI get jobs -o json at N=1000' "$MD"
    grep -F '## Beside the run before issue 25' "$MD"
    grep -F '| watch p99 ms, N=1,000, 1,000 watchers | 32.0 | 64.0 | — | — | 0.50 | **worse** |' "$MD"
    grep -F -- '- worse than before issue 25: watch p99 ms, N=1,000, 1,000 watchers (32.0 then, 64.0 now)' "$MD"
}

@test "bench/run.sh: an unknown BENCH_ONLY group is refused before anything starts" {
    # (ND_BIN names no directory: a run.sh that went on would fail differently)
    BENCH_ONLY=seeded,nonesuch ND_BIN="$BATS_TEST_TMPDIR/none" run "$ND_ROOT/bench/run.sh"
    [ "$status" -eq 2 ]
    [[ $output == *"BENCH_ONLY: no group nonesuch (start seeded watch10k api restart million"* ]]
}
