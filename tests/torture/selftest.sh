#!/bin/sh
# selftest.sh BUILD OUT: shows that the checker names the anomaly of each broken build
# (`make torture-selftest`, docs/torture.md; the builds: emulator/store/torture.h).
# Each runs for TORTURE_SELFTEST_SECONDS (default 20) with a kill every 0.5-1.5 s; the
# check must find the anomaly the break causes. Exit 0 when every break was caught.
set -u
build=$1 out=$2
seconds=${TORTURE_SELFTEST_SECONDS:-20}
here=$(dirname "$0")
rc=0
summary=
for pair in 1:lost-write 2:rv-backwards 3:watch-skip 4:watch-repeat 5:watch-unconfirmed; do
    n=${pair%%:*} kind=${pair#*:}
    dir=$out/break-$n
    rm -rf "$dir"
    mkdir -p "$dir"
    python3 "$here/run.py" --emulator "$build/torture-break-$n/nodus-emulator" \
        --state "$dir/state" --out "$dir" --fsync batch --seconds "$seconds" \
        --kill-min 0.5 --kill-max 1.5 >/dev/null || { rc=1; continue; }
    if python3 "$here/check.py" --max 3 --expect "$kind" "$dir/history.ndjson" \
        >"$dir/anomalies.txt"; then
        verdict="caught"
    else
        verdict="MISSED"
        rc=1
    fi
    summary="${summary}break $n (expects $kind): $verdict: $(tail -n 1 "$dir/anomalies.txt")
"
done
printf '%s' "$summary"
exit $rc
