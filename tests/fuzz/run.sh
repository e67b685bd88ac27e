#!/bin/sh
# Runs libFuzzer targets one after another (make fuzz):
#   FUZZ_BIN_DIR=build-fuzz/tests/fuzz FUZZ_SECONDS=600 tests/fuzz/run.sh [NAME...]
# Each target starts from its seed corpus tests/fuzz/corpus/NAME/ (read only) and its
# regression inputs tests/fuzz/regress/NAME/, with tests/fuzz/dict/NAME.dict when there
# is one; new inputs go to $FUZZ_WORK/NAME/corpus (default build-fuzz/work, not
# committed), crashes to $FUZZ_WORK/NAME/. Prints one result line per target (seconds,
# executions, executions per second, coverage, corpus size, new artifacts) and exits 1
# when any target crashed.
set -u
cd "$(dirname "$0")/../.."
bin=${FUZZ_BIN_DIR:-build-fuzz/tests/fuzz}
secs=${FUZZ_SECONDS:-600}
work=${FUZZ_WORK:-build-fuzz/work}
[ $# -gt 0 ] || set -- $(cd tests/fuzz && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')

# -max_len per target: big enough for its meaningful inputs, small enough to stay fast.
max_len() {
    case $1 in
    tar) echo 16384 ;;
    router|yaml|config|ws|plain|limits) echo 8192 ;;
    *) echo 4096 ;;
    esac
}

results=""
failed=0
for t in "$@"; do
    exe=$bin/fuzz_$t
    if [ ! -x "$exe" ]; then
        echo "fuzz: no target $t ($exe)" >&2
        failed=1
        continue
    fi
    mkdir -p "$work/$t/corpus"
    dict=""
    [ -f tests/fuzz/dict/$t.dict ] && dict="-dict=tests/fuzz/dict/$t.dict"
    seeds=""
    for d in tests/fuzz/corpus/$t tests/fuzz/regress/$t; do [ -d "$d" ] && seeds="$seeds $d"; done
    log=$work/$t/fuzz.log
    echo "fuzz: $t for ${secs}s (log $log)"
    start=$(date +%s)
    touch "$work/$t/.start"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$exe" -max_total_time="$secs" -max_len="$(max_len "$t")" -rss_limit_mb=2048 \
        -timeout=10 -print_final_stats=1 -artifact_prefix="$work/$t/" $dict \
        "$work/$t/corpus" $seeds >"$log" 2>&1
    rc=$?
    took=$(( $(date +%s) - start ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | sed 's/ft: //')
    corpus=$(ls "$work/$t/corpus" | wc -l)
    # artifacts written by this run (earlier runs' stay beside them)
    crashes=$(find "$work/$t" -maxdepth 1 -newer "$work/$t/.start" \
        \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    status=ok
    if [ $rc -ne 0 ]; then
        status="FAILED (rc $rc: $(grep -m1 -E 'ERROR|SUMMARY|deadly signal|out-of-memory|timeout' "$log" | cut -c1-100))"
        failed=1
    fi
    line=$(printf '%-9s %5ss  execs %-10s %6s/s  cov %-5s ft %-6s corpus %-5s artifacts %s  %s' \
        "$t" "$took" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$crashes" "$status")
    echo "$line"
    results="$results$line
"
done
echo
echo "fuzz results (artifacts: crash-/leak-/timeout-/oom- files under $work/NAME/):"
printf '%s' "$results"
exit $failed
