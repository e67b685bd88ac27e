#!/usr/bin/env bats
# kubectl's strategic merge patches of a Namespace: apply -f of a changed manifest,
# patch (strategic by default), edit and diff. Namespace is a built-in kind, so kubectl
# sends application/strategic-merge-patch+json and the emulator applies it as
# kube-apiserver does (the nodus.dev kinds refuse it, as custom resources: 02-write).
# Every name carries the kubectl version ($SFX); checks of what a write stored use curl.

load ../lib/common
load ../lib/kubectl

bats_require_minimum_version 1.5.0

# ns.yaml for Namespace NAME with the labels LABELS (a YAML flow map); prints its path.
ns_file() {
    printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels: %s\n' "$1" "$2" \
        >"$BATS_TEST_TMPDIR/$1.yaml"
    echo "$BATS_TEST_TMPDIR/$1.yaml"
}

# Creates Namespace NAME with curl, its metadata merged with META (JSON): no kubectl run.
ns_create() {
    local code
    code=$(curl -sS -o "$BATS_TEST_TMPDIR/create.out" -w '%{http_code}' -X POST \
        -H 'Content-Type: application/json' \
        --data-binary "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$1\"${2:+,$2}}}" \
        "$EMU_URL/api/v1/namespaces")
    [ "$code" = 201 ] || { cat "$BATS_TEST_TMPDIR/create.out" >&2; return 1; }
}

# The labels (sorted keys, compact) or another jq FILTER of Namespace NAME, with curl.
ns_json() {
    curl -sS "$EMU_URL/api/v1/namespaces/$1" | jq -cS "${2:-.metadata.labels}"
}

@test "apply -f: labels added, changed and removed between applies of a Namespace" {
    # 1.28: apply reads OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        run -0 --separate-stderr kc apply -f "$(ns_file "ap-$SFX" '{team: a, tier: gold}')"
        assert_output "namespace/ap-$SFX created"
        run -0 --separate-stderr kc apply -f "$(ns_file "ap-$SFX" '{team: b, env: dev}')"
        assert_output "namespace/ap-$SFX configured"
        assert_equal "$(ns_json "ap-$SFX")" \
            "{\"env\":\"dev\",\"kubernetes.io/metadata.name\":\"ap-$SFX\",\"team\":\"b\"}"
    done
}

@test "patch ns -p: the default strategic merge patch; finalizers merge by value" {
    for KV in $(kc_versions); do
        kc_use
        ns_create "pt-$SFX" '"labels":{"a":"1","b":"2"},"finalizers":["example.com/a"]'
        run -0 --separate-stderr kc patch ns "pt-$SFX" \
            -p '{"metadata":{"labels":{"a":null,"c":"3"},"finalizers":["example.com/b"]}}'
        assert_output "namespace/pt-$SFX patched"
        assert_equal "$(ns_json "pt-$SFX" '[.metadata.labels, .metadata.finalizers]')" \
            "[{\"b\":\"2\",\"c\":\"3\",\"kubernetes.io/metadata.name\":\"pt-$SFX\"},[\"example.com/b\",\"example.com/a\"]]"
    done
    # the server's words for a directive it does not take (once: they are the server's)
    run -1 --separate-stderr kc patch ns "pt-$SFX" -p '{"metadata":{"labels":{"$patch":"merge"}}}'
    assert_equal "$stderr" "Error from server (BadRequest): unknown patch type in map: {\"\$patch\":\"merge\"}"
}

@test "edit ns: the editor's change is sent as a strategic merge patch" {
    local editor=$BATS_FILE_TMPDIR/editor.sh
    # changes label team, adds label edited (the editor gets the file as its last argument)
    printf '#!/bin/sh\nfor f; do :; done\nsed -i "s/^    team: a$/    team: z\\n    edited: \\"yes\\"/" "$f"\n' >"$editor"
    chmod +x "$editor"
    # 1.28: edit reads OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        ns_create "ed-$SFX" '"labels":{"team":"a"}'
        KUBE_EDITOR=$editor run -0 --separate-stderr kc edit ns "ed-$SFX"
        assert_output "namespace/ed-$SFX edited"
        assert_equal "$(ns_json "ed-$SFX")" \
            "{\"edited\":\"yes\",\"kubernetes.io/metadata.name\":\"ed-$SFX\",\"team\":\"z\"}"
    done
}

@test "diff -f: a changed Namespace manifest shows its change (exit 1), and changes nothing" {
    # 1.28: diff reads OpenAPI v2 (protobuf) to 1.28, v3 from 1.29
    for KV in $(kc_versions 1.28); do
        kc_use
        # as `kubectl apply` of {team: a, tier: gold} would have left it
        ns_create "df-$SFX" "$(jq -nr --arg n "df-$SFX" '{apiVersion: "v1", kind: "Namespace",
            metadata: {name: $n, labels: {team: "a", tier: "gold"}}} | {labels: .metadata.labels,
            annotations: {"kubectl.kubernetes.io/last-applied-configuration": tojson}}
            | tojson | .[1:-1]')"
        run -1 --separate-stderr kc diff -f "$(ns_file "df-$SFX" '{team: b, env: dev}')"
        assert_equal "$stderr" ""
        assert_line "+    env: dev"
        assert_line "-    team: a"
        assert_line "+    team: b"
        assert_line "-    tier: gold"
        assert_equal "$(ns_json "df-$SFX")" \
            "{\"kubernetes.io/metadata.name\":\"df-$SFX\",\"team\":\"a\",\"tier\":\"gold\"}"
    done
}
