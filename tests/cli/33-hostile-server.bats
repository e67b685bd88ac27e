#!/usr/bin/env bats
# The CLI against a hostile server (issue 19, items 6, 7 and 9): tests/cli/fixtures/
# hostile-server.py serves an endless body, an endless watch line, endless headers (over
# http:// and over https://, libcurl's path), a watch that never answers, a watch that
# answers and stays quiet, and objects, Tables, Events and errors full of ESC, CSI, OSC,
# C1, BEL, BS, CR and DEL. The CLI must stay small in memory, end with a clear error,
# and never let a control byte of the server's reach the terminal in a table, describe,
# an error or a watch line, while -o json keeps the strings exact. NODUS_TRACE must
# never follow a link planted in advance.

load ../lib/common
load ../lib/tls

setup_file() {
    export HOME=$BATS_FILE_TMPDIR/home
    mkdir -p "$HOME"
    unset NODUS_SERVER NODUS_TRACE
    local f=$BATS_TEST_DIRNAME/fixtures/hostile-server.py
    python3 "$f" "$BATS_FILE_TMPDIR/plain.port" "$BATS_FILE_TMPDIR/requests.log" 3>&- &
    echo $! >"$BATS_FILE_TMPDIR/plain.pid"
    mkdir -p "$BATS_FILE_TMPDIR/ca"
    make_test_ca "$BATS_FILE_TMPDIR/ca"
    python3 "$f" "$BATS_FILE_TMPDIR/tls.port" "$BATS_FILE_TMPDIR/tls-requests.log" \
        "$BATS_FILE_TMPDIR/ca/srv.pem" "$BATS_FILE_TMPDIR/ca/srv.key" 3>&- &
    echo $! >"$BATS_FILE_TMPDIR/tls.pid"
    wait_until test -s "$BATS_FILE_TMPDIR/plain.port"
    wait_until test -s "$BATS_FILE_TMPDIR/tls.port"
}

teardown_file() {
    local p
    for p in plain tls; do
        [ -s "$BATS_FILE_TMPDIR/$p.pid" ] && kill "$(cat "$BATS_FILE_TMPDIR/$p.pid")" 2>/dev/null
    done
    return 0
}

url() { # MODE: the hostile server, behaving as MODE
    echo "http://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/plain.port")/$1"
}

tls_url() {
    echo "https://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/tls.port")/$1"
}

# peak MAX_KIB ARGS...: runs nodus ARGS (bounded by timeout), sets status, output (stdout
# and stderr) and PEAK_KIB, and fails when the peak resident memory reached MAX_KIB (four
# times that under AddressSanitizer, whose shadow and quarantine of freed blocks cost more
# than the blocks).
peak() {
    local max=$1
    shift
    if grep -q __asan_init "$ND_BIN_DIR/nodus"; then
        max=$((max * 4))
    fi
    run timeout 60 /usr/bin/time -f %M -o "$BATS_TEST_TMPDIR/rss" nodus "$@"
    PEAK_KIB=$(tail -1 "$BATS_TEST_TMPDIR/rss")
    echo "peak ${PEAK_KIB} KiB (limit $max KiB), exit $status: $output" >&3
    [ "$PEAK_KIB" -lt "$max" ]
}

# no_controls FILE...: no byte of a C0 control but LF and TAB, no DEL, no C1 (U+0080 ..
# U+009F in UTF-8) and no byte that is not UTF-8 in the files
no_controls() {
    local f hit
    for f in "$@"; do
        hit=$(LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$f" | cat -v)
        if [ -n "$hit" ]; then
            echo "$f: a raw control byte in (as cat -v shows it): $hit"
            return 1
        fi
        iconv -f UTF-8 -t UTF-8 "$f" >/dev/null || {
            echo "$f: not UTF-8"
            return 1
        }
    done
}

EVIL_SHOWN='^[]0;pwned\x07^[[2J^[[31m\u009b1m\x7f\x08'

@test "an endless list body: exit 1 at 256 MiB (--max-response-bytes), memory bounded" {
    peak 307200 -s "$(url body)" get jobs
    [ "$status" -eq 1 ]
    assert_output --partial "the server's answer is too large: the body is longer than 256MiB (--max-response-bytes)"
    assert_output --partial "fix: "
    assert_output --partial "--max-response-bytes=1Gi"
    # a lower limit holds as well, and less memory goes
    peak 65536 -s "$(url body)" --max-response-bytes=16Mi get jobs -o json
    [ "$status" -eq 1 ]
    assert_output --partial "the body is longer than 16MiB (--max-response-bytes)"
}

@test "a list whose continue tokens never end: exit 1 once its pages pass the limit" {
    peak 131072 -s "$(url pages)" --max-response-bytes=4Mi get jobs
    [ "$status" -eq 1 ]
    assert_output --partial "the list (all its pages) is longer than 4MiB (--max-response-bytes)"
    [ "$(grep -c '^pages GET' "$BATS_FILE_TMPDIR/requests.log")" -le 6 ]
}

@test "an endless watch line: exit 1 at 16 MiB, or 1/16 of --max-response-bytes" {
    peak 65536 -s "$(url line)" get jobs -w
    [ "$status" -eq 1 ]
    assert_output --partial "a streamed line (a watch event or a log line) is longer than 16MiB (--max-response-bytes)"
    peak 131072 -s "$(url line)" --max-response-bytes=512Mi get jobs -w
    [ "$status" -eq 1 ]
    assert_output --partial "is longer than 32MiB (--max-response-bytes)"
}

@test "endless headers: exit 1 at 1 MiB over http://, at libcurl's 300 KiB over https://" {
    peak 65536 -s "$(url headers)" get jobs
    [ "$status" -eq 1 ]
    assert_output --partial "the header block is longer than 1MiB (--max-response-bytes)"
    peak 131072 -s "$(tls_url headers)" --certificate-authority "$BATS_FILE_TMPDIR/ca/ca.pem" \
        get jobs
    [ "$status" -eq 1 ]
    assert_output --partial "the header block is longer than 300KiB (--max-response-bytes)"
}

@test "a watch that never answers ends after --read-idle-timeout with a Timeout (exit 6)" {
    peak 65536 -s "$(url silent)" --read-idle-timeout=1s get jobs -w
    [ "$status" -eq 6 ]
    assert_output --partial "error: the server sent nothing for 1s after the request (--read-idle-timeout)"
    assert_output --partial "fix: Retry; if the server is alive but quiet for longer, raise the limit: --read-idle-timeout=30m"
    # https: libcurl's low-speed limit (whole seconds)
    peak 131072 -s "$(tls_url silent)" --certificate-authority "$BATS_FILE_TMPDIR/ca/ca.pem" \
        --read-idle-timeout=1s get jobs -w
    [ "$status" -eq 6 ]
    assert_output --partial "the server sent nothing for 1s"
    run -2 nodus -s "$(url silent)" --read-idle-timeout=soon get jobs
    assert_output --partial 'invalid argument "soon" for "--read-idle-timeout" flag'
    run -2 nodus -s "$(url silent)" --max-response-bytes=12 get jobs
    assert_output --partial 'want a size such as 512Mi or 1Gi, at least 1Mi'
}

@test "a watch that answers half an event and goes quiet is watched again, never cut" {
    nodus -s "$(url quiet)" --read-idle-timeout=1s get jobs -w >"$BATS_TEST_TMPDIR/out" \
        2>&1 3>&- &
    local pid=$!
    quiet_watches() {
        [ "$(grep -c '^quiet GET .*watch=true' "$BATS_FILE_TMPDIR/requests.log")" -ge "$1" ]
    }
    # each idle second ends the stream and the CLI resumes from the list's version
    wait_until -t 20 quiet_watches 3
    kill -0 "$pid" # still watching
    kill "$pid"
    wait "$pid" || true
    grep 'watch=true.*resourceVersion=5' "$BATS_FILE_TMPDIR/requests.log"
    run cat "$BATS_TEST_TMPDIR/out"
    refute_output --partial error
}

@test "get, --show-labels, wide, -A -L, custom-columns, name: escaped; -o json exact" {
    local s
    s=$(url inject)
    local i=0 args
    for args in "get jobs" "get jobs --show-labels" "get jobs -o wide" "get jobs -A -L app" \
        "get jobs -o custom-columns=N:.metadata.name,M:.status.message" "get jobs -o name" \
        "get jobs evil" "get jobs evil -o name"; do
        i=$((i + 1))
        # shellcheck disable=SC2086 # ARGS are words
        nodus -s "$s" $args >"$BATS_TEST_TMPDIR/out.$i" 2>"$BATS_TEST_TMPDIR/err.$i"
        grep -qF "evil$EVIL_SHOWN" "$BATS_TEST_TMPDIR/out.$i" ||
            fail "nodus $args shows no escaped name: $(cat "$BATS_TEST_TMPDIR/out.$i")"
    done
    no_controls "$BATS_TEST_TMPDIR"/out.* "$BATS_TEST_TMPDIR"/err.*
    grep -qF "app$EVIL_SHOWN" "$BATS_TEST_TMPDIR/out.2" # the LABELS column
    # json keeps every byte as the server sent it
    nodus -s "$s" get jobs -o json >"$BATS_TEST_TMPDIR/list.json"
    run jq -r '.items[0].metadata.name' "$BATS_TEST_TMPDIR/list.json"
    [ "$output" = "$(printf 'evil\033]0;pwned\a\033[2J\033[31m\302\2331m\177\b\r')" ]
    run jq -r '.items[0].metadata.labels | keys[0]' "$BATS_TEST_TMPDIR/list.json"
    [ "$output" = "$(printf 'app\033]0;pwned\a\033[2J\033[31m\302\2331m\177\b\r')" ]
}

@test "describe: names, labels, spec, status, conditions and events escaped" {
    nodus -s "$(url inject)" describe jobs evil >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
    no_controls "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err"
    local field
    for field in "Name:         evil" "Labels:       app" "  Image:    img" "  Message:  msg" \
        "  Ready" "  Warning" "event"; do
        grep -qF "$field$EVIL_SHOWN" "$BATS_TEST_TMPDIR/out" ||
            fail "describe shows no escaped \"$field\": $(cat "$BATS_TEST_TMPDIR/out")"
    done
    # a line break in a label or annotation cannot forge a line of the summary
    grep -qF 'note=a\x0ab' "$BATS_TEST_TMPDIR/out"
}

@test "errors and watch lines: the server's Status and events escaped" {
    run -3 --separate-stderr nodus -s "$(url inject)" get jobs missing
    printf '%s' "$stderr" >"$BATS_TEST_TMPDIR/err"
    no_controls "$BATS_TEST_TMPDIR/err"
    [ "${stderr_lines[0]}" = "Error from server (NotFound$EVIL_SHOWN\\r): job missing$EVIL_SHOWN\\r" ]
    [ "${stderr_lines[1]}" = "fix: nodus fix$EVIL_SHOWN\\r" ]
    # the watch prints the list, then its one event, and stays quiet: a deadline ends it
    run -6 --separate-stderr nodus -s "$(url inject)" --request-timeout=2s get jobs -w
    printf '%s' "$output" >"$BATS_TEST_TMPDIR/out"
    no_controls "$BATS_TEST_TMPDIR/out"
    [ "${#lines[@]}" -eq 3 ] # the header, the listed row, the event's row
    [[ "${lines[2]}" == "evil$EVIL_SHOWN..."* ]]
    # delete -l prints the names the server's list gave
    run -0 --separate-stderr nodus -s "$(url inject)" delete jobs -l app --wait=false
    printf '%s' "$output" >"$BATS_TEST_TMPDIR/out"
    no_controls "$BATS_TEST_TMPDIR/out"
    [ "$output" = "job.nodus.dev \"evil$EVIL_SHOWN\\r\" deleted" ]
}

@test "NODUS_TRACE: a symbolic link planted in advance is neither followed nor chmodded" {
    cd "$BATS_TEST_TMPDIR"
    printf 'keep me\n' >target
    chmod 644 target
    ln -s target trace
    run -3 --separate-stderr env NODUS_TRACE="$PWD/trace" nodus -s "$(url inject)" get jobs missing
    [ "$(cat target)" = "keep me" ]
    [ "$(stat -c %a target)" = 644 ]
    [ -L trace ]
    [[ "$stderr" == "warning: not tracing to NODUS_TRACE: Too many levels of symbolic links"* ]]
    # a hard link is refused as well; a new file of the user's is used, mode 600
    ln target hard
    run -3 --separate-stderr env NODUS_TRACE="$PWD/hard" nodus -s "$(url inject)" get jobs missing
    [ "$(cat target)" = "keep me" ]
    [ "$(stat -c %a target)" = 644 ]
    run -3 env NODUS_TRACE="$PWD/new.trace" nodus -s "$(url inject)" get jobs missing
    [ "$(stat -c %a new.trace)" = 600 ]
    grep -q 'GET http://127.0.0.1:.*/inject/apis/nodus.dev/v1/namespaces/default/jobs/missing 404' new.trace
}
