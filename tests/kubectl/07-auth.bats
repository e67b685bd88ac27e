#!/usr/bin/env bats
# kubectl auth whoami and kubectl auth can-i against an emulator with a token file: the
# SelfSubjectReview and SelfSubjectAccessReview it serves (JSON to kubectl 1.29-1.31,
# protobuf from 1.32), answered from the token kubectl sends. Over https, as kubectl
# sends no bearer token over plain http. One loop per version.

load ../lib/common
load ../lib/tls
load ../lib/kubectl

bats_require_minimum_version 1.5.0

setup_file() {
    cat >"$BATS_FILE_TMPDIR/tokens.json" <<'EOF'
{"tokens": {
  "t-root": {"identity": "root", "scopes": ["admin"]},
  "t-walt": {"identity": "walt", "projects": ["proj-a"], "scopes": ["read", "write"]}}}
EOF
    chmod 600 "$BATS_FILE_TMPDIR/tokens.json"
    command -v openssl >/dev/null || return 0
    local d=$BATS_FILE_TMPDIR
    kubectl_setup_tls t-walt --token-file "$d/tokens.json"
    curl -sSf --cacert "$d/ca.pem" -o /dev/null -H 'Authorization: Bearer t-root' \
        -H 'Content-Type: application/json' "$EMU_URL/api/v1/namespaces" \
        -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"proj-a"}}'
}

setup() {
    setup_tls
}

@test "kubectl auth whoami: the token's user, groups, projects and scopes" {
    # 1.27 asks SelfSubjectReview v1beta1; 1.31: the review as JSON, protobuf from 1.32
    for KV in $(kc_versions 1.27 1.31); do
        kc_use
        run -0 --separate-stderr kc auth whoami
        assert_output "ATTRIBUTE                   VALUE
Username                    walt
Groups                      [system:authenticated]
Extra: nodus.dev/projects   [proj-a]
Extra: nodus.dev/scopes     [read write]"
        assert_equal "$stderr" ""
        run -0 --separate-stderr kc auth whoami -o jsonpath='{.status.userInfo.username}'
        assert_output walt
    done
}

@test "kubectl auth can-i: yes exits 0, no exits 1 with the emulator's reason" {
    # 1.31: the review is sent as JSON to 1.31, protobuf from 1.32
    for KV in $(kc_versions 1.31); do
        kc_use
        run -0 --separate-stderr kc auth can-i create jobs.nodus.dev -n proj-a
        assert_output yes
        assert_equal "$stderr" ""
        run -0 --separate-stderr kc auth can-i delete jobs.nodus.dev/train-a -n proj-a
        assert_output yes
        run -0 --separate-stderr kc auth can-i list nj -n nodus
        assert_output yes
        run -1 --separate-stderr kc auth can-i create jobs.nodus.dev -n nodus
        assert_output "no - the project nodus is read-only"
        run -1 --separate-stderr kc auth can-i get jobs.nodus.dev -n proj-b
        assert_output "no - walt may not get /apis/nodus.dev/v1/namespaces/proj-b/jobs: the token is not for project proj-b"
        run -1 --separate-stderr kc auth can-i create jobs.nodus.dev -A
        assert_output "no - walt may create jobs only in its own projects"
    done
}
