#!/usr/bin/env bats
# Authorisation as one decision: every route (fixtures/authz-routes.tsv) walked as every
# caller (no token, an unknown token, and tokens with the scopes read, write,
# billing:write and admin, all for project proj-a), checking each answer's status and
# that no refused request changed the state; then the holes this closed, one by one.

load ../lib/common

TABLE=$BATS_TEST_DIRNAME/fixtures/authz-routes.tsv
CALLERS=(anon unknown read write billing admin)
NS=/apis/nodus.dev/v1/namespaces
KEY=dGhlIHNhbXBsZSBub25jZQ==
ROOT=(-H 'Authorization: Bearer t-root')

setup_file() {
    cat >"$BATS_FILE_TMPDIR/tokens.json" <<'EOF'
{"tokens": {
  "t-root":  {"identity": "root", "projects": ["*"], "scopes": ["admin"]},
  "t-read":  {"identity": "rita", "projects": ["proj-a"], "scopes": ["read"]},
  "t-write": {"identity": "walt", "projects": ["proj-a"], "scopes": ["write"]},
  "t-bill":  {"identity": "bill", "projects": ["proj-a"], "scopes": ["billing:write"]},
  "t-admin": {"identity": "ada", "projects": ["proj-a"], "scopes": ["admin"]}}}
EOF
    chmod 600 "$BATS_FILE_TMPDIR/tokens.json"
    start_emulator --token-file "$BATS_FILE_TMPDIR/tokens.json"
    local ns s
    for ns in proj-a proj-b; do
        root POST /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}"
        root POST "$NS/$ns/volumes" "$(volume v0)"
        for s in "${CALLERS[@]}"; do root POST "$NS/$ns/volumes" "$(volume "d-$s")"; done
        root POST "$NS/$ns/sandboxes" '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"box"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"10.00"}}'
        root POST "$NS/$ns/functions" '{"apiVersion":"nodus.dev/v1","kind":"Function","metadata":{"name":"f0"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","command":["cat"],"maxCostUSD":"1.00"}}'
    done
    # Sandboxes and Functions Running
    root POST /emulator/v1/clock '{"advance":"30s"}'
    # The end of an exec session marks the Sandbox active (lastActivityTime), once per
    # instant of the clock, which stands still: one session now, so that the sessions of
    # the table change nothing on disk while the requests after them are checked.
    curl -s -m 5 -o /dev/null "${ROOT[@]}" -H 'Connection: Upgrade' -H 'Upgrade: websocket' \
        -H 'Sec-WebSocket-Version: 13' -H "Sec-WebSocket-Key: $KEY" \
        -H 'Sec-WebSocket-Protocol: v5.channel.k8s.io' \
        "$EMU_URL$NS/proj-a/sandboxes/box/exec?command=true&stdout=true" </dev/null || true
    box_touched() {
        curl -sf "${ROOT[@]}" "$EMU_URL$NS/proj-a/sandboxes/box" | jq -e .status.lastActivityTime
    }
    wait_until box_touched
    root POST /emulator/v1/snapshots/base
    curl -sf "${ROOT[@]}" "$EMU_URL/emulator/v1/pricebook" >"$BATS_FILE_TMPDIR/pricebook.json"
    echo hello >"$BATS_FILE_TMPDIR/hello.txt"
    tar -C "$BATS_FILE_TMPDIR" -cf "$BATS_FILE_TMPDIR/files.tar" hello.txt
}

teardown_file() {
    stop_emulator
    # the sanitizer builds report here
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

volume() {
    echo "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"size\":\"1Gi\"}}"
}

# root METHOD PATH [BODY]: as the token for every project; must succeed.
root() {
    curl -sf -o /dev/null -X "$1" -H 'Authorization: Bearer t-root' \
        -H 'Content-Type: application/json' ${3:+--data-binary "$3"} "$(emu_url)$2" </dev/null ||
        { echo "root $1 $2 failed" >&2; return 1; }
}

# The token each caller sends (none for anon).
declare -gA TOKEN=([anon]= [unknown]=t-nobody [read]=t-read [write]=t-write [billing]=t-bill
    [admin]=t-admin)

# The state as it is on disk: what a refused request must leave alone.
# Every file's path, size and modification time (to the nanosecond): the store writes a
# new file and renames it over the old, so any write shows.
state_sum() {
    find "$EMU_STATE" -printf '%p %s %T@\n' | sort
}

# the state's sum once it holds still: what the allowed requests before changed is still
# being written after their answers (the object files follow the journal, and the
# simulation answers a new object, a Volume bound, with writes of its own)
quiet_sum() {
    local a b tries
    a=$(state_sum)
    for tries in $(seq 1 50); do
        sleep 0.1
        b=$(state_sum)
        [ "$a" = "$b" ] && break
        a=$b
    done
    printf '%s\n' "$b"
}

# cfg_string VAR VALUE: sets VAR to VALUE quoted for a curl config file
cfg_string() {
    local v=${2//\\/\\\\}
    printf -v "$1" '"%s"' "${v//\"/\\\"}"
}

# request K CALLER METHOD PATH BODY: the curl config lines of one request (its body goes to
# $BATS_TEST_TMPDIR/out.K, its status to curl's output)
request() {
    local q
    cfg_string q "$URL$4"
    echo "url = $q"
    echo "output = \"$BATS_TEST_TMPDIR/out.$1\""
    echo 'write-out = "%{http_code}\n"'
    [ -n "${TOKEN[$2]}" ] && echo "header = \"Authorization: Bearer ${TOKEN[$2]}\""
    case $3 in
    HEAD) echo head ;;
    WATCH) echo 'max-time = 0.25' ;; # a watch stays open: its status is what counts
    WS) echo 'max-time = 5'
        printf 'header = "%s"\n' 'Connection: Upgrade' 'Upgrade: websocket' \
            'Sec-WebSocket-Version: 13' "Sec-WebSocket-Key: $KEY" \
            'Sec-WebSocket-Protocol: v5.channel.k8s.io' ;;
    PATCH) echo 'request = "PATCH"'
        echo 'header = "Content-Type: application/merge-patch+json"' ;;
    *) echo "request = \"$3\"" ;;
    esac
    case $3:$5 in
    *:-) ;;
    *:@tar) echo "data-binary = \"@$BATS_FILE_TMPDIR/files.tar\""
        echo 'header = "Content-Type: application/x-tar"' ;;
    *:@pricebook) echo "data-binary = \"@$BATS_FILE_TMPDIR/pricebook.json\""
        echo 'header = "Content-Type: application/json"' ;;
    PATCH:*) cfg_string q "$5"
        echo "data-binary = $q" ;;
    *) cfg_string q "$5"
        echo "data-binary = $q"
        echo 'header = "Content-Type: application/json"' ;;
    esac
}

# walk FAMILY: every row of the family as every caller; each mismatch is reported with
# its row. Refused writes must leave the state directory as it was.
# The requests go in order, a run at a time through one curl (a config of requests; a
# watch ends by its timeout, curl's status 28, and curl goes on): a run of requests that
# must be refused, with the state directory compared before and after it, or a run of
# requests that may succeed (and write: even a GET of files makes a Volume's folder).
walk() {
    local family method path body codes want i who p b n=0 bad=() k
    local -a what=() wants=() runs=()
    local cfg=$BATS_TEST_TMPDIR/run.cfg
    URL=$(emu_url)
    while IFS=$'\t' read -r family method path body codes; do
        [ "$family" = "$1" ] || continue
        read -ra want <<<"$codes"
        [ "${#want[@]}" = "${#CALLERS[@]}" ] || { bad+=("malformed row: $method $path"); continue; }
        for i in "${!CALLERS[@]}"; do
            who=${CALLERS[$i]}
            p=${path//\{s\}/$who}
            b=${body//\{s\}/$who}
            k=${#what[@]}
            what+=("$method $p as $who")
            wants+=("${want[$i]}")
            request "$k" "$who" "$method" "$p" "$b" >"$cfg.$k"
            case ${want[$i]} in
            40[13]) runs+=(refused) ;;
            *) runs+=(allowed) ;;
            esac
        done
    done <"$TABLE"
    # the runs: [start, end) of requests, all refused (the state is compared around it)
    # or all allowed
    local start=0 end before got codes_of_run=() j lines=()
    while [ "$start" -lt "${#what[@]}" ]; do
        end=$((start + 1))
        while [ "$end" -lt "${#what[@]}" ] && [ "${runs[$end]}" = "${runs[$start]}" ]; do
            end=$((end + 1))
        done
        before=
        [ "${runs[$start]}" = refused ] && before=$(quiet_sum)
        for ((j = start; j < end; j++)); do
            [ "$j" = "$start" ] || echo next
            mapfile -t lines <"$cfg.$j" # (not cat: no process a request)
            printf '%s\n' "${lines[@]}"
        done >"$cfg"
        mapfile -t codes_of_run < <(curl -s -K "$cfg" </dev/null || true)
        for ((j = start; j < end; j++)); do
            got=${codes_of_run[$((j - start))]:-none}
            # a watch's status is read within its 0.25 s: on a loaded machine (make asan
            # beside other suites) the headers can come later; that one is asked again alone
            # with time to answer, so a slow start is not taken for a wrong answer
            if [ "$got" = 000 ] && [ "${what[$j]%% *}" = WATCH ]; then
                got=$(curl -s -K "$cfg.$j" --max-time 5 </dev/null || true)
                codes_of_run[$((j - start))]=$got
            fi
            n=$((n + 1))
            # (the answer may have no body: a failed head must not end the walk unreported)
            [ "$got" = "${wants[$j]}" ] ||
                bad+=("${what[$j]}: got $got, want ${wants[$j]}: $(head -c 300 "$BATS_TEST_TMPDIR/out.$j" 2>/dev/null || true)")
        done
        if [ -n "$before" ] && [ "$(state_sum)" != "$before" ]; then
            for ((j = start; j < end; j++)); do
                bad+=("${what[$j]}: refused (${codes_of_run[$((j - start))]:-none}), yet the state directory changed (one of the refused requests $start to $((end - 1)) wrote)")
            done
        fi
        start=$end
    done
    echo "# $1: $n requests" >&3
    [ "$n" -gt 0 ] || bad+=("no rows for family $1")
    if [ "${#bad[@]}" -gt 0 ]; then
        printf '%s\n' "${bad[@]}"
        return 1
    fi
}

@test "table: REST verbs on a namespaced kind, own and other project" {
    untraced walk rest
}

@test "table: subresources log, exec (WebSocket upgrade), files GET/PUT, invoke" {
    untraced walk sub
}

@test "table: namespaces get, list, watch, create, patch, delete, deletecollection" {
    untraced walk namespaces
}

@test "table: Events and cluster-wide lists and watches, project nodus" {
    untraced walk cluster
}

@test "table: discovery, OpenAPI, version, health and /docs" {
    untraced walk discovery
}

@test "a read token cannot exec: the upgrade is 403 and no process runs" {
    # the command sees the Sandbox's files at / (bubblewrap): /ran-authz is this file
    local marker=$EMU_STATE/files/proj-a/sandboxes/box/ran-authz
    local ws=(-H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13'
        -H "Sec-WebSocket-Key: $KEY" -H 'Sec-WebSocket-Protocol: v5.channel.k8s.io')
    local path="$NS/proj-a/sandboxes/box/exec?command=touch&command=/ran-authz&stdout=true"
    http GET "$path" - "${ws[@]}" -m 5 -H 'Authorization: Bearer t-read'
    [ "$CODE" = 403 ]
    assert_equal "$(body_json '[.reason, .message, .fix] | @tsv')" \
        "$(printf 'Forbidden\trita may not exec into %s: it needs the token scope write\tuse a token with the write scope' "${path%%\?*}")"
    [ ! -e "$marker" ]
    # the same request with write runs the command: the check above could see it
    http GET "$path" - "${ws[@]}" -m 5 -H 'Authorization: Bearer t-write'
    [ "$CODE" = 101 ]
    wait_until test -e "$marker"
}

@test "a token for proj-a cannot delete other projects with DELETE /api/v1/namespaces" {
    local before
    before=$(state_sum)
    http DELETE /api/v1/namespaces - -H 'Authorization: Bearer t-admin'
    [ "$CODE" = 403 ]
    assert_equal "$(body_json '[.reason, .fix] | @tsv')" \
        "$(printf 'Forbidden\tdelete each project by name: nodus delete namespace NAME')"
    http DELETE /api/v1/namespaces/proj-b - -H 'Authorization: Bearer t-admin'
    [ "$CODE" = 403 ]
    assert_equal "$(body_json .message)" \
        "ada may not delete /api/v1/namespaces/proj-b: the token is not for project proj-b"
    assert_equal "$(state_sum)" "$before"
    http GET /api/v1/namespaces/proj-b - "${ROOT[@]}"
    [ "$CODE" = 200 ]
}

@test "a token for proj-a sees only its projects' Events, Namespaces and objects" {
    local all mine
    # root sees both projects' events; rita only proj-a's
    http GET /api/v1/events - "${ROOT[@]}"
    all=$(body_json '[.items[].metadata.namespace] | unique | join(" ")')
    assert_equal "$all" "proj-a proj-b"
    http GET /api/v1/events - -H 'Authorization: Bearer t-read'
    [ "$CODE" = 200 ]
    assert_equal "$(body_json '[.items[].metadata.namespace] | unique | join(" ")')" proj-a
    http GET /api/v1/namespaces - -H 'Authorization: Bearer t-read'
    assert_equal "$(body_json '[.items[].metadata.name] | join(" ")')" "nodus proj-a"
    http GET /apis/nodus.dev/v1/volumes - -H 'Authorization: Bearer t-read'
    assert_equal "$(body_json '[.items[].metadata.namespace] | unique | join(" ")')" proj-a
    # a page of one at a time still skips the other project
    http GET '/apis/nodus.dev/v1/sandboxes?limit=1' - -H 'Authorization: Bearer t-read'
    assert_equal "$(body_json '[.items[].metadata.namespace, (.metadata.continue // "end")] | join(" ")')" "proj-a end"
    # watches: the current objects (ADDED) and what changes later, proj-a's only
    mine=$BATS_TEST_TMPDIR/watch
    curl -sN -m 10 -H 'Authorization: Bearer t-read' "$(emu_url)/api/v1/events?watch=true" \
        >"$mine" 3>&- &
    local pid=$!
    wait_until test -s "$mine"
    root POST "$NS/proj-b/volumes" "$(volume later-b)"
    root POST "$NS/proj-a/volumes" "$(volume later-a)"
    # later-b's event comes before later-a's, if it comes at all
    wait_until grep -q later-a "$mine"
    kill "$pid"
    wait "$pid" || true
    run jq -rs '[.[].object.metadata.namespace] | unique | join(" ")' "$mine"
    assert_output proj-a
    run jq -rs '[.[].object.involvedObject.name] | index("later-a") != null' "$mine"
    assert_output true
    run curl -s -m 0.5 -H 'Authorization: Bearer t-read' "$(emu_url)/api/v1/namespaces?watch=true"
    run jq -rs '[.[].object.metadata.name] | join(" ")' <<<"$output"
    assert_output "nodus proj-a"
}

@test "anonymous reset is 401 on loopback with --token-file, and resets nothing" {
    local before
    before=$(state_sum)
    http POST /emulator/v1/reset {}
    [ "$CODE" = 401 ]
    assert_equal "$(body_json '[.reason, .message] | @tsv')" "$(printf 'Unauthorized\ta bearer token is required')"
    http POST /emulator/v1/reset {} -H 'Authorization: Bearer t-wrong'
    [ "$CODE" = 401 ]
    assert_equal "$(body_json .message)" "the bearer token is not known"
    assert_equal "$(state_sum)" "$before"
}

@test "a read token cannot inject faults" {
    http POST /emulator/v1/faults '{"path":".","status":503,"count":5}' -H 'Authorization: Bearer t-read'
    [ "$CODE" = 403 ]
    assert_equal "$(body_json '[.reason, .message, .fix] | @tsv')" \
        "$(printf 'Forbidden\trita may not use /emulator/v1/faults: it needs the token scope admin\tuse a token with the admin scope')"
    http GET /emulator/v1/faults - "${ROOT[@]}"
    assert_equal "$(body_json '.faults | length')" 0
    http GET "$NS/proj-a/volumes/v0" - -H 'Authorization: Bearer t-read'
    [ "$CODE" = 200 ]
}

@test "HEAD is GET without the body, with a read token" {
    local len port answer
    http GET "$NS/proj-a/volumes/v0" - -H 'Authorization: Bearer t-read'
    len=$(wc -c <"$BODY")
    # on the wire: the GET's head, and nothing after it
    port=$(cat "$BATS_FILE_TMPDIR/port")
    exec 4<>"/dev/tcp/127.0.0.1/$port"
    printf 'HEAD %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t-read\r\nConnection: close\r\n\r\n' \
        "$NS/proj-a/volumes/v0" >&4
    answer=$(timeout 5 cat <&4 | tr -d '\r')
    exec 4<&-
    [[ "$answer" == "HTTP/1.1 200 OK"* ]]
    grep -qx "Content-Length: $len" <<<"$answer"
    grep -qx "Content-Type: application/json" <<<"$answer"
    # nothing after the empty line that ends the head
    [ "$(printf '%s' "$answer" | sed -n '/^$/,$p' | grep -c .)" = 0 ]
    # a token without read may not HEAD either
    http HEAD "$NS/proj-a/volumes/v0" - -I -H 'Authorization: Bearer t-write'
    [ "$CODE" = 403 ]
    # HEAD cannot open an exec session
    http HEAD "$NS/proj-a/sandboxes/box/exec?command=true&stdout=true" - -I \
        -H 'Authorization: Bearer t-write' -H 'Connection: Upgrade' -H 'Upgrade: websocket'
    [ "$CODE" = 405 ]
    # a watch answered to HEAD ends at once
    http HEAD "$NS/proj-a/volumes?watch=true" - -I -m 5 -H 'Authorization: Bearer t-read'
    [ "$CODE" = 200 ]
}

@test "project nodus and the Namespace nodus cannot be changed, even by admin" {
    local before
    before=$(state_sum)
    http PATCH /api/v1/namespaces/nodus '{"metadata":{"labels":{"x":"y"}}}' "${ROOT[@]}" \
        -H 'Content-Type: application/merge-patch+json'
    [ "$CODE" = 403 ]
    assert_equal "$(body_json '[.reason, .message, .fix] | @tsv')" \
        "$(printf 'Forbidden\tthe project nodus is read-only\tuse your own project, e.g. -n default')"
    http PUT /api/v1/namespaces/nodus '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"nodus"}}' "${ROOT[@]}"
    [ "$CODE" = 403 ]
    http POST "$NS/nodus/volumes" "$(volume mine)" "${ROOT[@]}"
    [ "$CODE" = 403 ]
    assert_equal "$(state_sum)" "$before"
}

@test "without --token-file the project nodus is read-only too" {
    local dir=$BATS_TEST_TMPDIR/open
    mkdir -p "$dir"
    nodus-emulator --state "$dir/state" --listen 127.0.0.1:0 --port-file "$dir/port" \
        --fsync never --quiet >/dev/null 2>"$dir/err" 3>&- &
    local pid=$! u
    wait_until test -s "$dir/port"
    u="http://127.0.0.1:$(cat "$dir/port")"
    run curl -s -o /dev/null -w '%{http_code}' -X PATCH -H 'Content-Type: application/merge-patch+json' \
        -d '{"metadata":{"labels":{"x":"y"}}}' "$u/api/v1/namespaces/nodus"
    kill "$pid"
    wait "$pid" || true
    assert_output 403
}

@test "a token file open to group or others stops the start, before --reset" {
    local dir=$BATS_TEST_TMPDIR/loose mode
    mkdir -p "$dir"
    cp "$BATS_FILE_TMPDIR/tokens.json" "$dir/tokens.json"
    # a state directory --reset would empty
    mkdir -p "$dir/state"
    echo keep >"$dir/state/keep"
    for mode in 644 640 604 660 606; do
        chmod "$mode" "$dir/tokens.json"
        run timeout 10 nodus-emulator --state "$dir/state" --reset --listen 127.0.0.1:0 \
            --token-file "$dir/tokens.json" --quiet
        [ "$status" = 1 ]
        assert_output "nodus-emulator: --token-file $dir/tokens.json is open to group or others (mode 0$mode): it holds secrets; make it private with: chmod 600 $dir/tokens.json"
        [ -e "$dir/state/keep" ]
    done
    # unknown scopes are refused too, not dropped
    chmod 600 "$dir/tokens.json"
    echo '{"t": {"identity": "x", "scopes": ["reads"]}}' >"$dir/tokens.json"
    run timeout 10 nodus-emulator --state "$dir/state" --listen 127.0.0.1:0 --token-file "$dir/tokens.json"
    [ "$status" = 1 ]
    assert_output "nodus-emulator: --token-file: x: unknown scope reads (the scopes are read, write, billing:write, admin and *)"
}

@test "a token is printable text: one with a control character or empty is refused at start" {
    local dir=$BATS_TEST_TMPDIR/ctl
    mkdir -p "$dir"
    # (a NUL inside a key the JSON reader refuses already: "NUL byte in object key")
    for tok in 't-esc\u001b[31m' 't-del\u007f' 't-tab\t' ''; do
        printf '{"t-ok": {"identity": "ok"}, "%s": {"identity": "eve"}}' "$tok" >"$dir/tokens.json"
        chmod 600 "$dir/tokens.json"
        run timeout 10 nodus-emulator --state "$dir/state" --listen 127.0.0.1:0 \
            --token-file "$dir/tokens.json" --quiet
        [ "$status" = 1 ]
        if [ -z "$tok" ]; then
            assert_output "nodus-emulator: --token-file: the token of eve is empty: a token is printable text (no control characters)"
        else
            # the message names the identity, never the token (a secret)
            assert_output "nodus-emulator: --token-file: the token of eve holds a control character: a token is printable text (no control characters)"
        fi
    done
    # a bearer token with a control byte is no token: 401, however it ends
    http GET "$NS/proj-a/volumes" - -H $'Authorization: Bearer t-root\x01'
    [ "$CODE" = 401 ]
}

@test "a token for every project may create and delete any project; not nodus" {
    http POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"proj-c"}}' "${ROOT[@]}"
    [ "$CODE" = 201 ]
    http DELETE /api/v1/namespaces/proj-c - "${ROOT[@]}"
    [ "$CODE" = 200 ]
    http DELETE /api/v1/namespaces/nodus - "${ROOT[@]}"
    [ "$CODE" = 403 ]
}

# Last: the control endpoints (their admin rows snapshot, restore and reset the state).
@test "table: control endpoints (clock, stats, price book, faults, snapshots, reset)" {
    untraced walk control
}
