#!/usr/bin/env bats
# Shell completion: the committed scripts are what `nodus completion` prints; bash
# completes verbs, kinds, object names, flags and fixed values; `nodus __complete`
# answers the dynamic parts (kinds, names, projects, contexts) and never hangs a shell.

load ../lib/common

setup_file() {
    start_emulator
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$EMU_URL
    unset NODUS_CONFIG KUBECONFIG NODUS_TOKEN NODUS_CONTEXT
    mkdir -p "$HOME"
    local api=$EMU_URL/apis/nodus.dev/v1/namespaces
    curl -sSf -o /dev/null -H 'Content-Type: application/json' \
        --data-binary '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}' \
        "$EMU_URL/api/v1/namespaces"
    local ns name
    for ns in default/train-a default/train-b team/other-x; do
        name=${ns#*/}
        curl -sSf -o /dev/null -H 'Content-Type: application/json' \
            --data-binary "$(job_json "$name")" "$api/${ns%/*}/jobs"
    done
}

teardown_file() {
    stop_emulator
}

# Runs the bash completion function on WORDS, as bash would after Tab (the last word
# is the one under the cursor), without bash-completion loaded; prints COMPREPLY, one
# a line.
bash_complete() {
    bash --norc --noprofile -c '
        source "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _nodus nodus "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$ND_ROOT/completions/nodus.bash" "$@"
}

@test "completions/ holds exactly what nodus completion prints (make completions)" {
    local shell file
    for shell in bash zsh fish; do
        case $shell in
        bash) file=nodus.bash ;;
        zsh) file=_nodus ;;
        fish) file=nodus.fish ;;
        esac
        run --separate-stderr nodus completion "$shell"
        assert_success
        [ -z "$stderr" ]
        [ -n "$output" ]
        if [ "$output" != "$(cat "$ND_ROOT/completions/$file")" ]; then
            echo "completions/$file is stale: run make completions" >&2
            return 1
        fi
    done
}

@test "nodus completion: a missing, extra or unknown shell is a usage error" {
    run --separate-stderr -2 nodus completion
    assert_output ""
    assert_equal "$stderr" "error: Shell not specified.
See 'nodus completion --help' for usage."
    run --separate-stderr -2 nodus completion bash zsh
    assert_equal "$stderr" "error: Too many arguments. Expected only the shell type.
See 'nodus completion --help' for usage."
    run --separate-stderr -2 nodus completion tcsh
    assert_output ""
    assert_equal "$stderr" "error: Unsupported shell type \"tcsh\" (bash, zsh or fish).
See 'nodus completion --help' for usage."
}

@test "the bash script registers _nodus and needs no bash-completion" {
    run bash --norc --noprofile -c 'source "$1" && complete -p nodus' _ \
        "$ND_ROOT/completions/nodus.bash"
    assert_success
    assert_output "complete -F _nodus nodus"
}

@test "bash: nodus ge<TAB> offers get" {
    run bash_complete nodus ge
    assert_success
    assert_output "get"
}

@test "bash: nodus <TAB> offers every verb of the table and no hidden one" {
    run bash_complete nodus ""
    assert_success
    assert_line get
    assert_line completion
    assert_line suspend
    refute_line __complete
    # the same list as nodus --help shows
    local verbs
    verbs=$(nodus --help |
        awk '/^[A-Z].*:$/ {n = $0 != "Usage:"; next} n && /^  [a-z]/ {print $1}' | sort)
    assert_equal "$(sort <<<"$output")" "$verbs"
}

@test "bash: nodus get jo<TAB> offers jobs (and job/ for KIND/NAME)" {
    run bash_complete nodus get jo
    assert_success
    assert_output "jobs
job/"
}

@test "bash: nodus get jobs tr<TAB> offers the jobs of the emulator" {
    run bash_complete nodus get jobs tr
    assert_success
    assert_output "train-a
train-b"
    run bash_complete nodus get job/train-
    assert_output "job/train-a
job/train-b"
    # a name already on the line is not offered again
    run bash_complete nodus delete job train-a ""
    assert_output "train-b"
}

@test "bash: nodus get -o <TAB> offers json yaml wide name" {
    run bash_complete nodus get -o ""
    assert_success
    assert_output "json
yaml
wide
name
jsonpath=
custom-columns="
    # --output=<TAB>: bash splits the word at '=' (COMP_WORDBREAKS)
    run bash_complete nodus get --output =
    assert_line json
    assert_line wide
    run bash_complete nodus get --output = ya
    assert_output "yaml"
    # another verb's table: delete -o knows only name
    run bash_complete nodus delete -o ""
    assert_output "name"
}

@test "bash: nodus get --<TAB> lists get's flags and the global flags" {
    run bash_complete nodus get --
    assert_success
    assert_line --output
    assert_line --selector
    assert_line --watch
    assert_line --show-managed-fields
    assert_line --kubeconfig
    assert_line --project
    assert_line --request-timeout
    refute_line --cascade
    refute_line -- -o
    run bash_complete nodus get -
    assert_line -- -o
    assert_line -- -n
    assert_line --output
}

@test "bash: projects, contexts, fixed arguments and files" {
    run bash_complete nodus -n ""
    assert_output "default
nodus
team"
    run bash_complete nodus get jobs --project = t
    assert_output "team"
    run bash_complete nodus completion ""
    assert_output "bash
zsh
fish"
    run bash_complete nodus completion bash ""
    assert_output ""
    mkdir -p "$BATS_TEST_TMPDIR/m"
    touch "$BATS_TEST_TMPDIR/m/job.yaml" "$BATS_TEST_TMPDIR/m/jobs.json"
    run bash_complete nodus apply -f "$BATS_TEST_TMPDIR/m/jo"
    output=$(sort <<<"$output")
    assert_output "$BATS_TEST_TMPDIR/m/job.yaml
$BATS_TEST_TMPDIR/m/jobs.json"
    # the project given on the line is the one whose names are offered
    run bash_complete nodus -n team get jobs ""
    assert_output "other-x"
}

@test "bash: file completion goes through bash-completion's _filedir when it is loaded" {
    local bc=/usr/share/bash-completion/bash_completion
    [ -r "$bc" ] || fail "bash-completion is not installed ($bc): run scripts/install-deps.sh"
    mkdir -p "$BATS_TEST_TMPDIR/m/sub"
    touch "$BATS_TEST_TMPDIR/m/job.yaml"
    run bash --norc --noprofile -c '
        source "$1"; source "$2"
        COMP_WORDS=(nodus apply -f "$3/"); COMP_CWORD=3
        COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
        _nodus nodus "$3/" -f
        printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$bc" "$ND_ROOT/completions/nodus.bash" \
        "$BATS_TEST_TMPDIR/m"
    assert_success
    assert_output "$BATS_TEST_TMPDIR/m/job.yaml
$BATS_TEST_TMPDIR/m/sub"
}

@test "nodus __complete get '' lists kinds: plural and short names, and KIND/" {
    run --separate-stderr nodus __complete get ''
    assert_success
    assert_line jobs
    assert_line nj
    assert_line job/
    assert_line sandboxes
    assert_line sbx
    assert_line namespaces
    assert_line projects
    assert_line events
    refute_line get
    # the state verbs offer only the kinds that have that state
    run nodus __complete suspend ''
    assert_output "jobs
nj
job/
pipelines
pipe
pipeline/"
    run nodus __complete stop s
    assert_output "sandboxes
sbx
sandbox/"
    # verbs that change objects leave read-only kinds out
    run nodus __complete delete i
    assert_output ""
    run nodus __complete get i
    assert_output "images
img
image/"
}

@test "nodus __complete: verbs, flags, values and comma-separated kinds" {
    run nodus __complete ''
    assert_success
    assert_line annotate
    refute_line __complete
    run nodus __complete get --output=j
    assert_output "--output=json
--output=jsonpath="
    run nodus __complete get -o=y
    assert_output "-o=yaml"
    run nodus __complete get jobs,sa
    assert_output "jobs,sandboxes"
    run nodus __complete apply --dry
    assert_output "--dry-run"
    # after -- (the scripts pass one first) main does not take --help for itself
    run nodus __complete -- get --help jo
    assert_output "jobs
job/"
    run nodus __complete version ''
    assert_output ""
}

@test "nodus __complete: names of the project on the line, or of every project with -A" {
    run nodus __complete get jobs ''
    assert_output "train-a
train-b"
    run nodus __complete get jobs -n team ''
    assert_output "other-x"
    run nodus __complete --project=team get job/
    assert_output "job/other-x"
    run nodus __complete -A get jobs ''
    assert_output "train-a
train-b
other-x"
    run nodus __complete get -n ''
    assert_output "default
nodus
team"
    # label takes one name, then KEY=VALUE
    run nodus __complete label jobs train-a ''
    assert_output ""
}

@test "nodus __complete: each verb offers the kinds it takes, and bare names as kubectl" {
    # logs: the kinds with a log, and Job names (kubectl offers pod names)
    run nodus __complete logs ''
    assert_output "jobs
nj
job/
poolactions
pact
poolaction/
sandboxes
sbx
sandbox/
functions
fn
function/
train-a
train-b"
    run nodus __complete logs job/''
    assert_output "job/train-a
job/train-b"
    # exec: kinds with exec, Sandbox names (none here); invoke: Functions only
    run nodus __complete exec ''
    assert_output "jobs
nj
job/
sandboxes
sbx
sandbox/"
    run nodus __complete invoke ''
    assert_output "functions
fn
function/"
    # a kind without a log is not offered, nor are its names
    run nodus __complete logs pipelines ''
    assert_output ""
    # suspend and resume: the kinds with spec.state Suspended
    run nodus __complete suspend ''
    assert_output "jobs
nj
job/
pipelines
pipe
pipeline/"
}

@test "cp: local files, and KIND/ and NAME: of the kinds that hold files" {
    nodus apply -f "$ND_ROOT/examples/sandbox.yaml" -n team >/dev/null
    run nodus __complete cp ''
    assert_output "sandbox/
volume/"
    run nodus __complete -n team cp ''
    assert_output "sandbox/
volume/
dev:"
    run nodus __complete -n team cp ./data sandbox/
    assert_output "sandbox/dev:"
    run nodus __complete -n team cp job/
    assert_output ""
    run nodus __complete -n team cp dev:/work/
    assert_output ""
    # the scripts add the local files
    mkdir -p "$BATS_TEST_TMPDIR/cp/sub"
    touch "$BATS_TEST_TMPDIR/cp/data.bin"
    cd "$BATS_TEST_TMPDIR/cp"
    run bash_complete nodus -n team cp ""
    assert_output "data.bin
sub
sandbox/
volume/
dev:"
    run bash_complete nodus -n team cp sandbox/
    assert_output "sandbox/dev:"
    run fish --no-config -c 'source $argv[1]; complete -C "nodus -n team cp "' \
        "$ND_ROOT/completions/nodus.fish"
    assert_output "data.bin
dev:
sandbox/
sub/
volume/"
}

@test "nodus __complete: subcommands of emulator and config, and what follows them" {
    run nodus __complete emulator ''
    assert_output "start
stop
status
reset
logs
env
clock"
    run nodus __complete emulator clock ''
    assert_output "advance
speed"
    run nodus __complete emulator clock advance ''
    assert_output ""
    local cfg=$BATS_TEST_TMPDIR/config
    cat >"$cfg" <<EOF
apiVersion: v1
kind: Config
clusters: []
contexts:
- name: dev
  context: {}
- name: prod
  context: {}
users: []
current-context: dev
EOF
    NODUS_CONFIG=$cfg run nodus __complete config use-context ''
    assert_output "dev
prod"
    NODUS_CONFIG=$cfg run nodus __complete config delete-context p
    assert_output "prod"
    NODUS_CONFIG=$cfg run nodus __complete config view ''
    assert_output ""
    # the scripts ask for them too
    NODUS_CONFIG=$cfg run bash_complete nodus config use-context ""
    assert_output "dev
prod"
    run bash_complete nodus emulator clock ""
    assert_output "advance
speed"
}

@test "nodus __complete: create's forms, auth's subcommands and can-i's verbs" {
    run nodus __complete create ''
    assert_output "namespace
project"
    run nodus __complete auth ''
    assert_output "whoami
can-i"
    run nodus __complete auth can-i c
    assert_output "create"
    run nodus __complete auth whoami ''
    assert_output ""
}

@test "nodus __complete: contexts come from the configuration file" {
    local cfg=$BATS_TEST_TMPDIR/config
    cat >"$cfg" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: emu
  cluster: {server: "$EMU_URL"}
contexts:
- name: dev
  context: {cluster: emu}
- name: prod
  context: {cluster: emu, namespace: team}
users: []
current-context: dev
EOF
    run nodus __complete --kubeconfig "$cfg" --context ''
    assert_output "dev
prod"
    NODUS_CONFIG=$cfg run nodus __complete --context p
    assert_output "prod"
    # the context's project decides which names are offered
    NODUS_SERVER= NODUS_CONFIG=$cfg run nodus __complete --context prod get jobs ''
    assert_output "other-x"
}

@test "nodus __complete prints nothing when the server is down or broken" {
    NODUS_SERVER=http://127.0.0.1:1 run --separate-stderr nodus __complete get jobs ''
    assert_success
    assert_output ""
    assert_equal "$stderr" ""
    run --separate-stderr nodus __complete --kubeconfig /nonexistent/dir/x --context ''
    assert_success
    assert_output ""
    printf 'clusters: 3\n' >"$BATS_TEST_TMPDIR/bad"
    NODUS_CONFIG=$BATS_TEST_TMPDIR/bad run --separate-stderr nodus __complete --context ''
    assert_success
    assert_output ""
    assert_equal "$stderr" ""
}

@test "nodus __complete gives up on a slow server after 2 s" {
    http POST /emulator/v1/faults \
        '{"path":"/jobs","verb":"GET","status":0,"count":1,"delayMs":6000}'
    [ "$CODE" = 200 ] || [ "$CODE" = 201 ]
    local start=$SECONDS
    run --separate-stderr nodus __complete get jobs ''
    local took=$((SECONDS - start))
    http DELETE /emulator/v1/faults
    assert_success
    assert_output ""
    [ "$took" -le 4 ] || { echo "took ${took}s" >&2; return 1; }
}

@test "zsh: the script parses and registers _nodus with compdef" {
    command -v zsh >/dev/null || fail "zsh is not installed: run scripts/install-deps.sh"
    run zsh -n "$ND_ROOT/completions/_nodus"
    assert_success
    run zsh -f -c 'autoload -Uz compinit && compinit -u -d "$2/zcompdump" && source "$1" &&
        print -r -- $_comps[nodus]' _ "$ND_ROOT/completions/_nodus" "$BATS_TEST_TMPDIR"
    assert_success
    assert_output "_nodus"
}

@test "fish: the script parses and completes verbs, kinds, names and values" {
    command -v fish >/dev/null || fail "fish is not installed: run scripts/install-deps.sh"
    run fish --no-execute "$ND_ROOT/completions/nodus.fish"
    assert_success
    fish_complete() {
        fish --no-config -c 'source $argv[1]; complete -C $argv[2]' \
            "$ND_ROOT/completions/nodus.fish" "$1" | cut -f1
    }
    run fish_complete 'nodus ge'
    assert_output "get"
    run fish_complete 'nodus get jo'
    assert_output "job/
jobs"
    run fish_complete 'nodus get jobs tr'
    assert_output "train-a
train-b"
    run fish_complete 'nodus get --output=ya'
    assert_output "--output=yaml"
    run fish_complete 'nodus -n te'
    assert_output "team"
    # the arguments after a subcommand ask nodus
    run fish_complete 'nodus emulator clock '
    assert_output "advance
speed"
    run fish_complete 'nodus logs '
    assert_output "fn
function/
functions
job/
jobs
nj
pact
poolaction/
poolactions
sandbox/
sandboxes
sbx
train-a
train-b"
}
