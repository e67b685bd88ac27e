#!/usr/bin/env bats
# nodus cp of any size: a 1 GiB file in and out byte- and mode-exact while both
# processes' memory stays flat, trees past the old 3 MiB, the progress line (a terminal
# only, never with -q), the emulator's --max-upload-bytes (passed by `nodus emulator
# start`) answered as RequestEntityTooLarge with its fix in one attempt, and an
# interrupted copy that leaves nothing. ND_CP_BIG_MIB sets the big file's size (1024).

load ../lib/common

bats_require_minimum_version 1.5.0

NS=/apis/nodus.dev/v1/namespaces/default

setup_file() {
    start_emulator
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$EMU_URL NO_COLOR=1
    unset KUBECONFIG NODUS_CONFIG NODUS_TOKEN
    mkdir -p "$HOME"
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

# N MiB of random bytes in FILE, quickly: 16 MiB of /dev/urandom repeated, each copy
# stamped with its number so no two are alike.
random_file() {
    local file=$1 mib=$2 i
    head -c 16M /dev/urandom >chunk
    for ((i = 0; i < mib / 16; i++)); do
        printf '%016d' "$i"
        tail -c +17 chunk
    done >"$file"
    head -c $((mib % 16))M chunk >>"$file"
    rm chunk
}

kib_of_hwm() { # PID: its peak resident memory (VmHWM) in KiB
    awk '/^VmHWM:/ {print $2}' "/proc/$1/status"
}

@test "cp: a 1 GiB file in and out, byte- and mode-exact, both processes' memory flat" {
    local mib=${ND_CP_BIG_MIB:-1024}
    random_file big.bin "$mib"
    chmod 640 big.bin
    [ "$(stat -c %s big.bin)" = $((mib * 1048576)) ]
    /usr/bin/time -f %M -o up.rss "$ND_BIN_DIR/nodus" cp big.bin volume/data:/big.bin
    cmp big.bin "$(TREE)/big.bin"
    /usr/bin/time -f %M -o down.rss "$ND_BIN_DIR/nodus" cp volume/data:/big.bin back.bin
    cmp big.bin back.bin
    [ "$(stat -c %a back.bin)" = 640 ]
    [ "$(stat -c %a "$(TREE)/big.bin")" = 640 ]
    rm -f big.bin back.bin "$(TREE)/big.bin"
    # peak RSS in KiB: the CLI each way, and the emulator through both
    echo "nodus up $(cat up.rss) KiB, down $(cat down.rss) KiB; emulator $(kib_of_hwm "$EMU_PID") KiB" >&3
    [ "$(cat up.rss)" -lt 65536 ]
    [ "$(cat down.rss)" -lt 65536 ]
    [ "$(kib_of_hwm "$EMU_PID")" -lt 65536 ]
}

@test "cp: a tree past 3 MiB (300 files, nested, modes, a link) round-trips exactly" {
    mkdir -p src/a/b src/c
    # 300 files of 16 KiB of random bytes (src/a/fN, src/a/b/gN, src/c/hN for N 1..100),
    # written by one perl instead of 300 heads
    perl -e 'open(my $r, "<", "/dev/urandom") or die "urandom: $!";
        for my $i (1 .. 100) {
            for my $f ("src/a/f$i", "src/a/b/g$i", "src/c/h$i") {
                read($r, my $b, 16384) == 16384 or die "urandom: short read";
                open(my $o, ">", $f) or die "$f: $!";
                print $o $b;
                close($o) or die "$f: $!";
            }
        }'
    chmod 600 src/a/f1 && chmod 755 src/c/h2 && chmod 750 src/a/b
    ln -s ../c/h3 src/a/link
    run "$ND_BIN_DIR/nodus" cp src volume/data:/tree
    [ "$status" = 0 ]
    [ "$output" = "" ]
    run "$ND_BIN_DIR/nodus" cp volume/data:/tree out
    [ "$status" = 0 ]
    diff -r src out
    [ "$(stat -c %a out/a/f1)" = 600 ]
    [ "$(stat -c %a out/c/h2)" = 755 ]
    [ "$(stat -c %a out/a/b)" = 750 ]
    [ "$(readlink out/a/link)" = ../c/h3 ]
    [ -z "$(ls -A out | grep nodus-partial)" ]
}

@test "cp: a progress line (bytes, %, rate, ETA) on a terminal; none when piped or with -q" {
    random_file p.bin 64
    # a terminal: script(1) gives the command one
    run script -qec "'$ND_BIN_DIR/nodus' cp p.bin volume/data:/p.bin" /dev/null
    [ "$status" = 0 ]
    [[ "$output" == *"[####################] 64.0 MiB / 64.0 MiB  100%  "*"/s  ETA 0:00"* ]]
    run script -qec "'$ND_BIN_DIR/nodus' cp volume/data:/p.bin down.bin" /dev/null
    [ "$status" = 0 ]
    [[ "$output" == *"100%"*"ETA 0:00"* ]]
    cmp p.bin down.bin
    run script -qec "'$ND_BIN_DIR/nodus' cp -q p.bin volume/data:/p2.bin" /dev/null
    [ "$status" = 0 ]
    [ "$output" = "" ]
    run script -qec "'$ND_BIN_DIR/nodus' cp --quiet volume/data:/p.bin q.bin" /dev/null
    [ "$status" = 0 ]
    [ "$output" = "" ]
    # not a terminal
    run "$ND_BIN_DIR/nodus" cp p.bin volume/data:/p3.bin
    [ "$status" = 0 ]
    [ "$output" = "" ]
}

@test "cp: past the emulator's --max-upload-bytes (set through emulator start): RequestEntityTooLarge, its fix, exit 1, one attempt" {
    export NODUS_EMULATOR_STATE=$BATS_TEST_TMPDIR/emu
    unset NODUS_SERVER
    run "$ND_BIN_DIR/nodus" emulator start --max-upload-bytes 1Mi -- --fsync never --speed 0
    [ "$status" = 0 ]
    local pid
    pid=$(cat "$NODUS_EMULATOR_STATE/emulator.pid")
    # the flags reached the server
    [[ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" == *" --max-upload-bytes 1Mi --fsync never --speed 0 " ]]
    printf 'apiVersion: nodus.dev/v1\nkind: Volume\nmetadata: {name: small}\nspec: {size: 1Gi}\n' |
        "$ND_BIN_DIR/nodus" create -f -
    random_file five.bin 5
    run "$ND_BIN_DIR/nodus" cp five.bin volume/small:/five.bin
    local code=$status
    "$ND_BIN_DIR/nodus" emulator stop
    [ "$code" = 1 ]
    assert_line -n 0 "Error from server (RequestEntityTooLarge): the upload of $((512 + 5 * 1048576 + 1024)) bytes is larger than the emulator's limit of 1Mi (--max-upload-bytes); none of the archive was written"
    assert_line -n 1 "fix: restart the emulator with a larger --max-upload-bytes: nodus emulator stop && nodus emulator start --max-upload-bytes 6Mi"
    assert_line -n 2 --regexp '^docs: http://127.0.0.1:[0-9]+/docs/reference/errors/#requestentitytoolarge$'
    assert_line -n 3 --regexp '^requestId: req_'
    [ "${#lines[@]}" = 4 ]
    # exactly one attempt, and nothing written
    [ "$(grep -c '^PUT .*/volumes/small/files ' "$NODUS_EMULATOR_STATE/emulator.log")" = 1 ]
    [ ! -e "$NODUS_EMULATOR_STATE/files/default/volumes/small/five.bin" ]
}

@test "emulator start: flags start sets itself are refused after --" {
    export NODUS_EMULATOR_STATE=$BATS_TEST_TMPDIR/emu
    run "$ND_BIN_DIR/nodus" emulator start -- --listen 0.0.0.0:80
    [ "$status" = 2 ]
    assert_line -n 0 "error: --listen cannot be passed to the emulator: nodus emulator start sets it"
    run "$ND_BIN_DIR/nodus" emulator start -- --no-such-flag
    [ "$status" = 2 ]
    assert_line -n 0 --partial "error: the emulator exited at start (status 2): nodus-emulator: unknown flag --no-such-flag; its log is "
}

@test "cp: an interrupted download leaves the destination as it was (exit 130)" {
    random_file cut.bin 256
    "$ND_BIN_DIR/nodus" cp -q cut.bin volume/data:/cut.bin
    mkdir dest
    "$ND_BIN_DIR/nodus" cp volume/data:/cut.bin dest/ 2>err &
    local pid=$!
    # the copy has begun once its stage exists; stop it there, interrupt it, let it go
    wait_until compgen -G 'dest/.nodus-partial-*' || true # what follows says what is wrong
    kill -STOP "$pid"
    kill -INT "$pid"
    kill -CONT "$pid"
    local code=0
    wait "$pid" || code=$?
    [ "$code" = 130 ]
    [ "$(head -n 1 err)" = "error: interrupted: nothing of the copy was written" ]
    [ -z "$(ls -A dest)" ]
}
