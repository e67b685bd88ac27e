#!/bin/sh
# Lists the C functions of cmd/, pkg/ and emulator/ (or of the files and directories
# given) that are longer than MAX_LINES lines (default 100) or above MAX_COMPLEXITY
# (default 40) in cyclomatic complexity, as pmccabe counts them (its columns 1 and 2: the
# complexity with a switch counted once, then with each case counted; column 5: the
# lines, from the line of the name to the closing brace). One a line,
# `file:line name: N lines, complexity A/B`, then what to do; nothing when there is none.
# A function named in ALLOW (file:name) is left out while someone splits it; an ALLOW
# entry that is no longer over the limits is reported, so the list only shrinks.
# Exit 0 when nothing is listed, 1 when something is, 2 without pmccabe.
# Usage: [MAX_LINES=N] [MAX_COMPLEXITY=N] scripts/long-functions.sh [PATH...]
set -eu
cd "$(dirname "$0")/.."
MAX_LINES=${MAX_LINES:-100}
MAX_COMPLEXITY=${MAX_COMPLEXITY:-40}
ALLOW=""
if ! command -v pmccabe >/dev/null 2>&1; then
    echo "long-functions: pmccabe is not installed: run scripts/install-deps.sh" >&2
    exit 2
fi
whole= # the whole tree: then a stale ALLOW entry is reported too
if [ $# -eq 0 ]; then
    whole=1
    set -- cmd pkg emulator
fi
find "$@" -name '*.[ch]' | LC_ALL=C sort | xargs pmccabe | awk -v maxl="$MAX_LINES" \
    -v maxc="$MAX_COMPLEXITY" -v allow="$ALLOW" -v whole="$whole" '
BEGIN {
    n = split(allow, a, "\n")
    for (i = 1; i <= n; i++)
        if (a[i] != "")
            allowed[a[i]] = 1
}
{
    # "mod trad statements first lines file(line): name"
    loc = $6
    sub(/:$/, "", loc)
    file = loc
    sub(/\([0-9]+\)$/, "", file)
    line = loc
    sub(/^.*\(/, "", line)
    sub(/\)$/, "", line)
    name = $7
    over = $5 > maxl || $1 > maxc || $2 > maxc
    if ((file ":" name) in allowed) {
        seen[file ":" name] = over
        next
    }
    if (!over)
        next
    printf "%s:%s %s: %d lines, complexity %d/%d (at most %d lines and %d)\n", file, line,
        name, $5, $1, $2, maxl, maxc
    bad++
}
END {
    if (whole)
        for (e in allowed)
            if (!seen[e]) {
                printf "%s: in ALLOW of scripts/long-functions.sh but not over the limits (or gone): take it off the list\n", e
                bad++
            }
    if (bad) {
        print "split each into named helpers that do one thing (parse and check the options into a struct, then act; one helper per step of a loop), not into part1/part2: see CONTRIBUTING.md"
        exit 1
    }
}'
