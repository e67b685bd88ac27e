#!/usr/bin/env bats
# nodus create -f and nodus replace -f against the emulator: files, directories (-R),
# standard input, multi-document YAML, a List; created / unchanged / AlreadyExists; dry
# runs with the server's estimate; -o; kubectl's messages and the exit codes of cli.md.
# Nothing is written to stdout when a command fails.

load ../lib/common
load fixtures/write

bats_require_minimum_version 1.5.0

FIX=$BATS_TEST_DIRNAME/fixtures/write

setup_file() {
    write_setup_file
}

teardown_file() {
    stop_emulator
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

@test "create -f FILE: created, then unchanged for the same object" {
    job_yaml c1 >c1.yaml
    run --separate-stderr -0 nodus create -f c1.yaml
    assert_output "job.nodus.dev/c1 created"
    [ -z "$stderr" ]
    run -0 nodus get job c1 -o jsonpath='{.spec.maxCostUSD} {.metadata.labels.app}'
    assert_output "40.00 x"
    run --separate-stderr -0 nodus create -f c1.yaml
    assert_output "job.nodus.dev/c1 unchanged"
    [ -z "$stderr" ]
}

@test "create -f: a different spec under the same name is AlreadyExists (exit 4)" {
    job_yaml c2 >c2.yaml
    run -0 nodus create -f c2.yaml
    job_yaml c2 41.00 >c2.yaml
    run --separate-stderr -4 nodus create -f c2.yaml
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (AlreadyExists): error when creating "c2.yaml": jobs.nodus.dev "c2" already exists' ]
    [[ "${stderr_lines[1]}" == "fix: "* ]]
    [[ "$stderr" == *"requestId: req_"* ]]
    run -0 nodus get job c2 -o jsonpath='{.spec.maxCostUSD}'
    assert_output "40.00"
}

@test "create -f DIR: its manifests in name order; -R goes into subdirectories" {
    run --separate-stderr -0 nodus create -f "$FIX/dir"
    assert_output "job.nodus.dev/dir-a created
volume.nodus.dev/dir-b created"
    [ -z "$stderr" ]
    run -3 nodus get job dir-c
    run --separate-stderr -0 nodus create -f "$FIX/dir" -R
    assert_output "job.nodus.dev/dir-a unchanged
volume.nodus.dev/dir-b unchanged
job.nodus.dev/dir-c created"
}

@test "create -f -: standard input, several documents" {
    run --separate-stderr -0 nodus create -f - <"$FIX/multi.yaml"
    assert_output "job.nodus.dev/multi-1 created
job.nodus.dev/multi-2 created"
    run -0 nodus get jobs multi-1 multi-2 -o name
    assert_output "job.nodus.dev/multi-1
job.nodus.dev/multi-2"
}

@test "create -f: a kind List in JSON is expanded; -o name" {
    run --separate-stderr -0 nodus create -f "$FIX/list.json" -o name
    assert_output "job.nodus.dev/list-job
volume.nodus.dev/list-vol"
    [ -z "$stderr" ]
    run -0 nodus get volume list-vol -o jsonpath='{.spec.size}'
    assert_output "1Gi"
}

@test "create -o json and -o yaml print the stored objects, without managedFields" {
    job_yaml oj1 >oj1.yaml
    run --separate-stderr -0 nodus create -f oj1.yaml -o json
    run jq -r '[.kind, .metadata.name, .metadata.namespace, (.metadata.uid | startswith("job_")),
                .status.phase, (.metadata.managedFields == null)] | join(" ")' <<<"$output"
    assert_output "Job oj1 default true Queued true"
    { job_yaml oy1; echo ---; job_yaml oy2; } >oy.yaml
    run --separate-stderr -0 nodus create -f oy.yaml -o yaml
    # two YAML documents: the second starts with ---
    [ "$(grep -c '^---$' <<<"$output")" = 1 ]
    [ "$(grep -c '^kind: Job$' <<<"$output")" = 2 ]
    [ "$(grep -c '^  name: oy[12]$' <<<"$output")" = 2 ]
    [ "$(grep -c managedFields <<<"$output")" = 0 ]
    [ "${lines[0]}" = "apiVersion: nodus.dev/v1" ]
}

@test "create -o: a table format is refused before anything is sent (exit 2)" {
    job_yaml ow1 >ow1.yaml
    run --separate-stderr -2 nodus create -f ow1.yaml -o wide
    assert_output ""
    [ "$stderr" = 'error: unable to match a printer suitable for the output format "wide", allowed formats are: json,jsonpath,jsonpath-file,name,yaml' ]
    run -3 nodus get job ow1
}

@test "create --dry-run=server prints the server's estimate for a Job and stores nothing" {
    job_yaml dr1 >dr1.yaml
    run --separate-stderr -0 nodus create -f dr1.yaml --dry-run=server
    [ "${#lines[@]}" = 2 ]
    [ "${lines[0]}" = "job.nodus.dev/dr1 created (server dry run)" ]
    # H100 at $2.49/h for the default 10m run; Queued 5s + Provisioning 30s
    [ "${lines[1]}" = '  estimate: rate $2.49/h, expected $0.42, first hold $2.49, starts in ~35s' ]
    [ -z "$stderr" ]
    run --separate-stderr -3 nodus get job dr1
    [[ "$stderr" == 'Error from server (NotFound): jobs.nodus.dev "dr1" not found'* ]]
}

@test "create --dry-run=server for a kind without compute prints no estimate" {
    printf '%s\n' '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"vdry"},"spec":{"size":"1Gi"}}' >vdry.json
    run --separate-stderr -0 nodus create -f vdry.json --dry-run=server
    assert_output "volume.nodus.dev/vdry created (server dry run)"
    run -3 nodus get volume vdry
}

@test "create --dry-run=client sends nothing" {
    job_yaml dc1 >dc1.yaml
    run --separate-stderr -0 nodus create -f dc1.yaml --dry-run=client
    assert_output "job.nodus.dev/dc1 created (dry run)"
    run -3 nodus get job dc1
    run --separate-stderr -2 nodus create -f dc1.yaml --dry-run=maybe
    assert_output ""
    [ "$stderr" = 'error: Invalid dry-run value (maybe). Must be "none", "server", or "client".' ]
}

@test "create -f: an unknown kind is a usage error (exit 2): no matches for kind" {
    cp "$FIX/unknown-kind.yaml" .
    run --separate-stderr -2 nodus create -f unknown-kind.yaml
    assert_output ""
    [ "${stderr_lines[0]}" = 'error: resource mapping not found for name: "q" namespace: "" from "unknown-kind.yaml": no matches for kind "Jobx" in version "nodus.dev/v1"' ]
}

@test "create -f: -n naming another project than the manifest is exit 2, as kubectl" {
    cp "$FIX/other-project.yaml" .
    run --separate-stderr -2 nodus create -f other-project.yaml -n nodus
    assert_output ""
    [ "$stderr" = "error: the namespace from the provided object \"default\" does not match the namespace \"nodus\". You must pass '--namespace=default' to perform this operation." ]
    run -3 nodus get job elsewhere
    # the same project is fine
    run -0 nodus create -f other-project.yaml -n default
    assert_output "job.nodus.dev/elsewhere created"
}

@test "create -f: a missing file, a broken file, no -f (exit 2)" {
    run --separate-stderr -2 nodus create -f nope.yaml
    assert_output ""
    [ "$stderr" = 'error: the path "nope.yaml" does not exist' ]
    printf 'apiVersion: nodus.dev/v1\nkind: [\n' >broken.yaml
    run --separate-stderr -2 nodus create -f broken.yaml
    assert_output ""
    [[ "$stderr" == "error: broken.yaml:"* ]]
    run --separate-stderr -2 nodus create
    assert_output ""
    [[ "$stderr" == "error: must specify -f with a file, a directory or - (standard input)"* ]]
    run --separate-stderr -2 nodus create job x
    assert_output ""
}

@test "create -f: an invalid object is refused by the server (exit 1), kubectl's one line with the file's line" {
    printf '%s\n' 'apiVersion: nodus.dev/v1' 'kind: Job' 'metadata: {name: inv}' \
        'spec: {image: nodus/pytorch:2.8-cuda12.8}' >inv.yaml
    run --separate-stderr -1 nodus create -f inv.yaml
    assert_output ""
    [ "${stderr_lines[0]}" = 'The Job "inv" is invalid: inv.yaml:4: spec.maxCostUSD: Required value' ]
}

@test "create -f: objects after a failure are still created; the exit code is the failure's" {
    { job_yaml mix1; echo ---; cat "$FIX/unknown-kind.yaml"; } >mixbad.yaml
    # a file with an object of an unknown kind creates nothing
    run --separate-stderr -2 nodus create -f mixbad.yaml
    assert_output ""
    run -3 nodus get job mix1
    job_yaml mix2 >mix2.yaml
    run -0 nodus create -f mix2.yaml
    { job_yaml mix2 41.00; echo ---; job_yaml mix3; } >mix.yaml
    run --separate-stderr -4 nodus create -f mix.yaml
    assert_output "job.nodus.dev/mix3 created"
    [[ "${stderr_lines[0]}" == 'Error from server (AlreadyExists): error when creating "mix.yaml": jobs.nodus.dev "mix2" already exists' ]]
}

@test "create records field manager kubectl-create, or --field-manager" {
    job_yaml fm1 >fm1.yaml
    run -0 nodus create -f fm1.yaml
    run -0 jf job/fm1 '[.metadata.managedFields[] | .manager + " " + .operation] | join(",")'
    assert_output "kubectl-create Update"
    job_yaml fm2 >fm2.yaml
    run -0 nodus create -f fm2.yaml --field-manager robot
    run -0 jf job/fm2 '[.metadata.managedFields[] | .manager] | join(",")'
    assert_output "robot"
}

@test "replace -f: reads the resourceVersion first when the file has none" {
    job_yaml r1 >r1.yaml
    run -0 nodus create -f r1.yaml
    run -0 nodus label job r1 extra=1
    job_yaml r1 40.00 y >r1.yaml
    run --separate-stderr -0 nodus replace -f r1.yaml
    assert_output "job.nodus.dev/r1 replaced"
    [ -z "$stderr" ]
    # a replace is the whole object: the label the file does not have is gone
    run -0 nodus get job r1 -o jsonpath='{.metadata.labels.app} {.metadata.labels.extra}'
    assert_output "y "
    run -0 nodus replace -f r1.yaml -o name
    assert_output "job.nodus.dev/r1"
}

@test "replace -f: a stale resourceVersion in the file is Conflict (exit 4)" {
    job_yaml r2 >r2.yaml
    run -0 nodus create -f r2.yaml
    nodus get job r2 -o yaml >r2-live.yaml
    grep -q '^  resourceVersion: ' r2-live.yaml
    run -0 nodus label job r2 moved=yes
    run --separate-stderr -4 nodus replace -f r2-live.yaml
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (Conflict): error when replacing "r2-live.yaml": Operation cannot be fulfilled on jobs.nodus.dev "r2": the object has been modified; please apply your changes to the latest version and try again' ]
    run -0 nodus get job r2 -o jsonpath='{.metadata.labels.moved}'
    assert_output "yes"
}

@test "replace -f: a missing object is exit 3; an immutable field is exit 4" {
    job_yaml r3 >r3.yaml
    run --separate-stderr -3 nodus replace -f r3.yaml
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (NotFound): error when replacing "r3.yaml": jobs.nodus.dev "r3" not found' ]
    run -0 nodus create -f r3.yaml
    sed 's|pytorch:2.8-cuda12.8|pytorch:2.7-cuda12.6|' r3.yaml >r3-image.yaml
    run --separate-stderr -4 nodus replace -f r3-image.yaml
    assert_output ""
    [[ "${stderr_lines[0]}" == *'spec.image: Forbidden: field is immutable' ]]
}

@test "replace -f: a manifest without a name is exit 2" {
    printf '%s\n' 'apiVersion: nodus.dev/v1' 'kind: Job' 'metadata: {}' 'spec: {}' >noname.yaml
    run --separate-stderr -2 nodus replace -f noname.yaml
    assert_output ""
    [ "${stderr_lines[0]}" = 'error: error when replacing "noname.yaml": resource name may not be empty' ]
}
