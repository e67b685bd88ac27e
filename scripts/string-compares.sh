#!/usr/bin/env bash
# string-compares.sh: fails when code compares a phase or a Status reason as a string.
#
#   scripts/string-compares.sh [TREE]     (default: the tree this script is in)
#
# Phases and reasons are enums (pkg/kinds/phase.h, pkg/util/status.h); their strings
# live once, in the tables of pkg/kinds/phase.c and pkg/util/status.c, and code compares
# enums: nd_phase_of(obj) == ND_PHASE_RUNNING, nd_status_is(st, ND_REASON_NOT_FOUND).
# This names every strcmp-like call (strcmp, strncmp, strcasecmp, streq) in the C files
# of emulator/, cmd/ and pkg/ that compares something named *phase* with a phase of the
# table, or a status's reason (x->reason, x.reason) with a reason of the table, as
# FILE:LINE: the text; exits 1 when there is one. The tables themselves are read from
# TREE (so a phase or reason added there is checked too).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "${1:-$here}"

words() { # the quoted strings of a table's rows, as one alternation
    perl -ne "print \"\$1\\n\" while /$2/g" "$1" | sort -u | paste -sd'|' -
}
PHASES=$(words pkg/kinds/phase.c '\] = "(\w+)"')
REASONS=$(words pkg/util/status.c '^\s*\{"(\w+)", \d+, \d+,')
if [ -z "$PHASES" ] || [ -z "$REASONS" ]; then
    echo "string-compares.sh: found no phases in pkg/kinds/phase.c or no reasons in pkg/util/status.c" >&2
    exit 2
fi

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    list() { git ls-files -z -- emulator cmd pkg; }
else
    list() { find emulator cmd pkg -type f -print0 2>/dev/null; }
fi

list | grep -zE '\.[ch]$' | grep -zvE '^(pkg/kinds/phase\.c|pkg/util/status\.c)$' |
    PHASES="$PHASES" REASONS="$REASONS" xargs -0 -r perl -e '
    my $cmp = qr/\b(?:strn?cmp|strcasecmp|streq)\s*\(/;
    my $phase = qr/$cmp[^;]*phase[^;]*"(?:$ENV{PHASES})"/;
    my $reason = qr/$cmp[^;]*(?:->|\.)reason\b[^;]*"(?:$ENV{REASONS})"/;
    my $bad = 0;
    for my $f (@ARGV) {
        open(my $fh, "<", $f) or next;
        while (my $line = <$fh>) {
            my $what = $line =~ $phase ? "a phase (compare enum nd_phase: nd_phase_of, nd_phase_parse)"
                     : $line =~ $reason ? "a reason (compare enum nd_reason: nd_status_is)"
                     : next;
            chomp $line;
            $line =~ s/^\s+//;
            print "$f:$.: $what compared as a string: $line\n";
            $bad++;
        }
    }
    exit($bad ? 1 : 0);
' && exit 0
echo "string-compares.sh: phases and reasons are enums; compare those (see CONTRIBUTING.md)" >&2
exit 1
