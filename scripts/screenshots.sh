#!/bin/sh
# The console's screenshots in docs/ (`make screenshots`): an emulator in a temporary
# directory, the README's first session (examples/ applied, then 40 s of its clock, which
# otherwise stands still), then the console in Debian's chromium, headless, driven by
# tests/clients' playwright-core (`make client-deps`; nothing downloads a browser):
#   console.png        1280x720, the light scheme, the Jobs table
#   console-phone.png  390x844, a phone's width in the dark scheme, the same page
#   scripts/screenshots.sh [DIR]   (default docs/; ND_BIN: the binaries, default bin/;
#                                   CHROMIUM: the browser, default /usr/bin/chromium)
set -eu
cd "$(dirname "$0")/.."
BIN=$(cd "${ND_BIN:-bin}" && pwd)
OUT=${1:-docs}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ ! -d tests/clients/node_modules/playwright-core ]; then
    echo "screenshots: playwright-core is not installed" >&2
    echo "fix: make client-deps (npm ci --prefix tests/clients)" >&2
    exit 2
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nodus-shots.XXXXXX")
export HOME="$TMP/home" NODUS_EMULATOR_STATE="$TMP/state" PATH="$BIN:$PATH"
unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG
mkdir -p "$HOME"
cleanup() {
    nodus emulator stop >/dev/null 2>&1 || true
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

# README.md, "A first session": its commands, the clock stopped so the picture holds still
nodus emulator start --speed 0 >/dev/null
nodus apply -f examples/ >/dev/null
nodus emulator clock advance 40s >/dev/null
EMU_URL=$(nodus emulator env | sed 's/^export NODUS_SERVER=//') OUT=$OUT \
    node scripts/screenshots.mjs
