#!/usr/bin/env bats
# Discovery (legacy and aggregated), OpenAPI v3, projects, the catalogue, Events.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

AGG_V2='Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'
AGG_B1='Accept: application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'

@test "/apis lists the group nodus.dev with its preferred version" {
    http GET /apis
    body_is .kind APIGroupList \
        '.groups[0].name' nodus.dev \
        '.groups[0].preferredVersion.groupVersion' nodus.dev/v1
    http GET /api
    body_is .kind APIVersions '.versions[0]' v1
}

@test "aggregated discovery answers with the first version offered" {
    http GET /apis - -H "$AGG_V2"
    [ "$(header Content-Type)" = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' ]
    [ "$(body_json .apiVersion)" = apidiscovery.k8s.io/v2 ]
    run body_json '.items[0].versions[0].resources[] | select(.resource == "jobs") | [.scope, .singularResource, (.shortNames|join(",")), (.categories|join(",")), .responseKind.kind, ([.subresources[].subresource]|join(","))] | join(" ")'
    assert_output "Namespaced job nj nodus,all Job status,log,exec"
    http GET /apis - -H "$AGG_B1"
    [ "$(header Content-Type)" = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' ]
    http GET /api - -H "$AGG_V2"
    run body_json '[.items[0].versions[0].resources[].resource] | sort | join(",")'
    assert_output "events,namespaces"
}

@test "the resource list has every kind with verbs, short names and subresources" {
    http GET /apis/nodus.dev/v1
    [ "$(body_json .kind)" = APIResourceList ]
    # the kinds, short names and categories are the registry's (pkg/kinds/kinds.c), as the
    # CRDs nodus prints from it have them
    local crds
    crds=$(nodus crds -o json)
    run body_json '[.resources[] | select(.name | contains("/") | not) | .name] | sort | join(",")'
    assert_output "$(jq -r '[.items[].spec.names.plural] | sort | join(",")' <<<"$crds")"
    assert_output --partial "jobs,pipelines,poolactions,pools,sandboxes"
    run body_json '[.resources[] | select(.name | contains("/") | not) | {(.name): (.shortNames // [])}] | add'
    assert_equal "$(jq -S . <<<"$output")" "$(jq -S '[.items[].spec.names | {(.plural): (.shortNames // [])}] | add' <<<"$crds")"
    run body_json '.resources[] | select(.name == "sandboxes") | .shortNames | join(",")'
    assert_output sbx
    run body_json '.resources[] | select(.name == "images") | .verbs | join(",")'
    assert_output "get,list,watch"
    run body_json '[.resources[] | select(.name | startswith("sandboxes/")) | .name] | join(",")'
    assert_output "sandboxes/status,sandboxes/log,sandboxes/exec,sandboxes/files"
    run body_json '[.resources[] | select(.categories // [] | index("all")) | .name] | sort | join(",")'
    assert_output "$(jq -r '[.items[].spec.names | select(.categories | index("all")) | .plural] | sort | join(",")' <<<"$crds")"
    assert_output --partial "jobs,pipelines,sandboxes"
}

@test "discovery documents carry ETags and answer If-None-Match with 304" {
    http GET /apis/nodus.dev/v1
    local etag
    etag=$(header ETag)
    [ -n "$etag" ]
    http GET /apis/nodus.dev/v1 - -H "If-None-Match: $etag"
    [ "$CODE" = 304 ]
}

@test "OpenAPI v3: the root points at the group document by hash" {
    http GET /openapi/v3
    local url
    url=$(body_json '.paths["apis/nodus.dev/v1"].serverRelativeURL')
    [[ "$url" =~ ^/openapi/v3/apis/nodus.dev/v1\?hash=[0-9A-F]{16}$ ]]
    http GET "$url"
    [ "$CODE" = 200 ]
    [ "$(header Cache-Control)" = 'public, immutable' ]
    [ "$(body_json '.paths | length')" -gt 10 ]
    http GET /openapi/v3
    url=$(body_json '.paths["api/v1"].serverRelativeURL')
    [[ "$url" =~ ^/openapi/v3/api/v1\?hash= ]]
    http GET "$url"
    [ "$(body_json '.components.schemas["io.k8s.api.core.v1.Namespace"].type')" = object ]
}

@test "OpenAPI v3: every kind has a GVK-tagged patch operation with fieldValidation" {
    http GET /openapi/v3/apis/nodus.dev/v1
    for plural in jobs sandboxes functions volumes budgets pools hosts poolactions pipelines; do
        run body_json ".paths[\"/apis/nodus.dev/v1/namespaces/{namespace}/$plural/{name}\"].patch | [.[\"x-kubernetes-group-version-kind\"].group, ([.parameters[].name] | index(\"fieldValidation\") != null | tostring)] | join(\" \")"
        assert_output "nodus.dev true"
    done
    run body_json '.components.schemas["dev.nodus.v1.Pool"].properties.spec.properties.routing.properties.waitTimeout.description'
    assert_output --partial "from 1m to 24h. Default 30m."
    run body_json '.components.schemas["dev.nodus.v1.Job"]["x-kubernetes-group-version-kind"][0].kind'
    assert_output Job
}

@test "OpenAPI: other documents than v2 and v3 are not served (v2: 31-openapi-v2.bats)" {
    http GET /openapi/v1
    [ "$CODE" = 404 ]
    http GET /swagger-2.0.0.pb-v1
    [ "$CODE" = 404 ]
}

@test "the projects default and nodus exist; nodus holds the image catalogue" {
    http GET /api/v1/namespaces
    run body_json '[.items[].metadata.name] | join(",")'
    assert_output default,nodus
    http GET /apis/nodus.dev/v1/namespaces/nodus/images/pytorch
    [ "$CODE" = 200 ]
    run body_json '[.spec.tags[].tag] | index("2.8-cuda12.8") != null'
    assert_output true
    [[ "$(body_json '.spec.tags[0].digest')" =~ ^sha256:[0-9a-f]{64}$ ]]
    http GET /apis/nodus.dev/v1/namespaces/nodus/images
    [ "$(body_json '.items | length')" -ge 5 ]
}

@test "projects can be created, listed and deleted" {
    http POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"research"}}'
    [ "$CODE" = 201 ]
    [ "$(body_json .status.phase)" = Active ]
    [[ "$(body_json .metadata.uid)" =~ ^ns_ ]]
    http GET /api/v1/namespaces/research
    [ "$CODE" = 200 ]
    http DELETE /api/v1/namespaces/research
    [ "$CODE" = 200 ]
    http GET /api/v1/namespaces/research
    [ "$CODE" = 404 ]
}

@test "Events record what happened to an object, for describe" {
    http POST /apis/nodus.dev/v1/namespaces/default/jobs "$(job_json evented)"
    http GET "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Devented"
    [ "$CODE" = 200 ]
    run body_json '.items[0] | [.involvedObject.kind, .involvedObject.name, .reason, .type] | join(" ")'
    assert_output "Job evented Created Normal"
    http POST /api/v1/namespaces/default/events '{"apiVersion":"v1","kind":"Event","metadata":{"name":"x"}}'
    [ "$CODE" = 405 ]
}

@test "tokens: without one Unauthorized, outside its projects Forbidden" {
    local dir=$BATS_TEST_TMPDIR/auth
    mkdir -p "$dir"
    cat >"$dir/tokens.json" <<'JSON'
{"tokens": {"t-alice": {"identity": "alice", "projects": ["default"], "scopes": ["read", "write"]},
            "t-reader": {"identity": "rita", "projects": ["*"], "scopes": ["read"]}}}
JSON
    chmod 600 "$dir/tokens.json"
    nodus-emulator --state "$dir/state" --listen 127.0.0.1:0 --port-file "$dir/port" \
        --token-file "$dir/tokens.json" --fsync never --quiet >/dev/null 2>&1 3>&- &
    local pid=$! u
    wait_until test -s "$dir/port"
    u="http://127.0.0.1:$(cat "$dir/port")"
    run curl -s -o /dev/null -w '%{http_code}' "$u/apis/nodus.dev/v1/namespaces/default/jobs"
    assert_output 401
    run curl -s -w '\n%{http_code}' -H 'Authorization: Bearer t-alice' -H 'Content-Type: application/json' \
        -X POST "$u/apis/nodus.dev/v1/namespaces/default/jobs" -d "$(job_json mine)"
    assert_line --index 1 201
    run jq -r '.metadata.labels["nodus.dev/created-by"]' <<<"${lines[0]}"
    assert_output alice
    run curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer t-alice' \
        "$u/apis/nodus.dev/v1/namespaces/other/jobs"
    assert_output 403
    run curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer t-reader' \
        -H 'Content-Type: application/json' -X POST "$u/apis/nodus.dev/v1/namespaces/default/jobs" \
        -d "$(job_json rita)"
    assert_output 403
    run curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer t-reader' \
        "$u/apis/nodus.dev/v1/namespaces/default/jobs"
    assert_output 200
    run curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer wrong' "$u/version"
    assert_output 401
    # every project at once: a token for some projects sees only those
    run curl -s -H 'Authorization: Bearer t-alice' "$u/apis/nodus.dev/v1/jobs"
    run jq -r '[.items[].metadata.namespace] | unique | join(" ")' <<<"$output"
    assert_output default
    run curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer t-reader' \
        "$u/apis/nodus.dev/v1/jobs"
    assert_output 200
    # gone before bats removes the test's directory: a stop writes the state held in it
    kill "$pid"
    wait "$pid" || true
}
