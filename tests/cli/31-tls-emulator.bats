#!/usr/bin/env bats
# The emulator over https (--tls-cert, --tls-key), with a throwaway CA made here by
# openssl: the CLI's TLS options (flags and kubeconfig) against it, exec, watches and
# files through TLS, exec's keep-alive pings through TLS, what a plain-http or TLS 1.1
# client gets, and the flags' checks.

load ../lib/common
load ../lib/tls

NS=/apis/nodus.dev/v1/namespaces/default

setup_file() {
    command -v openssl >/dev/null || return 0
    local d=$BATS_FILE_TMPDIR
    make_test_ca "$d" client
    cd "$d"
    start_emulator --tls-cert "$d/srv.pem" --tls-key "$d/srv.key" --exec-keepalive 1
    EMU_URL=https://127.0.0.1:$(cat "$d/port")
    export EMU_URL CA=$d/ca.pem
    # a Running Sandbox: Pending 2 s, Starting 10 s
    ecurl -f -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"dev"},
             "spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"10.00"}}' \
        "$EMU_URL$NS/sandboxes"
    ecurl -f -o /dev/null -X POST "$EMU_URL/emulator/v1/clock" -H 'Content-Type: application/json' -d '{"advance":"15s"}'
}

teardown_file() {
    stop_emulator
    # the sanitizer builds report here
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    command -v openssl >/dev/null || skip "openssl is not installed"
    export HOME=$BATS_TEST_TMPDIR
    unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG NODUS_TRACE
    cd "$BATS_TEST_TMPDIR"
}

ecurl() { # curl trusting the test CA
    curl -sS --cacert "$BATS_FILE_TMPDIR/ca.pem" "$@"
}

# tls_exec_sleeper PORT: an exec session on Sandbox dev over openssl s_client that says
# nothing after its upgrade (its stdin is the fifo `in`, held open on fd 4); the command
# writes its pid to the Sandbox's pid file, then sleeps. The client's pid in CLIENT;
# what it reads in sc.out.
tls_exec_sleeper() {
    mkfifo in
    openssl s_client -quiet -CAfile "$CA" -connect "127.0.0.1:$1" <in >sc.out 2>sc.err 3>&- &
    CLIENT=$!
    exec 4>in
    printf '%s\r\n' \
        "GET $NS/sandboxes/dev/exec?command=sh&command=-c&command=echo+\$\$+>pid;+exec+sleep+300&stdout=true HTTP/1.1" \
        "Host: 127.0.0.1:$1" "Connection: Upgrade" "Upgrade: websocket" \
        "Sec-WebSocket-Version: 13" "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==" \
        "Sec-WebSocket-Protocol: v5.channel.k8s.io" "" >&4
}

# kubeconfig FILE CLUSTER-LINES [USER-LINES]: a one-context configuration for the emulator
kubeconfig() {
    cat >"$1" <<YAML
apiVersion: v1
kind: Config
current-context: tls
clusters:
- name: tls
  cluster:
    server: $EMU_URL
$2
users:
- name: me
  user:
${3:-    token: any}
contexts:
- name: tls
  context: {cluster: tls, user: me, namespace: default}
YAML
}

NOCA_ERR="Unable to connect to the server: SSL certificate problem: unable to get local issuer certificate
fix: Check the cluster's certificate-authority (or certificate-authority-data) and the client certificate in the kubeconfig; insecure-skip-tls-verify: true skips the server check."

@test "--tls-cert/--tls-key: the first line says https, curl trusts it with the CA" {
    run -0 head -n 1 "$BATS_FILE_TMPDIR/emulator.out"
    assert_output "listening on $EMU_URL"
    [[ "$EMU_URL" == https://127.0.0.1:* ]]
    run -0 ecurl -o /dev/null -w '%{http_code} %{scheme}' "$EMU_URL/version"
    assert_output "200 HTTPS"
    # a key kept private: no warning
    run -1 grep -c warning "$BATS_FILE_TMPDIR/emulator.err"
}

@test "nodus: --certificate-authority works; no CA: exit 7 and why; --insecure-skip-tls-verify works" {
    run -0 nodus get sandboxes -o name --server "$EMU_URL" --certificate-authority "$CA"
    assert_output "sandbox.nodus.dev/dev"
    run -7 --separate-stderr nodus get sandboxes -o name --server "$EMU_URL"
    assert_output ""
    assert_equal "$stderr" "$NOCA_ERR"
    run -0 nodus get sandboxes -o name --server "$EMU_URL" --insecure-skip-tls-verify
    assert_output "sandbox.nodus.dev/dev"
}

@test "the kubeconfig: the CA as data or file, insecure-skip-tls-verify, a client certificate not asked for" {
    local ca64
    ca64=$(base64 -w0 <"$CA")
    kubeconfig cfg "    certificate-authority-data: $ca64"
    run -0 nodus get sandboxes -o name --kubeconfig cfg
    assert_output "sandbox.nodus.dev/dev"
    kubeconfig cfg "    certificate-authority: $CA"
    run -0 nodus get sandboxes -o name --kubeconfig cfg
    assert_output "sandbox.nodus.dev/dev"
    kubeconfig cfg "    insecure-skip-tls-verify: true"
    run -0 nodus get sandboxes -o name --kubeconfig cfg
    assert_output "sandbox.nodus.dev/dev"
    kubeconfig cfg "    insecure-skip-tls-verify: false"
    run -7 --separate-stderr nodus get sandboxes -o name --kubeconfig cfg
    assert_equal "$stderr" "$NOCA_ERR"
    # the emulator asks for no client certificate (tokens authenticate); one offered is
    # simply not used
    kubeconfig cfg "    certificate-authority: $CA" \
        "    client-certificate: $BATS_FILE_TMPDIR/client.pem
    client-key: $BATS_FILE_TMPDIR/client.key"
    run -0 nodus get sandboxes -o name --kubeconfig cfg
    assert_output "sandbox.nodus.dev/dev"
}

@test "nodus exec over https: stdin, stdout, stderr and the exit code" {
    export NODUS_SERVER=$EMU_URL
    run -3 --separate-stderr sh -c 'printf "b\na\n" | nodus exec -i dev --certificate-authority "$CA" -- sh -c "sort; echo err >&2; exit 3"'
    assert_output $'a\nb'
    assert_equal "$stderr" $'err\ncommand terminated with exit code 3'
    # without the CA the upgrade is refused like any request
    run -7 --separate-stderr nodus exec dev -- true
    assert_equal "$stderr" "$NOCA_ERR"
}

@test "exec over https: the keep-alive pings go through TLS; a client that answers none is gone" {
    local port tree
    port=${EMU_URL##*:}
    tree=$EMU_STATE/files/default/sandboxes/dev
    rm -f "$tree/pid"
    tls_exec_sleeper "$port"
    local client=$CLIENT
    wait_until test -s "$tree/pid"
    # pinged every second, answering nothing: gone within two intervals, and the command
    # (its pid is its PID namespace's: no process left with the tree as its root tells)
    wait_until -t 5 tree_idle "$tree"
    # and the server hung up: openssl ends (it would wait on a silent stdin otherwise)
    wait_until -t 5 pid_gone "$client" || true # said below
    exec 4>&-
    if kill -0 "$client" 2>/dev/null; then
        kill "$client"
        echo "the server kept the TLS connection open" >&2
        return 1
    fi
    run -0 head -n 1 sc.out
    assert_output $'HTTP/1.1 101 Switching Protocols\r'
    # after the head: the ping (0x89, no payload) and nothing else (no close frame for
    # a client that is gone)
    run -0 sh -c "sed '1,/^\r\$/d' sc.out | od -An -tx1 | tr -d ' \n'"
    assert_output 8900
}

@test "exec over https: a client that drops the connection loses its command at once" {
    # an emulator of its own, pinging every 30 s: only the dropped connection can tell
    local d=$BATS_FILE_TMPDIR st=$BATS_TEST_TMPDIR/state port
    nodus-emulator --state "$st" --listen 127.0.0.1:0 --port-file port --speed 0 --quiet \
        --tls-cert "$d/srv.pem" --tls-key "$d/srv.key" >out 2>err 3>&- &
    local emu=$!
    wait_until test -s port
    port=$(cat port)
    ecurl -f -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"dev"},
             "spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"10.00"}}' \
        "https://127.0.0.1:$port$NS/sandboxes"
    ecurl -f -o /dev/null -X POST "https://127.0.0.1:$port/emulator/v1/clock" -H 'Content-Type: application/json' -d '{"advance":"15s"}'
    tls_exec_sleeper "$port"
    local client=$CLIENT
    local tree=$st/files/default/sandboxes/dev
    wait_until test -s "$tree/pid"
    kill -KILL "$client"
    exec 4>&-
    wait_until -t 5 tree_idle "$tree" || true # said below, once the emulator is stopped
    local alive=no
    tree_idle "$tree" || alive=yes
    kill "$emu"
    wait "$emu" || true
    assert_equal "command still running: $alive" "command still running: no"
}

@test "a watch and the files subresource over https" {
    export NODUS_SERVER=$EMU_URL
    nodus get sandboxes -w -o name --certificate-authority "$CA" \
        >watch.out 2>&1 3>&- &
    local watcher=$!
    wait_until grep -q "sandbox.nodus.dev/dev" watch.out
    ecurl -f -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"watched"},
             "spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"10.00"}}' \
        "$EMU_URL$NS/sandboxes"
    wait_until grep -q "watched" watch.out || true # the lines are checked below
    kill "$watcher"
    run -0 cat watch.out
    assert_line -n 0 "sandbox.nodus.dev/dev"
    assert_line -n 1 "sandbox.nodus.dev/watched"
    # files: up and back down
    echo "through TLS" >up.txt
    run -0 nodus cp up.txt dev:/up.txt --certificate-authority "$CA"
    run -0 nodus cp dev:/up.txt down.txt --certificate-authority "$CA"
    run -0 cat down.txt
    assert_output "through TLS"
}

@test "plain http to the TLS port: the connection is closed, the emulator serves on" {
    local url=http://${EMU_URL#https://}
    run -52 curl -sS "$url/version"
    assert_output "curl: (52) Empty reply from server"
    run -7 --separate-stderr nodus get sandboxes --server "$url"
    [[ "${stderr_lines[0]}" =~ ^"the server 127.0.0.1:"[0-9]+" closed the connection before answering" ]]
    run -0 ecurl -o /dev/null -w '%{http_code}' "$EMU_URL/readyz"
    assert_output 200
}

@test "TLS 1.2 and 1.3 only: a client that stops at TLS 1.1 is refused" {
    run -35 ecurl -o /dev/null "$EMU_URL/version" --tls-max 1.1
    run -0 ecurl -o /dev/null -w '%{http_code}' "$EMU_URL/version" --tlsv1.2 --tls-max 1.2
    assert_output 200
    run -0 ecurl -o /dev/null -w '%{http_code}' "$EMU_URL/version" --tlsv1.3
    assert_output 200
}

@test "--tls-cert and --tls-key: both or neither, and a clear message for each bad file" {
    local d=$BATS_FILE_TMPDIR s=$BATS_TEST_TMPDIR/state
    emu() { nodus-emulator --state "$s" --listen 127.0.0.1:0 "$@"; }
    run -2 --separate-stderr emu --tls-cert "$d/srv.pem"
    assert_equal "$stderr" "nodus-emulator: --tls-cert needs --tls-key too (the certificate and its key)"
    run -2 --separate-stderr emu --tls-key "$d/srv.key"
    assert_equal "$stderr" "nodus-emulator: --tls-key needs --tls-cert too (the certificate and its key)"
    run -1 --separate-stderr emu --tls-cert nope.pem --tls-key "$d/srv.key"
    assert_equal "$stderr" "nodus-emulator: --tls-cert: cannot read nope.pem: No such file or directory"
    run -1 --separate-stderr emu --tls-cert "$d/srv.key" --tls-key "$d/srv.key"
    assert_equal "$stderr" "nodus-emulator: --tls-cert: $d/srv.key holds no PEM certificate (a -----BEGIN CERTIFICATE----- block)"
    run -1 --separate-stderr emu --tls-cert "$d/srv.pem" --tls-key "$d/srv.pem"
    assert_equal "$stderr" "nodus-emulator: --tls-key: $d/srv.pem holds no PEM private key (a -----BEGIN PRIVATE KEY----- block)"
    : >empty.pem
    run -1 --separate-stderr emu --tls-cert empty.pem --tls-key "$d/srv.key"
    assert_equal "$stderr" "nodus-emulator: --tls-cert: empty.pem is empty, not PEM text"
    openssl pkey -in "$d/srv.key" -aes256 -passout pass:secret -out enc.key
    run -1 --separate-stderr emu --tls-cert "$d/srv.pem" --tls-key enc.key
    assert_equal "$stderr" "nodus-emulator: --tls-key: enc.key is encrypted (a passphrase is not supported); write it out unencrypted: openssl pkey -in KEY -out KEY.plain"
    # what only GnuTLS can tell: a key of another certificate, a certificate that is not one
    run -1 --separate-stderr emu --tls-cert "$d/srv.pem" --tls-key "$d/client.key"
    assert_equal "$stderr" "nodus-emulator: cannot serve TLS with the certificate of --tls-cert and the key of --tls-key: The certificate and the given key do not match (GnuTLS)"
    printf -- '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n' >bad.pem
    # (GnuTLS leaks the certificate it failed to parse, on the way out: not ours to report)
    ASAN_OPTIONS=detect_leaks=0 run -1 --separate-stderr emu --tls-cert bad.pem --tls-key "$d/srv.key"
    assert_equal "$stderr" "nodus-emulator: cannot serve TLS with the certificate of --tls-cert and the key of --tls-key: ASN1 parser: Error in TAG (GnuTLS)"
}

@test "a key file others can read: a warning, and the emulator starts" {
    local d=$BATS_FILE_TMPDIR
    cp "$d/srv.key" open.key
    chmod 644 open.key
    nodus-emulator --state "$BATS_TEST_TMPDIR/state" --listen 127.0.0.1:0 --port-file port \
        --tls-cert "$d/srv.pem" --tls-key open.key >out 2>err 3>&- &
    local pid=$!
    wait_until test -s port
    run -0 ecurl -o /dev/null -w '%{http_code}' "https://127.0.0.1:$(cat port)/readyz"
    assert_output 200
    kill "$pid"
    wait "$pid" || true
    run -0 head -n 1 err
    assert_output "nodus-emulator: warning: --tls-key open.key can be read by everyone (mode 0644); make it private: chmod 600 open.key"
}

@test "off loopback without TLS: a warning that tokens travel in clear" {
    echo '{"t0k3n":{"identity":"me","projects":["*"],"scopes":["read"]}}' >tokens.json
    chmod 600 tokens.json
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: the warning, then no listener
    run -1 --separate-stderr nodus-emulator --state "$BATS_TEST_TMPDIR/state" \
        --listen 192.0.2.1:0 --token-file tokens.json
    [[ "$stderr" == "nodus-emulator: warning: listening on 192.0.2.1 without TLS: bearer tokens and everything else cross the network in clear; add --tls-cert and --tls-key"$'\n'* ]]
    # with TLS: no such warning
    run -1 --separate-stderr nodus-emulator --state "$BATS_TEST_TMPDIR/state" \
        --listen 192.0.2.1:0 --token-file tokens.json \
        --tls-cert "$BATS_FILE_TMPDIR/srv.pem" --tls-key "$BATS_FILE_TMPDIR/srv.key"
    [[ "$stderr" != *warning* ]]
    [[ "$stderr" == *"cannot listen on 192.0.2.1:0"* ]]
}
