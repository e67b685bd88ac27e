#!/usr/bin/perl
# The parser, session generator and comparer behind tests/docs/run-docs.sh (read its
# header for the conventions). Perl because prove, which runs the suites, needs it anyway.
#
#   docs.pl gen DOC SCRATCH            print the bash session that runs DOC's console blocks
#   docs.pl check DOC SCRATCH [--update]
#                                      compare what the session wrote under SCRATCH/out with
#                                      what DOC shows; print a diff per command that differs;
#                                      exit 1 when one does. --update writes the actual output
#                                      of each differing command into DOC instead.
use strict;
use warnings;

my ($mode, $doc, $scratch, @rest) = @ARGV;
die "usage: docs.pl gen|check DOC SCRATCH [--update]\n" unless $mode && $doc && $scratch;
my $update = grep { $_ eq '--update' } @rest;

# --- parsing -------------------------------------------------------------------------
# A step is {kind => cmd|hidden, line => N, cmd => TEXT, exp => [LINES], exp_from => I,
# exp_to => I (0-based indexes of the expected lines in the file), indent => STR, bg => 0|1}
sub parse {
    my ($path) = @_;
    open(my $fh, '<', $path) or die "docs.pl: cannot read $path: $!\n";
    my @lines = <$fh>;
    close $fh;
    chomp @lines;
    my (@steps, @pending, @errors);
    my $i = 0;
    while ($i < @lines) {
        my $l = $lines[$i];
        if ($l =~ /^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$/) {
            push @pending, {text => $1, line => $i + 1};
            $i++;
            next;
        }
        if ($l =~ /^(\s*)```(\S*)\s*$/) {
            my ($indent, $lang) = ($1, $2);
            my $start = $i;
            my @body;
            $i++;
            while ($i < @lines && $lines[$i] !~ /^\s*```\s*$/) {
                my $b = $lines[$i];
                $b =~ s/^\Q$indent\E//;
                push @body, [$b, $i];
                $i++;
            }
            $i++;    # the closing fence
            my ($skip, $write);
            for my $d (@pending) {
                my $t = $d->{text};
                if ($t =~ /^skip\b/) {
                    $skip = 1;
                } elsif ($t =~ /^clock advance (\S+)$/) {
                    push @steps, {kind => 'hidden', line => $d->{line},
                                  cmd => "__docs_clock $1", what => $t};
                } elsif ($t =~ /^clock speed (\S+)$/) {
                    push @steps, {kind => 'hidden', line => $d->{line},
                                  cmd => "__docs_clock_speed $1", what => $t};
                } elsif ($t =~ /^run (.+)$/) {
                    push @steps, {kind => 'hidden', line => $d->{line}, cmd => $1, what => $t};
                } elsif ($t =~ /^write (\S+)$/) {
                    $write = $1;
                } else {
                    push @errors, "$path:$d->{line}: unknown docs-test directive: $t";
                }
            }
            @pending = ();
            if (defined $write) {
                my $text = join('', map { "$_->[0]\n" } @body);
                push @steps, {kind => 'hidden', line => $start + 1, what => "write $write",
                              cmd => "cat > $write <<'__DOCS_EOF'\n${text}__DOCS_EOF"};
                next;
            }
            next if $skip || $lang ne 'console';
            my $cur;
            my $j = 0;
            while ($j < @body) {
                my ($b, $n) = @{$body[$j]};
                if ($b =~ /^\$ (.*)$/) {
                    my $cmd = $1;
                    my $first = $n;
                    # continuation lines (a trailing backslash) and here-documents
                    while ($cmd =~ /\\$/ && $j + 1 < @body) {
                        $j++;
                        $cmd .= "\n" . $body[$j][0];
                    }
                    if ($cmd =~ /(?<!<)<<(?!<)-?\s*(['"]?)(\w+)\1/) {
                        my $end = $2;
                        while ($j + 1 < @body) {
                            $j++;
                            $cmd .= "\n" . $body[$j][0];
                            last if $body[$j][0] =~ /^\t*\Q$end\E$/;
                        }
                    }
                    $cur = {kind => 'cmd', line => $first + 1, cmd => $cmd, exp => [],
                            exp_from => $body[$j][1] + 1, exp_to => $body[$j][1],
                            indent => $indent};
                    $cur->{bg} = ($cmd =~ /(?<![&|])&\s*(#.*)?$/) ? 1 : 0;
                    push @steps, $cur;
                } elsif ($cur) {
                    push @{$cur->{exp}}, $b;
                    $cur->{exp_to} = $n;
                } else {
                    push @errors,
                        "$path:" . ($n + 1) . ": console block line before any \$ command";
                }
                $j++;
            }
            next;
        }
        $i++;
    }
    push @errors, "$path: docs-test directive at line $_->{line} is followed by no block"
        for @pending;
    return (\@steps, \@errors, \@lines);
}

# /tmp in a command is the scratch directory's tmp/: every run has its own.
sub tmp_in {
    my ($cmd) = @_;
    $cmd =~ s{(?<![\w./~-])/tmp(?=/|\s|$|["')])}{"\$__DOCS_T"/tmp}g;
    # the emulator's default port is a free one of this run
    $cmd =~ s{(?<=:)8443\b}{$ENV{DOCS_PORT}}g if $ENV{DOCS_PORT};
    return $cmd;
}

sub q1 { my $s = shift; $s =~ s/'/'\\''/g; return "'$s'"; }

sub gen {
    my ($steps, $errors) = parse($doc);
    if (@$errors) {
        print STDERR "$_\n" for @$errors;
        exit 2;
    }
    print "__DOCS_T=", q1($scratch), "\n";
    print <<'EOF';
__DOCS_O=$__DOCS_T/out
cd "$__DOCS_T/work" || exit 1
__docs_ret() { return "$1"; }
# the server the reader's commands talk to: $NODUS_SERVER, else the current context's,
# into __docs_s. The context's is asked of nodus once per configuration: the files nodus
# may read (see pkg/config/config.c) and the variables naming them are the cache key.
__docs_key= __docs_ks=
__docs_server() {
    if [ -n "${NODUS_SERVER:-}" ]; then __docs_s=$NODUS_SERVER; return; fi
    local k="$PWD|${NODUS_CONFIG:-}|${HOME:-}|${KUBECONFIG:-}" f c
    for f in "${NODUS_CONFIG:-}" "${HOME:-}/.nodus/config" "${KUBECONFIG%%:*}"; do
        c=
        [ -n "$f" ] && [ -f "$f" ] && IFS= read -r -d '' c <"$f"
        k+="|${#c}:$c"
    done
    if [ "$k" != "$__docs_key" ]; then
        __docs_ks=$(nodus config view --minify -o jsonpath='{.clusters[0].cluster.server}') ||
            { __docs_key=; return 1; }
        __docs_key=$k
    fi
    __docs_s=$__docs_ks
}
__docs_clock() {
    __docs_server || return 1
    curl -sfS -X POST "$__docs_s/emulator/v1/clock" -H 'Content-Type: application/json' \
        ${NODUS_TOKEN:+-H "Authorization: Bearer $NODUS_TOKEN"} -d "{\"advance\":\"$1\"}"
}
__docs_clock_speed() {
    __docs_server || return 1
    curl -sfS -X POST "$__docs_s/emulator/v1/clock" -H 'Content-Type: application/json' \
        ${NODUS_TOKEN:+-H "Authorization: Bearer $NODUS_TOKEN"} -d "{\"speed\":$1}"
}
# POST BODY to $__docs_s/emulator/v1/clock over bash's /dev/tcp (a subshell, where curl
# cost the exec of a big program per command) and read the answer to its end; 1 when
# the server is not plain http://HOST[:PORT]
__docs_post_clock() {
    [[ $__docs_s =~ ^http://(\[([^]]+)\]|[^/:]+)(:([0-9]+))?/?$ ]] || return 1
    local h=${BASH_REMATCH[2]:-${BASH_REMATCH[1]}} p=${BASH_REMATCH[4]:-80} a= l
    [ -n "${NODUS_TOKEN:-}" ] && a="Authorization: Bearer $NODUS_TOKEN"$'\r\n'
    (
        trap '' PIPE # an emulator that is stopping may close the connection first
        {
            printf 'POST /emulator/v1/clock HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
                "$h:$p" "$a" "${#1}" "$1" >&3
            while IFS= read -r -t 5 -u 3 l; do :; done
        } 3<>"/dev/tcp/$h/$p"
    ) 2>/dev/null
    return 0
}
# after each command, the emulator's controllers catch up with what it changed (a person
# types slower than they react): a zero advance runs what is due now
__docs_settle() {
    __docs_server 2>/dev/null && [ -n "$__docs_s" ] || return 0
    __docs_post_clock '{"advance":"0s"}' && return 0
    curl -s -m 5 -o /dev/null -X POST "$__docs_s/emulator/v1/clock" -H 'Content-Type: application/json' \
        ${NODUS_TOKEN:+-H "Authorization: Bearer $NODUS_TOKEN"} -d '{"advance":"0s"}'
    return 0
}
# a background command shows what it printed first: wait (up to 10 s) for that many lines
__docs_wait() {
    local i
    for i in $(seq 1 200); do
        [ "$(wc -l <"$1")" -ge "$2" ] && return 0
        sleep 0.05
    done
}
__docs_rc=0
EOF
    my $n = 0;
    for my $s (@$steps) {
        $n++;
        my $cmd = tmp_in($s->{cmd});
        print "\n# step $n: line $s->{line}\n";
        print "echo $n >\"\$__DOCS_T/current\"\n";
        print "__docs_ret \$__docs_rc\n";
        print "{ $cmd\n} >\"\$__DOCS_O/$n\" 2>&1 </dev/null\n";
        print "__docs_rc=\$?\n";
        print "__docs_settle\n" if $s->{kind} eq 'cmd';
        print "echo \$__docs_rc >\"\$__DOCS_O/$n.rc\"\n";
        if ($s->{bg} && @{$s->{exp}}) {
            print "__docs_wait \"\$__DOCS_O/$n\" ", scalar(@{$s->{exp}}), "\n";
        }
    }
    print "\necho done >\"\$__DOCS_T/current\"\n";
}

# --- comparing -----------------------------------------------------------------------
# What may differ from one run to the next, masked on both sides before comparing.
sub mask {
    local $_ = shift;
    s/\b[a-z][a-z0-9]*_[0-9a-hjkmnp-tv-z]{26}\b/<id>/g;                      # uids, requestIds
    s/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/<time>/g;   # RFC 3339
    s/(?<![\d.])1\d{12}(?![\d.])/<ms-time>/g;                                  # epoch ms
    s/\b\d{4}-\d\d-\d\dT\d\d(?=\.ndjson\b)/<hour>/g;                            # hour files
    s/\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT\b/<time>/g;
    s/((?:127\.0\.0\.1|localhost|\[::1\]|0\.0\.0\.0):)\d+/$1<port>/g;            # ports
    s/\bpid \d+/pid <pid>/g;
    s/("resourceVersion"\s*:\s*")\d+"/$1<rv>"/g;                               # resourceVersions
    s/\b(resourceVersion=)\d+/$1<rv>/g;
    s/(?<=[a-z0-9])\.[0-9a-f]{16}(?![0-9a-z-])/.<id>/g;     # an Event's name
    s/(?<=[a-z0-9])-[0-9a-f]{8}(?![0-9a-z-])/-<hash>/g;     # generated names (a PoolAction's)
    s/(?<=[a-z0-9]-)[bcdfghjklmnpqrstvwxz2456789]{5}(?![\w-])/<gen>/g; # generateName
    s/(?:^|(?<=\s))\d+(?:\.\d+)?(?:ms|µs)(?=\s|$)/<ms>/g;                      # latencies
    s/(?:^|(?<=\s))(?:\d+[smhdy]){1,2}(?=\s|$)/<age>/g;                         # ages
    s/(?<=\S)  +/  /g;        # an age of another width moves the columns after it
    s/\s+$//;
    return $_;
}

# expected lines (a line "..." stands for any number of lines) against actual lines
sub matches {
    my ($e, $a, $i, $j) = @_;
    while ($i < @$e) {
        if ($e->[$i] eq '...') {
            for my $k ($j .. scalar @$a) {
                return 1 if matches($e, $a, $i + 1, $k);
            }
            return 0;
        }
        return 0 if $j >= @$a || $e->[$i] ne $a->[$j];
        $i++;
        $j++;
    }
    return $j == @$a;
}

sub slurp {
    my ($p) = @_;
    open(my $fh, '<', $p) or return undef;
    local $/;
    my $s = <$fh>;
    close $fh;
    return $s;
}

sub check {
    my ($steps, $errors, $lines) = parse($doc);
    my $current = slurp("$scratch/current") // '';
    chomp $current;
    my ($fails, $n) = (0, 0);
    my @edits;
    for my $s (@$steps) {
        $n++;
        my $out = slurp("$scratch/out/$n");
        my $rc = slurp("$scratch/out/$n.rc");
        my $where = "$doc:$s->{line}";
        if (!defined $rc) {
            my $why = $current eq "$n" ? 'it did not finish before the time limit (hung?)'
                                       : 'the session stopped before it';
            print "$where: not run: $why\n  \$ $s->{cmd}\n";
            print "  output so far:\n", map { "  | $_\n" } split /\n/, $out if $out;
            $fails++;
            next;
        }
        chomp $rc;
        $out =~ s{\Q$scratch\E/session\.sh: line \d+}{bash}g;
        $out =~ s{\Q$scratch\E/tmp}{/tmp}g;
        $out =~ s{\Q$scratch\E/home}{~}g;
        $out =~ s{\Q$scratch\E/work}{.}g;
        my @act = split /\n/, $out, -1;
        pop @act if @act && $act[-1] eq '';
        if ($s->{kind} eq 'hidden') {
            next if $rc eq '0';
            print "$where: the docs-test directive \"$s->{what}\" failed (exit $rc):\n";
            print map { "  | $_\n" } @act;
            $fails++;
            next;
        }
        my @e = map { mask($_) } @{$s->{exp}};
        my @a = map { mask($_) } @act;
        pop @e while @e && $e[-1] eq '';    # blank lines at the end are not compared
        pop @a while @a && $a[-1] eq '';
        next if matches(\@e, \@a, 0, 0);
        $fails++;
        if ($update) {
            push @edits, [$s, \@act];
            next;
        }
        print "$where: the output differs (exit $rc)\n";
        (my $shown = $s->{cmd}) =~ s/\n/\n  /g;
        print "  \$ $shown\n";
        print "  --- shown in $doc\n  +++ printed\n";
        print "  $_\n" for diff_lines($s->{exp}, \@act);
    }
    if ($update && @edits) {
        for my $ed (sort { $b->[0]{exp_from} <=> $a->[0]{exp_from} } @edits) {
            my ($s, $act) = @$ed;
            my @new = map { $_ eq '' ? '' : "$s->{indent}$_" } @$act;
            splice(@$lines, $s->{exp_from}, $s->{exp_to} - $s->{exp_from} + 1, @new);
        }
        open(my $fh, '>', $doc) or die "docs.pl: cannot write $doc: $!\n";
        print $fh "$_\n" for @$lines;
        close $fh;
        print "$doc: wrote the printed output of ", scalar(@edits), " command(s)\n";
    }
    exit($fails ? 1 : 0);
}

# a small line diff (longest common subsequence), enough for a command's output
sub diff_lines {
    my ($x, $y) = @_;
    my ($m, $n) = (scalar @$x, scalar @$y);
    my @L;
    for (my $i = $m; $i >= 0; $i--) {
        for (my $j = $n; $j >= 0; $j--) {
            $L[$i][$j] = ($i == $m || $j == $n) ? 0
                : mask($x->[$i]) eq mask($y->[$j]) ? $L[$i + 1][$j + 1] + 1
                : ($L[$i + 1][$j] > $L[$i][$j + 1] ? $L[$i + 1][$j] : $L[$i][$j + 1]);
        }
    }
    my @out;
    my ($i, $j) = (0, 0);
    while ($i < $m || $j < $n) {
        if ($i < $m && $j < $n && mask($x->[$i]) eq mask($y->[$j])) {
            push @out, " $y->[$j]";
            $i++;
            $j++;
        } elsif ($i < $m && ($j == $n || $L[$i + 1][$j] >= $L[$i][$j + 1])) {
            push @out, "-$x->[$i]";
            $i++;
        } else {
            push @out, "+$y->[$j]";
            $j++;
        }
    }
    return @out;
}

if ($mode eq 'gen') {
    gen();
} elsif ($mode eq 'check') {
    check();
} else {
    die "docs.pl: unknown mode $mode\n";
}
