#!/usr/bin/env bats
# The CLI itself: help, version, flags, plugins, exit codes without a server.

load ../lib/common

setup() {
    export HOME=$BATS_TEST_TMPDIR
    unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG
}

@test "nodus --help lists the commands by group; no arguments is a usage error" {
    run -0 nodus --help
    assert_line --partial "Basic commands:"
    assert_line --regexp '^  get +Display one or many objects$'
    assert_line --regexp '^  apply +'
    refute_output --partial "__complete"
    run -2 nodus
}

@test "every command has --help with its flags and the global flags" {
    run -0 nodus get --help
    assert_line --partial "Usage:"
    assert_line --regexp '^  -o, --output FORMAT'
    assert_line --regexp '^  -n, --project NAME'
    run -0 nodus help apply
    assert_line --partial "--force-conflicts"
}

@test "--version and version --client need no server" {
    run -0 nodus --version
    assert_output --regexp '^nodus [0-9]+\.[0-9]+\.[0-9]+$'
    run -0 nodus version --client
    assert_output --regexp '^Client Version: v[0-9.]+$'
    run -0 nodus version --client -o json
    [ "$(jq -r .clientVersion.gitVersion <<<"$output")" = "v$(nodus --version | cut -d' ' -f2)" ]
}

@test "bad flags and arguments exit 2 and print nothing on stdout" {
    run -2 --separate-stderr nodus get jobs --bogus
    assert_output ""
    [ "$stderr" = $'error: unknown flag: --bogus\nfix: see \'nodus get --help\' for the flags' ]
    run -2 --separate-stderr nodus get jobs -o nope
    [[ "$stderr" == *'unable to match a printer suitable for the output format "nope"'* ]]
    run -2 --separate-stderr nodus get jobs --request-timeout=soon
    [[ "$stderr" == *'invalid argument "soon" for "--request-timeout" flag'* ]]
    run -2 --separate-stderr nodus get -n
    [[ "$stderr" == *"flag needs an argument"* ]]
}

@test "without a server: a clear error naming what to do, exit 2" {
    run -2 --separate-stderr nodus get jobs
    assert_output ""
    [[ "$stderr" == *"no server configured"* ]]
}

@test "a server that is not there: exit 7 with the connection-refused message" {
    run -7 --separate-stderr nodus get jobs --server http://127.0.0.1:9
    assert_output ""
    [[ "$stderr" == "The connection to the server 127.0.0.1:9 was refused"* ]]
}

@test "an unknown command runs nodus-<command> from PATH, with its arguments" {
    mkdir -p "$BATS_TEST_TMPDIR/plugins"
    printf '#!/bin/sh\necho "plugin got: $*"\nexit 3\n' >"$BATS_TEST_TMPDIR/plugins/nodus-hello"
    chmod +x "$BATS_TEST_TMPDIR/plugins/nodus-hello"
    PATH="$BATS_TEST_TMPDIR/plugins:$PATH" run -3 nodus hello a --b
    assert_output "plugin got: a --b"
    run -2 --separate-stderr nodus no-such-command
    [ "$stderr" = $'error: unknown command "no-such-command" for "nodus"\nRun \'nodus --help\' for usage.' ]
}

@test "a write error on stdout is an error" {
    if [ ! -w /dev/full ]; then skip "/dev/full is not available"; fi
    run -1 sh -c 'nodus --help >/dev/full'
}
