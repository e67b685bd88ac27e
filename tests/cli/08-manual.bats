#!/usr/bin/env bats
# The manual: every page formats without a warning, every verb of the command table has
# a page, every flag of a verb's table (and every global flag) is documented where it
# belongs, and `make install` puts binaries, completions and pages where expected.

load ../lib/common

MAN=$ND_ROOT/man

# One awk pass over every verb's --help and every page (bash loops under bats' traps are
# slow). It prints one line per finding:
#   verb V            V is a verb of the command table
#   nopage V          nodus-V.1 is missing        badname V   its NAME line is not "nodus-V - ..."
#   nosect PAGE S     PAGE has no section S (NAME, SYNOPSIS, DESCRIPTION, SEE ALSO)
#   nosyn V OPT       a flag of V's table is missing from SYNOPSIS of nodus-V.1
#   noopt V OPT       ... from its OPTIONS
#   extra V OPT       OPTIONS documents an option that V does not have (nor the globals)
#   nolist V          nodus(1)'s COMMANDS does not list nodus-V(1)
#   noglobal OPT      a global flag is missing from nodus(1)'s GLOBAL FLAGS
#   flags N           the number of verb flags checked
CHECK_AWK='
function has(text, opt) { return match(text, "(^|[^a-zA-Z0-9-])" opt "([^a-zA-Z0-9-]|$)") }
function page_end(   i, n, w, k, words, v) {
    if (page == "") return
    req[1] = "NAME"; req[2] = "SYNOPSIS"; req[3] = "DESCRIPTION"; req[4] = "SEE ALSO"
    for (i = 1; i <= 4; i++) if (!(req[i] in sect)) print "nosect " page " " req[i]
    v = page; sub(/^nodus-/, "", v); sub(/\.1$/, "", v)
    if (page == "nodus.1") {
        for (k in G) {
            if (!has(sect["GLOBAL FLAGS"], k)) print "noglobal " k
            if (GS[k] != "" && !has(sect["GLOBAL FLAGS"], GS[k])) print "noglobal " GS[k]
        }
        for (k in isverb) if (!index(sect["COMMANDS"], "nodus-" k " (1)")) print "nolist " k
    } else if (v in isverb) {
        seen[v] = 1
        if (index(sect["NAME"], "nodus-" v " - ") != 1) print "badname " v
        for (i = 1; i <= nf[v]; i++) {
            checked++
            if (!has(sect["SYNOPSIS"], F[v, i])) print "nosyn " v " " F[v, i]
            if (!has(sect["OPTIONS"], F[v, i])) print "noopt " v " " F[v, i]
            if (S[v, i] != "" && !has(sect["SYNOPSIS"], S[v, i])) print "nosyn " v " " S[v, i]
            if (S[v, i] != "" && !has(sect["OPTIONS"], S[v, i])) print "noopt " v " " S[v, i]
        }
        # nodus-emulator(1) is also the page of the emulator program, whose own flags
        # it documents; the verb shares four of them
        n = v == "emulator" ? 0 : split(heads, words, /[^a-zA-Z0-9-]+/)
        for (i = 1; i <= n; i++)
            if (words[i] ~ /^--[a-z]/ && !((v, words[i]) in FK) && !(words[i] in G))
                print "extra " v " " words[i]
    }
    delete sect; heads = ""; page = ""
}
FILENAME == help {
    if ($1 == "===") { verb = $2; isverb[verb] = 1; print "verb " verb; hs = ""; next }
    if ($0 == "Flags:") { hs = "F"; next }
    if ($0 == "Global flags:") { hs = "G"; next }
    if ($0 ~ /^[A-Z].*:$/) { hs = ""; next }
    if (hs != "" && $0 ~ /^ +-/) {
        if ($1 ~ /^-.,$/) { long = $2; short = substr($1, 1, 2) } else { long = $1; short = "" }
        if (hs == "F") { nf[verb]++; F[verb, nf[verb]] = long; S[verb, nf[verb]] = short; FK[verb, long] = 1 }
        else { G[long] = 1; GS[long] = short }
    }
    next
}
FNR == 1 { page_end(); page = FILENAME; sub(/.*\//, "", page); cur = ""; prev = "" }
{
    line = $0; gsub(/\\-/, "-", line)
    if (line ~ /^\.SH /) { cur = substr(line, 5); sect[cur] = ""; prev = line; next }
    if (cur != "") sect[cur] = sect[cur] line "\n"
    if (cur == "OPTIONS" && prev == ".TP") heads = heads " " line
    prev = line
}
END {
    page_end()
    for (v in isverb) if (!(v in seen)) print "nopage " v
    print "flags " checked + 0
}'

setup_file() {
    # "=== VERB" and `nodus VERB --help` for each verb of the table
    local help=$BATS_FILE_TMPDIR/help v
    : >"$help"
    for v in $(nodus __complete ''); do
        { echo "=== $v"; nodus "$v" --help; } >>"$help"
    done
    awk -v help="$help" "$CHECK_AWK" "$help" "$MAN"/*.1 "$MAN"/*.5 >"$BATS_FILE_TMPDIR/findings"
}

# The findings of one kind (the first word), without it.
findings() {
    awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$BATS_FILE_TMPDIR/findings"
}

# The text of one section of a page, with roff's \- turned into -.
section() {
    awk -v want="$2" '/^\.SH / { on = ($0 == ".SH " want); next } on' "$1" | sed 's/\\-/-/g'
}

@test "every page formats with groff -man -ww without a warning" {
    local pages=("$MAN"/*.1 "$MAN"/*.5)
    [ "${#pages[@]}" -ge 25 ]
    run groff -man -ww -z -Tutf8 "${pages[@]}"
    assert_success
    assert_output ""
}

@test "every page has NAME, SYNOPSIS, DESCRIPTION and SEE ALSO, and man -l reads it" {
    run findings nosect
    assert_output ""
    command -v man >/dev/null || skip "man is not installed (the pages were checked with groff)"
    run env MANWIDTH=80 man -l "$MAN/nodus-get.1"
    assert_success
    assert_output --partial "nodus-get - display one or many objects"
}

@test "every verb of the command table has a page, and nodus(1) lists it" {
    run findings verb
    [ "${#lines[@]}" -ge 19 ]
    assert_line get
    refute_line __complete
    run findings nopage
    assert_output ""
    run findings badname
    assert_output ""
    run findings nolist
    assert_output ""
    [ ! -e "$MAN/nodus-__complete.1" ]
}

@test "every flag of a verb's table is in its page's SYNOPSIS and OPTIONS" {
    run findings flags
    [ "$output" -ge 60 ]
    run findings nosyn
    assert_output ""
    run findings noopt
    assert_output ""
}

@test "a page documents no option its verb does not have" {
    run findings extra
    assert_output ""
}

@test "every global flag is in nodus(1) under GLOBAL FLAGS" {
    run findings noglobal
    assert_output ""
    run grep -c -- '^  *-' <(nodus get --help | sed -n '/^Global flags:/,$p')
    [ "$output" -ge 10 ]
}

@test "nodus(1) has the exit codes, the environment and the error lines" {
    local text code v w missing=""
    text=$'\n'$(section "$MAN/nodus.1" "EXIT STATUS")$'\n'
    for code in 0 1 2 3 4 5 6 7 8 diff exec; do
        [[ $text == *$'\n'".B $code"$'\n'* ]] || missing+=" exit:$code"
    done
    for w in Conflict AlreadyExists FieldImmutable PreconditionFailed IdempotencyKeyReused \
        Unauthorized Forbidden BudgetExceeded ConsentRequired; do
        [[ $text == *"$w"* ]] || missing+=" exit:$w"
    done
    text=$(section "$MAN/nodus.1" ENVIRONMENT)
    for v in NODUS_CONFIG KUBECONFIG NODUS_SERVER NODUS_TOKEN NODUS_TRACE NODUS_EDITOR EDITOR \
        NO_COLOR; do
        [[ $text =~ (^|[^A-Z_])$v([^A-Z_]|$) ]] || missing+=" env:$v"
    done
    text=$(section "$MAN/nodus.1" ERRORS)
    for w in fix: docs: requestId:; do
        [[ $text == *"$w"* ]] || missing+=" errors:$w"
    done
    assert_equal "$missing" ""
}

@test "nodus-config(5) documents every field the configuration file has" {
    local f heads text missing=""
    # the fields documented: the .B and .BR headings (after .TP) of FORMAT
    heads=" $(section "$MAN/nodus-config.5" FORMAT |
        awk 'prev == ".TP" && /^\.BR? / {print} {prev = $0}' | tr '",\n' '   ') "
    for f in apiVersion kind current-context preferences clusters users contexts server \
        certificate-authority certificate-authority-data insecure-skip-tls-verify token \
        tokenFile client-certificate client-key client-certificate-data client-key-data \
        cluster user namespace; do
        [[ $heads == *" $f "* ]] || missing+=" $f"
    done
    text=$(section "$MAN/nodus-config.5" LOOKUP)
    for f in --kubeconfig NODUS_CONFIG KUBECONFIG '~/.nodus/config'; do
        [[ $text == *"$f"* ]] || missing+=" lookup:$f"
    done
    assert_equal "$missing" ""
}

@test "make install puts binaries, completions and pages under DESTDIR/PREFIX" {
    local d=$BATS_FILE_TMPDIR/dest
    run make -C "$ND_ROOT" --no-print-directory install DESTDIR="$d" PREFIX=/usr \
        BUILD="${ND_BUILD:-build}" BIN="${ND_BIN:-bin}"
    assert_success
    [ -x "$d/usr/bin/nodus" ]
    [ -x "$d/usr/bin/nodus-emulator" ]
    run "$d/usr/bin/nodus" version --client
    assert_success
    assert_output --partial "Client Version: v"
    local page
    for page in "$MAN"/*.1; do
        cmp "$page" "$d/usr/share/man/man1/$(basename "$page")"
    done
    cmp "$MAN/nodus-config.5" "$d/usr/share/man/man5/nodus-config.5"
    cmp "$ND_ROOT/completions/nodus.bash" "$d/usr/share/bash-completion/completions/nodus"
    cmp "$ND_ROOT/completions/_nodus" "$d/usr/share/zsh/vendor-completions/_nodus"
    cmp "$ND_ROOT/completions/nodus.fish" "$d/usr/share/fish/vendor_completions.d/nodus.fish"
    # the installed page is found by man through its section directory
    if command -v man >/dev/null; then
        run env MANWIDTH=80 man -M "$d/usr/share/man" 5 nodus-config
        assert_success
        assert_output --partial "NODUS-CONFIG(5)"
    fi
}
