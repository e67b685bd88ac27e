#!/usr/bin/env bats
# Prices are never made up. Every field the schemas mark x-nodus-priced (found in the
# served OpenAPI, not listed by hand) refuses a value nothing prices with 422 Invalid
# naming the field and the value, on create and on dry run alike, and takes a valid
# one; a GPU model is offered by the price book or by the hosts of the work's Pool; a
# did-you-mean is suggested, never applied; a price book that drops a model leaves the
# objects asking for it charged their rate, with condition Unpriced saying so.

load pools

setup_file() {
    start_emulator
}

teardown_file() {
    stop_emulator
}

PB=/emulator/v1/pricebook
IMG=nodus/pytorch:2.8-cuda12.8

# priced_fields: one line per priced field of the served schemas: KIND PATH-JSON HOW
# (the path as a jq path: ["spec","steps",0,"job",...]; HOW the price book key).
priced_fields() {
    curl -sf "$(emu_url)/openapi/v3/apis/nodus.dev/v1" | jq -r '
        .components.schemas | to_entries[]
        | select(.key | test("^dev\\.nodus\\.v1\\.[A-Za-z]+$"))
        | select(.key | endswith("List") | not)
        | (.key | sub("^dev\\.nodus\\.v1\\."; "")) as $kind | .value as $s
        | $s | paths(objects | has("x-nodus-priced")) as $p
        | [$kind,
           ([$p[] | select(. != "properties") | if . == "items" then 0 else . end] | tojson),
           ($s | getpath($p) | .["x-nodus-priced"])] | join(" ")' | sort
}

# A valid object of KIND with every priced field set (fails for a kind it does not know:
# a newly priced kind needs its base here).
base_of() {
    local res='{"gpu":{"model":"H100","count":1},"cpu":"4","memory":"16Gi"}'
    case $1 in
    Job) jq -cn --argjson r "$res" --arg i "$IMG" \
        '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:{name:"priced"},
          spec:{image:$i,maxCostUSD:"40.00",resources:$r}}' ;;
    Sandbox) jq -cn --argjson r "$res" --arg i "$IMG" \
        '{apiVersion:"nodus.dev/v1",kind:"Sandbox",metadata:{name:"priced"},
          spec:{image:$i,maxCostUSD:"40.00",resources:$r}}' ;;
    Function) jq -cn --argjson r "$res" --arg i "$IMG" \
        '{apiVersion:"nodus.dev/v1",kind:"Function",metadata:{name:"priced"},
          spec:{image:$i,maxCostUSD:"40.00",resources:$r}}' ;;
    Pipeline) jq -cn --argjson r "$res" --arg i "$IMG" \
        '{apiVersion:"nodus.dev/v1",kind:"Pipeline",metadata:{name:"priced"},
          spec:{maxCostUSD:"40.00",steps:[{name:"train",job:{image:$i,maxCostUSD:"40.00",
                resources:$r}}]}}' ;;
    Volume) jq -cn '{apiVersion:"nodus.dev/v1",kind:"Volume",metadata:{name:"priced"},
          spec:{size:"10Gi"}}' ;;
    *) echo "no base object for kind $1: add one to base_of" >&2; return 1 ;;
    esac
}

plural_of() {
    case $1 in
    Sandbox) echo sandboxes ;;
    *) echo "$(echo "$1" | tr 'A-Z' 'a-z')s" ;;
    esac
}

# sweep_cases: one line per (priced field, value nothing prices) of the served schemas:
# KIND<TAB>FIELD<TAB>VALUE<TAB>OBJECT-JSON, the object being KIND's base with VALUE at
# FIELD. The values: a GPU model no price book or Pool has and one in the wrong case;
# for a quantity, one that is not a quantity and one past its bound.
sweep_cases() {
    local fields kinds bases k
    fields=$(priced_fields) || return 1
    kinds=$(cut -d' ' -f1 <<<"$fields" | sort -u)
    for k in $kinds; do
        base_of "$k" || return 1
    done >"$BATS_TEST_TMPDIR/bases"
    jq -R -r --slurpfile b "$BATS_TEST_TMPDIR/bases" '
        ($b | map({key: .kind, value: .}) | from_entries) as $base
        | split(" ") as [$k, $p, $how] | ($p | fromjson) as $path
        | ($path | map(if type == "number" then "[\(.)]" else ".\(.)" end) | join("")
           | ltrimstr(".") | gsub("\\.\\["; "[")) as $field
        | (if $how == "gpu" then ["H200", "h100"] else ["4 cores", "99999999999999"] end)[]
        | . as $v | [$k, $field, $v, ($base[$k] | setpath($path; $v) | tojson)] | @tsv' \
        <<<"$fields"
}

@test "the schemas mark every priced field, each with the price book key that prices it" {
    run priced_fields
    assert_success
    assert_output - <<'EOF'
Function ["spec","resources","cpu"] cpuCoreHourUSD
Function ["spec","resources","gpu","model"] gpu
Function ["spec","resources","memory"] memoryGiBHourUSD
Job ["spec","resources","cpu"] cpuCoreHourUSD
Job ["spec","resources","gpu","model"] gpu
Job ["spec","resources","memory"] memoryGiBHourUSD
Pipeline ["spec","steps",0,"job","resources","cpu"] cpuCoreHourUSD
Pipeline ["spec","steps",0,"job","resources","gpu","model"] gpu
Pipeline ["spec","steps",0,"job","resources","memory"] memoryGiBHourUSD
Sandbox ["spec","resources","cpu"] cpuCoreHourUSD
Sandbox ["spec","resources","gpu","model"] gpu
Sandbox ["spec","resources","memory"] memoryGiBHourUSD
Volume ["spec","size"] storageGiBMonthUSD
EOF
}

@test "every priced field refuses a value nothing prices, on create and on dry run, and takes a valid one" {
    local dir=$BATS_TEST_TMPDIR cfg=$BATS_TEST_TMPDIR/curl.cfg n=0 kind field value obj plural
    local url
    url=$(emu_url)
    sweep_cases >"$dir/cases"
    : >"$cfg"
    # every request in one curl (a config of requests): two per case, a create and a dry run
    declare -A plurals
    for kind in $(cut -f1 "$dir/cases" | sort -u); do
        plurals[$kind]=$(plural_of "$kind")
    done
    while IFS=$'\t' read -r kind field value obj; do
        n=$((n + 1))
        plural=${plurals[$kind]}
        printf '%s\n' "$obj" >"$dir/req.$n"
        for q in "" "?dryRun=All"; do
            printf 'url = "%s%s/%s%s"\nrequest = "POST"\nheader = "Content-Type: application/json"\ndata-binary = "@%s"\noutput = "%s"\nnext\n' \
                "$url" "$P" "$plural" "$q" "$dir/req.$n" "$dir/out.$n${q:+.dry}" >>"$cfg"
        done
    done <"$dir/cases"
    [ "$n" -ge 26 ] # 13 fields, 2 values each: the sweep swept
    sed -i '$d' "$cfg" # no request after the last
    curl -sS -K "$cfg" >/dev/null
    # each answer, as "CODE REASON: <the cause on exactly that field> | <message>"
    jq -r --rawfile cases "$dir/cases" '
        ($cases | split("\n") | map(select(length > 0) | split("\t")))[(input_filename
            | capture("out\\.(?<n>[0-9]+)") | .n | tonumber) - 1] as [$k, $f, $v]
        | "\(input_filename | sub(".*/"; "")) \($f)=\($v) -> \(.code) \(.reason): \([.details.causes[]? | select(.field == $f) | .message][0]) | \(.message)"' \
        $(for i in $(seq 1 "$n"); do echo "$dir/out.$i" "$dir/out.$i.dry"; done) >"$dir/answers"
    [ "$(wc -l <"$dir/answers")" = $((2 * n)) ]
    local line
    while IFS= read -r line; do
        # the value quoted in the cause, the field in the message
        [[ "$line" =~ ^out\.[0-9]+(\.dry)?\ ([^=]+)=(.*)\ -\>\ 422\ Invalid:\ Invalid\ value:\ \"(.*)\":\ .*\ \|\ .*\ is\ invalid:\ .*$ ]] ||
            { echo "not refused as it should be: $line"; return 1; }
        [ "${BASH_REMATCH[3]}" = "${BASH_REMATCH[4]}" ] || { echo "value not named: $line"; return 1; }
        [[ "$line" == *"| "*"${BASH_REMATCH[2]}: "* ]] || { echo "field not named: $line"; return 1; }
    done <"$dir/answers"
    # nothing was stored; each valid base is taken and, when it computes, at a real price
    for kind in $(cut -f1 "$dir/cases" | sort -u); do
        plural=$(plural_of "$kind")
        http GET "$P/$plural/priced"
        [ "$CODE" = 404 ]
        http POST "$P/$plural?dryRun=All" "$(base_of "$kind")"
        [ "$CODE" = 201 ] || { echo "$kind: valid base refused: $(cat "$BODY")"; return 1; }
        if [ "$kind" != Volume ]; then
            [ "$(body_json '.status.estimate.rateUSDPerHour | tonumber > 0')" = true ]
        fi
    done
}

@test "a model in the wrong case is suggested, never applied; the fix says what to set" {
    http POST "$P/jobs" "$(job_json typo '{"resources":{"gpu":{"model":"h100","count":2}}}')"
    [ "$CODE" = 422 ]
    run body_json .message
    assert_output 'Job.nodus.dev "typo" is invalid: spec.resources.gpu.model: Invalid value: "h100": no price for this GPU model: the price book offers "H100", "A100", "L40S", "L4"; did you mean "H100"? (models are case-sensitive)'
    run body_json .fix
    assert_output 'set spec.resources.gpu.model to "H100", then review the estimate again with --dry-run=server'
    http GET "$P/jobs/typo"
    [ "$CODE" = 404 ]
    # a model no case of which is priced: the closest, without the note on case
    http POST "$P/jobs?dryRun=All" "$(job_json typo '{"resources":{"gpu":{"model":"H200","count":1}}}')"
    [ "$CODE" = 422 ]
    run body_json .message
    assert_output --partial '"H200": no price for this GPU model: the price book offers "H100", "A100", "L40S", "L4"; did you mean "H100"?'
    refute_output --partial 'case-sensitive'
}

@test "the CLI's create, apply and dry run refuse an unpriced model with the field, the value and the offered models" {
    local f=$BATS_TEST_TMPDIR/typo.yaml
    cat >"$f" <<EOF
apiVersion: nodus.dev/v1
kind: Sandbox
metadata:
  name: cli-typo
spec:
  image: $IMG
  maxCostUSD: "10.00"
  resources:
    gpu: {model: l40s, count: 1}
EOF
    local verb
    for verb in "create" "apply" "apply --dry-run=server" "create --dry-run=server"; do
        run nodus --server "$(emu_url)" $verb -f "$f"
        [ "$status" -ne 0 ] || { echo "$verb: $output"; return 1; }
        assert_output --partial 'spec.resources.gpu.model: Invalid value: "l40s"'
        assert_output --partial 'offers "H100", "A100", "L40S", "L4"; did you mean "L40S"?'
    done
    http GET "$P/sandboxes/cli-typo"
    [ "$CODE" = 404 ]
}

@test "a model the hosts of the work's Pool carry is offered to that work only" {
    pool_with_host lab rack1 '{"B200":8}'
    # placed in the Pool: taken, at the Pool's price
    http POST "$P/jobs?dryRun=All" "$(pjob_json b1 lab 2 1h '{"resources":{"gpu":{"model":"B200","count":2}}}')"
    [ "$CODE" = 201 ] || { cat "$BODY"; return 1; }
    # in the wrong case: the Pool's model is suggested
    http POST "$P/jobs?dryRun=All" "$(pjob_json b2 lab 2 1h '{"resources":{"gpu":{"model":"b200","count":2}}}')"
    [ "$CODE" = 422 ]
    run body_json '.details.causes[0].message'
    assert_output 'Invalid value: "b200": no price for this GPU model: the price book and pool/lab'"'"'s hosts offer "H100", "A100", "L40S", "L4", "B200"; did you mean "B200"? (models are case-sensitive)'
    # on the market no one offers it
    http POST "$P/jobs" "$(job_json b3 '{"resources":{"gpu":{"model":"B200","count":2}}}')"
    [ "$CODE" = 422 ]
    run body_json '.details.causes[0].message'
    assert_output --partial '"B200": no price for this GPU model: the price book offers "H100", "A100", "L40S", "L4"'
}

# drop_model MODEL: PUTs the price book without MODEL (market and Pool).
drop_model() {
    http GET $PB
    http PUT $PB "$(jq -c --arg m "$1" 'del(.gpu.market[$m], .gpu.pool[$m])' "$BODY")"
    [ "$CODE" = 200 ]
}

restore_model() {
    http GET $PB
    http PUT $PB "$(jq -c --arg m "$1" --arg r "$2" '.gpu.market[$m] = $r | .gpu.pool[$m] = "0.00"' "$BODY")"
    [ "$CODE" = 200 ]
}

# unpriced PLURAL/NAME: the Unpriced condition as "STATUS REASON: MESSAGE".
unpriced() {
    val "$1" '.status.conditions[] | select(.type == "Unpriced") | "\(.status) \(.reason): \(.message)"'
}

@test "a price book that drops a model leaves its objects charged their rate, and says so" {
    local l4='{"resources":{"gpu":{"model":"L4","count":1}}}'
    create jobs "$(job_json l4-job "$l4" | jq -c '.metadata.annotations = {"emulator.nodus.dev/duration": "5h"}')"
    create sandboxes "$(jq -cn --arg i "$IMG" '{apiVersion:"nodus.dev/v1",kind:"Sandbox",
        metadata:{name:"l4-box"},spec:{image:$i,maxCostUSD:"40.00",idleTimeout:"24h",
        resources:{gpu:{model:"L4",count:1}}}}')"
    create functions "$(jq -cn --arg i "$IMG" '{apiVersion:"nodus.dev/v1",kind:"Function",
        metadata:{name:"l4-fn"},spec:{image:$i,maxCostUSD:"40.00",
        scaling:{minReplicas:1,maxReplicas:1},resources:{gpu:{model:"L4",count:1}}}}')"
    advance 1m
    [ "$(val jobs/l4-job .status.phase)" = Running ]
    [ "$(val sandboxes/l4-box .status.phase)" = Running ]
    [ "$(val functions/l4-fn .status.rateUSDPerHour)" = 0.39 ]

    drop_model L4
    advance 1h
    run unpriced jobs/l4-job
    assert_output 'True ModelNotPriced: spec.resources.gpu.model "L4" is no longer in the price book; it keeps the rate it runs at, 0.39 USD per hour (status.rateUSDPerHour)'
    run unpriced sandboxes/l4-box
    assert_output 'True ModelNotPriced: spec.resources.gpu.model "L4" is no longer in the price book; it keeps the rate it runs at, 0.39 USD per hour (status.rateUSDPerHour)'
    run unpriced functions/l4-fn
    assert_output 'True ModelNotPriced: spec.resources.gpu.model "L4" is no longer in the price book; its spec is charged 0.39 USD per hour, its last priced rate, until the price book prices the model again'
    # never $0: the rates stand and the costs grew by an hour of them
    [ "$(val jobs/l4-job .status.rateUSDPerHour)" = 0.39 ]
    [ "$(val sandboxes/l4-box .status.rateUSDPerHour)" = 0.39 ]
    [ "$(val functions/l4-fn .status.rateUSDPerHour)" = 0.39 ]
    [ "$(val jobs/l4-job '.status.costUSD | tonumber >= 0.39')" = true ]
    [ "$(val functions/l4-fn '.status.costUSD | tonumber >= 0.39')" = true ]
    # a new object asking for it is refused; the running ones can still be changed
    http POST "$P/jobs?dryRun=All" "$(job_json l4-new "$l4")"
    [ "$CODE" = 422 ]
    patch sandboxes/l4-box '{"spec":{"state":"Stopped"}}'
    [ "$CODE" = 200 ] || { cat "$BODY"; return 1; }

    restore_model L4 0.39
    advance 1m
    run unpriced jobs/l4-job
    assert_output 'False Priced: every GPU model it asks for has a price again'
}

# Each Invalid says what to do about its own problem, not the generic "nodus explain
# KIND --recursive" (kept for problems with no fix of their own).

@test "a bad duration, quantity or money gets the fix of its format; a bad name the fix of names" {
    http POST "$P/jobs" "$(job_json late '{"maxDuration":"5 minutes"}')"
    [ "$CODE" = 422 ]
    run body_json .fix
    assert_output 'write spec.maxDuration as a number and a unit (ms, s, m, h), such as "90s", "30m" or "1h30m"'
    http POST "$P/jobs" "$(job_json big '{"resources":{"cpu":"2000"}}')"
    run body_json .fix
    assert_output 'set spec.resources.cpu to 1024 or less'
    http POST "$P/jobs" "$(job_json Bad_Name)"
    [ "$CODE" = 422 ]
    run body_json .fix
    assert_output "name the object with at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit, such as \"train-a\""
    # two problems with fixes of their own: both, once each
    http POST "$P/jobs" "$(job_json Bad_Name '{"maxDuration":"x","maxCostUSD":"lots"}')"
    run body_json .fix
    assert_output "name the object with at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit, such as \"train-a\"; write spec.maxCostUSD as a decimal string of US dollars, such as \"40.00\"; write spec.maxDuration as a number and a unit (ms, s, m, h), such as \"90s\", \"30m\" or \"1h30m\""
    # a problem without one keeps the generic fix
    http POST "$P/jobs" "$(job_json typed '{"backoffLimit":"x"}')"
    run body_json .fix
    assert_output 'correct the fields named in the causes; see what a Job takes: nodus explain job --recursive'
}

@test "a JSON patch whose test fails says the object is not what the patch expects" {
    create jobs "$(job_json tested)"
    http PATCH "$P/jobs/tested" '[{"op":"test","path":"/spec/maxCostUSD","value":"11.00"},{"op":"replace","path":"/spec/maxCostUSD","value":"50.00"}]' \
        -H 'Content-Type: application/json-patch+json'
    [ "$CODE" = 422 ]
    run body_json .fix
    assert_output "the object does not hold what the patch's test operation expects at /spec/maxCostUSD (it changed, or the patch is wrong): read the object again and write the patch against what it holds now"
}

@test "a refused decision on a PoolAction says what is true; one that ended undecided shows Cancelled" {
    create pools "$(pool_json p39)"
    local pa='{"apiVersion":"nodus.dev/v1","kind":"PoolAction","metadata":{"name":"undecided"},"spec":{"pool":"p39","action":"Drain","target":"pool/p39"}}'
    create poolactions "$pa"
    advance 1s
    run val poolactions/undecided '[.status.phase, .spec.decision, .status.decision] | join(" ")'
    assert_output 'Queued Pending Pending'
    patch poolactions/undecided '{"spec":{"decision":"Shadow"}}'
    [ "$CODE" = 422 ]
    run body_json .fix
    assert_output 'set spec.decision to Approved or Rejected'
    # its Pool pauses Act: it ends undecided, and shows so
    patch pools/p39 '{"spec":{"act":{"paused":true}}}'
    [ "$CODE" = 200 ]
    advance 1s
    run val poolactions/undecided '[.status.phase, .spec.decision, .status.decision] | join(" ")'
    assert_output 'Cancelled Pending Cancelled'
    patch poolactions/undecided '{"spec":{"decision":"Approved"}}'
    [ "$CODE" = 422 ]
    run body_json .fix
    assert_output 'nothing is left to decide; when the situation comes back its Pool proposes a new PoolAction: nodus get poolactions -n default'
    # decided already: it stays as decided
    patch pools/p39 '{"spec":{"act":{"paused":false}}}'
    create poolactions "$(jq -c '.metadata.name = "decided" | .spec.decision = "Approved"' <<<"$pa")"
    patch poolactions/decided '{"spec":{"decision":"Rejected"}}'
    [ "$CODE" = 422 ]
    run body_json .fix
    assert_output 'leave spec.decision as it is (Approved): it changes only while Pending'
}

@test "the emulator stops cleanly, without sanitizer reports" {
    stop_emulator
    assert_no_sanitizer_reports
}
