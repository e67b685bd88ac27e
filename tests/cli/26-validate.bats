#!/usr/bin/env bats
# --validate=strict|warn|ignore on create, apply, replace, patch and edit, sent as the
# fieldValidation query parameter; strict by default, as kubectl. A strict refusal names
# every unknown field at its line of the file and creates nothing. And: an error that many
# objects of a file meet alike is printed once, then counted.

load ../lib/common
load fixtures/write

bats_require_minimum_version 1.5.0

setup_file() {
    write_setup_file
}

teardown_file() {
    stop_emulator
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

# A Job manifest with two misspelt fields: spec.resourcse (line 9), spec.maxDuratoin (12).
typo_yaml() {
    cat <<YAML
# a typo in a field name
apiVersion: nodus.dev/v1
kind: Job
metadata:
  name: $1
spec:
  image: nodus/pytorch:2.8-cuda12.8
  command: [python, train.py]
  resourcse:
    gpu: {model: H100, count: 1}
  maxCostUSD: "40.00"
  maxDuratoin: 6h
YAML
}

@test "apply: strict by default, every unknown field at its line, exit 1, nothing created" {
    typo_yaml t1 >t1.yaml
    run --separate-stderr -1 nodus apply -f t1.yaml
    assert_output ""
    [ "${stderr_lines[0]}" = 'The Job "t1" is invalid:' ]
    [ "${stderr_lines[1]}" = '* t1.yaml:9: unknown field "spec.resourcse" (did you mean "resources"?)' ]
    [ "${stderr_lines[2]}" = '* t1.yaml:12: unknown field "spec.maxDuratoin" (did you mean "maxDuration"?)' ]
    [ "${stderr_lines[3]}" = 'fix: correct the fields named in the causes; see what a Job takes: nodus explain job --recursive' ]
    [[ "${stderr_lines[4]}" == "docs: $EMU_URL/docs/reference/errors/#invalid" ]]
    [[ "${stderr_lines[5]}" == "requestId: req_"* ]]
    [ "${#stderr_lines[@]}" = 6 ]
    run -3 nodus get job t1
    # client-side apply too
    run --separate-stderr -1 nodus apply -f t1.yaml --server-side=false
    [ "${stderr_lines[1]}" = '* t1.yaml:9: unknown field "spec.resourcse" (did you mean "resources"?)' ]
    run -3 nodus get job t1
}

@test "create and a server dry run: strict by default; --validate=true is strict too" {
    typo_yaml t2 >t2.yaml
    run --separate-stderr -1 nodus create -f t2.yaml
    assert_output ""
    [ "${stderr_lines[2]}" = '* t2.yaml:12: unknown field "spec.maxDuratoin" (did you mean "maxDuration"?)' ]
    run --separate-stderr -1 nodus create -f t2.yaml --dry-run=server
    assert_output ""
    [ "${stderr_lines[1]}" = '* t2.yaml:9: unknown field "spec.resourcse" (did you mean "resources"?)' ]
    run --separate-stderr -1 nodus apply -f t2.yaml --dry-run=server --validate=true
    run --separate-stderr -1 nodus apply -f t2.yaml --validate
    run -3 nodus get job t2
}

@test "--validate=warn: created with a warning per unknown field; ignore (or false): silently" {
    typo_yaml t3 >t3.yaml
    run --separate-stderr -0 nodus apply -f t3.yaml --validate=warn
    assert_output "job.nodus.dev/t3 created"
    [ "$stderr" = 'Warning: unknown field "spec.resourcse"
Warning: unknown field "spec.maxDuratoin"' ]
    # the unknown fields were dropped: no GPU
    run -0 nodus get job t3 -o jsonpath='{.spec.resources}'
    assert_output ""
    typo_yaml t4 >t4.yaml
    run --separate-stderr -0 nodus create -f t4.yaml --validate=ignore
    assert_output "job.nodus.dev/t4 created"
    [ -z "$stderr" ]
    typo_yaml t5 >t5.yaml
    run --separate-stderr -0 nodus create -f t5.yaml --validate=false
    [ -z "$stderr" ]
}

@test "diff, as kubectl diff, asks for no validation: the server warns about each unknown field" {
    typo_yaml t7 >t7.yaml
    run --separate-stderr -1 nodus diff -f t7.yaml
    [[ "$output" == *"+  name: t7"* ]]
    [ "$stderr" = 'Warning: unknown field "spec.resourcse"
Warning: unknown field "spec.maxDuratoin"' ]
    run -3 nodus get job t7
}

@test "--validate with another value is a usage error (exit 2), before anything is sent" {
    typo_yaml t6 >t6.yaml
    run --separate-stderr -2 nodus apply -f t6.yaml --validate=loose
    [ "${stderr_lines[0]}" = 'error: invalid - validate option "loose"; must be one of: strict (or true), warn, ignore (or false)' ]
    run -3 nodus get job t6
}

@test "replace and patch: strict by default; warn lets them through" {
    job_yaml r1 >r1.yaml
    run -0 nodus create -f r1.yaml
    { job_yaml r1; echo '  bogus: 1'; } >r1b.yaml
    run --separate-stderr -1 nodus replace -f r1b.yaml
    [ "${stderr_lines[0]}" = 'The Job "r1" is invalid: r1b.yaml:13: unknown field "spec.bogus"' ]
    run --separate-stderr -0 nodus replace -f r1b.yaml --validate=warn
    [ "$stderr" = 'Warning: unknown field "spec.bogus"' ]
    run --separate-stderr -1 nodus patch job r1 -p '{"spec":{"bogus":1}}'
    [ "${stderr_lines[0]}" = 'The Job "r1" is invalid: spec.bogus: unknown field "spec.bogus"' ]
    run --separate-stderr -0 nodus patch job r1 -p '{"spec":{"bogus":1}}' --validate=ignore
    [ -z "$stderr" ]
}

@test "edit: strict by default, the file reopens with the unknown field named" {
    job_yaml e1 >e1.yaml
    run -0 nodus create -f e1.yaml
    cat >ed.sh <<'SH'
#!/bin/sh
cp "$1" "$(dirname "$0")/seen.$(ls "$(dirname "$0")" | grep -c '^seen\.')"
grep -q bogus "$1" || sed -i 's/^spec:$/spec:\n  bogus: 1/' "$1"
SH
    chmod +x ed.sh
    NODUS_EDITOR=$PWD/ed.sh run --separate-stderr -1 nodus edit job e1
    run -0 grep -F '# * spec.bogus: unknown field "spec.bogus"' seen.1
    run -0 nodus get job e1 -o yaml
    refute_output --partial bogus
}

@test "the line is found in a multi-document file, a List and JSON" {
    {
        job_yaml m1
        echo ---
        printf '%s\n' 'apiVersion: v1' 'kind: List' 'items:' '- apiVersion: nodus.dev/v1' \
            '  kind: Job' '  metadata: {name: m2}' '  spec:' \
            '    image: nodus/pytorch:2.8-cuda12.8' '    maxCostUSD: "1.00"' \
            '    env:' '    - {name: A, value: b, valeu: c}'
    } >m.yaml
    run --separate-stderr -1 nodus apply -f m.yaml
    assert_output "job.nodus.dev/m1 created"
    [ "${stderr_lines[0]}" = 'The Job "m2" is invalid: m.yaml:24: unknown field "spec.env[0].valeu" (did you mean "value"?)' ]
    printf '%s\n' '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"js"},' \
        '"spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"1.00","foo":1}}' >j.json
    run --separate-stderr -1 nodus create -f j.json
    [ "${stderr_lines[0]}" = 'The Job "js" is invalid: j.json:1: unknown field "spec.foo"' ]
}

@test "400 objects to a missing project: one error, its fix once, then a count (exit 3)" {
    local i
    for i in $(seq 1 400); do
        printf 'apiVersion: nodus.dev/v1\nkind: Job\nmetadata: {name: b%d}\nspec: {image: nodus/pytorch:2.8-cuda12.8, maxCostUSD: "1.00"}\n---\n' "$i"
    done >big.yaml
    run --separate-stderr -3 nodus apply -f big.yaml -n ghost
    assert_output ""
    [ "${#stderr_lines[@]}" = 5 ]
    [ "${stderr_lines[0]}" = 'Error from server (NotFound): namespaces "ghost" not found' ]
    [ "${stderr_lines[1]}" = 'fix: create it: nodus create project ghost' ]
    [[ "${stderr_lines[2]}" == "docs: "* ]]
    [[ "${stderr_lines[3]}" == "requestId: req_"* ]]
    [ "${stderr_lines[4]}" = 'error: 399 more objects failed the same way (Error from server (NotFound): namespaces "ghost" not found): job/b2, job/b3, job/b4 and 396 more' ]
    run --separate-stderr -3 nodus create -f big.yaml -n ghost
    [ "${#stderr_lines[@]}" = 5 ]
    [ "${stderr_lines[0]}" = 'Error from server (NotFound): error when creating "big.yaml": namespaces "ghost" not found' ]
    # errors that differ are each printed: two objects that exist with another spec
    job_yaml d1 >d.yaml
    echo --- >>d.yaml
    job_yaml d2 >>d.yaml
    run -0 nodus create -f d.yaml
    sed -i 's/40.00/41.00/' d.yaml
    run --separate-stderr -4 nodus create -f d.yaml
    [ "$(grep -c '^Error from server (AlreadyExists)' <<<"$stderr")" = 2 ]
    refute_output --partial "more object"
}
