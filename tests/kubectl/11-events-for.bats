#!/usr/bin/env bats
# kubectl events --for KIND/NAME, -A, --types and -w, over Events the
# objects make themselves (the simulation runs; the clock moves when a test advances it).
# kubectl 1.28 and later select with involvedObject.kind, .apiVersion and .name; 1.27 with
# kind and name. 1.27 cannot take a group-qualified --for (volume.nodus.dev/NAME): its
# RESTMapper is asked for a resource named "volume.nodus.dev" without the group split off,
# and fails before any request (it fails the same against kube-apiserver); it takes
# volume/NAME, volumes/NAME and vol/NAME.

load ../lib/common
load ../lib/kubectl

bats_require_minimum_version 1.5.0

setup_file() {
    start_emulator
    kubectl_setup
    # Two Volumes and a Job: each makes its own Events (Created, then its phases)
    local v
    for v in ev-a ev-b; do
        emu_apply_yaml default volumes "$(fixture volume.yaml "s/datasets/$v/")"
    done
    emu_apply_yaml default jobs "$(fixture job-min.yaml "s/NAME/ev-job/" \
        "s|^metadata:\$|metadata:\n  annotations: {emulator.nodus.dev/duration: 10m}|")"
    clock_advance 1m
}

# The TYPE, REASON and OBJECT cells of kubectl events' table (LAST SEEN left out).
cells() {
    printf '%s\n' "$output" | awk 'NR == 1 { print; next } { print $2, $3, $4 }'
}

@test "events --for volume/NAME and job/NAME: only that object's Events" {
    local head="LAST SEEN   TYPE     REASON     OBJECT        MESSAGE"
    # 1.27, 1.28: --for selects by kind and name; 1.31: JSON to 1.31, protobuf from 1.32
    for KV in $(kc_versions 1.27 1.28 1.31); do
        kc_use
        run -0 --separate-stderr kc events --for volume/ev-a
        assert_equal "$(cells)" "$(printf '%s\n' "$head" \
            "Normal Created Volume/ev-a" "Normal Starting Volume/ev-a" "Normal Running Volume/ev-a")"
        run -0 --separate-stderr kc events --for vol/ev-b
        assert_equal "$(cells | tail -n +2)" "$(printf '%s\n' "Normal Created Volume/ev-b" \
            "Normal Starting Volume/ev-b" "Normal Running Volume/ev-b")"
        run -0 --separate-stderr kc events --for job/ev-job
        assert_equal "$(cells | tail -n +2)" "$(printf '%s\n' "Normal Created Job/ev-job" \
            "Normal Provisioning Job/ev-job" "Normal Running Job/ev-job")"
        if [ "$KV" != 1.27 ]; then # see the top of this file
            run -0 --separate-stderr kc events --for volume.nodus.dev/ev-a
            assert_equal "$(cells | tail -n +2 | sort -u)" "$(printf '%s\n' \
                "Normal Created Volume/ev-a" "Normal Running Volume/ev-a" \
                "Normal Starting Volume/ev-a")"
        fi
        run -0 --separate-stderr kc events --for volume/nothing-here
        assert_output ""
        assert_equal "$stderr" "No events found in default namespace."
    done
}

@test "events -A and --types (no --for); get events.events.k8s.io; get event NAME" {
    local name
    name=$(curl -sS "$EMU_URL/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dev-b,reason%3DRunning" |
        jq -r '.items[0].metadata.name')
    # 1.27, 1.28: --for selects by kind and name; 1.31: JSON to 1.31, protobuf from 1.32
    for KV in $(kc_versions 1.27 1.28 1.31); do
        kc_use
        run -0 --separate-stderr kc get events.v1.events.k8s.io --field-selector regarding.name=ev-a \
            -o custom-columns=REASON:.reason,OBJECT:.regarding.name,NOTE:.note,API:.apiVersion
        assert_equal "$(printf '%s\n' "$output" | awk '{ print $1, $2, $NF }')" "$(printf '%s\n' \
            "REASON OBJECT API" "Created ev-a events.k8s.io/v1" "Starting ev-a events.k8s.io/v1" \
            "Running ev-a events.k8s.io/v1")"
        run -0 --separate-stderr kc get event "$name" -o jsonpath='{.involvedObject.name} {.reason}'
        assert_output "ev-b Running"
        run -0 --separate-stderr kc events -A --types=Normal
        assert_equal "$(printf '%s\n' "$output" | awk 'NR > 1 { print $1, $5 }' | sort | uniq -c |
            awk '{ print $1, $2, $3 }')" \
            "$(printf '%s\n' "3 default Job/ev-job" "3 default Volume/ev-a" "3 default Volume/ev-b")"
        run -0 --separate-stderr kc events --types=Warning
        assert_output ""
        assert_equal "$stderr" "No events found in default namespace."
    done
}

@test "events -w --for volume/NAME: the watch shows the new object's Events as they happen" {
    WATCHERS=
    local kvs
    # 1.27, 1.28: --for selects by kind and name; 1.31: JSON to 1.31, protobuf from 1.32
    kvs=$(kc_versions 1.27 1.28 1.31)
    for KV in $kvs; do
        kc_use
        kc_bg "$BATS_TEST_TMPDIR/w.$SFX" events -w --for volume/ev-w
        WATCHERS="$WATCHERS $KC_BG_PID"
    done
    wait_for_watches "$(wc -w <<<"$kvs")"
    emu_apply_yaml default volumes "$(fixture volume.yaml "s/datasets/ev-w/")"
    clock_advance 1m
    for KV in $kvs; do
        kc_use
        wait_for_line "$BATS_TEST_TMPDIR/w.$SFX" "Running +Volume/ev-w"
        output=$(cat "$BATS_TEST_TMPDIR/w.$SFX")
        assert_equal "$(cells | tail -n +2)" "$(printf '%s\n' "Normal Created Volume/ev-w" \
            "Normal Starting Volume/ev-w" "Normal Running Volume/ev-w")"
    done
}
