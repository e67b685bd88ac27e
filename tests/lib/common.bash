# Shared set-up for the bats suites: each file starts its own emulator on port 0 in
# BATS_FILE_TMPDIR, and helpers to talk to it with curl.
#
#   start_emulator [flags...]   in setup_file; exports EMU_URL, EMU_STATE, EMU_PID. The
#                               clock stands still (--speed 0: it moves only when a test
#                               advances it) unless EMU_SPEED or a --speed flag says otherwise
#   stop_emulator               in teardown_file
#   start_extra NAME [flags...] another emulator (sets XPORT, XURL); stop_extras stops them
#   http METHOD PATH [BODY] [curl args...]
#                               sets CODE (HTTP status), BODY (file holding the body) and
#                               HDRS (file holding the headers); BODY "-" means none. With
#                               only -H HEADER and -m SECONDS arguments the request goes
#                               from the shell itself (_http_tcp: a curl costs ~50 ms of CPU
#                               here), else through curl
#   post_created PATH JSON      POSTs JSON to PATH (with http); fails, printing the
#                               answer, unless it is 201
#   untraced CMD...             runs CMD without bats' trace of every command (~0.2 ms
#                               each here): for a helper that loops over many requests
#   clock_advance D [URL]       moves the emulator's clock D (a Go duration) forward
#   body_json FILTER            jq FILTER over the last body (raw output; tests/lib/jpath
#                               answers a plain path without starting a jq)
#   jr FILTER [FILE]            jq -r FILTER [FILE], through tests/lib/jpath as body_json
#   json_get FILE FILTER...     one jq for several fields: JV[i] is FILTER i's output
#                               (strings raw, other values compact JSON, outputs joined by
#                               newlines); FILE "-" reads stdin
#   body_is FILTER VALUE...     the last body's FILTER is VALUE, for each pair, with one jq;
#                               every mismatch is printed
#   wait_until [-t SECS] CMD... runs CMD until it succeeds (10 s unless -t says); the one
#                               way a suite waits for something: no test sleeps for it
#   pid_gone PID                PID has exited (for wait_until)
#   tree_idle DIR               no process runs in the file tree DIR: none has it as its root
#                               (an isolated exec session's /) or working directory
#   watches_total [URL]         how many watches the emulator ever registered
#   watches_at_least N [URL]    ... N or more (for wait_until, after starting a watch)
#   wait_for_watches N          waits until N watches are open (or more)

bats_require_minimum_version 1.5.0

# Debian's python3 first on PATH (as tests/run-tests.sh does for a whole run): a pyenv
# shim before it costs ~0.5 s of CPU a call. Tests only (this runs at every test's load:
# no process unless the link is still to make).
if [ -x /usr/bin/python3 ]; then
    case ":$PATH:" in
    *"/nd-python3."*":"* | *":$BATS_RUN_TMPDIR/py:"*) ;;
    *) [ -x "$BATS_RUN_TMPDIR/py/python3" ] ||
           { mkdir -p "$BATS_RUN_TMPDIR/py" && ln -sf /usr/bin/python3 "$BATS_RUN_TMPDIR/py/python3"; }
       PATH=$BATS_RUN_TMPDIR/py:$PATH ;;
    esac
fi

# bats-support and bats-assert, found on BATS_LIB_PATH as bats_load_library finds them,
# but their files sourced here: their load.bash runs $(dirname ...) once per file (15
# files, 30 processes), and this file loads again in every test of every suite, so that
# was a third of the suites' CPU. A library without the usual src/ layout loads the usual
# way.
_nd_load_lib() {
    local lib=$1 dir f
    local -a dirs
    IFS=: read -ra dirs <<<"${BATS_LIB_PATH:-/usr/lib/bats}"
    for dir in "${dirs[@]}"; do
        dir=$dir/$lib
        [ -f "$dir/load.bash" ] || continue
        [ -d "$dir/src" ] || break
        for f in "$dir"/src/*.bash; do
            source "$f" || return 1
        done
        return 0
    done
    bats_load_library "$lib"
}
_nd_load_lib bats-support
_nd_load_lib bats-assert

# bats-exec-test stamps every test's start as $(get_mills_since_epoch), which runs
# $(date +%s%N): two forks and an exec a test (~15 ms of CPU here, ~20 s of the suites'
# 1,250 tests). The same milliseconds from bash's clock, with no date (bats reads them
# only to print -T timings; this file loads before bats_perform_test calls it).
if declare -F get_mills_since_epoch >/dev/null && [ -n "${EPOCHREALTIME:-}" ]; then
    get_mills_since_epoch() {
        local t=${EPOCHREALTIME/[.,]/}
        printf '%d\n' "$((10#$t / 1000))"
    }
fi

ND_ROOT=${BATS_TEST_DIRNAME%/*/*} # (the test files are tests/SUITE/*.bats)
export ND_BIN_DIR=${ND_BIN_DIR:-$ND_ROOT/bin}
export PATH="$ND_BIN_DIR:$PATH"

start_emulator() {
    EMU_STATE=${EMU_STATE:-$BATS_FILE_TMPDIR/state}
    local portfile=$BATS_FILE_TMPDIR/port
    rm -f "$portfile"
    "$ND_BIN_DIR/nodus-emulator" --state "$EMU_STATE" --listen 127.0.0.1:0 \
        --port-file "$portfile" --fsync never --quiet --speed "${EMU_SPEED:-0}" "$@" \
        >"$BATS_FILE_TMPDIR/emulator.out" 2>"$BATS_FILE_TMPDIR/emulator.err" 3>&- &
    EMU_PID=$!
    wait_until started "$portfile" "$EMU_PID" || true
    if [ ! -s "$portfile" ]; then
        if pid_gone "$EMU_PID"; then
            echo "emulator exited early:" >&2
            cat "$BATS_FILE_TMPDIR/emulator.err" >&2
        else
            echo "emulator did not start" >&2
        fi
        return 1
    fi
    EMU_URL="http://127.0.0.1:$(cat "$portfile")"
    echo "$EMU_PID" >"$BATS_FILE_TMPDIR/emulator.pid"
    export EMU_URL EMU_STATE EMU_PID
}

# start_extra NAME [flags...]: another emulator of this file (its state, port and output
# under BATS_FILE_TMPDIR/extra-NAME); sets XPORT and XURL. stop_extras (in teardown_file)
# stops every one.
start_extra() {
    local name=$1 dir=$BATS_FILE_TMPDIR/extra-$1
    shift
    mkdir -p "$dir"
    "$ND_BIN_DIR/nodus-emulator" --state "$dir/state" --listen 127.0.0.1:0 \
        --port-file "$dir/port" --fsync never --quiet "$@" >"$dir/out" 2>"$dir/err" 3>&- &
    echo $! >"$BATS_FILE_TMPDIR/extra-$name.pid"
    wait_until test -s "$dir/port"
    XPORT=$(cat "$dir/port")
    XURL=http://127.0.0.1:$XPORT
}

# Stops the emulators start_extra started and waits until they are gone.
stop_extras() {
    local f pid
    for f in "$BATS_FILE_TMPDIR"/extra-*.pid; do
        [ -e "$f" ] || continue
        pid=$(cat "$f")
        rm -f "$f"
        kill -TERM "$pid" 2>/dev/null || continue
        wait_until pid_gone "$pid" || true
    done
}

# Stops the emulator of this file, whichever test started it, and waits until it is gone.
stop_emulator() {
    local pidfile=$BATS_FILE_TMPDIR/emulator.pid pid
    [ -s "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    rm -f "$pidfile"
    kill -TERM "$pid" 2>/dev/null || return 0
    wait_until pid_gone "$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
}

# wait_until [-t SECS] COMMAND [ARGS...]: runs COMMAND (its output discarded) every 0.05 s
# until it succeeds, for at most SECS seconds (default 10: a margin for a loaded machine,
# spent only when something is wrong). Then it says what it waited for, shows COMMAND's
# output once more and fails.
wait_until() {
    local _wu_limit=10 # names of its own: COMMAND may read the caller's variables
    if [ "$1" = -t ]; then
        _wu_limit=$2
        shift 2
    fi
    local _wu_end=$((SECONDS + _wu_limit))
    until "$@" >/dev/null 2>&1; do
        if [ "$SECONDS" -ge "$_wu_end" ]; then
            echo "wait_until: still false after ${_wu_limit} s: $*" >&2
            "$@" >&2 || true
            return 1
        fi
        sleep 0.05 # the poll's period: what is awaited is COMMAND
    done
}

pid_gone() { # PID: exited (a zombie not yet reaped counts as gone)
    ! kill -0 "$1" 2>/dev/null || grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null
}

tree_idle() {
    local p
    for p in /proc/[0-9]*; do
        if [ "$p/root" -ef "$1" ] || [ "$p/cwd" -ef "$1" ]; then
            return 1
        fi
    done 2>/dev/null
    return 0
}

# PORTFILE PID: an emulator started in the background wrote its port file, or has exited
# (then waiting longer is pointless: the caller's next step reports it).
started() {
    [ -s "$1" ] || pid_gone "$2"
}

watches_total() { # [URL]: this file's emulator unless URL names another
    _emu_stat watchesTotal "${1:-}"
}

# _emu_stat FIELD [URL]: a number of /emulator/v1/stats (this file's emulator unless URL
# names another). Asked from the shell (see http) into files of its own, the number read
# by the shell: a wait_until polls it, and curl and jq were two processes a poll.
_emu_stat() {
    local url=${2:-} port
    if [ -z "$url" ]; then
        read -r port <"$BATS_FILE_TMPDIR/port"
        url=http://127.0.0.1:$port
    fi
    if [[ $url =~ ^http://127\.0\.0\.1:([0-9]+)/?$ ]]; then
        local BODY=${BATS_TEST_TMPDIR:-$BATS_FILE_TMPDIR}/stats.$$ CODE HTTP_MAX_TIME= b=
        local HDRS=$BODY.headers
        untraced _http_tcp "${BASH_REMATCH[1]}" GET /emulator/v1/stats -
        IFS= read -r -d '' b <"$BODY"
        if [[ $CODE == 200 && $b =~ \"$1\":([0-9]+)[,}] ]]; then
            echo "${BASH_REMATCH[1]}"
            return 0
        fi
    fi
    curl -sS "$url/emulator/v1/stats" | jq -r ".$1"
}

# watches_at_least N [URL]: the emulator has registered N watches since it started. Read
# watches_total before starting a watch in the background, then wait_until one more: the
# watch is registered, so every later change reaches it.
watches_at_least() {
    [ "$(watches_total "${2:-}")" -ge "$1" ]
}

watches_open() {
    _emu_stat watchesOpen
}

# wait_for_watches N: waits until this file's emulator has N watches open (or more).
wait_for_watches() {
    wait_until _watches_open_at_least "$1" 2>/dev/null && return 0
    echo "only $(watches_open) watches open, wanted $1" >&2
    return 1
}
_watches_open_at_least() {
    [ "$(watches_open)" -ge "$1" ]
}

# The emulator's URL, read each time (a test may have restarted it on a new port).
# clock_advance DURATION [URL]: moves the emulator's clock (this file's, unless URL names
# another) forward by a Go duration; fails unless the emulator took it
clock_advance() {
    local url=${2:-} port
    if [ -z "$url" ]; then
        read -r port <"$BATS_FILE_TMPDIR/port" # (emu_url, without its subshell)
        url=http://127.0.0.1:$port
    fi
    if [[ $url =~ ^http://127\.0\.0\.1:([0-9]+)/?$ ]]; then
        # from the shell (see http), into files of its own: the last answer stays the test's
        local BODY=${BATS_TEST_TMPDIR:-$BATS_FILE_TMPDIR}/clock.$$ CODE
        local HDRS=$BODY.headers
        local HTTP_MAX_TIME=
        untraced _http_tcp "${BASH_REMATCH[1]}" POST /emulator/v1/clock "{\"advance\":\"$1\"}" \
            'Content-Type: application/json'
        [[ $CODE == 2?? ]] || { cat "$BODY" >&2; return 1; }
        return 0
    fi
    curl -sf -o /dev/null -X POST "$url/emulator/v1/clock" \
        -H 'Content-Type: application/json' -d "{\"advance\":\"$1\"}"
}

# post_copies URL FILE N: POSTs N copies of the object in FILE to URL, 8 at a time (one
# curl), named j0001 ... with the label tier=0 or 1 (every other one); fails unless all
# N answered 201
post_copies() {
    local cfg=$BATS_FILE_TMPDIR/post_copies.cfg
    jq -r --arg url "$1" --argjson n "$3" '
        [range(1; $n + 1) as $i | (.metadata.name = "j\($i + 10000 | tostring | .[1:])" |
         .metadata.labels = {tier: "\($i % 2)"}) |
        "url = \"\($url)\"\nrequest = \"POST\"\nheader = \"Content-Type: application/json\"\n" +
        "data = \(tojson | tojson)\nwrite-out = \"%{http_code}\\n\"\noutput = /dev/null\n"] | join("next\n")' \
        "$2" >"$cfg"
    [ "$(curl -s --no-progress-meter --parallel --parallel-max 8 -K "$cfg" | grep -c '^201$')" = "$3" ]
}

# list_items URL: every item of a list, its pages one after the other, one a line (URL
# ends with its query and &, or with ? alone)
list_items() {
    local cont="" page
    while :; do
        page=$(curl -sf "$1&limit=500&continue=$cont") || return 1
        jq -c '.items[]' <<<"$page"
        cont=$(jq -r '.metadata.continue // empty' <<<"$page")
        [ -n "$cont" ] || return 0
    done
}

emu_url() {
    local port
    read -r port <"$BATS_FILE_TMPDIR/port"
    echo "http://127.0.0.1:$port"
}

http() {
    local method=$1 path=$2 data=${3:--}
    shift 3 2>/dev/null || shift $#
    BODY=${BATS_TEST_TMPDIR:-$BATS_FILE_TMPDIR}/body.$$ # (setup_file has no test's)
    HDRS=${BATS_TEST_TMPDIR:-$BATS_FILE_TMPDIR}/headers.$$
    local port
    read -r port <"$BATS_FILE_TMPDIR/port" # (emu_url, without its two processes)
    EMU_URL=http://127.0.0.1:$port
    local -a hs=()
    if _http_headers "$@" && [[ $data != @* && ${#data} -le 65536 ]]; then
        # only headers and a time limit: sent from this shell (a curl a request was a good
        # part of the suites' CPU); anything else (-I, a file to send, an upgrade) takes curl
        if [ "$data" != "-" ]; then
            case " $* " in
            *"Content-Type"*) ;;
            *) hs+=('Content-Type: application/json') ;;
            esac
        fi
        untraced _http_tcp "$port" "$method" "$path" "$data" "${HTTP_HEADERS[@]}" "${hs[@]}"
        return 0
    fi
    local args=(-sS -X "$method" -o "$BODY" -D "$HDRS" -w '%{http_code}')
    if [ "$data" != "-" ]; then
        args+=(--data-binary "$data")
        case " $* " in
        *"Content-Type"*) ;;
        *) args+=(-H 'Content-Type: application/json') ;;
        esac
    fi
    CODE=$(exec curl "${args[@]}" "$@" "$EMU_URL$path") # (exec: see json_get)
}

# _http_headers ARGS...: true when curl's ARGS are only -H HEADER pairs (not -H @FILE, nor
# an Upgrade) and -m SECONDS: the headers in HTTP_HEADERS, the seconds in HTTP_MAX_TIME
_http_headers() {
    HTTP_HEADERS=() HTTP_MAX_TIME=
    while [ $# -ge 2 ]; do
        case $1:$2 in
        -H:@* | -H:[Uu]pgrade:*) return 1 ;;
        -H:*) HTTP_HEADERS+=("$2") ;;
        -m:*) HTTP_MAX_TIME=$2 ;;
        *) return 1 ;;
        esac
        shift 2
    done
    [ $# = 0 ]
}

# _http_tcp PORT METHOD PATH DATA HEADER...: one HTTP/1.1 request to 127.0.0.1:PORT over
# bash's /dev/tcp, with the head curl sends (Host, curl's User-Agent, from which the
# emulator names the field manager and launched-by, and Accept, each unless a HEADER gives
# it; "Name:" takes a header away, "Name;" sends it empty; DATA "-": no body). Sets CODE
# (000: no answer) and writes the answer's head to HDRS and its body to BODY, as curl -D
# and -o do. A body that may hold a NUL (not JSON, YAML or text/*) or comes in chunks (a
# stream) is read by perl. HTTP_MAX_TIME (seconds) bounds each read, and the body's.
post_created() {
    local CODE BODY HDRS
    http POST "$1" "$2"
    [ "$CODE" = 201 ] && return 0
    echo "POST $1 answered $CODE:" >&2
    cat "$BODY" >&2
    return 1
}

_http_tcp() {
    local LC_ALL=C port=$1 method=$2 path=$3 data=$4 fd line h req status len= chunked= type=
    local -a t=()
    [ -n "${HTTP_MAX_TIME:-}" ] && t=(-t "$HTTP_MAX_TIME")
    shift 4
    local host="Host: 127.0.0.1:$port" agent="User-Agent: curl/7.88.1" accept="Accept: */*" extra=
    : >"$HDRS"
    : >"$BODY"
    CODE=000
    exec {fd}<>"/dev/tcp/127.0.0.1/$port" ||
        { echo "http: cannot connect to 127.0.0.1:$port" >&2; return 0; }
    for h; do
        case ${h%%[:;]*} in
        [Hh]ost) host= ;;
        [Uu]ser-[Aa]gent) agent= ;;
        [Aa]ccept) accept= ;;
        esac
        case $h in
        *:) ;;
        *\;) extra+="${h%;}:"$'\r\n' ;;
        *) extra+="$h"$'\r\n' ;;
        esac
    done
    req="$method $path HTTP/1.1"$'\r\n'
    [ -n "$host" ] && req+="$host"$'\r\n'
    [ -n "$agent" ] && req+="$agent"$'\r\n'
    [ -n "$accept" ] && req+="$accept"$'\r\n'
    req+=$extra
    [ "$data" != - ] && req+="Content-Length: ${#data}"$'\r\n'$'\r\n'"$data" || req+=$'\r\n'
    trap '' PIPE # (the server may close before it read all; untraced sets it back)
    printf '%s' "$req" >&"$fd" 2>/dev/null
    trap - PIPE
    if IFS= read -r "${t[@]}" status <&"$fd"; then
        printf '%s\n' "$status" >"$HDRS"
        while IFS= read -r "${t[@]}" line <&"$fd"; do
            printf '%s\n' "$line" >>"$HDRS"
            [ "$line" = $'\r' ] && break
            line=${line%$'\r'}
            case ${line,,} in
            content-length:*) len=${line#*:} len=${len// /} ;;
            transfer-encoding:*chunked*) chunked=1 ;;
            content-type:*) type=${line,,} ;;
            esac
        done
        CODE=${status:9:3}
        case $method:$CODE in
        HEAD:* | *:1?? | *:204 | *:304) ;;
        *)
            if [ -z "$chunked" ] && [ -n "$len" ] &&
                [[ $type == *json* || $type == *yaml* || $type == *text/* ]]; then
                line=
                [ "$len" -gt 0 ] && IFS= read -r "${t[@]}" -d '' -N "$len" line <&"$fd"
                printf '%s' "$line" >"$BODY"
            else
                perl -e 'use Time::HiRes qw(alarm); binmode STDIN; binmode STDOUT; $| = 1;
                    my ($chunked, $len, $max) = @ARGV; $SIG{ALRM} = sub { exit 0 };
                    alarm $max if $max ne "";
                    if ($chunked) {
                        while (defined(my $size = <STDIN>)) {
                            my $n = hex $size; last if !$n;
                            read(STDIN, my $b, $n); print $b; <STDIN>;
                        }
                    } elsif ($len ne "") { read(STDIN, my $b, $len); print $b; }
                    else { local $/; print <STDIN>; }' "$chunked" "$len" "${HTTP_MAX_TIME:-}" \
                    <&"$fd" >"$BODY"
            fi
            ;;
        esac
    fi
    exec {fd}<&-
    return 0
}

# untraced CMD...: runs CMD without bats' DEBUG trap (a function bats runs before every
# command of a test, a good part of a loop's time), then sets it back as it was, and
# SIGPIPE's too (read through a file: no subshell)
untraced() {
    local _ut_file=${BATS_TEST_TMPDIR:-$BATS_FILE_TMPDIR}/.traps.$BASHPID _ut_traps=
    trap -p DEBUG PIPE >"$_ut_file"
    trap - DEBUG
    "$@"
    local _ut_rc=$?
    IFS= read -r -d '' _ut_traps <"$_ut_file" || true # (no NUL: it ends at the end)
    eval "$_ut_traps"
    return $_ut_rc
}

# (through tests/lib/jpath, built by make test-bins: the same output as jq -r for a plain
# path such as .items[0].metadata.name, without jq's ~30 ms of CPU at every start; any
# other filter or value it hands to jq. Without the build, jq.)
ND_JPATH=${ND_BUILD:-build}/tests/lib/jpath
[[ $ND_JPATH == /* ]] || ND_JPATH=$ND_ROOT/$ND_JPATH
[ -x "$ND_JPATH" ] || ND_JPATH=jq
body_json() {
    jr "$1" "$BODY"
}

# jr FILTER [FILE]: jq -r FILTER [FILE] (standard input without FILE), through jpath
jr() {
    if [ "$ND_JPATH" = jq ]; then
        jq -r "$@"
    else
        "$ND_JPATH" "$@"
    fi
}

# A jq per field costs a process each: a check of several fields of one object asks
# them of one jq. Each value ends with a unit separator (a byte no value holds).
json_get() {
    local file=$1 prog= f out
    shift
    for f in "$@"; do
        prog="$prog([$f] | map(if type == \"string\" then . else tojson end) | join(\"\\n\")), \"\\u001f\", "
    done
    # (exec: a command substitution in a bats test, which has traps, forks again for jq)
    out=$(exec jq -j "${prog%, }" "$file") || return 1
    JV=()
    while [[ $out == *$'\x1f'* ]]; do
        JV+=("${out%%$'\x1f'*}")
        out=${out#*$'\x1f'}
    done
    [ ${#JV[@]} -eq $# ] || { echo "json_get: $# filters, ${#JV[@]} values" >&2; return 1; }
}

body_is() {
    local -a filters=() want=()
    [ $(($# % 2)) -eq 0 ] || { echo "body_is: FILTER VALUE pairs, got $# words" >&2; return 1; }
    while [ $# -gt 0 ]; do
        filters+=("$1")
        want+=("$2")
        shift 2
    done
    json_get "$BODY" "${filters[@]}" || { cat "$BODY" >&2; return 1; }
    local i bad=0
    for i in "${!filters[@]}"; do
        [ "${JV[i]}" = "${want[i]}" ] && continue
        echo "body_is: ${filters[i]} is '${JV[i]}', expected '${want[i]}'" >&2
        bad=1
    done
    [ "$bad" = 0 ] || { cat "$BODY" >&2; return 1; }
}

# header NAME: the first NAME: line of the last answer's head (case-insensitive), its
# value without the space after the colon and the CR (read by the shell: grep, head, cut
# and sed were four processes)
header() {
    local line want=${1,,}:
    while IFS= read -r line || [ -n "$line" ]; do
        [[ ${line,,} == "$want"* ]] || continue
        line=${line#*:}
        line=${line# }
        printf '%s\n' "${line%$'\r'}"
        return 0
    done <"$HDRS"
    return 0 # (as the pipeline it replaced: found or not)
}

# A Job manifest (JSON) with a name and optional extra spec fields (a JSON object).
# (written by the shell when NAME is a plain word and EXTRA sets none of the fields the
# manifest sets, else by jq: a jq costs ~30 ms of CPU, and the suites make hundreds of
# Jobs; EXTRA goes in as it is, the emulator parses it)
job_json() {
    local name=$1 extra=${2:-'{}'}
    if _plain "$name" && _no_keys "$extra" image command maxCostUSD; then
        [[ $extra =~ ^[[:space:]]*\{[[:space:]]*\}[[:space:]]*$ ]] && extra= || extra=,${extra#*\{}
        [ -n "$extra" ] || extra='}'
        printf '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"%s"},"spec":{"image":"nodus/pytorch:2.8-cuda12.8","command":["python","train.py"],"maxCostUSD":"40.00"%s}\n' \
            "$name" "$extra"
        return
    fi
    jq -cn --arg n "$name" --argjson x "$extra" \
        '{apiVersion:"nodus.dev/v1",kind:"Job",metadata:{name:$n},
          spec:({image:"nodus/pytorch:2.8-cuda12.8",command:["python","train.py"],
                 maxCostUSD:"40.00"} + $x)}'
}

# _plain WORD...: each needs no JSON escaping (no quote, backslash or control character)
_plain() {
    local w
    for w; do [[ $w =~ ^[A-Za-z0-9._/:@+-]*$ ]] || return 1; done
}

# _no_keys JSON KEY...: JSON (an object) names none of KEY, anywhere
_no_keys() {
    local json=$1 k
    shift
    for k; do [[ $json != *"\"$k\""* ]] || return 1; done
}
