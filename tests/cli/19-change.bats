#!/usr/bin/env bats
# nodus patch, label, annotate, edit and the state verbs (suspend, resume, cancel, stop,
# start) against the emulator, configured through ~/.nodus/config (a kubeconfig whose
# context names the project), with kubectl's messages and the exit codes of cli.md.

load ../lib/common
load fixtures/write

bats_require_minimum_version 1.5.0

setup_file() {
    # no controller: the tests set the phases they need (a controller could move them)
    write_setup_file config --no-simulation
}

teardown_file() {
    stop_emulator
}

setup() {
    cd "$BATS_TEST_TMPDIR"
    export TMPDIR=$BATS_TEST_TMPDIR/tmp
    mkdir -p "$TMPDIR"
}

# new_job NAME [COST] [APP]: a Job made with curl (so the CLI under test is not needed).
new_job() {
    emu POST "$API/jobs" "$(job_yaml "$@")" application/yaml
}

rv() {
    nodus get job "$1" -o jsonpath='{.metadata.resourceVersion}'
}

@test "the project comes from the kubeconfig's context" {
    new_job cfg1
    run -0 nodus get job cfg1 -o name
    assert_output "job.nodus.dev/cfg1"
    run --separate-stderr -3 nodus patch job cfg1 -n nodus -p '{"metadata":{"labels":{"a":"b"}}}'
    assert_output ""
}

@test "patch: a merge patch by default; the same patch again is patched (no change)" {
    new_job p1
    run --separate-stderr -0 nodus patch job p1 -p '{"metadata":{"labels":{"team":"a"}}}'
    assert_output "job.nodus.dev/p1 patched"
    [ -z "$stderr" ]
    local before
    before=$(rv p1)
    run --separate-stderr -0 nodus patch job/p1 -p '{"metadata":{"labels":{"team":"a"}}}'
    assert_output "job.nodus.dev/p1 patched (no change)"
    [ "$(rv p1)" = "$before" ]
    # YAML works too, and null removes (RFC 7386)
    run -0 nodus patch job p1 -p 'metadata: {labels: {team: null, tier: web}}'
    assert_output "job.nodus.dev/p1 patched"
    run -0 nodus get job p1 -o jsonpath='{.metadata.labels.team}/{.metadata.labels.tier}'
    assert_output "/web"
    run -0 jf job/p1 '[.metadata.managedFields[] | .manager] | join(",")'
    [[ "$output" == *kubectl-patch* ]]
}

@test "patch --type json: an RFC 6902 patch; -o name and -o json" {
    new_job p2
    run --separate-stderr -0 nodus patch job p2 --type json \
        -p '[{"op":"add","path":"/metadata/labels/k","value":"v"},{"op":"replace","path":"/spec/maxCostUSD","value":"50.00"}]'
    assert_output "job.nodus.dev/p2 patched"
    run -0 nodus get job p2 -o jsonpath='{.metadata.labels.k} {.spec.maxCostUSD}'
    assert_output "v 50.00"
    run --separate-stderr -0 nodus patch job p2 --type json -o name \
        -p '[{"op":"test","path":"/metadata/labels/k","value":"v"},{"op":"replace","path":"/metadata/labels/k","value":"w"}]'
    assert_output "job.nodus.dev/p2"
    run --separate-stderr -0 nodus patch job p2 -o json -p '{"metadata":{"labels":{"k":"x"}}}'
    run jq -r '.metadata.labels.k + " " + (.metadata.managedFields | tostring)' <<<"$output"
    assert_output "x null"
    # a failing test op is refused by the server
    run --separate-stderr -1 nodus patch job p2 --type json \
        -p '[{"op":"test","path":"/metadata/labels/k","value":"nope"}]'
    assert_output ""
}

@test "patch --type strategic: refused before sending for a nodus kind (exit 2); a project takes one" {
    new_job p3
    run --separate-stderr -2 nodus patch job p3 --type strategic -p '{"metadata":{"labels":{"a":"b"}}}'
    assert_output ""
    [ "${stderr_lines[0]}" = "error: --type strategic: jobs.nodus.dev take no strategic merge patch (as custom resources; only projects do); use --type merge, the default" ]
    run -0 nodus get job p3 -o jsonpath='{.metadata.labels.a}'
    assert_output ""
    # a project's finalizers merge by value, as kube-apiserver merges them
    run -0 nodus create project p3-strategic
    run -0 nodus patch project p3-strategic --type merge -p '{"metadata":{"finalizers":["example.com/a"]}}'
    run -0 nodus patch project p3-strategic --type strategic -p '{"metadata":{"finalizers":["example.com/b"]}}'
    assert_output "namespace/p3-strategic patched"
    run -0 nodus get project p3-strategic -o jsonpath='{.metadata.finalizers}'
    assert_output '["example.com/b","example.com/a"]'
}

@test "patch: an immutable field is exit 4, a refused value exit 1, a missing object exit 3" {
    new_job p4
    run --separate-stderr -4 nodus patch job p4 -p '{"spec":{"image":"nodus/pytorch:2.7-cuda12.6"}}'
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (FieldImmutable): Job.nodus.dev "p4" is invalid: spec.image: Forbidden: field is immutable' ]
    run --separate-stderr -1 nodus patch job p4 -p '{"spec":{"maxCostUSD":"1.00"}}'
    assert_output ""
    [ "${stderr_lines[0]}" = 'The Job "p4" is invalid: spec.maxCostUSD: Invalid value: "1.00": may only be raised (it is "40.00")' ]
    run --separate-stderr -3 nodus patch job nope -p '{}'
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (NotFound): jobs.nodus.dev "nope" not found' ]
}

@test "patch: usage errors (exit 2): no patch, a patch that does not parse, a bad --type, no name" {
    new_job p5
    run --separate-stderr -2 nodus patch job p5
    assert_output ""
    [ "${stderr_lines[0]}" = "error: must specify --patch or --patch-file containing the contents of the patch" ]
    run --separate-stderr -2 nodus patch job p5 -p '{bad'
    assert_output ""
    [[ "${stderr_lines[0]}" == 'error: --patch is not valid JSON: line 1, column '* ]]
    run --separate-stderr -2 nodus patch job p5 --type bogus -p '{}'
    assert_output ""
    [ "${stderr_lines[0]}" = 'error: --type must be merge, json or strategic, not "bogus"' ]
    run --separate-stderr -2 nodus patch jobs -p '{}'
    assert_output ""
    printf '{"metadata":{"labels":{"from":"file"}}}' >patch.json
    run -0 nodus patch job p5 --patch-file patch.json
    run -0 nodus get job p5 -o jsonpath='{.metadata.labels.from}'
    assert_output "file"
}

@test "label: add, overwrite needs --overwrite (exit 2), remove with KEY-, not labeled" {
    new_job l1
    run --separate-stderr -0 nodus label job l1 team=a
    assert_output "job.nodus.dev/l1 labeled"
    [ -z "$stderr" ]
    run --separate-stderr -2 nodus label job l1 team=b
    assert_output ""
    [ "${stderr_lines[0]}" = "error: 'team' already has a value (a), and --overwrite is false" ]
    run -0 nodus get job l1 -o jsonpath='{.metadata.labels.team}'
    assert_output "a"
    run --separate-stderr -0 nodus label job/l1 team=b --overwrite
    assert_output "job.nodus.dev/l1 labeled"
    run -0 nodus get job l1 -o jsonpath='{.metadata.labels.team}'
    assert_output "b"
    run -0 jf job/l1 '[.metadata.managedFields[] | .manager] | join(",")'
    [[ "$output" == *kubectl-label* ]]
    # the same value again changes nothing
    local before
    before=$(rv l1)
    run --separate-stderr -0 nodus label job l1 team=b
    assert_output "job.nodus.dev/l1 not labeled"
    [ "$(rv l1)" = "$before" ]
    run --separate-stderr -0 nodus label job l1 team-
    assert_output "job.nodus.dev/l1 unlabeled"
    run -0 nodus get job l1 -o jsonpath='{.metadata.labels.team}'
    assert_output ""
    run --separate-stderr -0 nodus label job l1 team-
    assert_output "job.nodus.dev/l1 not labeled"
    [ "$stderr" = 'label "team" not found.' ]
}

@test "label: a reserved nodus.dev/ label is refused with the server's message (exit 1)" {
    new_job l2
    run --separate-stderr -1 nodus label job l2 nodus.dev/owner=me
    assert_output ""
    [ "${stderr_lines[0]}" = 'The Job "l2" is invalid: metadata.labels[nodus.dev/owner]: Forbidden: labels under nodus.dev/ are set by Nodus' ]
    run --separate-stderr -1 nodus label job l2 nodus.dev/created-by=me --overwrite
    assert_output ""
    run -0 nodus get job l2 -o jsonpath='{.metadata.labels.nodus\.dev/created-by}'
    assert_output "emulator-user"
}

@test "label -l: every object the selector matches; a bad key or argument is exit 2" {
    new_job ls1 40.00 sel
    new_job ls2 40.00 sel
    new_job ls3 40.00 other
    run --separate-stderr -0 nodus label jobs -l app=sel batch=7
    assert_output "job.nodus.dev/ls1 labeled
job.nodus.dev/ls2 labeled"
    run -0 nodus get jobs -l batch=7 -o name
    assert_output "job.nodus.dev/ls1
job.nodus.dev/ls2"
    run --separate-stderr -2 nodus label job ls1 'bad key=1'
    assert_output ""
    run --separate-stderr -2 nodus label job ls1 novalue
    assert_output ""
    [[ "${stderr_lines[0]}" == "error: invalid label format: novalue"* ]]
    run --separate-stderr -2 nodus label job ls1
    assert_output ""
    run --separate-stderr -3 nodus label job nope a=b
    assert_output ""
}

@test "annotate: add, --overwrite, remove; reserved annotations refused (exit 1)" {
    new_job an1
    run --separate-stderr -0 nodus annotate job an1 note='hello world'
    assert_output "job.nodus.dev/an1 annotated"
    run --separate-stderr -2 nodus annotate job an1 note=other
    assert_output ""
    [ "${stderr_lines[0]}" = "error: 'note' already has a value (hello world), and --overwrite is false" ]
    run -0 nodus annotate job/an1 note=other --overwrite
    assert_output "job.nodus.dev/an1 annotated"
    run -0 nodus get job an1 -o jsonpath='{.metadata.annotations.note}'
    assert_output "other"
    run -0 nodus annotate job an1 note-
    assert_output "job.nodus.dev/an1 annotated"
    run -0 nodus get job an1 -o jsonpath='{.metadata.annotations.note}'
    assert_output ""
    run --separate-stderr -1 nodus annotate job an1 nodus.dev/x=1
    assert_output ""
    [ "${stderr_lines[0]}" = 'The Job "an1" is invalid: metadata.annotations[nodus.dev/x]: Forbidden: annotations under nodus.dev/ are set by Nodus' ]
    # the request annotations are the clients' to set, for the actions a kind takes
    # (a Job takes none; nodus request restart sandbox/NAME is the usual way)
    run --separate-stderr -1 nodus annotate job an1 nodus.dev/restart-requested-at=2025-01-01T00:00:00Z
    assert_output ""
    [ "${stderr_lines[0]}" = 'The Job "an1" is invalid: metadata.annotations[nodus.dev/restart-requested-at]: Forbidden: a Job takes no requests (restart)' ]
}

# An editor script: counts its runs in $EDITS, keeps what it was shown in shown.N, then
# runs the sed program of run N ($SED_N, else $SED) on the object's lines (not the
# comment lines at the top).
write_editor() {
    cat >editor.sh <<'EOF'
#!/bin/sh
echo run >>"$EDITS"
n=$(wc -l <"$EDITS" | tr -d ' ')
cp "$1" "shown.$n"
eval "prog=\${SED_$n:-\$SED}"
[ -n "$prog" ] && sed -i "/^#/!{$prog}" "$1"
exit 0
EOF
    chmod +x editor.sh
    export EDITS=$PWD/edits
    rm -f "$EDITS"
}

@test "edit: the editor changes a field: edited (EDITOR)" {
    new_job e1
    write_editor
    SED='s/^  maxCostUSD: .*/  maxCostUSD: "55.00"/' EDITOR=$PWD/editor.sh \
        run --separate-stderr -0 nodus edit job e1
    assert_output "job.nodus.dev/e1 edited"
    [ -z "$stderr" ]
    [ "$(wc -l <edits)" = 1 ]
    run -0 nodus get job e1 -o jsonpath='{.spec.maxCostUSD}'
    assert_output "55.00"
    # the file shown: kubectl's header, then the object as YAML without managedFields
    [ "$(head -n 1 shown.1)" = "# Please edit the object below. Lines beginning with a '#' will be ignored," ]
    grep -q '^kind: Job$' shown.1
    ! grep -q managedFields shown.1
    run -0 jf job/e1 '[.metadata.managedFields[] | .manager] | join(",")'
    [[ "$output" == *kubectl-edit* ]]
    [ -z "$(ls -A "$TMPDIR")" ]
}

@test "edit: NODUS_EDITOR comes before EDITOR; nothing changed: Edit cancelled" {
    new_job e2
    write_editor
    local before
    before=$(rv e2)
    NODUS_EDITOR=$PWD/editor.sh EDITOR=false run --separate-stderr -0 nodus edit job/e2
    assert_output ""
    [ "$stderr" = "Edit cancelled, no changes made." ]
    [ "$(wc -l <edits)" = 1 ]
    [ "$(rv e2)" = "$before" ]
    # an emptied file cancels too
    SED='d' NODUS_EDITOR=$PWD/editor.sh run --separate-stderr -0 nodus edit job e2
    [ "$stderr" = "Edit cancelled, no changes made." ]
    [ "$(rv e2)" = "$before" ]
}

@test "edit: an invalid change reopens the file with the error on top; fixed, it saves" {
    new_job e3
    write_editor
    SED_1='s/^  maxCostUSD: .*/  maxCostUSD: "1.00"/' \
        SED_2='s/^  maxCostUSD: .*/  maxCostUSD: "60.00"/' NODUS_EDITOR=$PWD/editor.sh \
        run --separate-stderr -0 nodus edit job e3
    assert_output "job.nodus.dev/e3 edited"
    [ "$(wc -l <edits)" = 2 ]
    # the second time the editor saw the error, and the invalid value it had written
    run -0 grep '^#' shown.2
    assert_output "# Please edit the object below. Lines beginning with a '#' will be ignored,
# and an empty file will abort the edit. If an error occurs while saving this file will be
# reopened with the relevant failures.
#
# jobs.nodus.dev \"e3\" was not valid:
# * spec.maxCostUSD: Invalid value: \"1.00\": may only be raised (it is \"40.00\")
#"
    grep -q '^  maxCostUSD: "1.00"$' shown.2
    run -0 nodus get job e3 -o jsonpath='{.spec.maxCostUSD}'
    assert_output "60.00"
}

@test "edit: saving the same invalid text again gives up (exit 1), keeping a copy" {
    new_job e4
    write_editor
    SED='s/^  maxCostUSD: .*/  maxCostUSD: "1.00"/' NODUS_EDITOR=$PWD/editor.sh \
        run --separate-stderr -1 nodus edit job e4
    assert_output ""
    [ "$(wc -l <edits)" = 2 ]
    [[ "${stderr_lines[0]}" == "A copy of your changes has been stored to \"$TMPDIR/nodus-edit-"*"/job-e4.yaml\"" ]]
    [ "${stderr_lines[1]}" = "error: Edit cancelled, no valid changes were saved." ]
    run -0 nodus get job e4 -o jsonpath='{.spec.maxCostUSD}'
    assert_output "40.00"
}

@test "edit: broken YAML reopens with the parser's error; a missing object is exit 3" {
    new_job e5
    write_editor
    SED_1='s/^kind: Job$/kind: [/' SED_2='s/^kind: \[$/kind: Job/; s/^  maxCostUSD: .*/  maxCostUSD: "70.00"/' \
        NODUS_EDITOR=$PWD/editor.sh run --separate-stderr -0 nodus edit job e5
    assert_output "job.nodus.dev/e5 edited"
    [ "$(wc -l <edits)" = 2 ]
    grep -q '^# .*job-e5.yaml:[0-9]*:[0-9]*: ' shown.2
    run -0 nodus get job e5 -o jsonpath='{.spec.maxCostUSD}'
    assert_output "70.00"
    NODUS_EDITOR=$PWD/editor.sh run --separate-stderr -3 nodus edit job nope
    assert_output ""
    [ "$(wc -l <edits)" = 2 ]
    run --separate-stderr -2 nodus edit jobs
    assert_output ""
}

@test "suspend, resume, cancel set spec.state of a Job" {
    new_job s1
    run --separate-stderr -0 nodus suspend job/s1
    assert_output "job.nodus.dev/s1 suspended"
    [ -z "$stderr" ]
    run -0 nodus get job s1 -o jsonpath='{.spec.state}'
    assert_output "Suspended"
    run -0 nodus resume job s1
    assert_output "job.nodus.dev/s1 resumed"
    run -0 nodus get job s1 -o jsonpath='{.spec.state}'
    assert_output "Running"
    run -0 nodus suspend job/s1 --dry-run=server
    assert_output "job.nodus.dev/s1 suspended (server dry run)"
    run -0 nodus get job s1 -o jsonpath='{.spec.state}'
    assert_output "Running"
    run -0 nodus cancel job/s1
    assert_output "job.nodus.dev/s1 cancelled"
    run -0 nodus get job s1 -o jsonpath='{.spec.state}'
    assert_output "Cancelled"
}

@test "stop and start set spec.state of a Budget; other kinds are refused (exit 2)" {
    emu POST "$API/budgets" '{"apiVersion":"nodus.dev/v1","kind":"Budget","metadata":{"name":"b1"},"spec":{"limitUSD":"100.00"}}'
    run --separate-stderr -0 nodus stop budget/b1
    assert_output "budget.nodus.dev/b1 stopped"
    run -0 nodus get budget b1 -o jsonpath='{.spec.state}'
    assert_output "Stopped"
    run --separate-stderr -0 nodus start budget b1
    assert_output "budget.nodus.dev/b1 started"
    run -0 nodus get budget b1 -o jsonpath='{.spec.state}'
    assert_output "Running"
    new_job s2
    run --separate-stderr -2 nodus stop job/s2
    assert_output ""
    [ "${stderr_lines[0]}" = "error: jobs cannot be stopped (spec.state of a Job is not Stopped)" ]
    run --separate-stderr -2 nodus suspend budget/b1
    assert_output ""
    [ "${stderr_lines[0]}" = "error: budgets cannot be suspended (spec.state of a Budget is not Suspended)" ]
    run --separate-stderr -2 nodus suspend jobs
    assert_output ""
    run --separate-stderr -3 nodus suspend job/nope
    assert_output ""
    run -0 nodus get job s2 -o jsonpath='{.spec.state}'
    assert_output "Running"
}

@test "cancel and resume of a Job that has Succeeded are refused by the server (exit 1)" {
    new_job s3
    run -0 nodus suspend job/s3
    set_phase jobs s3 Succeeded
    run --separate-stderr -1 nodus cancel job/s3
    assert_output ""
    [ "${stderr_lines[0]}" = 'The Job "s3" is invalid: spec.state: Invalid value: "Cancelled": the Job has finished (Succeeded); its state can no longer change' ]
    run --separate-stderr -1 nodus resume job/s3
    assert_output ""
    [[ "${stderr_lines[0]}" == 'The Job "s3" is invalid: spec.state: Invalid value: "Running": '* ]]
    run -0 nodus get job s3 -o jsonpath='{.spec.state}'
    assert_output "Suspended"
}
