#!/usr/bin/env bats
# The bats helper for users' suites (docs/testing.md): `make install` puts it under
# share/nodus/bats/, and the example suite of docs/testing.md, taken from the page, runs
# from the installed files and passes; a failing assertion prints what it saw; the
# emulator of a suite goes with the suite.

load ../lib/common

setup_file() {
    PREFIX=$BATS_FILE_TMPDIR/prefix
    # install-bats needs no build; the binaries are the tree's (ND_BIN_DIR)
    make --no-print-directory -C "$ND_ROOT" install-bats PREFIX="$PREFIX" DESTDIR= >/dev/null
    mkdir -p "$PREFIX/bin"
    cp "$ND_BIN_DIR/nodus" "$ND_BIN_DIR/nodus-emulator" "$PREFIX/bin/"
    # the example: the first ```bash block after the marker, its load line pointed at
    # the temporary prefix
    awk '/<!-- nodus-bats example: train.bats -->/ { marked = 1; next }
         marked && /^```bash$/ { inside = 1; next }
         inside && /^```$/ { exit }
         inside { print }' "$ND_ROOT/docs/testing.md" |
        sed "s|/usr/local/share/nodus/bats/nodus|$PREFIX/share/nodus/bats/nodus|" \
            >"$BATS_FILE_TMPDIR/train.bats"
    # nested bats: without the outer one's libexec directory first on PATH
    CLEAN_PATH="$PREFIX/bin:${PATH//"$BATS_LIBEXEC:"/}"
    export PREFIX CLEAN_PATH
}

# inner FILE [ENV=VALUE...]: runs a suite with bats in a clean environment
inner() {
    local f=$1
    shift
    run env -i PATH="$CLEAN_PATH" HOME="$BATS_FILE_TMPDIR" "$@" bats "$f"
}

@test "make install puts the helper under share/nodus/bats" {
    [ -f "$PREFIX/share/nodus/bats/nodus.bash" ]
    cmp "$ND_ROOT/tests/lib/nodus-bats/nodus.bash" "$PREFIX/share/nodus/bats/nodus.bash"
    # and `make install` installs it (a dry run lists the commands)
    run make -n --no-print-directory -C "$ND_ROOT" install PREFIX=/opt/x DESTDIR=
    [ "$status" -eq 0 ]
    assert_line "install -m 644 tests/lib/nodus-bats/nodus.bash /opt/x/share/nodus/bats/nodus.bash"
    assert_line "install -m 644 tests/lib/nodus-bats/nodus.bash /opt/x/share/nodus/bats/nodus/load.bash"
}

@test "the example of docs/testing.md runs from the installed files and passes" {
    [ "$(grep -c '^@test' "$BATS_FILE_TMPDIR/train.bats")" = 4 ]
    grep -q "^load $PREFIX/share/nodus/bats/nodus\$" "$BATS_FILE_TMPDIR/train.bats"
    inner "$BATS_FILE_TMPDIR/train.bats"
    [ "$status" -eq 0 ]
    assert_line --index 0 1..4
    assert_line "ok 1 a Job waits in Queued until the clock moves, then runs"
    assert_line "ok 4 a lower spending limit is refused; a missing Job is not found"
    refute_output --partial "not ok"
}

@test "bats_load_library finds it through BATS_LIB_PATH" {
    sed "s|^load .*|bats_load_library nodus|" "$BATS_FILE_TMPDIR/train.bats" >"$BATS_FILE_TMPDIR/lib.bats"
    inner "$BATS_FILE_TMPDIR/lib.bats" BATS_LIB_PATH="$PREFIX/share/nodus/bats"
    [ "$status" -eq 0 ]
    assert_line "ok 3 the image of a Job cannot change"
}

@test "it works beside bats-support and bats-assert" {
    [ -d /usr/lib/bats/bats-assert ] || skip "bats-assert is not installed in /usr/lib/bats"
    sed 's|^load .*|&\nbats_load_library bats-support\nbats_load_library bats-assert|' \
        "$BATS_FILE_TMPDIR/train.bats" >"$BATS_FILE_TMPDIR/both.bats"
    grep -q '^bats_load_library bats-assert$' "$BATS_FILE_TMPDIR/both.bats"
    inner "$BATS_FILE_TMPDIR/both.bats" BATS_LIB_PATH=/usr/lib/bats
    [ "$status" -eq 0 ]
    assert_line "ok 2 a run of ten minutes on one H100 costs its rate for ten minutes"
}

FIX=$ND_ROOT/tests/cli/fixtures/bats-helper

@test "failing assertions print what they saw" {
    inner "$FIX/fails.bats" BATS_LIB_PATH="$PREFIX/share/nodus/bats"
    [ "$status" -eq 1 ]
    assert_line "not ok 1 phase"
    assert_line "# assert_phase: job/train: expected phase Succeeded, got Queued"
    assert_line "not ok 2 cost"
    assert_line "# assert_cost: job/train: expected cost < \$0.40, got \$0.415"
    assert_line "# phase: Succeeded, rate: 2.49/h"
    assert_line "not ok 3 reason"
    assert_line "# assert_status_reason: expected 'nodus get job/train' to fail with NotFound; it succeeded (exit 0)"
    assert_line "not ok 4 missing"
    assert_line --partial "# nodus get job/nothing failed (exit 3):"
    assert_line --partial '# Error from server (NotFound): jobs.nodus.dev "nothing" not found'
}

@test "each file has its own emulator on its own port and state, gone after the suite" {
    inner "$FIX/own.bats" BATS_LIB_PATH="$PREFIX/share/nodus/bats" OUT="$BATS_TEST_TMPDIR"
    [ "$status" -eq 0 ]
    local pid
    pid=$(cat "$BATS_TEST_TMPDIR/own.pid")
    [ -n "$pid" ]
    ! kill -0 "$pid" 2>/dev/null
}

@test "the emulator goes with a suite that dies without its teardown" {
    inner "$FIX/dies.bats" BATS_LIB_PATH="$PREFIX/share/nodus/bats" OUT="$BATS_TEST_TMPDIR"
    [ "$status" -ne 0 ]
    local pid
    pid=$(cat "$BATS_TEST_TMPDIR/dies.pid")
    [ -n "$pid" ]
    # the watchdog notices within a second or two
    wait_until -t 5 pid_gone "$pid"
}
