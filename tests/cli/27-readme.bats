#!/usr/bin/env bats
# Following README.md in order never strands a user (issue 11, item 4): NODUS_SERVER left
# over from a stopped emulator is named where it bites (`nodus emulator start` warns that
# it overrides the context it made current; "connection refused" says it chose the
# server), and the tree holds only what it should (item 12).

load ../lib/common

setup() {
    export HOME=$BATS_TEST_TMPDIR/home
    mkdir -p "$HOME"
    unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG NODUS_EMULATOR_STATE
    export NODUS_EMULATOR_STATE=$BATS_TEST_TMPDIR/emu
}

teardown() {
    nodus emulator stop >/dev/null 2>&1 || true
    stop_emulator
}

@test "emulator start warns on stderr when NODUS_SERVER overrides the context it made current" {
    # the README's first session leaves NODUS_SERVER pointing at an emulator since killed
    export NODUS_SERVER=http://127.0.0.1:9
    run -0 --separate-stderr nodus emulator start --speed 0
    assert_line -n 0 --regexp '^emulator started: http://127\.0\.0\.1:[0-9]+ '
    assert_line -n 1 'context "emulator-emu" is current'
    assert_line -n 2 --regexp '^console: http://127\.0\.0\.1:[0-9]+/ \(open it in a browser\)$'
    [ "$stderr" = 'warning: NODUS_SERVER=http://127.0.0.1:9 overrides the context "emulator-emu" for every command; unset NODUS_SERVER to use it' ]
    # a second start (already running) says it again
    run -0 --separate-stderr nodus emulator start
    assert_line -n 0 --regexp '^emulator already running: '
    [[ "$stderr" == 'warning: NODUS_SERVER=http://127.0.0.1:9 overrides'* ]]
    # NODUS_TOKEN too
    NODUS_TOKEN=t0ken run -0 --separate-stderr nodus emulator start
    [[ "$stderr" == *$'\nwarning: NODUS_TOKEN overrides the credentials of the context "emulator-emu"; unset NODUS_TOKEN to use them' ]]
}

@test "emulator start says nothing more when NODUS_SERVER is unset or names the emulator itself" {
    run -0 --separate-stderr nodus emulator start --speed 0
    [ -z "$stderr" ]
    eval "$(nodus emulator env)"
    run -0 --separate-stderr nodus emulator start
    [ -z "$stderr" ]
}

@test "connection refused names NODUS_SERVER when it chose the server" {
    export NODUS_SERVER=http://127.0.0.1:9
    run -7 --separate-stderr nodus get jobs
    assert_output ""
    [ "$stderr" = 'The connection to the server 127.0.0.1:9 was refused - did you specify the right host or port?
fix: NODUS_SERVER=http://127.0.0.1:9 chose this server: unset NODUS_SERVER to use the current context (nodus config current-context), or start a server there' ]
    # the verbs that write from files say it the same way
    run -7 --separate-stderr nodus apply -f "$ND_ROOT/examples/job.yaml"
    [[ "$stderr" == *$'\nfix: NODUS_SERVER=http://127.0.0.1:9 chose this server: unset NODUS_SERVER'* ]]
    # --server named it: the usual fix
    run -7 --separate-stderr nodus get jobs --server http://127.0.0.1:9
    [[ "$stderr" == *$'\nfix: Check the server address (--server, or the cluster in nodus config view); to run a local emulator: nodus emulator start.' ]]
    unset NODUS_SERVER
    nodus config set-cluster c --server http://127.0.0.1:9 >/dev/null
    nodus config set-context c --cluster c >/dev/null
    nodus config use-context c >/dev/null
    run -7 --separate-stderr nodus get jobs
    [[ "$stderr" == *$'\nfix: Check the server address'* ]]
}

@test "the README's stranding, end to end: kill, start, unset" {
    # the first session: an emulator of one's own, NODUS_SERVER pointing at it, then killed
    start_emulator
    export NODUS_SERVER=$EMU_URL
    run -0 nodus get jobs
    stop_emulator
    run -0 --separate-stderr nodus emulator start --speed 0
    [[ "$stderr" == "warning: NODUS_SERVER=$EMU_URL overrides"* ]]
    run -7 --separate-stderr nodus get jobs
    [[ "$stderr" == *"fix: NODUS_SERVER=$EMU_URL chose this server: unset NODUS_SERVER"* ]]
    unset NODUS_SERVER
    run -0 nodus get jobs
    assert_output "No resources found in default namespace."
}

@test "the committed top level holds only the expected entries, and no empty file" {
    cd "$ND_ROOT"
    git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
        skip "not a git checkout: the committed tree cannot be listed"
    local expected=".ci/ .clang-format .gitignore CONTRIBUTING.md Makefile README.md VERSION bench/ cmd/ completions/ docs/ emulator/ examples/ man/ pkg/ scripts/ tests/"
    local top
    top=$(git ls-files | awk -F/ '{ print $1 (NF > 1 ? "/" : "") }' | LC_ALL=C sort -u | tr '\n' ' ')
    [ "$top" = "$expected " ] || { echo "top level: $top"; echo "expected:  $expected"; return 1; }
    local f empty=
    for f in $(git ls-files | grep -v /); do
        [ -s "$f" ] || empty="$empty $f"
    done
    [ -z "$empty" ] || { echo "empty files at the top:$empty"; return 1; }
}

@test "every verb has its own file in cmd/nodus/verbs/, named for it, and nothing else is there" {
    # as git's builtin/: a verb is found by its name; what verbs share sits in cmd/nodus/
    local verbs files
    verbs=$( (echo __complete; nodus __complete '' 2>/dev/null) | LC_ALL=C sort | tr '\n' ' ')
    [ "$(echo "$verbs" | wc -w)" -gt 30 ] || { echo "verbs: $verbs"; return 1; }
    files=$(cd "$ND_ROOT/cmd/nodus/verbs" && ls -- *.c | sed 's/\.c$//' | LC_ALL=C sort | tr '\n' ' ')
    [ "$files" = "$verbs" ] || { echo "files: $files"; echo "verbs: $verbs"; return 1; }
    # each defines its verb's entry point (cmd_NAME with - as _; __complete: cmd_complete)
    local v fn
    for v in $verbs; do
        fn=${v#__}
        fn=cmd_${fn//-/_} # (no echo | tr: two processes a verb)
        grep -q "^int $fn(int argc" "$ND_ROOT/cmd/nodus/verbs/$v.c" ||
            { echo "verbs/$v.c does not define $fn"; return 1; }
    done
}

# Issue 13, item 6: a test's number names it in its suite (a shared helper has no number).
@test "no two test files of one suite share a number prefix" {
    local d dups= n
    for d in "$ND_ROOT"/tests/*/ "$ND_ROOT"/tests/hostile/cases/; do
        n=$(ls "$d" | sed -nE 's/^([0-9]+)-.*/\1/p' | sort | uniq -d | tr '\n' ' ')
        [ -z "$n" ] || dups="$dups ${d#"$ND_ROOT"/}: $n;"
    done
    [ -z "$dups" ] || { echo "number prefixes used twice:$dups"; return 1; }
}

# Man pages say what the program does (item 5).

man_text() {
    MANWIDTH=200 man -l "$ND_ROOT/man/$1" 2>/dev/null | tr -s ' \n' ' '
}

@test "nodus(1) and nodus-edit(1): EDITOR is split at spaces, not run through a shell" {
    command -v man >/dev/null || skip "man is not installed"
    local page
    for page in nodus.1 nodus-edit.1; do
        [[ "$(man_text $page)" == *"split at spaces into a program and its arguments"* ]]
        [[ "$(man_text $page)" != *"through the shell"* ]]
    done
    start_emulator
    export NODUS_SERVER=$EMU_URL
    nodus create -f "$ND_ROOT/examples/job.yaml" >/dev/null
    # arguments in EDITOR are passed on; shell syntax in it is not interpreted
    EDITOR='sed -i s/app:.trainer/app:\x20tuner/' run -0 nodus edit job train-a
    assert_output "job.nodus.dev/train-a edited"
    run -0 nodus get job train-a -o jsonpath='{.metadata.labels.app}'
    assert_output tuner
    EDITOR='true; false' run -2 --separate-stderr nodus edit job train-a
    [[ "$stderr" == *"not found"*"error: the editor failed or could not be started"* ]]
}

@test "nodus-create(1): an identical object prints unchanged (exit 0), a different one is AlreadyExists (exit 4)" {
    command -v man >/dev/null || skip "man is not installed"
    [[ "$(man_text nodus-create.1)" == *"kind.group/name unchanged is printed"* ]]
    [[ "$(man_text nodus-create.1)" != *"An object that exists already is an error"* ]]
    start_emulator
    export NODUS_SERVER=$EMU_URL
    run -0 nodus create -f "$ND_ROOT/examples/job.yaml"
    run -0 nodus create -f "$ND_ROOT/examples/job.yaml"
    assert_output "job.nodus.dev/train-a unchanged"
    sed 's/"40.00"/"50.00"/' "$ND_ROOT/examples/job.yaml" >"$BATS_TEST_TMPDIR/job.yaml"
    run -4 --separate-stderr nodus create -f "$BATS_TEST_TMPDIR/job.yaml"
    [[ "$stderr" == "Error from server (AlreadyExists): "* ]]
}

@test "nodus-wait(1): a named object that does not exist is NotFound (exit 3); --for=create waits for it" {
    command -v man >/dev/null || skip "man is not installed"
    [[ "$(man_text nodus-wait.1)" == *"An object named that does not exist is an error, as in kubectl (NotFound, exit status 3)"* ]]
    start_emulator
    export NODUS_SERVER=$EMU_URL
    run -3 --separate-stderr nodus wait job/nothing --for=condition=Ready --timeout=5s
    [[ "$stderr" == 'Error from server (NotFound): jobs.nodus.dev "nothing" not found'* ]]
    run -6 --separate-stderr nodus wait job/nothing --for=create --timeout=1s
}

@test "no function of cmd/, pkg/ or emulator/ takes more than 8 parameters (issue 13, item 2)" {
    # a wider one takes an options struct (struct nd_call_req, nd_ssa_opts ...)
    run -0 "$ND_ROOT/scripts/wide-signatures.sh"
    assert_output ""
    # the scan sees through declarations over several lines: libmicrohttpd's access
    # handler takes 8
    run -0 "$ND_ROOT/scripts/wide-signatures.sh" 7
    assert_line --regexp '^emulator/http/http\.c:[0-9]+ on_request 8$'
}
