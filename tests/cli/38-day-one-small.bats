#!/usr/bin/env bats
# Small things a kubectl user met on day one (issue 20): request checks its action, in
# the CLI and in the API; patch -p reports bad JSON as such and offers only the patch
# types the server takes; edit names what is wrong and honours KUBE_EDITOR; the manual
# documents only the flags apply has.

load ../lib/common
load fixtures/write

bats_require_minimum_version 1.5.0

setup_file() {
    write_setup_file --no-simulation
    emu POST "$API/sandboxes" '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"dev"},
        "spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"5.00"}}'
    emu POST "$API/jobs" "$(job_yaml j1)" application/yaml
}

teardown_file() {
    stop_emulator
}

setup() {
    cd "$BATS_TEST_TMPDIR"
    export TMPDIR=$BATS_TEST_TMPDIR/tmp
    mkdir -p "$TMPDIR"
}

annotations() {
    curl -sf "$(emu_url)$API/$1" | jq -c '.metadata.annotations // {}'
}

@test "request: an action the kind does not take is a usage error naming the ones it does" {
    run --separate-stderr -2 nodus request frobnicate sandbox/dev
    assert_output ""
    assert_equal "$stderr" "error: unknown action \"frobnicate\" for sandbox.nodus.dev: it takes: restart
See 'nodus request --help' for usage."
    run --separate-stderr -2 nodus request restat sandbox/dev
    assert_equal "${stderr_lines[0]}" 'error: unknown action "restat" for sandbox.nodus.dev: did you mean restart? (it takes: restart)'
    run --separate-stderr -2 nodus request restart job/j1
    assert_equal "${stderr_lines[0]}" 'error: job.nodus.dev takes no requests; the requests there are: restart on sandboxes, restart on functions'
    # nothing was written
    run -0 annotations sandboxes/dev
    assert_output "{}"
    run -0 annotations jobs/j1
    assert_output "{}"
    # the action it takes still works
    run -0 nodus request restart sandbox/dev --dry-run=server
    assert_output "sandbox.nodus.dev/dev restart requested (server dry run)"
}

@test "request: the API refuses a request annotation the kind does not act on (422)" {
    local body
    body=$(curl -s -X PATCH -H 'Content-Type: application/merge-patch+json' "$(emu_url)$API/sandboxes/dev" \
        -d '{"metadata":{"annotations":{"nodus.dev/frobnicate-requested-at":"2026-01-01T00:00:00Z"}}}')
    run -0 jq -c '[.code, .reason, .details.causes, .fix]' <<<"$body"
    assert_output '[422,"Invalid",[{"reason":"FieldValueNotSupported","message":"Unsupported value: \"frobnicate\": supported values: \"restart\"","field":"metadata.annotations[nodus.dev/frobnicate-requested-at]"}],"ask for an action a Sandbox takes: nodus request restart sandbox/dev"]'
    body=$(curl -s -X PATCH -H 'Content-Type: application/merge-patch+json' "$(emu_url)$API/jobs/j1" \
        -d '{"metadata":{"annotations":{"nodus.dev/restart-requested-at":"2026-01-01T00:00:00Z"}}}')
    run -0 jq -r '[.code, .reason, .message] | join(" ")' <<<"$body"
    assert_output '422 Invalid Job.nodus.dev "j1" is invalid: metadata.annotations[nodus.dev/restart-requested-at]: Forbidden: a Job takes no requests (restart)'
    # at create too
    body=$(curl -s -X POST -H 'Content-Type: application/json' "$(emu_url)$API/jobs" \
        -d "$(job_json j2 | jq -c '.metadata.annotations = {"nodus.dev/stop-requested-at": "x"}')")
    run -0 jq -r '[.code, .reason] | join(" ")' <<<"$body"
    assert_output '422 Invalid'
    run -0 annotations sandboxes/dev
    assert_output "{}"
}

@test "patch -p: text that is not JSON is a usage error at its line and column, with a fix" {
    run --separate-stderr -2 nodus patch job j1 -p '{"spec":{"maxCostUSD":"50.00"}'
    assert_output ""
    assert_equal "$stderr" "error: --patch is not valid JSON: line 1, column 30: '}' expected near end of file
fix: a merge patch is a JSON object, for example: -p '{\"spec\":{\"state\":\"Suspended\"}}'"
    # a scalar is no patch: said so before anything is sent (it was a 415 from the server)
    run --separate-stderr -2 nodus patch job j1 -p 'spec.maxCostUSD=50.00'
    assert_equal "${stderr_lines[0]}" "error: --patch is not valid JSON: line 1, column 4: invalid token near 'spec'"
    printf '{"a": 1}\n' >p.json
    run --separate-stderr -2 nodus patch job j1 --type json --patch-file p.json
    assert_equal "$stderr" "error: p.json is not a JSON patch: it holds a JSON object
fix: a JSON patch is a JSON array of operations, for example: -p '[{\"op\":\"replace\",\"path\":\"/spec/state\",\"value\":\"Suspended\"}]'"
    # YAML still works, and so does JSON
    run -0 nodus patch job j1 -p '{metadata: {labels: {by: yaml}}}'
    run -0 nodus patch job j1 -p '{"metadata":{"labels":{"by":"json"}}}'
    run -0 nodus get job j1 -o jsonpath='{.metadata.labels.by}'
    assert_output "json"
}

@test "patch --type: strategic is refused with the reason for a nodus kind, and offered for projects" {
    run --separate-stderr -2 nodus patch job j1 --type strategic -p '{}'
    assert_equal "${stderr_lines[0]}" "error: --type strategic: jobs.nodus.dev take no strategic merge patch (as custom resources; only projects do); use --type merge, the default"
    run --separate-stderr -2 nodus patch job j1 --type bogus -p '{}'
    assert_equal "${stderr_lines[0]}" 'error: --type must be merge, json or strategic, not "bogus"'
    run -0 nodus __complete patch job j1 --type ''
    assert_line strategic
    assert_line merge
    run -0 nodus patch --help
    assert_output --partial "strategic (projects only)"
}

# An editor script: counts its runs in $EDITS, keeps what it was shown in shown.N, and on
# its first run applies the sed program $SED to the object's lines (not the comments).
write_editor() {
    cat >editor.sh <<'SH'
#!/bin/sh
echo run >>"$EDITS"
n=$(wc -l <"$EDITS" | tr -d ' ')
cp "$1" "shown.$n"
[ "$n" = 1 ] && sed -i "/^#/!{$SED}" "$1"
exit 0
SH
    chmod +x editor.sh
    export EDITS=$PWD/edits
    rm -f "$EDITS"
}

@test "edit: the reopened file's comment names the field a misspelling stands for, and that it is required" {
    write_editor
    # the server keeps metadata.name from the object it has: it only says "unknown field"
    SED='s/^  name: j1$/  nmae: j1/' NODUS_EDITOR=$PWD/editor.sh run --separate-stderr -1 nodus edit job j1
    [ "$(wc -l <edits)" = 2 ]
    run -0 sed -n '5,7p' shown.2
    assert_output '# jobs.nodus.dev "j1" was not valid:
# * metadata.nmae: unknown field "metadata.nmae" (did you mean "name"? metadata.name is required)
#'
    write_editor
    SED='s/^      count:/      cuont:/; s/^  command:/  comand:/' NODUS_EDITOR=$PWD/editor.sh \
        run --separate-stderr -1 nodus edit job j1
    run -0 grep '^# \*' shown.2
    assert_output '# * spec.resources.gpu.count: Required value
# * spec.resources.gpu.cuont: unknown field "spec.resources.gpu.cuont" (did you mean "count"? spec.resources.gpu.count is required)
# * spec.comand: unknown field "spec.comand" (did you mean "command"?)'
}

@test "edit: KUBE_EDITOR is honoured as by kubectl: after NODUS_EDITOR, before EDITOR" {
    write_editor
    SED='s/^  maxCostUSD: .*/  maxCostUSD: "45.00"/' KUBE_EDITOR=$PWD/editor.sh EDITOR=false \
        run --separate-stderr -0 nodus edit job j1
    assert_output "job.nodus.dev/j1 edited"
    [ "$(wc -l <edits)" = 1 ]
    write_editor
    SED='s/^  maxCostUSD: .*/  maxCostUSD: "46.00"/' NODUS_EDITOR=$PWD/editor.sh KUBE_EDITOR=false \
        EDITOR=false run --separate-stderr -0 nodus edit job j1
    assert_output "job.nodus.dev/j1 edited"
    run -0 nodus get job j1 -o jsonpath='{.spec.maxCostUSD}'
    assert_output "46.00"
    KUBE_EDITOR=false EDITOR=$PWD/editor.sh run --separate-stderr -2 nodus edit job j1
    assert_equal "${stderr_lines[1]}" "error: the editor failed or could not be started"
    assert_equal "${stderr_lines[2]}" "fix: set NODUS_EDITOR, KUBE_EDITOR or EDITOR to your editor"
}

@test "apply: the manual and the errors speak only of flags apply has (no --wait, no -k)" {
    run --separate-stderr -2 nodus apply
    assert_equal "$stderr" "error: must specify -f with a file, a directory or - (standard input)
fix: for example: -f job.yaml"
    run --separate-stderr -2 nodus apply -k .
    assert_equal "${stderr_lines[0]}" "error: unknown shorthand flag: 'k' in -k"
    run --separate-stderr -2 nodus apply -f x.yaml --wait
    assert_equal "${stderr_lines[0]}" "error: unknown flag: --wait"
    # no page documents them
    run -1 grep -l -e 'apply \\-\\-wait' -e 'apply --wait' -e '\\-k\b' "$ND_ROOT"/man/*.1
    run -0 nodus apply --help
    refute_output --regexp '(^| |\[)-k[ ,|]'
    refute_output --partial -- "--wait"
}
