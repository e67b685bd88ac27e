#!/usr/bin/env bats
# https servers: the CLI loads libcurl for them and honours the CA, client certificates
# and insecure-skip-tls-verify, from flags and from the configuration file. The server
# here is `openssl s_server -WWW`, serving /version as a file.

load ../lib/common
load ../lib/tls

setup_file() {
    command -v openssl >/dev/null || return 0
    local d=$BATS_FILE_TMPDIR
    make_test_ca "$d" client
    cd "$d"
    mkdir -p www
    echo '{"major":"1","minor":"33","gitVersion":"v1.33.0-tls-test"}' >www/version
}

# serve [extra s_server flags]: starts the server; its port in PORT, pid in file
serve() {
    local d=$BATS_FILE_TMPDIR
    (cd "$d/www" && exec openssl s_server -accept 127.0.0.1:0 -cert ../srv.pem -key ../srv.key \
        -WWW -quiet "$@" >/dev/null 2>&1 3>&-) &
    echo $! >"$BATS_TEST_TMPDIR/server.pid"
    local pid=$!
    listening() {
        PORT=$(ss -ltnpH 2>/dev/null | awk -v p="pid=$pid," '$0 ~ p {split($4, a, ":"); print a[2]}')
        [ -n "$PORT" ]
    }
    wait_until listening && return 0
    echo "openssl s_server did not start" >&2
    return 1
}

teardown() {
    [ -f "$BATS_TEST_TMPDIR/server.pid" ] && kill "$(cat "$BATS_TEST_TMPDIR/server.pid")" 2>/dev/null
    return 0
}

setup() {
    command -v openssl >/dev/null || skip "openssl is not installed"
    command -v ss >/dev/null || skip "ss (iproute2) is not installed"
    export HOME=$BATS_TEST_TMPDIR
    unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG
}

@test "the CA given with --certificate-authority is trusted" {
    serve
    run -0 nodus version --server "https://127.0.0.1:$PORT" \
        --certificate-authority "$BATS_FILE_TMPDIR/ca.pem"
    assert_output $'Client Version: v0.1.0\nServer Version: v1.33.0-tls-test'
}

@test "an unknown CA is refused (exit 7), insecure-skip-tls-verify skips the check" {
    serve
    run -7 --separate-stderr nodus version --server "https://127.0.0.1:$PORT"
    assert_output "Client Version: v0.1.0"
    [[ "$stderr" == *"certificate"* ]]
    run -0 nodus version --server "https://127.0.0.1:$PORT" --insecure-skip-tls-verify
    assert_line "Server Version: v1.33.0-tls-test"
}

@test "certificate-authority-data and client certificates come from the configuration" {
    serve -Verify 1 -CAfile "$BATS_FILE_TMPDIR/ca.pem"
    local cfg=$BATS_TEST_TMPDIR/config ca
    ca=$(base64 -w0 <"$BATS_FILE_TMPDIR/ca.pem")
    cat >"$cfg" <<YAML
apiVersion: v1
kind: Config
current-context: tls
clusters:
- name: tls
  cluster:
    server: https://127.0.0.1:$PORT
    certificate-authority-data: $ca
users:
- name: me
  user:
    client-certificate: $BATS_FILE_TMPDIR/client.pem
    client-key: $BATS_FILE_TMPDIR/client.key
contexts:
- name: tls
  context: {cluster: tls, user: me}
YAML
    run -0 nodus version --kubeconfig "$cfg"
    assert_line "Server Version: v1.33.0-tls-test"
    # the same without the client certificate: the server refuses the handshake
    sed -i '/client-certificate\|client-key/d' "$cfg"
    sed -i 's/^  user:$/  user: {}/' "$cfg"
    run -7 --separate-stderr nodus version --kubeconfig "$cfg"
}
