# Helpers for the client matrix (tests/clients/): a runner (node, python) runs every
# scenario once in setup_file, writing $BATS_FILE_TMPDIR/results/NAME.out ("ok NAME: what
# it saw", or what went wrong) and its own output to $BATS_FILE_TMPDIR/$CLIENT_LOG.
# Load after ../lib/common.
#
#   scenario NAME    the scenario ran and passed (else prints what it, or the runner, said)

scenario() {
    local f=$BATS_FILE_TMPDIR/results/$1.out
    if [ ! -f "$f" ]; then
        echo "scenario $1 did not run; the runner said:" >&2
        head -n 20 "$BATS_FILE_TMPDIR/$CLIENT_LOG" >&2
        return 1
    fi
    run cat "$f"
    # all it said when it failed, not only the first line
    [[ ${lines[0]} =~ ^ok\ $1:\  ]] || { cat "$f" >&2; return 1; }
}
