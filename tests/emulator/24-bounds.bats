#!/usr/bin/env bats
# Bounded work per request: patches that would grow without end, selectors, query
# parameters and paths past their limits; each refused with a Status naming the limit,
# the object untouched and the server still answering.

load ../lib/common

NS=/apis/nodus.dev/v1/namespaces/default
JOBS=$NS/jobs
JSONP=(-H 'Content-Type: application/json-patch+json')
MERGE=(-H 'Content-Type: application/merge-patch+json')

setup_file() {
    start_emulator
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d "$(job_json grow)" "$EMU_URL$JOBS"
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"data"},"spec":{"size":"10Gi"}}' \
        "$EMU_URL$NS/volumes"
}

teardown_file() {
    stop_emulator
    ! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$BATS_FILE_TMPDIR/emulator.err"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
}

# kB of the emulator's peak resident memory
peak_kb() {
    awk '/^VmHWM:/ {print $2}' "/proc/$EMU_PID/status"
}

@test "JSON patch: twenty self-copies (a 2.7 KB patch) stop at 3 MiB of copies, 422" {
    http GET $JOBS/grow
    local before
    before=$(jq -cS . "$BODY")
    local seed ops
    seed=$(head -c 1200 /dev/zero | tr '\0' x)
    ops=$(jq -cn --arg s "$seed" '[{op:"add",path:"/metadata/annotations",value:{seed:$s}}] +
        [range(1;21) | {op:"copy",from:"/metadata/annotations",
                        path:"/metadata/annotations/c\(.)"}]')
    [ "${#ops}" -lt 3000 ]
    # sent in the background: the server answers another request meanwhile
    curl -sS -o patch.json -w '%{http_code}' -X PATCH "${JSONP[@]}" --data-binary "$ops" \
        "$(emu_url)$JOBS/grow" >patch.code &
    local bg=$!
    run curl -sS -m 5 -o /dev/null -w '%{http_code}' "$(emu_url)/readyz"
    [ "$output" = 200 ]
    wait "$bg"
    CODE=$(cat patch.code)
    BODY=patch.json
    [ "$CODE" = 422 ]
    body_is .reason Invalid .details.name grow
    run body_json .message
    assert_output --regexp '^ops\[12\]: Unable to complete the copy, the accumulated size increase of copy is 4983547, exceeding the limit 3145728$'
    # memory stayed small: the document never passed a few MiB
    [ "$(peak_kb)" -lt 262144 ]
    # the server answers and the object is unchanged
    http GET $JOBS/grow
    [ "$CODE" = 200 ]
    [ "$(jq -cS . "$BODY")" = "$before" ]
}

@test "JSON patch: more than 10,000 operations, 413 before any applies" {
    local ops
    jq -cn '[range(0;10001) | {op:"test",path:"/kind",value:"Job"}]' >ops.json
    http PATCH $JOBS/grow @ops.json "${JSONP[@]}"
    [ "$CODE" = 413 ]
    body_is .reason RequestEntityTooLarge \
        .message "The allowed maximum operations in a JSON patch is 10000, got 10001"
    jq -cn '[range(0;10000) | {op:"test",path:"/kind",value:"Job"}]' >ops.json
    http PATCH $JOBS/grow @ops.json "${JSONP[@]}"
    [ "$CODE" = 200 ]
}

@test "JSON patch: copies that would nest past 100 levels, 422 naming the op" {
    local ops
    # /spec/x holds 50 levels; copying it under its own deepest level passes 100
    ops=$(jq -cn '[{op:"add",path:"/metadata/annotations",value:{}},
                   {op:"add",path:"/spec/x",value:(reduce range(0;50) as $i ("v"; {a:.}))},
                   {op:"copy",from:"/spec/x",path:("/spec/x" + ([range(0;49)] | map("/a") | join("")) + "/b")}]')
    http PATCH $JOBS/grow "$ops" "${JSONP[@]}"
    [ "$CODE" = 422 ]
    [ "$(body_json .reason)" = Invalid ]
    run body_json .message
    assert_output --regexp '^ops\[2\]: the value at "/spec/x(/a){49}/b" would nest 102 levels deep, more than the limit of 100$'
}

@test "label selectors: more than 100 requirements or 100 values in a set, 400 naming the limit" {
    local sel
    sel=$(seq -s, -f 'k%g' 0 100)
    http GET "$JOBS?labelSelector=$sel"
    [ "$CODE" = 400 ]
    body_is .reason BadRequest \
        .message "found 101 requirements, more than the limit of 100 (at character 391)"
    http GET "$JOBS?labelSelector=$(seq -s, -f 'k%g' 1 100)"
    [ "$CODE" = 200 ]
    sel="a%20in%20($(seq -s, -f 'v%g' 0 100))"
    http GET "$JOBS?labelSelector=$sel"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "unable to parse requirement: found 101 values in a set, more than the limit of 100 (at character 397)" ]
    # the same on a watch
    http GET "$JOBS?watch=true&labelSelector=$(seq -s, -f 'k%g' 0 100)"
    [ "$CODE" = 400 ]
    [ "$(body_json .reason)" = BadRequest ]
}

@test "field selectors: more than 100 terms, 400 naming the limit" {
    http GET "$JOBS?fieldSelector=$(seq -s, -f 'metadata.name=n%g' 0 100)"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "field selector has 101 terms, more than the limit of 100" ]
    http GET "$JOBS?fieldSelector=$(seq -s, -f 'metadata.name=n%g' 1 100)"
    [ "$CODE" = 200 ]
}

@test "query values: longer than 16 KiB, with a NUL or not UTF-8, 400 naming the parameter" {
    local long
    long=$(head -c 16385 /dev/zero | tr '\0' a)
    http GET "$JOBS?labelSelector=$long"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "query parameter labelSelector: the value is 16385 bytes, more than the limit of 16384" ]
    http GET "$JOBS?fieldManager=a%00b"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "query parameter fieldManager: the value holds a NUL character (%00)" ]
    http GET "$JOBS/grow?pretty=%ff"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "query parameter pretty: the value is not valid UTF-8" ]
}

@test "resourceVersion that is not an unsigned integer: 400 on get, list and watch" {
    local q path
    for path in "$JOBS/grow?" "$JOBS?" "$JOBS?watch=true&"; do
        for q in abc -1 1.5 99999999999999999999; do
            http GET "${path}resourceVersion=$q"
            [ "$CODE" = 400 ]
            [ "$(body_json .reason)" = BadRequest ]
        done
    done
    http GET "$JOBS?resourceVersion=abc"
    [ "$(body_json .message)" = 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax' ]
    http GET "$JOBS/grow?resourceVersion=99999999999999999999"
    [ "$(body_json .message)" = 'resourceVersion: Invalid value: "99999999999999999999": strconv.ParseUint: parsing "99999999999999999999": value out of range' ]
    http GET "$JOBS/grow?resourceVersion=0"
    [ "$CODE" = 200 ]
    http GET "$JOBS?resourceVersion=1"
    [ "$CODE" = 200 ]
}

@test "continue: NUL, not base64, not a key, or with a resourceVersion: 400" {
    http GET "$JOBS?continue=%00"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "query parameter continue: the value holds a NUL character (%00)" ]
    http GET "$JOBS?continue=garbage!"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "invalid continue token: continue key is not valid: it is not base64 (URL alphabet)" ]
    http GET "$JOBS?continue=$(printf 'not json' | base64 | tr -d =)"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "invalid continue token: continue key is not valid: it does not decode to a continue key" ]
    http GET "$JOBS?continue=$(printf '{"rv":1}' | base64 | tr -d =)"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "invalid continue token: continue key is not valid: it names no start or resourceVersion" ]
    http GET "$JOBS?limit=1"
    local token
    token=$(body_json .metadata.continue)
    http GET "$JOBS?continue=$token&resourceVersion=5"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "specifying resource version is not allowed when using continue" ]
}

@test "selectors a script's empty variable would make: 'a in ()', 'a!=', fieldSelector ',' are 400" {
    # apimachinery reads these as {""}, != "" and no term: on a collection DELETE that is
    # "every object", so they are refused, here and on DELETE
    http GET "$JOBS?labelSelector=a%20in%20()"
    [ "$CODE" = 400 ]
    [[ "$(body_json .message)" == *"an empty set of values selects nothing"* ]]
    http GET "$JOBS?labelSelector=a!%3D"
    [ "$CODE" = 400 ]
    [[ "$(body_json .message)" == *"to select objects without the label, write !a"* ]]
    http GET "$JOBS?fieldSelector=,"
    [ "$CODE" = 400 ]
    [[ "$(body_json .message)" == *"an empty term (a stray comma)"* ]]
    http GET "$JOBS"
    local before
    before=$(body_json '.items | length')
    [ "$before" -ge 1 ]
    for q in "fieldSelector=," "labelSelector=a!%3D" "labelSelector=a%20in%20()" "resourceVersion=abc"; do
        http DELETE "$JOBS?$q"
        [ "$CODE" = 400 ]
    done
    http DELETE "$JOBS/nope?gracePeriodSeconds=abc"
    [ "$CODE" = 400 ]
    http GET "$JOBS"
    [ "$(body_json '.items | length')" = "$before" ]
}

FILES=$NS/volumes/data/files
TARX=(-H 'Content-Type: application/x-tar')

# a tar with one file member named $1 (pax names: any length)
tar_named() {
    python3 -c '
import io, sys, tarfile
t = tarfile.open(sys.argv[2], "w", format=tarfile.PAX_FORMAT)
i = tarfile.TarInfo(sys.argv[1]); i.size = 3
t.addfile(i, io.BytesIO(b"hi\n"))
t.close()' "$1" "$2"
}

@test "files: a path= name past 255 bytes or a path past 4095, 400 (not 500) on GET and PUT" {
    local long deep
    long=$(head -c 300 /dev/zero | tr '\0' a)
    deep=$(printf 'd%.0s' $(seq 200) | sed 's/.*/&\/&\/&\/&\/&/')
    deep="$deep/$deep/$deep/$deep/$deep" # 25 names of 200 bytes: 5024 bytes
    tar_named x in.tar
    http GET "$FILES?path=/$long"
    [ "$CODE" = 400 ]
    [ "$(body_json .reason)" = BadRequest ]
    [ "$(body_json .message)" = "path: \"/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\": a name of 300 bytes, more than the limit of 255 (NAME_MAX)" ]
    http PUT "$FILES?path=/$long" @in.tar "${TARX[@]}"
    [ "$CODE" = 400 ]
    [ "$(body_json .reason)" = BadRequest ]
    http GET "$FILES?path=/$deep"
    [ "$CODE" = 400 ]
    run body_json .message
    assert_output --regexp 'a path of 5025 bytes, more than the limit of 4095 \(PATH_MAX\)$'
    http PUT "$FILES?path=/$deep" @in.tar "${TARX[@]}"
    [ "$CODE" = 400 ]
    [ ! -e "$EMU_STATE/files/default/volumes/data/$(printf 'd%.0s' $(seq 200))" ]
}

@test "files: a tar member named past 255 bytes, or past 4095 under path=, 400 and nothing written" {
    local long name base
    long=$(head -c 300 /dev/zero | tr '\0' b)
    tar_named "$long" long.tar
    http PUT "$FILES?path=/in" @long.tar "${TARX[@]}"
    [ "$CODE" = 400 ]
    [ "$(body_json .reason)" = BadRequest ]
    [ "$(body_json .message)" = "cannot write the files of volume \"data\": refused: \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb...\": a name of 300 bytes, more than the limit of 255 (NAME_MAX)" ]
    # 16 names of 250 bytes (4015 bytes) fit under /in (4018), not under a 100-byte name
    name=$(head -c 250 /dev/zero | tr '\0' c)
    name=$(for i in $(seq 16); do printf '%s/' "$name"; done)
    tar_named "${name%/}" deep.tar
    http PUT "$FILES?path=/in" @deep.tar "${TARX[@]}"
    [ "$CODE" = 200 ]
    base=$(head -c 100 /dev/zero | tr '\0' e)
    http PUT "$FILES?path=/$base" @deep.tar "${TARX[@]}"
    [ "$CODE" = 400 ]
    [ "$(body_json .reason)" = BadRequest ]
    run body_json .message
    assert_output --regexp '^cannot write the files of volume "data": refused: "e{64}\.\.\.": a path of 4116 bytes, more than the limit of 4095 \(PATH_MAX\)$'
    [ ! -e "$EMU_STATE/files/default/volumes/data/$base/${name%%/*}" ]
}

@test "objects: annotations past 256 KiB and bad label keys or values are 422 (create and patch)" {
    head -c 262145 /dev/zero | tr '\0' a >v.txt
    jq -cn --rawfile v v.txt \
        '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:{name:"annot",annotations:{"x":$v}},
          spec:{image:"nodus/pytorch:2.8-cuda12.8",command:["true"],maxCostUSD:"1.00"}}' >big.json
    http POST $JOBS @big.json
    [ "$CODE" = 422 ]
    body_is .reason Invalid '.details.causes[0].field' metadata.annotations
    jq -c '[{op:"add",path:"/metadata/annotations",value:.metadata.annotations}]' big.json >ops.json
    http PATCH $JOBS/grow @ops.json "${JSONP[@]}"
    [ "$CODE" = 422 ]
    [ "$(body_json '.details.causes[0].field')" = metadata.annotations ]
    http PATCH $JOBS/grow '{"metadata":{"labels":{"-bad":"x"}}}' "${MERGE[@]}"
    [ "$CODE" = 422 ]
    http PATCH $JOBS/grow "{\"metadata\":{\"labels\":{\"ok\":\"$(head -c 64 /dev/zero | tr '\0' v)\"}}}" "${MERGE[@]}"
    [ "$CODE" = 422 ]
}

@test "watch: a huge timeoutSeconds is taken (no overflow), a bad one is 400" {
    local code
    # the stream stays open until curl gives up after a second
    code=$(curl -s -m 1 -o /dev/null -w '%{http_code}' \
        "$(emu_url)$JOBS?watch=true&timeoutSeconds=9223372036854775807" || true)
    [ "$code" = 200 ]
    # beyond int64 is strconv.ParseInt's "value out of range", as kube-apiserver
    http GET "$JOBS?watch=true&timeoutSeconds=99999999999999999999"
    [ "$CODE" = 400 ]
    http GET "$JOBS?watch=true&timeoutSeconds=1"
    [ "$CODE" = 200 ]
    http GET "$JOBS?watch=true&timeoutSeconds=-5"
    [ "$CODE" = 400 ]
    http GET "$JOBS?watch=true&timeoutSeconds=abc"
    [ "$CODE" = 400 ]
    # the server is still there
    http GET /readyz
    [ "$CODE" = 200 ]
}
