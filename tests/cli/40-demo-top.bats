#!/usr/bin/env bats
# Smaller items of issue 20 (item 8): `top jobs --no-headers` prints rows only (no
# total); `make demo` prints each command as it would be typed (quoted, so it can be
# copied) and its watch shows changes, not a row per cost tick; a custom-columns watch
# prints an object's row only when one of its cells changed, as a table watch does.

load ../lib/common
load ../lib/watch

bats_require_minimum_version 1.5.0

API=/apis/nodus.dev/v1/namespaces/default

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$(emu_url)
    cd "$ND_ROOT"
}

teardown() {
    [ -z "${WATCH_PID:-}" ] || stop_watch
}

@test "top jobs --no-headers: the rows only, without the total line" {
    nodus run topped --image nodus/pytorch:2.8-cuda12.8 --gpu L40S --annotations emulator.nodus.dev/duration=2h -d -- true >/dev/null
    clock_advance 1h
    run -0 --separate-stderr nodus top jobs --no-headers
    assert_output --regexp '^topped +Running +1xL40S +market +\$0\.99/h +\$0\.9[0-9] +[0-9]+%$'
    assert_equal "${#lines[@]}" 1
    # with the header, the total
    run -0 --separate-stderr nodus top jobs
    assert_equal "${#lines[@]}" 3
    assert_line -n 2 --regexp '^1 running, \$0\.99/h, \$0\.9[0-9] so far$'
    nodus cancel job/topped >/dev/null
}

@test "get -w -o custom-columns: a row only when its cells change (not for ADDED's echo, a cost tick or a wider column)" {
    nodus create project cc >/dev/null
    watch_bg "$BATS_TEST_TMPDIR/w" get jobs -n cc --watch-only -o custom-columns=NAME:.metadata.name,PHASE:.status.phase
    wait_for_watches 1
    # a Job that costs money: a MODIFIED for each cost tick, none of them shown
    nodus run a -n cc --image nodus/pytorch:2.8-cuda12.8 --gpu L4 --annotations emulator.nodus.dev/duration=1h -d -- true >/dev/null
    clock_advance 40s
    wait_for_line "$WATCH_OUT" '^a +Running$'
    # a longer name widens the NAME column: a's next rows must not come again for it
    nodus run a-much-longer-name -n cc --image nodus/python:3.12 --annotations emulator.nodus.dev/duration=1h -d -- true >/dev/null
    clock_advance 10m
    wait_for_line "$WATCH_OUT" '^a-much-longer-name +Running$'
    nodus cancel job/a -n cc >/dev/null
    wait_for_line "$WATCH_OUT" '^a +Cancelled$'
    stop_watch
    run -0 awk '{print $1, $2}' "$WATCH_OUT"
    assert_output - <<'EOF'
NAME PHASE
a Queued
a Provisioning
a Running
a-much-longer-name Queued
a-much-longer-name Provisioning
a-much-longer-name Running
a Cancelled
EOF
    assert_equal "$(cat "$WATCH_OUT.err")" ""
    nodus cancel job/a-much-longer-name -n cc >/dev/null
}

@test "make demo: commands printed as typed (quoted), and a watch of changes, not of cost ticks" {
    command -v curl >/dev/null || skip "the demo needs curl"
    run -0 env ND_BIN="$ND_BIN_DIR" TMPDIR="$BATS_TEST_TMPDIR" NODUS_SERVER= timeout 120 scripts/demo.sh
    local out=$output
    # the console's URL, and no wait at the end (not a terminal, no DEMO_KEEP)
    assert_line --regexp '^Open the console: http://127\.0\.0\.1:[0-9]+/ — it follows every step live$'
    refute_line --partial 'press Enter to stop'
    # what a user can paste back into a shell
    assert_line "\$ nodus patch budget vision --type merge -p '{\"spec\":{\"limitUSD\":\"10.00\"}}'"
    assert_line "\$ nodus exec dev -- sh -c 'echo \"hello from \$(pwd)\"; uname -s'"
    assert_line --regexp "^\\\$ curl -s --json '\\{\\}' http://127\\.0\\.0\\.1:[0-9]+/emulator/v1/snapshots/after-demo$"
    # the exec line, split as a shell splits it, gives back the command the demo ran
    local line
    line=$(grep -F '$ nodus exec dev -- sh -c' <<<"$out")
    run -0 python3 -c 'import shlex, sys; print(shlex.split(sys.argv[1][2:])[-1])' "$line"
    assert_output 'echo "hello from $(pwd)"; uname -s'
    # the watch: a row per phase change, never an object's row twice in a row
    run -0 awk '/^\$ timeout 3 nodus get jobs --watch-only/ {on=1; next} on && /^$/ {exit} on' <<<"$out"
    local rows=("${lines[@]}")
    [ "${#rows[@]}" -le 15 ] || { printf '%s\n' "${rows[@]}"; false; }
    run -0 awk 'NR > 1 { row = $1 " " $2 " " $3; if (last[$1] == row) { print "repeated: " $0; bad = 1 } last[$1] = row } END { exit bad }' <<<"$(printf '%s\n' "${rows[@]}")"
}

@test "make demo: the console's URL first, reachable; DEMO_KEEP=1 leaves it running at 60x until Enter" {
    command -v curl >/dev/null || skip "the demo needs curl"
    local out=$BATS_TEST_TMPDIR/demo.out enter=$BATS_TEST_TMPDIR/enter pid url
    mkfifo "$enter"
    env ND_BIN="$ND_BIN_DIR" TMPDIR="$BATS_TEST_TMPDIR" NODUS_SERVER= DEMO_KEEP=1 \
        timeout 120 scripts/demo.sh <"$enter" >"$out" 2>&1 3>&- &
    pid=$!
    exec 4>"$enter" # Enter, once written
    # until it waits for Enter, or has ended without waiting
    wait_until -t 100 sh -c 'grep -q "press Enter to stop$" "$1" || ! kill -0 "$2"' _ "$out" "$pid"
    grep -q 'press Enter to stop$' "$out" || { cat "$out"; exec 4>&-; false; }
    # the URL comes right after the start, before the first step
    run -0 grep -n -m1 '^Open the console: ' "$out"
    assert_output --regexp '^[0-9]+:Open the console: http://127\.0\.0\.1:[0-9]+/ — it follows every step live$'
    url=$(sed -n 's/^Open the console: \(http[^ ]*\) .*/\1/p' "$out")
    [ "${output%%:*}" -lt "$(grep -n -m1 'What would a Job cost' "$out" | cut -d: -f1)" ]
    # at the end it is still served, the clock running at 60x
    run -0 grep -F "The emulator keeps running at 60x so you can watch the Jobs move and cost money in the console at $url; press Enter to stop" "$out"
    run -0 curl -s -o /dev/null -w '%{http_code} %{content_type}' "$url"
    assert_output '200 text/html; charset=utf-8'
    run -0 curl -s "${url}emulator/v1/clock"
    assert_output --partial '"speed":60'
    # Enter stops it
    echo >&4
    exec 4>&-
    wait "$pid"
    run -0 tail -n 1 "$out"
    assert_output 'Done. The same steps by hand: README.md ("A GPU workflow, offline").'
    run curl -s -o /dev/null "$url"
    assert_failure
}
