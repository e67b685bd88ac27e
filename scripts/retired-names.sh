#!/usr/bin/env bash
# retired-names.sh: fails when a name the glossary retired (CONTRIBUTING.md, "One name per
# concept") appears again in the code, the docs, the man pages or the messages.
#
#   scripts/retired-names.sh [TREE]     (default: the tree this script is in)
#
# Prints FILE:LINE: the text, and what to say instead, for every use; exits 1 when there
# is one. Reads every tracked text file (every file when TREE is not a git work tree)
# but the corpora of bytes under test. The glossary itself quotes the retired names
# between the markers retired-names:off and retired-names:on (in HTML comments).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "${1:-$here}"

# <!-- retired-names:off --> (the table quotes what it retires: rename-22.sh leaves it)
# retired name (a Perl regex) <TAB> the name to use instead
RETIRED='\bem_wal\w*|\bEM_WAL_H\b	em_journal (the journal: the write-ahead log)
\b(WAL|wal)\b	the journal (the write-ahead log)
\bwal(_\w+)?\.[ch]\b	emulator/store/journal*.c
change journal	the journal (on disk) or the history (in memory)
\bjournal(\x27s)? events?\b	the history'"'"'s changes
\bEM_JOURNAL_HOT\b	EM_HISTORY_HOT
\bem_event(_json|_obj|_prev)?\b	em_change (a change of the history; Event is a kind)
\bnd_write_req\b	struct nd_call_req
\bnd_write\b	nd_call (a request of any method)
\bnd_get\b	nd_call_get
(?<![\w./-])pkg/api\b	pkg/kinds
#\s*include\s*"api/	#include "kinds/...
\bnd_api_schema_files\b|\bapi_schemas\b|\bEMBED_API\b	nd_kind_schema_files, kind_schema_files.c, EMBED_KINDS
\b\w+_namespaces?\b|\bnamespace_\w+	project (namespace only where the wire says so)'

# The wire's own words: identifiers named for the Namespace kind or by a client library.
ALLOW='\b(namespace_columns|namespace_strategic|em_protobuf_namespace|add_namespaces|create_namespace|list_namespace|read_namespace|patch_namespace|emu_namespace)\b'
# <!-- retired-names:on -->

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    list() { git ls-files -z; }
else
    list() { find . -type f -not -path './.git/*' -printf '%P\0'; }
fi

list | grep -zvE '^(tests/(hostile/(cases|tars)|fuzz/(corpus|regress))/|build|bin/)|package-lock\.json$|\.(png|tsv|tar)$|^scripts/retired-names\.sh$' |
    xargs -0 -r grep -IlZ '' -- 2>/dev/null |
    RETIRED="$RETIRED" ALLOW="$ALLOW" xargs -0 -r perl -e '
    # each rule compiled once (a pattern held in a string was compiled again for every
    # line of the tree: nine tenths of the time this check took)
    my @rules = map { my ($re, $use) = split /\t/; [qr/($re)/, $use] } split /\n/, $ENV{RETIRED};
    my $allow = qr/$ENV{ALLOW}/;
    my $bad = 0;
    for my $f (@ARGV) {
        open(my $fh, "<", $f) or next;
        my $off = 0;
        while (my $line = <$fh>) {
            if ($line =~ /<!-- retired-names:off -->/) { $off = 1; next }
            if ($line =~ /<!-- retired-names:on -->/)  { $off = 0; next }
            next if $off;
            (my $text = $line) =~ s/$allow//g;
            for my $r (@rules) {
                my ($re, $use) = @$r;
                if ($text =~ $re) {
                    my $hit = $1;
                    chomp $line;
                    $line =~ s/^\s+//;
                    print "$f:$.: \"$hit\" is retired (use: $use): $line\n";
                    $bad++;
                }
            }
        }
    }
    exit($bad ? 1 : 0);
' && exit 0
echo "retired-names.sh: a retired name came back; see the glossary in CONTRIBUTING.md (\"One name per concept\")" >&2
exit 1
