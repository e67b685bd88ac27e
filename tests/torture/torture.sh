#!/bin/sh
# torture.sh EMULATOR OUT: the history check (`make torture`, docs/torture.md). For each
# --fsync mode of TORTURE_MODES (default "always batch"), run.py drives EMULATOR for
# TORTURE_SECONDS (default 600) while killing it, then check.py reads the history.
# Exit 0 when every mode's history is clean.
set -u
emu=$1 out=$2
seconds=${TORTURE_SECONDS:-600}
here=$(dirname "$0")
# a copy: a rebuild during the run does not change the binary between two starts
mkdir -p "$out"
cp "$emu" "$out/nodus-emulator.run" || exit 1
emu=$out/nodus-emulator.run
rc=0
summary=
for mode in ${TORTURE_MODES:-always batch}; do
    dir=$out/$mode
    rm -rf "$dir"
    mkdir -p "$dir"
    echo "torture: --fsync $mode for $seconds s (history in $dir)"
    python3 "$here/run.py" --emulator "$emu" --state "$dir/state" --out "$dir" \
        --fsync "$mode" --seconds "$seconds" || { rc=1; summary="$summary$mode: the driver failed
"; continue; }
    python3 "$here/check.py" "$dir/history.ndjson" >"$dir/anomalies.txt"
    r=$?
    cat "$dir/anomalies.txt"
    [ "$r" = 0 ] || rc=1
    summary="$summary$mode: $(tail -n 1 "$dir/anomalies.txt")
"
done
printf '\ntorture: %s' "$summary"
exit $rc
