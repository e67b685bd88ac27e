#!/usr/bin/env bats
# The layers (issue 22, item 3): pkg/ under cmd/ and emulator/, and in the emulator
# store/ and http/ under core/, under sim/, under api/, under the top (emulator/*.c). There
# is no -I.: an include of a layer above does not compile. Each case compiles a one-line
# file with exactly the flags the Makefile gives an object of that directory
# (`make try-compile`), so this cannot drift from the Makefile. Nothing is built.

load ../lib/common

DIRS="pkg/util pkg/kinds cmd/nodus cmd/nodus/verbs emulator/store emulator/http emulator/core
    emulator/sim emulator/sim/controllers emulator/api emulator"

# the Makefile's compile command for an object of each of DIRS, one a line, in order, with
# @SRC@ for the file (asked once: make -n prints the commands without running them)
setup_file() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n -s --no-print-directory -C "$ND_ROOT" \
        try-compile TRY_DIR="$(echo $DIRS)" TRY_SRC=@SRC@ >"$BATS_FILE_TMPDIR/cmds"
}

# mk DIR FILE: FILE compiled (syntax only) as an object of DIR is, from the tree's top
mk() {
    local i=0 d cmd
    for d in $DIRS; do
        i=$((i + 1))
        [ "$d" = "$1" ] && break
    done
    [ "$d" = "$1" ] || { echo "mk: $1 is not in DIRS" >&2; return 2; }
    cmd=$(sed -n "${i}p" "$BATS_FILE_TMPDIR/cmds")
    [[ $cmd == *" -fsyntax-only @SRC@" ]] || { echo "mk: make said: $cmd" >&2; return 2; }
    (cd "$ND_ROOT" && eval "${cmd//@SRC@/\"\$2\"}")
}

# refused DIR HEADER...: each `#include "HEADER"` fails to compile in DIR, for want of it
refused() {
    local dir=$1 h
    shift
    for h in "$@"; do
        printf '#include "%s"\n' "$h" >"$BATS_TEST_TMPDIR/up.c"
        run -1 --separate-stderr mk "$dir" "$BATS_TEST_TMPDIR/up.c"
        [[ $stderr == *"$h: No such file or directory"* ]] ||
            { echo "$dir may include $h: $stderr" >&2; return 1; }
    done
}

# allowed DIR HEADER...: a file including them all compiles in DIR (so a refusal above is
# the layer's rule, not a header missing anywhere)
allowed() {
    local dir=$1
    shift
    printf '#include "%s"\n' "$@" >"$BATS_TEST_TMPDIR/ok.c"
    echo 'int layers_ok;' >>"$BATS_TEST_TMPDIR/ok.c"
    run --separate-stderr mk "$dir" "$BATS_TEST_TMPDIR/ok.c"
    [ "$status" -eq 0 ] || { echo "$dir cannot include $*: $stderr" >&2; return 1; }
}

@test "pkg/ includes nothing of cmd/ or emulator/, by name or by path from the top" {
    allowed pkg/util util/buf.h kinds/registry.h
    refused pkg/util cli.h cmd/nodus/cli.h store.h emulator/store/store.h \
        emulator/api/router.h
    refused pkg/kinds server.h emulator/core/server.h
}

@test "cmd/ includes pkg/ and itself, nothing of the emulator" {
    allowed cmd/nodus cli.h util/buf.h
    allowed cmd/nodus/verbs cli.h
    refused cmd/nodus store.h emulator/store/store.h server.h emulator/core/server.h
    refused cmd/nodus/verbs router.h emulator/api/router.h
}

@test "each emulator layer includes itself and the layers under it, never one above" {
    allowed emulator/store store.h util/buf.h
    refused emulator/store http.h server.h sim.h router.h emulator/api/router.h cli.h
    allowed emulator/http http.h
    refused emulator/http store.h server.h sim.h router.h emulator/core/server.h
    allowed emulator/core server.h store.h http.h
    refused emulator/core sim.h router.h emulator/sim/sim.h
    allowed emulator/sim sim.h server.h store.h http.h
    allowed emulator/sim/controllers sim.h
    refused emulator/sim router.h api.h emulator/api/router.h emulator.h
    refused emulator/sim/controllers router.h
    allowed emulator/api router.h
    refused emulator/api emulator.h emulator/emulator.h cli.h
    allowed emulator router.h
}

@test "no include climbs out of its directory with ../ (which no include path could stop)" {
    run grep -rnE '#[[:space:]]*include[[:space:]]*"([^"]*/)?\.\./' "$ND_ROOT/pkg" "$ND_ROOT/cmd" \
        "$ND_ROOT/emulator" "$ND_ROOT/tests/unit" "$ND_ROOT/tests/fuzz" "$ND_ROOT/bench"
    assert_output ""
}

@test "no emulator object calls a function of a layer above its own (they hand hooks down)" {
    local b
    b=${ND_BUILD:-build}
    [[ $b == /* ]] || b=$ND_ROOT/$b
    [ -f "$b/emulator/core/meta.o" ] || skip "no emulator objects in $b (run make first)"
    command -v nm >/dev/null || skip "nm (binutils) is not installed"
    cd "$b"
    local objs=(emulator/*.o emulator/*/*.o emulator/*/*/*.o)
    nm -A -g --defined-only "${objs[@]}" >"$BATS_TEST_TMPDIR/defs"
    nm -A -u "${objs[@]}" >"$BATS_TEST_TMPDIR/uses"
    # a layer's height: store and http 1, core 2, sim 3, api 4, the top (emulator/*.o) 5
    run awk 'function rank(o) {
                 if (o ~ /^emulator\/(store|http)\//) return 1
                 if (o ~ /^emulator\/core\//) return 2
                 if (o ~ /^emulator\/sim\//) return 3
                 if (o ~ /^emulator\/api\//) return 4
                 return 5
             }
             { split($1, f, ":"); o = f[1]; sym = $NF }
             FILENAME ~ /defs$/ { h[sym] = rank(o); w[sym] = o; next }
             (sym in h) && h[sym] > rank(o) { print o " calls " sym " of " w[sym] }' \
        "$BATS_TEST_TMPDIR/defs" "$BATS_TEST_TMPDIR/uses"
    assert_output ""
    # (the check can fail: it sees a lower layer's calls into core/)
    grep -q '^emulator/sim/sim.o: *U em_server_publish$' "$BATS_TEST_TMPDIR/uses"
}
