#!/usr/bin/env bats
# events.k8s.io/v1: the stored core Events seen through kube's newer Event shape (get,
# list, watch, Tables, read-only), field selectors of both groups as kube-apiserver takes
# them, and discovery and OpenAPI describing the group.

load ../lib/common

setup_file() {
    start_emulator
    # a Volume and a Job with their own Events (Created, then each phase)
    local code
    code=$(curl -sS -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"vol-e"},"spec":{"size":"10Gi"}}' \
        "$EMU_URL/apis/nodus.dev/v1/namespaces/default/volumes")
    [ "$code" = 201 ]
    code=$(job_json job-e | curl -sS -o /dev/null -w '%{http_code}' -X POST \
        -H 'Content-Type: application/json' --data-binary @- \
        "$EMU_URL/apis/nodus.dev/v1/namespaces/default/jobs")
    [ "$code" = 201 ]
    clock_advance 1m
}

teardown_file() {
    stop_emulator
}

CORE=/api/v1/namespaces/default/events
V1=/apis/events.k8s.io/v1/namespaces/default/events

# kube's conversion of a core Event, written independently of the emulator's
TO_V1='{apiVersion: "events.k8s.io/v1", kind: "Event", metadata,
        eventTime: (.firstTimestamp | sub("Z$"; ".000000Z")),
        reportingController: .reportingComponent, reportingInstance, reason,
        regarding: .involvedObject, note: .message, type, deprecatedSource: .source,
        deprecatedFirstTimestamp: .firstTimestamp, deprecatedLastTimestamp: .lastTimestamp,
        deprecatedCount: .count}'

@test "list and get: the same Events, names and resourceVersions, every field converted" {
    http GET "$CORE"
    [ "$CODE" = 200 ]
    cp "$BODY" "$BATS_TEST_TMPDIR/core.json"
    http GET "$V1"
    [ "$CODE" = 200 ]
    assert_equal "$(body_json '[.apiVersion, .kind, .metadata.resourceVersion] | join(" ")')" \
        "events.k8s.io/v1 EventList $(jq -r .metadata.resourceVersion "$BATS_TEST_TMPDIR/core.json")"
    # six Events (the Volume's Created, Starting, Running; the Job's Created,
    # Provisioning, Running), each converted field by field
    assert_equal "$(body_json '.items | length')" 6
    assert_equal "$(jq -Sc "[.items[] | $TO_V1]" "$BATS_TEST_TMPDIR/core.json")" \
        "$(jq -Sc '.items' "$BODY")"
    # key order as kube's events.k8s.io/v1 Event
    assert_equal "$(body_json '.items[0] | keys_unsorted | join(",")')" \
        "apiVersion,kind,metadata,eventTime,reportingController,reportingInstance,reason,regarding,note,type,deprecatedSource,deprecatedFirstTimestamp,deprecatedLastTimestamp,deprecatedCount"
    local name
    name=$(body_json '.items[] | select(.regarding.name == "job-e" and .reason == "Running") | .metadata.name')
    http GET "$V1/$name"
    [ "$CODE" = 200 ] || { echo "GET $V1/$name: $CODE $(cat "$BODY")"; false; }
    assert_equal "$(jq -Sc '.' "$BODY")" \
        "$(jq -Sc ".items[] | select(.metadata.name == \"$name\") | $TO_V1" "$BATS_TEST_TMPDIR/core.json")"
    # the core Event of that name (Event names are OBJECT.HEX, DNS subdomains)
    http GET "$CORE/$name"
    assert_equal "$CODE $(body_json '[.apiVersion, .involvedObject.name, .reason] | join(" ")')" \
        "200 v1 job-e Running"
    # across every project, and a name that is not there
    http GET /apis/events.k8s.io/v1/events
    assert_equal "$(body_json '[.items[].apiVersion] | unique | join(",")'):$(body_json '.items | length')" \
        "events.k8s.io/v1:6"
    http GET "$V1/nothing-here"
    assert_equal "$CODE $(body_json '.reason')" "404 NotFound"
    assert_equal "$(body_json '.message')" 'events.events.k8s.io "nothing-here" not found'
}

# check_labels PATH LABEL[=JQ]...: for each label (read at .LABEL unless JQ names a path), the list at PATH with fieldSelector
# LABEL=<the value JQ reads in the first Event> (and LABEL!=it, unless empty: a negated
# empty value is refused here) selects exactly the Events whose JQ is (is not) that value.
# One list, one jq for what each should select, one curl for every selector, one jq for
# what they selected.
check_labels() {
    local path=$1 pairs
    shift
    pairs=$(printf '%s\n' "$@" |
        jq -Rn '[inputs | capture("^(?<label>[^=]+)(=(?<q>.+))?$") | .q //= "." + .label]')
    http GET "$path"
    # lines "SELECTOR<TAB>names it should select", from the whole list
    jq -r --argjson pairs "$pairs" '. as $all | $pairs[] | .label as $l | .q as $q
        | ($all.items[0] | getpath($q | ltrimstr(".") | split(".")) // "") as $v
        | (["=", "!="][] | select(. == "=" or $v != "")) as $op
        | [$l + $op + $v, ([$all.items[] | select((getpath($q | ltrimstr(".") | split(".")) // "")
            | if $op == "=" then . == $v else . != $v end) | .metadata.name] | join(","))]
        | @tsv' "$BODY" >"$BATS_TEST_TMPDIR/want.tsv"
    local i=0 sel names cfg=$BATS_TEST_TMPDIR/sel.cfg files=()
    : >"$cfg"
    while IFS=$'\t' read -r sel names; do
        i=$((i + 1))
        printf 'url = "%s%s?fieldSelector=%s"\noutput = "%s"\n' "$EMU_URL" "$path" \
            "$(jq -rn --arg s "$sel" '$s | @uri')" "$BATS_TEST_TMPDIR/sel.$i" >>"$cfg"
        files+=("$BATS_TEST_TMPDIR/sel.$i")
    done <"$BATS_TEST_TMPDIR/want.tsv"
    curl -sS -K "$cfg"
    assert_equal "$(jq -rs 'map(.message // ([.items[].metadata.name] | join(",")))[]' "${files[@]}" |
        paste <(cut -f1 "$BATS_TEST_TMPDIR/want.tsv") -)" "$(cat "$BATS_TEST_TMPDIR/want.tsv")"
}

@test "field selectors: every label kube-apiserver takes for core/v1 Events" {
    check_labels "$CORE" involvedObject.{kind,namespace,name,uid,apiVersion,resourceVersion,fieldPath} \
        reason type reportingComponent source=.source.component metadata.name metadata.namespace
    # what kubectl events --for sends (1.28 and later)
    http GET "$CORE?fieldSelector=involvedObject.kind%3DVolume,involvedObject.apiVersion%3Dnodus.dev%2Fv1,involvedObject.name%3Dvol-e"
    assert_equal "$(body_json '[.items[].reason] | join(",")')" "Created,Starting,Running"
}

@test "field selectors: every label kube-apiserver takes for events.k8s.io/v1 Events" {
    check_labels "$V1" regarding.{kind,namespace,name,uid,apiVersion,resourceVersion,fieldPath} \
        reason type reportingController source=.deprecatedSource.component metadata.name \
        metadata.namespace
}

@test "an unsupported field label is a 400 whose fix lists the group's labels" {
    http GET "$CORE?fieldSelector=regarding.kind%3DVolume"
    assert_equal "$CODE $(body_json '.reason') $(body_json '.message')" \
        "400 BadRequest field label not supported: regarding.kind"
    assert_equal "$(body_json .fix)" "select on one of: metadata.name, metadata.namespace, involvedObject.kind, involvedObject.namespace, involvedObject.name, involvedObject.uid, involvedObject.apiVersion, involvedObject.resourceVersion, involvedObject.fieldPath, reason, reportingComponent, source, type"
    http GET "$V1?fieldSelector=involvedObject.kind%3DVolume"
    assert_equal "$CODE $(body_json '.reason') $(body_json '.message')" \
        "400 BadRequest field label not supported: involvedObject.kind"
    assert_equal "$(body_json .fix)" "select on one of: metadata.name, metadata.namespace, regarding.kind, regarding.namespace, regarding.name, regarding.uid, regarding.apiVersion, regarding.resourceVersion, regarding.fieldPath, reason, reportingController, source, type"
    http GET "$V1?watch=true&fieldSelector=note%3Dx"
    assert_equal "$CODE $(body_json '.message')" "400 field label not supported: note"
}

@test "watch: either group resumes at a resourceVersion of the other, in its own shape" {
    http GET "$CORE"
    local rv
    rv=$(body_json .metadata.resourceVersion)
    curl -sS -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"vol-w"},"spec":{"size":"10Gi"}}' \
        "$EMU_URL/apis/nodus.dev/v1/namespaces/default/volumes"
    http GET "$V1?watch=true&resourceVersion=$rv&timeoutSeconds=1&fieldSelector=regarding.name%3Dvol-w"
    assert_equal "$(jq -rs '[.[] | [.type, .object.apiVersion, .object.regarding.name, .object.reason, .object.note] | join(" ")] | join("|")' "$BODY")" \
        "ADDED events.k8s.io/v1 vol-w Created created by emulator-user"
    # and the core group from a resourceVersion the events.k8s.io list gave
    http GET "$V1"
    rv=$(body_json .metadata.resourceVersion)
    clock_advance 1m
    http GET "$CORE?watch=true&resourceVersion=$rv&timeoutSeconds=1&fieldSelector=involvedObject.name%3Dvol-w"
    assert_equal "$(jq -rs '[.[] | [.type, .object.apiVersion, .object.involvedObject.name, .object.reason] | join(" ")] | join("|")' "$BODY")" \
        "ADDED v1 vol-w Starting|ADDED v1 vol-w Running"
}

@test "Tables: kube's Event columns over the events.k8s.io fields" {
    http GET "$V1?fieldSelector=regarding.name%3Dvol-e" - \
        -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io'
    assert_equal "$(body_json '[.columnDefinitions[].name] | join(",")')" \
        "LAST SEEN,TYPE,REASON,OBJECT,MESSAGE"
    assert_equal "$(body_json '[.rows[] | .cells[1:] | join(" ")] | join("|")')" \
        "Normal Created volume/vol-e created by emulator-user|Normal Starting volume/vol-e placed; starting|Normal Running volume/vol-e running"
}

@test "writes: the same Status as core Event writes" {
    local m path
    for path in "$CORE" "$V1"; do
        for m in POST DELETE; do
            http "$m" "$path" '{}'
            assert_equal "$CODE $(body_json .reason)" "405 MethodNotAllowed"
        done
        http PATCH "$path/x" '{}' -H 'Content-Type: application/merge-patch+json'
        assert_equal "$CODE $(body_json .reason)" "405 MethodNotAllowed"
    done
    http POST "$V1" '{}'
    assert_equal "$(body_json .message)" "events.events.k8s.io are published by Nodus and cannot be changed"
}

@test "discovery: the group events.k8s.io, legacy and aggregated" {
    http GET /apis
    assert_equal "$(body_json '.groups[] | select(.name == "events.k8s.io") | .preferredVersion.groupVersion')" \
        events.k8s.io/v1
    http GET /apis/events.k8s.io
    assert_equal "$(body_json '[.kind, .name, .versions[0].groupVersion] | join(" ")')" \
        "APIGroup events.k8s.io events.k8s.io/v1"
    http GET /apis/events.k8s.io/v1
    assert_equal "$(body_json '.resources | map([.name, .kind, .namespaced, (.verbs | join(",")), (.shortNames | join(","))] | join(" ")) | join("|")')" \
        "events Event true get,list,watch ev"
    http GET /apis - -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
    assert_equal "$(body_json '.items[] | select(.metadata.name == "events.k8s.io") | .versions[0].resources[] | [.resource, .responseKind.group, .responseKind.kind, .scope, (.verbs | join(","))] | join(" ")')" \
        "events events.k8s.io Event Namespaced get,list,watch"
}

@test "OpenAPI: a v3 group document, and v2 (JSON and protobuf) describe events.k8s.io/v1" {
    http GET /openapi/v3
    local url
    url=$(body_json '.paths["apis/events.k8s.io/v1"].serverRelativeURL')
    [[ "$url" == /openapi/v3/apis/events.k8s.io/v1\?hash=* ]]
    http GET "$url"
    assert_equal "$CODE $(header Cache-Control)" "200 public, immutable"
    assert_equal "$(body_json '.components.schemas["io.k8s.api.events.v1.Event"]["x-kubernetes-group-version-kind"][0] | [.group, .version, .kind] | join(" ")')" \
        "events.k8s.io v1 Event"
    assert_equal "$(body_json '.components.schemas["io.k8s.api.events.v1.Event"].properties | [has("regarding"), has("note"), has("deprecatedCount"), has("involvedObject")] | join(" ")')" \
        "true true true false"
    assert_equal "$(body_json '.paths | keys | join(",")')" \
        "/apis/events.k8s.io/v1/events,/apis/events.k8s.io/v1/namespaces/{namespace}/events,/apis/events.k8s.io/v1/namespaces/{namespace}/events/{name},/apis/events.k8s.io/v1/watch/events,/apis/events.k8s.io/v1/watch/namespaces/{namespace}/events,/apis/events.k8s.io/v1/watch/namespaces/{namespace}/events/{name}"
    http GET /openapi/v2
    assert_equal "$(body_json '.definitions["io.k8s.api.events.v1.Event"]["x-kubernetes-group-version-kind"][0].group')" \
        events.k8s.io
    assert_equal "$(body_json '.paths["/apis/events.k8s.io/v1/namespaces/{namespace}/events"].get["x-kubernetes-action"]')" list
    http GET /openapi/v2 - -H 'Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf'
    [ "$CODE" = 200 ]
    grep -aq 'io.k8s.api.events.v1.Event' "$BODY"
    grep -aq '/apis/events.k8s.io/v1/namespaces/{namespace}/events/{name}' "$BODY"
}
