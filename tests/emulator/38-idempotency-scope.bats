#!/usr/bin/env bats
# Idempotency keys belong to the token that used them and the project they wrote in:
# another token's or another project's key of the same text is another key. No
# IdempotencyKeyReused across tokens or projects, no replay of another token's answer,
# nothing told about a key another token used; the scope survives a restart, the token
# never reaches the state directory, and an entry of an older emulator (no scope) still
# replays the very same request.

load ../lib/common

NS=/apis/nodus.dev/v1/namespaces

setup_file() {
    cat >"$BATS_FILE_TMPDIR/tokens.json" <<'EOF'
{"tokens": {
  "t-root":  {"identity": "root", "projects": ["*"], "scopes": ["admin"]},
  "t-alice": {"identity": "alice", "projects": ["proj-a", "proj-b"], "scopes": ["read", "write"]},
  "t-bob":   {"identity": "bob", "projects": ["proj-a", "proj-b"], "scopes": ["read", "write"]}}}
EOF
    chmod 600 "$BATS_FILE_TMPDIR/tokens.json"
    start_emulator --token-file "$BATS_FILE_TMPDIR/tokens.json"
    local ns
    for ns in proj-a proj-b; do
        curl -sf -o /dev/null -H 'Authorization: Bearer t-root' -H 'Content-Type: application/json' \
            --data-binary "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}" \
            "$EMU_URL/api/v1/namespaces"
    done
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

volume() { # NAME [SIZE]
    echo "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Volume\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"size\":\"${2:-1Gi}\"}}"
}

# as WHO (alice, bob) in PROJECT: POST a Volume with KEY; sets CODE, BODY, HDRS
post_as() { # WHO PROJECT KEY BODY
    http POST "$NS/$2/volumes" "$4" -H "Authorization: Bearer t-$1" -H "Idempotency-Key: $3"
}

@test "another token's key is another key: no IdempotencyKeyReused, no replay of its answer" {
    post_as alice proj-a k-shared "$(volume va)"
    [ "$CODE" = 201 ]
    cp "$BODY" "$BATS_TEST_TMPDIR/alice"
    # bob, the same key and alice's very request: runs as bob's own (va exists and is the
    # same: 200), never alice's answer (201) replayed
    post_as bob proj-a k-shared "$(volume va)"
    assert_equal "$CODE $(header Idempotent-Replayed)" "200 "
    # bob, a key alice used, another object: runs (it was IdempotencyKeyReused, telling
    # bob that alice used the key)
    post_as alice proj-a k-other "$(volume vx)"
    [ "$CODE" = 201 ]
    post_as bob proj-a k-other "$(volume vb)"
    assert_equal "$CODE $(body_json .metadata.name) $(header Idempotent-Replayed)" "201 vb "
    # alice's key is still hers: her retry replays, another request of hers is reused
    post_as alice proj-a k-shared "$(volume va)"
    assert_equal "$CODE $(header Idempotent-Replayed)" "201 true"
    cmp "$BODY" "$BATS_TEST_TMPDIR/alice"
    post_as alice proj-a k-shared "$(volume vc)"
    assert_equal "$CODE $(body_json .reason)" "422 IdempotencyKeyReused"
    http GET "$NS/proj-a/volumes/vc" - -H 'Authorization: Bearer t-root'
    [ "$CODE" = 404 ]
}

@test "another project's key is another key, for the same token" {
    post_as alice proj-a k-proj "$(volume pa)"
    [ "$CODE" = 201 ]
    post_as alice proj-b k-proj "$(volume pb)"
    assert_equal "$CODE $(body_json .metadata.name) $(header Idempotent-Replayed)" "201 pb "
    # the same request in proj-b: its own replay, not proj-a's answer
    post_as alice proj-b k-proj "$(volume pb)"
    assert_equal "$CODE $(body_json .metadata.namespace) $(header Idempotent-Replayed)" \
        "201 proj-b true"
    post_as alice proj-a k-proj "$(volume pa)"
    assert_equal "$CODE $(body_json .metadata.namespace) $(header Idempotent-Replayed)" \
        "201 proj-a true"
}

@test "the scope survives a restart; the token never reaches the state directory" {
    post_as alice proj-a k-durable "$(volume da)"
    [ "$CODE" = 201 ]
    stop_emulator
    start_emulator --token-file "$BATS_FILE_TMPDIR/tokens.json"
    post_as alice proj-a k-durable "$(volume da)"
    assert_equal "$CODE $(header Idempotent-Replayed)" "201 true"
    post_as bob proj-a k-durable "$(volume db)"
    assert_equal "$CODE $(body_json .metadata.name) $(header Idempotent-Replayed)" "201 db "
    run grep -rlE 't-(alice|bob|root)' "$EMU_STATE/idempotency"
    assert_output ""
    # each entry names its scope (a digest of the token) and its project
    run jq -r 'select(.key == "k-durable") | [.project, (.scope | test("^token:[0-9a-f]{32}$"))] | @tsv' \
        "$EMU_STATE"/idempotency/*.json
    assert_output "$(printf 'proj-a\ttrue\nproj-a\ttrue')"
}

@test "an entry of an older emulator (no scope) replays the very same request, and only that" {
    post_as alice proj-a k-legacy "$(volume la)"
    [ "$CODE" = 201 ]
    cp "$BODY" "$BATS_TEST_TMPDIR/legacy"
    stop_emulator
    # as an emulator before scoping wrote it: no scope, no project
    local f
    f=$(grep -l '"k-legacy"' "$EMU_STATE"/idempotency/*.json)
    jq 'del(.scope, .project)' "$f" >"$f.old"
    mv "$f.old" "$f"
    start_emulator --token-file "$BATS_FILE_TMPDIR/tokens.json"
    post_as alice proj-a k-legacy "$(volume la)"
    assert_equal "$CODE $(header Idempotent-Replayed)" "201 true"
    cmp "$BODY" "$BATS_TEST_TMPDIR/legacy"
    # another request with that key runs: whose the key was is not known, nothing is told
    post_as bob proj-a k-legacy "$(volume lb)"
    assert_equal "$CODE $(body_json .metadata.name) $(header Idempotent-Replayed)" "201 lb "
}
