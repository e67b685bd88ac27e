#!/usr/bin/env bats
# tests/lib/jpath, what body_json runs (tests/lib/common.bash): for every filter and file
# it prints exactly what `jq -r FILTER FILE` prints and exits as jq does, whether it
# answers itself (a plain path to a string, whole number, boolean or null) or hands the
# filter to jq (anything else).

load ../lib/common

@test "jpath prints what jq -r prints, and exits as jq does, for every filter and file" {
    [ "$ND_JPATH" != jq ] || { echo "tests/lib/jpath is not built (make test-bins)"; return 1; }
    local d=$BATS_TEST_TMPDIR f q n=0 rc head
    printf '%s' '{"a":{"b":"x\ny","n":12,"f":1.5,"big":12345678901234567890,"t":true,"z":null,
        "arr":[1,"s",{"k":"v"}],"e":"","u":"\u00e9\u0000z","if":1,"neg":-0,"m":-7,
        "r":1e3,"two53":9007199254740993,"max":9007199254740991},
        "items":[{"metadata":{"name":"n1"}}],"a_b":"under"}' >"$d/object.json"
    printf '[1,2]' >"$d/array.json"
    printf '"str"' >"$d/string.json"
    printf '{"a":1}\n{"a":2}\n' >"$d/stream.json"
    : >"$d/empty.json"
    printf 'not json' >"$d/junk.json"
    printf '{"a":1,"a":2}' >"$d/dup.json"
    printf '{"a":"\\ud800"}' >"$d/surrogate.json"
    printf '{"a":"\xff"}' >"$d/latin1.json"
    printf '%0300d' 0 | tr 0 '[' >"$d/deep.json"
    printf '%0300d' 0 | tr 0 ']' >>"$d/deep.json"
    # every filter over the object; the filters that read a whole document over the rest
    for f in "$d"/*.json "$d/missing.json"; do
        if [ "${f##*/}" = object.json ]; then
            set -- . .a .a.b .a.n .a.f .a.big .a.t .a.z .a.arr '.a.arr[0]' '.a.arr[1]' \
                '.a.arr[2].k' '.a.arr[5]' '.a.arr[2]' .a.e .a.u .a.if .a.neg .a.m .a.r .a.two53 \
                .a.max .a.x.y .a.b.c .a.arr.k '.[0]' '.items[0].metadata.name' '.a.[0]' '.a[0]' \
                '.x[0]' '.a | length' .a.n.x '.a["b"]' '.items[-1]' .a_b .1a \
                '.a.arr[99999999999]' '.a .b' ''
        else
            set -- . .a '.[0]' '.[5]' .a.b
        fi
        for q; do
            n=$((n + 1))
            # (each output whole, NUL bytes and all, into one file a side: one cmp at the end)
            printf -v head '== %s %q\n' "${f##*/}" "$q"
            printf '%s' "$head" >>"$d/jq.out"
            printf '%s' "$head" >>"$d/jpath.out"
            rc=0
            jq -r "$q" "$f" >>"$d/jq.out" 2>&1 || rc=$?
            echo "exit $rc" >>"$d/jq.out"
            rc=0
            "$ND_JPATH" "$q" "$f" >>"$d/jpath.out" 2>&1 || rc=$?
            echo "exit $rc" >>"$d/jpath.out"
        done
    done
    # standard input: answered, and handed to jq whole
    for q in .a.b .a.neg '.a | keys[0]' .a.f; do
        n=$((n + 1))
        printf '== stdin %q\n' "$q" | tee -a "$d/jq.out" >>"$d/jpath.out"
        rc=0
        jq -r "$q" <"$d/object.json" >>"$d/jq.out" 2>&1 || rc=$?
        echo "exit $rc" >>"$d/jq.out"
        rc=0
        cat "$d/object.json" | "$ND_JPATH" "$q" >>"$d/jpath.out" 2>&1 || rc=$?
        echo "exit $rc" >>"$d/jpath.out"
    done
    [ "$n" -gt 80 ]
    cmp "$d/jq.out" "$d/jpath.out" || { diff -a "$d/jq.out" "$d/jpath.out"; return 1; }
}
