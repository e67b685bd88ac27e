#!/usr/bin/env bats
# Who am I and may I: SelfSubjectReview and SelfSubjectAccessReview (kubectl auth whoami
# and auth can-i) served from the --token-file, listed in discovery, and answered by the
# same decision the router makes for the request itself.

load ../lib/common

bats_require_minimum_version 1.5.0

NS=/apis/nodus.dev/v1/namespaces
WHO=/apis/authentication.k8s.io/v1/selfsubjectreviews
MAY=/apis/authorization.k8s.io/v1/selfsubjectaccessreviews

setup_file() {
    cat >"$BATS_FILE_TMPDIR/tokens.json" <<'EOF'
{"tokens": {
  "t-root":  {"identity": "root", "projects": ["*"], "scopes": ["admin"]},
  "t-read":  {"identity": "rita", "projects": ["proj-a"], "scopes": ["read"]},
  "t-write": {"identity": "walt", "projects": ["proj-a", "proj-c"], "scopes": ["read", "write"]},
  "t-all":   {"identity": "ann"}}}
EOF
    chmod 600 "$BATS_FILE_TMPDIR/tokens.json"
    start_emulator --token-file "$BATS_FILE_TMPDIR/tokens.json"
    local ns
    for ns in proj-a proj-b; do
        http POST /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}" \
            -H 'Authorization: Bearer t-root'
    done
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    export HOME=$BATS_FILE_TMPDIR/home
}

# review TOKEN PATH BODY: POSTs a review as TOKEN.
review() {
    http POST "$2" "$3" -H "Authorization: Bearer $1"
}

# may TOKEN VERB RESOURCE NAMESPACE [NAME] [SUBRESOURCE]: "true" or "false reason".
may() {
    local body
    body=$(jq -cn --arg v "$2" --arg r "$3" --arg n "$4" --arg name "${5:-}" --arg sub "${6:-}" \
        '{apiVersion:"authorization.k8s.io/v1",kind:"SelfSubjectAccessReview",
          spec:{resourceAttributes:({verb:$v,resource:$r,namespace:$n,
            group:(if $r == "namespaces" then "" else "nodus.dev" end)}
            + (if $name != "" then {name:$name} else {} end)
            + (if $sub != "" then {subresource:$sub} else {} end))}}')
    review "$1" "$MAY" "$body"
    [ "$CODE" = 201 ] || { cat "$BODY" >&2; return 1; }
    jq -r '[(.status.allowed | tostring), (.status.reason // empty)] | join(" ")' "$BODY"
}

@test "discovery lists both review groups: /apis, aggregated /apis, and the group versions" {
    http GET /apis - -H 'Authorization: Bearer t-read'
    assert_equal "$CODE" 200
    assert_equal "$(body_json '[.groups[].name] | join(",")')" "nodus.dev,events.k8s.io,authentication.k8s.io,authorization.k8s.io"
    http GET /apis - -H 'Authorization: Bearer t-read' -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
    assert_equal "$(body_json '[.items[] | .metadata.name + "=" + ([.versions[0].resources[] | .resource + ":" + (.verbs | join("+")) + ":" + .scope] | join(" "))] | .[2:] | join(",")')" \
        "authentication.k8s.io=selfsubjectreviews:create:Cluster,authorization.k8s.io=selfsubjectaccessreviews:create:Cluster selfsubjectrulesreviews:create:Cluster"
    http GET /apis/authentication.k8s.io/v1 - -H 'Authorization: Bearer t-read'
    assert_equal "$CODE" 200
    assert_equal "$(jq -c '[.groupVersion, .resources[0].name, .resources[0].kind, .resources[0].namespaced, .resources[0].verbs]' "$BODY")" \
        '["authentication.k8s.io/v1","selfsubjectreviews","SelfSubjectReview",false,["create"]]'
    http GET /apis/authorization.k8s.io/v1 - -H 'Authorization: Bearer t-read'
    assert_equal "$(jq -c '[.groupVersion, .resources[0].name, .resources[0].kind]' "$BODY")" \
        '["authorization.k8s.io/v1","selfsubjectaccessreviews","SelfSubjectAccessReview"]'
    assert_equal "$(jq -c '[.resources[] | [.name, .kind, .namespaced, .verbs]]' "$BODY")" \
        '[["selfsubjectaccessreviews","SelfSubjectAccessReview",false,["create"]],["selfsubjectrulesreviews","SelfSubjectRulesReview",false,["create"]]]'
    http GET /apis/authorization.k8s.io - -H 'Authorization: Bearer t-read'
    assert_equal "$(body_json .preferredVersion.groupVersion)" "authorization.k8s.io/v1"
}

RULES=/apis/authorization.k8s.io/v1/selfsubjectrulesreviews

# rules TOKEN PROJECT: POSTs a SelfSubjectRulesReview of PROJECT as TOKEN.
rules() {
    review "$1" "$RULES" "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SelfSubjectRulesReview\",\"spec\":{\"namespace\":\"$2\"}}"
    [ "$CODE" = 201 ] || { cat "$BODY" >&2; return 1; }
}

# verbs_of RESOURCE [NAME]: the verbs the last rules review grants on RESOURCE (in group
# nodus.dev, or core for namespaces and events), for any name or for NAME.
verbs_of() {
    jq -r --arg r "$1" --arg n "${2:-}" '[.status.resourceRules[]
        | select(.resources | index($r))
        | select(if $n == "" then has("resourceNames") | not
                 else (.resourceNames // []) | index($n) end)
        | .verbs[]] | unique | join(" ")' "${RULES_JSON:-$BODY}"
}

@test "can-i --list: a SelfSubjectRulesReview in kube-apiserver's shape, 201, nothing stored" {
    before=$(find "$EMU_STATE" -type f -printf '%p %s %T@\n' | sort)
    rules t-read proj-a
    assert_equal "$(jq -c '[.kind, .apiVersion, .metadata, .spec, (.status | keys), .status.incomplete]' "$BODY")" \
        '["SelfSubjectRulesReview","authorization.k8s.io/v1",{"creationTimestamp":null},{},["incomplete","nonResourceRules","resourceRules"],false]'
    # every rule has verbs, groups and resources, and names only where they matter
    assert_equal "$(jq -c '[.status.resourceRules[] | keys - ["resourceNames"]] | unique' "$BODY")" '[["apiGroups","resources","verbs"]]'
    assert_equal "$(find "$EMU_STATE" -type f -printf '%p %s %T@\n' | sort)" "$before"
    http GET "$RULES" - -H 'Authorization: Bearer t-read'
    assert_equal "$CODE" 405
}

@test "can-i --list: the rules are what the same token may do, asked of the same decisions" {
    # a read token of proj-a: reads in proj-a, the log (read), never exec (write)
    rules t-read proj-a
    run -0 verbs_of jobs
    assert_output "get list watch"
    run -0 verbs_of jobs/log
    assert_output get
    run -0 verbs_of jobs/exec
    assert_output ""
    run -0 verbs_of namespaces
    assert_output "list watch"
    run -0 verbs_of namespaces proj-a
    assert_output get
    run -0 verbs_of namespaces proj-b
    assert_output ""
    assert_equal "$(jq -c '[.status.resourceRules[] | select(.apiGroups == ["authorization.k8s.io"]) | .resources, .verbs]' "$BODY")" \
        '[["selfsubjectaccessreviews","selfsubjectrulesreviews"],["create"]]'
    assert_equal "$(jq -c '[.status.nonResourceRules[] | .nonResourceURLs | index("/emulator/*")] | map(select(. != null))' "$BODY")" '[]'
    # ... and nothing in a project that is not its own
    rules t-read proj-b
    run -0 verbs_of jobs
    assert_output ""
    # a write token: every served verb in its project; read-only kinds and nodus read
    rules t-write proj-c
    run -0 verbs_of jobs
    assert_output "create delete deletecollection get list patch update watch"
    run -0 verbs_of images
    assert_output "get list watch"
    run -0 verbs_of events
    assert_output "get list watch"
    run -0 verbs_of functions/invoke
    assert_output create
    run -0 verbs_of volumes/files
    assert_output "create get update"
    run -0 verbs_of namespaces proj-c
    assert_output "create delete get patch update"
    run -0 verbs_of namespaces nodus
    assert_output get
    rules t-write nodus
    run -0 verbs_of jobs
    assert_output "get list watch"
    # every rule agrees with can-i: each verb listed is allowed, each left out refused
    rules t-write proj-a
    local verb listed RULES_JSON=$BATS_TEST_TMPDIR/rules.json
    cp "$BODY" "$RULES_JSON"
    for verb in get list watch create update patch delete deletecollection; do
        listed=false
        [[ " $(verbs_of sandboxes) " == *" $verb "* ]] && listed=true
        assert_equal "$verb $(may t-write "$verb" sandboxes proj-a | cut -d' ' -f1)" "$verb $listed"
        listed=false
        [[ " $(verbs_of sandboxes/exec) " == *" $verb "* ]] && listed=true
        assert_equal "exec $verb $(may t-write "$verb" sandboxes proj-a s exec | cut -d' ' -f1)" "exec $verb $listed"
    done
    run -0 may t-write update images nodus
    assert_output "false images.nodus.dev are published by Nodus and cannot be changed (get, list, watch only)"
}

@test "can-i --list: a token of every project may do more than rules can name: incomplete, and why" {
    rules t-root proj-a
    assert_equal "$(jq -c '[.status.incomplete, .status.evaluationError]' "$BODY")" \
        '[true,"root may also create, delete, patch and update namespaces, and patch and update namespaces/status of projects other than those named here (but not of nodus, which is read-only): a rule cannot name every project but one"]'
    run -0 verbs_of namespaces
    assert_output "deletecollection get list watch"
    run -0 verbs_of namespaces proj-a
    assert_output "create delete patch update"
    assert_equal "$(jq -c '.status.nonResourceRules[] | select(.nonResourceURLs == ["/emulator/*"]) | .verbs' "$BODY")" '["get","post","put","delete"]'
    run -0 may t-root delete namespaces "" nodus
    assert_output "false the project nodus is read-only"
}

@test "can-i --list: a body without spec.namespace, or not a rules review, is a BadRequest with a fix" {
    local fix='name the project: {"spec": {"namespace": "default"}} (kubectl auth can-i --list -n PROJECT)'
    review t-read "$RULES" '{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{}}'
    assert_equal "$CODE" 400
    assert_equal "$(jq -c '[.reason, .message, .details.fix // .fix]' "$BODY")" "[\"BadRequest\",\"no namespace on request\",$(jq -cn --arg f "$fix" '$f')]"
    review t-read "$RULES" '{}'
    assert_equal "$(jq -r .message "$BODY")" "no namespace on request"
    review t-read "$RULES" '{"spec":{"namespace":7}}'
    assert_equal "$(jq -r '[.code, .message] | join(" ")' "$BODY")" "400 spec.namespace must be a string"
    review t-read "$RULES" '{"kind":"SelfSubjectAccessReview","spec":{"namespace":"proj-a"}}'
    assert_equal "$(jq -r '[.code, .message] | join(" ")' "$BODY")" "400 not a SelfSubjectRulesReview: the body is a SelfSubjectAccessReview"
    review t-read "$RULES" 'not json'
    assert_equal "$CODE" 400
    http POST "$RULES" '{"spec":{"namespace":"proj-a"}}'
    assert_equal "$CODE" 401
}

@test "can-i --list as protobuf (kubectl 1.32 and later): decoded, answered in JSON" {
    # a SelfSubjectRulesReview of proj-a, in the k8s envelope
    printf '\x6b\x38\x73\x00\x0a\x31\x0a\x17\x61\x75\x74\x68\x6f\x72\x69\x7a\x61\x74\x69\x6f\x6e\x2e\x6b\x38\x73\x2e\x69\x6f\x2f\x76\x31\x12\x16\x53\x65\x6c\x66\x53\x75\x62\x6a\x65\x63\x74\x52\x75\x6c\x65\x73\x52\x65\x76\x69\x65\x77\x12\x0a\x12\x08\x0a\x06\x70\x72\x6f\x6a\x2d\x61' \
        >"$BATS_TEST_TMPDIR/ssrr.pb"
    http POST "$RULES" "@$BATS_TEST_TMPDIR/ssrr.pb" -H 'Content-Type: application/vnd.kubernetes.protobuf' -H 'Authorization: Bearer t-read'
    assert_equal "$CODE" 201
    run -0 verbs_of jobs
    assert_output "get list watch"
}

@test "whoami: each token's identity, projects and scopes; no token or an unknown one is 401" {
    review t-read "$WHO" '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}'
    assert_equal "$CODE" 201
    assert_equal "$(jq -c '[.kind, .apiVersion, .status.userInfo]' "$BODY")" \
        '["SelfSubjectReview","authentication.k8s.io/v1",{"username":"rita","groups":["system:authenticated"],"extra":{"nodus.dev/projects":["proj-a"],"nodus.dev/scopes":["read"]}}]'
    review t-all "$WHO" '{}'
    assert_equal "$(jq -c '.status.userInfo.extra' "$BODY")" '{"nodus.dev/projects":["*"],"nodus.dev/scopes":["read","write","billing:write","admin"]}'
    http POST "$WHO" '{}'
    assert_equal "$CODE" 401
    review t-nope "$WHO" '{}'
    assert_equal "$CODE" 401
    assert_equal "$(body_json .message)" "the bearer token is not known"
}

@test "whoami in v1beta1 (kubectl 1.27 asks it) is answered as v1beta1" {
    review t-read /apis/authentication.k8s.io/v1beta1/selfsubjectreviews \
        '{"apiVersion":"authentication.k8s.io/v1beta1","kind":"SelfSubjectReview"}'
    assert_equal "$CODE" 201
    assert_equal "$(jq -c '[.kind, .apiVersion, .status.userInfo.username]' "$BODY")" \
        '["SelfSubjectReview","authentication.k8s.io/v1beta1","rita"]'
    http POST /apis/authentication.k8s.io/v1beta1/selfsubjectreviews '{}'
    assert_equal "$CODE" 401
}

@test "a review is for any valid token: a read-only one creates both, and they store nothing" {
    before=$(find "$EMU_STATE" -type f -printf '%p %s %T@\n' | sort)
    review t-read "$WHO" '{}'
    assert_equal "$CODE" 201
    run -0 may t-read get jobs proj-a
    assert_output true
    run -0 may t-read create jobs proj-a
    assert_equal "$(find "$EMU_STATE" -type f -printf '%p %s %T@\n' | sort)" "$before"
    http GET "$WHO" - -H 'Authorization: Bearer t-read'
    assert_equal "$CODE" 405
    http GET "$MAY" - -H 'Authorization: Bearer t-read'
    assert_equal "$CODE" 405
}

@test "can-i: the token's scopes, projects and the read-only project nodus" {
    run -0 may t-read get jobs proj-a
    assert_output true
    run -0 may t-read list jobs proj-a
    assert_output true
    run -0 may t-read get jobs proj-a train log
    assert_output true
    run -0 may t-read create jobs proj-a
    assert_output "false rita may not create $NS/proj-a/jobs: it needs the token scope write"
    run -0 may t-read create jobs proj-a box exec
    assert_output "false rita may not exec into $NS/proj-a/jobs/box/exec: it needs the token scope write"
    run -0 may t-read get jobs proj-b
    assert_output "false rita may not get $NS/proj-b/jobs: the token is not for project proj-b"
    run -0 may t-read list images nodus
    assert_output true
    run -0 may t-write create jobs proj-c
    assert_output true
    run -0 may t-write delete jobs nodus
    assert_output "false the project nodus is read-only"
    run -0 may t-all create jobs proj-b
    assert_output true
    # every project at once (-A), for a token of some projects only
    run -0 may t-write list jobs ""
    assert_output "true answered with the objects of the token's projects only"
    run -0 may t-write create jobs ""
    assert_output "false walt may create jobs only in its own projects"
    run -0 may t-all create jobs ""
    assert_output true
    # projects themselves
    run -0 may t-write create namespaces "" proj-c
    assert_output true
    run -0 may t-write create namespaces "" proj-z
    assert_output "false walt may not create /api/v1/namespaces/proj-z: the token is not for project proj-z"
    run -0 may t-write deletecollection namespaces ""
    assert_output "false walt may not delete every project at once (/api/v1/namespaces): that needs a token for every project (\"projects\": [\"*\"])"
    # what the server does not have
    run -0 may t-all create widgets proj-a
    assert_output 'false the server has no resource "widgets" in the group nodus.dev'
    run -0 may t-all get volumes proj-a v log
    assert_output 'false volumes have no subresource "log"'
    run -0 may t-all escalate jobs proj-a
    assert_output 'false the verb "escalate" is not one this server knows (get, list, watch, create, update, patch, delete, deletecollection)'
}

@test "can-i answers what the request itself gets" {
    job='{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"j"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"1.00"}}'
    local t verb ns path method body allowed
    while read -r t verb ns method path; do
        allowed=$(may "$t" "$verb" jobs "$ns" | cut -d' ' -f1)
        body=-
        [ "$method" = POST ] && body=$job
        http "$method" "$path" "$body" -H "Authorization: Bearer $t" -H 'Content-Type: application/json'
        if [ "$allowed" = true ]; then
            [ "$CODE" != 403 ] || { echo "$t $verb $ns: can-i yes, the request $CODE" >&2; return 1; }
        else
            [ "$CODE" = 403 ] || { echo "$t $verb $ns: can-i no, the request $CODE" >&2; return 1; }
        fi
    done <<EOF
t-read list proj-a GET $NS/proj-a/jobs
t-read create proj-a POST $NS/proj-a/jobs?dryRun=All
t-read list proj-b GET $NS/proj-b/jobs
t-write create proj-a POST $NS/proj-a/jobs?dryRun=All
t-write create proj-b POST $NS/proj-b/jobs?dryRun=All
t-write create nodus POST $NS/nodus/jobs?dryRun=All
t-all create proj-b POST $NS/proj-b/jobs?dryRun=All
EOF
}

@test "a review without attributes, or not JSON, is a BadRequest with a fix" {
    review t-read "$MAY" '{"spec":{}}'
    assert_equal "$CODE" 400
    assert_equal "$(jq -c '[.reason, .message, .details.fix // .fix]' "$BODY")" \
        '["BadRequest","spec.resourceAttributes or spec.nonResourceAttributes is required","ask with a client that fills it in (kubectl auth can-i works too): nodus auth can-i create jobs"]'
    review t-read "$MAY" 'not json'
    assert_equal "$CODE" 400
    review t-read "$MAY" '{"spec":{"nonResourceAttributes":{"path":"/emulator/v1/clock","verb":"post"}}}'
    assert_equal "$(jq -c .status "$BODY")" '{"allowed":false,"reason":"rita may not use /emulator/v1/clock: it needs the token scope admin"}'
    review t-read "$MAY" '{"spec":{"nonResourceAttributes":{"path":"/version","verb":"get"}}}'
    assert_equal "$(jq -c .status "$BODY")" '{"allowed":true}'
}

@test "nodus auth against a token file: whoami and can-i as the token sees them" {
    export NODUS_SERVER=$(emu_url)
    run -0 --separate-stderr nodus auth whoami --token t-write
    assert_output "ATTRIBUTE                   VALUE
Username                    walt
Groups                      [system:authenticated]
Extra: nodus.dev/projects   [proj-a proj-c]
Extra: nodus.dev/scopes     [read write]"
    run -0 nodus auth can-i create jobs -n proj-a --token t-write
    assert_output yes
    run -1 nodus auth can-i create jobs -n proj-a --token t-read
    assert_output "no - rita may not create $NS/proj-a/jobs: it needs the token scope write"
    run -1 nodus auth can-i create jobs -A --token t-write
    assert_output "no - walt may create jobs only in its own projects"
    run -5 --separate-stderr nodus auth whoami --token t-nope
    assert_output ""
    assert_equal "${stderr%%$'\n'*}" "Error from server (Unauthorized): the bearer token is not known"
}

@test "reviews as protobuf (kubectl 1.32 and later send them so): decoded, answered in JSON" {
    local pb=application/vnd.kubernetes.protobuf
    # a SelfSubjectAccessReview: create jobs.nodus.dev in proj-a, in the k8s envelope
    printf '\x6b\x38\x73\x00\x0a\x32\x0a\x17\x61\x75\x74\x68\x6f\x72\x69\x7a\x61\x74\x69\x6f\x6e\x2e\x6b\x38\x73\x2e\x69\x6f\x2f\x76\x31\x12\x17\x53\x65\x6c\x66\x53\x75\x62\x6a\x65\x63\x74\x41\x63\x63\x65\x73\x73\x52\x65\x76\x69\x65\x77\x12\x25\x12\x23\x0a\x21\x0a\x06\x70\x72\x6f\x6a\x2d\x61\x12\x06\x63\x72\x65\x61\x74\x65\x1a\x09\x6e\x6f\x64\x75\x73\x2e\x64\x65\x76\x2a\x04\x6a\x6f\x62\x73' \
        >"$BATS_TEST_TMPDIR/ssar.pb"
    http POST "$MAY" "@$BATS_TEST_TMPDIR/ssar.pb" -H "Content-Type: $pb" -H 'Authorization: Bearer t-read'
    assert_equal "$CODE" 201
    assert_equal "$(jq -c '[.spec.resourceAttributes, .status]' "$BODY")" \
        '[{"namespace":"proj-a","verb":"create","group":"nodus.dev","resource":"jobs"},{"allowed":false,"reason":"rita may not create /apis/nodus.dev/v1/namespaces/proj-a/jobs: it needs the token scope write"}]'
    http POST "$MAY" "@$BATS_TEST_TMPDIR/ssar.pb" -H "Content-Type: $pb" -H 'Authorization: Bearer t-write'
    assert_equal "$(jq -c .status "$BODY")" '{"allowed":true}'
    # a SelfSubjectReview (its body says nothing but its kind)
    printf '\x6b\x38\x73\x00\x0a\x2d\x0a\x18\x61\x75\x74\x68\x65\x6e\x74\x69\x63\x61\x74\x69\x6f\x6e\x2e\x6b\x38\x73\x2e\x69\x6f\x2f\x76\x31\x12\x11\x53\x65\x6c\x66\x53\x75\x62\x6a\x65\x63\x74\x52\x65\x76\x69\x65\x77\x12\x00' \
        >"$BATS_TEST_TMPDIR/ssr.pb"
    http POST "$WHO" "@$BATS_TEST_TMPDIR/ssr.pb" -H "Content-Type: $pb" -H 'Authorization: Bearer t-read'
    assert_equal "$CODE" 201
    assert_equal "$(jq -r .status.userInfo.username "$BODY")" rita
    # cut short, or another kind: BadRequest
    head -c 40 "$BATS_TEST_TMPDIR/ssar.pb" >"$BATS_TEST_TMPDIR/cut.pb"
    http POST "$MAY" "@$BATS_TEST_TMPDIR/cut.pb" -H "Content-Type: $pb" -H 'Authorization: Bearer t-read'
    assert_equal "$CODE" 400
    http POST "$MAY" "@$BATS_TEST_TMPDIR/ssr.pb" -H "Content-Type: $pb" -H 'Authorization: Bearer t-read'
    assert_equal "$CODE" 400
    assert_equal "$(jq -r .message "$BODY")" "spec.resourceAttributes or spec.nonResourceAttributes is required"
}
