#!/bin/sh
# Runs every suite through prove (TAP) and ends with one line: N passed, N failed[, N skipped].
#   ND_BUILD  build directory holding tests/unit/ binaries (default build)
#   ND_BIN    directory holding nodus and nodus-emulator (default bin)
#   ND_JOBS   test files run at once (default: one more than the cores, at least 3: a
#             file spends part of its time waiting on its emulator, so one file more
#             keeps the cores busy; two more only added contention); each file starts its
#             own emulator on port 0 in its own directory
#   ND_SUITES space-separated list of suites to run (default: unit fuzz emulator hostile
#             kubectl clients cli; fuzz replays the fuzz targets' seeds and regression
#             inputs; clients runs @kubernetes/client-node, installed by make check)
set -u
cd "$(dirname "$0")/.."
ND_BUILD=${ND_BUILD:-build}
export ND_BUILD # tests/hostile/run.sh finds its driver there
ND_BIN=${ND_BIN:-bin}
export ND_BIN_DIR="$(cd "$ND_BIN" && pwd)"
export CMOCKA_MESSAGE_OUTPUT=TAP
ND_SUITES=${ND_SUITES:-unit fuzz emulator hostile kubectl clients cli}

# python3: the suites' scripts want Debian's (scripts/install-deps.sh installs it, with
# python3-kubernetes). A python3 earlier on PATH may be a pyenv shim, a script that
# costs ~0.5 s of CPU a call against 0.03 s for the interpreter: Debian's goes first, for
# every file and what it runs (tests/lib/common.bash does the same for a file run alone).
pydir=
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
    pydir=$(mktemp -d -t nd-python3.XXXXXX) && ln -s /usr/bin/python3 "$pydir/python3" && PATH=$pydir:$PATH
    export PATH
fi

files=""
for s in $ND_SUITES; do
    case $s in
    unit) units=""
          for f in "$ND_BUILD"/tests/unit/test_*; do
              case $f in *.o|*.d) ;; *) [ -x "$f" ] && units="$units $f" ;; esac
          done
          # `make` builds only the programs: a missing suite is a failure, not a pass
          if [ -z "$units" ]; then
              echo "no unit tests in $ND_BUILD/tests/unit (run 'make test-bins' first)" >&2
              echo "0 passed, 1 failed"
              exit 1
          fi
          files="$files$units" ;;
    # the hostile corpus: one TAP runner over tests/hostile/cases (see its README)
    hostile) files="$files tests/hostile/run.sh" ;;
    fuzz) files="$files tests/fuzz/regress.sh" ;;
    *) for f in tests/$s/*.bats; do [ -f "$f" ] && files="$files $f"; done ;;
    esac
done

# The longest files start first (on 2 cores, by prove --timer), so that the last ones to
# end are short: a long file started late would run on alone. The rest keep their order.
# Longest first, by a clean clone's make check; a pattern is expanded here (the browser
# tests of the console, tests/clients/1N-console*.bats: chromium, ~20 s each).
SLOW_FIRST="tests/hostile/run.sh tests/cli/25-docs.bats tests/emulator/32-conformance.bats
    tests/emulator/23-authz.bats tests/emulator/13-pools.bats
    tests/emulator/34-exec-clients.bats tests/cli/34-emulator-context.bats
    tests/emulator/28-pools-act.bats tests/emulator/45-legacy-watch.bats
    tests/emulator/30-query-params.bats tests/cli/05-explain-discovery.bats
    tests/emulator/26-durability.bats tests/emulator/54-bytes-store.bats
    tests/emulator/56-owners.bats tests/emulator/55-events-file.bats
    tests/emulator/33-pools-predict.bats tests/emulator/43-events-v1.bats
    tests/clients/1[0-9]-console*.bats tests/emulator/36-restart.bats
    tests/cli/29-bats-helper.bats tests/emulator/17-logs.bats tests/cli/22-fixes.bats
    tests/cli/28-crds.bats tests/emulator/18-exec.bats tests/cli/27-readme.bats
    tests/emulator/29-auth-review.bats tests/cli/07-completion.bats
    tests/cli/30-delete-wait.bats tests/cli/01-get.bats tests/cli/21-cp-stream.bats
    tests/emulator/25-front-door.bats tests/cli/44-names.bats tests/emulator/24-bounds.bats
    tests/cli/33-hostile-server.bats tests/emulator/12-jobs.bats
    tests/emulator/37-slow-clients.bats tests/cli/03-transport.bats tests/emulator/07-list.bats
    tests/emulator/04-update.bats tests/cli/19-change.bats
    tests/emulator/08-watch.bats tests/emulator/46-resource-version.bats
    tests/cli/31-tls-emulator.bats tests/emulator/14-budgets.bats
    tests/emulator/15-pipelines.bats tests/emulator/16-volumes-functions.bats
    tests/emulator/39-priced-fields.bats tests/cli/32-build.bats
    tests/kubectl/02-write.bats tests/kubectl/01-get.bats tests/kubectl/03-apply.bats
    tests/kubectl/10-can-i-list.bats tests/kubectl/11-events-for.bats
    tests/kubectl/04-delete-wait.bats"
first="" rest=""
for f in $SLOW_FIRST; do
    case " $files " in *" $f "*) first="$first $f" ;; esac
done
for f in $files; do
    case " $first " in *" $f "*) ;; *) rest="$rest $f" ;; esac
done
files="$first$rest"

if [ -z "$files" ]; then
    echo "no test files found (run 'make all test-bins' first)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"; [ -z "$pydir" ] || rm -rf "$pydir"' EXIT
# Interrupted (Ctrl-C: SIGINT to the whole process group, prove and the suites too; or
# SIGTERM): the suites stop, and the summary counts what ran, says so and exits 130
# (143), without the shell's complaints about what the interruption left half done.
interrupted=
trap 'interrupted=INT' INT
trap 'interrupted=TERM' TERM
# -v keeps every test line (so skips and their reasons show); --merge keeps
# diagnostics beside the test that wrote them.
# Files run ND_JOBS at a time; prove prints each file's lines together, when it ends.
# tee -i goes on through Ctrl-C, so all prove printed is in the log and counted.
ND_JOBS=${ND_JOBS:-$(n=$(nproc 2>/dev/null || echo 2); [ "$n" -ge 2 ] && echo $((n + 1)) || echo 3)}
prove -j"$ND_JOBS" --timer -v --merge --exec tests/lib/tap-exec $files 2>&1 | tee -i "$log"
prove_rc=$(tail -n 1 "$log" | grep -q '^Result: PASS' && echo 0 || echo 1)

# Count the TAP lines of the suites: "ok", "not ok", and "# skip" directives.
summary=$(awk '
    /^(not )?ok +[0-9]+ ms \( /  { next }   # prove --timer'"'"'s line for a whole file
    /^(not )?ok [0-9]+/ {
        line = tolower($0)
        if (line ~ /# *skip/) { skipped++; next }
        if ($1 == "not") {
            if (line ~ /# *todo/) next
            failed++
        } else passed++
    }
    END { printf "%d %d %d\n", passed, failed, skipped }' "$log")
set -- $summary 0 0 0
passed=$1 failed=$2 skipped=$3

if [ -n "$interrupted" ]; then
    echo
    echo "interrupted (SIG$interrupted): $passed passed, $failed failed, $skipped skipped" \
        "in the files that ended before it"
    [ "$interrupted" = INT ] && exit 130
    exit 143
fi

echo
# The ten slowest files, by prove --timer's line for each (a file that failed has none):
# wall seconds, CPU seconds (user+sys of the file and its processes: tests/lib/tap-exec's
# "# cpu" line), the file.
echo "Slowest files (wall s, CPU s):"
awk '
    /^\[[0-9:]+\] [^ ]+ \.+ *$/ { file = $2; cpu = "?"; next }
    file != "" && /^# cpu [0-9.]+$/ { cpu = $3; next }
    file != "" && /^ok +[0-9]+ ms \( / {
        printf "%8.1f %7s  %s\n", $2 / 1000, cpu, file
        file = ""
    }' "$log" | sort -rn | head -n 10
if [ "$skipped" -gt 0 ]; then
    echo "Skipped tests (with their reasons):"
    grep -iE '^ok [0-9]+.*# *skip' "$log" | sed 's/^/  /'
fi
# A suite that crashed or broke its plan fails even when no line said "not ok".
if [ "$prove_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    echo "prove reported a broken suite (crash or bad plan); counted as one failure"
    failed=1
fi
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
