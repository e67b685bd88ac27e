#!/usr/bin/env bats
# Typed flags (cmd/nodus/cli.h): each row of a verb's flag table binds to a field of the
# verb's options struct (ND_TO); a binding to a field of a type no flag has does not
# compile. (The checks of each table's offsets and types are tests/unit/test_flags.c.)

load ../lib/common

# Compiles a table whose ND_INT row --count binds to a field of type $1.
compile_binding() {
    cat > "$BATS_TEST_TMPDIR/bind.c" <<EOF
#include "cli.h"
struct demo_opts {
    $1 count;
};
const struct nd_flag demo_flags[] = {
    {"count", 0, ND_INT, "N", "how many", NULL, ND_TO(struct demo_opts, count)},
    ND_FLAGS_END(struct demo_opts),
};
EOF
    # shellcheck disable=SC2046 # the flags of pkg-config are words
    ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -fsyntax-only -I"$ND_ROOT/cmd/nodus" \
        -I"$ND_ROOT/pkg" -I"$ND_ROOT" $(pkg-config --cflags jansson) "$BATS_TEST_TMPDIR/bind.c"
}

@test "a flag binds to a field of its type" {
    command -v "${CC:-cc}" >/dev/null || skip "no C compiler (${CC:-cc}) to compile with"
    run -0 compile_binding "long long"
    run -0 compile_binding "int64_t"   # compiles; test_flags finds the wrong type
}

@test "a binding to a field of a type no flag has does not compile" {
    command -v "${CC:-cc}" >/dev/null || skip "no C compiler (${CC:-cc}) to compile with"
    for type in int "char *" double "unsigned long long"; do
        run ! compile_binding "$type"
        assert_output --partial "_Generic"
    done
}
