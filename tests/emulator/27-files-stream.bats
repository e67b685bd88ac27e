#!/usr/bin/env bats
# Files uploads of any size: a PUT's body streams to disk as it arrives (Content-Length
# or chunked), up to --max-upload-bytes (16Mi here), without holding the server up, and
# lands only once the archive has ended whole; a GET says how long its stream is.

load ../lib/common

NS=/apis/nodus.dev/v1/namespaces/default
FILES=$NS/volumes/data/files

setup_file() {
    start_emulator --max-upload-bytes 16Mi
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"data"},"spec":{"size":"10Gi"}}' \
        "$EMU_URL$NS/volumes"
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

TREE() { echo "$EMU_STATE/files/default/volumes/data"; }
STAGE() { echo "$EMU_STATE/files/.uploads"; }
staging() { [ -n "$(ls -A "$(STAGE)" 2>/dev/null)" ]; } # an upload is being staged

# An archive of one file of N MiB of random bytes: big.tar holding big.bin.
make_tar() {
    head -c "$1M" /dev/urandom >big.bin
    chmod 640 big.bin
    tar -cf big.tar big.bin
}

@test "a PUT of more than 3 MiB is written byte-exact, sent with Content-Length or chunked" {
    make_tar 8
    http PUT "$FILES?path=/cl" @big.tar -H 'Content-Type: application/x-tar'
    [ "$CODE" = 200 ]
    [ "$(body_json .message)" = "wrote 1 member under /cl" ]
    cmp big.bin "$(TREE)/cl/big.bin"
    [ "$(stat -c %a "$(TREE)/cl/big.bin")" = 640 ]
    CODE=$(curl -sS -o body -w '%{http_code}' -T - -H 'Content-Type: application/x-tar' \
        "$(emu_url)$FILES?path=/chunked" <big.tar)
    [ "$CODE" = 200 ]
    cmp big.bin "$(TREE)/chunked/big.bin"
}

@test "a GET says the length of its tar stream in X-Content-Length" {
    make_tar 5
    http PUT "$FILES?path=/len" @big.tar -H 'Content-Type: application/x-tar'
    [ "$CODE" = 200 ]
    http GET "$FILES?path=/len"
    [ "$CODE" = 200 ]
    [ "$(header X-Content-Length)" = "$(stat -c %s "$BODY")" ]
    [ "$(header X-Content-Length)" = $((512 + 512 + 5 * 1048576 + 1024)) ]
    tar -xf "$BODY"
    cmp big.bin len/big.bin
}

@test "past --max-upload-bytes: 413 at once when the size is declared, at the end when chunked; nothing written" {
    make_tar 20
    http PUT "$FILES?path=/big" @big.tar -H 'Content-Type: application/x-tar'
    [ "$CODE" = 413 ]
    [ "$(body_json .reason)" = RequestEntityTooLarge ]
    [ "$(body_json .message)" = "the upload of $(stat -c %s big.tar) bytes is larger than the emulator's limit of 16Mi (--max-upload-bytes); none of the archive was written" ]
    [ "$(body_json .fix)" = "restart the emulator with a larger --max-upload-bytes: nodus emulator stop && nodus emulator start --max-upload-bytes 32Mi" ]
    CODE=$(curl -sS -o body -w '%{http_code}' -T - -H 'Content-Type: application/x-tar' \
        "$(emu_url)$FILES?path=/big" <big.tar)
    [ "$CODE" = 413 ]
    [ "$(jq -r .message body)" = "the upload is larger than the emulator's limit of 16Mi (--max-upload-bytes); none of the archive was written" ]
    [ ! -e "$(TREE)/big/big.bin" ]
    [ -z "$(ls -A "$(STAGE)")" ]
}

@test "an upload in progress holds nothing up, and lands only when its archive has ended" {
    make_tar 6
    mkfifo pipe
    curl -sS -o body -w '%{http_code}' -T - -H 'Content-Type: application/x-tar' \
        "$(emu_url)$FILES?path=/slow" <pipe >code &
    local curl_pid=$!
    exec 5>pipe
    head -c 4194304 big.tar >&5
    # staged, not in place; the server answers others meanwhile
    wait_until staging
    [ "$(curl -sS -m 2 "$(emu_url)/healthz")" = ok ]
    [ "$(curl -sS -m 2 -o /dev/null -w '%{http_code}' "$(emu_url)$NS/volumes")" = 200 ]
    [ ! -e "$(TREE)/slow/big.bin" ]
    tail -c +4194305 big.tar >&5
    exec 5>&-
    wait "$curl_pid"
    [ "$(cat code)" = 200 ]
    cmp big.bin "$(TREE)/slow/big.bin"
    [ -z "$(ls -A "$(STAGE)")" ]
}

@test "an upload cut off midway, or refused at a member midway, leaves nothing" {
    make_tar 6
    mkfifo pipe
    curl -sS -o /dev/null -T - -H 'Content-Type: application/x-tar' \
        "$(emu_url)$FILES?path=/cut" <pipe &
    local curl_pid=$!
    exec 5>pipe
    head -c 4194304 big.tar >&5
    wait_until staging
    kill "$curl_pid"
    exec 5>&-
    wait "$curl_pid" || true
    wait_until eval '! staging'
    [ ! -e "$(TREE)/cut/big.bin" ]
    # a hard link after 6 MiB of good content: refused, and the good member is not written
    ln big.bin hard.bin
    tar -cf bad.tar big.bin hard.bin
    http PUT "$FILES?path=/bad" @bad.tar -H 'Content-Type: application/x-tar'
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = 'cannot write the files of volume "data": refused: "hard.bin" is a hard link (to "big.bin"); hard links are not accepted' ]
    [ ! -e "$(TREE)/bad/big.bin" ]
    [ -z "$(ls -A "$(STAGE)")" ]
}

@test "the upload limit is a size: --max-upload-bytes refuses what is not one" {
    run "$ND_BIN_DIR/nodus-emulator" --state "$BATS_TEST_TMPDIR/s" --max-upload-bytes lots
    [ "$status" = 2 ]
    [ "$output" = "nodus-emulator: --max-upload-bytes wants a size of at least 1 byte, such as 10Gi or 500Mi, got lots" ]
    run "$ND_BIN_DIR/nodus-emulator" --help
    [[ "$output" == *"--max-upload-bytes N   the largest upload"* ]]
}
