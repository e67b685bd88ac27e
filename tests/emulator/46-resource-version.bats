#!/usr/bin/env bats
# resourceVersion as kube-apiserver reads it: a list with resourceVersionMatch=Exact shows
# the objects as they were (410 Expired once the history is gone), a get or list at a
# version the server has not reached waits up to 3 s for it, then 504 "Too large resource
# version", and a watch from such a version sends only what comes after it.

load ../lib/common

BUDGETS=/apis/nodus.dev/v1/namespaces/default/budgets

budget() { # NAME: a Budget labelled v=1
    jq -cn --arg n "$1" '{apiVersion:"nodus.dev/v1",kind:"Budget",
        metadata:{name:$n,labels:{v:"1"}},spec:{limitUSD:"3.00",period:"Total"}}'
}

create() { # NAME: prints the created object's resourceVersion
    curl -sf -X POST -H 'Content-Type: application/json' "$(emu_url)$BUDGETS" -d "$(budget "$1")" |
        jq -r .metadata.resourceVersion
}

revision() {
    curl -sf "$(emu_url)/emulator/v1/stats" | jq -r .revision
}

reads_waiting_at_least() {
    [ "$(curl -sf "$(emu_url)/emulator/v1/stats" | jq -r .readsWaiting)" -ge "$1" ]
}

ms() { # milliseconds since the epoch
    local t=${EPOCHREALTIME/./}
    echo $((t / 1000))
}

setup_file() {
    start_emulator
    export HOME=$BATS_FILE_TMPDIR
    create old >/dev/null
    create kept >/dev/null
    create gone >/dev/null
    # the version the Exact lists read at; then one object created, one deleted, one changed
    curl -sf "$(emu_url)$BUDGETS" | jq -r .metadata.resourceVersion >"$BATS_FILE_TMPDIR/r0"
    create new >/dev/null
    curl -sf -o /dev/null -X DELETE "$(emu_url)$BUDGETS/gone"
    curl -sf -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
        "$(emu_url)$BUDGETS/kept" -d '{"metadata":{"labels":{"v":"2"}}}'
}

teardown_file() {
    stop_emulator
}

items() {
    body_json '[.items[] | .metadata.name + "=" + .metadata.labels.v] | join(",")'
}

# A Status of 504 Timeout "Too large resource version" for want against the current one.
assert_too_large() { # WANT [retryAfterSeconds]
    [ "$CODE" = 504 ]
    [ "$(body_json .kind)/$(body_json .reason)/$(body_json .code)" = Status/Timeout/504 ]
    [[ "$(body_json .message)" =~ ^"Timeout: Too large resource version: $1, current: "[0-9]+$ ]]
    [ "$(jq -c .details.causes "$BODY")" = '[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}]' ]
    [ "$(body_json .details.retryAfterSeconds)" = "${2:-null}" ]
    [[ "$(body_json .fix)" == "resourceVersion $1 is newer than this server's "* ]]
}

@test "Exact at a past version: the list as it was, with that version" {
    local r0
    r0=$(cat "$BATS_FILE_TMPDIR/r0")
    http GET "$BUDGETS"
    [ "$(items)" = "kept=2,new=1,old=1" ]
    http GET "$BUDGETS?resourceVersion=$r0&resourceVersionMatch=Exact"
    [ "$CODE" = 200 ]
    [ "$(body_json .kind)" = BudgetList ]
    # created after: absent; deleted after: present; changed after: as it was
    [ "$(items)" = "gone=1,kept=1,old=1" ]
    [ "$(body_json .metadata.resourceVersion)" = "$r0" ]
    # selectors apply to the objects as they were
    http GET "$BUDGETS?resourceVersion=$r0&resourceVersionMatch=Exact&labelSelector=v%3D1"
    [ "$(items)" = "gone=1,kept=1,old=1" ]
    http GET "$BUDGETS?resourceVersion=$r0&resourceVersionMatch=Exact&fieldSelector=metadata.name%21%3Dold"
    [ "$(items)" = "gone=1,kept=1" ]
    # and so do Tables
    http GET "$BUDGETS?resourceVersion=$r0&resourceVersionMatch=Exact" - \
        -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io'
    body_is .kind Table \
        '[.rows[].cells[0]] | join(",")' "gone,kept,old" \
        .metadata.resourceVersion "$r0"
}

@test "Exact with pages: every page at that version, the token keeping it" {
    local r0 token
    r0=$(cat "$BATS_FILE_TMPDIR/r0")
    http GET "$BUDGETS?resourceVersion=$r0&resourceVersionMatch=Exact&limit=2"
    [ "$(items)" = "gone=1,kept=1" ]
    body_is .metadata.resourceVersion "$r0" .metadata.remainingItemCount 1
    token=$(body_json .metadata.continue)
    http GET "$BUDGETS?limit=2&continue=$token"
    [ "$CODE" = 200 ]
    [ "$(items)" = "old=1" ]
    body_is .metadata.resourceVersion "$r0" .metadata.continue null
    # a limit without resourceVersionMatch is Exact too (kube-apiserver's legacy rule)
    http GET "$BUDGETS?resourceVersion=$r0&limit=10"
    [ "$(items)" = "gone=1,kept=1,old=1" ]
    [ "$(body_json .metadata.resourceVersion)" = "$r0" ]
    # NotOlderThan, with a limit or without: the current objects
    http GET "$BUDGETS?resourceVersion=$r0&resourceVersionMatch=NotOlderThan&limit=10"
    [ "$(items)" = "kept=2,new=1,old=1" ]
    http GET "$BUDGETS?resourceVersion=$r0"
    [ "$(items)" = "kept=2,new=1,old=1" ]
}

@test "Exact at a version the server has not reached: 504 at once" {
    local want t0
    want=$(($(revision) + 1000))
    t0=$(ms)
    http GET "$BUDGETS?resourceVersion=$want&resourceVersionMatch=Exact"
    [ $(($(ms) - t0)) -lt 2000 ]
    assert_too_large "$want"
    [ -z "$(header retry-after)" ]
}

# waiter NAME URL [curl args...]: in the background, the answer in $BATS_TEST_TMPDIR/NAME
# (.code its status, .h its headers, .end when it came, in ms)
waiter() {
    local f=$BATS_TEST_TMPDIR/$1 url=$2
    shift 2
    { curl -sS -o "$f" -D "$f.h" -w '%{http_code}' "$@" "$url" >"$f.code"; ms >"$f.end"; } &
}

@test "get and list at a version newer than the server's wait, then 504 Too large resource version" {
    local want t0 answered f
    want=$(($(revision) + 1000))
    t0=$(ms)
    waiter list "$(emu_url)$BUDGETS?resourceVersion=$want"
    waiter get "$(emu_url)$BUDGETS/old?resourceVersion=$want"
    # and a streaming list (client-go's WatchList) at it
    waiter stream "$(emu_url)$BUDGETS?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=$want"
    # all wait; meanwhile the server answers others, reads and writes alike
    wait_until reads_waiting_at_least 3
    run -0 curl -sS -o /dev/null -w '%{http_code} ' "$(emu_url)$BUDGETS/old" \
        --next -sS -o /dev/null -w '%{http_code} ' -X POST -H 'Content-Type: application/json' \
        -d "$(budget during)" "$(emu_url)$BUDGETS" \
        --next -sS -o /dev/null -w '%{http_code}' "$(emu_url)$BUDGETS?resourceVersion=0"
    answered=$(ms)
    assert_output '200 201 200'
    wait
    for f in list get stream; do
        # before any of the waiting ones; those took kube-apiserver's 3 s, measured loosely
        [ "$answered" -lt "$(cat "$BATS_TEST_TMPDIR/$f.end")" ]
        [ $(($(cat "$BATS_TEST_TMPDIR/$f.end") - t0)) -ge 2500 ]
        [ $(($(cat "$BATS_TEST_TMPDIR/$f.end") - t0)) -lt 20000 ]
    done
    for f in list get; do
        BODY=$BATS_TEST_TMPDIR/$f CODE=$(cat "$BATS_TEST_TMPDIR/$f.code") HDRS=$BATS_TEST_TMPDIR/$f.h
        assert_too_large "$want" 1
        [ "$(header retry-after)" = 1 ]
    done
    # the stream: one ERROR event holding the same Status, then its end
    run jq -c '[.type, .object.code, .object.reason, .object.details.causes[0].reason]' \
        "$BATS_TEST_TMPDIR/stream"
    assert_output '["ERROR",504,"Timeout","ResourceVersionTooLarge"]'
    ! reads_waiting_at_least 1
}

@test "a write during the wait: the read answers as usual" {
    local want out=$BATS_TEST_TMPDIR/list
    want=$(($(revision) + 1))
    curl -sS -o "$out" -w '%{http_code}' "$(emu_url)$BUDGETS?resourceVersion=$want" \
        >"$out.code" &
    local pid=$!
    wait_until reads_waiting_at_least 1
    create arrives >/dev/null
    wait "$pid"
    [ "$(cat "$out.code")" = 200 ]
    BODY=$out
    [ "$(body_json .metadata.resourceVersion)" -ge "$want" ]
    [[ "$(items)" == *arrives=1* ]]
}

@test "a watch from a version the server has not reached sends only what comes after it" {
    local want total out=$BATS_TEST_TMPDIR/watch
    want=$(($(revision) + 1))
    total=$(watches_total)
    curl -sSN "$(emu_url)$BUDGETS?watch=true&resourceVersion=$want" >"$out" &
    local pid=$!
    wait_until watches_at_least $((total + 1))
    # this create is version want itself: not sent
    [ "$(create at-want)" = "$want" ]
    create after-want >/dev/null
    wait_until grep -q '"name":"after-want"' "$out"
    kill "$pid"
    wait "$pid" || true
    run jq -r --argjson w "$want" 'select((.object.metadata.resourceVersion | tonumber) <= $w)
        | .type + " " + .object.metadata.name' "$out"
    assert_output ''
    run jq -r 'select(.type == "ADDED") | .object.metadata.name' "$out"
    assert_output after-want
}

@test "nodus get --raw at a version newer than the server's says so, with the fix" {
    local want
    want=$(($(revision) + 1000))
    run -6 nodus --server "$(emu_url)" get --raw "$BUDGETS?resourceVersion=$want"
    assert_line --index 0 --regexp "^Error from server \(Timeout\): Timeout: Too large resource version: $want, current: [0-9]+\$"
    assert_line --index 1 --regexp "^fix: resourceVersion $want is newer than this server's \([0-9]+\): retry in a second if a write is on its way, else read without resourceVersion or with one the server gave \([0-9]+ or older\)\$"
}

@test "Exact at a version older than the kept history: 410 Expired" {
    local r0
    r0=$(cat "$BATS_FILE_TMPDIR/r0")
    # 24 hours of history are kept: past them the version is gone
    clock_advance 25h
    http GET "$BUDGETS?resourceVersion=$r0&resourceVersionMatch=Exact"
    [ "$CODE" = 410 ]
    [ "$(body_json .reason)/$(body_json .code)" = Expired/410 ]
    [ "$(body_json .message)" = "The resourceVersion for the provided list is too old." ]
    [[ "$(body_json .fix)" =~ ^"the kept history reaches back to resourceVersion "[0-9]+": list with that or a newer one, or without resourceVersion"$ ]]
    http GET "$BUDGETS?resourceVersion=$r0&limit=10"
    [ "$CODE" = 410 ]
    # the current version still lists
    http GET "$BUDGETS?resourceVersion=$(revision)&resourceVersionMatch=Exact"
    [ "$CODE" = 200 ]
}
