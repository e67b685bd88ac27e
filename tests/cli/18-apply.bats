#!/usr/bin/env bats
# nodus apply -f (server-side by default, client-side with --server-side=false), its
# conflicts, --force-conflicts, --field-manager, --prune -l, directories, dry runs; and
# nodus diff -f with its exit codes (0 same, 1 different, 2 an error) and external diff
# programs.

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
    export TMPDIR=$BATS_TEST_TMPDIR/tmp
    mkdir -p "$TMPDIR"
}

managers() {
    jf "$1" '[.metadata.managedFields[] | .manager + ":" + .operation] | join(",")'
}

@test "apply -f: server-side by default: created, then serverside-applied, manager nodus" {
    job_yaml a1 >a1.yaml
    run --separate-stderr -0 nodus apply -f a1.yaml
    assert_output "job.nodus.dev/a1 created"
    [ -z "$stderr" ]
    run --separate-stderr -0 nodus apply -f a1.yaml
    assert_output "job.nodus.dev/a1 serverside-applied"
    [ -z "$stderr" ]
    run -0 managers job/a1
    assert_output "nodus:Apply"
    # server-side apply leaves no last-applied annotation
    run -0 jf job/a1 '.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]'
    assert_output "null"
    job_yaml a1 40.00 changed >a1.yaml
    run -0 nodus apply -f a1.yaml
    assert_output "job.nodus.dev/a1 serverside-applied"
    run -0 nodus get job a1 -o jsonpath='{.metadata.labels.app}'
    assert_output "changed"
}

@test "apply: a field another applier changed is a conflict (exit 4), --force-conflicts takes it" {
    job_yaml a2 >a2.yaml
    run -0 nodus apply -f a2.yaml
    job_yaml a2 40.00 theirs >theirs.yaml
    run -0 nodus apply -f theirs.yaml --field-manager other --force-conflicts
    run --separate-stderr -4 nodus apply -f a2.yaml
    assert_output ""
    [ "${stderr_lines[0]}" = 'Error from server (Conflict): Apply failed with 1 conflict: conflict with "other": .metadata.labels.app' ]
    [ "${stderr_lines[1]}" = "fix: Remove these fields from a2.yaml, or take them over: nodus apply -f a2.yaml --force-conflicts" ]
    run -0 nodus get job a2 -o jsonpath='{.metadata.labels.app}'
    assert_output "theirs"
    run --separate-stderr -0 nodus apply -f a2.yaml --force-conflicts
    assert_output "job.nodus.dev/a2 serverside-applied"
    run -0 nodus get job a2 -o jsonpath='{.metadata.labels.app}'
    assert_output "x"
    # app is nodus's alone again
    run -0 jf job/a2 '[.metadata.managedFields[] | select(.fieldsV1["f:metadata"]["f:labels"]["f:app"] != null) | .manager] | join(",")'
    assert_output "nodus"
}

@test "apply after create: the create's fields belong to kubectl-create; apply takes them over" {
    job_yaml a3 >a3.yaml
    run -0 nodus create -f a3.yaml
    run -0 nodus apply -f a3.yaml
    assert_output "job.nodus.dev/a3 serverside-applied"
    run -0 managers job/a3
    assert_output "kubectl-create:Update,nodus:Apply"
    # as kubectl's client-side apply would: the manifest wins over an imperative write
    job_yaml a3 40.00 changed >a3.yaml
    run --separate-stderr -0 nodus apply -f a3.yaml
    assert_output "job.nodus.dev/a3 serverside-applied"
    run -0 nodus get job a3 -o jsonpath='{.metadata.labels.app}'
    assert_output "changed"
}

@test "apply --field-manager names the manager" {
    job_yaml a4 >a4.yaml
    run -0 nodus apply -f a4.yaml --field-manager robot
    run -0 managers job/a4
    assert_output "robot:Apply"
    # another applier changing robot's field conflicts with robot
    job_yaml a4 40.00 mine >a4.yaml
    run --separate-stderr -4 nodus apply -f a4.yaml
    [ "${stderr_lines[0]}" = 'Error from server (Conflict): Apply failed with 1 conflict: conflict with "robot": .metadata.labels.app' ]
}

@test "apply --server-side=false: created, unchanged, configured, with the last-applied annotation" {
    cat >cs.yaml <<'EOF'
apiVersion: nodus.dev/v1
kind: Job
metadata:
  name: cs
  labels: {app: x, tier: web}
  annotations: {note: one}
spec:
  image: nodus/pytorch:2.8-cuda12.8
  maxCostUSD: "40.00"
EOF
    run --separate-stderr -0 nodus apply --server-side=false -f cs.yaml
    assert_output "job.nodus.dev/cs created"
    [ -z "$stderr" ]
    run -0 jf job/cs '.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] | fromjson | [.metadata.name, .metadata.labels.tier, .spec.maxCostUSD] | join(" ")'
    assert_output "cs web 40.00"
    run --separate-stderr -0 nodus apply --server-side=false -f cs.yaml
    assert_output "job.nodus.dev/cs unchanged"
    # a field removed from the file is removed from the object; others are kept
    run -0 nodus label job cs by-hand=1
    cat >cs.yaml <<'EOF'
apiVersion: nodus.dev/v1
kind: Job
metadata:
  name: cs
  labels: {app: y}
spec:
  image: nodus/pytorch:2.8-cuda12.8
  maxCostUSD: "40.00"
EOF
    run --separate-stderr -0 nodus apply --server-side=false -f cs.yaml
    assert_output "job.nodus.dev/cs configured"
    run -0 jf job/cs '[.metadata.labels.app, .metadata.labels.tier, .metadata.labels["by-hand"], .metadata.annotations.note] | map(tostring) | join(" ")'
    assert_output "y null 1 null"
    run -0 jf job/cs '.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] | fromjson | .metadata.labels | keys | join(",")'
    assert_output "app"
}

@test "apply --prune -l deletes what the directory no longer holds, only objects apply made" {
    mkdir pr
    job_yaml p1 40.00 pr >pr/p1.yaml
    job_yaml p2 40.00 pr >pr/p2.yaml
    run -0 nodus apply -f pr
    assert_output "job.nodus.dev/p1 created
job.nodus.dev/p2 created"
    # made by create, not by apply: never pruned
    job_yaml p3 40.00 pr >p3.yaml
    run -0 nodus create -f p3.yaml
    # another label: not selected
    job_yaml p4 40.00 other >p4.yaml
    run -0 nodus apply -f p4.yaml
    rm pr/p2.yaml
    run --separate-stderr -0 nodus apply -f pr --prune -l app=pr
    assert_output "job.nodus.dev/p1 serverside-applied
job.nodus.dev/p2 pruned"
    [ -z "$stderr" ]
    run -3 nodus get job p2
    run -0 nodus get jobs p1 p3 p4 -o name
    assert_output "job.nodus.dev/p1
job.nodus.dev/p3
job.nodus.dev/p4"
}

@test "apply --prune without -l is a usage error (exit 2) and applies nothing" {
    mkdir np
    job_yaml np1 >np/np1.yaml
    run --separate-stderr -2 nodus apply -f np --prune
    assert_output ""
    [ "${stderr_lines[0]}" = "error: --prune needs a label selector (-l) naming the objects it may delete" ]
    run -3 nodus get job np1
}

@test "apply -f DIR and -R; several objects with -o yaml are a YAML stream" {
    run --separate-stderr -0 nodus apply -f "$FIX/dir"
    assert_output "job.nodus.dev/dir-a created
volume.nodus.dev/dir-b created"
    run --separate-stderr -0 nodus apply -f "$FIX/dir" -R
    assert_output "job.nodus.dev/dir-a serverside-applied
volume.nodus.dev/dir-b serverside-applied
job.nodus.dev/dir-c created"
    run --separate-stderr -0 nodus apply -f "$FIX/dir" -R -o yaml
    [ "$(grep -c '^---$' <<<"$output")" = 2 ]
    [ "$(grep -c '^  name: dir-[abc]$' <<<"$output")" = 3 ]
    run -0 nodus apply -f - -o name <"$FIX/multi.yaml"
    assert_output "job.nodus.dev/multi-1
job.nodus.dev/multi-2"
}

@test "apply --dry-run=server prints the estimate and stores nothing; --dry-run=client too" {
    job_yaml ad1 >ad1.yaml
    run --separate-stderr -0 nodus apply -f ad1.yaml --dry-run=server
    assert_output "job.nodus.dev/ad1 created (server dry run)
  estimate: rate \$2.49/h, expected \$0.42, first hold \$2.49, starts in ~35s"
    run -3 nodus get job ad1
    run --separate-stderr -0 nodus apply -f ad1.yaml --dry-run=client
    assert_output "job.nodus.dev/ad1 created (dry run)"
    run -3 nodus get job ad1
}

@test "apply: errors: -n against the manifest's project, unknown kind, no name (exit 2)" {
    cp "$FIX/other-project.yaml" "$FIX/unknown-kind.yaml" .
    run --separate-stderr -2 nodus apply -f other-project.yaml -n nodus
    assert_output ""
    [ "$stderr" = "error: the namespace from the provided object \"default\" does not match the namespace \"nodus\". You must pass '--namespace=default' to perform this operation." ]
    run --separate-stderr -2 nodus apply -f unknown-kind.yaml
    assert_output ""
    [[ "${stderr_lines[0]}" == *'no matches for kind "Jobx" in version "nodus.dev/v1"' ]]
    printf '%s\n' 'apiVersion: nodus.dev/v1' 'kind: Job' 'metadata: {}' 'spec: {}' >noname.yaml
    run --separate-stderr -2 nodus apply -f noname.yaml
    assert_output ""
    [ "${stderr_lines[0]}" = 'error: error when applying "noname.yaml": resource name may not be empty' ]
}

@test "apply: an immutable field is exit 4; the object keeps its value" {
    job_yaml im1 >im1.yaml
    run -0 nodus apply -f im1.yaml
    sed -i 's|pytorch:2.8-cuda12.8|pytorch:2.7-cuda12.6|' im1.yaml
    run --separate-stderr -4 nodus apply -f im1.yaml
    assert_output ""
    [[ "${stderr_lines[0]}" == *'spec.image: Forbidden: field is immutable' ]]
    run -0 nodus get job im1 -o jsonpath='{.spec.image}'
    assert_output "nodus/pytorch:2.8-cuda12.8"
}

@test "diff -f: exit 0 and nothing printed when the object is as the file says" {
    job_yaml d1 >d1.yaml
    run -0 nodus apply -f d1.yaml
    run --separate-stderr -0 nodus diff -f d1.yaml
    assert_output ""
    [ -z "$stderr" ]
    # the temporary directories are gone
    [ -z "$(ls -A "$TMPDIR")" ]
}

@test "diff -f: exit 1 with a unified diff of the changed line after editing the file" {
    job_yaml d2 >d2.yaml
    run -0 nodus apply -f d2.yaml
    job_yaml d2 40.00 z >d2.yaml
    run --separate-stderr -1 nodus diff -f d2.yaml
    [ -z "$stderr" ]
    [[ "${lines[0]}" == "diff -u -N $TMPDIR/LIVE-"*"/nodus.dev.v1.Job.default.d2 $TMPDIR/MERGED-"*"/nodus.dev.v1.Job.default.d2" ]]
    [[ "${lines[1]}" == "--- $TMPDIR/LIVE-"* ]]
    [[ "${lines[2]}" == "+++ $TMPDIR/MERGED-"* ]]
    run -0 grep -E '^[-+] ' <<<"$output"
    assert_output "-    app: x
+    app: z"
    # nothing changed on the server
    run -0 nodus get job d2 -o jsonpath='{.metadata.labels.app}'
    assert_output "x"
    [ -z "$(ls -A "$TMPDIR")" ]
}

@test "diff -f: a new object is all added lines (exit 1)" {
    job_yaml d3 >d3.yaml
    run --separate-stderr -1 nodus diff -f d3.yaml
    [ -z "$stderr" ]
    [[ "$output" == *"@@ -0,0 +1,"* ]]
    [[ "$output" == *"+  name: d3"* ]]
    [ "$(grep -c '^-  ' <<<"$output")" = 0 ]
    run -3 nodus get job d3
}

@test "diff -f: a bad file, an unknown kind, a refused change are exit 2 or more" {
    printf 'kind: [\n' >bad.yaml
    run --separate-stderr -2 nodus diff -f bad.yaml
    assert_output ""
    [[ "$stderr" == "error: bad.yaml:"* ]]
    cp "$FIX/unknown-kind.yaml" .
    run --separate-stderr -2 nodus diff -f unknown-kind.yaml
    assert_output ""
    run --separate-stderr -2 nodus diff -f missing.yaml
    assert_output ""
    job_yaml d4 >d4.yaml
    run -0 nodus apply -f d4.yaml
    sed -i 's|pytorch:2.8-cuda12.8|pytorch:2.7-cuda12.6|' d4.yaml
    run --separate-stderr -2 nodus diff -f d4.yaml
    assert_output ""
    [[ "${stderr_lines[0]}" == *'spec.image: Forbidden: field is immutable' ]]
    [ -z "$(ls -A "$TMPDIR")" ]
}

@test "diff honours KUBECTL_EXTERNAL_DIFF and, before it, NODUS_EXTERNAL_DIFF" {
    job_yaml d5 >d5.yaml
    run -0 nodus apply -f d5.yaml
    job_yaml d5 40.00 w >d5.yaml
    cat >ext.sh <<'EOF'
#!/bin/sh
# prints its name, the two directories' file names and the changed label; exits 1
echo "$EXT_NAME $(basename "$1" | cut -c1-5) $(basename "$2" | cut -c1-7)"
ls "$1" "$2" | grep -v : | sort -u | grep .
grep -h '^    app:' "$1"/* "$2"/*
exit 1
EOF
    chmod +x ext.sh
    EXT_NAME=kubectl KUBECTL_EXTERNAL_DIFF=$PWD/ext.sh run --separate-stderr -1 nodus diff -f d5.yaml
    assert_output "kubectl LIVE- MERGED-
nodus.dev.v1.Job.default.d5
    app: x
    app: w"
    EXT_NAME=nodus NODUS_EXTERNAL_DIFF=$PWD/ext.sh KUBECTL_EXTERNAL_DIFF=false \
        run --separate-stderr -1 nodus diff -f d5.yaml
    [ "${lines[0]}" = "nodus LIVE- MERGED-" ]
    # a program with its own arguments
    NODUS_EXTERNAL_DIFF="diff -q" run --separate-stderr -1 nodus diff -f d5.yaml
    [[ "$output" == "Files $TMPDIR/LIVE-"*" differ" ]]
}

@test "apply -f: aliases expanding a 1 MB value a thousand times are refused at their line, at once" {
    # the issue's manifest: 44.7 s and 1.18 GB before the loader counted bytes
    python3 -c '
print("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: bomb\n  annotations:")
print("    a: &a \"" + "x" * 1000000 + "\"")
print("    b: [" + ",".join(["*a"] * 1000) + "]")' >bomb.yaml
    run -2 timeout 10 nodus apply --dry-run=client -f bomb.yaml
    [ "${lines[0]}" = "error: bomb.yaml:7:30: this alias takes the text to more than 8024728 bytes of values and keys, the most a text of 1003091 bytes may expand to" ]
    [ "${lines[1]}" = "fix: write the value out once instead of through aliases" ]
    # nothing was created
    run -3 nodus get namespace bomb
}
