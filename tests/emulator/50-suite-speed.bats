#!/usr/bin/env bats
# Issue 22, item 8: the suite's own machinery. tests/run-tests.sh ends with the ten
# slowest files before its summary line; the kubectl suite runs every test on the newest
# kubectl and an older version only where kubectl's requests or output differ by version
# (kc_versions in tests/lib/kubectl.bash), each such loop saying why.

load ../lib/common

bats_require_minimum_version 1.5.0

@test "run-tests.sh: the ten slowest files (wall, CPU) come before the summary, the last line" {
    local tree=$BATS_TEST_TMPDIR/tree i
    mkdir -p "$tree/tests/lib" "$tree/tests/few"
    cp "$ND_ROOT/tests/run-tests.sh" "$tree/tests/"
    cp "$ND_ROOT/tests/lib/tap-exec" "$tree/tests/lib/"
    for i in 01 02 03 04 05 06 07 08 09 10 11; do
        printf '@test "t%s" { true; }\n' "$i" >"$tree/tests/few/$i.bats"
    done
    # in a clean environment: the inner bats must not see this one's variables
    run -0 env -i PATH="${PATH//"$BATS_LIBEXEC:"/}" HOME="$BATS_TEST_TMPDIR" ND_SUITES=few \
        ND_BIN="$ND_BIN_DIR" ND_JOBS=3 "$tree/tests/run-tests.sh"
    assert_equal "${lines[-1]}" "11 passed, 0 failed"
    local at=-1 n
    for n in "${!lines[@]}"; do
        [ "${lines[n]}" = "Slowest files (wall s, CPU s):" ] && at=$n
    done
    [ "$at" -ge 0 ] || { echo "no list of the slowest files" >&2; return 1; }
    # ten rows (of eleven files), slowest first, then the summary
    local rows=("${lines[@]:at+1:10}")
    assert_equal "$((at + 11))" "$((${#lines[@]} - 1))"
    for n in "${rows[@]}"; do
        [[ "$n" =~ ^\ *[0-9]+\.[0-9]\ +[0-9]+\.[0-9]\ \ tests/few/[0-9]+\.bats$ ]] ||
            { echo "not a row: '$n'" >&2; return 1; }
    done
    printf '%s\n' "${rows[@]}" | sort -c -rn
    # each file once
    assert_equal "$(printf '%s\n' "${rows[@]}" | awk '{print $3}' | sort -u | wc -l)" 10
}

# kc_versions under KC_VERSIONS (the versions "the machine has"), with ARGS.
versions() {
    local have=$1
    shift
    KC_VERSIONS=$have bash -c 'source "$1"; shift; kc_versions "$@"' _ \
        "$ND_ROOT/tests/lib/kubectl.bash" "$@"
}

@test "kc_versions: the newest always, older versions only when named and present; all" {
    local seven="1.27 1.28 1.29 1.30 1.31 1.32 1.33"
    run -0 versions "$seven"
    assert_output "1.33"
    run -0 versions "$seven" 1.31 1.27
    assert_output "1.27 1.31 1.33"
    # a version the machine lacks is left out; the newest is not repeated
    run -0 versions "1.29 1.30" 1.27 1.29 1.30
    assert_output "1.29 1.30"
    run -0 versions "$seven" all
    assert_output "$seven"
    ND_KUBECTL_ALL=1 run -0 versions "$seven" 1.28
    assert_output "$seven"
    # no versioned binaries: the kubectl on PATH
    run -0 versions path 1.27
    assert_output "path"
}

@test "every kubectl test loops over kc_versions; one naming older versions says why above" {
    local f n line prev bad=
    for f in "$ND_ROOT"/tests/kubectl/*.bats; do
        n=0 prev=
        while IFS= read -r line; do
            n=$((n + 1))
            if [[ "$line" == *"for KV in"* ]] &&
                [[ ! "$line" =~ for\ KV\ in\ (\$\(kc_versions( [a-z0-9. ]+)?\)|\$kvs)\;\ do$ ]]; then
                bad="$bad"$'\n'"${f##*/}:$n: not a kc_versions loop: $line"
            fi
            # a call naming versions: the comment line just above says why
            if [[ "$line" =~ kc_versions\ [a-z0-9] ]] && [[ ! "$prev" =~ ^\ *#\ .*[a-z] ]]; then
                bad="$bad"$'\n'"${f##*/}:$n: older versions without a reason above"
            fi
            prev=$line
        done <"$f"
    done
    [ -z "$bad" ] || { echo "kubectl loops:$bad" >&2; return 1; }
}
