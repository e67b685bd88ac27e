# Helpers for the client matrix (tests/clients/): a runner (node, python) runs every
# scenario once in setup_file, writing $BATS_FILE_TMPDIR/results/NAME.out ("ok NAME: what
# it saw", or what went wrong) and its own output to $BATS_FILE_TMPDIR/$CLIENT_LOG.
# Load after ../lib/common.
#
#   node_setup_file PACKAGE SCRIPT [EMULATOR-FLAGS...]
#                    the whole setup_file of a node runner: node and PACKAGE (in
#                    tests/clients/node_modules) are installed, the emulator runs (with
#                    FLAGS), HOME is a fresh directory and NODUS_SERVER the emulator, the
#                    file's own `prepare` runs (when it has one: objects, servers, exports
#                    for the script), then `node SCRIPT --out results` once, at most
#                    CLIENT_TIMEOUT seconds (120)
#   mcp_setup_file SCRIPT [EMULATOR-FLAGS...]
#                    the same for an MCP script (the official SDK), with no user
#                    configuration (KUBECONFIG, NODUS_CONFIG, NODUS_TOKEN) left to read
#   scenarios_listed every scenario of SCRIPT (the list its run wrote, results/scenarios.list:
#                    no second node process) has its test in this file (a line `scenario
#                    NAME` or `scenario_or_skip NAME`), and no other
#   start_token_extra TOKEN IDENTITY SCOPE [FLAGS...]
#                    start_extra tok: an emulator with --token-file, knowing TOKEN only
#                    (IDENTITY, every project, SCOPE: read, write, admin ...); XURL
#   screenshots_saved [NAME...]
#                    every scenario of the run (and each NAME) saved its screenshot,
#                    $BATS_FILE_TMPDIR/shots/NAME.png (the console's browser tests)
#   train_jobs       the Job of examples/job.yaml three times, train-a, train-b and train-c
#                    (app=eval), as one manifest on stdout
#   scenario NAME    the scenario ran and passed (else prints what it, or the runner, said)

CLIENTS=$ND_ROOT/tests/clients
CLIENT_LOG=node.log

node_setup_file() {
    local package=$1
    CLIENT_SCRIPT=$2
    shift 2
    if ! command -v node >/dev/null; then
        echo "node is not installed: make check installs it (scripts/install-deps.sh)" >&2
        return 1
    fi
    if [ ! -d "$CLIENTS/node_modules/$package" ]; then
        echo "$package is not installed: run make check, or npm ci --prefix tests/clients" >&2
        return 1
    fi
    start_emulator "$@" || return 1
    export HOME=$BATS_FILE_TMPDIR/home NODUS_SERVER=$EMU_URL CLIENT_SCRIPT
    mkdir -p "$HOME" "$BATS_FILE_TMPDIR/results"
    if declare -F prepare >/dev/null; then
        prepare || return 1
    fi
    # the exit status is the tests' business: each reads its own scenario's line
    timeout "${CLIENT_TIMEOUT:-120}" node "$CLIENTS/$CLIENT_SCRIPT" \
        --out "$BATS_FILE_TMPDIR/results" >"$BATS_FILE_TMPDIR/$CLIENT_LOG" 2>&1 || true
}

mcp_setup_file() {
    unset KUBECONFIG NODUS_CONFIG NODUS_TOKEN NODUS_EXEC_PROTOCOLS
    node_setup_file @modelcontextprotocol/sdk "$@"
}

scenarios_listed() {
    local list=$BATS_FILE_TMPDIR/results/scenarios.list listed here
    if [ ! -f "$list" ]; then
        echo "$CLIENT_SCRIPT did not run; it said:" >&2
        head -n 20 "$BATS_FILE_TMPDIR/$CLIENT_LOG" >&2
        return 1
    fi
    listed=$(sort "$list")
    here=$(sed -n 's/^ *scenario\(_or_skip\)\{0,1\} \([a-z0-9-]*\)$/\2/p' "$BATS_TEST_FILENAME" | sort)
    assert_equal "$here" "$listed"
}

start_token_extra() {
    local token=$1 identity=$2 scope=$3 file=$BATS_FILE_TMPDIR/tokens.json
    shift 3
    printf '{"tokens": {"%s": {"identity": "%s", "projects": ["*"], "scopes": ["%s"]}}}\n' \
        "$token" "$identity" "$scope" >"$file"
    chmod 600 "$file"
    start_extra tok --token-file "$file" "$@"
}

screenshots_saved() {
    local name
    for name in "$@" $(cat "$BATS_FILE_TMPDIR/results/scenarios.list"); do
        [ -s "$BATS_FILE_TMPDIR/shots/$name.png" ] || { echo "no screenshot of $name" >&2; return 1; }
    done
}

train_jobs() {
    local job=$ND_ROOT/examples/job.yaml
    cat "$job"
    printf -- '---\n'
    sed 's/train-a/train-b/' "$job"
    printf -- '---\n'
    sed 's/train-a/train-c/; s/app: trainer/app: eval/' "$job"
}

scenario() {
    local f=$BATS_FILE_TMPDIR/results/$1.out
    if [ ! -f "$f" ]; then
        echo "scenario $1 did not run; the runner said:" >&2
        head -n 20 "$BATS_FILE_TMPDIR/$CLIENT_LOG" >&2
        return 1
    fi
    run cat "$f"
    # all it said when it failed, not only the first line
    [[ ${lines[0]} =~ ^ok\ $1:\  ]] || { cat "$f" >&2; return 1; }
}
