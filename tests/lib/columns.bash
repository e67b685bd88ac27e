# Tables compared by the columns a test names: a printer column added to a kind in
# pkg/kinds/kinds.c (docs/kinds.md lists them) adds text beside those columns and changes
# no expectation. A column keeps its width (its widest cell or header, and the padding)
# whatever other columns the table has, so the named columns of a table with more
# columns print exactly as a table of those columns alone.
#
#   table_select COL...   reads a table with its header on stdin, prints the columns
#                         named (headers as printed, "LAST SEEN" one name), in the order
#                         named, each line without trailing blanks; a name the header
#                         lacks fails, saying so
#   kind_columns KIND [wide]
#                         the kind's column headers, space-separated, from the registry
#                         as `nodus crds` prints it (NAME first; wide: priority 1 too)

table_select() {
    awk -v want="$*" '
        NR == 1 {
            # a column starts where its header does: at 0, or after two blanks or more
            n = 0; line = $0; pos = 1
            while (match(line, /[^ ]+( [^ ]+)*/)) {
                n++; start[n] = pos + RSTART - 1; name[n] = substr(line, RSTART, RLENGTH)
                pos += RSTART + RLENGTH - 1; line = substr(line, RSTART + RLENGTH)
            }
            k = split(want, w, " ")
            for (i = 1; i <= k; i++) {
                # "LAST SEEN": two words, one header
                if (w[i] == "LAST" && w[i + 1] == "SEEN") { w[i] = "LAST SEEN"; w[i + 1] = "" }
            }
            m = 0
            for (i = 1; i <= k; i++) {
                if (w[i] == "") continue
                for (j = 1; j <= n && name[j] != w[i]; j++) ;
                if (j > n) { print "table_select: the table has no column " w[i] > "/dev/stderr"; bad = 1; exit 1 }
                m++; col[m] = j
            }
        }
        {
            out = ""
            for (i = 1; i <= m; i++) {
                j = col[i]
                out = out (j < n ? substr($0, start[j], start[j + 1] - start[j]) : substr($0, start[j]))
            }
            sub(/ +$/, "", out)
            print out
        }
        END { exit bad }'
}

kind_columns() {
    nodus crds --kind "$1" -o json | jq -r --arg wide "${2:-}" '
        [{name: "NAME", priority: 0}] + [.. | .additionalPrinterColumns? // empty | .[]]
        | map(select($wide == "wide" or (.priority // 0) == 0) | .name) | join(" ")'
}
