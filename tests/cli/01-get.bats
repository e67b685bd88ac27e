#!/usr/bin/env bats
# nodus get against the emulator: every output format with its exact text, selectors,
# paging, several kinds, names, errors and exit codes, colours.
#
# The objects are made once with curl in setup_file, then the emulator's clock jumps 10
# hours, so every AGE cell of them reads "10h" (until an hour of real time passes) and
# tables can be compared whole. Jobs are Suspended: they stay Queued whatever the
# simulation does.

load ../lib/common
load ../lib/columns

bats_require_minimum_version 1.5.0

project() {
    post_created /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$1\"}}"
}

# job NAME PROJECT LABELS(json) COST [GPU(json)]: a Suspended Job.
job() {
    local name=$1 ns=$2 labels=$3 cost=$4 gpu=${5:-null}
    post_created "/apis/nodus.dev/v1/namespaces/$ns/jobs" "$(jq -cn --arg n "$name" \
        --argjson l "$labels" --arg c "$cost" --argjson g "$gpu" \
        '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:{name:$n,labels:$l},
          spec:({image:"nodus/pytorch:2.8-cuda12.8",command:["python","train.py"],
                 maxCostUSD:$c,state:"Suspended"}
                + (if $g then {resources:{gpu:$g}} else {} end))}')"
}

# The kubeconfig as `nodus config` writes it (sorted keys), with a token.
write_config() {
    mkdir -p "$HOME/.nodus"
    cat >"$HOME/.nodus/config" <<EOF
apiVersion: v1
clusters:
- cluster:
    server: $EMU_URL
  name: emulator
contexts:
- context:
    cluster: emulator
    namespace: default
    user: emulator
  name: emulator
current-context: emulator
kind: Config
preferences: {}
users:
- name: emulator
  user:
    token: cli-test-token
EOF
}

setup_file() {
    start_emulator --no-simulation # these tests show states written as fixtures
    export HOME=$BATS_FILE_TMPDIR/home
    write_config
    job train-a default '{"app":"trainer","tier":"gold"}' 15.00 '{"model":"H100","count":1}'
    job eval-b default '{"app":"trainer","tier":"silver"}' 40.00 '{"model":"L4","count":2}'
    job prep-c default '{"app":"prep"}' 30.00
    post_created /apis/nodus.dev/v1/namespaces/default/sandboxes \
        '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"dev"},
          "spec":{"image":"nodus/pytorch:2.8-cuda12.8","state":"Stopped","maxCostUSD":"10.00",
                  "resources":{"gpu":{"model":"L4","count":1}}}}'
    project team
    job team-d team '{"app":"trainer"}' 25.00
    project chunk
    local i
    for i in 3 5 1 4 2; do job "c-$i" chunk '{"app":"chunk"}' "$i.00"; done
    project empty
    # phases set as Nodus would (the status subresource), for the colours
    project colour
    local p
    for p in Running Failed Queued Cancelled; do
        job "$(tr 'A-Z' 'a-z' <<<"$p")" colour '{}' 1.00
        curl -sS -f -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
            --data-binary "{\"status\":{\"phase\":\"$p\"}}" \
            "$EMU_URL/apis/nodus.dev/v1/namespaces/colour/jobs/$(tr 'A-Z' 'a-z' <<<"$p")/status"
    done
    curl -sS -f -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"advance":"10h"}' "$EMU_URL/emulator/v1/clock"
}

teardown_file() {
    stop_emulator
}

setup() {
    unset NODUS_SERVER NODUS_TOKEN NODUS_CONFIG KUBECONFIG NO_COLOR NODUS_TRACE
    export HOME=$BATS_FILE_TMPDIR/home
}

teardown() {
    [ -n "${BATS_TEST_COMPLETED:-}" ] && return 0
    echo "--- stdout:"
    printf '%s\n' "${output:-}"
    echo "--- stderr:"
    printf '%s\n' "${stderr:-}"
}

# The sandbox's phase (its lifecycle belongs to the emulator), padded as its column is.
sbx_phase() {
    curl -sS "$EMU_URL/apis/nodus.dev/v1/namespaces/default/sandboxes/dev" | jq -r .status.phase
}

# The real kubectl 1.33 with this file's configuration, or a skip saying why.
kubectl133() {
    local path
    path=$(command -v kubectl 2>/dev/null) || skip "kubectl is not installed on this machine"
    KC=$(dirname "$(readlink -f "$path")")/kubectl.1.33
    [ -x "$KC" ] || skip "kubectl 1.33 is not installed beside $path"
}

kc() {
    "$KC" --kubeconfig "$HOME/.nodus/config" --cache-dir "$BATS_FILE_TMPDIR/kcache" "$@"
}

requests_served() {
    curl -sS "$EMU_URL/emulator/v1/stats" | jq -r .requests
}

@test "get: the kind's table, exact header and cells" {
    run -0 --separate-stderr nodus get jobs
    assert_output - <<'EOF'
NAME      STATE       PHASE    GPU      COST   AGE
eval-b    Suspended   Queued   2xL4     -      10h
prep-c    Suspended   Queued   -        -      10h
train-a   Suspended   Queued   1xH100   -      10h
EOF
    assert_equal "$stderr" ""
}

@test "get -o wide: the priority-1 columns too" {
    run -0 --separate-stderr nodus get jobs -o wide
    # every column of the kind (pkg/kinds/kinds.c), wide ones too; the cells of those below
    assert_line --index 0 --regexp "^$(kind_columns Job wide | sed 's/ /  +/g')\$"
    output=$(table_select NAME STATE PHASE GPU COST AGE PLACEMENT RATE MAX-COST IMAGE <<<"$output")
    assert_output - <<'EOF'
NAME      STATE       PHASE    GPU      COST   AGE   PLACEMENT   RATE   MAX-COST   IMAGE
eval-b    Suspended   Queued   2xL4     -      10h   <none>      -      $40.00     nodus/pytorch:2.8-cuda12.8
prep-c    Suspended   Queued   -        -      10h   <none>      -      $30.00     nodus/pytorch:2.8-cuda12.8
train-a   Suspended   Queued   1xH100   -      10h   <none>      -      $15.00     nodus/pytorch:2.8-cuda12.8
EOF
    assert_equal "$stderr" ""
}

@test "get -o json: one object alone, several as a v1 List, keys sorted" {
    run -0 --separate-stderr nodus get job train-a -o json
    jq -e '.kind == "Job" and .metadata.name == "train-a" and .spec.maxCostUSD == "15.00"
           and .spec.resources.gpu == {"count": 1, "model": "H100"}
           and .metadata.labels.tier == "gold" and (.metadata | has("managedFields") | not)' \
        <<<"$output"
    # keys sorted at every level, 4-space indent, as kubectl
    assert_equal "$(jq -S --indent 4 . <<<"$output")" "$output"
    run -0 --separate-stderr nodus get jobs -o json
    jq -e '.apiVersion == "v1" and .kind == "List" and .metadata == {"resourceVersion": ""}
           and [.items[].metadata.name] == ["eval-b", "prep-c", "train-a"]' <<<"$output"
    assert_equal "$(jq -S --indent 4 . <<<"$output")" "$output"
    assert_equal "$stderr" ""
}

@test "get -o json and -o yaml: the same bytes as kubectl 1.33" {
    kubectl133
    local what
    for what in "jobs" "job train-a" "jobs,sandboxes" "jobs -A"; do
        # shellcheck disable=SC2086
        run -0 nodus get $what -o json
        local ours=$output
        # shellcheck disable=SC2086
        run -0 kc get $what -o json
        assert_equal "$ours" "$output"
        # shellcheck disable=SC2086
        run -0 nodus get $what -o yaml
        ours=$output
        # shellcheck disable=SC2086
        run -0 kc get $what -o yaml
        assert_equal "$ours" "$output"
    done
}

@test "get -o yaml: one object, and a List" {
    run -0 --separate-stderr nodus get job prep-c -o yaml
    assert_line --index 0 "apiVersion: nodus.dev/v1"
    assert_line --index 1 "kind: Job"
    assert_line --index 2 "metadata:"
    assert_line "  name: prep-c"
    assert_line '  maxCostUSD: "30.00"'
    assert_line "  state: Suspended"
    refute_line --partial "managedFields"
    run -0 --separate-stderr nodus get jobs -l app=prep -o yaml
    assert_line --index 0 "apiVersion: v1"
    assert_line --index 1 "items:"
    assert_line --index 2 "- apiVersion: nodus.dev/v1"
    assert_line "    name: prep-c"
    assert_line "kind: List"
    assert_line '  resourceVersion: ""'
}

@test "get -o name, jsonpath=, jsonpath-file=" {
    run -0 --separate-stderr nodus get jobs -o name
    assert_output - <<'EOF'
job.nodus.dev/eval-b
job.nodus.dev/prep-c
job.nodus.dev/train-a
EOF
    run -0 --separate-stderr nodus get jobs -o 'jsonpath={.items[*].metadata.name}'
    assert_output "eval-b prep-c train-a"
    run -0 --separate-stderr nodus get job train-a -o 'jsonpath={.spec.resources.gpu.model}'
    assert_output "H100"
    printf '{range .items[*]}{.metadata.name}={.spec.maxCostUSD}\n{end}' >"$BATS_TEST_TMPDIR/t"
    run -0 --separate-stderr nodus get jobs -o "jsonpath-file=$BATS_TEST_TMPDIR/t"
    assert_output - <<'EOF'
eval-b=40.00
prep-c=30.00
train-a=15.00
EOF
    assert_equal "$stderr" ""
}

@test "get -o custom-columns= and custom-columns-file=" {
    run -0 --separate-stderr nodus get jobs \
        -o 'custom-columns=NAME:.metadata.name,MODEL:.spec.resources.gpu.model,COST:.spec.maxCostUSD'
    assert_output - <<'EOF'
NAME      MODEL    COST
eval-b    L4       40.00
prep-c    <none>   30.00
train-a   H100     15.00
EOF
    printf 'JOB          TIER\nmetadata.name metadata.labels.tier\n' >"$BATS_TEST_TMPDIR/cc"
    run -0 --separate-stderr nodus get jobs -l app=trainer \
        -o "custom-columns-file=$BATS_TEST_TMPDIR/cc"
    assert_output - <<'EOF'
JOB       TIER
eval-b    silver
train-a   gold
EOF
    assert_equal "$stderr" ""
}

@test "get --sort-by: tables and lists in the order of a field" {
    run -0 --separate-stderr nodus get jobs --sort-by=.spec.maxCostUSD
    assert_output - <<'EOF'
NAME      STATE       PHASE    GPU      COST   AGE
train-a   Suspended   Queued   1xH100   -      10h
prep-c    Suspended   Queued   -        -      10h
eval-b    Suspended   Queued   2xL4     -      10h
EOF
    run -0 --separate-stderr nodus get jobs -n chunk --sort-by '{.spec.maxCostUSD}' -o name
    assert_output - <<'EOF'
job.nodus.dev/c-1
job.nodus.dev/c-2
job.nodus.dev/c-3
job.nodus.dev/c-4
job.nodus.dev/c-5
EOF
    # a field no object has: kubectl's message, on this side (not "from server")
    run -1 --separate-stderr nodus get jobs --sort-by=.spec.nope -o name
    assert_output ""
    assert_equal "$stderr" 'error: couldn'\''t find any field with path "{.spec.nope}" in the list of objects'
}

@test "get --show-labels, -L, --no-headers, --show-kind" {
    run -0 --separate-stderr nodus get jobs -l app=trainer --show-labels
    assert_output - <<'EOF'
NAME      STATE       PHASE    GPU      COST   AGE   LABELS
eval-b    Suspended   Queued   2xL4     -      10h   app=trainer,nodus.dev/created-by=emulator-user,nodus.dev/launched-by=api,tier=silver
train-a   Suspended   Queued   1xH100   -      10h   app=trainer,nodus.dev/created-by=emulator-user,nodus.dev/launched-by=api,tier=gold
EOF
    run -0 --separate-stderr nodus get jobs -L app -L tier
    assert_output - <<'EOF'
NAME      STATE       PHASE    GPU      COST   AGE   APP       TIER
eval-b    Suspended   Queued   2xL4     -      10h   trainer   silver
prep-c    Suspended   Queued   -        -      10h   prep      
train-a   Suspended   Queued   1xH100   -      10h   trainer   gold
EOF
    run -0 --separate-stderr nodus get jobs -L app,tier
    assert_line --index 0 "NAME      STATE       PHASE    GPU      COST   AGE   APP       TIER"
    # without the header, columns are as wide as their cells (kubectl's tabwriter)
    run -0 --separate-stderr nodus get jobs --no-headers
    assert_output - <<'EOF'
eval-b    Suspended   Queued   2xL4     -     10h
prep-c    Suspended   Queued   -        -     10h
train-a   Suspended   Queued   1xH100   -     10h
EOF
    run -0 --separate-stderr nodus get jobs --show-kind -l tier=gold
    assert_output - <<'EOF'
NAME                    STATE       PHASE    GPU      COST   AGE
job.nodus.dev/train-a   Suspended   Queued   1xH100   -      10h
EOF
    run -0 --separate-stderr nodus get jobs --show-kind --no-headers -l tier=gold
    assert_output "job.nodus.dev/train-a   Suspended   Queued   1xH100   -     10h"
    assert_equal "$stderr" ""
}

@test "get --chunk-size 2: every object, listed three pages at a time" {
    local before after
    before=$(requests_served)
    run -0 --separate-stderr nodus get jobs -n chunk --chunk-size 2 -o name
    after=$(requests_served)
    assert_output - <<'EOF'
job.nodus.dev/c-1
job.nodus.dev/c-2
job.nodus.dev/c-3
job.nodus.dev/c-4
job.nodus.dev/c-5
EOF
    # three list requests (2 + 2 + 1) between the two stats requests
    assert_equal "$((after - before - 1))" 3
    run -0 --separate-stderr nodus get jobs -n chunk --chunk-size 2 -v 6
    assert_output - <<'EOF'
NAME   STATE       PHASE    GPU   COST   AGE
c-1    Suspended   Queued   -     -      10h
c-2    Suspended   Queued   -     -      10h
c-3    Suspended   Queued   -     -      10h
c-4    Suspended   Queued   -     -      10h
c-5    Suspended   Queued   -     -      10h
EOF
    run -0 grep -c ' GET .*/namespaces/chunk/jobs?limit=2' <<<"$stderr"
    assert_output 3
    run -0 grep -c 'limit=2&continue=' <<<"$stderr"
    assert_output 2
}

@test "get jobs,sandboxes: one table per kind, names with their kind" {
    local phase w
    phase=$(sbx_phase)
    w=$(( ${#phase} > 5 ? ${#phase} + 3 : 8 ))
    run -0 --separate-stderr nodus get jobs,sandboxes
    assert_output - <<EOF
NAME                    STATE       PHASE    GPU      COST   AGE
job.nodus.dev/eval-b    Suspended   Queued   2xL4     -      10h
job.nodus.dev/prep-c    Suspended   Queued   -        -      10h
job.nodus.dev/train-a   Suspended   Queued   1xH100   -      10h

NAME                    STATE     $(printf '%-*s' "$w" PHASE)GPU    COST   AGE
sandbox.nodus.dev/dev   Stopped   $(printf '%-*s' "$w" "$phase")1xL4   -      10h
EOF
    assert_equal "$stderr" ""
    run -0 --separate-stderr nodus get sbx,nj -o name
    assert_output - <<'EOF'
sandbox.nodus.dev/dev
job.nodus.dev/eval-b
job.nodus.dev/prep-c
job.nodus.dev/train-a
EOF
}

@test "get KIND/NAME pairs and KIND NAME...: grouped by kind, in the order asked" {
    run -0 --separate-stderr nodus get job/train-a sandbox/dev nj/eval-b -o name
    assert_output - <<'EOF'
job.nodus.dev/train-a
job.nodus.dev/eval-b
sandbox.nodus.dev/dev
EOF
    run -0 --separate-stderr nodus get job prep-c train-a
    assert_output - <<'EOF'
NAME      STATE       PHASE    GPU      COST   AGE
prep-c    Suspended   Queued   -        -      10h
train-a   Suspended   Queued   1xH100   -      10h
EOF
    assert_equal "$stderr" ""
}

@test "get all: the kinds of the category, each with its kind" {
    run -0 --separate-stderr nodus get all -n team
    assert_output - <<'EOF'
NAME                   STATE       PHASE    GPU   COST   AGE
job.nodus.dev/team-d   Suspended   Queued   -     -      10h
EOF
    run -0 --separate-stderr nodus get all -o name
    assert_output - <<'EOF'
job.nodus.dev/eval-b
job.nodus.dev/prep-c
job.nodus.dev/train-a
sandbox.nodus.dev/dev
EOF
    assert_equal "$stderr" ""
}

@test "get: short names, singular, Kind, kind.group and kind.version.group" {
    local k
    for k in jobs job nj Job jobs.nodus.dev job.nodus.dev jobs.v1.nodus.dev; do
        run -0 --separate-stderr nodus get "$k" -o name -l tier=gold
        assert_output "job.nodus.dev/train-a"
    done
    run -0 --separate-stderr nodus get sbx/dev sandbox.nodus.dev/dev -o name
    assert_output - <<'EOF'
sandbox.nodus.dev/dev
sandbox.nodus.dev/dev
EOF
}

@test "get -A: a NAMESPACE column, objects of every project" {
    run -0 --separate-stderr nodus get jobs -A -l app=trainer
    assert_output - <<'EOF'
NAMESPACE   NAME      STATE       PHASE    GPU      COST   AGE
default     eval-b    Suspended   Queued   2xL4     -      10h
default     train-a   Suspended   Queued   1xH100   -      10h
team        team-d    Suspended   Queued   -        -      10h
EOF
    run -0 --separate-stderr nodus get jobs --all-namespaces -l app=trainer -o wide --no-headers
    # the columns up to IMAGE (Job's of pkg/kinds/kinds.c: update this when a column is
    # inserted before IMAGE there); one appended after it only adds to the line
    assert_line --index 2 --regexp "^team      team-d    Suspended   Queued   -        -     10h   <none>   -     \\\$25.00   nodus/pytorch:2.8-cuda12.8( |\$)"
    assert_equal "$stderr" ""
}

@test "get -l and --field-selector: what the server selects" {
    run -0 --separate-stderr nodus get jobs -l 'app in (prep,nothing)' -o name
    assert_output "job.nodus.dev/prep-c"
    run -0 --separate-stderr nodus get jobs -l 'app=trainer,tier!=gold' -o name
    assert_output "job.nodus.dev/eval-b"
    run -0 --separate-stderr nodus get jobs -l '!tier' -o name
    assert_output "job.nodus.dev/prep-c"
    run -0 --separate-stderr nodus get jobs --field-selector metadata.name=eval-b
    assert_output - <<'EOF'
NAME     STATE       PHASE    GPU    COST   AGE
eval-b   Suspended   Queued   2xL4   -      10h
EOF
    run -0 --separate-stderr nodus get jobs --field-selector 'spec.state=Suspended,metadata.name!=eval-b' -o name
    assert_output - <<'EOF'
job.nodus.dev/prep-c
job.nodus.dev/train-a
EOF
    assert_equal "$stderr" ""
}

@test "get --raw: the answer as it comes" {
    run -0 --separate-stderr nodus get --raw /version
    assert_equal "$output" "$(curl -sS "$EMU_URL/version")"
    jq -e '.major == "1" and .minor == "33"' <<<"$output"
    run -0 --separate-stderr nodus get --raw /apis/nodus.dev/v1/namespaces/team/jobs/team-d
    jq -e '.metadata.name == "team-d"' <<<"$output"
    run -3 --separate-stderr nodus get --raw /nope
    assert_output ""
    assert_equal "$(sed -n 1p <<<"$stderr")" "Error from server (NotFound): the server could not find the requested resource"
}

@test "get: empty results say so on stderr only" {
    run -0 --separate-stderr nodus get jobs -n empty
    assert_output ""
    assert_equal "$stderr" "No resources found in empty namespace."
    run -0 --separate-stderr nodus get jobs -A -l app=nothing
    assert_output ""
    assert_equal "$stderr" "No resources found"
    # kubectl names the project even for a kind without one
    run -0 --separate-stderr nodus get hosts
    assert_output ""
    assert_equal "$stderr" "No resources found in default namespace."
    run -0 --separate-stderr nodus get all -n empty
    assert_equal "$stderr" "No resources found in empty namespace."
    # other formats print what kubectl does: an empty List, nothing for names
    run -0 --separate-stderr nodus get jobs -n empty -o name
    assert_output ""
    assert_equal "$stderr" ""
    run -0 --separate-stderr nodus get jobs -n empty -o json
    assert_output - <<'EOF'
{
    "apiVersion": "v1",
    "items": [],
    "kind": "List",
    "metadata": {
        "resourceVersion": ""
    }
}
EOF
    assert_equal "$stderr" ""
}

@test "get: not found exits 3 with the server's Status, nothing on stdout" {
    run -3 --separate-stderr nodus get job nope -o json
    assert_output ""
    assert_equal "$(sed -n 1p <<<"$stderr")" 'Error from server (NotFound): jobs.nodus.dev "nope" not found'
    assert_equal "$(sed -n 2p <<<"$stderr")" "fix: list what exists: nodus get jobs -n default"
    assert_equal "$(sed -n 3p <<<"$stderr")" "docs: $EMU_URL/docs/reference/errors/#notfound"
    [[ "$(sed -n 4p <<<"$stderr")" =~ ^requestId:\ req_[0-9a-z]{26}$ ]]
    assert_equal "$(wc -l <<<"$stderr")" 4
    # the others are still printed; the exit code is the error's
    run -3 --separate-stderr nodus get job nope train-a -o name
    assert_output "job.nodus.dev/train-a"
    assert_equal "$(sed -n 1p <<<"$stderr")" 'Error from server (NotFound): jobs.nodus.dev "nope" not found'
    run -0 --separate-stderr nodus get job nope --ignore-not-found
    assert_output ""
    assert_equal "$stderr" ""
    run -0 --separate-stderr nodus get job nope --ignore-not-found -o json
    assert_output ""
    assert_equal "$stderr" ""
    # several names, none found: the empty List and every error (kubectl)
    run -3 --separate-stderr nodus get job nope1 nope2 -o name
    assert_output ""
    assert_equal "$(grep -c '^Error from server (NotFound)' <<<"$stderr")" 2
    run -0 --separate-stderr nodus get job/nope job/train-a --ignore-not-found -o name
    assert_output "job.nodus.dev/train-a"
    assert_equal "$stderr" ""
}

@test "get: an unknown kind or malformed names exit 2" {
    run -2 --separate-stderr nodus get frobs
    assert_output ""
    assert_equal "$stderr" 'error: the server doesn'\''t have a resource type "frobs"
fix: list the kinds: nodus api-resources'
    run -2 --separate-stderr nodus get jobs,frobs
    assert_equal "$(sed -n 1p <<<"$stderr")" 'error: the server doesn'\''t have a resource type "frobs"'
    run -2 --separate-stderr nodus get frob/x
    assert_equal "$(sed -n 1p <<<"$stderr")" 'error: the server doesn'\''t have a resource type "frob"'
    run -2 --separate-stderr nodus get ,
    assert_equal "$(sed -n 1p <<<"$stderr")" 'error: the server doesn'\''t have a resource type ""'
    run -2 --separate-stderr nodus get job/
    assert_equal "$stderr" "error: arguments in resource/name form must have a single resource and name"
    run -2 --separate-stderr nodus get /x
    assert_equal "$stderr" "error: arguments in resource/name form must have a single resource and name"
    run -2 --separate-stderr nodus get job/a/status
    assert_equal "$stderr" "error: arguments in resource/name form may not have more than one slash"
    run -2 --separate-stderr nodus get job job/train-a
    assert_equal "$(sed -n 1p <<<"$stderr")" "error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'nodus get resource/<resource_name>' instead of 'nodus get resource resource/<resource_name>'"
    run -2 --separate-stderr nodus get
    assert_output ""
    assert_equal "$stderr" 'error: You must specify the type of resource to get. Use "nodus api-resources" for a complete list of supported resources.
See '\''nodus get --help'\'' for usage.'
}

@test "get: bad flags and formats exit 2 before any request" {
    local before after
    before=$(requests_served)
    run -2 --separate-stderr nodus get jobs --frob
    assert_output ""
    assert_equal "$(sed -n 1p <<<"$stderr")" "error: unknown flag: --frob"
    run -2 --separate-stderr nodus get jobs -Z
    assert_equal "$(sed -n 1p <<<"$stderr")" "error: unknown shorthand flag: 'Z' in -Z"
    run -2 --separate-stderr nodus get jobs --chunk-size many
    assert_equal "$(sed -n 1p <<<"$stderr")" 'error: invalid argument "many" for "--chunk-size" flag: not an integer'
    run -2 --separate-stderr nodus get jobs -o
    assert_equal "$(sed -n 1p <<<"$stderr")" "error: flag needs an argument: 'o' in -o"
    run -2 --separate-stderr nodus get jobs -o frob
    assert_equal "$stderr" 'error: unable to match a printer suitable for the output format "frob", allowed formats are: custom-columns,custom-columns-file,json,jsonpath,jsonpath-file,name,wide,yaml'
    run -2 --separate-stderr nodus get jobs -o 'jsonpath={.items[0'
    assert_equal "$(sed -n 1p <<<"$stderr")" "error: error parsing jsonpath {.items[0, unterminated array (at character 8)"
    run -2 --separate-stderr nodus get jobs -o custom-columns=NAME
    assert_equal "$(sed -n 1p <<<"$stderr")" "error: unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"
    run -2 --separate-stderr nodus get jobs -o "jsonpath-file=$BATS_TEST_TMPDIR/missing"
    assert_equal "$(sed -n 1p <<<"$stderr")" "error: error reading --template $BATS_TEST_TMPDIR/missing, open $BATS_TEST_TMPDIR/missing: No such file or directory"
    run -2 --separate-stderr nodus get jobs,sandboxes -w
    assert_equal "$(sed -n 1p <<<"$stderr")" "error: you may only specify a single resource type to watch"
    after=$(requests_served)
    assert_equal "$((after - before - 1))" 0
}

@test "get: no colour without a terminal, with --no-color or NO_COLOR" {
    run -0 --separate-stderr nodus get jobs
    refute_output --partial $'\e'
    run -0 --separate-stderr nodus get jobs -A -o wide
    refute_output --partial $'\e'
    command -v script >/dev/null || skip "script (util-linux) is not installed: no terminal to test colours on"
    # shellcheck disable=SC2016
    run -0 script -qec 'nodus get jobs --no-color' /dev/null
    refute_output --partial $'\e'
    NO_COLOR=1 run -0 script -qec 'nodus get jobs' /dev/null
    refute_output --partial $'\e'
}

@test "get: on a terminal the PHASE cell is coloured, columns still aligned" {
    command -v script >/dev/null || skip "script (util-linux) is not installed: no terminal to test colours on"
    run -0 script -qec 'nodus get jobs -l app=trainer' /dev/null
    local y=$'\e[33m' r=$'\e[0m'
    assert_equal "${output//$'\r'/}" "NAME      STATE       PHASE    GPU      COST   AGE
eval-b    Suspended   ${y}Queued${r}   2xL4     -      10h
train-a   Suspended   ${y}Queued${r}   1xH100   -      10h"
    # green Running, red Failed, yellow Queued, grey Cancelled; other cells never
    run -0 script -qec 'nodus get jobs -n colour' /dev/null
    local g=$'\e[32m' red=$'\e[31m' grey=$'\e[90m'
    assert_equal "${output//$'\r'/}" "NAME        STATE       PHASE       GPU   COST   AGE
cancelled   Suspended   ${grey}Cancelled${r}   -     -      10h
failed      Suspended   ${red}Failed${r}      -     -      10h
queued      Suspended   ${y}Queued${r}      -     -      10h
running     Suspended   ${g}Running${r}     -     -      10h"
    # json and names are never coloured
    run -0 script -qec 'nodus get job train-a -o json' /dev/null
    refute_output --partial $'\e'
}
