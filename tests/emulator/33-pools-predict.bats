#!/usr/bin/env bats
# Predict: enabling it needs the token scope billing:write and the caller's consent to
# its fee (header Nodus-Price-Consent); the consent is recorded; forecasts of peak GPU
# demand from the Pool's hourly history; the fee. This emulator requires tokens.

load pools

FULL=(-H 'Authorization: Bearer tok-full')
PLAIN=(-H 'Authorization: Bearer tok-plain')
CONSENT=(-H 'Nodus-Price-Consent: 0.10')
ADMIN_AUTH=(-H 'Authorization: Bearer tok-admin') # the control endpoints need admin

setup_file() {
    cat >"$BATS_FILE_TMPDIR/tokens.json" <<'EOF'
{"tok-full": {"identity": "alice", "projects": ["*"], "scopes": ["read", "write", "billing:write"]},
 "tok-plain": {"identity": "bob", "projects": ["*"], "scopes": ["read", "write"]},
 "tok-admin": {"identity": "root", "projects": ["*"], "scopes": ["admin"]}}
EOF
    chmod 600 "$BATS_FILE_TMPDIR/tokens.json"
    start_emulator --token-file "$BATS_FILE_TMPDIR/tokens.json"
}

teardown_file() {
    stop_emulator
}

# As create/val/patch, with alice's token.
acreate() { create "$1" "$2" "${FULL[@]}" "${@:3}"; }
aval() {
    http GET "$P/$1" - "${FULL[@]}"
    [ "$CODE" = 200 ] || { echo "get $1: $CODE" >&2; return 1; }
    body_json "$2"
}

predict_pool() {
    pool_json "$1" "$(jq -cn --argjson on "${2:-true}" --arg h "${3:-168h}" '{predict:{enabled:$on,horizon:$h},routing:{burstToMarket:"Deny"}}')"
}

@test "without billing:write, enabling Predict is Forbidden" {
    http POST "$P/pools" "$(predict_pool p1)" "${PLAIN[@]}" "${CONSENT[@]}"
    [ "$CODE" = 403 ]
    run body_json '[.reason, .message, .fix, .details.name, .details.kind] | @tsv'
    assert_output "$(printf 'Forbidden\tbob may not enable Predict on pool "p1": it needs the token scope billing:write\tuse a token with the billing:write scope, or leave spec.predict.enabled false\tp1\tpools')"
    # the same token may create the Pool with Predict off, and not turn it on later
    http POST "$P/pools" "$(predict_pool p1 false)" "${PLAIN[@]}"
    [ "$CODE" = 201 ]
    patch pools/p1 '{"spec":{"predict":{"enabled":true}}}' "${PLAIN[@]}" "${CONSENT[@]}"
    [ "$CODE" = 403 ]
    http GET "$P/pools/p1" - "${PLAIN[@]}"
    run body_json '[.spec.predict.enabled, (.status.predict // "none" | tostring)] | @tsv'
    assert_output "$(printf 'false\tnone')"
}

@test "without consent, enabling Predict is ConsentRequired with the header to send" {
    http POST "$P/pools" "$(predict_pool p2)" "${FULL[@]}"
    [ "$CODE" = 428 ]
    run body_json '[.reason, .message, .fix] | @tsv'
    assert_output "$(printf "ConsentRequired\tenabling Predict on pool \"p2\" costs 0.10 USD per hour: consent to the price with the Nodus-Price-Consent header\trepeat the request with the header 'Nodus-Price-Consent: 0.10' (the Predict fee in US dollars per hour you agree to)")"
    # consent to less than the fee is no consent
    http POST "$P/pools" "$(predict_pool p2)" "${FULL[@]}" -H 'Nodus-Price-Consent: 0.05'
    [ "$CODE" = 428 ]
    run body_json '.message'
    assert_output 'the Predict fee is 0.10 USD per hour, more than the 0.05 consented to with the Nodus-Price-Consent header'
    http POST "$P/pools" "$(predict_pool p2)" "${FULL[@]}" -H 'Nodus-Price-Consent: yes'
    [ "$CODE" = 400 ]
    run body_json '[.reason, .message] | @tsv'
    assert_output "$(printf 'BadRequest\tNodus-Price-Consent: invalid amount "yes": must be a decimal number of US dollars such as "40.00"')"
    http GET "$P/pools/p2" - "${FULL[@]}"
    [ "$CODE" = 404 ]
    # the CLI exits 8 on it
    run -8 env NODUS_SERVER="$(emu_url)" NODUS_TOKEN=tok-full HOME="$BATS_TEST_TMPDIR" \
        nodus apply -f - <<<"$(predict_pool p2)"
    assert_output --partial 'ConsentRequired'
}

@test "with billing:write and consent, Predict is on and the consent recorded" {
    http POST "$P/pools?dryRun=All" "$(predict_pool p3)" "${FULL[@]}" "${CONSENT[@]}"
    [ "$CODE" = 201 ]
    run body_json '.status.routing.consent.rateUSD'
    assert_output 0.10
    http GET "$P/pools/p3" - "${FULL[@]}"
    [ "$CODE" = 404 ]
    now=$(now_ms)
    acreate pools "$(predict_pool p3)" -H 'Nodus-Price-Consent: 0.25'
    run body_json '.status.routing.consent | [.rateUSD, .time] | @tsv'
    assert_output "$(printf '0.10\t%s' "$(rfc3339 "$now")")"
    advance 1s
    run aval pools/p3 '[.status.predict.enabledTime, .status.routing.consent.rateUSD, .status.routing.waiting, .status.routing.burstPending] | @tsv'
    assert_output "$(printf '%s\t0.10\t0\t0' "$(rfc3339 "$now")")"
    # already on: a change needs no consent again, and keeps the record
    patch pools/p3 '{"spec":{"predict":{"horizon":"48h"}}}' "${FULL[@]}"
    [ "$CODE" = 200 ]
    run body_json '.status.routing.consent.time'
    assert_output "$(rfc3339 "$now")"
}

@test "a forecast from the demand history: p50, p90 and the first hour of shortfall" {
    acreate pools "$(predict_pool p4 true 24h)" "${CONSENT[@]}"
    acreate hosts "$(host_json p4-a p4 '{"H100":1}')"
    advance 15s
    # no demand yet: a forecast of nothing, no shortfall
    run aval pools/p4 '.status.forecast | [.horizon, .peakDemandGPUs.p50, .peakDemandGPUs.p90, (.shortfallTime // "none")] | @tsv'
    assert_output "$(printf '24h\t0\t0\tnone')"
    run aval pools/p4 '.status.conditions[] | select(.type=="Shortfall") | .status'
    assert_output False
    acreate jobs "$(pjob_json p4-run p4 1 48h)"
    acreate jobs "$(pjob_json p4-wait p4 1 48h)"
    advance 1s
    to_next_hour
    hour=$(now_ms)
    run aval pools/p4 '.status.forecast | [.generatedTime, .peakDemandGPUs.p50, .peakDemandGPUs.p90, .shortfallTime] | @tsv'
    assert_output "$(printf '%s\t2\t2\t%s' "$(rfc3339 "$hour")" "$(rfc3339 $((hour + 3600000)))")"
    run aval pools/p4 '.status.conditions[] | select(.type=="Shortfall") | [.status, .reason] | @tsv'
    assert_output "$(printf 'True\tShortfallForecast')"
    # every status field of the reference is filled
    run aval pools/p4 '.status | [has("act"), has("capacity"), has("conditions"), has("forecast"), has("phase"),
        has("predict"), (.routing | has("consent")), has("utilization"), (.act | has("lastActionTime") | not)] | all'
    assert_output true
    # a second device: the demand fits
    acreate hosts "$(host_json p4-b p4 '{"H100":1}')"
    advance 15s
    run aval pools/p4 '.status.forecast | [.peakDemandGPUs.p90, (.shortfallTime // "none")] | @tsv'
    assert_output "$(printf '2\tnone')"
}

@test "the forecast follows the trend of the daily peaks and the hours of the day" {
    acreate pools "$(predict_pool p5 true 72h)" "${CONSENT[@]}"
    acreate hosts "$(host_json p5-a p5 '{"H100":4}')"
    advance 15s
    to_next_hour
    # three days: 1, then 2, then 3 GPUs all day long; the Pool has 4
    for gpus in 1 2 3; do
        acreate jobs "$(pjob_json "p5-day$gpus" p5 "$gpus" 23h58m)"
        advance 1s
        advance 23h59m59s
    done
    day4=$(now_ms)
    # one more GPU a day: tomorrow the p90 demand (5) exceeds the 4 devices; in 72h it is 7
    run aval pools/p5 '.status.forecast | [.generatedTime, .peakDemandGPUs.p50, .peakDemandGPUs.p90, .shortfallTime] | @tsv'
    assert_output "$(printf '%s	7	7	%s' "$(rfc3339 "$day4")" "$(rfc3339 $((day4 + 24 * 3600000)))")"
    run aval pools/p5 '.status.conditions[] | select(.type=="Shortfall") | .message'
    assert_output "the p90 demand exceeds the Pool's 4 devices from $(rfc3339 $((day4 + 24 * 3600000)))"
    # a longer horizon changes nothing before the shortfall; a shorter one sees none
    patch pools/p5 '{"spec":{"predict":{"horizon":"24h"}}}' "${FULL[@]}"
    advance 1s
    run aval pools/p5 '.status.forecast | [.horizon, .peakDemandGPUs.p90, (.shortfallTime // "none")] | @tsv'
    assert_output "$(printf '24h	5	%s' "$(rfc3339 $((day4 + 24 * 3600000)))")"
}

@test "the Predict fee accrues from enabledTime; turning it off stops it" {
    acreate pools "$(predict_pool p6)" "${CONSENT[@]}"
    advance 2h
    refresh p6 "${FULL[@]}"
    run aval pools/p6 '.status.simulation.predictFeeMicros'
    assert_output 200000
    patch pools/p6 '{"spec":{"predict":{"enabled":false}}}' "${FULL[@]}"
    [ "$CODE" = 200 ]
    advance 1s
    run aval pools/p6 '[(.status.predict // "none" | tostring), (.status.forecast // "none" | tostring), .status.routing.consent.rateUSD] | @tsv'
    assert_output "$(printf 'none\tnone\t0.10')"
    http GET "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=p6" - "${FULL[@]}"
    run body_json '[.items[] | select(.reason=="PredictDisabled") | .message] | .[0]'
    assert_output 'Predict is off; its fee came to 0.20 USD'
    # on again: consent again
    patch pools/p6 '{"spec":{"predict":{"enabled":true}}}' "${FULL[@]}"
    [ "$CODE" = 428 ]
}

@test "the emulator stops cleanly, without sanitizer reports" {
    stop_emulator
    assert_no_sanitizer_reports
}
