#!/usr/bin/env bats
# kubectl apply (client-side and --server-side), diff and --dry-run=server against the
# emulator. One loop per kubectl version, with fresh object names per version ($SFX).
# What a write left behind is read back with curl (emu_get).

load ../lib/common
load ../lib/kubectl

bats_require_minimum_version 1.5.0

@test "apply -f: created, unchanged, configured after editing the file" {
    local f
    # 1.28: apply reads OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        f=$(job_file "a-$SFX" '/app: trainer/a\    tier: gold')
        run -0 --separate-stderr kc apply -f "$f"
        assert_output "job.nodus.dev/a-$SFX created"
        assert_equal "$stderr" ""
        run -0 --separate-stderr kc apply -f "$f"
        assert_output "job.nodus.dev/a-$SFX unchanged"
        # Raise the cost and drop a label: the label goes (sent as null).
        f=$(job_file "a-$SFX" 's/"40.00"/"50.00"/')
        run -0 --separate-stderr kc apply -f "$f"
        assert_output "job.nodus.dev/a-$SFX configured"
        emu_get default jobs "a-$SFX"
        jq -e '.spec.maxCostUSD == "50.00" and .metadata.generation == 2
               and .metadata.labels.app == "trainer" and (.metadata.labels | has("tier") | not)
               and (.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]
                    | fromjson | .spec.maxCostUSD == "50.00")' <<<"$EMU_OBJ"
    done
}

@test "diff: exit 0 and nothing when the file matches, exit 1 and a diff after editing it" {
    local f
    # 1.28: diff reads OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        f=$(job_file "d-$SFX")
        emu_apply_yaml default jobs "$(cat "$f")"
        # kubectl sends a dry-run merge patch {"metadata":{"annotations":{},...}} for an
        # object without its last-applied annotation: the empty map is no change.
        run -0 --separate-stderr kc diff -f "$f"
        assert_output ""
        assert_equal "$stderr" ""
        f=$(job_file "d-$SFX" 's/"40.00"/"50.00"/')
        run -1 --separate-stderr kc diff -f "$f"
        assert_line -n 0 --regexp "^diff -u -N [^ ]*/LIVE-[0-9]+/nodus\\.dev\\.v1\\.Job\\.default\\.d-$SFX [^ ]*/MERGED-[0-9]+/nodus\\.dev\\.v1\\.Job\\.default\\.d-$SFX\$"
        assert_line '-  maxCostUSD: "40.00"'
        assert_line '+  maxCostUSD: "50.00"'
        assert_line '-  generation: 1'
        assert_line '+  generation: 2'
        # Nothing else changed: four -/+ lines, the cost and the generation.
        assert_equal "$(grep -c '^[-+] ' <<<"$output")" 4
        # diff wrote nothing.
        emu_get default jobs "d-$SFX"
        jq -e '.spec.maxCostUSD == "40.00" and .metadata.generation == 1' <<<"$EMU_OBJ"
    done
}

@test "apply --server-side: create; conflict with another manager's field; --force-conflicts" {
    local f
    # 1.28: apply reads OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        f=$(job_file "s-$SFX")
        run -0 --separate-stderr kc apply --server-side -f "$f"
        assert_output "job.nodus.dev/s-$SFX serverside-applied"
        # kubectl-patch takes spec.maxCostUSD from the applier "kubectl".
        run -0 --separate-stderr kc patch nj "s-$SFX" --type merge -p '{"spec":{"maxCostUSD":"45.00"}}'
        assert_output "job.nodus.dev/s-$SFX patched"
        f=$(job_file "s-$SFX" 's/"40.00"/"60.00"/')
        # (stdout and stderr together: kubectl prints only the error)
        run -1 kc apply --server-side -f "$f"
        assert_line -n 0 'error: Apply failed with 1 conflict: conflict with "kubectl-patch" using nodus.dev/v1: .spec.maxCostUSD'
        assert_line -n 1 'Please review the fields above--they currently have other managers. Here'
        assert_line '  command with the `--force-conflicts` flag.'
        run -0 --separate-stderr kc apply --server-side --force-conflicts -f "$f"
        assert_output "job.nodus.dev/s-$SFX serverside-applied"
        emu_get default jobs "s-$SFX"
        jq -e '.spec.maxCostUSD == "60.00"
               and ([.metadata.managedFields[]
                     | select(.fieldsV1["f:spec"]["f:maxCostUSD"] != null) | .manager]
                    == ["kubectl"])
               and ([.metadata.managedFields[] | select(.manager == "kubectl") | .operation]
                    == ["Apply"])' <<<"$EMU_OBJ"
    done
}

@test "apply --dry-run=server: reported, nothing stored or changed" {
    local f
    # 1.28: apply reads OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        f=$(job_file "dry-$SFX")
        run -0 --separate-stderr kc apply -f "$f" --dry-run=server
        assert_output "job.nodus.dev/dry-$SFX created (server dry run)"
        run -0 --separate-stderr kc apply --server-side -f "$f" --dry-run=server
        assert_output "job.nodus.dev/dry-$SFX serverside-applied (server dry run)"
        emu_get default jobs "dry-$SFX"
        assert_equal "$EMU_CODE" 404
        # An existing object: configured in the dry run only.
        emu_apply_yaml default jobs "$(fixture job-min.yaml "s/NAME/dry-$SFX/")"
        f=$(job_file "dry-$SFX" 's/"40.00"/"90.00"/')
        run -0 --separate-stderr kc apply -f "$f" --dry-run=server
        assert_output "job.nodus.dev/dry-$SFX configured (server dry run)"
        emu_get default jobs "dry-$SFX"
        jq -e '.spec.maxCostUSD == "40.00" and .metadata.generation == 1
               and (.metadata.annotations // {} | length == 0)' <<<"$EMU_OBJ"
    done
}
