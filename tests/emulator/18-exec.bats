#!/usr/bin/env bats
# Exec: the WebSocket upgrade and its refusals, Kubernetes' channel protocol as bytes on
# the wire (curl reads the frames raw; perl decodes them), the process's life (its tree,
# its exit status, a client that goes away, a Sandbox that stops), Jobs, and exec
# sessions keeping a Sandbox from idling. The clock only moves when a test advances it.

load ../lib/common

NS=/apis/nodus.dev/v1/namespaces/default
KEY=dGhlIHNhbXBsZSBub25jZQ==

setup_file() {
    start_emulator
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$EMU_URL NO_COLOR=1
    mkdir -p "$HOME"
    # a Running Sandbox: Pending 2 s, Starting 10 s
    new_sandbox dev
    clock_advance 15s
}

teardown_file() {
    stop_emulator
    # the sanitizer builds report here
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

new_sandbox() { # NAME [EXTRA-SPEC-JSON]
    local body
    body=$(jq -cn --arg n "$1" --argjson x "${2:-{\}}" \
        '{apiVersion:"nodus.dev/v1",kind:"Sandbox",metadata:{name:$n},
          spec:({image:"nodus/pytorch:2.8-cuda12.8",maxCostUSD:"10.00"} + $x)}')
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' -d "$body" \
        "$(emu_url)$NS/sandboxes"
}

phase() { # PLURAL NAME
    curl -sf "$(emu_url)$NS/$1/$2" | jq -r '.status.phase + " " + (.status.reason // "")'
}

tree() { # PLURAL NAME: the object's file tree
    echo "$EMU_STATE/files/default/$1/$2"
}

# ws PATH [PROTOCOLS] [curl args...]: an upgrade request; the answer's head in $HDRS, the
# bytes after it in $FRAMES, the HTTP code in $CODE.
ws() {
    local path=$1 protos=${2-v5.channel.k8s.io, v4.channel.k8s.io}
    shift 2 2>/dev/null || shift $#
    HDRS=$BATS_TEST_TMPDIR/hdrs FRAMES=$BATS_TEST_TMPDIR/frames
    CODE=$(curl -sS -o "$FRAMES" -D "$HDRS" -w '%{http_code}' -H 'Connection: Upgrade' \
        -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' -H "Sec-WebSocket-Key: $KEY" \
        ${protos:+-H "Sec-WebSocket-Protocol: $protos"} "$@" "$(emu_url)$path")
}

# The server's frames, one line each: "<channel> <payload>" for binary messages (\n and
# \r shown escaped; messages that follow on the same channel joined, as the process's
# writes may come apart), "close <code>" for the close frame.
frames() {
    perl -0777 -ne '
        my ($cur, $text) = (-1, "");
        sub flush { print "$cur $text\n" if $cur >= 0; $cur = -1; $text = "" }
        while (length) {
            my ($b0, $b1) = unpack("CC", $_);
            my ($op, $len, $off) = ($b0 & 15, $b1 & 127, 2);
            if ($len == 126) { $len = unpack("n", substr($_, 2, 2)); $off = 4 }
            my $p = substr($_, $off, $len);
            $_ = substr($_, $off + $len);
            if ($op == 2) {
                my $ch = ord($p); $p = substr($p, 1);
                $p =~ s/\n/\\n/g; $p =~ s/\r/\\r/g;
                flush() if $ch != $cur;
                ($cur, $text) = ($ch, $text . $p);
            } elsif ($op == 8) { flush(); print "close ", unpack("n", $p), "\n" }
            else { flush(); print "opcode $op\n" }
        }
        flush();' "$FRAMES"
}

hdr() {
    grep -i "^$1:" "$HDRS" | head -n 1 | cut -d: -f2- | sed 's/^ //; s/\r$//'
}

@test "the upgrade: 101, the accept key of RFC 6455, v5 chosen when offered" {
    ws "$NS/sandboxes/dev/exec?command=echo&command=hi&stdout=true"
    [ "$CODE" = 101 ]
    [ "$(hdr Upgrade)" = websocket ]
    [ "$(hdr Connection)" = Upgrade ]
    [ "$(hdr Sec-WebSocket-Accept)" = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" ]
    [ "$(hdr Sec-WebSocket-Protocol)" = v5.channel.k8s.io ]
    run frames
    assert_output $'1 hi\\n\n3 {"metadata":{},"status":"Success"}\nclose 1000'
}

@test "v4: the same channels, the status on channel 3" {
    ws "$NS/sandboxes/dev/exec?command=sh&command=-c&command=echo+out;+echo+err+>%262;+exit+3&stdout=true&stderr=true" \
        v4.channel.k8s.io
    [ "$CODE" = 101 ]
    [ "$(hdr Sec-WebSocket-Protocol)" = v4.channel.k8s.io ]
    run frames
    assert_line -n 0 '1 out\n'
    assert_line -n 1 '2 err\n'
    assert_line -n 2 '3 {"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c echo out; echo err >&2; exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}'
    assert_line -n 3 'close 1000'
}

@test "the command runs without a shell, in the Sandbox's file tree, with its spec.env" {
    new_sandbox envy '{"env":[{"name":"GREETING","value":"hello there"}]}'
    clock_advance 15s
    ws "$NS/sandboxes/envy/exec?command=sh&command=-c&command=pwd;+echo+\$GREETING&stdout=true"
    run frames
    assert_line -n 0 "1 /\n$(printf '%s' 'hello there')\n"
    # no shell around the argv: a glob stays a glob
    ws "$NS/sandboxes/dev/exec?command=echo&command=*&command=\$HOME&stdout=true"
    run frames
    assert_line -n 0 '1 * $HOME\n'
}

@test "a command that does not exist: its message on stderr, exit code 127" {
    ws "$NS/sandboxes/dev/exec?command=no-such-command&stdout=true&stderr=true"
    run frames
    assert_line -n 0 '2 exec: "no-such-command": executable file not found in $PATH\n'
    assert_line -n 1 --partial '"reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"127"}]}'
}

@test "a signal is 128 + its number" {
    ws "$NS/sandboxes/dev/exec?command=sh&command=-c&command=kill+-TERM+\$\$&stdout=true"
    run frames
    assert_line -n 0 --partial 'exit code 143","reason":"NonZeroExitCode"'
}

@test "tty=true: a terminal (output with CRLF), stderr on stdout, 80x24 without a resize" {
    ws "$NS/sandboxes/dev/exec?command=sh&command=-c&command=test+-t+0+%26%26+stty+size;+echo+e+>%262&stdout=true&tty=true"
    run frames
    assert_line -n 0 '1 24 80\r\ne\r\n'
}

@test "refusals come before the upgrade, as a Status" {
    new_sandbox young
    ws "$NS/sandboxes/young/exec?command=ls&stdout=true"
    [ "$CODE" = 400 ]
    run jq -c '{message, reason, code, fix, details}' "$FRAMES"
    assert_output '{"message":"cannot exec into sandbox \"young\": it is Pending, and exec needs it Running","reason":"BadRequest","code":400,"fix":"wait until it runs: nodus wait sandbox/young -n default --for=jsonpath='"'"'{.status.phase}'"'"'=Running","details":{"name":"young","group":"nodus.dev","kind":"sandboxes"}}'

    ws "$NS/sandboxes/ghost/exec?command=ls&stdout=true"
    [ "$CODE" = 404 ]
    [ "$(jq -r .message "$FRAMES")" = 'sandboxes.nodus.dev "ghost" not found' ]

    ws "$NS/sandboxes/dev/exec?stdout=true"
    [ "$CODE" = 400 ]
    [ "$(jq -r .message "$FRAMES")" = 'you must specify at least 1 command (query parameter command, once per argument)' ]

    ws "$NS/sandboxes/dev/exec?command=ls"
    [ "$CODE" = 400 ]
    [ "$(jq -r .message "$FRAMES")" = 'you must specify at least one of stdin, stdout, stderr' ]

    ws "$NS/sandboxes/dev/exec?command=ls&stdout=maybe"
    [ "$CODE" = 400 ]
    [ "$(jq -r .message "$FRAMES")" = 'invalid value for query parameter stdout: "maybe" (want true or false)' ]

    ws "$NS/sandboxes/dev/exec?command=ls&stdout=true" "channel.k8s.io"
    [ "$CODE" = 400 ]
    [ "$(jq -r .message "$FRAMES")" = 'no supported subprotocol in "channel.k8s.io": this server speaks v5.channel.k8s.io and v4.channel.k8s.io' ]

    http GET "$NS/sandboxes/dev/exec?command=ls&stdout=true"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = 'exec needs a WebSocket upgrade (Connection: Upgrade, Upgrade: websocket, Sec-WebSocket-Key)' ]

    http DELETE "$NS/sandboxes/dev/exec"
    [ "$CODE" = 405 ]
    # Volumes have no exec
    http GET "$NS/volumes/v/exec?command=ls"
    [ "$CODE" = 404 ]
}

@test "a Stopped Sandbox: the fix says how to start it" {
    new_sandbox halted '{"state":"Stopped"}'
    clock_advance 1s
    ws "$NS/sandboxes/halted/exec?command=ls&stdout=true"
    [ "$CODE" = 400 ]
    [ "$(jq -r .message "$FRAMES")" = 'cannot exec into sandbox "halted": it is Stopped, and exec needs it Running' ]
    [ "$(jq -r .fix "$FRAMES")" = 'start it: nodus start sandbox/halted -n default' ]
}

@test "a client that goes away kills the process" {
    local t i
    t=$(tree sandboxes dev)
    rm -f "$t/sleeper.pid"
    ws "$NS/sandboxes/dev/exec?command=sh&command=-c&command=echo+\$\$+>sleeper.pid;+exec+sleep+300&stdout=true" \
        "v5.channel.k8s.io" --max-time 2 || true
    [ -s "$t/sleeper.pid" ]
    wait_until -t 5 tree_idle "$t"
}

@test "stdin, and v5's close of stdin (channel 255), through nodus exec" {
    run --separate-stderr -0 sh -c 'printf "line one\nline two\n" | nodus exec -i dev -- sort -r'
    assert_output $'line two\nline one'
}

@test "a session open keeps a Sandbox from idling; its end starts the idle clock again" {
    new_sandbox idler '{"idleTimeout":"1m"}'
    clock_advance 15s
    [ "$(phase sandboxes idler)" = "Running " ]
    mkfifo in
    nodus exec -i idler -- cat <in >out 2>&1 3>&- &
    local cli=$! i
    exec 4>in
    echo ready >&4
    wait_until -t 5 grep -q ready out
    clock_advance 10m
    [ "$(phase sandboxes idler)" = "Running " ]
    exec 4>&- # end of stdin: cat ends, and the session
    wait "$cli"
    local ended
    ended=$(curl -sf "$(emu_url)$NS/sandboxes/idler" | jq -r .status.lastActivityTime)
    [ "$ended" = "$(curl -sf "$(emu_url)/emulator/v1/clock" | jq -r .now)" ]
    clock_advance 59s
    [ "$(phase sandboxes idler)" = "Running " ]
    clock_advance 2s
    [ "$(phase sandboxes idler)" = "Stopped IdleTimeout" ]
}

sleeping_in() { # DIR: a `sleep 300` runs there (not one of another suite)
    local p dir
    dir=$(readlink -f "$1")
    for p in $(pgrep -x -f 'sleep 300'); do
        [ "/proc/$p/cwd" -ef "$dir" ] && return 0
    done
    return 1
}

@test "a Sandbox that stops ends its sessions (exit code 137)" {
    new_sandbox brief
    clock_advance 15s
    nodus exec brief -- sleep 300 >out 2>err 3>&- &
    local cli=$! i
    wait_until -t 5 sleeping_in "$(tree sandboxes brief)" || true
    curl -sf -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
        -d '{"spec":{"state":"Stopped"}}' "$(emu_url)$NS/sandboxes/brief"
    clock_advance 1s
    local rc=0
    wait "$cli" || rc=$?
    echo "exit $rc: $(cat err)"
    [ "$rc" = 137 ]
    [ "$(cat err)" = "command terminated with exit code 137" ]
}

@test "a Running Job's exec runs in the Job's tree (its /); a queued Job refuses" {
    http POST "$NS/jobs" "$(job_json worker)"
    ws "$NS/jobs/worker/exec?command=pwd&stdout=true"
    [ "$CODE" = 400 ]
    [ "$(jq -r .message "$FRAMES")" = 'cannot exec into job "worker": it is Queued, and exec needs it Running' ]
    clock_advance 40s # Queued 5 s, Provisioning 30 s
    ws "$NS/jobs/worker/exec?command=pwd&stdout=true"
    [ "$CODE" = 101 ]
    run frames
    assert_line -n 0 "1 /\n"
}
