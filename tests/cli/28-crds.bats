#!/usr/bin/env bats
# nodus crds: CustomResourceDefinitions of the nodus.dev kinds that a Kubernetes cluster
# installs. No cluster here, so what an API server would check is checked piece by piece:
# the structural schema rules and the CRD's own rules (tests/cli/fixtures/crds.py, which
# is shown to refuse each thing it looks for), names and printer columns against the
# emulator's discovery and Table answers, the stream as the machine's kubectl versions
# read it (against a stub that serves only discovery: kubectl parses and maps each
# document, it does not validate a CRD's shape without the server's OpenAPI), and the
# objects of examples/ and those the emulator stores against the schemas.

load ../lib/common

bats_require_minimum_version 1.5.0

CHECK=$BATS_TEST_DIRNAME/fixtures/crds.py

setup_file() {
    start_emulator
    export HOME=$BATS_FILE_TMPDIR/home
    mkdir -p "$HOME"
    unset KUBECONFIG NODUS_CONFIG NODUS_TOKEN
    export NODUS_SERVER=$EMU_URL NO_COLOR=1
    # each test fails on its own when this does (a nodus without the verb)
    nodus crds -o json >"$BATS_FILE_TMPDIR/crds.json" || true
}

teardown_file() {
    [ -s "$BATS_FILE_TMPDIR/stub.pid" ] && kill "$(cat "$BATS_FILE_TMPDIR/stub.pid")" 2>/dev/null
    stop_emulator
}

KINDS="jobs.nodus.dev
pipelines.nodus.dev
poolactions.nodus.dev
sandboxes.nodus.dev
functions.nodus.dev
volumes.nodus.dev
budgets.nodus.dev
pools.nodus.dev
hosts.nodus.dev
images.nodus.dev"

# Writes crds.json changed by the jq filter $1 to $BATS_TEST_TMPDIR/bad.json.
broken() {
    jq "$1" "$BATS_FILE_TMPDIR/crds.json" >"$BATS_TEST_TMPDIR/bad.json"
}

JOB='.items[0].spec.versions[0]'
JOBSPEC="$JOB.schema.openAPIV3Schema.properties.spec"

@test "crds: one CRD per nodus.dev kind, as YAML documents separated by ---" {
    run -0 --separate-stderr nodus crds
    [ -z "$stderr" ]
    assert_equal "$(grep -c '^---$' <<<"$output")" 9
    assert_equal "$(grep '^  name: ' <<<"$output")" "$(sed 's/^/  name: /' <<<"$KINDS")"
    assert_equal "$(head -24 <<<"$output")" "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: jobs.nodus.dev
  labels:
    app.kubernetes.io/part-of: nodus
spec:
  group: nodus.dev
  names:
    plural: jobs
    singular: job
    kind: Job
    listKind: JobList
    shortNames:
    - nj
    categories:
    - nodus
    - all
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:"
    run -0 jq -r '.kind, (.items[] | .metadata.name)' "$BATS_FILE_TMPDIR/crds.json"
    assert_output "List
$KINDS"
}

@test "crds: no server is asked (the registry is built into nodus)" {
    NODUS_SERVER=http://127.0.0.1:1 run -0 --separate-stderr nodus crds --kind hosts -o json
    run -0 jq -r '.metadata.name' <<<"$output"
    assert_output hosts.nodus.dev
}

@test "crds: every CRD is structural and within an API server's rules" {
    run -0 python3 "$CHECK" structural "$BATS_FILE_TMPDIR/crds.json"
    assert_output "10 CRDs, structural"
}

@test "crds: the structural checker refuses what an API server refuses" {
    broken "$JOBSPEC.properties.image |= del(.type)"
    run -1 python3 "$CHECK" structural "$BATS_TEST_TMPDIR/bad.json"
    assert_output "jobs.nodus.dev v1 spec.image: no type
1 problem(s)"
    broken "$JOBSPEC.properties.resources = {\"\$ref\": \"#/components/schemas/x\", \"type\": \"object\", \"properties\": {}}"
    run -1 python3 "$CHECK" structural "$BATS_TEST_TMPDIR/bad.json"
    assert_output "jobs.nodus.dev v1 spec.resources: \$ref (a CRD schema must be inline)
1 problem(s)"
    broken "$JOBSPEC.additionalProperties = {\"type\": \"string\"}"
    run -1 python3 "$CHECK" structural "$BATS_TEST_TMPDIR/bad.json"
    assert_output "jobs.nodus.dev v1 spec: additionalProperties and properties together
1 problem(s)"
    broken "$JOB.schema.openAPIV3Schema.properties.metadata.properties = {\"name\": {\"type\": \"string\"}}"
    run -1 python3 "$CHECK" structural "$BATS_TEST_TMPDIR/bad.json"
    assert_output "jobs.nodus.dev v1 metadata: metadata must be \`type: object\` alone
1 problem(s)"
    broken "$JOBSPEC.properties.state.default = \"Paused\" | $JOBSPEC.properties.backoffLimit.default = \"0\""
    run -1 python3 "$CHECK" structural "$BATS_TEST_TMPDIR/bad.json"
    assert_output "jobs.nodus.dev v1 spec.backoffLimit: default: '0' is not of type integer
jobs.nodus.dev v1 spec.state: default: 'Paused' is not one of ['Running', 'Suspended', 'Cancelled']
2 problem(s)"
    broken "$JOBSPEC.properties.resources.properties.cpu.type = \"string\" | $JOBSPEC.properties.image[\"x-nodus-min\"] = \"1\" | $JOBSPEC.properties.command.uniqueItems = true | $JOBSPEC.properties.env |= del(.items) | $JOBSPEC.properties.placement |= del(.properties)"
    run -1 python3 "$CHECK" structural "$BATS_TEST_TMPDIR/bad.json"
    assert_output "jobs.nodus.dev v1 spec.image: x-nodus-min is not a field of JSONSchemaProps
jobs.nodus.dev v1 spec.command: uniqueItems: true is forbidden
jobs.nodus.dev v1 spec.env: an array without items
jobs.nodus.dev v1 spec.resources.cpu: type beside x-kubernetes-int-or-string refuses one of the two
jobs.nodus.dev v1 spec.placement: an object with neither properties nor additionalProperties: the API server would prune every member
5 problem(s)"
    broken "$JOB.additionalPrinterColumns[0].type = \"money\" | .items[1].spec.names.shortNames = [\"Pipe\"]"
    run -1 python3 "$CHECK" structural "$BATS_TEST_TMPDIR/bad.json"
    assert_output "jobs.nodus.dev v1 column 0: type 'money' is not a printer column type
pipelines.nodus.dev: spec.names.shortNames: 'Pipe' is not a DNS-1035 label
2 problem(s)"
}

# The emulator's discovery, nodus api-resources -o wide, and a Table of each kind.
served() {
    local d=$BATS_FILE_TMPDIR/served p
    [ -d "$d" ] && return 0
    mkdir -p "$d/tables"
    curl -sSf "$EMU_URL/apis/nodus.dev/v1" >"$d/discovery.json"
    nodus api-resources -o wide --api-group=nodus.dev >"$d/api-resources.txt"
    for p in $(jq -r '.resources[].name | select(contains("/") | not)' "$d/discovery.json"); do
        curl -sSf -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io' \
            "$EMU_URL/apis/nodus.dev/v1/namespaces/default/$p" >"$d/tables/$p.json"
    done
}

@test "crds: names, short names, categories and printer columns are what the emulator serves" {
    served
    local d=$BATS_FILE_TMPDIR/served
    run -0 python3 "$CHECK" columns "$BATS_FILE_TMPDIR/crds.json" "$d/discovery.json" \
        "$d/api-resources.txt" "$d/tables"
    assert_output "10 kinds: names and columns as served"
    # each of them is compared
    broken "$JOB.additionalPrinterColumns[4].priority = 1 | .items[9].spec.names.categories += [\"all\"] | del(.items[5])"
    run -1 python3 "$CHECK" columns "$BATS_TEST_TMPDIR/bad.json" "$d/discovery.json" \
        "$d/api-resources.txt" "$d/tables"
    assert_line --index 0 "images: categories: the CRD has ['nodus', 'all'], discovery ['nodus']"
    assert_line --index 1 "images: CATEGORIES: the CRD gives 'nodus,all', nodus api-resources 'nodus'"
    assert_line --index 2 "jobs: printer columns differ:"
    assert_line --index 5 "volumes: only in discovery, api-resources"
    assert_line --index 6 "4 problem(s)"
}

@test "crds: kubectl apply --dry-run=client takes the stream, every version on the machine" {
    local path dir v n=0
    path=$(command -v kubectl 2>/dev/null) || skip "no kubectl on this machine"
    dir=$(dirname "$(readlink -f "$path")")
    rm -f "$BATS_FILE_TMPDIR/stub.port" "$BATS_FILE_TMPDIR/stub.log"
    python3 "$BATS_TEST_DIRNAME/fixtures/kube-stub.py" "$BATS_FILE_TMPDIR/stub.port" \
        "$BATS_FILE_TMPDIR/stub.log" 3>&- &
    echo $! >"$BATS_FILE_TMPDIR/stub.pid"
    wait_until test -s "$BATS_FILE_TMPDIR/stub.port"
    cat >"$BATS_FILE_TMPDIR/stub.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: stub, cluster: {server: "http://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/stub.port")"}}]
users: [{name: stub, user: {}}]
contexts: [{name: stub, context: {cluster: stub, user: stub}}]
current-context: stub
EOF
    nodus crds >"$BATS_TEST_TMPDIR/crds.yaml"
    for v in 1.27 1.28 1.29 1.30 1.31 1.32 1.33; do
        [ -x "$dir/kubectl.$v" ] || continue
        n=$((n + 1))
        echo "=== kubectl $v"
        run -0 --separate-stderr env HOME="$BATS_TEST_TMPDIR" "$dir/kubectl.$v" \
            --kubeconfig "$BATS_FILE_TMPDIR/stub.kubeconfig" --cache-dir "$BATS_TEST_TMPDIR/c$v" \
            apply --dry-run=client --validate=false -f "$BATS_TEST_TMPDIR/crds.yaml"
        assert_output "$(sed 's|^\(.*\)$|customresourcedefinition.apiextensions.k8s.io/\1 created (dry run)|' <<<"$KINDS")"
    done
    [ "$n" -gt 0 ] || skip "no versioned kubectl (kubectl.1.NN) beside $path"
    # kubectl asked for each CRD by name, and read from the YAML exactly what -o json says
    assert_equal "$(grep -c 'GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/' \
        "$BATS_FILE_TMPDIR/stub.log")" $((10 * n))
    run -0 --separate-stderr env HOME="$BATS_TEST_TMPDIR" "$dir/kubectl.$v" \
        --kubeconfig "$BATS_FILE_TMPDIR/stub.kubeconfig" --cache-dir "$BATS_TEST_TMPDIR/c$v" \
        apply --dry-run=client --validate=false -o json -f "$BATS_TEST_TMPDIR/crds.yaml"
    jq -S '[.items[] | del(.metadata.annotations)]' <<<"$output" >"$BATS_TEST_TMPDIR/kubectl.json"
    jq -S '.items' "$BATS_FILE_TMPDIR/crds.json" >"$BATS_TEST_TMPDIR/nodus.json"
    cmp "$BATS_TEST_TMPDIR/kubectl.json" "$BATS_TEST_TMPDIR/nodus.json"
}

@test "crds: the manifests of examples/ validate against the CRD schemas" {
    nodus create --dry-run=client -o json -R -f "$ND_ROOT/examples" >"$BATS_TEST_TMPDIR/manifests.json"
    local n
    n=$(jq -s 'length' "$BATS_TEST_TMPDIR/manifests.json")
    [ "$n" -ge 10 ]
    run -0 python3 "$CHECK" objects "$BATS_FILE_TMPDIR/crds.json" "$BATS_TEST_TMPDIR/manifests.json"
    assert_output "$n objects valid"
    # and the validator refuses what a schema refuses
    jq -c 'select(.kind == "Job") | .spec.maxCostUSD = "40 dollars" | .spec.state = "Paused"
           | .spec.resources.gpu.count = "1" | del(.spec.image) | .spec.colour = "blue"' \
        "$BATS_TEST_TMPDIR/manifests.json" | head -1 >"$BATS_TEST_TMPDIR/bad.json"
    run -1 python3 "$CHECK" objects "$BATS_FILE_TMPDIR/crds.json" "$BATS_TEST_TMPDIR/bad.json"
    assert_output "Job/train-a.spec.image: Required value
Job/train-a.spec.maxCostUSD: '40 dollars' does not match ^[0-9]+(\\.[0-9]{1,6})?\$
Job/train-a.spec.resources.gpu.count: '1' is not of type integer
Job/train-a.spec.state: 'Paused' is not one of ['Running', 'Suspended', 'Cancelled']
Job/train-a.spec.colour: unknown field (the API server would drop it)
5 problem(s)"
}

# Every nodus.dev object the emulator holds, with its status, less the emulator's own
# bookkeeping (status.simulation, outside the API's schemas), into $1.
stored() {
    nodus get "$(jq -r '[.items[].spec.names.plural] | join(",")' "$BATS_FILE_TMPDIR/crds.json")" \
        -A -o json | jq 'del(.items[].status.simulation)' >"$1"
}

@test "crds: what the emulator stores, status included, validates too (all but its status.simulation)" {
    nodus apply -f "$ND_ROOT/examples" >/dev/null
    nodus create project workflow >/dev/null
    nodus apply -n workflow -f "$ND_ROOT/examples/workflow" >/dev/null
    printf '%s\n' 'apiVersion: nodus.dev/v1' 'kind: Function' 'metadata: {name: embed}' \
        'spec: {image: nodus/pytorch:2.8-cuda12.8, maxCostUSD: "5.00"}' | nodus apply -f - >/dev/null
    # running (phases, costs, placements, replicas), then finished (exit codes, bills)
    clock_advance 10m
    stored "$BATS_TEST_TMPDIR/running.json"
    run -0 jq -r '[.items[] | select(.status.phase == "Running") | .kind] | unique | join(" ")' \
        "$BATS_TEST_TMPDIR/running.json"
    assert_output "Budget Function Host Job Pipeline Pool Sandbox Volume"
    run python3 "$CHECK" objects "$BATS_FILE_TMPDIR/crds.json" "$BATS_TEST_TMPDIR/running.json"
    assert_success
    assert_output "$(jq '.items | length' "$BATS_TEST_TMPDIR/running.json") objects valid"
    clock_advance 8h
    stored "$BATS_TEST_TMPDIR/ended.json"
    run -0 jq -r '[.items[] | select(.status.phase == "Succeeded") | .kind] | unique | join(" ")' \
        "$BATS_TEST_TMPDIR/ended.json"
    assert_output "Job Pipeline"
    run python3 "$CHECK" objects "$BATS_FILE_TMPDIR/crds.json" "$BATS_TEST_TMPDIR/ended.json"
    assert_success
    assert_output "$(jq '.items | length' "$BATS_TEST_TMPDIR/ended.json") objects valid"
}

@test "crds --kind: any name of a kind, any case, repeated or comma-separated; each once, in order" {
    run -0 --separate-stderr nodus crds --kind SBX --kind jobs,Pipeline --kind job -o json
    run -0 jq -r '.kind, (.items[] | .metadata.name)' <<<"$output"
    assert_output "List
jobs.nodus.dev
pipelines.nodus.dev
sandboxes.nodus.dev"
    # one kind alone is the CRD itself, in either format
    run -0 --separate-stderr nodus crds --kind volumes.nodus.dev -o json
    run -0 jq -r '.kind + " " + .metadata.name' <<<"$output"
    assert_output "CustomResourceDefinition volumes.nodus.dev"
    run -0 --separate-stderr nodus crds --kind pact -o YAML
    assert_line --index 3 "  name: poolactions.nodus.dev"
    refute_line ---
}

@test "crds: a kind it does not have, a core kind, a bad -o or an argument: usage errors" {
    run -2 --separate-stderr nodus crds --kind jbo
    [ -z "$output" ]
    assert_equal "$stderr" 'error: no nodus.dev kind "jbo"
fix: did you mean job? without --kind, every nodus.dev kind: nodus crds'
    run -2 --separate-stderr nodus crds --kind ns
    assert_equal "$stderr" 'error: Namespace is a core Kubernetes kind, which every cluster serves already: nodus crds prints the nodus.dev kinds only
fix: without --kind, every nodus.dev kind: nodus crds'
    run -2 --separate-stderr nodus crds -o wide
    assert_equal "$stderr" "error: --output wide is not available: use yaml or json
See 'nodus crds --help' for usage."
    run -2 --separate-stderr nodus crds jobs
    assert_equal "$stderr" "error: unexpected argument \"jobs\": name kinds with --kind
See 'nodus crds --help' for usage."
}
