#!/usr/bin/env bats
# The console in a user's first minute (issue 24): the README's picture of it is made by
# `make screenshots` (scripts/screenshots.sh: the README's first session, then Debian's
# chromium through tests/clients' playwright-core), the README shows it where the console
# is introduced, and what README.md and docs/console.md say to open it is true. (The
# console blocks of docs/console.md run in 25-docs.bats; make demo's URL in 40-demo-top.)

load ../lib/common

bats_require_minimum_version 1.5.0

# WIDTHxHEIGHT of the PNG FILE (its IHDR), or nothing when it is not a PNG
png_size() {
    python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read(24)
if b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR":
    print("%dx%d" % struct.unpack(">II", b[16:24]))' "$1"
}

setup() {
    cd "$ND_ROOT"
}

@test "make screenshots is a target, listed in the Makefile's help" {
    grep -q '^#   make screenshots ' Makefile
    run -0 make -n screenshots
    assert_output --partial 'scripts/screenshots.sh docs'
}

@test "scripts/screenshots.sh writes the console at 1280x720 (light) and 390x844 (dark)" {
    [ -d tests/clients/node_modules/playwright-core ] ||
        skip "playwright-core is not installed: make client-deps"
    [ -x "${CHROMIUM:-/usr/bin/chromium}" ] || skip "no chromium: apt-get install -y chromium"
    local out=$BATS_TEST_TMPDIR/out
    run -0 env ND_BIN="$ND_BIN_DIR" TMPDIR="$BATS_TEST_TMPDIR" timeout 60 scripts/screenshots.sh "$out"
    assert_line "$out/console.png: 1280x720, light"
    assert_line "$out/console-phone.png: 390x844, dark"
    run -0 png_size "$out/console.png"
    assert_output 1280x720
    run -0 png_size "$out/console-phone.png"
    assert_output 390x844
    # the light picture is not the dark one, and neither is blank
    [ "$(stat -c %s "$out/console.png")" -gt 20000 ]
    [ "$(stat -c %s "$out/console-phone.png")" -gt 10000 ]
    # nothing left behind: no emulator, no scratch directory
    run ls "$BATS_TEST_TMPDIR"
    assert_output out
}

@test "README.md shows docs/console.png in its first session, where the console is opened" {
    run -0 png_size docs/console.png
    assert_output 1280x720
    run -0 png_size docs/console-phone.png
    assert_output 390x844
    # between "## A first session" and the next section: the picture, after the URL
    run -0 awk '/^## / { on = ($0 == "## A first session") } on' README.md
    local first=$output
    grep -qxF '![The console: the Jobs table after the commands above](docs/console.png)' <<<"$first"
    grep -qx 'console: http://127.0.0.1:[0-9]*/' <<<"$first"
    grep -qF 'xdg-open http://127.0.0.1:$(cat /tmp/nodus/port)/' <<<"$first"
    grep -qF '[docs/console.md](docs/console.md)' <<<"$first"
    # the demo and the targets say where it is
    grep -qF 'make demo     # set up, build, and run the offline demo; open the console URL it prints' README.md
    grep -qF '`make screenshots`' README.md
}

@test "every relative link of docs/console.md and of README.md's console lines names a file" {
    local link missing=
    for link in $(grep -o '](\([^)#:]*\))' docs/console.md | sed 's/^](//; s/)$//'); do
        [ -e "docs/$link" ] || missing="$missing docs/$link"
    done
    for link in $(grep -i 'console' README.md | grep -o '](\([^)#:]*\))' | sed 's/^](//; s/)$//'); do
        [ -e "$link" ] || missing="$missing $link"
    done
    [ -z "$missing" ] || { echo "links to nothing:$missing"; return 1; }
    # the pictures are linked from docs/console.md too
    grep -qF '[console.png](console.png)' docs/console.md
}
