#!/usr/bin/env bats
# get's table of a list is read from the Table answers' bytes (cmd/nodus/get_table.c,
# pkg/print/table_bytes.c), not from a tree. These tests hold it to the tree path
# (NODUS_GET_TREE=1), byte for byte on stdout and stderr and in the exit code, on Tables
# served as written by tests/cli/fixtures/table-server.py: escapes (\", \\, \/, \u00e9,
# \u2028, \n, ESC), raw UTF-8 of every width, numbers, booleans and null as cells, cells
# beyond the columns, rows with their objects (-A, -L, --show-labels), pages joined, an
# empty list, and the shapes the bytes path leaves to the tree (a cell that is a map, a
# key with an escape, broken text, a malformed row on a later page); then on an emulator's
# Jobs and Pools with every table flag; and kubectl 1.33's output when it is installed.

load ../lib/common

bats_require_minimum_version 1.5.0

DEFS='"columnDefinitions":[{"name":"Name","type":"string","format":"name","priority":0},
  {"name":"Phase","type":"string","format":"","priority":0},
  {"name":"Count","type":"integer","format":"","priority":0},
  {"name":"Note","type":"string","format":"","priority":1}]'

# table CASE.KIND[.TOKEN] ROWS [META]: that file in DIR, a Table of ROWS (text) with
# metadata META (text)
table() {
    printf '{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{%s},%s,"rows":[%s]}' \
        "${3:-}" "$DEFS" "$2" >"$CASES/$1.json"
}

setup_file() {
    export HOME=$BATS_FILE_TMPDIR/home CASES=$BATS_FILE_TMPDIR/cases
    mkdir -p "$HOME" "$CASES"
    unset NODUS_GET_TREE
    local obj='"object":{"kind":"PartialObjectMetadata","metadata":{"name":"x","namespace":"team-a","labels":{"app":"web","nodus.dev/team":"blue","z":"1"}}}'
    table escapes.jobs '{"cells":["caf\u00e9","say \"hi\" \\ back\/slash",3,"a\u2028b"],'"$obj"'},
      {"cells":["line\nbreak","\u001b[31mred",2.50,"tab\there","beyond","the columns"]},
      {"cells":["中文 😀 ﬁ","Running",-0,null],"object":{"metadata":{"namespace":"b"}}},
      {"cells":["wide-é","Succeeded",1e3,true]},{"cells":["f","",false,"ü"]}'
    table pages.jobs '{"cells":["p1-a","Running",1,"n"]}' '"continue":"two"'
    table pages.jobs.two '{"cells":["p2-a-longer-name","Queued",22,"n"]}' '"continue":"three"'
    table pages.jobs.three '{"cells":["p3","Failed",333,"n"]}'
    table badpage.jobs '{"cells":["p1","Running",1,"n"]}' '"continue":"two"'
    table badpage.jobs.two '{"cells":["p2","Queued"]}'
    table empty.jobs ''
    printf '{"kind":"Table","metadata":{},%s}' "$DEFS" >"$CASES/norows.jobs.json"
    table mapcell.jobs '{"cells":["m",{"a":[1,2]},1,"n"]}'
    table escapedkey.jobs '{"c\u0065lls":["k","Running",1,"n"]}'
    table dupkey.jobs '{"cells":["d","Running",1,"n"],"cells":["e","Running",1,"n"]}'
    table short.jobs '{"cells":["s","Running",1]}'
    table bigint.jobs '{"cells":["b","Running",123456789012345678901234,"n"]}'
    table badescape.jobs '{"cells":["b","Running",1,"\q"]}'
    table nul.jobs '{"cells":["b\u0000","Running",1,"n"]}'
    table badutf8.jobs $'{"cells":["b\xff","Running",1,"n"]}'
    table notrows.jobs '' && sed -i 's/"rows":\[\]/"rows":{}/' "$CASES/notrows.jobs.json"
    printf '{"kind":"Table",%s,"rows":[{"cells":["t","Running",1,"n"]}' "$DEFS" >"$CASES/truncated.jobs.json"
    printf '{"kind":"JobList","apiVersion":"nodus.dev/v1","metadata":{},"items":[{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"from-a-list","namespace":"default","creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"state":"Running"}}]}' \
        >"$CASES/list.jobs.json"
    table kinds.jobs '{"cells":["job-a","Running",1,"n"]}'
    printf '{"kind":"Table","metadata":{},"columnDefinitions":[{"name":"Name","type":"string","format":"name","priority":0},{"name":"GPUs","type":"integer","format":"","priority":0}],"rows":[{"cells":["pool-a",8]}]}' \
        >"$CASES/kinds.pools.json"
    # many rows and many columns, for the widths and the memory
    python3 - "$CASES/big.jobs.json" <<'PY'
import json, sys
cols = [{"name": "C%d" % i, "type": "string", "format": "name" if i == 0 else "",
         "priority": i % 2} for i in range(24)]
rows = [{"cells": ["row-%05d" % r] + ["v%d-%s" % (c, "x" * ((r * c) % 17)) for c in range(1, 23)] + [r]}
        for r in range(20000)]
open(sys.argv[1], "w").write(json.dumps({"kind": "Table", "metadata": {},
                                         "columnDefinitions": cols, "rows": rows}))
PY
    python3 "$BATS_TEST_DIRNAME/fixtures/table-server.py" "$CASES" "$BATS_FILE_TMPDIR/port" 3>&- &
    echo $! >"$BATS_FILE_TMPDIR/pid"
    wait_until test -s "$BATS_FILE_TMPDIR/port"
}

teardown_file() {
    [ -s "$BATS_FILE_TMPDIR/pid" ] && kill "$(cat "$BATS_FILE_TMPDIR/pid")" 2>/dev/null
    return 0
}

# same ARGS...: nodus ARGS prints the same bytes, on both streams, and exits the same
# from the answers' bytes as from the tree
same() {
    local d=$BATS_TEST_TMPDIR fast_rc=0 tree_rc=0
    nodus "$@" >"$d/fast.out" 2>"$d/fast.err" || fast_rc=$?
    NODUS_GET_TREE=1 nodus "$@" >"$d/tree.out" 2>"$d/tree.err" || tree_rc=$?
    if ! cmp -s "$d/fast.out" "$d/tree.out" || ! cmp -s "$d/fast.err" "$d/tree.err" ||
        [ "$fast_rc" != "$tree_rc" ]; then
        echo "nodus $*: exit $fast_rc from the bytes, $tree_rc from the tree"
        diff "$d/tree.out" "$d/fast.out" | head -20
        diff "$d/tree.err" "$d/fast.err" | head -20
        return 1
    fi
}

FLAGS=("" "-o wide" "--no-headers" "-A" "-L app -L nodus.dev/team" "--show-labels"
    "--show-kind" "-o wide --no-headers --show-labels -A -L z")

# each CASE with every set of flags
cases() {
    local c f
    for c in "$@"; do
        for f in "${FLAGS[@]}"; do
            # shellcheck disable=SC2086
            same -s "http://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")/$c" get jobs $f || return 1
        done
    done
}

@test "get table from the bytes: escapes, unicode, numbers and objects as the tree" {
    cases escapes
    run -0 --separate-stderr nodus -s "http://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")/escapes" \
        get jobs -o wide -L app
    # what the cells come out as (kubectl's: cut at a line break, ESC made visible)
    grep -qF 'café' <<<"$output"
    grep -qF 'say "hi" \ back/slash' <<<"$output"
    grep -qF 'line...' <<<"$output"
    grep -qF '^[[31mred' <<<"$output"
    grep -qE '^中文 😀 ﬁ +Running +0 +$' <<<"$output"
    grep -qE '^wide-é +Succeeded +1000 +true +$' <<<"$output"
    grep -qE '^line\.\.\. +\^\[\[31mred +2\.5 +tab.here +$' <<<"$output"
    grep -qE '^café +say .* 3 +a.+b +web$' <<<"$output"
}

@test "get table from the bytes: pages joined, an empty list, no rows, a list of objects" {
    cases pages empty norows list
    run -0 --separate-stderr nodus -s "http://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")/pages" \
        get jobs --no-headers
    assert_equal "$(cut -d' ' -f1 <<<"$output" | tr '\n' ' ')" "p1-a p2-a-longer-name p3 "
    run -0 --separate-stderr nodus -s "http://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")/empty" get jobs
    assert_equal "$output" ""
    assert_equal "$stderr" "No resources found in default namespace."
}

@test "get table from the bytes: what it leaves to the tree prints the tree's answer or error" {
    cases mapcell escapedkey dupkey short bigint badescape nul badutf8 notrows truncated badpage
    run -0 --separate-stderr nodus -s "http://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")/mapcell" get jobs
    grep -qE '^m +map\[a:\[1 2\]\] +1$' <<<"$output"
    run -1 --separate-stderr nodus -s "http://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")/badpage" get jobs
    assert_equal "$output" ""
    grep -qF 'rows[1].cells must be a list of 4 cells' <<<"$stderr"
}

@test "get table from the bytes: several kinds, a wide table of 20,000 rows" {
    local url
    url="http://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")"
    same -s "$url/kinds" get jobs,pools
    same -s "$url/kinds" get jobs,pools -o wide --no-headers
    same -s "$url/kinds" get pools,jobs -A
    same -s "$url/big" get jobs
    same -s "$url/big" get jobs -o wide --show-kind
    # the bytes path is the one taken: no tree of the 20,000 rows (its nodes alone are
    # several times the text), so it peaks well below the tree path
    /usr/bin/time -f %M -o "$BATS_TEST_TMPDIR/fast" nodus -s "$url/big" get jobs -o wide >/dev/null
    NODUS_GET_TREE=1 /usr/bin/time -f %M -o "$BATS_TEST_TMPDIR/tree" nodus -s "$url/big" \
        get jobs -o wide >/dev/null
    local fast tree
    fast=$(tail -1 "$BATS_TEST_TMPDIR/fast")
    tree=$(tail -1 "$BATS_TEST_TMPDIR/tree")
    echo "peak: $fast KiB from the bytes, $tree KiB from the tree" >&3
    [ $((fast * 3)) -lt $((tree * 2)) ]
}

@test "get table from the bytes: an emulator's Jobs and Pools, every table flag" {
    start_emulator --no-simulation
    export NODUS_SERVER=$EMU_URL
    local i
    for i in 1 2 3 4 5; do
        post_created /apis/nodus.dev/v1/namespaces/default/jobs \
            "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"job-$i\",\"labels\":{\"app\":\"w$i\",\"team\":\"t\"}},\"spec\":{\"state\":\"Suspended\",\"image\":\"nodus/pytorch:2.8-cuda12.8\",\"maxCostUSD\":\"1.00\"}}"
    done
    nodus create namespace other >/dev/null
    post_created /apis/nodus.dev/v1/namespaces/other/jobs \
        '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"elsewhere"},"spec":{"state":"Suspended","image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"1.00"}}'
    local f
    for f in "${FLAGS[@]}" "--chunk-size 2" "--chunk-size 1 -A -o wide"; do
        # shellcheck disable=SC2086
        same get jobs $f
        # shellcheck disable=SC2086
        same get jobs,pools,projects $f
    done
    run -0 --separate-stderr nodus get jobs --chunk-size 2 --no-headers
    assert_equal "$(wc -l <<<"$output")" 5
    local path kc
    path=$(command -v kubectl 2>/dev/null) || { stop_emulator; skip "kubectl is not installed"; }
    kc=$(dirname "$(readlink -f "$path")")/kubectl.1.33
    [ -x "$kc" ] || { stop_emulator; skip "kubectl 1.33 is not installed beside $path"; }
    run -0 --separate-stderr nodus get jobs -o wide -L app
    local ours=$output
    run -0 --separate-stderr "$kc" --server "$EMU_URL" --cache-dir "$BATS_TEST_TMPDIR/kcache" \
        get jobs.nodus.dev -o wide -L app
    stop_emulator
    assert_equal "$ours" "$output"
}
