#!/usr/bin/env bats
# The build (issue 13, item 3): pkg-config is asked one library at a time, each binary
# only for what it uses, and a package it cannot find stops make with its name and the
# apt-get line; `make` and `make install` build no test (no cmocka); -Werror only under
# `make check` and `make asan`; -Wmissing-prototypes for everyone. Every make here is a
# dry run (-n) into a temporary BUILD, or stops before its first compile: nothing is built.

load ../lib/common

setup() {
    T=$BATS_TEST_TMPDIR
    # a pkg-config that logs every question and fails for the package in PC_FAIL, first
    # on PATH and named by PKG_CONFIG
    REAL_PKG_CONFIG=$(command -v pkg-config)
    mkdir -p "$T/shim"
    cat >"$T/shim/pkg-config" <<'EOF'
#!/bin/sh
echo "$*" >>"$PC_LOG"
case " $* " in *" ${PC_FAIL:-} "*) exit 1 ;; esac
exec "$REAL_PKG_CONFIG" "$@"
EOF
    chmod +x "$T/shim/pkg-config"
    export PATH=$T/shim:$PATH REAL_PKG_CONFIG PKG_CONFIG=$T/shim/pkg-config PC_LOG=$T/pc.log PC_FAIL=
    : >"$PC_LOG"
}

# mk ARGS...: make in the tree, building into $T/b, outside any make this suite runs under
mk() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u WERROR make --no-print-directory -C "$ND_ROOT" \
        BUILD="$T/b" BIN="$T/b/bin" "$@"
}

# asked: what the shim was asked, one question a line, sorted
asked() { sort -u "$PC_LOG"; }

@test "a package pkg-config cannot find stops make before any compile, naming it and the apt-get line" {
    mkdir -p "$T/b"
    PC_FAIL=jansson run -2 --separate-stderr mk all
    assert_output ""
    [ "${stderr_lines[0]}" = "error: the build needs jansson, and \`$PKG_CONFIG --cflags jansson\` finds no such package" ]
    [ "${stderr_lines[1]}" = "fix: apt-get install -y libjansson-dev   (or scripts/install-deps.sh: every package the build and the tests need)" ]
    [[ "${stderr_lines[2]}" =~ ^Makefile:[0-9]+:\ \*\*\*\ missing\ package\ libjansson-dev\ \(for\ jansson\)\.\ \ Stop\.$ ]]
    [ "${#stderr_lines[@]}" -eq 3 ]
    # nothing was compiled with empty flags
    run find "$T/b" -name '*.o'
    assert_output ""
}

@test "each library is asked for on its own: the failing one is named, with its Debian package" {
    local row pkg deb target
    # package  Debian package (as scripts/install-deps.sh installs it)  a target that needs it
    for row in "jansson libjansson-dev all" "yaml-0.1 libyaml-dev all" \
        "libcurl libcurl4-openssl-dev all" "libmicrohttpd libmicrohttpd-dev nodus-emulator" \
        "readline libreadline-dev nodus" "cmocka libcmocka-dev units"; do
        read -r pkg deb target <<<"$row"
        case $target in nodus*) target=$T/b/bin/$target ;; esac
        PC_FAIL=$pkg run -2 --separate-stderr mk -n "$target"
        [[ "${stderr_lines[0]}" == "error: the build needs $pkg, and \`$PKG_CONFIG --"*" $pkg\` finds no such package" ]] ||
            { echo "$pkg: $stderr" >&2; return 1; }
        [[ "${stderr_lines[1]}" == "fix: apt-get install -y $deb   (or scripts/install-deps.sh"* ]]
        [[ "${stderr_lines[2]}" == *"*** missing package $deb (for $pkg).  Stop." ]]
        # and the Debian package named is one scripts/install-deps.sh installs
        grep -qw -- "$deb" "$ND_ROOT/scripts/install-deps.sh"
    done
}

@test "a missing pkg-config is named as such" {
    PKG_CONFIG=$T/no-such-pkg-config run -2 --separate-stderr mk -n all
    [ "${stderr_lines[0]}" = "error: the build asks pkg-config for the flags of each library, and $T/no-such-pkg-config is not installed" ]
    [ "${stderr_lines[1]}" = "fix: apt-get install -y pkg-config   (or scripts/install-deps.sh: every package the build and the tests need)" ]
}

@test "each binary asks pkg-config only for the libraries it uses" {
    run -0 mk -n "$T/b/bin/nodus"
    run -0 asked
    assert_output "--cflags jansson
--cflags libcurl
--cflags libmicrohttpd
--cflags yaml-0.1
--libs jansson
--libs readline
--libs yaml-0.1"
    : >"$PC_LOG"
    run -0 mk -n "$T/b/bin/nodus-emulator"
    run -0 asked
    assert_output "--cflags jansson
--cflags libcurl
--cflags libmicrohttpd
--cflags yaml-0.1
--libs jansson
--libs libmicrohttpd
--libs yaml-0.1"
    # the unit tests alone ask for cmocka
    : >"$PC_LOG"
    run -0 mk -n units
    run -0 grep -c cmocka "$PC_LOG"
    assert_output 2
}

@test "make builds the two programs and nothing of the tests; make install builds what it installs, without cmocka" {
    run -0 mk -n all
    assert_output --partial "$T/b/bin/nodus "
    assert_output --partial "$T/b/bin/nodus-emulator "
    refute_output --partial "$T/b/tests/"
    # install with a pkg-config that knows no cmocka: it asks for it nowhere
    PC_FAIL=cmocka run -0 mk -n install PREFIX="$T/prefix" DESTDIR=
    refute_output --partial "$T/b/tests/"
    assert_line "install -m 755 $T/b/bin/nodus $T/b/bin/nodus-emulator $T/prefix/bin/"
    run grep -c cmocka "$PC_LOG"
    assert_output 0
    # what make check runs besides the programs is built by make test-bins
    run -0 mk -n test-bins
    assert_output --partial "-o $T/b/tests/unit/test_json "
    assert_output --partial "-o $T/b/tests/hostile/send "
    assert_output --partial "-o $T/b/tests/fuzz/fuzz_yaml "
}

@test "warnings are errors only under make check and make asan; missing prototypes warn for everyone" {
    local cc
    run -0 mk -n all
    cc=$(grep -E ' -c -o ' <<<"$output")
    [ -n "$cc" ]
    ! grep -q -- -Werror <<<"$cc"
    [ "$(grep -c -- -Wmissing-prototypes <<<"$cc")" = "$(wc -l <<<"$cc")" ]
    # make check: its build has every compile line with -Werror (dry run: nothing runs)
    run -0 mk -n check
    cc=$(grep -E ' -c -o ' <<<"$output")
    grep -q -- "-o $T/b/tests/unit/test_json.o" <<<"$cc"
    [ "$(grep -c -- -Werror <<<"$cc")" = "$(wc -l <<<"$cc")" ]
    assert_line --partial "tests/run-tests.sh"
    # make asan builds with WERROR=1 too (its sub-makes only echoed here), and CI runs
    # make check
    run -0 mk -n asan MAKE="echo SUBMAKE"
    assert_line --regexp '^SUBMAKE (-j[0-9]+ )?--no-print-directory BUILD=build-asan .* WERROR=1 all test-bins$'
    assert_line --regexp '^SUBMAKE --no-print-directory BUILD=build-asan .* check-run$'
    grep -qx 'exec make check' "$ND_ROOT/.ci/run"
}

@test "make check and make asan ask pkg-config nothing before their set-up has run" {
    # their builds run in fresh makes (only echoed here), after install-deps.sh
    PC_FAIL=jansson run -0 mk -n check MAKE="echo SUBMAKE"
    assert_line "scripts/install-deps.sh"
    # on every core unless -j was given, with the client packages and chromium (the
    # browser tests') fetched beside it
    assert_line --regexp '^SUBMAKE -j[0-9]+ --no-print-directory WERROR=1 all test-bins$'
    assert_line "SUBMAKE --no-print-directory client-deps"
    assert_line "SUBMAKE --no-print-directory browser-deps"
    PC_FAIL=jansson run -0 mk -n asan MAKE="echo SUBMAKE"
    assert_line "scripts/install-deps.sh"
    run -0 cat "$PC_LOG"
    assert_output ""
}
