#!/bin/bash
# Runs the console blocks of README.md and docs/*.md and compares what they print with
# what the page shows (tests/cli/25-docs.bats runs it once per page, in `make check`).
#
#   tests/docs/run-docs.sh [--update] [--keep] PAGE.md...
#
# --update writes what each differing command printed into the page (then read the diff
# with git before committing it); --keep keeps the scratch directory and says where.
# ND_BIN_DIR picks the binaries (default bin/), DOCS_TIMEOUT the seconds a page may take
# (default 90).
#
# The convention for writing a page
#
# - A block fenced ```console is run. A line starting with `$ ` is a command (a line
#   ending in `\` continues it; a here-document `<<'EOF'` takes the lines up to EOF);
#   the lines after it, up to the next `$ ` or the end of the block, are exactly what it
#   prints, standard output and standard error together as a terminal shows them (the
#   programs run line-buffered, as on a terminal). A line `...` alone stands for any
#   number of lines: keep it for long output that is not the point (describe, logs).
#   The shell's own job notices (`[1] 4242`, `[1]+ Done`) are not shown.
# - Blocks fenced ```sh, ```text, ```yaml (or anything else) are illustrations and are
#   not run.
# - An HTML comment just before a block, which a reader of the rendered page does not
#   see, tells the test about that block:
#     <!-- docs-test: clock advance 40s -->  before the block, advance the clock of the
#         emulator the reader's commands talk to ($NODUS_SERVER, else the current
#         context): where the text says that time passes (the test runs every emulator
#         with --speed 0, see below), so the output is what a reader sees after the wait
#     <!-- docs-test: clock speed 60 -->  before the block, set that emulator's clock to
#         run 60 times faster than real time: for a command that waits for the clock
#         (a delete waiting for a final charge), where the text tells the real-speed wait
#     <!-- docs-test: run CMD -->  before the block, run CMD unseen (set-up the reader
#         does not need to see); its output is not compared, a failure is reported
#     <!-- docs-test: write FILE -->  the block (```yaml, say) is written to FILE instead
#         of being run: for a manifest the text shows and the commands then use
#     <!-- docs-test: skip (reason) -->  the block is not run; only where running it is
#         impossible (an interactive `exec -it`), and say why
#   Several directives may precede one block.
# - What may differ from run to run is masked on both sides before comparing: ids
#   (`job_01m8...`, `req_01m8...`; the 8 hex digits ending a generated name such as a
#   PoolAction's `lab-burst-88c76c64`, the 5 characters generateName adds, `batch-4wctl`,
#   the 16 hex digits of an Event's name, `datasets.001a2289b791e001`), resourceVersions,
#   times (RFC 3339, 13-digit milliseconds since 1970, and the hour naming an Event file,
#   `2026-12-01T23.ndjson`), ports of 127.0.0.1 and
#   localhost, `pid N`, latencies (`5.6ms`), ages (`39s`, `3h31m`, in any column) and so
#   the padding between columns. Blank lines at the end of an output are not compared.
#   Nothing else.
#
# How a page runs
#
# - Each page runs from the top, in order, in one bash session of its own (an `export`
#   in one block holds in the next), with a fresh HOME, a fresh scratch directory and
#   nothing of the caller's environment but PATH's system directories. The working
#   directory is a scratch directory holding `bin/` (nodus, and a nodus-emulator that
#   adds `--speed 0` unless the command gives `--speed`), `examples/`, `docs/` and
#   `man/` of this tree. The emulator's default port, 8443, is a free port of the run:
#   in a command `:8443` is that port, and the nodus-emulator of `bin/` listens on it
#   unless the command gives `--listen`. `/tmp` in a command is a `tmp/` of the scratch
#   directory (shown as `/tmp` again in the output, as the scratch HOME is shown as `~`),
#   so nothing is left in the real /tmp.
# - A page starts its own emulator, as a reader would (`nodus emulator start --speed 0`
#   or `bin/nodus-emulator ... &`). At the end every process the page started is ended.
# - After each command the test makes the emulator's controllers catch up with what the
#   command changed (an advance of 0s of the clock the commands talk to), as they do in
#   the second a person takes to type the next command.
# - A command that starts something in the background (`... &`) and shows output is
#   given up to 10 s to print it before the next command runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bindir=$(cd "${ND_BIN_DIR:-$root/bin}" && pwd) || exit 2
limit=${DOCS_TIMEOUT:-90}
update= keep=
while [ $# -gt 0 ]; do
    case $1 in
    --update) update=--update ;;
    --keep) keep=1 ;;
    -*) echo "usage: $0 [--update] [--keep] PAGE.md..." >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
[ $# -gt 0 ] || { echo "usage: $0 [--update] [--keep] PAGE.md..." >&2; exit 2; }

any_alive() { # PID...: one of them runs (a zombie does not)
    local p
    for p; do
        [ -e "/proc/$p" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$p/stat" 2>/dev/null && return 0
    done
    return 1
}

# Ends what a page left running: its session's process group, and the emulators that
# `nodus emulator start` put in sessions of their own (found by their pid files).
cleanup() {
    local t=$1 pg pidf pid ended=() i args
    pg=$(cat "$t/pgid" 2>/dev/null)
    if [ -n "$pg" ] && [ "$pg" != "$(cut -d' ' -f5 /proc/$$/stat)" ]; then
        kill -TERM -- "-$pg" 2>/dev/null
    else
        pg=
    fi
    while IFS= read -r pidf; do
        pid=
        read -r pid <"$pidf" 2>/dev/null
        case $pid in '' | *[!0-9]*) continue ;; esac
        # only an emulator whose state is in this page's scratch directory
        args=()
        mapfile -d '' args <"/proc/$pid/cmdline" 2>/dev/null
        [[ "${args[*]}" == *"$t/"* ]] || continue
        kill -TERM "$pid" 2>/dev/null && ended+=("$pid")
    done < <(find "$t" -name emulator.pid 2>/dev/null)
    # then waits (at most 5 s) until they are gone (a zombie is gone)
    for ((i = 0; i < 100; i++)); do
        { [ -n "$pg" ] && pgrep -g "$pg" -r R,S,D,T,t >/dev/null; } ||
            any_alive "${ended[@]}" || break
        sleep 0.05
    done
}

# A port nothing listens on (the emulator's default 8443 in a page means it).
free_port() {
    local p i
    for i in $(seq 1 50); do
        p=$((10000 + RANDOM % 22000)) # below the ephemeral ports (32768-)
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
    done
    echo 8443
}

me=$(id -un)
rc=0
for doc in "$@"; do
    [ -f "$doc" ] || { echo "$doc: no such file" >&2; rc=2; continue; }
    t=$(mktemp -d "${TMPDIR:-/tmp}/nodus-docs.XXXXXX")
    mkdir -p "$t/home" "$t/tmp" "$t/work" "$t/out" "$t/bin"
    ln -s "$bindir/nodus" "$t/bin/nodus"
    port=$(free_port)
    cat >"$t/bin/nodus-emulator" <<EOF
#!/bin/sh
speed="--speed 0" listen="--listen 127.0.0.1:$port"
case " \$* " in *" --speed "* | *" --speed="*) speed= ;; esac
case " \$* " in *" --listen "* | *" --listen="*) listen= ;; esac
exec "$bindir/nodus-emulator" \$speed \$listen "\$@"
EOF
    chmod +x "$t/bin/nodus-emulator"
    ln -s "$t/bin" "$t/work/bin"
    for d in examples docs man; do ln -s "$root/$d" "$t/work/$d"; done
    if ! DOCS_PORT=$port perl "$here/docs.pl" gen "$doc" "$t" >"$t/session.sh"; then
        rc=1
        rm -rf "$t"
        continue
    fi
    envs=(PATH="$t/bin:/usr/local/bin:/usr/bin:/bin" HOME="$t/home" TMPDIR="$t/tmp"
          LANG=C.UTF-8 TERM=dumb USER="$me" LOGNAME="$me" SHELL=/bin/bash)
    stdbuf=/usr/libexec/coreutils/libstdbuf.so
    if [ -f "$stdbuf" ]; then
        envs+=(LD_PRELOAD="$stdbuf" _STDBUF_O=L)
        envs+=(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0")
    fi
    [ -n "${UBSAN_OPTIONS:-}" ] && envs+=(UBSAN_OPTIONS="$UBSAN_OPTIONS")
    env -i "${envs[@]}" setsid bash --noprofile --norc -c \
        'cut -d" " -f5 /proc/$$/stat >"$1/pgid"; exec bash --noprofile --norc "$1/session.sh"' \
        docs "$t" >"$t/session.log" 2>&1 </dev/null &
    pid=$!
    # the session's end or the time limit, whichever comes first (no polling: a process
    # every 50 ms was a good part of what a page cost)
    sleep "$limit" &
    timer=$!
    wait -n "$pid" "$timer" 2>/dev/null
    if kill -0 "$pid" 2>/dev/null; then
        echo "$doc: stopped after ${limit}s (DOCS_TIMEOUT)"
        kill -TERM "$pid" 2>/dev/null
    fi
    kill "$timer" 2>/dev/null
    wait "$pid" "$timer" 2>/dev/null
    cleanup "$t"
    if [ -s "$t/session.log" ]; then
        echo "$doc: the session itself printed:"
        sed 's/^/  | /' "$t/session.log"
    fi
    perl "$here/docs.pl" check "$doc" "$t" $update || rc=1
    if [ -n "$keep" ]; then
        echo "$doc: scratch directory kept in $t"
    else
        rm -rf "$t"
    fi
done
exit $rc
