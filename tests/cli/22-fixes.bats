#!/usr/bin/env bats
# Every fix: line nodus and nodus-emulator print names a command that runs. The fixes are
# read from the sources (tests/cli/fixtures/fixes.pl: the fix argument of every
# nd_status_set..., the reason table of pkg/util/status.c); each command they suggest has
# its placeholders (%s, NAME, KIND, FILE ...) filled with objects of a prepared emulator
# and is run: it must succeed (or, for one that waits or follows, still be doing so when
# stopped). Also: the fixes the CLI prints for a missing project work end to end, and
# `nodus create namespace|project NAME`.

load ../lib/common

bats_require_minimum_version 1.5.0

setup_file() {
    start_emulator
    export HOME=$BATS_FILE_TMPDIR/home
    mkdir -p "$HOME"
    unset KUBECONFIG NODUS_CONFIG NODUS_TOKEN NODUS_EMULATOR_STATE
    export NODUS_SERVER=$EMU_URL NO_COLOR=1 NODUS_EDITOR=true
    local f=$BATS_FILE_TMPDIR/fix.yaml
    cat >"$f" <<'YAML'
apiVersion: nodus.dev/v1
kind: Job
metadata:
  name: fix
spec:
  image: nodus/pytorch:2.8-cuda12.8
  command: [python, train.py]
  maxCostUSD: "40.00"
YAML
    nodus apply -f "$f" >/dev/null
    curl -sSf -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fix"}}' \
        "$EMU_URL/api/v1/namespaces"
    printf '%s\n' 'apiVersion: nodus.dev/v1' 'kind: Sandbox' 'metadata: {name: fix}' \
        'spec: {image: nodus/pytorch:2.8-cuda12.8, maxCostUSD: "5.00"}' --- \
        'apiVersion: nodus.dev/v1' 'kind: Function' 'metadata: {name: fix}' \
        'spec: {image: nodus/pytorch:2.8-cuda12.8, maxCostUSD: "5.00"}' --- \
        'apiVersion: nodus.dev/v1' 'kind: Budget' 'metadata: {name: fix}' \
        'spec: {limitUSD: "100.00", period: Monthly}' | nodus apply -f - >/dev/null
    # the Sandbox and the Function run
    curl -sSf -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"advance":"60s"}' \
        "$EMU_URL/emulator/v1/clock"
}

teardown_file() {
    HOME=$BATS_FILE_TMPDIR/home nodus emulator stop >/dev/null 2>&1 || true
    stop_emulator
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

# The command with its placeholders filled, on stdout; nothing when one is left.
fill() {
    local c=$1 f=$BATS_FILE_TMPDIR/fix.yaml patch='{"metadata":{"labels":{"fixed":"yes"}}}'
    c=${c//'%s/%s%s%s'/sandbox/fix}
    c=${c//'%s/%s'/sandbox/fix}
    c=${c//'%s %s%s%s'/job fix}
    c=${c//'delete %s %s'/delete job fix}
    c=${c//'patch %s %s'/patch job fix}
    c=${c//'explain %s%s'/explain jobs.spec}
    c=${c//'explain %s'/explain job}
    c=${c//'-n %s'/-n default}
    c=${c//'function/%s'/function/fix}
    c=${c//'budget %s'/budget fix}
    c=${c//'request %s'/request restart}
    c=${c//'project %s'/project made-by-a-fix}
    c=${c//'nodus get %s'/nodus get jobs}
    c=${c//'set-cluster %s'/set-cluster fix}
    c=${c//'set-credentials %s'/set-credentials fix}
    c=${c//KIND/job}
    c=${c//PROJECT/default}
    c=${c//NAME/fix}
    c=${c//TOKEN/a-token}
    c=${c//COMMAND/true}
    # a prompt is answered as a person at the terminal would
    [[ $c == *--review* ]] && c="$c --yes"
    # a placeholder left unfilled (the three below are filled with text that may have
    # capitals in it)
    local rest=${c//FILE/}
    rest=${rest//URL/}
    rest=${rest//PATCH/}
    [[ $rest == *%* || $rest =~ [A-Z]{3,} ]] && return 0
    c=${c//FILE/$f}
    c=${c//URL/$EMU_URL}
    c=${c//PATCH/\'$patch\'}
    printf '%s\n' "$c"
}

@test "the sources suggest commands, each written after ': ' so it can be found" {
    run -0 perl "$BATS_TEST_DIRNAME/fixtures/fixes.pl" "$ND_ROOT/emulator" "$ND_ROOT/pkg" \
        "$ND_ROOT/cmd"
    # the reason table and the fixes of the emulator and the CLI
    [ "${#lines[@]}" -gt 100 ]
    run -0 perl "$BATS_TEST_DIRNAME/fixtures/fixes.pl" -c "$ND_ROOT/emulator" "$ND_ROOT/pkg" \
        "$ND_ROOT/cmd"
    [ "${#lines[@]}" -gt 25 ]
    # a fix that names nodus names a command: "what to do: nodus VERB ..."
    refute_output --partial $'\tBAD '
    assert_output --partial $'pkg/util/status.c:'
    assert_output --partial $'\tnodus create project %s'
}

@test "every command a fix suggests runs: a known verb, valid flags, and it succeeds" {
    local list=$BATS_TEST_TMPDIR/commands failed=0 n=0 where cmd c rc waits
    perl "$BATS_TEST_DIRNAME/fixtures/fixes.pl" -c "$ND_ROOT/emulator" "$ND_ROOT/pkg" \
        "$ND_ROOT/cmd" >"$list"
    # what deletes runs last, so the others find their objects
    { grep -v $'\tnodus delete' "$list"; grep $'\tnodus delete' "$list" || true; } >"$list.sorted"
    while IFS=$'\t' read -r where cmd; do
        c=$(fill "$cmd")
        if [ -z "$c" ]; then
            echo "$where: a placeholder of \"$cmd\" is not filled by this test" >&2
            failed=1
            continue
        fi
        n=$((n + 1))
        # a wait or a follow is doing what it says when it is stopped
        waits=0
        [[ $c == *" wait "* || $c == *" logs -f "* || $c == *--watch* || $c == *" --wait"* ]] &&
            waits=1
        rc=0
        timeout $((waits ? 2 : 20)) bash -c "$c" >"$BATS_TEST_TMPDIR/out" \
            2>"$BATS_TEST_TMPDIR/err" </dev/null || rc=$?
        [ "$rc" = 124 ] && [ "$waits" = 1 ] && rc=0
        if [ "$rc" != 0 ]; then
            echo "$where: \"$c\" exited $rc:" >&2
            cat "$BATS_TEST_TMPDIR/err" >&2
            failed=1
        fi
    done <"$list.sorted"
    [ "$n" -gt 25 ]
    [ "$failed" = 0 ]
}

@test "a fix of the reason table names a command where one exists (the error reference says it too)" {
    http GET /docs/reference/errors/
    [ "$CODE" = 200 ]
    run -0 grep -c 'What to do: .*: nodus ' "$BODY"
    [ "$output" -ge 14 ]
    run -0 grep -F 'id="notfound"' -A2 "$BODY"
    assert_output --partial 'What to do: List what exists: nodus get KIND -n PROJECT'
}

@test "a missing project: the fix creates it, and then the apply works" {
    printf '%s\n' 'apiVersion: nodus.dev/v1' 'kind: Job' 'metadata: {name: j1}' \
        'spec: {image: nodus/pytorch:2.8-cuda12.8, maxCostUSD: "1.00"}' >j.yaml
    run --separate-stderr -3 nodus apply -f j.yaml -n ghost
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (NotFound): namespaces "ghost" not found' ]
    [ "${stderr_lines[1]}" = 'fix: create it: nodus create project ghost' ]
    fix=${stderr_lines[1]#fix: create it: }
    run --separate-stderr -0 $fix
    assert_output "namespace/ghost created"
    run --separate-stderr -0 nodus apply -f j.yaml -n ghost
    assert_output "job.nodus.dev/j1 created"
}

@test "create namespace|project NAME: created, -o, dry runs, an existing one is AlreadyExists (4)" {
    run --separate-stderr -0 nodus create namespace p-one
    assert_output "namespace/p-one created"
    [ -z "$stderr" ]
    run -0 nodus get namespace p-one -o name
    assert_output "namespace/p-one"
    run --separate-stderr -4 nodus create project p-one
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (AlreadyExists): namespaces "p-one" already exists' ]
    [ "${stderr_lines[1]}" = 'fix: use it: nodus get jobs -n p-one' ]
    run -0 ${stderr_lines[1]#fix: use it: }
    run --separate-stderr -0 nodus create ns p-two -o name
    assert_output "namespace/p-two"
    run --separate-stderr -0 nodus create project p-three --dry-run=server
    assert_output "namespace/p-three created (server dry run)"
    run --separate-stderr -0 nodus create project p-three --dry-run=client -o json
    [ "$(jq -r .metadata.name <<<"$output")" = p-three ]
    run -3 nodus get namespace p-three
    run --separate-stderr -0 nodus create project p-four -o yaml
    assert_line "kind: Namespace"
    assert_line "  name: p-four"
}

@test "create namespace: usage errors exit 2 and create nothing" {
    run --separate-stderr -2 nodus create namespace
    [ "${stderr_lines[0]}" = 'error: name the project to create: nodus create namespace NAME' ]
    run --separate-stderr -2 nodus create project a b
    [ "${stderr_lines[0]}" = 'error: nodus create takes one project name: nodus create project NAME' ]
    run --separate-stderr -2 nodus create project bad -f x.yaml
    run --separate-stderr -1 nodus create project Not_A_Name
    [[ "${stderr_lines[0]}" == *'Not_A_Name'* ]]
    run -3 nodus get namespace bad
}
