#!/usr/bin/env bats
# nodus exec (streams, exit codes, stdin and its end, terminals and their size, the v4
# protocol, refusals) and nodus cp (both ways, cp -r's rules, Volumes, and nothing
# written outside the destination on either side).

load ../lib/common

bats_require_minimum_version 1.5.0

NS=/apis/nodus.dev/v1/namespaces/default

setup_file() {
    start_emulator
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$EMU_URL NO_COLOR=1
    unset KUBECONFIG NODUS_CONFIG NODUS_TOKEN NODUS_EXEC_PROTOCOLS
    mkdir -p "$HOME"
    new_sandbox sbx
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"data"},"spec":{"size":"1Gi"}}' \
        "$EMU_URL$NS/volumes"
    # Pending 2 s, Starting 10 s: sbx runs; young is created after and stays Pending
    clock_advance 15s
    new_sandbox young
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

new_sandbox() {
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Sandbox\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"image\":\"nodus/pytorch:2.8-cuda12.8\",\"maxCostUSD\":\"10.00\"}}" \
        "$(emu_url)$NS/sandboxes" || true
}

TREE() { echo "$EMU_STATE/files/default/sandboxes/sbx"; }

# ---- exec ----

@test "exec: stdout, exit 0" {
    run --separate-stderr -0 nodus exec sbx -- echo hi
    assert_output hi
    [ -z "$stderr" ]
}

@test "exec: the remote exit code is ours, with kubectl's line on stderr" {
    run --separate-stderr -3 nodus exec sandbox/sbx -- sh -c 'echo out; echo err >&2; exit 3'
    assert_output out
    [ "$stderr" = $'err\ncommand terminated with exit code 3' ]
}

@test "exec: stdin passes with -i, and its end ends the command; without -i there is none" {
    run --separate-stderr -0 sh -c 'printf "abc\ndef\n" | nodus exec -i sbx -- cat'
    assert_output $'abc\ndef'
    run --separate-stderr -0 sh -c 'printf "abc\n" | nodus exec sbx -- cat'
    assert_output ''
    # a larger input, in many messages, arrives whole
    head -c 3000000 /dev/urandom >big
    nodus exec -i sbx -- sh -c 'cat > big.copy' <big
    cmp big "$(TREE)/big.copy"
    rm "$(TREE)/big.copy"
}

@test "exec -t without a terminal: kubectl's notice, then no terminal" {
    run --separate-stderr -0 sh -c 'echo x | nodus exec -it sbx -- sh -c "test -t 0 || echo no tty"'
    assert_output 'no tty'
    [ "$stderr" = "Unable to use a TTY - input is not a terminal or the right kind of file" ]
}

@test "exec -it on a terminal: a terminal of our size, raw mode, the exit code" {
    run -0 script -qec "stty cols 123 rows 45; nodus exec -it sbx -- sh -c 'tty >/dev/null && stty size; exit 4'; echo rc=\$?" /dev/null
    assert_output $'45 123\r\ncommand terminated with exit code 4\r\nrc=4\r'
}

@test "exec -it: a window resize (SIGWINCH) reaches the remote terminal" {
    # the remote side says it started (a file in its tree), waits until its size
    # changes, then prints it
    rm -f "$(TREE)/started"
    cat >resize.sh <<'SH'
stty cols 100 rows 30
nodus exec -it sbx -- sh -c 'stty size; touch started; i=0; while [ "$(stty size)" = "30 100" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; stty size' </dev/tty &
pid=$!
i=0
while [ ! -e "$STARTED" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
stty cols 50 rows 20
kill -WINCH $pid
wait $pid
SH
    STARTED=$(TREE)/started run -0 script -qec "sh resize.sh" /dev/null
    assert_output $'30 100\r\n20 50\r'
}

@test "exec: refused while the Sandbox is not Running (exit 1), missing (exit 3)" {
    run --separate-stderr -1 nodus exec young -- ls
    assert_output ''
    assert_equal "$(sed -n 1,2p <<<"$stderr")" "Error from server (BadRequest): cannot exec into sandbox \"young\": it is Pending, and exec needs it Running
fix: wait until it runs: nodus wait sandbox/young -n default --for=jsonpath='{.status.phase}'=Running"
    run --separate-stderr -3 nodus exec ghost -- ls
    assert_equal "$(sed -n 1p <<<"$stderr")" 'Error from server (NotFound): sandboxes.nodus.dev "ghost" not found'
}

@test "exec: the v4 protocol when only it is offered" {
    NODUS_EXEC_PROTOCOLS=v4.channel.k8s.io run --separate-stderr -5 nodus -v 6 exec sbx -- sh -c 'echo v4; exit 5'
    assert_output v4
    [[ "$stderr" == *"/exec?command=sh&command=-c&command=echo%20v4%3B%20exit%205&stdout=true&stderr=true 101 Switching Protocols"* ]]
    [[ "$stderr" == *"command terminated with exit code 5" ]]
    NODUS_EXEC_PROTOCOLS=v4.channel.k8s.io run -0 nodus -v 7 exec sbx -- true
    assert_output --partial 'sec-websocket-protocol: v4.channel.k8s.io'
}

@test "exec: usage errors (exit 2)" {
    run --separate-stderr -2 nodus exec sbx
    [ "$(sed -n 1p <<<"$stderr")" = "error: you must specify at least one command: nodus exec sbx -- COMMAND [ARGS...]" ]
    run --separate-stderr -2 nodus exec volume/data -- ls
    [ "$(sed -n 1p <<<"$stderr")" = "error: exec runs in sandboxes and jobs, not in volumes" ]
    run --separate-stderr -2 nodus exec -- ls
    [ "$(sed -n 1p <<<"$stderr")" = "error: name the sandbox: nodus exec SANDBOX -- COMMAND [ARGS...]" ]
}

# ---- cp ----

make_src() {
    mkdir -p src/sub/deeper
    printf 'alpha\n' >src/a.txt
    printf 'beta\n' >src/sub/b.txt
    head -c 100000 /dev/urandom >src/sub/deeper/blob
    printf '#!/bin/sh\necho run\n' >src/run.sh
    ln -s a.txt src/alias
    chmod 755 src/run.sh && chmod 600 src/a.txt && chmod 750 src/sub
}

modes() { # DIR: every path with its mode
    (cd "$1" && find . -printf '%p %m %y\n' | sort)
}

@test "cp: a directory in and out round-trips exactly (content, modes, links)" {
    make_src
    run --separate-stderr -0 nodus cp src sbx:/work
    assert_output ''
    diff -r src "$(TREE)/work"
    run --separate-stderr -0 nodus cp sbx:/work back
    diff -r src back
    [ "$(modes src)" = "$(modes back)" ]
    [ "$(readlink back/alias)" = a.txt ]
    # what was copied in runs there
    run -0 nodus exec sbx -- sh work/run.sh
    assert_output run
}

@test "cp: a destination directory receives the source under its own name (cp -r)" {
    make_src
    nodus cp src sbx:/into
    nodus cp src sbx:/into # /into exists now: /into/src
    [ -f "$(TREE)/into/a.txt" ]
    [ -f "$(TREE)/into/src/a.txt" ]
    mkdir have
    nodus cp sbx:/into/sub have
    [ -f have/sub/b.txt ]
    nodus cp sbx:/ top # the top of the tree: its contents
    [ -f top/into/a.txt ]
}

@test "cp: single files, renamed or into a directory; project/name and sandbox/name" {
    printf 'one\n' >one.txt
    nodus cp one.txt sbx:/f/renamed.txt
    [ "$(cat "$(TREE)/f/renamed.txt")" = one ]
    nodus cp one.txt default/sbx:/f
    [ "$(cat "$(TREE)/f/one.txt")" = one ]
    nodus cp sandbox/sbx:/f/renamed.txt copy.txt
    [ "$(cat copy.txt)" = one ]
    mkdir d && nodus cp sbx:f/one.txt d
    [ "$(cat d/one.txt)" = one ]
}

@test "cp: a Volume's files" {
    printf 'vol\n' >v.txt
    nodus cp v.txt volume/data:/set/v.txt
    [ "$(cat "$EMU_STATE/files/default/volumes/data/set/v.txt")" = vol ]
    nodus cp vol/data:/set got
    [ "$(cat got/v.txt)" = vol ]
}

@test "cp: a link pointing outside is refused by the server" {
    mkdir evil && ln -s /etc/passwd evil/pw
    run --separate-stderr -1 nodus cp evil sbx:/evil
    [ "$(sed -n 1p <<<"$stderr")" = 'Error from server (BadRequest): cannot write the files of sandbox "sbx": refused: the symbolic link "evil/pw" points outside the destination (to "/etc/passwd")' ]
    [ ! -e "$(TREE)/evil" ]
}

@test "cp: a download never writes outside the destination: escaping links are skipped" {
    nodus exec sbx -- sh -c 'mkdir -p esc && echo fine > esc/ok && ln -sf /etc/passwd esc/pw && ln -sf ../../outside esc/up'
    run --separate-stderr -0 nodus cp sbx:/esc got
    [ "$(cat got/ok)" = fine ]
    [ ! -e got/pw ] && [ ! -L got/pw ] && [ ! -L got/up ]
    [ "$stderr" = $'warning: skipped the symbolic link esc/pw -> /etc/passwd: it points outside the destination\nwarning: skipped the symbolic link esc/up -> ../../outside: it points outside the destination' ]
}

@test "cp: errors: .. paths, both sides local or remote, missing paths" {
    run --separate-stderr -2 nodus cp x sbx:/a/../../b
    [ "$(sed -n 1p <<<"$stderr")" = 'error: sbx:/a/../../b: the path has a ".." component; paths stay inside the sandbox'"'"'s files' ]
    run --separate-stderr -2 nodus cp a b
    [ "$(sed -n 1p <<<"$stderr")" = 'error: one of SRC and DEST must be remote: [KIND/]NAME:PATH (e.g. sandbox/dev:/data)' ]
    run --separate-stderr -2 nodus cp sbx:/a volume/data:/b
    [ "$(sed -n 1p <<<"$stderr")" = 'error: copying between two remote objects is not supported: copy through a local directory' ]
    run --separate-stderr -3 nodus cp sbx:/no/such ./x
    [ "$(sed -n 1p <<<"$stderr")" = 'Error from server (NotFound): sandbox "sbx" has no file "/no/such"' ]
    run --separate-stderr -2 nodus cp ./no-such sbx:/x
    [ "$(sed -n 1p <<<"$stderr")" = 'error: ./no-such: No such file or directory' ]
    run --separate-stderr -3 nodus cp ./ sbx-ghost:/x
    [ "$(sed -n 1p <<<"$stderr")" = 'Error from server (NotFound): sandboxes.nodus.dev "sbx-ghost" not found' ]
    run --separate-stderr -2 nodus cp x job/j:/y
    [ "$(sed -n 1p <<<"$stderr")" = 'error: job/j:/y: cp copies to and from sandboxes and volumes, not jobs' ]
}
