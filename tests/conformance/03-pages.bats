#!/usr/bin/env bats
# Conformance: pages of 500 (default) and 1,000 (limit=1000; larger is clamped) with
# continue, across 1,200 objects created in one project. The objects are made once
# for the file (one curl, many requests in parallel) and the project goes at the end.

load conformance

N=1200

setup_file() {
    BATS_TEST_NUMBER=pages conf_setup
    export P NS
    local cfg=$BATS_FILE_TMPDIR/curl.cfg i extra=""
    : >"$cfg"
    # `next` resets every option, so each request carries the token and TLS options
    [ -z "${NODUS_TOKEN:-}" ] || extra+="header = \"Authorization: Bearer $NODUS_TOKEN\"\n"
    [ -z "${NODUS_CA:-}" ] || extra+="cacert = \"$NODUS_CA\"\n"
    [ "${NODUS_INSECURE:-}" != 1 ] || extra+="insecure\n"
    for ((i = 0; i < N; i++)); do
        printf 'url = "%s%s/volumes"\nrequest = "POST"\nheader = "Content-Type: application/json"\ndata = "{\\"apiVersion\\":\\"nodus.dev/v1\\",\\"kind\\":\\"Volume\\",\\"metadata\\":{\\"name\\":\\"p%04d\\"},\\"spec\\":{\\"size\\":\\"1Gi\\"}}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n%b' \
            "$SERVER" "$NS" "$i" "$extra" >>"$cfg"
        [ $i -eq $((N - 1)) ] || echo next >>"$cfg"
    done
    curl -sS --parallel --parallel-max 16 -K "$cfg" >"$BATS_FILE_TMPDIR/codes" 2>"$BATS_FILE_TMPDIR/curl.err" || true
    local made
    made=$(grep -c '^20[01]$' "$BATS_FILE_TMPDIR/codes")
    if [ "$made" != "$N" ]; then
        echo "created $made of $N Volumes; answers:" >&2
        sort "$BATS_FILE_TMPDIR/codes" | uniq -c >&2
        sort "$BATS_FILE_TMPDIR/curl.err" | uniq -c | head >&2
        return 1
    fi
}

teardown_file() {
    conf_teardown
}

# pages LIMIT: follows continue from the first page; writes each page's size to
# $BATS_TEST_TMPDIR/sizes and every name to $BATS_TEST_TMPDIR/names.
pages() {
    local q=${1:+limit=$1} token="" i
    : >"$BATS_TEST_TMPDIR/sizes"
    : >"$BATS_TEST_TMPDIR/names"
    for ((i = 0; i < 20; i++)); do
        api GET "$NS/volumes?$q${token:+&continue=$token}"
        expect_code 200 || return 1
        # one jq a page (jq on a page of 1,000 is the slow part): its size,
        # remainingItemCount, continue (as is and as a URL parameter), then the names
        local page=() left
        mapfile -t page < <(jb '(.items | length), (.metadata.remainingItemCount // ""),
            (.metadata.continue // ""), (.metadata.continue // "" | @uri), .items[].metadata.name')
        [ -z "${page[0]:-}" ] || echo "${page[0]}" >>"$BATS_TEST_TMPDIR/sizes"
        [ "${#page[@]}" -le 4 ] || printf '%s\n' "${page[@]:4}" >>"$BATS_TEST_TMPDIR/names"
        left=${page[1]:-}
        token=${page[2]:-}
        if [ -n "$left" ] && [ -n "$token" ]; then
            local seen_so_far
            seen_so_far=$(wc -l <"$BATS_TEST_TMPDIR/names")
            expect_eq "remainingItemCount after $seen_so_far items" $((N - seen_so_far)) "$left" || return 1
        fi
        [ -n "$token" ] || return 0
        token=${page[3]}
    done
    echo "more than 20 pages" >&2
    return 1
}

all_names_once() {
    expect_eq "items over all pages" "$N" "$(wc -l <"$BATS_TEST_TMPDIR/names")" &&
        expect_eq "distinct names" "$N" "$(sort -u "$BATS_TEST_TMPDIR/names" | wc -l)"
}

@test "without a limit, pages of 500 and a continue token reach every object once" {
    pages ""
    expect_eq "page sizes" "500 500 200" "$(paste -sd' ' "$BATS_TEST_TMPDIR/sizes")"
    all_names_once
}

@test "limit=1000: a page of 1000, then the rest" {
    pages 1000
    expect_eq "page sizes" "1000 200" "$(paste -sd' ' "$BATS_TEST_TMPDIR/sizes")"
    all_names_once
}

@test "a limit above 1000 is clamped to 1000" {
    pages 5000
    expect_eq "page sizes" "1000 200" "$(paste -sd' ' "$BATS_TEST_TMPDIR/sizes")"
    all_names_once
}

@test "a small limit pages through with continue, in a stable order" {
    pages 250
    expect_eq "page sizes" "250 250 250 250 200" "$(paste -sd' ' "$BATS_TEST_TMPDIR/sizes")"
    all_names_once
}
