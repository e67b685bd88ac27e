#!/usr/bin/env bats
# nodus cp with "-": NAME:PATH - writes PATH's tar stream to standard output (never a
# file named "-"), and - NAME:DIR extracts the tar archive read from standard input
# under DIR, as docker cp and tar take "-".

load ../lib/common

bats_require_minimum_version 1.5.0

NS=/apis/nodus.dev/v1/namespaces/default

setup_file() {
    start_emulator
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$EMU_URL NO_COLOR=1
    unset KUBECONFIG NODUS_CONFIG NODUS_TOKEN
    mkdir -p "$HOME"
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"data"},"spec":{"size":"1Gi"}}' \
        "$EMU_URL$NS/volumes"
    mkdir -p "$EMU_STATE/files/default/volumes/data/work/sub"
    echo hello >"$EMU_STATE/files/default/volumes/data/work/f"
    echo deep >"$EMU_STATE/files/default/volumes/data/work/sub/g"
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

TREE() { echo "$EMU_STATE/files/default/volumes/data"; }

@test "cp NAME:FILE - writes its tar stream to stdout, and no file named -; a missing one nothing" {
    nodus cp volume/data:/work/f - >out.tar
    [ ! -e ./- ]
    run -0 tar -tf out.tar
    assert_output f
    run -0 tar -xOf out.tar f
    assert_output hello
    # a missing path: NotFound, nothing on stdout
    run -3 --separate-stderr nodus cp volume/data:/nope -
    assert_output ""
    assert_equal "${stderr%%$'\n'*}" 'Error from server (NotFound): volume "data" has no file "/nope"'
    [ ! -e ./- ]
}

@test "cp NAME:DIR - streams the directory, for tar to read" {
    run -0 sh -c 'nodus cp volume/data:/work - | tar -tf - | sort'
    assert_output $'work/\nwork/f\nwork/sub/\nwork/sub/g'
    [ ! -e ./- ]
}

@test "cp - NAME:DIR extracts the archive read from stdin under DIR" {
    mkdir -p src/inner
    echo one >src/a
    echo two >src/inner/b
    run -0 sh -c 'tar -cf - -C src . | nodus cp - volume/data:/in'
    [ "$(cat "$(TREE)/in/a")" = one ]
    [ "$(cat "$(TREE)/in/inner/b")" = two ]
}

@test "cp - with something that is not a tar archive: refused, nothing written" {
    run -1 --separate-stderr sh -c 'printf "not a tar archive at all" | nodus cp - volume/data:/junk'
    assert_equal "$(head -n 2 <<<"$stderr")" 'Error from server (BadRequest): cannot write the files of volume "data": the tar archive is malformed at byte 0: a truncated header
fix: send a tar archive (ustar or pax), e.g. made by tar -c'
    [ -z "$(ls -A "$(TREE)/junk" 2>/dev/null)" ]
}

@test "cp NAME:PATH - on a terminal: refused, with how to pipe it" {
    run -2 script -qec 'nodus cp volume/data:/work/f -' /dev/null
    assert_output $'error: refusing to write a tar archive to a terminal\r\nfix: redirect standard output to a file, or pipe it into tar -xvf -\r'
    [ ! -e ./- ]
}

@test "cp - NAME:DIR with a terminal for stdin: refused, nothing sent" {
    run -2 script -qec 'nodus cp - volume/data:/fromtty' /dev/null
    assert_output $'error: refusing to read a tar archive from a terminal\r\nfix: pipe a tar archive in, e.g. from tar -cf - DIR\r'
    [ ! -e "$(TREE)/fromtty" ]
}
