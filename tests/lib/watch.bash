# A nodus command left running in the background (a watch, a follow), and waiting for
# what it prints; loaded by the cli suites that watch (02-describe-watch, 24-output).

# nodus in the background, output to FILE (stderr to FILE.err); WATCH_PID is nodus.
watch_bg() {
    WATCH_OUT=$1
    shift
    nodus "$@" >"$WATCH_OUT" 2>"$WATCH_OUT.err" 3>&- &
    WATCH_PID=$!
}

stop_watch() {
    kill "$WATCH_PID"
    wait "$WATCH_PID" 2>/dev/null || true
    WATCH_PID=
}

# Waits (up to ~10 s) until FILE has a line matching the extended regexp RE; else prints
# FILE (control characters shown) and FILE.err.
wait_for_line() {
    local file=$1 re=$2
    wait_until grep -Eq "$re" "$file" 2>/dev/null && return 0
    echo "no line matching '$re' in $file:" >&2
    cat -A "$file" >&2
    cat "$file.err" >&2 2>/dev/null || true
    return 1
}
