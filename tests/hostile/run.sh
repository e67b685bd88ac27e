#!/bin/bash
# The hostile corpus (tests/hostile/cases/GROUP/NAME.http, see README): every case is sent
# as raw bytes by build/tests/hostile/send to one emulator with tokens of every scope, and
# must get its exact status and Status reason (and WebSocket close code). After every
# refused request (4xx/5xx) the state directory (objects/, files/, logs/, pricebook.json)
# must be byte for byte what it was, and nothing may exist outside it. After every group
# the emulator must still answer /readyz, and at the end its stderr must hold no sanitizer
# report. Prints TAP; every case is a test of its own (none is marked TODO or skipped).
#
#   ND_BIN_DIR       directory holding nodus-emulator (default bin)
#   ND_BUILD         build directory holding tests/hostile/send (default build)
#   HOSTILE_ONLY     run only the cases whose GROUP/NAME matches this regex
#   HOSTILE_VERBOSE  set: print each answer's message and how long each case took
#   HOSTILE_TIMEOUT  seconds each socket operation may take (default 10)
#   HOSTILE_COST     "off": do not check the cost of each case (its time and the emulator's
#                    peak memory growth; a case's "# cost 200ms 16MiB" pins it, else
#                    COST_MS and COST_KIB below bound it)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${ND_BIN_DIR:-$ROOT/bin}
BUILD=${ND_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
SEND=$BUILD/tests/hostile/send
CASES=$HERE/cases
NS=/apis/nodus.dev/v1/namespaces/default

T=$(mktemp -d "${TMPDIR:-/tmp}/nodus-hostile.XXXXXX")
STATE=$T/state
EMU_PID=
ESCAPE=hostile-escape # every case that tries to write outside names its target so

cleanup() {
    if [ -n "$EMU_PID" ]; then
        kill -TERM "$EMU_PID" 2>/dev/null
        for _ in $(seq 1 100); do kill -0 "$EMU_PID" 2>/dev/null || break; sleep 0.05; done
        kill -KILL "$EMU_PID" 2>/dev/null
    fi
    rm -rf "$T" "/tmp/$ESCAPE"* "/$ESCAPE"*
}
trap cleanup EXIT
trap 'exit 1' INT TERM

bail() {
    echo "Bail out! $*"
    [ -s "$T/emulator.err" ] && sed 's/^/# /' "$T/emulator.err" | tail -n 20
    exit 1
}

[ -x "$SEND" ] || bail "$SEND is missing (run make test-bins)"
[ -x "$BIN/nodus-emulator" ] || bail "$BIN/nodus-emulator is missing (run make)"

# ---- the emulator: tokens of every scope, a project of its own, objects to aim at ----
TOKEN_READ=hostile-read-7f3a TOKEN_WRITE=hostile-write-51c2 TOKEN_ADMIN=hostile-admin-9e04
TOKEN_PROJ=hostile-proj-2b8d
cat >"$T/tokens.json" <<EOF
{"$TOKEN_READ": {"identity": "reader", "projects": ["*"], "scopes": ["read"]},
 "$TOKEN_WRITE": {"identity": "writer", "projects": ["*"], "scopes": ["read", "write"]},
 "$TOKEN_ADMIN": {"identity": "admin", "projects": ["*"], "scopes": ["read", "write", "admin"]},
 "$TOKEN_PROJ": {"identity": "teamer", "projects": ["team-a"], "scopes": ["read", "write"]}}
EOF
chmod 600 "$T/tokens.json"

"$BIN/nodus-emulator" --state "$STATE" --listen 127.0.0.1:0 --port-file "$T/port" \
    --token-file "$T/tokens.json" --fsync never --quiet --speed 0 \
    >"$T/emulator.out" 2>"$T/emulator.err" 3>&- &
EMU_PID=$!
for _ in $(seq 1 200); do
    [ -s "$T/port" ] && break
    kill -0 "$EMU_PID" 2>/dev/null || bail "the emulator exited early"
    sleep 0.05
done
[ -s "$T/port" ] || bail "the emulator did not start"
PORT=$(cat "$T/port")
URL=http://127.0.0.1:$PORT

api() { # METHOD PATH [BODY]: as admin; fails unless 2xx
    local args=(-sf -o /dev/null -X "$1" -H "Authorization: Bearer $TOKEN_ADMIN")
    [ $# -ge 3 ] && args+=(-H 'Content-Type: application/json' --data-binary "$3")
    curl "${args[@]}" "$URL$2" || bail "set-up: $1 $2 failed"
}
api POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}'
api POST $NS/sandboxes '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"box1"},
  "spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"10.00"}}'
# the target of every exec case: its sessions rewrite it (lastActivityTime) as they end,
# after their case, so the fingerprint leaves this one file out
api POST $NS/sandboxes '{"apiVersion":"nodus.dev/v1","kind":"Sandbox","metadata":{"name":"exec1"},
  "spec":{"image":"nodus/pytorch:2.8-cuda12.8","maxCostUSD":"10.00"}}'
api POST $NS/volumes '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"name":"vol1"},
  "spec":{"size":"10Gi"}}'
api POST $NS/jobs '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"job1",
  "labels":{"app":"hostile"},"annotations":{"a":"b"}},"spec":{"image":"nodus/pytorch:2.8-cuda12.8",
  "command":["python","train.py"],"maxCostUSD":"40.00"}}'
api POST /apis/nodus.dev/v1/namespaces/team-a/jobs '{"apiVersion":"nodus.dev/v1","kind":"Job",
  "metadata":{"name":"job2"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8",
  "command":["python","train.py"],"maxCostUSD":"40.00"}}'
# a key already used, for the reuse cases
curl -sf -o /dev/null -X POST -H "Authorization: Bearer $TOKEN_WRITE" \
    -H 'Content-Type: application/json' -H 'Idempotency-Key: hostile-key-0001' \
    --data-binary '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"generateName":"keyed-"},
    "spec":{"image":"nodus/pytorch:2.8-cuda12.8","command":["true"],"maxCostUSD":"1.00"}}' \
    "$URL$NS/jobs" || bail "set-up: the keyed create failed"
# a file in the Volume and the Sandbox, to read back and to aim links at
printf 'inside\n' >"$T/inside.txt"
tar -C "$T" -cf "$T/inside.tar" inside.txt
for o in sandboxes/box1 volumes/vol1; do
    curl -sf -o /dev/null -X PUT -H "Authorization: Bearer $TOKEN_ADMIN" \
        -H 'Content-Type: application/x-tar' --data-binary "@$T/inside.tar" \
        "$URL$NS/$o/files?path=/work" || bail "set-up: PUT files of $o failed"
done
api POST /emulator/v1/clock '{"advance":"15s"}' # the Sandbox is Running
for o in box1 exec1; do
    phase=$(curl -sf -H "Authorization: Bearer $TOKEN_ADMIN" "$URL$NS/sandboxes/$o" |
        sed -n 's/.*"phase": *"\([A-Za-z]*\)".*/\1/p')
    [ "$phase" = Running ] || bail "set-up: Sandbox $o is $phase, not Running"
done

# a snapshot to come back to when a case changed what it should not have
api POST /emulator/v1/snapshots/hostile-base '{}'

recover() { # after a failed case: back to the set-up's state, no faults left
    curl -s -o /dev/null -X DELETE -H "Authorization: Bearer $TOKEN_ADMIN" "$URL/emulator/v1/faults"
    curl -s -o /dev/null -X POST -H "Authorization: Bearer $TOKEN_ADMIN" \
        -H 'Content-Type: application/json' -d '{}' \
        "$URL/emulator/v1/snapshots/hostile-base/restore"
    rm -rf "/tmp/$ESCAPE"* "/$ESCAPE"*
}

# ---- the cost of a case: the time its answer took and the emulator's peak memory growth ----
COST_MS=2000      # the default bound of every case (a case pins its own with "# cost")
COST_KIB=65536
COST_SCALE=1      # a sanitizer build is slower and holds freed memory in quarantine
if grep -q -a __asan_init "$BIN/nodus-emulator" 2>/dev/null; then
    COST_SCALE=5
    echo "# cost bounds x$COST_SCALE: the emulator is a sanitizer build"
fi
MEM_CHECK=1
if [ "${HOSTILE_COST:-}" = off ]; then
    MEM_CHECK=0
    echo "# cost not checked: HOSTILE_COST=off"
elif ! { echo 5 >"/proc/$EMU_PID/clear_refs"; } 2>/dev/null; then
    MEM_CHECK=0
    echo "# memory growth not checked: /proc/$EMU_PID/clear_refs is not writable (it resets" \
        "the peak, VmHWM)"
fi

hwm_kib() { # sets HWM: the emulator's peak resident memory since the last reset, in KiB
    local key val rest
    HWM=
    while read -r key val rest; do
        [ "$key" = VmHWM: ] && { HWM=$val; return; }
    done 2>/dev/null <"/proc/$EMU_PID/status"
}

cost_ms() { # "200ms" or "2s" -> milliseconds
    case $1 in
    *ms) echo "${1%ms}" ;;
    *s) echo $((${1%s} * 1000)) ;;
    *) echo "" ;;
    esac
}

cost_kib() { # "16MiB" or "512KiB" -> KiB
    case $1 in
    *MiB) echo $((${1%MiB} * 1024)) ;;
    *KiB) echo "${1%KiB}" ;;
    *) echo "" ;;
    esac
}

# ---- the state's fingerprint: every file's bytes and every entry's kind, mode, target ----
# (three programs, not a dozen: it is taken after every refused case whose state may have
# changed, see state_quiet)
fingerprint() { # FILE: writes the fingerprint to FILE (and the listing to FILE.list)
    FP_SINCE=$((EPOCHSECONDS - 1))
    escapes
    FP_ESCAPES=$ESCAPES
    state_roots
    FP_ROOTS=${ROOTS[*]}
    (
        cd "$STATE" || exit 1
        # (FILE.tmp-PID-N: a write in flight, renamed over FILE when done; exec1.json: see
        # above)
        {
            find objects files logs pricebook.json ! -name '*.tmp-*' \
                ! -path objects/default/sandboxes/exec1.json -fprintf "$1.list" '%p %y %m %l\n' \
                -type f -exec sha256sum {} + 2>&1
            mapfile -t lines <"$1.list"
            printf '%s\n' "${lines[@]}"
        } | LC_ALL=C sort
        printf '%s' "$ESCAPES"
    ) >"$1"
}

escapes() { # sets ESCAPES: everything named for an escape around the state (globstar does
    # not follow links), in /tmp or in / (where the deepest ../ members and the absolute
    # links aim), one a line
    local found
    shopt -s globstar nullglob
    found=("$T"/**/"$ESCAPE"* /tmp/"$ESCAPE"* /"$ESCAPE"*)
    shopt -u globstar nullglob
    ESCAPES=
    [ ${#found[@]} -gt 0 ] && printf -v ESCAPES '%s\n' "${found[@]}"
}

state_roots() { # sets ROOTS: those of the fingerprint's roots that exist (logs/ may not)
    local r
    ROOTS=()
    for r in objects files logs pricebook.json; do
        [[ -e $STATE/$r || -L $STATE/$r ]] && ROOTS+=("$r")
    done
}

# True when nothing under the state changed since the last fingerprint began (FP_SINCE),
# so that fingerprint still holds byte for byte and need not be taken again: one find
# that stops at the first entry whose ctime is newer. A write, a chmod, a rename or a new
# link changes the entry's ctime; a create, delete or rename also changes its directory's;
# no process can set a ctime back. FP_SINCE is a second before the fingerprint began, so a
# coarse clock or a file system with whole-second times cannot hide a change; an entry the
# fingerprint leaves out (a write in flight, exec1.json) only makes this false, then the
# full fingerprint decides. Escapes outside the state are globbed every time (escapes).
state_quiet() {
    local hit
    escapes
    [ "$ESCAPES" = "$FP_ESCAPES" ] || return 1
    state_roots
    [ "${ROOTS[*]}" = "$FP_ROOTS" ] || return 1
    [ ${#ROOTS[@]} = 0 ] && return 0
    # (find into a file, not $(...): see run_case)
    find "${ROOTS[@]/#/$STATE/}" -newerct "@$FP_SINCE" -print -quit >"$T/quiet.out" 2>&1 ||
        return 1
    [ ! -s "$T/quiet.out" ]
}

alive() {
    local out
    out=$(curl -s -m 5 "$URL/readyz")
    [ "$out" = ok ] && kill -0 "$EMU_PID" 2>/dev/null
}

no_sanitizer_report() {
    ! grep -qE "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" "$T/emulator.err"
}

# ---- the cases ----
markers=() # the "# gone" markers of the cases run
FP_LAST=   # the file (fp.a or fp.b, in turn) of the fingerprint after the last case, when
           # it was taken or still holds
FP_SINCE=  # (epoch seconds) a second before the last fingerprint began; see state_quiet
FP_ESCAPES= # the escapes (see escapes) and the roots (see state_roots) of the last
FP_ROOTS=   # fingerprint
files=()
while IFS= read -r f; do
    id=${f#"$CASES"/}
    id=${id%.http}
    [[ -n ${HOSTILE_ONLY:-} && ! $id =~ $HOSTILE_ONLY ]] && continue
    files+=("$f")
done < <(find "$CASES" -name '*.http' | LC_ALL=C sort)

groups=()
for f in "${files[@]}"; do
    g=${f%/*}
    g=${g##*/}
    [[ " ${groups[*]} " == *" $g "* ]] || groups+=("$g")
done
# one line per case, one per group (alive), the start-up refusal, shutdown (sessions,
# exit), sanitizers
echo "1..$((${#files[@]} + ${#groups[@]} + 4))"
n=0

tap() { # OK(0/1) ID TEXT
    n=$((n + 1))
    if [ "$1" = 0 ]; then
        echo "ok $n - $2: $3"
    else
        echo "not ok $n - $2: $3"
    fi
}

run_case() { # FILE
    local f=$1 id=${1#"$CASES"/}
    id=${id%.http}
    # the leading "# NAME VALUE" lines
    local want= want_close= want_bytes= gone= state_rule= cost= line key val
    while IFS= read -r line; do
        [[ $line == '#'* ]] || break
        read -r _ key val <<<"$line"
        case $key in
        status) want=$val ;;
        ws-close) want_close=$val ;;
        body-bytes) want_bytes=$val ;;
        gone) gone=$val ;;
        state) state_rule=$val ;;
        cost) cost=$val ;;
        esac
    done <"$f"
    local want_code=${want%% *} want_reason=${want#* }
    [ "$want_reason" = "$want" ] && want_reason=
    if [ -z "$want_code" ]; then
        tap 1 "$id" "no '# status CODE REASON' line"
        return
    fi
    local max_ms=$COST_MS max_kib=$COST_KIB
    if [ -n "$cost" ]; then
        max_ms=$(cost_ms "${cost%% *}")
        max_kib=$(cost_kib "${cost#* }")
        if [ -z "$max_ms" ] || [ -z "$max_kib" ]; then
            tap 1 "$id" "a cost line is '# cost 200ms 16MiB', not '# cost $cost'"
            return
        fi
    fi
    max_ms=$((max_ms * COST_SCALE))
    max_kib=$((max_kib * COST_SCALE))
    local before after out changes= t0=$EPOCHREALTIME
    if [ -z "$FP_LAST" ]; then
        fingerprint "$T/fp.a"
        FP_LAST=$T/fp.a
    fi
    before=$FP_LAST
    FP_LAST=
    local hwm0= hwm1= took_ms grew_kib=
    if [ $MEM_CHECK = 1 ]; then
        echo 5 >"/proc/$EMU_PID/clear_refs" 2>/dev/null
        hwm_kib
        hwm0=$HWM
    fi
    local s0=$EPOCHREALTIME
    # into a file, not $(...): a command substitution forks a subshell that forks again
    # for send (this shell has traps), three processes a case instead of one
    "$SEND" -t "${HOSTILE_TIMEOUT:-10}" -B "$HERE" -D "HOST=127.0.0.1:$PORT" -D "NS=$NS" \
        -D "TOKEN_READ=$TOKEN_READ" -D "TOKEN_WRITE=$TOKEN_WRITE" \
        -D "TOKEN_ADMIN=$TOKEN_ADMIN" -D "TOKEN_PROJ=$TOKEN_PROJ" \
        127.0.0.1 "$PORT" "$f" >"$T/send.out" 2>&1
    local s1=$EPOCHREALTIME
    out=
    IFS= read -r -d '' out <"$T/send.out" # (no NUL: it ends at the end)
    while [[ $out == *$'\n' ]]; do out=${out%$'\n'}; done # (as $(...) would)
    took_ms=$(((${s1/./} - ${s0/./}) / 1000))
    [ $MEM_CHECK = 1 ] && hwm_kib && hwm1=$HWM
    [ -n "$hwm0" ] && [ -n "$hwm1" ] && grew_kib=$((hwm1 - hwm0))
    local code= reason= close= bytes=
    while read -r key val; do
        case $key in
        status) code=$val ;;
        reason) reason=$val ;;
        ws-close) close=$val ;;
        body-bytes) bytes=$val ;;
        esac
    done <<<"$out"
    local got="$code $reason" why=
    [ -n "$want_close" ] && got="$got close $close"
    if [ "$code" != "$want_code" ]; then
        why="status"
    elif [ -n "$want_reason" ] && [ "$reason" != "$want_reason" ]; then
        why="reason"
    elif [ -n "$want_close" ] && [ "$close" != "$want_close" ]; then
        why="close code"
    elif [ -n "$want_bytes" ] && [ "$bytes" != "$want_bytes" ]; then
        why="body of $bytes bytes, not $want_bytes"
    elif [ "${HOSTILE_COST:-}" != off ] && [ "$took_ms" -gt "$max_ms" ]; then
        why="the answer took $took_ms ms, more than $max_ms"
    elif [ -n "$grew_kib" ] && [ "$grew_kib" -gt "$max_kib" ]; then
        why="the emulator's peak memory grew by $((grew_kib / 1024)) MiB,"
        why="$why more than $((max_kib / 1024))"
    fi
    [ -n "$gone" ] && markers+=("$gone")
    if [ -z "$why" ] && [ -n "$gone" ]; then
        # gone: not seen twice in a row (a child between fork and exec has another name)
        local i missed=0
        for ((i = 0; i < 40; i++)); do
            if pgrep -x -f -- "$gone" >/dev/null; then missed=0; else missed=$((missed + 1)); fi
            [ $missed -ge 2 ] && break
            sleep 0.05
        done
        [ $missed -ge 2 ] || why="the session's process ($gone) still runs"
    fi
    # a refusal (4xx, 5xx, no answer at all) must leave the state as it was
    local refused=0
    case $want_code in none | [45]??) refused=1 ;; esac
    case $code in none | timeout | [45]??) refused=1 ;; esac
    [ "$state_rule" = unchanged ] && refused=1
    if [ -z "$why" ] && [ "$refused" = 1 ] && [ "$state_rule" != changed ]; then
        if state_quiet; then
            FP_LAST=$before # (the last fingerprint taken: FP_SINCE and FP_ESCAPES are its)
        else
            after=$T/fp.a
            [ "$before" = "$after" ] && after=$T/fp.b
            fingerprint "$after"
            local fp_before fp_after
            IFS= read -r -d '' fp_before <"$before"
            IFS= read -r -d '' fp_after <"$after"
            if [ "$fp_before" = "$fp_after" ]; then
                FP_LAST=$after
            else
                why="the state changed"
                changes=$(diff "$before" "$after" | grep '^[<>]' | head -n 12)
            fi
        fi
    fi
    [ -n "${HOSTILE_VERBOSE:-}" ] && grep '^message ' <<<"$out" | sed "s|^|# $id: |"
    [ -n "${HOSTILE_VERBOSE:-}" ] && awk -v a="$t0" -v b="$EPOCHREALTIME" -v id="$id" \
        -v ms="$took_ms" -v kib="${grew_kib:-?}" \
        'BEGIN { printf "# %s took %.3f s (the answer %d ms, peak memory +%s KiB)\n", id, b - a, ms, kib }'
    if [ -z "$why" ]; then
        tap 0 "$id" "$want_code${want_reason:+ $want_reason}${want_close:+ close $want_close}"
    else
        tap 1 "$id" "want $want_code${want_reason:+ $want_reason}${want_close:+ close \
$want_close}, got $got ($why)"
        sed 's/^/#   /' <<<"$out"
        [ -n "$changes" ] && sed 's/^/#   state: /' <<<"$changes"
        recover
    fi
}

for g in "${groups[@]}"; do
    for f in "${files[@]}"; do
        [[ $f == */"$g"/* ]] && run_case "$f"
    done
    if alive; then
        tap 0 "alive after $g" "/readyz ok"
    else
        tap 1 "alive after $g" "the emulator does not answer /readyz"
        bail "the emulator died in group $g"
    fi
done

# ---- start-up refusal: any address but loopback without --token-file ----
"$BIN/nodus-emulator" --state "$T/open" --listen 0.0.0.0:0 --port-file "$T/open.port" \
    --fsync never --quiet >"$T/open.out" 2>"$T/open.err" 3>&- &
open_pid=$!
for _ in $(seq 1 100); do kill -0 $open_pid 2>/dev/null || break; sleep 0.05; done
if kill -0 $open_pid 2>/dev/null; then
    kill -TERM $open_pid
    wait $open_pid 2>/dev/null
    tap 1 "startup/listen-any-without-tokens" "it started on 0.0.0.0 without --token-file"
else
    wait $open_pid
    rc=$?
    if [ "$rc" != 0 ] && [ ! -s "$T/open.port" ]; then
        tap 0 "startup/listen-any-without-tokens" "refused (exit $rc)"
    else
        tap 1 "startup/listen-any-without-tokens" \
            "exit $rc, port file: $(cat "$T/open.port" 2>/dev/null)"
    fi
fi

# ---- the exec sessions' processes: none may be left once the cases are done. (Those left
# are ended here, so the SIGTERM below measures the shutdown alone; a SIGTERM with
# sessions open is a test of tests/emulator/34-exec-clients.bats.) ----
left=
for m in "${markers[@]}"; do pgrep -x -f -- "$m" >/dev/null && left="$left $m"; done
if [ -z "$left" ]; then
    tap 0 "shutdown/sessions" "no session process left after the cases"
else
    tap 1 "shutdown/sessions" "processes left:$left"
    # the processes of this suite's sessions (their whole command line is a marker)
    for m in "${markers[@]}"; do
        for pid in $(pgrep -x -f -- "$m"); do kill -KILL "$pid" 2>/dev/null; done
    done
    # until they are gone (at most 5 s)
    for _ in $(seq 1 100); do
        still=
        for m in "${markers[@]}"; do pgrep -x -f -- "$m" >/dev/null && still=1; done
        [ -z "$still" ] && break
        sleep 0.05
    done
fi

# ---- shutdown: SIGTERM ends the emulator cleanly (exit 0) within 5 s ----
kill -TERM "$EMU_PID"
stopped=1
for _ in $(seq 1 100); do
    kill -0 "$EMU_PID" 2>/dev/null || { stopped=0; break; }
    sleep 0.05
done
if [ $stopped = 1 ]; then
    # give it time to end on its own, so a sanitizer's exit report is written
    for _ in $(seq 1 300); do kill -0 "$EMU_PID" 2>/dev/null || break; sleep 0.05; done
fi
rc=
kill -0 "$EMU_PID" 2>/dev/null || { wait "$EMU_PID" 2>/dev/null; rc=$?; EMU_PID=; }
if [ $stopped = 0 ] && [ "$rc" = 0 ]; then
    tap 0 "shutdown/exit" "SIGTERM: exit 0 within 5 s"
else
    tap 1 "shutdown/exit" "SIGTERM: ${rc:+exit $rc}${rc:-still running}$([ $stopped = 1 ] &&
        echo ' (not within 5 s)')"
fi

if no_sanitizer_report; then
    tap 0 "sanitizers" "the emulator's stderr holds no report"
else
    tap 1 "sanitizers" "the emulator's stderr holds a report"
    grep -E -A5 "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error" "$T/emulator.err" |
        head -n 40 | sed 's/^/# /'
fi
