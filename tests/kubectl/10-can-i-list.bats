#!/usr/bin/env bats
# kubectl auth can-i --list: the SelfSubjectRulesReview the emulator serves, for tokens of
# one project (read and write, read only) and of every project, in a project and in
# nodus. Each listed row is cross-checked against kubectl auth can-i and the request
# itself. Over https (kubectl sends no bearer token over plain http); one loop per version.

load ../lib/common
load ../lib/tls
load ../lib/kubectl

bats_require_minimum_version 1.5.0

setup_file() {
    cat >"$BATS_FILE_TMPDIR/tokens.json" <<'EOF'
{"tokens": {
  "t-root": {"identity": "root", "scopes": ["admin"]},
  "t-walt": {"identity": "walt", "projects": ["proj-a"], "scopes": ["read", "write"]},
  "t-rita": {"identity": "rita", "projects": ["proj-a"], "scopes": ["read"]}}}
EOF
    chmod 600 "$BATS_FILE_TMPDIR/tokens.json"
    command -v openssl >/dev/null || return 0
    local d=$BATS_FILE_TMPDIR
    kubectl_setup_tls t-walt --token-file "$d/tokens.json"
    curl -sSf --cacert "$d/ca.pem" -o /dev/null -H 'Authorization: Bearer t-root' \
        -H 'Content-Type: application/json' "$EMU_URL/api/v1/namespaces" \
        -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"proj-a"}}'
    sed 's/NAME/kept/' "$BATS_TEST_DIRNAME/fixtures/job-min.yaml" |
        curl -sSf --cacert "$d/ca.pem" -o /dev/null -H 'Authorization: Bearer t-root' \
            -H 'Content-Type: application/yaml' --data-binary @- \
            "$EMU_URL/apis/nodus.dev/v1/namespaces/proj-a/jobs"
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    setup_tls
}

# The rows of the last kubectl auth can-i --list, one space between cells.
rows() {
    printf '%s\n' "$output" | tr -s ' ' | sed 's/ $//'
}

@test "can-i --list: a write token of one project, in its project and in nodus" {
    local job
    job=$(job_file list-job)
    # 1.28: create validates with OpenAPI v2 to 1.28; 1.31: reviews as JSON to 1.31, protobuf after
    for KV in $(kc_versions 1.28 1.31); do
        kc_use
        run -0 --separate-stderr kc auth can-i --list -n proj-a
        assert_equal "$stderr" ""
        run -0 rows
        assert_line -n 0 "Resources Non-Resource URLs Resource Names Verbs"
        assert_line "jobs.nodus.dev [] [] [create delete deletecollection get list patch update watch]"
        assert_line "jobs.nodus.dev/exec [] [] [create get]"
        assert_line "functions.nodus.dev/invoke [] [] [create]"
        assert_line "images.nodus.dev [] [] [get list watch]"
        assert_line "events [] [] [get list watch]"
        assert_line "namespaces [] [proj-a] [create delete patch update get]"
        assert_line "namespaces [] [nodus] [get]"
        assert_line "namespaces [] [] [list watch]"
        assert_line "selfsubjectrulesreviews.authorization.k8s.io [] [] [create]"
        assert_line " [/version] [] [get]"
        refute_line --partial "/emulator"
        # what a row says, can-i and the request itself agree on
        run -0 kc create -f "$job" -n proj-a --dry-run=server -o name
        assert_output job.nodus.dev/list-job
        # nodus is read-only: only reads are listed there
        run -0 --separate-stderr kc auth can-i --list -n nodus
        run -0 rows
        assert_line "jobs.nodus.dev [] [] [get list watch]"
        refute_line --partial "[create delete deletecollection"
        run -1 kc auth can-i create jobs.nodus.dev -n nodus
        assert_output "no - the project nodus is read-only"
        run -1 --separate-stderr kc create -f "$job" -n nodus --dry-run=server
        assert_equal "$stderr" "Error from server (Forbidden): error when creating \"$job\": the project nodus is read-only"
    done
}

@test "can-i --list: a read token lists reads only; a write it does not list is refused" {
    # 1.31: the reviews are sent as JSON to 1.31, protobuf from 1.32
    for KV in $(kc_versions 1.31); do
        kc_use
        run -0 --separate-stderr kc auth can-i --list -n proj-a --token t-rita
        run -0 rows
        assert_line "jobs.nodus.dev [] [] [get list watch]"
        assert_line "jobs.nodus.dev/log [] [] [get]"
        refute_line --partial "jobs.nodus.dev/exec"
        refute_line --regexp '(nodus.dev|namespaces).*(create|delete|patch|update)'
        run -0 kc get jobs.nodus.dev/kept -n proj-a --token t-rita -o name
        assert_output job.nodus.dev/kept
        run -1 kc auth can-i delete jobs.nodus.dev/kept -n proj-a --token t-rita
        assert_output "no - rita may not delete /apis/nodus.dev/v1/namespaces/proj-a/jobs/kept: it needs the token scope write"
        run -1 --separate-stderr kc delete jobs.nodus.dev/kept -n proj-a --token t-rita --dry-run=server
        assert_equal "$stderr" "Error from server (Forbidden): rita may not delete /apis/nodus.dev/v1/namespaces/proj-a/jobs/kept: it needs the token scope write"
    done
}

@test "can-i --list: a token of every project is warned the list is incomplete, and why" {
    # 1.31: the reviews are sent as JSON to 1.31, protobuf from 1.32
    for KV in $(kc_versions 1.31); do
        kc_use
        run -0 --separate-stderr kc auth can-i --list -n proj-a --token t-root
        assert_equal "$stderr" "Warning: the list may be incomplete: root may also create, delete, patch and update namespaces, and patch and update namespaces/status of projects other than those named here (but not of nodus, which is read-only): a rule cannot name every project but one"
        run -0 rows
        assert_line "namespaces [] [] [deletecollection get list watch]"
        assert_line "namespaces [] [proj-a] [create delete patch update]"
        assert_line " [/emulator/*] [] [post]"
        run -1 --separate-stderr kc auth can-i delete namespaces/nodus --token t-root
        assert_output "no - the project nodus is read-only"
        run -1 --separate-stderr kc delete namespace nodus --dry-run=server --token t-root
        assert_equal "$stderr" "Error from server (Forbidden): the project nodus is read-only"
    done
}
