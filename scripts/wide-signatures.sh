#!/bin/sh
# Lists the C functions (definitions and prototypes) of cmd/, pkg/ and emulator/ that take
# more than MAX parameters (default 8): `file:line name count`, one a line, nothing when
# there is none. A function with more takes an options struct instead (nd_call's
# struct nd_call_req, nd_ssa_apply's struct nd_ssa_opts ...); a callback whose signature
# a library fixes is named in ALLOW. Reads the tree's own style (clang-format): a
# declaration starts at column 0 and its parameters may run over several lines.
# Usage: scripts/wide-signatures.sh [MAX]
set -eu
cd "$(dirname "$0")/.."
MAX=${1:-8}
ALLOW=" "
find cmd pkg emulator -name '*.[ch]' | LC_ALL=C sort | xargs awk -v max="$MAX" -v allow="$ALLOW" '
FNR == 1 { inside = 0; comment = 0 }
{
    line = $0
    if (comment) {
        if (line !~ /\*\//)
            next
        sub(/^.*\*\//, "", line)
        comment = 0
    }
    if (!inside) {
        if (line !~ /^[A-Za-z_]/ || line ~ /^typedef/)
            next
        if (!match(line, /[A-Za-z_][A-Za-z_0-9]*\(/))
            next
        name = substr(line, RSTART, RLENGTH - 1)
        start = FNR
        line = substr(line, RSTART + RLENGTH)
        inside = 1; depth = 1; commas = 0; empty = 1; text = ""
    }
    gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
    gsub(/\/\*([^*]|\*[^\/])*\*\//, "", line)
    if (line ~ /\/\*/) {
        sub(/\/\*.*$/, "", line)
        comment = 1
    }
    for (i = 1; i <= length(line) && inside; i++) {
        c = substr(line, i, 1)
        if (c == "(") depth++
        else if (c == ")") depth--
        else if (c == "," && depth == 1) commas++
        if (depth > 0 && c !~ /[ \t]/) text = text c
        if (depth == 0) {
            inside = 0
            n = (text == "" || text == "void") ? 0 : commas + 1
            if (n > max && index(allow, " " name " ") == 0)
                printf "%s:%d %s %d\n", FILENAME, start, name, n
        }
    }
}'
