#!/usr/bin/env bats
# nodus config: building a configuration from nothing, contexts that point at two
# emulators (the second requires a token), use-context and --context, the environment
# overrides, view's redaction, get-contexts, delete-context, and broken files.

load ../lib/common

bats_require_minimum_version 1.5.0

# A second emulator that requires the bearer token "secret-b" (this file's own).
start_emulator_b() {
    local dir=$BATS_FILE_TMPDIR/emu-b i
    mkdir -p "$dir"
    echo '{"secret-b": {"identity": "bob", "projects": ["*"], "scopes": ["read", "write", "admin"]}}' \
        >"$dir/tokens.json"
    chmod 600 "$dir/tokens.json"
    "$ND_BIN_DIR/nodus-emulator" --state "$dir/state" --listen 127.0.0.1:0 \
        --port-file "$dir/port" --fsync never --quiet --token-file "$dir/tokens.json" \
        >"$dir/out" 2>"$dir/err" 3>&- &
    echo $! >"$dir/pid"
    wait_until test -s "$dir/port" || true
    [ -s "$dir/port" ] || { cat "$dir/err" >&2; return 1; }
    EMU_B="http://127.0.0.1:$(cat "$dir/port")"
    export EMU_B
}

stop_emulator_b() {
    local pidfile=$BATS_FILE_TMPDIR/emu-b/pid pid i
    [ -s "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    rm -f "$pidfile"
    kill -TERM "$pid" 2>/dev/null || return 0
    wait_until pid_gone "$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
}

# POSTs a project to an emulator (URL, NAME[, TOKEN]).
make_project() {
    local auth=()
    [ -z "${3:-}" ] || auth=(-H "Authorization: Bearer $3")
    curl -sS -f -o /dev/null -X POST -H 'Content-Type: application/json' "${auth[@]}" \
        --data-binary "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$2\"}}" \
        "$1/api/v1/namespaces"
}

setup_file() {
    start_emulator
    start_emulator_b
    make_project "$EMU_URL" only-a
    make_project "$EMU_B" only-b secret-b
}

teardown_file() {
    stop_emulator_b
    stop_emulator
}

setup() {
    export HOME=$BATS_TEST_TMPDIR/home
    mkdir -p "$HOME"
    unset NODUS_CONFIG KUBECONFIG NODUS_SERVER NODUS_TOKEN
    CFG=$HOME/.nodus/config
}

# Two contexts: a (emulator A, no token) and b (emulator B, bob's token from a file).
two_contexts() {
    echo secret-b >"$HOME/token-b"
    nodus config set-cluster a --server "$EMU_URL" >/dev/null
    nodus config set-cluster b --server "$EMU_B" >/dev/null
    nodus config set-credentials anon >/dev/null
    nodus config set-credentials bob --token-file "$HOME/token-b" >/dev/null
    nodus config set-context a --cluster a --user anon --namespace default >/dev/null
    nodus config set-context b --cluster b --user bob >/dev/null
    nodus config use-context a >/dev/null
}

@test "set-cluster, set-credentials, set-context and use-context make a working config from nothing" {
    [ ! -e "$CFG" ]
    run -0 nodus config set-cluster local --server "$EMU_URL"
    assert_output 'Cluster "local" set.'
    run -0 nodus config set-credentials me --token anything
    assert_output 'User "me" set.'
    run -0 nodus config set-context local --cluster local --user me --namespace only-a
    assert_output 'Context "local" created.'
    run -0 nodus config set-context local --namespace default
    assert_output 'Context "local" modified.'
    run -0 nodus config use-context local
    assert_output 'Switched to context "local".'
    [ "$(stat -c %a "$CFG")" = 600 ]
    run -0 nodus config current-context
    assert_output local
    run -0 --separate-stderr nodus get namespaces -o name
    assert_line namespace/only-a
    refute_line namespace/only-b
    run -0 nodus config view --raw
    assert_output "apiVersion: v1
clusters:
- cluster:
    server: $EMU_URL
  name: local
contexts:
- context:
    cluster: local
    namespace: default
    user: me
  name: local
current-context: local
kind: Config
preferences: {}
users:
- name: me
  user:
    token: anything"
}

@test "get-contexts: kubectl's table with * on the current context, NAME and -o name" {
    two_contexts
    nodus config set-context z-last --cluster a >/dev/null
    run -0 --separate-stderr nodus config get-contexts
    assert_output "CURRENT   NAME     CLUSTER   AUTHINFO   NAMESPACE
*         a        a         anon       default
          b        b         bob        
          z-last   a                    "
    run -0 nodus config get-contexts b --no-headers
    assert_output "      b     b     bob   "
    run -0 nodus config get-contexts -o name
    assert_output "a
b
z-last"
    run -2 --separate-stderr nodus config get-contexts nope
    assert_equal "$output" ""
    [ "$stderr" = "error: context nope not found" ]
    run -2 --separate-stderr nodus config get-contexts -o wide
    [ "${stderr_lines[0]}" = "error: output must be one of '' or 'name'" ]
}

@test "use-context switches where get goes" {
    two_contexts
    run -0 nodus get namespaces -o name
    assert_line namespace/only-a
    refute_line namespace/only-b
    run -0 nodus config use-context b
    assert_output 'Switched to context "b".'
    run -0 nodus get namespaces -o name
    assert_line namespace/only-b
    refute_line namespace/only-a
    run -2 --separate-stderr nodus config use-context nope
    [ "$stderr" = 'error: no context exists with the name: "nope"' ]
    run -0 nodus config current-context
    assert_output b
}

@test "--context picks a context for one command and leaves the file alone" {
    two_contexts
    run -0 nodus get namespaces -o name --context b
    assert_line namespace/only-b
    run -0 nodus config current-context
    assert_output a
    run -0 nodus config view --minify --context b
    assert_line "current-context: b"
    assert_line "    server: $EMU_B"
    refute_line --partial "$EMU_URL"
    run -2 --separate-stderr nodus get namespaces --context nope
    [ "${stderr_lines[0]}" = 'error: context "nope" does not exist' ]
}

@test "NODUS_SERVER and NODUS_TOKEN override the file" {
    two_contexts
    # Context a has no token: emulator B refuses, NODUS_TOKEN lets it in.
    NODUS_SERVER=$EMU_B run -5 --separate-stderr nodus get namespaces -o name
    [ "${stderr_lines[0]}" = "Error from server (Unauthorized): a bearer token is required" ]
    NODUS_SERVER=$EMU_B NODUS_TOKEN=secret-b run -0 nodus get namespaces -o name
    assert_line namespace/only-b
    # Context b reads bob's token from its file; a wrong NODUS_TOKEN wins over it.
    nodus config use-context b >/dev/null
    run -0 nodus get namespaces -o name
    assert_line namespace/only-b
    NODUS_TOKEN=wrong run -5 nodus get namespaces -o name
    NODUS_SERVER=$EMU_URL run -0 nodus get namespaces -o name
    assert_line namespace/only-a
    # Flags win over the environment.
    NODUS_SERVER=$EMU_URL run -0 nodus get namespaces -o name --server "$EMU_B"
    assert_line namespace/only-b
}

@test "set-credentials --token-file, --token and set-cluster --insecure-skip-tls-verify edit in place" {
    two_contexts
    run -0 nodus config set-credentials bob --token secret-b
    assert_output 'User "bob" set.'
    run -0 nodus config set-cluster b --insecure-skip-tls-verify
    run -0 nodus config view --raw --minify --context b
    assert_output "apiVersion: v1
clusters:
- cluster:
    insecure-skip-tls-verify: true
    server: $EMU_B
  name: b
contexts:
- context:
    cluster: b
    user: bob
  name: b
current-context: b
kind: Config
preferences: {}
users:
- name: bob
  user:
    token: secret-b"
    run -0 nodus config set-cluster b --insecure-skip-tls-verify=false
    run -0 nodus config set-credentials bob --token-file "$HOME/token-b"
    run -0 nodus config view --raw --minify --context b
    refute_line --partial insecure-skip-tls-verify
    refute_line --partial "token: secret-b"
    assert_line "    tokenFile: $HOME/token-b"
    run -0 nodus get namespaces -o name --context b
    assert_line namespace/only-b
}

@test "view: tokens REDACTED and certificate data DATA+OMITTED unless --raw; --minify; -o json" {
    local pem
    pem=$(printf -- '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' | base64 -w0)
    mkdir -p "$HOME/.nodus"
    cat >"$CFG" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://nodus.example:443
    certificate-authority-data: $pem
users:
- name: u
  user:
    token: s3cret
    client-certificate-data: $pem
    client-key-data: $pem
- name: other
  user:
    tokenFile: /tmp/x
contexts:
- name: x
  context: {cluster: c, user: u, namespace: team}
- name: y
  context: {cluster: c, user: other}
current-context: x
EOF
    run -0 --separate-stderr nodus config view
    assert_output "apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: DATA+OMITTED
    server: https://nodus.example:443
  name: c
contexts:
- context:
    cluster: c
    namespace: team
    user: u
  name: x
- context:
    cluster: c
    user: other
  name: \"y\"
current-context: x
kind: Config
preferences: {}
users:
- name: u
  user:
    client-certificate-data: DATA+OMITTED
    client-key-data: DATA+OMITTED
    token: REDACTED
- name: other
  user:
    tokenFile: /tmp/x"
    run -0 nodus config view --raw
    assert_line "    token: s3cret"
    assert_line "    client-key-data: $pem"
    assert_line "    certificate-authority-data: $pem"
    refute_line --partial OMITTED
    run -0 nodus config view --minify
    assert_line "- name: u"
    refute_line "- name: other"
    refute_line "  name: \"y\""
    assert_line "    token: REDACTED"
    run -0 nodus config view -o json
    assert_line -n 0 "{"
    assert_line -n 1 '    "kind": "Config",'
    assert_line '                "token": "REDACTED",'
    run -0 nodus config view -o 'jsonpath={.contexts[*].name}'
    assert_output "x y"
    # The file itself is untouched by view.
    grep -q "token: s3cret" "$CFG"
}

@test "view and get-contexts of no configuration at all; current-context unset is exit 1" {
    run -0 nodus config view
    assert_output 'apiVersion: v1
clusters: null
contexts: null
current-context: ""
kind: Config
preferences: {}
users: null'
    run -0 nodus config get-contexts
    assert_output "CURRENT   NAME   CLUSTER   AUTHINFO   NAMESPACE"
    run -1 --separate-stderr nodus config current-context
    assert_equal "$output" ""
    [ "$stderr" = "error: current-context is not set" ]
    run -1 --separate-stderr nodus config view --minify
    [ "$stderr" = "error: current-context must exist in order to minify" ]
    [ ! -e "$CFG" ]
}

@test "delete-context: kubectl's message, a warning for the current one, an error for a missing one" {
    two_contexts
    run -0 --separate-stderr nodus config delete-context b
    assert_output "deleted context b from $CFG"
    assert_equal "$stderr" ""
    run -0 --separate-stderr nodus config delete-context a
    assert_output "deleted context a from $CFG"
    [ "$stderr" = 'warning: this removed your active context, use "nodus config use-context" to select a different one' ]
    run -1 nodus config current-context
    run -2 --separate-stderr nodus config delete-context a
    [ "$stderr" = "error: cannot delete context a, not in $CFG" ]
    run -0 nodus config get-contexts -o name
    assert_output ""
}

@test "set-context --current changes the current context" {
    two_contexts
    run -0 nodus config set-context --current --namespace only-a
    assert_output 'Context "a" modified.'
    run -0 nodus config get-contexts a --no-headers
    assert_output "*     a     a     anon   only-a"
    run -0 nodus config set-context b -n team
    assert_output 'Context "b" modified.'
    run -0 nodus config get-contexts b --no-headers
    assert_output "      b     b     bob   team"
    run -2 --separate-stderr nodus config set-context
    [ "${stderr_lines[0]}" = "error: you must specify a non-empty context name or --current" ]
}

@test "a broken configuration file is a clear error with exit 2" {
    mkdir -p "$HOME/.nodus"
    printf 'clusters: [\n' >"$CFG"
    run -2 --separate-stderr nodus config view
    assert_equal "$output" ""
    [ "${stderr_lines[0]}" = "error: error loading config file \"$CFG\": line 2, column 1: did not find expected node content (while parsing a flow node that started at 2:1)" ]
    run -2 --separate-stderr nodus get namespaces
    assert_regex "${stderr_lines[0]}" '^error: error loading config file ".*": line 2, column 1: '
    printf 'clusters:\n- cluster: {server: x}\n' >"$CFG"
    run -2 --separate-stderr nodus config use-context x
    [ "${stderr_lines[0]}" = "error: error loading config file \"$CFG\": clusters[0].name: required" ]
    # --kubeconfig names the file; a broken one is the same error.
    run -2 --separate-stderr nodus config get-contexts --kubeconfig "$CFG"
    assert_regex "${stderr_lines[0]}" 'clusters\[0\]\.name: required$'
}

@test "config usage errors exit 2" {
    run -2 --separate-stderr nodus config
    assert_regex "${stderr_lines[0]}" '^error: a subcommand is required: view, '
    run -2 --separate-stderr nodus config frobnicate
    [ "${stderr_lines[0]}" = 'error: unknown command "frobnicate" for "nodus config"' ]
    run -2 --separate-stderr nodus config view --server http://x
    [ "${stderr_lines[0]}" = "error: unknown flag for config view: --server" ]
    run -2 --separate-stderr nodus config use-context
    [ "${stderr_lines[0]}" = "error: usage: nodus config use-context NAME" ]
    run -2 --separate-stderr nodus config set-cluster a b
    [ "${stderr_lines[0]}" = "error: usage: nodus config set-cluster NAME [--server URL] [--certificate-authority FILE] [--insecure-skip-tls-verify]" ]
    [ ! -e "$CFG" ]
}
