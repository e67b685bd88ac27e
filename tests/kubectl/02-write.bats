#!/usr/bin/env bats
# kubectl create, replace, patch, label, annotate and edit against the emulator, and the
# errors kubectl prints for what the server refuses. One loop per kubectl version, with
# fresh object names per version (suffix $SFX, e.g. 131). What a write left behind is
# read back with curl (emu_get): kubectl's own reading is 01-get.bats's business.

load ../lib/common
load ../lib/kubectl

bats_require_minimum_version 1.5.0

@test "create -f: created; again with another spec: AlreadyExists" {
    local f
    # 1.28: kubectl validates with OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        f=$(job_file "c-$SFX")
        run -0 --separate-stderr kc create -f "$f"
        assert_output "job.nodus.dev/c-$SFX created"
        assert_equal "$stderr" ""
        emu_get default jobs "c-$SFX"
        assert_equal "$EMU_CODE" 200
        jq -e '.spec.maxCostUSD == "40.00" and .status.phase == "Queued"
               and .metadata.labels["nodus.dev/launched-by"] == "kubectl"
               and ([.metadata.managedFields[]? | .manager] == ["kubectl-create"])' <<<"$EMU_OBJ"
        f=$(job_file "c-$SFX" 's/"40.00"/"41.00"/')
        run -1 --separate-stderr kc create -f "$f"
        assert_output ""
        assert_equal "$stderr" "Error from server (AlreadyExists): error when creating \"$f\": jobs.nodus.dev \"c-$SFX\" already exists"
    done
}

@test "create --dry-run=server -o json: the object with its defaults and status.estimate, not stored" {
    local f
    # 1.28: kubectl validates with OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        f=$BATS_TEST_TMPDIR/est-$SFX.yaml
        fixture job.yaml "s/train-a/est-$SFX/" >"$f"
        run -0 --separate-stderr kc create -f "$f" --dry-run=server -o json
        jq -e --arg n "est-$SFX" '.metadata.name == $n and .spec.state == "Running"
               and .spec.backoffLimit == 0 and .status.phase == "Queued"' <<<"$output"
        emu_get default jobs "est-$SFX"
        assert_equal "$EMU_CODE" 404
        # api.md: a dry run of a kind that uses compute answers status.estimate.
        jq -e '.status.estimate | has("rateUSDPerHour") and has("expectedCostUSD")
               and has("firstHoldUSD") and has("startTime")' <<<"$output"
    done
}

@test "replace -f: replaced; a change to an immutable field: FieldImmutable" {
    local f
    # 1.28: kubectl validates with OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        emu_apply_yaml default jobs "$(fixture job-min.yaml "s/NAME/r-$SFX/")"
        f=$(job_file "r-$SFX" 's/"40.00"/"55.00"/')
        run -0 --separate-stderr kc replace -f "$f"
        assert_output "job.nodus.dev/r-$SFX replaced"
        emu_get default jobs "r-$SFX"
        jq -e '.spec.maxCostUSD == "55.00" and .metadata.generation == 2
               and .metadata.labels["nodus.dev/created-by"] == "emulator-user"' <<<"$EMU_OBJ"
        f=$(job_file "r-$SFX" 's/"40.00"/"55.00"/' 's/train.py/other.py/')
        run -1 --separate-stderr kc replace -f "$f"
        assert_output ""
        assert_regex "$stderr" "^Error from server \\(FieldImmutable\\): error when replacing \"$f\": .*\"r-$SFX\".*spec\\.command.*immutable"
    done
}

@test "patch: --type merge, --type json, no change; the default strategic type is refused (415)" {
    for KV in $(kc_versions); do
        kc_use
        emu_apply_yaml default jobs "$(fixture job-min.yaml "s/NAME/p-$SFX/")"
        run -0 --separate-stderr kc patch nj "p-$SFX" --type merge -p '{"spec":{"maxCostUSD":"50.00"}}'
        assert_output "job.nodus.dev/p-$SFX patched"
        run -0 --separate-stderr kc patch nj "p-$SFX" --type json \
            -p '[{"op":"replace","path":"/spec/maxCostUSD","value":"60.00"},{"op":"add","path":"/metadata/labels/step","value":"two"}]'
        assert_output "job.nodus.dev/p-$SFX patched"
        # Nothing changes: no new resourceVersion, so kubectl says so.
        run -0 --separate-stderr kc patch nj "p-$SFX" --type merge -p '{"spec":{"maxCostUSD":"60.00"}}'
        assert_output "job.nodus.dev/p-$SFX patched (no change)"
        run -1 --separate-stderr kc patch nj "p-$SFX" -p '{"spec":{"maxCostUSD":"70.00"}}'
        assert_output ""
        assert_equal "$stderr" "error: application/strategic-merge-patch+json is not supported by nodus.dev/v1, Kind=Job: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
        emu_get default jobs "p-$SFX"
        jq -e '.spec.maxCostUSD == "60.00" and .metadata.labels.step == "two"
               and .metadata.generation == 3' <<<"$EMU_OBJ"
    done
}

@test "label and annotate: add, overwrite and remove; nodus.dev/ labels are Nodus's" {
    # 1.27: annotate prints its verb unconjugated
    for KV in $(kc_versions 1.27); do
        kc_use
        emu_apply_yaml default jobs "$(fixture job-min.yaml "s/NAME/l-$SFX/")"
        run -0 --separate-stderr kc label nj "l-$SFX" tier=gold team=ml
        assert_output "job.nodus.dev/l-$SFX labeled"
        run -0 --separate-stderr kc label nj "l-$SFX" tier- team=ai --overwrite
        assert_output "job.nodus.dev/l-$SFX labeled"
        run -0 --separate-stderr kc annotate nj "l-$SFX" note=hello
        # kubectl 1.27 prints its verb unconjugated ("annotate"), whatever the server
        if [ "$KV" = 1.27 ]; then
            assert_output "job.nodus.dev/l-$SFX annotate"
        else
            assert_output "job.nodus.dev/l-$SFX annotated"
        fi
        emu_get default jobs "l-$SFX"
        jq -e '(.metadata.labels | has("tier") | not) and .metadata.labels.team == "ai"
               and .metadata.labels.app == "trainer"
               and .metadata.annotations.note == "hello"' <<<"$EMU_OBJ"
        run -1 --separate-stderr kc label nj "l-$SFX" nodus.dev/owner=me
        assert_output ""
        assert_regex "$stderr" "^The Job \"l-$SFX\" is invalid: metadata\\.labels.*nodus\\.dev/"
    done
}

@test "edit: EDITOR rewrites the object" {
    local ed=$BATS_TEST_TMPDIR/editor.sh
    cat >"$ed" <<'EOF'
#!/bin/sh
sed -i 's/maxCostUSD: "40.00"/maxCostUSD: "45.00"/' "$1"
EOF
    chmod +x "$ed"
    # 1.28: kubectl validates with OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        emu_apply_yaml default jobs "$(fixture job-min.yaml "s/NAME/e-$SFX/")"
        EDITOR=$ed run -0 --separate-stderr kc edit nj "e-$SFX"
        assert_output "job.nodus.dev/e-$SFX edited"
        emu_get default jobs "e-$SFX"
        jq -e '.spec.maxCostUSD == "45.00" and .metadata.generation == 2' <<<"$EMU_OBJ"
    done
}

@test "create: an unknown field fails strict validation; --validate=warn warns and drops it" {
    local f
    # 1.28: kubectl validates with OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        f=$(job_file "bad-$SFX" '$a\  gpuCount: 2')
        run -1 --separate-stderr kc create -f "$f"
        assert_output ""
        assert_equal "$stderr" "The Job \"bad-$SFX\" is invalid: spec.gpuCount: unknown field \"spec.gpuCount\""
        run -0 --separate-stderr kc create -f "$f" --validate=warn
        assert_output "job.nodus.dev/bad-$SFX created"
        assert_equal "$stderr" 'Warning: unknown field "spec.gpuCount"'
        # As kube-apiserver prunes a field its schema does not know.
        emu_get default jobs "bad-$SFX"
        jq -e '.spec | has("gpuCount") | not' <<<"$EMU_OBJ"
    done
}

@test "create in the project nodus: Forbidden" {
    local f
    # 1.28: kubectl validates with OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        f=$(job_file "n-$SFX")
        run -1 --separate-stderr kc create -f "$f" -n nodus
        assert_output ""
        assert_equal "$stderr" "Error from server (Forbidden): error when creating \"$f\": the project nodus is read-only"
    done
}

@test "create namespace: a new project" {
    # 1.31: the Namespace is sent as JSON to 1.31, protobuf from 1.32
    for KV in $(kc_versions 1.31); do
        kc_use
        run -0 --separate-stderr kc create namespace "ws-$SFX"
        assert_output "namespace/ws-$SFX created"
        run curl -sS "$EMU_URL/api/v1/namespaces/ws-$SFX"
        jq -e '.kind == "Namespace" and .status.phase == "Active"' <<<"$output"
    done
}
