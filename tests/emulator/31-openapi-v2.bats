#!/usr/bin/env bats
# OpenAPI v2 at /openapi/v2 (kubectl 1.27 and 1.28 validate, apply and explain with it):
# Swagger 2.0 JSON made from the v3 documents, and the same document as gnostic's
# protobuf openapi.v2.Document, chosen by Accept as kube-apiserver chooses.

load ../lib/common

PB=application/com.github.proto-openapi.spec.v2.v1.0+protobuf
PB_ASKED=application/com.github.proto-openapi.spec.v2@v1.0+protobuf

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

# The kinds the API serves, as "group/Kind" lines, sorted (from discovery).
served_kinds() {
    {
        curl -sS "$(emu_url)/apis/nodus.dev/v1" |
            jq -r '.resources[] | select(.name | contains("/") | not) | "nodus.dev/" + .kind'
        curl -sS "$(emu_url)/api/v1" |
            jq -r '.resources[] | select(.name | contains("/") | not) | "/" + .kind'
        curl -sS "$(emu_url)/apis/events.k8s.io/v1" |
            jq -r '.resources[] | select(.name | contains("/") | not) | "events.k8s.io/" + .kind'
        curl -sS "$(emu_url)/apis/authorization.k8s.io/v1" |
            jq -r '.resources[] | "authorization.k8s.io/" + .kind'
    } | sort
}

@test "/openapi/v2 is Swagger 2.0 JSON with a GVK-tagged definition for every kind served" {
    http GET /openapi/v2
    [ "$CODE" = 200 ]
    [ "$(header Content-Type)" = application/json ]
    [ "$(header Vary)" = Accept ]
    run body_json '[.swagger, .info.title, .info.version] | join(" ")'
    assert_output "2.0 Nodus v1"
    run body_json '[.definitions[] | .["x-kubernetes-group-version-kind"] // [] | .[]
                    | select(.kind | endswith("List") | not) | .group + "/" + .kind] | sort | .[]'
    assert_output "$(served_kinds)"
    run body_json '.definitions["dev.nodus.v1.Job"]["x-kubernetes-group-version-kind"]'
    assert_output '[
  {
    "group": "nodus.dev",
    "version": "v1",
    "kind": "Job"
  }
]'
    run body_json '.definitions["dev.nodus.v1.Job"].properties.metadata["$ref"]'
    assert_output "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    run body_json '.definitions["io.k8s.api.core.v1.Namespace"]["x-kubernetes-group-version-kind"][0] | [.group, .version, .kind] | join(",")'
    assert_output ",v1,Namespace"
}

@test "OpenAPI: the reviews of kubectl auth can-i (and --list) are described, created only" {
    http GET /openapi/v3
    local url
    url=$(body_json '.paths["apis/authorization.k8s.io/v1"].serverRelativeURL')
    [[ "$url" =~ ^/openapi/v3/apis/authorization.k8s.io/v1\?hash=[0-9A-F]{16}$ ]]
    http GET "$url"
    [ "$CODE" = 200 ]
    run jq -c '.paths | to_entries[] | [.key, (.value | keys - ["parameters"]), .value.post["x-kubernetes-action"], .value.post["x-kubernetes-group-version-kind"].kind]' "$BODY"
    assert_output '["/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",["post"],"post","SelfSubjectAccessReview"]
["/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",["post"],"post","SelfSubjectRulesReview"]'
    run jq -c '.components.schemas["io.k8s.api.authorization.v1.SubjectRulesReviewStatus"].required' "$BODY"
    assert_output '["resourceRules","nonResourceRules","incomplete"]'
    http GET /openapi/v2
    run jq -c '.paths["/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"].post | [.operationId, .parameters[0].schema["$ref"]]' "$BODY"
    assert_output '["createAuthorizationV1SelfSubjectRulesReview","#/definitions/io.k8s.api.authorization.v1.SelfSubjectRulesReview"]'
}

@test "/openapi/v2: every \$ref resolves to a definition" {
    http GET /openapi/v2
    run body_json '[.. | objects | .["$ref"]? // empty] | unique | length'
    [ "$output" -gt 10 ]
    run body_json '. as $d | [.. | objects | .["$ref"]? // empty] | unique
                   | map(select((startswith("#/definitions/") and ($d.definitions[ltrimstr("#/definitions/")] != null)) | not))'
    assert_output "[]"
}

@test "/openapi/v2 holds the v3 schemas: same definitions, refs into #/definitions/, no nullable" {
    http GET /openapi/v2
    cp "$BODY" "$BATS_TEST_TMPDIR/v2.json"
    http GET /openapi/v3/apis/nodus.dev/v1
    cp "$BODY" "$BATS_TEST_TMPDIR/group.json"
    http GET /openapi/v3/apis/events.k8s.io/v1
    cp "$BODY" "$BATS_TEST_TMPDIR/events.json"
    http GET /openapi/v3/apis/authorization.k8s.io/v1
    cp "$BODY" "$BATS_TEST_TMPDIR/authz.json"
    http GET /openapi/v3/api/v1
    run jq -n --slurpfile v2 "$BATS_TEST_TMPDIR/v2.json" --slurpfile g "$BATS_TEST_TMPDIR/group.json" \
        --slurpfile c "$BODY" --slurpfile e "$BATS_TEST_TMPDIR/events.json" --slurpfile a "$BATS_TEST_TMPDIR/authz.json" '
        ($c[0].components.schemas + $g[0].components.schemas + $e[0].components.schemas + $a[0].components.schemas
         | walk(if type == "object" then del(.nullable)
                    | if (.["$ref"] | type) == "string"
                      then .["$ref"] |= sub("^#/components/schemas/"; "#/definitions/") else . end
                else . end)) == $v2[0].definitions'
    assert_output true
    # nullable fields keep their type (explain shows what they hold)
    run jq -r '.definitions["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"].properties.finalizers | [.type, .items.type, has("nullable")] | map(tostring) | join(" ")' "$BATS_TEST_TMPDIR/v2.json"
    assert_output "array string false"
}

@test "/openapi/v2: each kind's patch operation carries its GVK and fieldValidation (kubectl 1.27 looks)" {
    http GET /openapi/v2
    for plural in jobs sandboxes functions volumes budgets pools pipelines; do
        run body_json ".paths[\"/apis/nodus.dev/v1/namespaces/{namespace}/$plural/{name}\"].patch
            | [.[\"x-kubernetes-group-version-kind\"].group, .[\"x-kubernetes-action\"],
               (.parameters[] | select(.name == \"fieldValidation\") | .in + \":\" + .type),
               (.parameters[0] | .in + \":\" + .schema[\"\$ref\"])] | join(\" \")"
        assert_output "nodus.dev patch query:string body:#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
    done
    run body_json '.paths["/apis/nodus.dev/v1/namespaces/{namespace}/jobs"].post
        | [.operationId, (.consumes | join(",")), (.responses["201"].schema["$ref"])] | join(" ")'
    assert_output "createNodusDevV1NamespacedJob application/json #/definitions/dev.nodus.v1.Job"
    run body_json '.paths["/api/v1/namespaces/{name}"].get["x-kubernetes-group-version-kind"].kind'
    assert_output Namespace
    run body_json '.paths["/apis/nodus.dev/v1/namespaces/{namespace}/images"] | keys | join(",")'
    assert_output "get,parameters"
}

@test "/openapi/v2 as protobuf decodes to the same document as the JSON" {
    http GET /openapi/v2
    cp "$BODY" "$BATS_TEST_TMPDIR/v2.json"
    http GET /openapi/v2 - -H "Accept: $PB_ASKED"
    [ "$CODE" = 200 ]
    [ "$(header Content-Type)" = "$PB" ]
    run python3 "$BATS_TEST_DIRNAME/fixtures/openapi-v2-decode.py" "$BATS_TEST_TMPDIR/v2.json" <"$BODY"
    assert_success
    assert_output same
    # the new name is served too, and a change in the JSON would show
    http GET /openapi/v2 - -H "Accept: $PB"
    [ "$(header Content-Type)" = "$PB" ]
    jq '.definitions["dev.nodus.v1.Job"].properties.spec.description = "x"' \
        "$BATS_TEST_TMPDIR/v2.json" >"$BATS_TEST_TMPDIR/changed.json"
    run python3 "$BATS_TEST_DIRNAME/fixtures/openapi-v2-decode.py" "$BATS_TEST_TMPDIR/changed.json" <"$BODY"
    assert_failure 1
    assert_output "\$.definitions.dev.nodus.v1.Job.properties.spec.description: 'JobSpec is what the Job runs and what it may spend.' (protobuf) != 'x' (JSON)"
}

@test "/openapi/v2: Accept chooses as kube-apiserver does; anything else is 406 NotAcceptable" {
    local accept want
    while IFS='|' read -r accept want; do
        http GET /openapi/v2 - -H "Accept: $accept"
        assert_equal "$accept -> $CODE $(header Content-Type)" "$accept -> $want"
    done <<EOF
*/*|200 application/json
application/json|200 application/json
application/*|200 application/json
application/json;q=0.5, $PB_ASKED|200 $PB
$PB_ASKED;q=0.9, application/json|200 application/json
text/html, $PB;q=0.1|200 $PB
text/html, */*;q=0.1|200 application/json
application/json;q=0|406 application/json
EOF
    http GET /openapi/v2 - -H "Accept: text/html"
    [ "$CODE" = 406 ]
    run body_json '[.reason, .code, .message] | map(tostring) | join(" | ")'
    assert_output "NotAcceptable | 406 | /openapi/v2 is served as application/json or as $PB"
    http GET /openapi/v2 - -H "Accept:"
    [ "$CODE $(header Content-Type)" = "200 application/json" ]
}

@test "/openapi/v2: ETags per encoding, If-None-Match answers 304; writes are refused" {
    http GET /openapi/v2
    local json_tag pb_tag
    json_tag=$(header ETag)
    http GET /openapi/v2 - -H "Accept: $PB_ASKED"
    pb_tag=$(header ETag)
    [[ "$json_tag" =~ ^\"[0-9a-f]{16}\"$ ]]
    [[ "$pb_tag" =~ ^\"[0-9a-f]{16}\"$ ]]
    [ "$json_tag" != "$pb_tag" ]
    rm -f "$BODY"
    http GET /openapi/v2 - -H "Accept: $PB_ASKED" -H "If-None-Match: $pb_tag"
    [ "$CODE" = 304 ]
    [ ! -s "$BODY" ]
    http GET /openapi/v2 - -H "If-None-Match: $pb_tag"
    [ "$CODE" = 200 ]
    http POST /openapi/v2 '{}'
    [ "$CODE" = 405 ]
    http GET /openapi/v1
    [ "$CODE" = 404 ]
}

@test "kubectl 1.27 reads the protobuf: explain, and a create with a typo field is refused" {
    local dir
    dir=$(dirname "$(readlink -f "$(command -v kubectl 2>/dev/null || echo /nonexistent)")")
    [ -x "$dir/kubectl.1.27" ] || skip "no kubectl.1.27 on this machine"
    cat >"$BATS_TEST_TMPDIR/config" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: e, cluster: {server: "$(emu_url)"}}]
users: [{name: e, user: {}}]
contexts: [{name: e, context: {cluster: e, user: e, namespace: default}}]
current-context: e
EOF
    kc127() {
        HOME=$BATS_TEST_TMPDIR "$dir/kubectl.1.27" --kubeconfig "$BATS_TEST_TMPDIR/config" \
            --cache-dir "$BATS_TEST_TMPDIR/cache" "$@"
    }
    run -0 --separate-stderr kc127 explain jobs.spec.maxCostUSD
    assert_output --partial "FIELD: maxCostUSD <string>"
    # explain from v2 itself (the protobuf's definitions, GVK extension and descriptions)
    run -0 --separate-stderr kc127 explain jobs.spec.resources --output plaintext-openapiv2
    assert_line --index 0 "KIND:     Job"
    assert_line --index 1 "VERSION:  nodus.dev/v1"
    assert_line --index 2 "RESOURCE: resources <Object>"
    assert_line "     Resources are what the container gets."
    assert_line "   gpu	<Object>"
    run -0 --separate-stderr kc127 explain namespaces --output plaintext-openapiv2
    assert_line --index 0 "KIND:     Namespace"
    job_json typo '{"maxCostUDS":"1.00"}' >"$BATS_TEST_TMPDIR/typo.json"
    run -1 --separate-stderr kc127 create -f "$BATS_TEST_TMPDIR/typo.json"
    assert_output ""
    assert_equal "$stderr" 'The Job "typo" is invalid: spec.maxCostUDS: unknown field "spec.maxCostUDS"'
}
