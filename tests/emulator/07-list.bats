#!/usr/bin/env bats
# Lists: selectors, pages, cluster-wide paths, Tables.

load ../lib/common

TABLE='Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json'

setup_file() {
    start_emulator
    EMU_URL=$(emu_url)
    for i in $(seq -w 1 12); do
        local tier=gold
        [ $((10#$i % 2)) -eq 0 ] && tier=silver
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
            "$EMU_URL/apis/nodus.dev/v1/namespaces/default/jobs" \
            -d "$(jq -cn --arg n "job-$i" --arg t $tier \
                '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:{name:$n,labels:{tier:$t,app:"train"}},
                  spec:{image:"nodus/pytorch:2.8-cuda12.8",maxCostUSD:"1.00",resources:{gpu:{model:"L4",count:1}}}}')"
    done
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL/api/v1/namespaces" \
        -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}'
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
        "$EMU_URL/apis/nodus.dev/v1/namespaces/team/jobs" -d "$(job_json team-job)"
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs

names() {
    body_json '[.items[].metadata.name] | join(",")'
}

@test "a list is a JobList sorted by name with the store's revision" {
    http GET $JOBS
    [ "$CODE" = 200 ]
    [ "$(body_json .kind)" = JobList ]
    [ "$(body_json .apiVersion)" = nodus.dev/v1 ]
    [ "$(body_json '.items | length')" = 12 ]
    [ "$(body_json '.items[0].metadata.name')" = job-01 ]
    [ "$(body_json '.items[0].kind')" = Job ]
    [[ "$(body_json .metadata.resourceVersion)" =~ ^[0-9]+$ ]]
}

@test "label selectors: equality, inequality, sets and existence" {
    http GET "$JOBS?labelSelector=tier%3Dgold"
    [ "$(body_json '.items | length')" = 6 ]
    http GET "$JOBS?labelSelector=tier%3D%3Dsilver"
    [ "$(body_json '.items | length')" = 6 ]
    http GET "$JOBS?labelSelector=tier!%3Dgold"
    [ "$(body_json '.items | length')" = 6 ]
    http GET "$JOBS?labelSelector=tier+in+(gold,bronze)"
    [ "$(body_json '.items | length')" = 6 ]
    http GET "$JOBS?labelSelector=tier%20notin%20(gold)"
    [ "$(body_json '.items | length')" = 6 ]
    http GET "$JOBS?labelSelector=app"
    [ "$(body_json '.items | length')" = 12 ]
    http GET "$JOBS?labelSelector=!app"
    [ "$(body_json '.items | length')" = 0 ]
    http GET "$JOBS?labelSelector=app%3Dtrain,tier%3Dgold"
    [ "$(body_json '.items | length')" = 6 ]
}

@test "a bad label selector is BadRequest naming the problem" {
    http GET "$JOBS?labelSelector=tier+in+(gold"
    [ "$CODE" = 400 ]
    [ "$(body_json .reason)" = BadRequest ]
    [[ "$(body_json .message)" == *"unable to parse requirement"* ]]
}

@test "field selectors on name, phase and state; others are refused" {
    http GET "$JOBS?fieldSelector=metadata.name%3Djob-03"
    [ "$(names)" = job-03 ]
    http GET "$JOBS?fieldSelector=status.phase%3DQueued"
    [ "$(body_json '.items | length')" = 12 ]
    http GET "$JOBS?fieldSelector=status.phase%3DRunning"
    [ "$(body_json '.items | length')" = 0 ]
    http GET "$JOBS?fieldSelector=spec.state%3DRunning,metadata.name!%3Djob-01"
    [ "$(body_json '.items | length')" = 11 ]
    http GET "$JOBS?fieldSelector=spec.image%3Dx"
    [ "$CODE" = 400 ]
    [ "$(body_json .message)" = "field label not supported: spec.image" ]
}

@test "limit and continue page through the list with remainingItemCount" {
    http GET "$JOBS?limit=5"
    [ "$(names)" = job-01,job-02,job-03,job-04,job-05 ]
    [ "$(body_json .metadata.remainingItemCount)" = 7 ]
    local token rv
    token=$(body_json .metadata.continue)
    rv=$(body_json .metadata.resourceVersion)
    [ -n "$token" ] && [ "$token" != null ]
    # a change after the first page does not show in the next ones
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL$JOBS" -d "$(job_json job-06a)"
    http GET "$JOBS?limit=5&continue=$token"
    [ "$(names)" = job-06,job-07,job-08,job-09,job-10 ]
    [ "$(body_json .metadata.resourceVersion)" = "$rv" ]
    token=$(body_json .metadata.continue)
    http GET "$JOBS?limit=5&continue=$token"
    [ "$(names)" = job-11,job-12 ]
    [ "$(body_json .metadata.continue)" = null ]
    [ "$(body_json .metadata.remainingItemCount)" = null ]
}

@test "later pages show the list as it was: deleted and changed objects at that revision" {
    local P=/apis/nodus.dev/v1/namespaces/snap/volumes i
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL/api/v1/namespaces" \
        -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"snap"}}'
    for i in 1 2 3 4 5 6; do
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL$P" \
            -d "{\"metadata\":{\"name\":\"v$i\",\"labels\":{\"n\":\"$i\"}},\"spec\":{\"size\":\"1Gi\"}}"
    done
    http GET "$P?limit=2"
    [ "$(names)" = v1,v2 ]
    [ "$(body_json .metadata.remainingItemCount)" = 4 ]
    local token rv
    token=$(body_json .metadata.continue)
    rv=$(body_json .metadata.resourceVersion)
    # after the first page: v3 deleted, v4 relabelled, v5a and v0 added
    curl -sf -o /dev/null -X DELETE "$EMU_URL$P/v3"
    curl -sf -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' "$EMU_URL$P/v4" \
        -d '{"metadata":{"labels":{"n":"changed"}}}'
    for i in 5a 0; do
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL$P" \
            -d "{\"metadata\":{\"name\":\"v$i\"},\"spec\":{\"size\":\"1Gi\"}}"
    done
    http GET "$P?limit=2&continue=$token"
    [ "$(names)" = v3,v4 ]
    [ "$(body_json '.items[1].metadata.labels.n')" = 4 ]
    [ "$(body_json '.items[0].metadata.resourceVersion | tonumber')" -le "$rv" ]
    [ "$(body_json .metadata.remainingItemCount)" = 2 ]
    [ "$(body_json .metadata.resourceVersion)" = "$rv" ]
    token=$(body_json .metadata.continue)
    http GET "$P?limit=2&continue=$token"
    [ "$(names)" = v5,v6 ]
    [ "$(body_json .metadata.continue)" = null ]
    # a new list sees the present
    http GET "$P"
    [ "$(names)" = v0,v1,v2,v4,v5,v5a,v6 ]
    [ "$(body_json '.items[3].metadata.labels.n')" = changed ]
}

@test "pages across projects whose names are prefixes of each other keep project order" {
    local ns i
    for ns in pa pa-b pab; do
        curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL/api/v1/namespaces" \
            -d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}"
        for i in 1 2; do
            curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
                "$EMU_URL/apis/nodus.dev/v1/namespaces/$ns/functions" \
                -d "{\"metadata\":{\"name\":\"f$i\"},\"spec\":{\"image\":\"nodus/python:3.12\"}}"
        done
    done
    local all='' token=''
    while :; do
        http GET "/apis/nodus.dev/v1/functions?limit=1${token:+&continue=$token}"
        [ "$CODE" = 200 ]
        all+=$(body_json '.items[] | "\(.metadata.namespace)/\(.metadata.name)"')' '
        token=$(body_json .metadata.continue)
        [ "$token" = null ] && break
    done
    [ "$all" = "pa/f1 pa/f2 pa-b/f1 pa-b/f2 pab/f1 pab/f2 " ]
    http GET /apis/nodus.dev/v1/namespaces/pa/functions
    [ "$(body_json '[.items[].metadata.name] | join(",")')" = f1,f2 ]
}

@test "a bad continue token is BadRequest; limits above 1000 are clamped" {
    http GET "$JOBS?continue=garbage"
    [ "$CODE" = 400 ]
    http GET "$JOBS?limit=5000"
    [ "$CODE" = 200 ]
    http GET "$JOBS?limit=-1"
    [ "$CODE" = 400 ]
}

# (before the 520 Volumes of the next test: the 25 hours would refresh each of them once a
# simulated minute, about 30 s of the emulator's CPU)
@test "a continue token from before the kept history is Expired" {
    http GET "$JOBS?limit=2"
    local token
    token=$(body_json .metadata.continue)
    # a change after the token, then more than 24 hours: that change leaves the history
    curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' "$EMU_URL$JOBS" -d "$(job_json before-jump)"
    curl -sf -o /dev/null -X POST "$EMU_URL/emulator/v1/clock" -H 'Content-Type: application/json' -d '{"advance":"25h"}'
    http GET "$JOBS?limit=2&continue=$token"
    [ "$CODE" = 410 ]
    [ "$(body_json .reason)" = Expired ]
}

@test "without a limit at most 500 items come back" {
    local i cfg=$BATS_TEST_TMPDIR/bulk.cfg
    # one curl for the 520 creates (a config of requests), not 520 curls and 520 jqs
    for i in $(seq 1 520); do
        [ "$i" = 1 ] || echo next
        printf 'url = "%s"\nrequest = "POST"\nheader = "Content-Type: application/json"\n' \
            "$EMU_URL/apis/nodus.dev/v1/namespaces/default/volumes"
        printf 'data = "{\\"apiVersion\\":\\"nodus.dev/v1\\",\\"kind\\":\\"Volume\\",\\"metadata\\":{\\"name\\":\\"bulk-%s\\"},\\"spec\\":{\\"size\\":\\"1Gi\\"}}"\n' "$i"
        printf 'output = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n'
    done >"$cfg"
    run curl -s -K "$cfg"
    [ "$(grep -c '^201$' <<<"$output")" = 520 ]
    http GET /apis/nodus.dev/v1/namespaces/default/volumes
    [ "$(body_json '.items | length')" = 500 ]
    [ "$(body_json .metadata.remainingItemCount)" = 20 ]
}

@test "the cluster-wide path lists every project" {
    http GET /apis/nodus.dev/v1/jobs
    [ "$CODE" = 200 ]
    run body_json '[.items[].metadata.namespace] | unique | join(",")'
    assert_output default,team
    http GET "/apis/nodus.dev/v1/jobs?fieldSelector=metadata.namespace%3Dteam"
    [ "$(names)" = team-job ]
}

@test "a Table answer has the kind's columns and server-rendered cells" {
    http GET "$JOBS?labelSelector=tier%3Dgold&limit=2" - -H "$TABLE"
    [ "$CODE" = 200 ]
    [ "$(body_json .kind)" = Table ]
    # the kind's columns are the registry's (pkg/kinds/kinds.c), as the CRD nodus prints
    # from it has them (NAME, which a CRD leaves out, first)
    local want
    want=$(nodus crds --kind Job -o json | jq -r '[{name: "NAME", priority: 0}] +
        [.. | .additionalPrinterColumns? // empty | .[]] |
        map(.name + ":" + (.priority // 0 | tostring)) | join(",")')
    run body_json '[.columnDefinitions[] | .name + ":" + (.priority|tostring)] | join(",")'
    assert_output "$want"
    assert_output --regexp '^NAME:0,STATE:0,PHASE:0,GPU:0,.*,MAX-COST:1'
    run body_json '.rows[0].cells[0:4] | join(",")'
    # the 25 h jumped over in an earlier test ran these 10-minute Jobs to the end
    assert_output "job-01,Running,Succeeded,1xL4"
    run body_json '.rows[0].cells[.columnDefinitions | map(.name) | index("MAX-COST")]'
    assert_output '$1.00'
    [ "$(body_json '.rows[0].object.kind')" = PartialObjectMetadata ]
    [ "$(body_json '.rows[0].object.metadata.labels.tier')" = gold ]
    [ "$(body_json .metadata.continue)" != null ]
}

@test "includeObject=Object puts whole objects in the rows; None leaves them out" {
    http GET "$JOBS?includeObject=Object&fieldSelector=metadata.name%3Djob-01" - -H "$TABLE"
    [ "$(body_json '.rows[0].object.kind')" = Job ]
    [ "$(body_json '.rows[0].object.spec.maxCostUSD')" = 1.00 ]
    http GET "$JOBS?includeObject=None&limit=1" - -H "$TABLE"
    [ "$(body_json '.rows[0].object')" = null ]
}

@test "a GET of one object as a Table is a one-row Table" {
    http GET "$JOBS/job-02" - -H "$TABLE"
    [ "$(body_json .kind)" = Table ]
    [ "$(body_json '.rows | length')" = 1 ]
    [ "$(body_json '.rows[0].cells[0]')" = job-02 ]
}

@test "a missing project lists empty; an unknown kind is NotFound" {
    http GET /apis/nodus.dev/v1/namespaces/ghost/jobs
    [ "$CODE" = 200 ]
    [ "$(body_json '.items | length')" = 0 ]
    http GET /apis/nodus.dev/v1/namespaces/default/widgets
    [ "$CODE" = 404 ]
}
