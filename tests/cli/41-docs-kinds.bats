#!/usr/bin/env bats
# docs/kinds.md's tables (the overview of every kind, each kind's printer columns) are
# generated from the kind registry (pkg/kinds/kinds.c) by `make docs-kinds`
# (scripts/kinds-doc.c): the page checked in is what the generator writes today, and the
# generator refuses a page that leaves a kind out, or whose field tables (written by hand)
# miss a field of a kind's schema or list one it does not have.

load ../lib/common

setup() {
    cd "$ND_ROOT"
    GEN=${ND_BUILD:-build}/scripts/kinds-doc
    [[ $GEN == /* ]] || GEN=$ND_ROOT/$GEN
    [ -x "$GEN" ] || fail "no $GEN: build it with make test-bins (or make docs-kinds)"
}

@test "docs/kinds.md: its generated tables are the registry's (else: run make docs-kinds)" {
    run --separate-stderr "$GEN" <docs/kinds.md
    [ "$status" -eq 0 ] || fail "$stderr
kinds-doc refused docs/kinds.md: fix the page as said above (a field's row in a kind's
spec or status table is written by hand), then run make docs-kinds"
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/kinds.md"
    run diff -u docs/kinds.md "$BATS_TEST_TMPDIR/kinds.md"
    [ "$status" -eq 0 ] || fail "$output
docs/kinds.md is stale: the kind registry (pkg/kinds/kinds.c) changed: run make docs-kinds"
}

@test "kinds-doc: a page without a kind's columns section is refused, naming the kind" {
    grep -v -e '^<!-- generated: columns Volume -->$' docs/kinds.md >"$BATS_TEST_TMPDIR/in.md"
    run --separate-stderr "$GEN" <"$BATS_TEST_TMPDIR/in.md"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" 'kinds-doc: docs/kinds.md has no section <!-- generated: columns Volume -->: add one under "### Volume columns"'
}

@test "kinds-doc: a section naming no kind, or left open, is refused" {
    printf '%s\n' '<!-- generated: columns Jobs -->' '<!-- end generated -->' >"$BATS_TEST_TMPDIR/in.md"
    run --separate-stderr "$GEN" <"$BATS_TEST_TMPDIR/in.md"
    assert_failure 1
    assert_equal "$stderr" 'kinds-doc: line 1: no kind Jobs in the registry (pkg/kinds/kinds.c)'
    printf '%s\n' 'prose' '<!-- generated: overview -->' '| stale |' >"$BATS_TEST_TMPDIR/in.md"
    run --separate-stderr "$GEN" <"$BATS_TEST_TMPDIR/in.md"
    assert_failure 1
    assert_equal "$stderr" 'kinds-doc: line 2: the section has no <!-- end generated -->'
}

@test "kinds-doc: what lies between the markers is replaced, the prose around them kept" {
    # a stale row in Image's columns, and a line of prose of the page's own
    sed -e 's/^| TAGS | .*/| TAGS | stale |/' -e 's/^## Image$/## Image\nA line of prose./' \
        docs/kinds.md >"$BATS_TEST_TMPDIR/in.md"
    run -0 --separate-stderr "$GEN" <"$BATS_TEST_TMPDIR/in.md"
    refute_line "| TAGS | stale |"
    assert_line --regexp '^\| TAGS \| `spec\.tags\[\*\]\.tag` \| always \| '
    assert_line "A line of prose."
}

@test "kinds-doc: a field of a kind's schema without its row, or a row for no field, is refused" {
    # (Image's spec.tags keeps rows: those of spec.tags[].tag and the others)
    grep -v -e '^| `spec.maxDuration` ' docs/kinds.md |
        sed -e 's/^| `spec.tags` |/| `spec.labels` |/' >"$BATS_TEST_TMPDIR/in.md"
    run --separate-stderr "$GEN" <"$BATS_TEST_TMPDIR/in.md"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "kinds-doc: docs/kinds.md's Job spec table has no row for spec.maxDuration, which pkg/kinds/schemas/job.yaml has: add one
kinds-doc: docs/kinds.md's Image spec table lists spec.labels, which pkg/kinds/schemas/image.yaml does not have: remove its row"
}
