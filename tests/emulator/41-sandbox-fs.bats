#!/usr/bin/env bats
# Sandboxes behave like sandboxes: exec and --runtime local's Jobs run under bubblewrap,
# seeing the object's files at / (the paths `nodus cp` uses), each Volume they mount at
# its mountPath (the Volume's own files), and none of the host's files but its system
# directories, read-only. Without bubblewrap exec is refused unless
# --exec-isolation=none says to run on the host.

load ../lib/common

bats_require_minimum_version 1.5.0

NS=/apis/nodus.dev/v1/namespaces/default

setup_file() {
    command -v bwrap >/dev/null || skip "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    bwrap --ro-bind / / --unshare-pid --proc /proc --dev /dev true 2>/dev/null ||
        skip "bubblewrap cannot create namespaces on this machine"
    start_emulator --runtime local
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$EMU_URL NO_COLOR=1
    unset KUBECONFIG NODUS_CONFIG NODUS_TOKEN
    mkdir -p "$HOME"
    volume datasets
    sandbox dev '{"volumes":[{"name":"datasets","mountPath":"/data"}]}'
    sandbox other '{"volumes":[{"name":"datasets","mountPath":"/mnt/ds","readOnly":true}]}'
    sandbox lost '{"volumes":[{"name":"nowhere","mountPath":"/data"}]}'
    clock_advance 15s # Pending 2 s, Starting 10 s
    # a host file outside every tree, which no command may reach
    mkdir -p "$BATS_FILE_TMPDIR/host"
    echo secret >"$BATS_FILE_TMPDIR/host/secret"
}

teardown_file() {
    stop_extras
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

post() { # PLURAL JSON [URL]
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' -d "$2" \
        "${3:-$(emu_url)}$NS/$1"
}

volume() {
    post volumes "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"size\":\"1Gi\"}}" "${2:-}"
}

sandbox() { # NAME [EXTRA-SPEC-JSON] [URL]
    post sandboxes "$(jq -cn --arg n "$1" --argjson x "${2:-{\}}" \
        '{apiVersion:"nodus.dev/v1",kind:"Sandbox",metadata:{name:$n},
          spec:({image:"nodus/pytorch:2.8-cuda12.8",maxCostUSD:"10.00"} + $x)}')" "${3:-}"
}

# Before a test writes to an absolute path: the session sees its tree as / (without
# isolation, as on the parent commit, such a write would land on the host).
isolated() { # SANDBOX
    run -0 --separate-stderr nodus exec "$1" -- pwd
    assert_output /
}

@test "exec sees the Sandbox's files at /, not the host's root" {
    run -0 --separate-stderr nodus exec dev -- ls /
    assert_line usr  # the host's system directories, read-only
    assert_line data # the Volume's mount point
    refute_line home
    refute_line root
    refute_line "$(basename "$ND_ROOT")"
    run -0 --separate-stderr nodus exec dev -- pwd
    assert_output /
    run -0 --separate-stderr nodus exec dev -- sh -c 'echo $HOME'
    assert_output /
}

@test "a file cp puts at dev:/work/a is /work/a for exec, and what exec writes cp reads back" {
    isolated dev
    echo from-cp >a
    run -0 nodus cp a dev:/work/a
    run -0 --separate-stderr nodus exec dev -- cat /work/a
    assert_output from-cp
    run -0 --separate-stderr nodus exec dev -- sh -c 'echo from-exec >/work/b'
    run -0 nodus cp dev:/work/b b
    [ "$(cat b)" = from-exec ]
    [ "$(cat "$EMU_STATE/files/default/sandboxes/dev/work/b")" = from-exec ]
}

@test "a file exec writes under /data lands in the Volume, seen by another Sandbox that mounts it" {
    isolated dev
    isolated other
    run -0 --separate-stderr nodus exec dev -- sh -c 'mkdir -p /data/x && echo shared >/data/x/f'
    [ "$(cat "$EMU_STATE/files/default/volumes/datasets/x/f")" = shared ]
    [ ! -e "$EMU_STATE/files/default/sandboxes/dev/data/x" ] # not in the Sandbox's own files
    run -0 nodus cp volume/datasets:/x/f f
    [ "$(cat f)" = shared ]
    run -0 --separate-stderr nodus exec other -- cat /mnt/ds/x/f
    assert_output shared
    # other mounts it readOnly
    run ! --separate-stderr nodus exec other -- sh -c 'echo no >/mnt/ds/x/g'
    assert_equal "$stderr" "sh: 1: cannot create /mnt/ds/x/g: Read-only file system
command terminated with exit code 2"
    [ ! -e "$EMU_STATE/files/default/volumes/datasets/x/g" ]
    # and rm -rf /data/x removes the Volume's x, nothing of the host's
    run -0 --separate-stderr nodus exec dev -- rm -rf /data/x
    [ ! -e "$EMU_STATE/files/default/volumes/datasets/x" ]
}

@test "the host's files are unreachable: neither read nor removed" {
    local secret=$BATS_FILE_TMPDIR/host/secret
    run --separate-stderr nodus exec dev -- cat "$secret"
    [ "$status" -ne 0 ]
    refute_output secret
    run --separate-stderr nodus exec dev -- rm -rf "$BATS_FILE_TMPDIR/host" "$EMU_STATE"
    [ "$(cat "$secret")" = secret ]
    [ -d "$EMU_STATE/objects" ] || [ -n "$(ls "$EMU_STATE")" ]
    # /tmp is the session's own, empty
    run -0 --separate-stderr nodus exec dev -- ls -A /tmp
    assert_output ""
}

@test "a Volume that does not exist: exec is refused, naming it" {
    run -1 --separate-stderr nodus exec lost -- true
    assert_equal "$(head -n 2 <<<"$stderr")" 'Error from server (BadRequest): sandbox "lost" mounts the Volume "nowhere" at /data, and project "default" has no Volume "nowhere"
fix: create the Volume "nowhere" in project "default" (kind: Volume, metadata.name: nowhere), or remove it from the sandbox'"'"'s spec.volumes'
}

@test "--runtime local: a Job runs in its own files, its Volume at its mountPath" {
    local job
    job=$(job_json reader '{"command":["sh","-c","[ $PWD = / ] || exit 9; pwd; cat /data/in; echo out >/data/out; cat '"$BATS_FILE_TMPDIR"'/host/secret || echo unreachable"],"volumes":[{"name":"datasets","mountPath":"/data"}]}')
    echo in >"$EMU_STATE/files/default/volumes/datasets/in"
    post jobs "$job"
    clock_advance 35s # Queued 5 s, Provisioning 30 s
    wait_until eval '[ "$(curl -sf "$(emu_url)$NS/jobs/reader" | jq -r .status.phase)" = Succeeded ]'
    run -0 curl -sf "$(emu_url)$NS/jobs/reader/log"
    assert_line -n 0 /
    assert_line -n 1 in
    assert_line -n 2 --partial "No such file or directory"
    assert_line -n 3 unreachable
    [ "$(cat "$EMU_STATE/files/default/volumes/datasets/out")" = out ]
}

@test "--exec-isolation=none runs on the host, in the files folder; a bad value is refused" {
    run -2 --separate-stderr nodus-emulator --state "$BATS_TEST_TMPDIR/s" --exec-isolation chroot
    assert_equal "$stderr" "nodus-emulator: --exec-isolation is bwrap (commands see only the object's files) or none (commands run on the host), got chroot"
    start_extra none --speed 0 --exec-isolation=none
    sandbox open '{}' "$XURL"
    clock_advance 15s "$XURL"
    run -0 --separate-stderr nodus --server "$XURL" exec open -- pwd
    assert_output "$(cd "$BATS_FILE_TMPDIR/extra-none/state/files/default/sandboxes/open" && pwd)"
    run -0 --separate-stderr nodus --server "$XURL" exec open -- cat "$BATS_FILE_TMPDIR/host/secret"
    assert_output secret
}

@test "bubblewrap that cannot make namespaces: exec is refused with a fix, nothing runs" {
    mkdir -p "$BATS_FILE_TMPDIR/fakebin"
    printf '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n' \
        >"$BATS_FILE_TMPDIR/fakebin/bwrap"
    chmod +x "$BATS_FILE_TMPDIR/fakebin/bwrap"
    PATH=$BATS_FILE_TMPDIR/fakebin:$PATH start_extra nobwrap --speed 0
    sandbox boxed '{}' "$XURL"
    clock_advance 15s "$XURL"
    run -1 --separate-stderr nodus --server "$XURL" exec boxed -- touch ran
    assert_equal "$(head -n 2 <<<"$stderr")" "Error from server (ServiceUnavailable): cannot run commands in \"boxed\" isolated: bubblewrap ($BATS_FILE_TMPDIR/fakebin/bwrap) cannot create namespaces here: bwrap: No permissions to creating new namespace
fix: install bubblewrap where the emulator runs (apt-get install bubblewrap) and allow it user namespaces, or restart the emulator with --exec-isolation=none to run commands on the host unisolated"
    [ ! -e "$BATS_FILE_TMPDIR/extra-nobwrap/state/files/default/sandboxes/boxed/ran" ]
}
