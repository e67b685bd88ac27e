#!/bin/bash
# The CLI rows of make bench (called by bench/run.sh): warm nodus vs warm kubectl on one
# emulator, at each object count of CLI_NS: get, get -o json, get KIND/NAME, apply -f (an
# unchanged object), describe. Wall time with hyperfine -N (no shell in between), peak
# memory with GNU time (highest of 3 runs). Appends rows to RES.
#
# Environment: BIN (nodus, nodus-emulator), WORK (scratch), RES (results.tsv), CLI_NS,
# CLI_RUNS; CLI_SIM=1: the emulator with the simulation on (default off), its rows in
# section CLI_SECTION (default cli).
set -euo pipefail
: "${BIN:?}" "${WORK:?}" "${RES:?}" "${CLI_NS:=100 1000}" "${CLI_RUNS:=10}" "${CLI_SIM:=0}"
: "${CLI_SECTION:=cli}"
SIM=(--no-simulation)
[ "$CLI_SIM" = 0 ] || SIM=()
rec() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RES"; }

KUBECTL=""
if command -v kubectl >/dev/null; then
    dir=$(dirname "$(readlink -f "$(command -v kubectl)")")
    if [ -x "$dir/kubectl.1.33" ]; then KUBECTL="$dir/kubectl.1.33"; else KUBECTL=$(command -v kubectl); fi
    rec cli-version kubectl - - - version "$($KUBECTL version --client 2>/dev/null | sed -n 's/Client Version: //p')"
fi

EMU=""
trap '[ -z "$EMU" ] || { kill "$EMU" 2>/dev/null; wait "$EMU" 2>/dev/null; }' EXIT

job_yaml() { # NAME
    printf 'apiVersion: nodus.dev/v1\nkind: Job\nmetadata:\n  name: %s\nspec:\n  image: nodus/pytorch:2.8-cuda12.8\n  maxCostUSD: "10.00"\n  resources:\n    gpu:\n      model: H100\n      count: 1\n' "$1"
}

for N in $CLI_NS; do
    echo "bench: CLI rows, $N Jobs, simulation $([ "$CLI_SIM" = 0 ] && echo off || echo on)" >&2
    S=$WORK/$CLI_SECTION-$N
    rm -rf "$S" "$S.port"
    "$BIN/nodus-emulator" --state "$S" --listen 127.0.0.1:0 --port-file "$S.port" \
        --fsync never "${SIM[@]}" --quiet >/dev/null 2>&1 &
    EMU=$!
    while [ ! -s "$S.port" ]; do sleep 0.02; done
    SERVER="http://127.0.0.1:$(cat "$S.port")"
    export NODUS_SERVER="$SERVER" HOME="$WORK/$CLI_SECTION-home-$N"
    mkdir -p "$HOME"
    i=0
    while [ $i -lt "$N" ]; do
        printf '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"bench-%04d"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","resources":{"gpu":{"model":"H100","count":1}},"maxCostUSD":"10.00"}}\n' $i
        i=$((i + 1))
    done >"$WORK/cli-jobs.json"
    "$BIN/nodus" create -f "$WORK/cli-jobs.json" >/dev/null
    NAME=$(printf 'bench-%04d' $((N / 2)))
    job_yaml applied-nodus >"$WORK/apply-nodus.yaml"
    job_yaml applied-kubectl >"$WORK/apply-kubectl.yaml"
    K="$KUBECTL --server $SERVER --cache-dir $WORK/kube-cache-$CLI_SECTION-$N"
    for row in get get-json get-name apply describe; do
        case $row in
        get) n="$BIN/nodus get jobs"; k="$K get jobs.nodus.dev" ;;
        get-json) n="$BIN/nodus get jobs -o json"; k="$K get jobs.nodus.dev -o json" ;;
        get-name) n="$BIN/nodus get job/$NAME"; k="$K get jobs.nodus.dev/$NAME" ;;
        apply) n="$BIN/nodus apply -f $WORK/apply-nodus.yaml"; k="$K apply -f $WORK/apply-kubectl.yaml" ;;
        describe) n="$BIN/nodus describe job $NAME"; k="$K describe jobs.nodus.dev $NAME" ;;
        esac
        # warm both (discovery caches; the first apply creates the object)
        $n >/dev/null 2>&1
        [ -z "$KUBECTL" ] || $k >/dev/null 2>&1
        args=(-n nodus "$n")
        [ -z "$KUBECTL" ] || args+=(-n kubectl "$k")
        hyperfine -N --warmup 2 --runs "$CLI_RUNS" --export-json "$WORK/h.json" "${args[@]}" >/dev/null 2>&1
        for tool in nodus kubectl; do
            [ "$tool" = nodus ] || [ -n "$KUBECTL" ] || continue
            cmd=$n
            [ "$tool" = nodus ] || cmd=$k
            rec "$CLI_SECTION" "$tool" "$N" - "$row" mean_ms "$(jq -r --arg t "$tool" '.results[] | select(.command == $t) | .mean * 1000' "$WORK/h.json")"
            rec "$CLI_SECTION" "$tool" "$N" - "$row" sd_ms "$(jq -r --arg t "$tool" '.results[] | select(.command == $t) | .stddev * 1000' "$WORK/h.json")"
            best=0
            for _ in 1 2 3; do
                kb=$(/usr/bin/time -f '%M' $cmd 2>&1 >/dev/null | tail -n 1)
                [ "$kb" -gt "$best" ] && best=$kb
            done
            rec "$CLI_SECTION" "$tool" "$N" - "$row" rss_kb "$best"
        done
    done
    kill "$EMU"
    wait "$EMU" 2>/dev/null || true
    EMU=""
done
