#!/usr/bin/env bats
# nodus apply after nodus's own imperative writes (issue 20, item 7): the manifest wins
# over what patch, label, edit, suspend ... set, as kubectl's client-side apply would; a
# field another applier owns stays a conflict, and the conflict's fix names the file
# given with -f.

load ../lib/common
load fixtures/write

bats_require_minimum_version 1.5.0

setup_file() {
    write_setup_file --no-simulation
}

teardown_file() {
    stop_emulator
}

setup() {
    cd "$BATS_TEST_TMPDIR"
    export TMPDIR=$BATS_TEST_TMPDIR/tmp
    mkdir -p "$TMPDIR"
}

managers() {
    jf "$1" '[.metadata.managedFields[] | .manager + ":" + .operation] | join(",")'
}

@test "the README's sequence: apply a Budget, patch its limit, apply the manifest again" {
    cp "$ND_ROOT/examples/workflow/02-budget.yaml" budget.yaml
    run -0 nodus apply -f budget.yaml
    assert_output "budget.nodus.dev/vision created"
    run -0 nodus patch budget vision --type merge -p '{"spec":{"limitUSD":"10.00"}}'
    assert_output "budget.nodus.dev/vision patched"
    run --separate-stderr -0 nodus apply -f budget.yaml
    assert_output "budget.nodus.dev/vision serverside-applied"
    [ -z "$stderr" ]
    # the manifest's limit is back, and apply owns it again
    run -0 nodus get budget vision -o jsonpath='{.spec.limitUSD}'
    assert_output "1.00"
    run -0 managers budget/vision
    assert_output "nodus:Apply"
}

@test "apply takes over what label, annotate, edit, create and suspend set; others keep theirs" {
    job_yaml t1 >t1.yaml
    run -0 nodus create -f t1.yaml
    run -0 nodus label job t1 app=theirs --overwrite
    run -0 nodus annotate job t1 note=kept
    run -0 nodus suspend job t1
    EDITOR="sed -i s/40.00/45.00/" run -0 nodus edit job t1
    job_yaml t1 50.00 >t1.yaml
    run --separate-stderr -0 nodus apply -f t1.yaml
    assert_output "job.nodus.dev/t1 serverside-applied"
    run -0 jf job/t1 '[.metadata.labels.app, .spec.maxCostUSD, .metadata.annotations.note, .spec.state] | join(" ")'
    assert_output "x 50.00 kept Suspended"
    # the fields the file does not name stay with the verbs that set them (and the
    # create shares the fields it set to the values the file has)
    run -0 jf job/t1 '[.metadata.managedFields[] | select(.manager != "nodus") | .manager] | sort | join(",")'
    assert_output "kubectl-annotate,kubectl-create,nodus-suspend"
    # a dry run says the same, and a --dry-run=server apply changes nothing
    run -0 nodus label job t1 app=again --overwrite
    run -0 nodus apply -f t1.yaml --dry-run=server
    assert_output "job.nodus.dev/t1 serverside-applied (server dry run)"
    run -0 nodus get job t1 -o jsonpath='{.metadata.labels.app}'
    assert_output "again"
}

@test "a field another applier owns is a conflict whose fix names the file given" {
    mkdir -p "my dir"
    job_yaml t2 >"my dir/t2.yaml"
    run -0 nodus apply -f "my dir/t2.yaml" --field-manager robot
    job_yaml t2 40.00 mine >"my dir/t2.yaml"
    run --separate-stderr -4 nodus apply -f "my dir/t2.yaml"
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (Conflict): Apply failed with 1 conflict: conflict with "robot": .metadata.labels.app' ]
    [ "${stderr_lines[1]}" = "fix: Remove these fields from my dir/t2.yaml, or take them over: nodus apply -f 'my dir/t2.yaml' --force-conflicts" ]
    # the fix works as printed
    run -0 nodus apply -f 'my dir/t2.yaml' --force-conflicts
    assert_output "job.nodus.dev/t2 serverside-applied"
    # a directory: the fix names the file in it; standard input: -f -
    job_yaml t2 40.00 robots >"my dir/t2.yaml"
    run -0 nodus apply -f "my dir" --field-manager robot --force-conflicts
    run --separate-stderr -4 nodus apply -f - <<<"$(job_yaml t2)"
    [ "${stderr_lines[1]}" = "fix: Remove these fields from the manifest, or take them over: nodus apply -f - --force-conflicts" ]
    job_yaml t2 >"my dir/t2.yaml"
    run --separate-stderr -4 nodus apply -f "my dir"
    [ "${stderr_lines[1]}" = "fix: Remove these fields from my dir/t2.yaml, or take them over: nodus apply -f 'my dir/t2.yaml' --force-conflicts" ]
}

@test "--force-conflicts=false keeps every conflict, the patch's too" {
    job_yaml t3 >t3.yaml
    run -0 nodus apply -f t3.yaml
    run -0 nodus patch job t3 -p '{"spec":{"maxCostUSD":"45.00"}}'
    run --separate-stderr -4 nodus apply -f t3.yaml --force-conflicts=false
    [ "${stderr_lines[0]}" = 'Error from server (Conflict): Apply failed with 1 conflict: conflict with "kubectl-patch" using nodus.dev/v1: .spec.maxCostUSD' ]
    [ "${stderr_lines[1]}" = "fix: Remove these fields from t3.yaml, or take them over: nodus apply -f t3.yaml --force-conflicts" ]
    run -0 nodus get job t3 -o jsonpath='{.spec.maxCostUSD}'
    assert_output "45.00"
}
