#!/usr/bin/env bats
# Conformance: every error is a Status with reason, code, message, fix, docs and
# requestId (also the X-Request-Id header); the reasons of the common mistakes.

load conformance

setup() { conf_setup; }
teardown() { conf_teardown; }

@test "every answer carries an X-Request-Id header" {
    api GET /version
    expect_code 200
    [ -n "$(hdr X-Request-Id)" ] || { echo "no X-Request-Id on GET /version" >&2; cat "$HDRS" >&2; false; }
    api GET $NS/volumes
    expect_code 200
    [ -n "$(hdr X-Request-Id)" ] || { echo "no X-Request-Id on a list" >&2; cat "$HDRS" >&2; false; }
}

@test "a missing object is NotFound 404 naming it" {
    api GET $NS/volumes/nothing-here
    expect_status 404 NotFound
    expect_eq details.name nothing-here "$(jb .details.name)"
    expect_eq details.kind volumes "$(jb .details.kind)"
}

@test "an unknown kind is NotFound 404" {
    api GET $NS/notakinds
    expect_status 404 NotFound
}

@test "a malformed body is BadRequest 400" {
    api POST $NS/volumes '{"apiVersion":'
    expect_status 400 BadRequest
}

@test "a bad query value is BadRequest 400" {
    api GET "$NS/volumes?labelSelector=a+in+("
    expect_status 400 BadRequest
}

@test "a field that fails validation is Invalid 422 with a cause naming the field" {
    api POST $NS/volumes '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"bad"},"spec":{"size":"lots"}}'
    expect_status 422 Invalid
    expect_eq "a cause for spec.size" true "$(jb '[.details.causes[].field] | index("spec.size") != null')"
}

@test "a strategic merge patch is UnsupportedMediaType 415" {
    api POST $NS/volumes "$(volume_json data)"
    expect_code 201
    api PATCH $NS/volumes/data '{"metadata":{"labels":{"a":"b"}}}' -H 'Content-Type: application/strategic-merge-patch+json'
    expect_status 415 UnsupportedMediaType
}

@test "a write to the project nodus is Forbidden 403" {
    api POST $V1/namespaces/nodus/volumes "$(volume_json data)"
    expect_status 403 Forbidden
}

@test "the errors of the other rules are Statuses too (AlreadyExists, Conflict, FieldImmutable)" {
    api POST $NS/volumes "$(volume_json data)"
    expect_code 201
    api POST $NS/volumes "$(volume_json data 5Gi)"
    expect_status 409 AlreadyExists
    api PATCH $NS/volumes/data '{"metadata":{"resourceVersion":"1","labels":{"a":"b"}}}' "${MERGE[@]}"
    expect_status 409 Conflict
    api PATCH $NS/volumes/data '{"spec":{"accessMode":"ReadWriteMany"}}' "${MERGE[@]}"
    expect_status 422 FieldImmutable
}
