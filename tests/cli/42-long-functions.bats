#!/usr/bin/env bats
# Long functions (issue 22, item 7): no function of cmd/, pkg/ or emulator/ is longer
# than 100 lines or above cyclomatic complexity 40 (pmccabe), except those named in the
# script's ALLOW list while they are being split; scripts/long-functions.sh checks, and
# fails with the function, its numbers and what to do. Needs no emulator.

load ../lib/common

setup() {
    T=$BATS_TEST_TMPDIR
}

# long_c FILE NAME LINES: a function NAME of about LINES straight lines
long_c() {
    { echo "int $2(int x);"; echo "int $2(int x)"; echo "{"
      for ((i = 0; i < $3; i++)); do echo "    x += $i;"; done
      echo "    return x;"; echo "}"; } >"$1"
}

# branchy_c FILE NAME N: a short function NAME with N ifs (complexity N + 1)
branchy_c() {
    { echo "int $2(int x);"; echo "int $2(int x)"; echo "{"
      for ((i = 0; i < $3; i++)); do echo "    if (x == $i) return $i;"; done
      echo "    return x;"; echo "}"; } >"$1"
}

@test "no function of cmd/, pkg/ or emulator/ is over 100 lines or complexity 40" {
    run -0 "$ND_ROOT/scripts/long-functions.sh"
    assert_output ""
}

@test "a deliberately long or branchy function fails the check with its numbers and what to do" {
    mkdir -p "$T/src"
    long_c "$T/src/long.c" too_long 120
    branchy_c "$T/src/branchy.c" too_branchy 45
    long_c "$T/src/fine.c" just_fine 90
    run -1 "$ND_ROOT/scripts/long-functions.sh" "$T/src"
    assert_line --regexp "^$T/src/long\.c:2 too_long: 12[0-9] lines, complexity 1/1 \(at most 100 lines and 40\)$"
    assert_line --regexp "^$T/src/branchy\.c:2 too_branchy: [0-9]+ lines, complexity 46/46 "
    assert_line --partial "split each into named helpers that do one thing"
    refute_output --partial just_fine
    # the limits can be set: 90 straight lines pass 100, not 80
    MAX_LINES=80 MAX_COMPLEXITY=50 run -1 "$ND_ROOT/scripts/long-functions.sh" "$T/src/fine.c"
    assert_line --partial "just_fine: 9"
}

@test "an ALLOW entry that is no longer over the limits is reported, so the list only shrinks" {
    # a copy of the script over a tree of its own, its ALLOW list naming two functions (the
    # tree's own list is empty): one short, one not there
    mkdir -p "$T/tree/scripts" "$T/tree/cmd" "$T/tree/pkg" "$T/tree/emulator"
    sed 's|^ALLOW=""$|ALLOW="emulator/server.c:em_server_run\nemulator/store/journal.c:lead"|' \
        "$ND_ROOT/scripts/long-functions.sh" >"$T/tree/scripts/long-functions.sh"
    chmod +x "$T/tree/scripts/long-functions.sh"
    run grep -c '^emulator/store/journal.c:lead"$' "$T/tree/scripts/long-functions.sh"
    assert_output 1
    long_c "$T/tree/emulator/server.c" em_server_run 20
    long_c "$T/tree/pkg/ok.c" fine 20
    run -1 "$T/tree/scripts/long-functions.sh"
    assert_line "emulator/server.c:em_server_run: in ALLOW of scripts/long-functions.sh but not over the limits (or gone): take it off the list"
    assert_line --partial "emulator/store/journal.c:lead: in ALLOW"
    # while it is over, it is left out
    long_c "$T/tree/emulator/server.c" em_server_run 120
    run -1 "$T/tree/scripts/long-functions.sh"
    refute_line --partial "em_server_run"
}

@test "without pmccabe the check says how to install it (scripts/install-deps.sh installs it)" {
    mkdir -p "$T/bin"
    for c in sh find sort xargs awk dirname; do ln -s "$(command -v $c)" "$T/bin/$c"; done
    PATH=$T/bin run -2 "$ND_ROOT/scripts/long-functions.sh"
    assert_output "long-functions: pmccabe is not installed: run scripts/install-deps.sh"
    run -0 grep -w pmccabe "$ND_ROOT/scripts/install-deps.sh"
}
