#!/usr/bin/env bats
# Volumes (storage billed per GiB-month, usedBytes, mountedBy and the nodus.dev/in-use
# finalizer, raise-only size) and Functions (scaling with invocations, the invoke
# subresource, rolling restarts). Driven by the emulated clock only.

load ../lib/common

API=/apis/nodus.dev/v1
NS=$API/namespaces/default
MERGE=(-H 'Content-Type: application/merge-patch+json')
IMAGE=nodus/pytorch:2.8-cuda12.8

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

advance() {
    http POST /emulator/v1/clock "{\"advance\":\"$1\"}"
    [ "$CODE" = 200 ]
}

get() {
    http GET "$NS/$1"
    [ "$CODE" = 200 ]
}

volume() { # NAME SIZE
    http POST "$NS/volumes" \
        "$(jq -cn --arg n "$1" --arg s "$2" '{apiVersion:"nodus.dev/v1",kind:"Volume",metadata:{name:$n},spec:{size:$s}}')"
}

function_json() { # NAME SCALING-JSON [EXTRA-SPEC-JSON]
    jq -cn --arg n "$1" --argjson s "$2" --argjson x "${3:-{\}}" --arg i "$IMAGE" \
        '{apiVersion:"nodus.dev/v1",kind:"Function",metadata:{name:$n},
          spec:({image:$i,command:["python","serve.py"],resources:{gpu:{model:"L4",count:1}},
                 scaling:$s,maxCostUSD:"25.00"} + $x)}'
}

invoke() { # NAME BODY
    http POST "$NS/functions/$1/invoke" "$2" -H 'Content-Type: application/octet-stream'
}

@test "a Volume's storage is billed per GiB-month of its size, a raise from the moment it is made" {
    volume data 100Gi
    [ "$CODE" = 201 ]
    [ "$(body_json '.metadata.finalizers | join(",")')" = nodus.dev/billing ]
    advance 12s
    get volumes/data
    body_is .status.phase Running .status.costUSD 0.00
    # a month is 730 hours: 100 GiB at $0.08 per GiB-month
    advance 730h
    get volumes/data
    [ "$(body_json .status.costUSD)" = 8.00 ]
    http PATCH "$NS/volumes/data" '{"spec":{"size":"200Gi"}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    advance 365h
    get volumes/data
    # (the clock's milliseconds past the last whole second add a micro-dollar)
    [ "$(body_json '.status.costUSD | tonumber | . * 100 | round')" = 1600 ]
}

@test "spec.size may only be raised; accessMode never changes" {
    http PATCH "$NS/volumes/data" '{"spec":{"size":"50Gi"}}' "${MERGE[@]}"
    [ "$CODE" = 422 ]
    body_is .reason Invalid \
        .message 'Volume.nodus.dev "data" is invalid: spec.size: Invalid value: "50Gi": may only be raised (it is "200Gi")'
    http PATCH "$NS/volumes/data" '{"spec":{"accessMode":"ReadWriteMany"}}' "${MERGE[@]}"
    [ "$CODE" = 422 ]
    [ "$(body_json .reason)" = FieldImmutable ]
    get volumes/data
    [ "$(body_json .spec.size)" = 200Gi ]
}

@test "usedBytes is what the Volume's file tree holds" {
    get volumes/data
    [ "$(body_json .status.usedBytes)" = 0 ]
    local dir=$EMU_STATE/files/default/volumes/data
    mkdir -p "$dir/sub"
    head -c 5000 /dev/zero >"$dir/a.bin"
    head -c 1234 /dev/zero >"$dir/sub/b.bin"
    ln -s /etc/passwd "$dir/link"
    advance 1m
    get volumes/data
    [ "$(body_json .status.usedBytes)" = 6234 ]
}

@test "a mounted Volume is in use: deleted, it stays Terminating until the Job that mounts it ends" {
    volume shared 10Gi
    [ "$CODE" = 201 ]
    http POST "$NS/jobs" "$(jq -cn --arg i "$IMAGE" '{apiVersion:"nodus.dev/v1",kind:"Job",
        metadata:{name:"reader",annotations:{"emulator.nodus.dev/duration":"10m"}},
        spec:{image:$i,maxCostUSD:"5.00",volumes:[{name:"shared",mountPath:"/data"}]}}')"
    [ "$CODE" = 201 ]
    advance 1m
    get volumes/shared
    body_is '.status.mountedBy | join(",")' job/reader \
        '.metadata.finalizers | sort | join(",")' nodus.dev/billing,nodus.dev/in-use
    http DELETE "$NS/volumes/shared"
    [ "$CODE" = 200 ]
    [ "$(body_json .status.phase)" = Terminating ]
    advance 5m
    get volumes/shared
    body_is .status.phase Terminating '.status.mountedBy | join(",")' job/reader
    advance 5m
    get jobs/reader
    [ "$(body_json .status.phase)" = Succeeded ]
    http GET "$NS/volumes/shared"
    [ "$CODE" = 404 ]
}

@test "a Volume no longer mounted drops nodus.dev/in-use" {
    volume scratch 1Gi
    http POST "$NS/jobs" "$(jq -cn --arg i "$IMAGE" '{apiVersion:"nodus.dev/v1",kind:"Job",
        metadata:{name:"writer",annotations:{"emulator.nodus.dev/duration":"2m"}},
        spec:{image:$i,maxCostUSD:"5.00",volumes:[{name:"scratch",mountPath:"/s"}]}}')"
    advance 1m
    get volumes/scratch
    [ "$(body_json '.metadata.finalizers | sort | join(",")')" = nodus.dev/billing,nodus.dev/in-use ]
    advance 2m
    get volumes/scratch
    body_is '.metadata.finalizers | join(",")' nodus.dev/billing .status.mountedBy null
}

@test "Function replicas follow invocations within min and max, and go back to min when idle" {
    http POST "$NS/functions" "$(function_json embed '{"minReplicas":1,"maxReplicas":3,"concurrency":2}')"
    [ "$CODE" = 201 ]
    advance 12s
    get functions/embed
    body_is .status.phase Running \
        '[.status.replicas, .status.readyReplicas] | map(tostring) | join("/")' 1/1 \
        .status.url "$(emu_url)$NS/functions/embed/invoke" \
        .status.rateUSDPerHour 0.39
    local i
    for i in 1 2 3; do invoke embed "request $i"; [ "$CODE" = 200 ]; done
    advance 1s
    get functions/embed
    body_is '[.status.replicas, .status.readyReplicas] | map(tostring) | join("/")' 2/1 \
        .status.rateUSDPerHour 0.78
    advance 10s
    get functions/embed
    [ "$(body_json '[.status.replicas, .status.readyReplicas] | map(tostring) | join("/")')" = 2/2 ]
    for i in 1 2 3 4 5 6 7 8; do invoke embed "burst $i"; done
    advance 11s
    get functions/embed
    [ "$(body_json '[.status.replicas, .status.readyReplicas] | map(tostring) | join("/")')" = 3/3 ]
    # busy four minutes ago: still up
    advance 4m
    get functions/embed
    [ "$(body_json .status.replicas)" = 3 ]
    local cost
    cost=$(body_json .status.costUSD)
    advance 2m
    get functions/embed
    body_is '[.status.replicas, .status.readyReplicas] | map(tostring) | join("/")' 1/1 \
        .status.rateUSDPerHour 0.39
    # three replicas for the minutes before the scale-down cost more than one
    [ "$(jq -n --arg a "$cost" --arg b "$(body_json .status.costUSD)" '($b | tonumber) - ($a | tonumber) > 0.013')" = true ]
    http GET /api/v1/namespaces/default/events
    run jq -r '.items[] | select(.involvedObject.name == "embed" and (.reason | startswith("Scaled"))) | .reason + ": " + .message' "$BODY"
    [ "${#lines[@]}" -eq 3 ]
    [ "${lines[0]}" = "ScaledUp: scaled from 1 to 2 replicas (3 recent invocations, concurrency 2)" ]
    # (the simulation may look between two invocations: from the 5th on, 3 are wanted)
    [[ "${lines[1]}" =~ ^"ScaledUp: scaled from 2 to 3 replicas ("(5|6|7|8|9|10|11)" recent invocations, concurrency 2)"$ ]]
    [ "${lines[2]}" = "ScaledDown: scaled from 3 to 1 replicas (idle)" ]
}

@test "a Function scaled to zero starts a replica on an invocation; lowering maxReplicas scales down at once" {
    http POST "$NS/functions" "$(function_json cold '{"maxReplicas":4}')"
    advance 12s
    get functions/cold
    [ "$(body_json '[.spec.scaling.minReplicas, .spec.scaling.concurrency, .status.replicas] | map(tostring) | join(" ")')" = "0 1 0" ]
    for i in 1 2 3; do invoke cold x; done
    advance 1s
    get functions/cold
    [ "$(body_json .status.replicas)" = 3 ]
    http PATCH "$NS/functions/cold" '{"spec":{"scaling":{"maxReplicas":1}}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    advance 1s
    get functions/cold
    [ "$(body_json .status.replicas)" = 1 ]
    advance 6m
    get functions/cold
    [ "$(body_json .status.replicas)" = 0 ]
}

@test "invoke answers deterministically: the function, the project, the body's length and sha256" {
    invoke embed hello
    [ "$CODE" = 200 ]
    [ "$(header Content-Type)" = application/json ]
    local first
    first=$(cat "$BODY")
    [ "$first" = "{\"function\":\"embed\",\"project\":\"default\",\"bytes\":5,\"sha256\":\"$(printf hello | sha256sum | cut -d' ' -f1)\"}" ]
    invoke embed hello
    [ "$(cat "$BODY")" = "$first" ]
    # an empty body and one of a few kilobytes
    http POST "$NS/functions/embed/invoke"
    [ "$CODE" = 200 ]
    [ "$(body_json .sha256)" = e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 ]
    head -c 100000 /dev/urandom >"$BATS_TEST_TMPDIR/big"
    http POST "$NS/functions/embed/invoke" @"$BATS_TEST_TMPDIR/big" -H 'Content-Type: application/octet-stream'
    [ "$(body_json .bytes)" = 100000 ]
    [ "$(body_json .sha256)" = "$(sha256sum <"$BATS_TEST_TMPDIR/big" | cut -d' ' -f1)" ]
}

@test "invoke is refused unless the Function is Running" {
    http POST "$NS/functions" "$(function_json fresh '{}')"
    invoke fresh x
    [ "$CODE" = 400 ]
    body_is .reason BadRequest \
        .message 'functions.nodus.dev "fresh" cannot be invoked: it is not Running (phase Pending)'
    # it is on its way (spec.state Running): a start would change nothing, waiting does
    [ "$(body_json .fix)" = "it is starting (spec.state is Running already); wait until it is ready: nodus wait function/fresh -n default --for=condition=Ready" ]
    http PATCH "$NS/functions/fresh" '{"spec":{"state":"Stopped"}}' "${MERGE[@]}"
    advance 1s
    invoke fresh x
    [ "$CODE" = 400 ]
    body_is .message 'functions.nodus.dev "fresh" cannot be invoked: it is not Running (phase Stopped)' \
        .fix "start it and wait until it is ready: nodus start function/fresh -n default && nodus wait function/fresh -n default --for=condition=Ready"
    invoke missing x
    [ "$CODE" = 404 ]
    [ "$(body_json .reason)" = NotFound ]
    http GET "$NS/functions/embed/invoke"
    [ "$CODE" = 405 ]
    http POST "$NS/jobs/x/invoke" "x"
    [ "$CODE" = 404 ]
}

@test "a restart request is a rolling restart, handled once per value" {
    get functions/embed
    [ "$(body_json .status.restartCount)" = null ]
    http PATCH "$NS/functions/embed" \
        '{"metadata":{"annotations":{"nodus.dev/restart-requested-at":"2026-01-01T00:00:00Z"}}}' "${MERGE[@]}"
    [ "$CODE" = 200 ]
    advance 1s
    get functions/embed
    body_is .status.restartCount 1 \
        .status.requests.restart 2026-01-01T00:00:00Z \
        '.status.conditions[] | select(.type == "Restarting") | .status' True \
        .status.phase Running \
        .status.readyReplicas 1
    advance 30s
    get functions/embed
    [ "$(body_json '.status.conditions[] | select(.type == "Restarting") | .status + " " + .reason')" = "False Restarted" ]
    # another change leaves the handled value alone
    http PATCH "$NS/functions/embed" '{"metadata":{"labels":{"touched":"yes"}}}' "${MERGE[@]}"
    advance 1s
    get functions/embed
    [ "$(body_json .status.restartCount)" = 1 ]
    http PATCH "$NS/functions/embed" \
        '{"metadata":{"annotations":{"nodus.dev/restart-requested-at":"2026-01-02T00:00:00Z"}}}' "${MERGE[@]}"
    advance 1s
    get functions/embed
    [ "$(body_json .status.restartCount)" = 2 ]
}

# A second emulator with --runtime local, in its own state directory.
start_local() {
    local dir=$BATS_FILE_TMPDIR/local
    mkdir -p "$dir"
    rm -f "$dir/port"
    "$ND_BIN_DIR/nodus-emulator" --state "$dir/state" --listen 127.0.0.1:0 --port-file "$dir/port" \
        --fsync never --quiet --speed 0 --runtime local >"$dir/out" 2>"$dir/err" 3>&- &
    echo $! >"$dir/pid"
    wait_until started "$dir/port" "$(cat "$dir/pid")"
    [ -s "$dir/port" ]
    LOCAL_URL="http://127.0.0.1:$(cat "$dir/port")"
}

@test "under --runtime local, invoke runs spec.command with the body on stdin" {
    if ! start_local; then
        grep -q "runtime local is not available" "$BATS_FILE_TMPDIR/local/err"
        skip "this emulator build refuses --runtime local (the local runtime's option is not in it)"
    fi
    local fn='{"apiVersion":"nodus.dev/v1","kind":"Function","metadata":{"name":"upper"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","command":["sh","-c","tr a-z A-Z; echo \" from $NODUS_FUNCTION/$GREETING\""],"env":[{"name":"GREETING","value":"hi"}],"maxCostUSD":"1.00"}}'
    curl -s -X POST "$LOCAL_URL$NS/functions" -H 'Content-Type: application/json' -d "$fn" >/dev/null
    fn=$(jq -c '.metadata.name = "fails" | .spec.command = ["sh","-c","cat >/dev/null; echo broken >&2; exit 3"]' <<<"$fn")
    curl -s -X POST "$LOCAL_URL$NS/functions" -H 'Content-Type: application/json' -d "$fn" >/dev/null
    curl -s -X POST "$LOCAL_URL/emulator/v1/clock" -H 'Content-Type: application/json' -d '{"advance":"12s"}' >/dev/null
    # isolated as exec is: the Function's tree is its /, the host's files are not there
    fn=$(jq -c '.metadata.name = "where" | .spec.command = ["sh","-c","cat >/got; pwd; echo $HOME; ls -d /work 2>&1 || echo no-host-work"]' <<<"$fn")
    curl -s -X POST "$LOCAL_URL$NS/functions" -H 'Content-Type: application/json' -d "$fn" >/dev/null
    curl -s -X POST "$LOCAL_URL/emulator/v1/clock" -H 'Content-Type: application/json' -d '{"advance":"12s"}' >/dev/null
    local upper fails where
    upper=$(curl -s -X POST "$LOCAL_URL$NS/functions/upper/invoke" -H 'Content-Type: application/octet-stream' --data-binary hello)
    fails=$(curl -s -X POST "$LOCAL_URL$NS/functions/fails/invoke" -H 'Content-Type: application/octet-stream' --data-binary hello)
    where=$(curl -s -X POST "$LOCAL_URL$NS/functions/where/invoke" -H 'Content-Type: application/octet-stream' --data-binary body-in)
    kill "$(cat "$BATS_FILE_TMPDIR/local/pid")"
    wait "$(cat "$BATS_FILE_TMPDIR/local/pid")" || true
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/local/err"
    [ "$status" -eq 1 ]
    [ "$upper" = "HELLO from upper/hi" ]
    [ "$(head -n 2 <<<"$where")" = $'/\n/' ]
    [ "$(tail -n 1 <<<"$where")" = no-host-work ]
    [ "$(cat "$BATS_FILE_TMPDIR/local/state/files/default/functions/where/got")" = body-in ]
    [ "$(jq -r '.code, .reason, .message' <<<"$fails")" = "500
InternalError
function fails exited with code 3: broken" ]
}

@test "the emulator stops cleanly, with no sanitizer report (under make asan)" {
    stop_emulator
    run grep -E "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" \
        "$BATS_FILE_TMPDIR/emulator.err"
    [ "$status" -eq 1 ]
}
