#!/usr/bin/env bats
# The conformance kit (tests/conformance, `make conformance`, docs/conformance.md) passes
# against the emulator, through the public API only: the emulator's request log shows
# no /emulator/ path while the kit runs. Its history is aged first (a write, 25 hours of
# its clock, a write), so the kit's 410 Expired check runs instead of skipping.

load ../lib/common

setup_file() {
    EMU_STATE=$BATS_FILE_TMPDIR/state
    local portfile=$BATS_FILE_TMPDIR/port
    # started here rather than with start_emulator: the request log is kept (no --quiet)
    "$ND_BIN_DIR/nodus-emulator" --state "$EMU_STATE" --listen 127.0.0.1:0 \
        --port-file "$portfile" --fsync never --speed 0 --log-format json \
        >"$BATS_FILE_TMPDIR/emulator.out" 2>"$BATS_FILE_TMPDIR/emulator.err" 3>&- &
    echo $! >"$BATS_FILE_TMPDIR/emulator.pid"
    wait_until test -s "$portfile"
    EMU_URL="http://127.0.0.1:$(cat "$portfile")"
    local vol='{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"aged-N"},"spec":{"size":"1Gi"}}'
    curl -sSf -o /dev/null -H 'Content-Type: application/json' -d "${vol/N/1}" \
        "$EMU_URL/apis/nodus.dev/v1/namespaces/default/volumes"
    curl -sSf -o /dev/null -H 'Content-Type: application/json' -d '{"advance":"25h"}' \
        "$EMU_URL/emulator/v1/clock"
    curl -sSf -o /dev/null -H 'Content-Type: application/json' -d "${vol/N/2}" \
        "$EMU_URL/apis/nodus.dev/v1/namespaces/default/volumes"
    export EMU_URL
}

# The outer bats puts its libexec directory first on PATH; a bats found there cannot
# start a suite of its own, so the nested runs get PATH without it.
CLEAN_PATH=${PATH//"$BATS_LIBEXEC:"/}

teardown_file() {
    stop_emulator
}

@test "make conformance without NODUS_SERVER fails with a fix" {
    run env -i PATH="$CLEAN_PATH" HOME="$HOME" make --no-print-directory -C "$ND_ROOT" conformance
    [ "$status" -eq 2 ]
    [ "${lines[0]}" = "make conformance: NODUS_SERVER is not set: name the server to test" ]
    [ "${lines[1]}" = "fix: NODUS_SERVER=https://nodus.example.com make conformance" ]
}

@test "the kit fails clearly when run by hand without NODUS_SERVER" {
    run env -i PATH="$CLEAN_PATH" HOME="$HOME" bats "$ND_ROOT/tests/conformance/05-errors.bats"
    [ "$status" -ne 0 ]
    assert_output --partial "NODUS_SERVER is not set: the conformance kit needs a server to test"
    assert_output --partial "fix: NODUS_SERVER=http://127.0.0.1:PORT make conformance"
}

@test "make conformance passes against the emulator, every check run, no control endpoint used" {
    local before
    before=$(wc -l <"$BATS_FILE_TMPDIR/emulator.err")
    # a clean environment: nothing of the outer bats reaches the inner one
    run env -i PATH="$CLEAN_PATH" HOME="$HOME" NODUS_SERVER="$EMU_URL" \
        make --no-print-directory -C "$ND_ROOT" conformance
    echo "$output" | tail -n 30
    [ "$status" -eq 0 ]
    assert_line --regexp '^[0-9]+ passed, 0 failed$'
    refute_output --partial '# skip'
    refute_output --partial 'not ok'
    # the kit covers every rule of docs/conformance.md
    local total
    total=$(grep -cE '^ok [0-9]+' <<<"$output")
    [ "$total" -ge 31 ]
    assert_line "$total passed, 0 failed"
    # only the public API: no request under /emulator/ since the kit started
    run bash -c "tail -n +$((before + 1)) '$BATS_FILE_TMPDIR/emulator.err' | jq -r .path | grep -c '^/emulator/'"
    assert_output 0
    # and it cleaned up: only the projects that were there before
    run bash -c "curl -s '$EMU_URL/api/v1/namespaces' | jq -r '[.items[].metadata.name] | sort | join(\",\")'"
    assert_output default,nodus
    # and the emulator reported nothing wrong (under the sanitizers: no report)
    run grep -cE 'AddressSanitizer|runtime error|LeakSanitizer' "$BATS_FILE_TMPDIR/emulator.err"
    assert_output 0
}

@test "the kit sends NODUS_TOKEN and trusts NODUS_CA: it passes against an https emulator that needs tokens" {
    load ../lib/tls
    local d=$BATS_TEST_TMPDIR/tls port
    mkdir -p "$d"
    make_test_ca "$d"
    printf '{"tokens": {"t-conf": {"identity": "conf", "projects": ["*"], "scopes": ["read", "write"]}}}\n' \
        >"$d/tokens.json"
    chmod 600 "$d/tokens.json"
    "$ND_BIN_DIR/nodus-emulator" --state "$d/state" --listen 127.0.0.1:0 --port-file "$d/port" \
        --fsync never --speed 0 --quiet --token-file "$d/tokens.json" \
        --tls-cert "$d/srv.pem" --tls-key "$d/srv.key" >"$d/out" 2>"$d/err" 3>&- &
    local pid=$!
    wait_until test -s "$d/port"
    port=$(cat "$d/port")
    run env -i PATH="$CLEAN_PATH" HOME="$HOME" NODUS_SERVER="https://127.0.0.1:$port" \
        NODUS_TOKEN=t-conf NODUS_CA="$d/ca.pem" \
        bats "$ND_ROOT/tests/conformance/05-errors.bats" "$ND_ROOT/tests/conformance/03-pages.bats"
    local ok_status=$status ok_output=$output
    # without the token: every check fails at its set-up, saying why
    run env -i PATH="$CLEAN_PATH" HOME="$HOME" NODUS_SERVER="https://127.0.0.1:$port" \
        NODUS_CA="$d/ca.pem" bats -f 'missing object' "$ND_ROOT/tests/conformance/05-errors.bats"
    kill "$pid"
    wait "$pid" || true
    [ "$status" -eq 1 ]
    assert_output --partial "could not create the project conformance-"
    assert_output --partial '"reason":"Unauthorized"'
    output=$ok_output
    echo "$output" | grep -A12 '^not ok' || true
    [ "$ok_status" -eq 0 ]
    refute_output --partial 'not ok'
}
