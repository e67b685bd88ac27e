#!/bin/sh
# The fuzz targets' seed corpora and regression inputs, replayed by the standalone
# drivers (built by `make test-bins` with the normal compiler): one TAP line per target.
#   ND_BUILD  build directory (default build)
cd "$(dirname "$0")/../.."
build=${ND_BUILD:-build}
set -- $(cd tests/fuzz && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
echo "1..$#"
i=0
for t in "$@"; do
    i=$((i + 1))
    exe=$build/tests/fuzz/fuzz_$t
    if [ ! -x "$exe" ]; then
        echo "not ok $i - fuzz_$t: not built (run make test-bins)"
        continue
    fi
    if out=$("$exe" -q tests/fuzz/corpus/$t tests/fuzz/regress/$t 2>&1); then
        echo "ok $i - fuzz_$t: $(echo "$out" | tail -n 1)"
    else
        echo "not ok $i - fuzz_$t"
        echo "$out" | tail -n 20 | sed 's/^/# /'
    fi
done
