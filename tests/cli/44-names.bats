#!/usr/bin/env bats
# One name per concept (issue 22, item 6): the glossary in CONTRIBUTING.md retires names,
# and scripts/retired-names.sh fails when one comes back in code, docs, man pages or
# messages, the wire's own words (the ALLOW list) and the glossary's quotes excepted.

load ../lib/common

@test "no retired name is left in the tree" {
    run -0 "$ND_ROOT/scripts/retired-names.sh"
    assert_output ""
}

# <!-- retired-names:off --> (these cases write retired names on purpose)
@test "a retired name that comes back is named with its file, line and replacement" {
    T=$BATS_TEST_TMPDIR/tree
    mkdir -p "$T/emulator/store" "$T/docs" "$T/cmd"
    printf 'int x(void)\n{\n    return em_wal_commit(w, 1);\n}\n' >"$T/emulator/store/a.c"
    printf '# Disk\n\nThe WAL is flushed.\nThe history keeps changes.\n' >"$T/docs/d.md"
    printf 'static int y(void) { return nd_get(ctx, p, &o, st); }\n' >"$T/cmd/v.c"
    run "$ND_ROOT/scripts/retired-names.sh" "$T"
    [ "$status" -eq 1 ]
    [[ "$output" == *'emulator/store/a.c:3: "em_wal_commit" is retired (use: em_journal'* ]]
    [[ "$output" == *'docs/d.md:3: "WAL" is retired (use: the journal (the write-ahead log))'* ]]
    [[ "$output" == *'cmd/v.c:1: "nd_get" is retired (use: nd_call_get)'* ]]
    [[ "$output" == *'see the glossary in CONTRIBUTING.md'* ]]
    [ "$(grep -c 'is retired' <<<"$output")" -eq 3 ]
}

@test "the wire's own words and the glossary's quotes are not retired" {
    T=$BATS_TEST_TMPDIR/tree
    mkdir -p "$T/pkg" "$T/tests"
    # the Namespace kind's rows, a client library's method, kubectl's flag and field
    printf 'static const struct nd_column namespace_columns[] = {0};\n' >"$T/pkg/k.c"
    printf 'api.read_namespace("default") --all-namespaces metadata.namespace\n' >"$T/tests/c.py"
    m=retired-names # (spelt apart, so that this file's own quotes stay whole)
    printf 'x\n<!-- %s:off -->\nnd_write and WAL\n<!-- %s:on -->\n' $m $m >"$T/G.md"
    run -0 "$ND_ROOT/scripts/retired-names.sh" "$T"
    [ -z "$output" ]
    # outside the quotes the same words are named
    printf 'nd_write\n' >>"$T/G.md"
    run -1 "$ND_ROOT/scripts/retired-names.sh" "$T"
    [[ "$output" == *'G.md:5: "nd_write" is retired (use: nd_call'* ]]
}
# <!-- retired-names:on -->

# Phases and Status reasons are enums (issue 22, item 5): scripts/string-compares.sh
# fails when code compares one as a string again.
@test "no phase or Status reason is compared as a string in emulator/, cmd/ and pkg/" {
    run -0 "$ND_ROOT/scripts/string-compares.sh"
    assert_output ""
}

@test "a strcmp on a phase or a reason that comes back is named with its file and line" {
    T=$BATS_TEST_TMPDIR/tree
    mkdir -p "$T/pkg/kinds" "$T/pkg/util" "$T/emulator/sim" "$T/cmd/nodus"
    cp "$ND_ROOT/pkg/kinds/phase.c" "$T/pkg/kinds/"
    cp "$ND_ROOT/pkg/util/status.c" "$T/pkg/util/"
    printf 'if (!strcmp(em_ctl_phase(c), "Running"))\n' >"$T/emulator/sim/a.c"
    printf 'if (st->reason && strcmp(st->reason, "NotFound") == 0)\n' >"$T/cmd/nodus/b.c"
    # a spec.state or a condition's reason is neither: left alone
    printf 'if (!strcmp(state, "Running") && !strcmp(why, "NotFound"))\n' >"$T/cmd/nodus/c.c"
    run -1 "$ND_ROOT/scripts/string-compares.sh" "$T"
    [[ "$output" == *'emulator/sim/a.c:1: a phase (compare enum nd_phase'* ]]
    [[ "$output" == *'cmd/nodus/b.c:1: a reason (compare enum nd_reason: nd_status_is)'* ]]
    [ "$(grep -c 'compared as a string' <<<"$output")" -eq 2 ]
    # the enums' own spelling passes
    printf 'if (em_ctl_phase_id(c) == ND_PHASE_RUNNING)\n' >"$T/emulator/sim/a.c"
    printf 'if (nd_status_is(st, ND_REASON_NOT_FOUND))\n' >"$T/cmd/nodus/b.c"
    run -0 "$ND_ROOT/scripts/string-compares.sh" "$T"
    [ -z "$output" ]
}
