#!/usr/bin/env bats
# Exec sessions and clients that break the WebSocket protocol, drop the connection or
# stop answering: each ends the session at once, kills the command's whole process
# group (SIGTERM, then SIGKILL after a grace) and starts the Sandbox's idle clock again.
# The client is tests/lib/wsraw, which sends exactly the bytes it is given and keeps
# the connection open until the server hangs up. Pings come every second here.

load ../lib/common

NS=/apis/nodus.dev/v1/namespaces/default
WSRAW=$BATS_TEST_DIRNAME/../lib/wsraw
# a shell that writes its pid, then becomes `sleep 300`
SLEEPER='command=sh&command=-c&command=echo+$$+>pid;+exec+sleep+300&stdout=true'

setup_file() {
    start_emulator --exec-keepalive 1
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$EMU_URL NO_COLOR=1
    mkdir -p "$HOME"
}

teardown_file() {
    stop_emulator
    # the sanitizer builds report here
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
    PORT=$(cat "$BATS_FILE_TMPDIR/port")
}

teardown() {
    [ -n "${CLIENT:-}" ] && kill "$CLIENT" 2>/dev/null
    return 0
}

phase() { # NAME
    curl -sf "$(emu_url)$NS/sandboxes/$1" | jq -r '.status.phase + " " + (.status.reason // "")'
}

# A Running Sandbox NAME with an idle timeout of one minute; its file tree in $TREE.
running_sandbox() {
    local body
    body=$(jq -cn --arg n "$1" '{apiVersion:"nodus.dev/v1",kind:"Sandbox",metadata:{name:$n},
        spec:{image:"nodus/pytorch:2.8-cuda12.8",maxCostUSD:"10.00",idleTimeout:"1m"}}')
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' -d "$body" \
        "$(emu_url)$NS/sandboxes"
    clock_advance 15s # Pending 2 s, Starting 10 s
    [ "$(phase "$1")" = "Running " ]
    TREE=$EMU_STATE/files/default/sandboxes/$1
}

last_activity_is() { # SANDBOX TIME
    [ "$(curl -sf "$(emu_url)$NS/sandboxes/$1" | jq -r .status.lastActivityTime)" = "$2" ]
}

wait_file() {
    wait_until test -s "$1"
}

wait_gone() { # TREE: the session's processes in TREE are gone within 5 s (its $$ is the
    # pid in the session's own PID namespace, of no use outside it)
    wait_until -t 5 tree_idle "$1"
}

# The session's end restarted NAME's idle clock: lastActivityTime is now, and the
# Sandbox stops one idleTimeout later, not before.
idle_clock_restarted() {
    local now last
    now=$(curl -sf "$(emu_url)/emulator/v1/clock" | jq -r .now)
    wait_until last_activity_is "$1" "$now" || true
    last=$(curl -sf "$(emu_url)$NS/sandboxes/$1" | jq -r .status.lastActivityTime)
    assert_equal "$last" "$now"
    clock_advance 59s
    [ "$(phase "$1")" = "Running " ]
    clock_advance 2s
    [ "$(phase "$1")" = "Stopped IdleTimeout" ]
}

# broken NAME HEX CODE: a session into a new Sandbox NAME running the sleeper; once it
# runs, the client sends the bytes HEX and holds on. The server answers with a close
# frame CODE and hangs up, the process is gone while the client still holds the
# connection, and the idle clock runs again.
broken() {
    local name=$1 hex=$2 code=$3
    running_sandbox "$name"
    "$WSRAW" "$PORT" "$NS/sandboxes/$name/exec?$SLEEPER" --after "$TREE/pid" --send "$hex" \
        >ws.out 3>&- &
    CLIENT=$!
    wait_file "$TREE/pid"
    wait_gone "$TREE"
    wait "$CLIENT"
    run grep -v '^ping$' ws.out
    assert_output "HTTP 101
close $code
eof"
    idle_clock_restarted "$name"
}

@test "an unmasked frame: close 1002, the command is killed, the idle clock runs again" {
    broken unmasked "82 02 00 78" 1002 # binary, stdin "x", no mask
}

@test "a reserved opcode (3): close 1002, the command is killed, the idle clock runs again" {
    broken opcode "83 80 00000000" 1002
}

@test "RSV bits without an extension: close 1002, the command is killed" {
    broken rsv "c2 80 00000000" 1002 # binary with RSV1
}

@test "a ping of 126 bytes (control frames hold 125 at most): close 1002, the command is killed" {
    broken bigping "89 fe 007e 00000000 $(printf '%0252d' 0)" 1002
}

@test "a fragmented ping (control frame without FIN): close 1002, the command is killed" {
    broken fragping "09 80 00000000" 1002
}

@test "a continuation frame with no message begun: close 1002, the command is killed" {
    broken stray "80 80 00000000" 1002
}

@test "a message over 1 MiB: close 1009, the command is killed" {
    broken huge "82 ff 0000000000200000 00000000 00000000" 1009 # a 2 MiB binary message
}

@test "a client that drops the connection mid-session (FIN): the command is killed" {
    running_sandbox dropper
    run -0 "$WSRAW" "$PORT" "$NS/sandboxes/dropper/exec?$SLEEPER" --after "$TREE/pid" --drop
    assert_output $'HTTP 101\ndropped'
    wait_gone "$TREE"
    idle_clock_restarted dropper
}

@test "a client whose connection is reset (RST) mid-session: the command is killed" {
    running_sandbox resetter
    run -0 "$WSRAW" "$PORT" "$NS/sandboxes/resetter/exec?$SLEEPER" --after "$TREE/pid" --reset
    assert_output $'HTTP 101\ndropped'
    wait_gone "$TREE"
    idle_clock_restarted resetter
}

@test "a client that answers no ping is gone after two intervals: the command is killed" {
    running_sandbox silent
    "$WSRAW" "$PORT" "$NS/sandboxes/silent/exec?$SLEEPER" --no-pong >ws.out 3>&- &
    CLIENT=$!
    wait_file "$TREE/pid"
    wait_gone "$TREE"
    wait "$CLIENT"
    # pinged, then hung up on, with no close frame (nobody is there to read one)
    run cat ws.out
    assert_output $'HTTP 101\nping\neof'
    idle_clock_restarted silent
}

@test "a client that answers the pings keeps its session (wsraw, then nodus exec)" {
    running_sandbox talker
    # the commands outlast two keepalive periods on purpose: the sleeps are what is tested
    run -0 "$WSRAW" "$PORT" "$NS/sandboxes/talker/exec?command=sh&command=-c&command=sleep+2.5;+echo+hi&stdout=true"
    assert_line -n 0 "HTTP 101"
    assert_line -n 1 "ping"
    assert_line -n 2 "ping"
    assert_line "data 1 3"
    assert_line "close 1000"
    run -0 --separate-stderr nodus exec talker -- sh -c 'sleep 2.5; echo done'
    assert_output done
}

@test "the whole process group goes, and SIGKILL follows for what ignores SIGTERM" {
    running_sandbox group
    # a child in the background, and a shell that ignores SIGHUP and SIGTERM
    "$WSRAW" "$PORT" "$NS/sandboxes/group/exec?command=sh&command=-c&command=sleep+300+%26+echo+\$!+>child;+trap+''+HUP+TERM;+echo+\$\$+>pid;+while+:;+do+sleep+0.1;+done&stdout=true" \
        --after "$TREE/pid" --send "82 02 00 78" >ws.out 3>&- &
    CLIENT=$!
    wait_file "$TREE/pid"
    wait_file "$TREE/child"
    wait_gone "$TREE"
    wait "$CLIENT"
    assert_equal "$(grep close ws.out)" "close 1002"
}

@test "--exec-keepalive takes whole seconds from 1 to 3600" {
    local v
    for v in 0 3601 1.5 x; do
        run -2 --separate-stderr nodus-emulator --state "$BATS_TEST_TMPDIR/s" --exec-keepalive "$v"
        assert_equal "$stderr" "nodus-emulator: --exec-keepalive wants whole seconds from 1 to 3600, got $v"
    done
    run -0 nodus-emulator --help
    assert_line --partial "--exec-keepalive SECS"
}

@test "SIGTERM with exec sessions open: they end, their processes go, the emulator exits 0" {
    # an emulator of its own, so stopping it leaves this file's alone
    local state=$BATS_TEST_TMPDIR/state2 pf=$BATS_TEST_TMPDIR/port2 i clients=() p
    nodus-emulator --state "$state" --listen 127.0.0.1:0 --port-file "$pf" --fsync never \
        --quiet --speed 0 --exec-keepalive 1 >/dev/null 2>"$BATS_TEST_TMPDIR/emu2.err" 3>&- &
    local emu=$!
    wait_until test -s "$pf"
    local url="http://127.0.0.1:$(cat "$pf")"
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$url$NS/sandboxes" \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"down"},
             "spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"10.00"}}'
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        "$url/emulator/v1/clock" -d '{"advance":"15s"}'
    local tree=$state/files/default/sandboxes/down
    for i in 1 2 3; do
        "$WSRAW" "$(cat "$pf")" "$NS/sandboxes/down/exec?command=sh&command=-c&command=echo+\$\$+>pid$i;+exec+sleep+300&stdout=true" \
            --for 20 >"ws$i.out" 3>&- &
        clients+=($!)
        wait_file "$tree/pid$i"
    done
    kill -TERM "$emu"
    wait_until pid_gone "$emu" # gone within 10 s
    wait "$emu" || fail "the emulator exited $?"
    wait_gone "$tree"
    for p in "${clients[@]}"; do wait "$p" || true; done
    run ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer|SEGV" "$BATS_TEST_TMPDIR/emu2.err"
}
