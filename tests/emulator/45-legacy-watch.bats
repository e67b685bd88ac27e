#!/usr/bin/env bats
# The deprecated watch paths kube-apiserver still serves (GoDaddy's kubernetes-client
# watches only through them): /apis/G/V/watch[/namespaces/NS]/PLURAL[/NAME] and
# /api/v1/watch/..., each the watch of the list (or of one object) it names, with the
# same query parameters and the same authorisation; other methods are 405; and
# /openapi/v2 and /openapi/v3 describe them as kube-apiserver does.

load ../lib/common

G=/apis/nodus.dev/v1
NSP=$G/namespaces
ROOT=(-H 'Authorization: Bearer t-root')
TEAM=(-H 'Authorization: Bearer t-team')
MERGE=(-H 'Content-Type: application/merge-patch+json')

setup_file() {
    cat >"$BATS_FILE_TMPDIR/tokens.json" <<'EOF'
{"tokens": {
  "t-root": {"identity": "root", "projects": ["*"], "scopes": ["admin"]},
  "t-team": {"identity": "tess", "projects": ["proj-a"], "scopes": ["read", "write"]}}}
EOF
    chmod 600 "$BATS_FILE_TMPDIR/tokens.json"
    start_emulator --token-file "$BATS_FILE_TMPDIR/tokens.json"
    local ns
    for ns in proj-a proj-b; do
        curl -sf -o /dev/null "${ROOT[@]}" -H 'Content-Type: application/json' \
            -d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}" \
            "$EMU_URL/api/v1/namespaces"
    done
}

teardown_file() {
    stop_extras
    stop_emulator
    # the sanitizer builds report here
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

# as root: http METHOD PATH [BODY] [curl args...]
rhttp() {
    local m=$1 p=$2 d=${3:--}
    shift 3 2>/dev/null || shift $#
    http "$m" "$p" "$d" "${ROOT[@]}" "$@"
}

watches_total() {
    curl -sS "${ROOT[@]}" "$(emu_url)/emulator/v1/stats" | jq -r .watchesTotal
}

# watch_bg PATH OUTFILE [curl args]: a background watch as root (pid in WATCH_PID),
# returned once the emulator has registered it.
watch_bg() {
    local url=$1 out=$2 n
    shift 2
    n=$(watches_total)
    curl -sN "${ROOT[@]}" "$@" "$(emu_url)$url" >"$out" 3>&- &
    WATCH_PID=$!
    wait_until watches_at_least $((n + 1))
}

# wait_for FILE REGEX: waits (up to 15 s) until a line of FILE matches, then ends the watch.
wait_for() {
    wait_until -t 15 grep -qE "$2" "$1" || true # the assertions say what is missing
    kill "$WATCH_PID" 2>/dev/null || true
    wait "$WATCH_PID" 2>/dev/null || true
}

rv_now() {
    rhttp GET "$NSP/proj-a/jobs?limit=1"
    body_json .metadata.resourceVersion
}

# events FILE: "TYPE project/name" lines of a watch's output, consecutive repeats once
# (the Job controller writes status too)
events() {
    jq -r '.type + " " + (.object.metadata.namespace // "") + "/" + .object.metadata.name' "$1" | uniq
}

@test "watch/namespaces/NS/PLURAL: every change after a resourceVersion, in order" {
    local rv
    rv=$(rv_now)
    watch_bg "$G/watch/namespaces/proj-a/jobs?resourceVersion=$rv" "$BATS_TEST_TMPDIR/w"
    rhttp POST "$NSP/proj-a/jobs" "$(job_json w1)"
    [ "$CODE" = 201 ]
    rhttp POST "$NSP/proj-b/jobs" "$(job_json w1)" # another project: unseen
    rhttp PATCH "$NSP/proj-a/jobs/w1" '{"metadata":{"labels":{"a":"b"}}}' "${MERGE[@]}"
    rhttp DELETE "$NSP/proj-a/jobs/w1"
    wait_for "$BATS_TEST_TMPDIR/w" '"type":"DELETED"'
    run events "$BATS_TEST_TMPDIR/w"
    assert_output $'ADDED proj-a/w1\nMODIFIED proj-a/w1\nDELETED proj-a/w1'
    # resuming from the ADDED event's resourceVersion sends what came after it
    rv=$(jq -r 'select(.type == "ADDED") | .object.metadata.resourceVersion' "$BATS_TEST_TMPDIR/w")
    curl -sN "${ROOT[@]}" "$(emu_url)$G/watch/namespaces/proj-a/jobs?resourceVersion=$rv&timeoutSeconds=1" \
        >"$BATS_TEST_TMPDIR/w2"
    run events "$BATS_TEST_TMPDIR/w2"
    assert_output $'MODIFIED proj-a/w1\nDELETED proj-a/w1'
}

@test "watch/PLURAL watches every project; without a resourceVersion the objects come first" {
    rhttp POST "$NSP/proj-a/jobs" "$(job_json all1)"
    rhttp POST "$NSP/proj-b/jobs" "$(job_json all2)"
    curl -sN "${ROOT[@]}" "$(emu_url)$G/watch/jobs?timeoutSeconds=1&labelSelector=" >"$BATS_TEST_TMPDIR/w"
    run bash -c "jq -r '.type + \" \" + .object.metadata.namespace + \"/\" + .object.metadata.name' '$BATS_TEST_TMPDIR/w' | sort"
    assert_output $'ADDED proj-a/all1\nADDED proj-b/all2\nADDED proj-b/w1'
    # a namespaced kind has no watch of one object without its project
    rhttp GET "$G/watch/jobs/all1"
    [ "$CODE" = 404 ]
    run body_json '[.reason, .fix] | join(" | ")'
    assert_output "NotFound | add the project: .../watch/namespaces/{ns}/..."
}

@test "watch/namespaces/NS/PLURAL/NAME watches that one object (metadata.name=NAME)" {
    rhttp POST "$NSP/proj-a/jobs" "$(job_json one1)"
    rhttp POST "$NSP/proj-a/jobs" "$(job_json one2)"
    curl -sN "${ROOT[@]}" "$(emu_url)$G/watch/namespaces/proj-a/jobs/one1?timeoutSeconds=1" \
        >"$BATS_TEST_TMPDIR/w0"
    run events "$BATS_TEST_TMPDIR/w0"
    assert_output "ADDED proj-a/one1"
    local rv
    rv=$(rv_now)
    watch_bg "$G/watch/namespaces/proj-a/jobs/one1?resourceVersion=$rv" "$BATS_TEST_TMPDIR/w"
    rhttp PATCH "$NSP/proj-a/jobs/one2" '{"metadata":{"labels":{"a":"b"}}}' "${MERGE[@]}"
    rhttp PATCH "$NSP/proj-a/jobs/one1" '{"metadata":{"labels":{"a":"b"}}}' "${MERGE[@]}"
    rhttp DELETE "$NSP/proj-a/jobs/one1"
    wait_for "$BATS_TEST_TMPDIR/w" '"type":"DELETED"'
    run events "$BATS_TEST_TMPDIR/w"
    assert_output $'MODIFIED proj-a/one1\nDELETED proj-a/one1'
    # with a field selector too: both must hold
    curl -sN "${ROOT[@]}" "$(emu_url)$G/watch/namespaces/proj-a/jobs/one2?timeoutSeconds=1&fieldSelector=metadata.name%3Done1" \
        >"$BATS_TEST_TMPDIR/w1"
    [ ! -s "$BATS_TEST_TMPDIR/w1" ]
    # a name that cannot exist is watched, and nothing comes
    run curl -sN "${ROOT[@]}" -w '%{http_code}' "$(emu_url)$G/watch/namespaces/proj-a/jobs/Not_A_Name?timeoutSeconds=1"
    assert_output 200
}

@test "watch/namespaces and watch/namespaces/NAME watch the projects; events too" {
    curl -sN "${ROOT[@]}" "$(emu_url)/api/v1/watch/namespaces?timeoutSeconds=1" >"$BATS_TEST_TMPDIR/w"
    run bash -c "jq -r '.type + \" \" + .object.kind + \" \" + .object.metadata.name' '$BATS_TEST_TMPDIR/w' | sort"
    assert_output $'ADDED Namespace default\nADDED Namespace nodus\nADDED Namespace proj-a\nADDED Namespace proj-b'
    curl -sN "${ROOT[@]}" "$(emu_url)/api/v1/watch/namespaces/proj-b?timeoutSeconds=1" >"$BATS_TEST_TMPDIR/w"
    run events "$BATS_TEST_TMPDIR/w"
    assert_output "ADDED /proj-b"
    # the Events of a Job, through /api/v1/watch/namespaces/NS/events
    rhttp POST "$NSP/proj-b/jobs" "$(job_json ev1)"
    curl -sN "${ROOT[@]}" "$(emu_url)/api/v1/watch/namespaces/proj-b/events?timeoutSeconds=1&fieldSelector=involvedObject.name%3Dev1" \
        >"$BATS_TEST_TMPDIR/e"
    run jq -r '.type + " " + .object.kind + " " + .object.involvedObject.name + " " + .object.reason' "$BATS_TEST_TMPDIR/e"
    assert_line "ADDED Event ev1 Created"
}

@test "selectors on a watch path: a label watch sees objects enter and leave" {
    local rv
    rv=$(rv_now)
    watch_bg "$G/watch/namespaces/proj-a/jobs?resourceVersion=$rv&labelSelector=pick%3Dme" "$BATS_TEST_TMPDIR/w"
    rhttp PATCH "$NSP/proj-a/jobs/one2" '{"metadata":{"labels":{"pick":"me"}}}' "${MERGE[@]}"
    rhttp PATCH "$NSP/proj-a/jobs/one2" '{"metadata":{"labels":{"pick":null}}}' "${MERGE[@]}"
    rhttp PATCH "$NSP/proj-a/jobs/all1" '{"metadata":{"labels":{"pick":"me"}}}' "${MERGE[@]}"
    wait_for "$BATS_TEST_TMPDIR/w" '"name":"all1"'
    run events "$BATS_TEST_TMPDIR/w"
    assert_output $'ADDED proj-a/one2\nDELETED proj-a/one2\nADDED proj-a/all1'
    # a bad selector is refused as on the list path
    rhttp GET "$G/watch/namespaces/proj-a/jobs?labelSelector=a+in+("
    [ "$CODE" = 400 ]
}

@test "timeoutSeconds ends a watch path's stream cleanly; ?watch=false still watches" {
    local start end
    start=$(date +%s)
    run curl -sN "${ROOT[@]}" -D "$BATS_TEST_TMPDIR/h" "$(emu_url)$G/watch/namespaces/proj-a/jobs?resourceVersion=$(rv_now)&timeoutSeconds=1"
    [ "$status" -eq 0 ]
    end=$(date +%s)
    [ $((end - start)) -le 5 ]
    grep -qi '^Transfer-Encoding: chunked' "$BATS_TEST_TMPDIR/h"
    run curl -sN "${ROOT[@]}" --max-time 2 "$(emu_url)$G/watch/namespaces/proj-a/jobs?watch=false&resourceVersion=$(rv_now)"
    [ "$status" -eq 28 ] # curl's own timeout: the server kept the watch open
    rhttp GET "$G/watch/namespaces/proj-a/jobs?timeoutSeconds=soon"
    [ "$CODE" = 400 ]
}

@test "bookmarks on a watch path when allowed" {
    watch_bg "$G/watch/namespaces/proj-a/jobs?resourceVersion=$(rv_now)&allowWatchBookmarks=true" "$BATS_TEST_TMPDIR/w"
    curl -sf -o /dev/null "${ROOT[@]}" -X POST "$(emu_url)/emulator/v1/clock" \
        -H 'Content-Type: application/json' -d '{"advance":"31s"}'
    wait_for "$BATS_TEST_TMPDIR/w" BOOKMARK
    run jq -r 'select(.type == "BOOKMARK") | .type + " " + .object.kind + " " + (.object.metadata.resourceVersion | test("^[0-9]+$") | tostring)' "$BATS_TEST_TMPDIR/w"
    assert_line "BOOKMARK Job true"
}

@test "a watch path is authorised as the list it watches" {
    # another project's collection, object and Namespace: 403 as the list path answers
    local p list
    for p in "$G/watch/namespaces/proj-b/jobs|$NSP/proj-b/jobs?watch=true" \
        "$G/watch/namespaces/proj-b/jobs/w1|$NSP/proj-b/jobs/w1" \
        "/api/v1/watch/namespaces/proj-b|/api/v1/namespaces/proj-b"; do
        list=${p#*|}
        p=${p%|*}
        http GET "$list" - "${TEAM[@]}"
        [ "$CODE" = 403 ]
        body_json '[.reason, .message, .fix] | join(" | ")' >"$BATS_TEST_TMPDIR/want"
        http GET "$p" - "${TEAM[@]}"
        [ "$CODE" = 403 ]
        run body_json '[.reason, .message, .fix] | join(" | ")'
        # the same words, but for the verb (get of an object, watch here) and the path
        assert_output "$(sed "s#may not [a-z]* ${list%%\?*}:#may not watch $p:#" "$BATS_TEST_TMPDIR/want")"
    done
    assert_output --partial "Forbidden | tess may not watch /api/v1/watch/namespaces/proj-b: the token is not for project proj-b"
    # its own project passes; every project at once is filtered to its own (and nodus)
    run curl -sN "${TEAM[@]}" "$(emu_url)$G/watch/namespaces/proj-a/jobs/all1?timeoutSeconds=1"
    assert_output --partial '"name":"all1"'
    curl -sN "${TEAM[@]}" "$(emu_url)$G/watch/jobs?timeoutSeconds=1" >"$BATS_TEST_TMPDIR/w"
    run bash -c "jq -r .object.metadata.namespace '$BATS_TEST_TMPDIR/w' | sort -u"
    assert_output proj-a
    # no token: 401
    http GET "$G/watch/namespaces/proj-a/jobs?timeoutSeconds=1"
    [ "$CODE" = 401 ]
}

@test "a watch path takes only GET: other methods are 405 MethodNotAllowed and change nothing" {
    local m p k=0 before cfg=$BATS_TEST_TMPDIR/run.cfg
    local -a what=() codes=()
    before=$(curl -sf "${ROOT[@]}" "$(emu_url)/api/v1/namespaces" | jq -c '[.items[].metadata.name]')
    # every method on every shape, through one curl (a config of requests)
    for p in "$G/watch/namespaces/proj-a/jobs" "$G/watch/namespaces/proj-a/jobs/all1" \
        "$G/watch/jobs" "/api/v1/watch/namespaces" "/api/v1/watch/namespaces/proj-a"; do
        for m in POST PUT PATCH DELETE; do
            [ "$k" = 0 ] || echo next
            echo "url = \"$(emu_url)$p\""
            echo "request = \"$m\""
            echo "output = \"$BATS_TEST_TMPDIR/out.$k\""
            echo 'write-out = "%{http_code}\n"'
            echo 'header = "Authorization: Bearer t-root"'
            echo 'header = "Content-Type: application/json"'
            echo 'data-binary = "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"zz\"}}"'
            what+=("$m $p")
            k=$((k + 1))
        done
    done >"$cfg"
    mapfile -t codes < <(curl -s -K "$cfg" </dev/null)
    for k in "${!what[@]}"; do
        m=${what[$k]%% *}
        p=${what[$k]#* }
        assert_equal "${what[$k]}: ${codes[$k]:-none} $(jq -r '[.reason, .message, .fix] | join(" | ")' "$BATS_TEST_TMPDIR/out.$k")" \
            "${what[$k]}: 405 MethodNotAllowed | the server does not allow this method on the requested resource: $m on $p (a watch path takes only GET) | watch with GET here; for other verbs leave /watch out of the path"
    done
    [ "$k" = 19 ]
    run bash -c "curl -sf -H 'Authorization: Bearer t-root' '$(emu_url)/api/v1/namespaces' | jq -c '[.items[].metadata.name]'"
    assert_output "$before"
    rhttp GET "$NSP/proj-a/jobs/all1"
    [ "$CODE" = 200 ]
    # a subresource is not watched
    rhttp GET "$G/watch/namespaces/proj-a/jobs/all1/log"
    [ "$CODE" = 404 ]
    rhttp GET "/api/v1/watch/namespaces/proj-a/status"
    [ "$CODE" = 404 ]
}

@test "kubectl get --raw reads a watch path" {
    command -v kubectl >/dev/null || skip "no kubectl on this machine"
    # kubectl sends a token only over https: an emulator without a token file
    start_extra open --speed 0
    HOME=$BATS_TEST_TMPDIR run kubectl --kubeconfig=/dev/null --server="$XURL" \
        get --raw "/api/v1/watch/namespaces/default?timeoutSeconds=1"
    assert_success
    run jq -r '.type + " " + .object.metadata.name' <<<"$output"
    assert_output "ADDED default"
}

@test "/openapi/v3 describes the watch paths as kube-apiserver does" {
    rhttp GET /openapi/v3/apis/nodus.dev/v1
    run body_json '[.paths | to_entries[] | select(.key | contains("/watch/")) | select(.key | test("/(jobs|hosts)")) |
                   .key + " " + .value.get.operationId + " " + .value.get["x-kubernetes-action"] + " " +
                   (.value.get.deprecated | tostring) + " " + (.value | keys | join(","))] | sort[]'
    assert_output "$(cat <<EOF
$G/watch/hosts watchNodusDevV1HostListForAllNamespaces watchlist true get,parameters
$G/watch/jobs watchNodusDevV1JobListForAllNamespaces watchlist true get,parameters
$G/watch/namespaces/{namespace}/hosts watchNodusDevV1NamespacedHostList watchlist true get,parameters
$G/watch/namespaces/{namespace}/hosts/{name} watchNodusDevV1NamespacedHost watch true get,parameters
$G/watch/namespaces/{namespace}/jobs watchNodusDevV1NamespacedJobList watchlist true get,parameters
$G/watch/namespaces/{namespace}/jobs/{name} watchNodusDevV1NamespacedJob watch true get,parameters
EOF
)"
    run body_json '.paths["/apis/nodus.dev/v1/watch/namespaces/{namespace}/jobs/{name}"] |
                   (.get.description, ([.parameters[].name] | join(",")),
                    (.get.responses["200"].content | to_entries[] | .key + " " + .value.schema["$ref"]),
                    (.get["x-kubernetes-group-version-kind"] | .group + "/" + .version + "/" + .kind))'
    assert_output "watch changes to an object of kind Job. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.
allowWatchBookmarks,continue,fieldSelector,labelSelector,limit,namespace,name,pretty,resourceVersion,resourceVersionMatch,sendInitialEvents,timeoutSeconds,watch
application/json #/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent
application/json;stream=watch #/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent
nodus.dev/v1/Job"
    run body_json '.components.schemas["io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"] | [.required[], (.properties | keys[])] | join(",")'
    assert_output "type,object,object,type"
    rhttp GET /openapi/v3/api/v1
    run body_json '[.paths | to_entries[] | select(.key | contains("/watch/")) | .key + " " + .value.get.operationId + " " + .value.get["x-kubernetes-action"]] | sort[]'
    assert_output "$(cat <<EOF
/api/v1/watch/events watchCoreV1EventListForAllNamespaces watchlist
/api/v1/watch/namespaces watchCoreV1NamespaceList watchlist
/api/v1/watch/namespaces/{namespace}/events watchCoreV1NamespacedEventList watchlist
/api/v1/watch/namespaces/{namespace}/events/{name} watchCoreV1NamespacedEvent watch
/api/v1/watch/namespaces/{name} watchCoreV1Namespace watch
EOF
)"
}

@test "/openapi/v2 describes them too, as JSON and as protobuf" {
    rhttp GET /openapi/v2
    cp "$BODY" "$BATS_TEST_TMPDIR/v2.json"
    run body_json '.paths["/apis/nodus.dev/v1/watch/namespaces/{namespace}/jobs"].get |
                   [.operationId, .["x-kubernetes-action"], (.deprecated | tostring),
                    (.produces | join(",")), .responses["200"].schema["$ref"]] | join(" ")'
    assert_output "watchNodusDevV1NamespacedJobList watchlist true application/json,application/yaml,application/json;stream=watch #/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"
    run body_json '.definitions["io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"].required | join(",")'
    assert_output "type,object"
    rhttp GET /openapi/v2 - -H 'Accept: application/com.github.proto-openapi.spec.v2.v1.0+protobuf'
    [ "$CODE" = 200 ]
    python3 "$BATS_TEST_DIRNAME/fixtures/openapi-v2-decode.py" <"$BODY" >"$BATS_TEST_TMPDIR/pb.json"
    run jq -r '.paths["/api/v1/watch/namespaces/{name}"].get |
               [.operationId, .["x-kubernetes-action"], (.deprecated | tostring)] | join(" ")' \
        "$BATS_TEST_TMPDIR/pb.json"
    assert_output "watchCoreV1Namespace watch true"
    run python3 "$BATS_TEST_DIRNAME/fixtures/openapi-v2-decode.py" "$BATS_TEST_TMPDIR/v2.json" <"$BODY"
    assert_output same
}

# last: it moves the clock a day on
@test "resuming a watch path from before the kept history sends ERROR 410 Expired" {
    local rv
    rv=$(rv_now)
    rhttp POST "$NSP/proj-a/jobs" "$(job_json old1)"
    curl -sf -o /dev/null "${ROOT[@]}" -X POST "$(emu_url)/emulator/v1/clock" \
        -H 'Content-Type: application/json' -d '{"advance":"25h"}'
    rhttp POST "$NSP/proj-a/jobs" "$(job_json old2)"
    curl -sN "${ROOT[@]}" "$(emu_url)$G/watch/namespaces/proj-a/jobs?resourceVersion=$rv&timeoutSeconds=1" \
        >"$BATS_TEST_TMPDIR/w"
    run jq -r '.type + " " + (.object.code|tostring) + " " + .object.reason' "$BATS_TEST_TMPDIR/w"
    assert_output "ERROR 410 Expired"
    curl -sN "${ROOT[@]}" "$(emu_url)/api/v1/watch/namespaces/proj-a?resourceVersion=$rv&timeoutSeconds=1" \
        >"$BATS_TEST_TMPDIR/w"
    run jq -r '.type + " " + (.object.code|tostring) + " " + .object.reason' "$BATS_TEST_TMPDIR/w"
    assert_output "ERROR 410 Expired"
}
