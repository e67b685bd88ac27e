#!/usr/bin/env bats
# kubectl against the emulator served over https (--tls-cert, --tls-key) with a
# throwaway CA made here by openssl: the CA in the kubeconfig is trusted, and without it
# kubectl refuses the certificate. One loop per kubectl version; nothing is written.

load ../lib/common
load ../lib/tls
load ../lib/kubectl

bats_require_minimum_version 1.5.0

setup_file() {
    command -v openssl >/dev/null || return 0
    local d=$BATS_FILE_TMPDIR
    kubectl_setup_tls any
    grep -v certificate-authority-data "$KC_CONFIG" >"$d/kubeconfig-no-ca"
    curl -sSf --cacert "$d/ca.pem" -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"dev"},
             "spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"10.00"}}' \
        "$EMU_URL/apis/nodus.dev/v1/namespaces/default/sandboxes"
}

setup() {
    setup_tls
}

@test "kubectl over https: the kubeconfig's CA is trusted; without it the certificate is refused" {
    # all: each kubectl is built with its own Go, whose TLS client differs (key shares)
    for KV in $(kc_versions all); do
        kc_use
        run -0 --separate-stderr kc get sandboxes -o name
        assert_output "sandbox.nodus.dev/dev"
        KC_CONFIG=$BATS_FILE_TMPDIR/kubeconfig-no-ca run -1 --separate-stderr kc get sandboxes -o name
        assert_output ""
        [[ "$stderr" == *"x509: certificate signed by unknown authority"* ]]
    done
}
