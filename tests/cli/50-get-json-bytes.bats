#!/usr/bin/env bats
# get -o json of a list is written from the answers' bytes (cmd/nodus/get_json.c,
# pkg/json/json_pretty.c), not from a tree. These tests hold it to the tree's output,
# byte for byte, on objects with what a reformatter gets wrong: escapes (\", \\, \/,
# \u00e9, \u2028, control characters, surrogate pairs), Go's HTML escapes of < > &, raw
# UTF-8, keys out of order, managedFields, several pages. The tree path is the oracle:
# --sort-by=.metadata.name (the list is in name order already) and a single object still
# go through jansson; kubectl 1.33 too when installed.

load ../lib/common

bats_require_minimum_version 1.5.0

setup_file() {
    start_emulator --no-simulation
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$EMU_URL
    mkdir -p "$HOME"
    local jobs=/apis/nodus.dev/v1/namespaces/default/jobs
    # annotations as escaped JSON text (printf keeps the backslashes); LSEP: a raw U+2028
    local body
    body="$(printf '%s' '{"apiVersion":"nodus.dev/v1","kind":"Job",
      "metadata":{"name":"tricky-a","labels":{"z":"1","a":"2","m":"3"},
        "annotations":{"quote":"say \"hi\" \\ back\/slash","html":"<b>&amp;</b> a&b",
          "unicode":"caf\u00e9 na\u00efve \ud83d\ude00 raw: é ü 😀 ﬁ","ls":"a\u2028b\u2029c raw: xLSEPy",
          "ctl":"tab\there\nnew\u0001one\u001f","json":"{\"a\":[1,2,{}],\"b\":{\"c\":null}}",
          "empty":""}},
      "spec":{"state":"Suspended","image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"12.50",
        "command":["python","-c","print(\"<&>\")"],"resources":{"gpu":{"count":2,"model":"H100"}}}}')"
    post_created "$jobs" "${body//LSEP/$'\xe2\x80\xa8'}"
    local i
    for i in 1 2 3 4 5; do
        post_created "$jobs" "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"plain-$i\"},\"spec\":{\"state\":\"Suspended\",\"image\":\"nodus/pytorch:2.8-cuda12.8\",\"maxCostUSD\":\"1.00\"}}"
    done
    # managedFields on one (server-side apply writes them)
    curl -sS -o /dev/null -X PATCH -H 'Content-Type: application/apply-patch+yaml' \
        --data-binary '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"applied"},"spec":{"state":"Suspended","image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"2.00"}}' \
        "$EMU_URL$jobs/applied?fieldManager=bats"
}

teardown_file() {
    stop_emulator
}

@test "get -o json from the bytes: the tree's output byte for byte, escapes and all" {
    run -0 --separate-stderr nodus get jobs -o json
    local fast=$output
    assert_equal "$stderr" ""
    run -0 --separate-stderr nodus get jobs -o json --sort-by=.metadata.name
    assert_equal "$fast" "$output"
    # what the escapes come out as (Go's encoding/json, kubectl's)
    grep -qF '"html": "\u003cb\u003e\u0026amp;\u003c/b\u003e a\u0026b"' <<<"$fast"
    grep -qF '"quote": "say \"hi\" \\ back/slash"' <<<"$fast"
    grep -qF '"ls": "a\u2028b\u2029c raw: x\u2028y"' <<<"$fast"
    grep -qF '"ctl": "tab\there\nnew\u0001one\u001f"' <<<"$fast"
    grep -qF '"unicode": "café naïve 😀 raw: é ü 😀 ﬁ"' <<<"$fast"
    jq -e '[.items[].metadata.name] == ["applied", "plain-1", "plain-2", "plain-3", "plain-4",
           "plain-5", "tricky-a"] and all(.items[]; .metadata | has("managedFields") | not)' \
        <<<"$fast"
}

@test "get -o json from the bytes: pages joined, managedFields kept when asked" {
    run -0 --separate-stderr nodus get jobs -o json
    local whole=$output
    run -0 --separate-stderr nodus get jobs -o json --chunk-size 2
    assert_equal "$whole" "$output"
    run -0 --separate-stderr nodus get jobs -o json --show-managed-fields
    local fast=$output
    jq -e '.items[0].metadata.managedFields[0].manager == "bats"' <<<"$fast"
    run -0 --separate-stderr nodus get jobs -o json --show-managed-fields --sort-by=.metadata.name
    assert_equal "$fast" "$output"
}

@test "get -o json from the bytes: the same bytes as kubectl 1.33" {
    local path kc
    path=$(command -v kubectl 2>/dev/null) || skip "kubectl is not installed on this machine"
    kc=$(dirname "$(readlink -f "$path")")/kubectl.1.33
    [ -x "$kc" ] || skip "kubectl 1.33 is not installed beside $path"
    run -0 --separate-stderr nodus get jobs -o json
    local ours=$output
    run -0 --separate-stderr "$kc" --server "$EMU_URL" --cache-dir "$BATS_FILE_TMPDIR/kcache" \
        get jobs.nodus.dev -o json
    assert_equal "$ours" "$output"
}
