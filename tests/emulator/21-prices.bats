#!/usr/bin/env bats
# The price book: read and replace it, edits of pricebook.json picked up, the version
# rule, dry-run estimates with ETags, If-Match, and the reviewed rate + 10 % cap.

load ../lib/common

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

JOBS=/apis/nodus.dev/v1/namespaces/default/jobs
PB=/emulator/v1/pricebook

get() {
    curl -sf "$(emu_url)$JOBS/$1" | jr "$2"
}

h100_job() {
    job_json "$1" '{"resources":{"gpu":{"model":"H100","count":2}},"maxCostUSD":"100.00"}'
}

# set_market MODEL RATE: moves one market rate through PUT.
set_market() {
    http GET $PB
    local book
    book=$(jq -c --arg m "$1" --arg r "$2" '.gpu.market[$m] = $r' "$BODY")
    http PUT $PB "$book"
    [ "$CODE" = 200 ]
}

@test "the default price book has the documented rates and delays" {
    http GET $PB
    [ "$CODE" = 200 ]
    run body_json '[.gpu.market.H100, .gpu.market.A100, .gpu.market["L40S"], .gpu.market.L4, .gpu.pool.H100] | join(" ")'
    assert_output "2.49 1.29 0.99 0.39 0.00"
    run body_json '[.cpuCoreHourUSD, .memoryGiBHourUSD, .storageGiBMonthUSD] | join(" ")'
    assert_output "0.04 0.005 0.08"
    run body_json '[.delays.queued, .delays.provisioning, .delays.pending, .delays.starting, .delays.jobRun, .delays.finalCharge] | join(" ")'
    assert_output "5s 30s 2s 10s 10m 30s"
    [ "$(header ETag)" = "\"$(body_json .version)\"" ]
}

@test "a dry run answers the estimate and an ETag; the ETag as If-Match creates what was reviewed" {
    http POST "$JOBS?dryRun=All" "$(h100_job rev1)"
    [ "$CODE" = 201 ]
    run body_json '[.status.estimate.rateUSDPerHour, .status.estimate.expectedCostUSD, .status.estimate.firstHoldUSD] | join(" ")'
    assert_output "4.98 0.83 4.98"
    local etag
    etag=$(header ETag)
    [[ "$etag" =~ ^\"[0-9a-f]{16}-4980000\"$ ]]
    http GET $JOBS/rev1
    [ "$CODE" = 404 ] # a dry run writes nothing
    http POST $JOBS "$(h100_job rev1)" -H "If-Match: $etag"
    [ "$CODE" = 201 ]
    # the reviewed rate + 10 % caps what it may run at
    [ "$(body_json .status.maxRateUSDPerHour)" = 5.478 ]
}

@test "a changed spec or price-book version fails the If-Match with PreconditionFailed" {
    http POST "$JOBS?dryRun=All" "$(h100_job rev2)"
    local etag
    etag=$(header ETag)
    http POST $JOBS "$(job_json rev2 '{"resources":{"gpu":{"model":"H100","count":4}},"maxCostUSD":"100.00"}')" -H "If-Match: $etag"
    [ "$CODE" = 412 ]
    [ "$(body_json .reason)" = PreconditionFailed ]
    run body_json .message
    assert_output --partial "no longer matches: the spec or the price book changed since the review"
    # a non-market change (the CPU rate) moves the version
    http GET $PB
    local v
    v=$(body_json .version)
    http PUT $PB "$(jq -c '.cpuCoreHourUSD = "0.05"' "$BODY")"
    [ "$CODE" = 200 ]
    [ "$(body_json .version)" = $((v + 1)) ]
    http POST $JOBS "$(h100_job rev2)" -H "If-Match: $etag"
    [ "$CODE" = 412 ]
}

@test "a moved market rate keeps the version: the reviewed create goes through" {
    http POST "$JOBS?dryRun=All" "$(h100_job rev3)"
    local etag v
    etag=$(header ETag)
    http GET $PB
    v=$(body_json .version)
    set_market H100 2.60
    [ "$(body_json .version)" = "$v" ]
    http POST $JOBS "$(h100_job rev3)" -H "If-Match: $etag"
    [ "$CODE" = 201 ]
    set_market H100 2.49
}

@test "above the reviewed rate + 10 % a Job waits Queued with PriceAboveEstimate, and goes when it falls" {
    http POST "$JOBS?dryRun=All" "$(h100_job cap)"
    local etag
    etag=$(header ETag)
    set_market H100 2.80 # 5.60/h for two: above 5.478
    http POST $JOBS "$(h100_job cap)" -H "If-Match: $etag"
    [ "$CODE" = 201 ]
    clock_advance 1m
    [ "$(get cap .status.phase)" = Queued ]
    [ "$(get cap '.status.conditions[] | select(.type=="PriceAboveEstimate") | .status')" = True ]
    set_market H100 2.70 # 5.40/h: within
    clock_advance 6s
    [ "$(get cap .status.phase)" = Provisioning ]
    [ "$(get cap '.status.conditions[] | select(.type=="PriceAboveEstimate") | .status')" = False ]
    [ "$(get cap .status.rateUSDPerHour)" = 5.40 ]
    set_market H100 2.49
}

@test "spec.placement.maxRateUSDPerHour caps the rate without a review" {
    http POST $JOBS "$(job_json capped '{"resources":{"gpu":{"model":"H100","count":1}},"placement":{"maxRateUSDPerHour":"2.00"}}')"
    [ "$CODE" = 201 ]
    clock_advance 1m
    [ "$(get capped .status.phase)" = Queued ]
    [ "$(get capped '.status.conditions[] | select(.type=="PriceAboveEstimate") | .status')" = True ]
}

@test "an edit of pricebook.json is picked up; a broken edit is reported and ignored" {
    local file=$EMU_STATE/pricebook.json v
    http GET $PB
    v=$(body_json .version)
    jq '.gpu.market.L4 = "0.45" | .delays.jobRun = "20m"' "$file" >"$file.new" && mv "$file.new" "$file"
    # the emulator looks at the file about once a second, and before answering a GET
    http GET $PB
    [ "$(body_json .gpu.market.L4)" = 0.45 ]
    [ "$(body_json .delays.jobRun)" = 20m ]
    [ "$(body_json .version)" = $((v + 1)) ]
    # the file now carries the version it moved to
    [ "$(jq .version "$file")" = $((v + 1)) ]
    echo '{"version": 1, "gpu": ' >"$file"
    http GET $PB
    [ "$(body_json .gpu.market.L4)" = 0.45 ]
    grep -q "pricebook.json: not taken" "$BATS_FILE_TMPDIR/emulator.err"
}

@test "a bad price book is refused with Invalid and changes nothing" {
    http GET $PB
    local before
    before=$(jq -c . "$BODY")
    http PUT $PB "$(jq -c '.gpu.market.H100 = "cheap"' "$BODY")"
    [ "$CODE" = 422 ]
    [ "$(body_json .reason)" = Invalid ]
    run body_json .message
    assert_output "pricebook: gpu.market.H100: not a decimal amount"
    http PUT $PB 'not json'
    [ "$CODE" = 400 ]
    http GET $PB
    [ "$(jq -c . "$BODY")" = "$before" ]
}
