#!/usr/bin/env bats
# The manual page of nodus-emulator: it formats without warnings and documents every flag.

load ../lib/common

@test "nodus-emulator(1) formats without a warning" {
    run groff -man -ww -z -Tutf8 "$ND_ROOT/man/nodus-emulator.1"
    assert_success
    assert_output ""
}

@test "every flag of --help is documented in nodus-emulator(1)" {
    local page flag missing=""
    page=$(sed 's/\\-/-/g' "$ND_ROOT/man/nodus-emulator.1")
    for flag in $(nodus-emulator --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
        grep -qF -- "$flag" <<<"$page" || missing+=" $flag"
    done
    assert_equal "$missing" ""
}
