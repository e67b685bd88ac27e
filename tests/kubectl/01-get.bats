#!/usr/bin/env bats
# kubectl get and describe against the emulator: tables (server-side columns), every
# output format, selectors, paging, sorting, watching; one loop per kubectl version.
# The objects are created once with curl in setup_file; every test only reads, except
# the watch test, which writes in its own project.

load ../lib/common
load ../lib/kubectl
load ../lib/columns

bats_require_minimum_version 1.5.0

# A Job in PROJECT named NAME with labels LABELS (a YAML flow map) and extra spec lines.
job_yaml() {
    local name=$1 labels=$2 cost=$3 extra=${4:-}
    cat <<EOF
apiVersion: nodus.dev/v1
kind: Job
metadata:
  name: $name
  labels: $labels
spec:
  image: nodus/pytorch:2.8-cuda12.8
  command: [python, train.py]
  maxCostUSD: "$cost"
$extra
EOF
}

setup_file() {
    start_emulator
    kubectl_setup
    emu_apply_yaml default jobs "$(fixture job.yaml)"
    emu_apply_yaml default jobs "$(job_yaml eval-b '{app: trainer, tier: gold}' 15.00 \
        '  resources: {gpu: {model: L4, count: 2}}')"
    emu_apply_yaml default jobs "$(job_yaml prep-c '{app: prep}' 30.00)"
    emu_namespace team
    emu_apply_yaml team jobs "$(job_yaml team-d '{app: trainer}' 40.00)"
    # Five Jobs created out of name order, with costs in yet another order.
    emu_namespace chunk
    local n cost
    for n in 3:40.00 5:30.00 1:50.00 4:10.00 2:20.00; do
        cost=${n#*:}
        emu_apply_yaml chunk jobs "$(job_yaml "c-${n%%:*}" '{app: chunk}' "$cost")"
    done
    emu_namespace allns
    emu_apply_yaml allns jobs "$(job_yaml all-a '{app: all}' 40.00)"
    emu_apply_yaml allns volumes "$(fixture volume.yaml)"
    emu_namespace watch
    emu_apply_yaml watch jobs "$(job_yaml watch-seed '{app: watched}' 40.00)"
}

@test "get: a table of the kind's printer columns, one row per object" {
    # 1.29: names map through aggregated discovery v2beta1 to 1.29, v2 from 1.30
    for KV in $(kc_versions 1.29); do
        kc_use
        run -0 --separate-stderr kc get jobs
        assert_table <<'EOF'
NAME      STATE     PHASE    GPU      COST   AGE
eval-b    Running   Queued   2xL4     -      <age>
prep-c    Running   Queued   -        -      <age>
train-a   Running   Queued   1xH100   -      <age>
EOF
        assert_equal "$stderr" ""
        # The short name, the singular and the fully qualified names answer the same.
        run -0 --separate-stderr kc get nj/train-a job.nodus.dev/eval-b jobs.v1.nodus.dev/prep-c \
            -o name
        assert_output "job.nodus.dev/train-a
job.nodus.dev/eval-b
job.nodus.dev/prep-c"
    done
}

@test "get -o wide: adds the priority-1 columns" {
    for KV in $(kc_versions); do
        kc_use
        run -0 --separate-stderr kc get nj train-a eval-b -o wide
        # every column of the kind (pkg/kinds/kinds.c), wide ones too; the cells of those below
        assert_line --index 0 --regexp "^$(kind_columns Job wide | sed 's/ /  +/g')\$"
        output=$(table_select NAME STATE PHASE GPU COST AGE PLACEMENT RATE MAX-COST IMAGE <<<"$output")
        assert_table <<'EOF'
NAME      STATE     PHASE    GPU      COST   AGE   PLACEMENT   RATE   MAX-COST   IMAGE
train-a   Running   Queued   1xH100   -      <age> <none>      -      $40.00     nodus/pytorch:2.8-cuda12.8
eval-b    Running   Queued   2xL4     -      <age> <none>      -      $15.00     nodus/pytorch:2.8-cuda12.8
EOF
    done
}

@test "get -o json: a List of the objects" {
    for KV in $(kc_versions); do
        kc_use
        run -0 --separate-stderr kc get nj -o json
        jq -e '.kind == "List" and .apiVersion == "v1"
               and ([.items[].metadata.name] == ["eval-b", "prep-c", "train-a"])
               and ([.items[] | .apiVersion + "/" + .kind] | unique == ["nodus.dev/v1/Job"])
               and (.items[2] | .metadata.namespace == "default"
                    and (.metadata.uid | test("^job_[0-9a-z]{26}$"))
                    and .metadata.labels.app == "trainer"
                    and .spec.maxCostUSD == "40.00" and .spec.maxDuration == "6h"
                    and .spec.resources.gpu == {"model": "H100", "count": 1}
                    and .spec.args == ["--epochs", "3"]
                    and .status.phase == "Queued")' <<<"$output"
    done
}

@test "get -o yaml: the object as YAML" {
    for KV in $(kc_versions); do
        kc_use
        run -0 --separate-stderr kc get nj train-a -o yaml
        assert_line -n 0 "apiVersion: nodus.dev/v1"
        assert_line "kind: Job"
        assert_line "  name: train-a"
        assert_line "  namespace: default"
        assert_line "    app: trainer"
        assert_line '  maxCostUSD: "40.00"'
        assert_line "      model: H100"
        assert_line "      count: 1"
        assert_line "  phase: Queued"
        # Quantities and money stay strings: the YAML quotes what looks like a number.
        assert_line '    cpu: "8"'
        assert_line '  - "3"'
    done
}

@test "get -o jsonpath, -o custom-columns" {
    for KV in $(kc_versions); do
        kc_use
        run -0 --separate-stderr kc get nj -o 'jsonpath={range .items[*]}{.metadata.name}={.spec.maxCostUSD} {.spec.resources.gpu.count}{.spec.env[0].name}{"\n"}{end}'
        assert_output "eval-b=15.00 2
prep-c=30.00 
train-a=40.00 1WANDB_MODE"
        run -0 --separate-stderr kc get nj \
            -o custom-columns=NAME:.metadata.name,MAX:.spec.maxCostUSD,GPU:.spec.resources.gpu.model
        assert_output "NAME      MAX     GPU
eval-b    15.00   L4
prep-c    30.00   <none>
train-a   40.00   H100"
    done
}

@test "get -l: equality, set-based and existence label selectors" {
    for KV in $(kc_versions); do
        kc_use
        # Each clause keeps eval-b: app=trainer drops prep-c, the set drops train-a.
        run -0 --separate-stderr kc get nj \
            -l 'app=trainer,tier in (gold,silver),app notin (prep),tier!=silver,!nolabel'
        assert_table <<'EOF'
NAME     STATE     PHASE    GPU    COST   AGE
eval-b   Running   Queued   2xL4   -      <age>
EOF
    done
}

@test "get --field-selector: status.phase and metadata.name" {
    for KV in $(kc_versions); do
        kc_use
        run -0 --separate-stderr kc get nj --field-selector status.phase=Running
        assert_output ""
        assert_equal "$stderr" "No resources found in default namespace."
        run -0 --separate-stderr kc get nj \
            --field-selector status.phase=Queued,metadata.name!=prep-c -o name
        assert_output "job.nodus.dev/eval-b
job.nodus.dev/train-a"
    done
}

@test "get -A --sort-by .metadata.name: every project, a NAMESPACE column, sorted by name" {
    for KV in $(kc_versions); do
        kc_use
        # The server lists by project then name (default/train-a before team/team-d).
        run -0 --separate-stderr kc get nj -A -l app=trainer --sort-by .metadata.name
        assert_table <<'EOF'
NAMESPACE   NAME      STATE     PHASE    GPU      COST   AGE
default     eval-b    Running   Queued   2xL4     -      <age>
team        team-d    Running   Queued   -        -      <age>
default     train-a   Running   Queued   1xH100   -      <age>
EOF
    done
}

@test "get --chunk-size 2: five objects over three pages, all listed" {
    for KV in $(kc_versions); do
        kc_use
        run -0 --separate-stderr kc get nj -n chunk --chunk-size 2 -v=6
        # Three list requests of two, the last two following the continue token.
        assert_equal "$(grep -c 'namespaces/chunk/jobs?.*limit=2' <<<"$stderr")" 3
        assert_equal "$(grep -c 'namespaces/chunk/jobs?.*continue=' <<<"$stderr")" 2
        # The pages make one table.
        assert_table <<'EOF'
NAME   STATE     PHASE    GPU   COST   AGE
c-1    Running   Queued   -     -      <age>
c-2    Running   Queued   -     -      <age>
c-3    Running   Queued   -     -      <age>
c-4    Running   Queued   -     -      <age>
c-5    Running   Queued   -     -      <age>
EOF
    done
}

@test "get --sort-by: by a spec field" {
    for KV in $(kc_versions); do
        kc_use
        run -0 --separate-stderr kc get nj -n chunk --sort-by .spec.maxCostUSD
        assert_table <<'EOF'
NAME   STATE     PHASE    GPU   COST   AGE
c-4    Running   Queued   -     -      <age>
c-2    Running   Queued   -     -      <age>
c-5    Running   Queued   -     -      <age>
c-3    Running   Queued   -     -      <age>
c-1    Running   Queued   -     -      <age>
EOF
    done
}

@test "get --show-labels: a LABELS column" {
    for KV in $(kc_versions); do
        kc_use
        run -0 --separate-stderr kc get nj eval-b prep-c --show-labels
        assert_table <<'EOF'
NAME     STATE     PHASE    GPU    COST   AGE   LABELS
eval-b   Running   Queued   2xL4   -      <age> app=trainer,nodus.dev/created-by=emulator-user,nodus.dev/launched-by=api,tier=gold
prep-c   Running   Queued   -      -      <age> app=prep,nodus.dev/created-by=emulator-user,nodus.dev/launched-by=api
EOF
    done
}

@test "get -w: rows for the objects, then one per change by a concurrent writer" {
    local out pid pids=
    # One watcher per version, all at once: the same writes reach each of them.
    for KV in $(kc_versions); do
        kc_use
        kc_bg "$BATS_TEST_TMPDIR/watch.$KV" get nj -n watch -w
        pids="$pids $KC_BG_PID"
    done
    WATCHERS=$pids
    for KV in $(kc_versions); do
        wait_for_line "$BATS_TEST_TMPDIR/watch.$KV" '^watch-seed '
    done
    http POST /apis/nodus.dev/v1/namespaces/watch/jobs \
        "$(job_json watch-new | jq -c '.metadata.labels = {app: "watched"}')"
    assert_equal "$CODE" 201
    http PATCH /apis/nodus.dev/v1/namespaces/watch/jobs/watch-new \
        '{"spec":{"state":"Suspended"}}' -H 'Content-Type: application/merge-patch+json'
    assert_equal "$CODE" 200
    for KV in $(kc_versions); do
        kc_use
        out=$BATS_TEST_TMPDIR/watch.$KV
        wait_for_line "$out" '^watch-new +Suspended '
        grep -qE '^watch-new +Running +Queued +- +- +[0-9]+s$' "$out"
        grep -qE '^watch-new +Suspended +Queued +- +- +[0-9]+s$' "$out"
        # The emulator's Job controller writes status too (the first conditions), so a
        # change may show as more than one row: compare the distinct rows, age left out.
        run bash -c "sed -E 's/ +[0-9]+s\$//' '$out' | uniq"
        assert_line -n 0 --regexp '^NAME +STATE +PHASE +GPU +COST +AGE$'
        assert_line -n 1 --regexp '^watch-seed +Running +Queued +- +-$'
        assert_line -n 2 --regexp '^watch-new +Running +Queued +- +-$'
        assert_line -n 3 --regexp '^watch-new +Suspended +Queued +- +-$'
        assert_equal "${#lines[@]}" 4
    done
    # The watchers are still watching (a closed stream would end kubectl with 0).
    for pid in $pids; do
        kill -0 "$pid"
    done
}

@test "get all: the kinds in the category all, one table each" {
    # 1.29: the category all maps through aggregated discovery v2beta1 to 1.29, v2 from 1.30
    for KV in $(kc_versions 1.29); do
        kc_use
        run -0 --separate-stderr kc get all -n allns
        assert_table <<'EOF'
NAME                  STATE     PHASE    GPU   COST   AGE
job.nodus.dev/all-a   Running   Queued   -     -      <age>

NAME                        PHASE     SIZE    USED   AGE
volume.nodus.dev/datasets   Pending   100Gi   0      <age>
EOF
    done
}

@test "get ns: the projects default and nodus; get images -n nodus: the catalogue" {
    for KV in $(kc_versions); do
        kc_use
        run -0 --separate-stderr kc get ns
        assert_line -n 0 --regexp '^NAME +STATUS +AGE$'
        assert_line --regexp '^default +Active +[0-9]+[smh]'
        assert_line --regexp '^nodus +Active +[0-9]+[smh]'
        assert_line --regexp '^team +Active +[0-9]+[smh]'
        run -0 --separate-stderr kc get images -n nodus
        assert_line -n 0 --regexp '^NAME +TAGS +AGE$'
        assert_line --regexp '^pytorch +([^ ]+,)?2\.8-cuda12\.8(,[^ ]+)? +[0-9]+[smh]'
    done
}

@test "describe: Name, the spec fields, and the object's Events" {
    # 1.31: describe reads the Events as JSON to 1.31, protobuf from 1.32
    for KV in $(kc_versions 1.31); do
        kc_use
        run -0 --separate-stderr kc describe nj train-a
        assert_line -n 0 --regexp '^Name: +train-a$'
        assert_line -n 1 --regexp '^Namespace: +default$'
        assert_line --regexp '^Labels: +app=trainer$'
        assert_line --regexp '^API Version: +nodus\.dev/v1$'
        assert_line --regexp '^Kind: +Job$'
        assert_line "Spec:"
        assert_line --regexp '^  Image: +nodus/pytorch:2\.8-cuda12\.8$'
        assert_line --regexp '^  Max Cost USD: +40\.00$'
        assert_line --regexp '^  Max Duration: +6h$'
        assert_line --regexp '^      Model: +H100$'
        assert_line "Status:"
        assert_line --regexp '^  Phase: +Queued$'
        # Only this object's events: the header, the rule and its one Created event (its
        # age "42s", or "2m5s" or "2m" when a loaded machine took minutes to get here)
        assert_regex "$output" $'\nEvents:\n  Type +Reason +Age +From +Message\n  ---- +------ +---- +---- +-------\n  Normal +Created +[0-9]+(m([0-9]+s)?|s) +nodus +created by emulator-user$'
    done
}
