#!/bin/sh
# The offline demo. It grows as the CLI and the emulator gain verbs; for now it shows
# the two programs it will drive and what it will do with them.
set -eu
cd "$(dirname "$0")/.."
BIN=${ND_BIN:-bin}
echo "== nodus offline demo"
"$BIN/nodus" --version
"$BIN/nodus-emulator" --version
cat <<'PLAN'

The demo will:
  1. start nodus-emulator on a free port with a temporary state directory
  2. apply the manifests in examples/ (a Job, a Sandbox, a Pool, a Volume, a Budget)
  3. show them with `nodus get`, `nodus get -o wide` and `nodus describe`
  4. watch a Job move through its phases with `nodus get -w`
  5. edit a manifest and show `nodus diff`
  6. suspend and resume a Job, then delete everything
  7. stop the emulator and remove its state
PLAN
