#!/usr/bin/env bats
# Metadata-only answers (Accept: application/json;as=PartialObjectMetadata[List];
# g=meta.k8s.io;v=v1), as client-go's metadata client and controller-runtime's metadata
# informers ask for them: gets, lists (pages, selectors), watches, writes, every kind,
# and how Accept chooses between them, Tables and plain JSON (emulator/api/accept.c).

load ../lib/common

setup_file() {
    start_emulator
    local i
    for i in 1 2 3; do
        curl -sf -o /dev/null -X POST "$EMU_URL$VOLS" -H 'Content-Type: application/json' \
            -d "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"v$i\",\"labels\":{\"n\":\"$i\"}},\"spec\":{\"size\":\"10Gi\"}}"
    done
}

teardown_file() {
    stop_emulator
}

VOLS=/apis/nodus.dev/v1/namespaces/default/volumes
MERGE=(-H 'Content-Type: application/merge-patch+json')
# exactly as client-go's metadata client sends them (list; get and watch)
CG_LIST='application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json'
CG_ONE='application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json'
META_LIST='application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1'
META='application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1'
TABLE='application/json;as=Table;v=v1;g=meta.k8s.io'

# the shape of a metadata-only item: its kind, apiVersion, and keys
shape() { # JQ-PATH
    body_json "$1 | [.kind, .apiVersion, (keys | join(\",\"))] | join(\" \")"
}

@test "a list with client-go's Accept is a PartialObjectMetadataList of metadata only" {
    http GET "$VOLS" - -H "Accept: $CG_LIST"
    [ "$CODE" = 200 ]
    [ "$(header Content-Type)" = application/json ]
    [ "$(body_json '.kind + " " + .apiVersion')" = "PartialObjectMetadataList meta.k8s.io/v1" ]
    run body_json '.items[] | [.kind, .apiVersion, (keys | join(",")), .metadata.name, .metadata.labels.n, (.metadata.managedFields | length > 0)] | join(" ")'
    assert_output - <<'EOF'
PartialObjectMetadata meta.k8s.io/v1 apiVersion,kind,metadata v1 1 true
PartialObjectMetadata meta.k8s.io/v1 apiVersion,kind,metadata v2 2 true
PartialObjectMetadata meta.k8s.io/v1 apiVersion,kind,metadata v3 3 true
EOF
    # the list's own resourceVersion, as a plain list has it
    local rv
    rv=$(body_json .metadata.resourceVersion)
    http GET "$VOLS"
    [ "$(body_json .metadata.resourceVersion)" = "$rv" ]
}

@test "a get with client-go's Accept is a PartialObjectMetadata; v1beta1 is served too" {
    http GET "$VOLS/v2" - -H "Accept: $CG_ONE"
    [ "$CODE" = 200 ]
    [ "$(shape .)" = "PartialObjectMetadata meta.k8s.io/v1 apiVersion,kind,metadata" ]
    body_is '.metadata.name + " " + .metadata.namespace + " " + .metadata.labels.n' "v2 default 2" \
        '.metadata.uid | startswith("vol_")' true
    http GET "$VOLS/v2" - -H 'Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1'
    [ "$(shape .)" = "PartialObjectMetadata meta.k8s.io/v1beta1 apiVersion,kind,metadata" ]
    http GET "$VOLS" - -H 'Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1'
    [ "$(body_json '.apiVersion + " " + .items[0].apiVersion')" = "meta.k8s.io/v1beta1 meta.k8s.io/v1beta1" ]
    # a missing object is still a 404 Status
    http GET "$VOLS/nope" - -H "Accept: $CG_ONE"
    [ "$CODE" = 404 ]
    [ "$(body_json .kind)" = Status ]
}

@test "metadata lists page with limit and continue, and keep remainingItemCount" {
    http GET "$VOLS?limit=2" - -H "Accept: $META_LIST"
    [ "$CODE" = 200 ]
    body_is '[.items[].metadata.name] | join(",")' v1,v2 .metadata.remainingItemCount 1
    local token
    token=$(body_json .metadata.continue)
    [ -n "$token" ]
    http GET "$VOLS?limit=2&continue=$token" - -H "Accept: $META_LIST"
    [ "$CODE" = 200 ]
    body_is '.kind + " " + ([.items[].metadata.name] | join(","))' "PartialObjectMetadataList v3" \
        '.metadata.continue // "none"' none
}

@test "metadata lists take label and field selectors" {
    http GET "$VOLS?labelSelector=n%20in%20(1,3)" - -H "Accept: $META_LIST"
    [ "$(body_json '[.items[].metadata.name] | join(",")')" = v1,v3 ]
    http GET "$VOLS?fieldSelector=metadata.name%3Dv2" - -H "Accept: $META_LIST"
    [ "$(body_json '.kind + " " + ([.items[].metadata.name] | join(","))')" = "PartialObjectMetadataList v2" ]
    http GET "$VOLS?labelSelector=n%3D9" - -H "Accept: $META_LIST"
    [ "$(body_json '.kind + " " + (.items | length | tostring)')" = "PartialObjectMetadataList 0" ]
}

@test "a metadata watch sends ADDED, MODIFIED and DELETED with metadata-only objects" {
    local rv n
    http GET "$VOLS" - -H "Accept: $META_LIST"
    rv=$(body_json .metadata.resourceVersion)
    n=$(watches_total)
    curl -sN -H "Accept: $CG_ONE" "$(emu_url)$VOLS?watch=1&resourceVersion=$rv&fieldSelector=metadata.name%3Dw1" \
        >"$BATS_TEST_TMPDIR/w" 3>&- &
    local pid=$!
    wait_until watches_at_least $((n + 1))
    http POST "$VOLS" '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"w1"},"spec":{"size":"10Gi"}}'
    [ "$CODE" = 201 ]
    http PATCH "$VOLS/w1" '{"metadata":{"labels":{"seen":"yes"}}}' "${MERGE[@]}"
    http DELETE "$VOLS/w1"
    wait_until -t 15 grep -q '"DELETED"' "$BATS_TEST_TMPDIR/w" || true
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    # the controller may write status between: compare the distinct consecutive events
    run bash -c "jq -r '[.type, .object.kind, .object.apiVersion, (.object | keys | join(\",\")), .object.metadata.name] | join(\" \")' '$BATS_TEST_TMPDIR/w' | uniq"
    assert_output - <<'EOF'
ADDED PartialObjectMetadata meta.k8s.io/v1 apiVersion,kind,metadata w1
MODIFIED PartialObjectMetadata meta.k8s.io/v1 apiVersion,kind,metadata w1
DELETED PartialObjectMetadata meta.k8s.io/v1 apiVersion,kind,metadata w1
EOF
    run jq -r 'select(.type == "MODIFIED") | .object.metadata.labels.seen // empty' "$BATS_TEST_TMPDIR/w"
    assert_line yes
}

@test "a metadata watch from the start sends the current objects, and bookmarks, as metadata" {
    curl -sN -H "Accept: $META" \
        "$(emu_url)$VOLS?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1" \
        >"$BATS_TEST_TMPDIR/w"
    run jq -r '[.type, .object.kind, .object.metadata.name // "-", .object.metadata.annotations["k8s.io/initial-events-end"] // "-"] | join(" ")' "$BATS_TEST_TMPDIR/w"
    assert_output - <<'EOF'
ADDED PartialObjectMetadata v1 -
ADDED PartialObjectMetadata v2 -
ADDED PartialObjectMetadata v3 -
BOOKMARK PartialObjectMetadata - true
EOF
}

@test "Namespaces, Events and the read-only Images answer metadata lists and gets" {
    http GET /api/v1/namespaces - -H "Accept: $CG_LIST"
    [ "$CODE" = 200 ]
    [ "$(body_json '.kind + " " + ([.items[] | .kind + ":" + .metadata.name] | join(","))')" = \
        "PartialObjectMetadataList PartialObjectMetadata:default,PartialObjectMetadata:nodus" ]
    http GET /api/v1/namespaces/default - -H "Accept: $CG_ONE"
    [ "$(shape .)" = "PartialObjectMetadata meta.k8s.io/v1 apiVersion,kind,metadata" ]
    http GET "/api/v1/namespaces/default/events?limit=1" - -H "Accept: $CG_LIST"
    [ "$CODE" = 200 ]
    [ "$(body_json '.kind + " " + .items[0].kind + " " + (.items[0] | keys | join(","))')" = \
        "PartialObjectMetadataList PartialObjectMetadata apiVersion,kind,metadata" ]
    http GET /apis/nodus.dev/v1/namespaces/nodus/images - -H "Accept: $CG_LIST"
    [ "$(body_json '.kind + " " + (.items | map(.kind) | unique | join(","))')" = \
        "PartialObjectMetadataList PartialObjectMetadata" ]
    http GET /apis/nodus.dev/v1/namespaces/nodus/images/python - -H "Accept: $CG_ONE"
    [ "$(body_json '.kind + " " + .metadata.name + " " + (has("spec") | tostring)')" = "PartialObjectMetadata python false" ]
}

@test "writes answer a PartialObjectMetadata when asked (the metadata client's patch)" {
    http PATCH "$VOLS/v1" '{"metadata":{"annotations":{"a":"b"}}}' "${MERGE[@]}" -H "Accept: $CG_ONE"
    [ "$CODE" = 200 ]
    [ "$(shape .)" = "PartialObjectMetadata meta.k8s.io/v1 apiVersion,kind,metadata" ]
    [ "$(body_json .metadata.annotations.a)" = b ]
    http POST "$VOLS" '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"made"},"spec":{"size":"10Gi"}}' -H "Accept: $META"
    [ "$CODE" = 201 ]
    [ "$(body_json '.kind + " " + .metadata.name')" = "PartialObjectMetadata made" ]
    http DELETE "$VOLS/made" - -H "Accept: $META"
    [ "$CODE" = 200 ]
    [ "$(body_json .kind)" = PartialObjectMetadata ]
}

@test "Accept chooses by quality, then the first the server can send: Table, metadata or JSON" {
    local accept want
    while IFS='|' read -r accept want; do
        http GET "$VOLS?limit=1" - -H "Accept: $accept"
        [ "$CODE" = 200 ] || { echo "$accept: $CODE"; return 1; }
        [ "$(body_json .kind)" = "$want" ] || { echo "$accept: $(body_json .kind), want $want"; return 1; }
    done <<EOF
$TABLE,$META_LIST,application/json|Table
$META_LIST,$TABLE,application/json|PartialObjectMetadataList
application/json,$META_LIST|VolumeList
$TABLE;q=0.5,$META_LIST;q=0.9,application/json;q=0.1|PartialObjectMetadataList
*/*,$META_LIST|PartialObjectMetadataList
application/vnd.kubernetes.protobuf,application/json|VolumeList
application/json;as=Widget;g=meta.k8s.io;v=v1,application/json|VolumeList
$META_LIST;q=0,application/json|VolumeList
application/json;as=PartialObjectMetadataList,application/json|VolumeList
EOF
}

@test "an as= the server does not make is 406 NotAcceptable with a fix" {
    http GET "$VOLS" - -H 'Accept: application/json;as=Widget;g=meta.k8s.io;v=v1'
    [ "$CODE" = 406 ]
    body_is .reason NotAcceptable \
        .message "only the following media types are accepted: application/json, application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io" \
        .fix "as=Widget is not an answer this server makes: ask for as=Table, as=PartialObjectMetadata (one object) or as=PartialObjectMetadataList (a list) with g=meta.k8s.io;v=v1, or for plain application/json"
    http GET "$VOLS" - -H 'Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v2'
    [ "$CODE" = 406 ]
    [ "$(body_json .fix)" = "as=PartialObjectMetadataList is served with g=meta.k8s.io and v=v1 or v=v1beta1 (this Accept has g=meta.k8s.io;v=v2)" ]
    http GET "$VOLS" - -H 'Accept: application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1'
    [ "$CODE" = 406 ]
    [ "$(body_json .fix)" = "ask for application/json: this server answers in JSON, not application/vnd.kubernetes.protobuf" ]
}

@test "the one-object form on a list, or the list form on a get or a watch, is 406 (no fallback)" {
    http GET "$VOLS" - -H "Accept: $CG_ONE"
    [ "$CODE" = 406 ]
    body_is .message "you requested PartialObjectMetadata, but the requested object is a list (VolumeList)" \
        .fix "ask for application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1 for a list (PartialObjectMetadata is one object)"
    http GET "$VOLS/v1" - -H "Accept: $CG_LIST"
    [ "$CODE" = 406 ]
    [ "$(body_json .message)" = "you requested PartialObjectMetadataList, but the requested object is not a list (Volume)" ]
    http GET "$VOLS?watch=1&timeoutSeconds=1" - -H "Accept: $META_LIST"
    [ "$CODE" = 406 ]
    [ "$(body_json .message)" = "you requested PartialObjectMetadataList, but the requested object is not a list (a watch event's object)" ]
    # refused before anything is written
    http POST "$VOLS" '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"never"},"spec":{"size":"10Gi"}}' -H "Accept: $META_LIST"
    [ "$CODE" = 406 ]
    http GET "$VOLS/never"
    [ "$CODE" = 404 ]
}
