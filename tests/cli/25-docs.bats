#!/usr/bin/env bats
# Docs that run: every console block of README.md and docs/*.md, run in order against a
# fresh emulator, prints what the page shows (tests/docs/run-docs.sh; its header has the
# conventions). One test per page, so a failure names the page and shows the diff; fix
# the page (or the code, when the page is right) and see `run-docs.sh --update`.

load ../lib/common

run_page() {
    run tests/docs/run-docs.sh "$1"
    if [ "$status" -ne 0 ]; then
        echo "$output"
        echo "(rerun: ND_BIN_DIR=$ND_BIN_DIR tests/docs/run-docs.sh $1; when the page is what is"
        echo " out of date, e.g. a table after a printer column was added to pkg/kinds/kinds.c:"
        echo " tests/docs/run-docs.sh --update $1, then read the diff)"
        return 1
    fi
}

setup() {
    cd "$ND_ROOT"
}

@test "every page of docs/ has its test in this file" {
    local page missing=
    for page in docs/*.md; do
        grep -qF "run_page $page" "$BATS_TEST_FILENAME" || missing="$missing $page"
    done
    [ -z "$missing" ] || { echo "pages without a test:$missing"; return 1; }
}

@test "README.md" { run_page README.md; }
@test "docs/api.md" { run_page docs/api.md; }
@test "docs/benchmarks.md" { run_page docs/benchmarks.md; }
@test "docs/conformance.md" { run_page docs/conformance.md; }
@test "docs/console.md" { run_page docs/console.md; }
@test "docs/emulator.md" { run_page docs/emulator.md; }
@test "docs/exec-files.md" { run_page docs/exec-files.md; }
@test "docs/kinds.md" { run_page docs/kinds.md; }
@test "docs/kubernetes.md" { run_page docs/kubernetes.md; }
@test "docs/logs.md" { run_page docs/logs.md; }
@test "docs/mcp.md" { run_page docs/mcp.md; }
@test "docs/money.md" { run_page docs/money.md; }
@test "docs/pipelines.md" { run_page docs/pipelines.md; }
@test "docs/pools.md" { run_page docs/pools.md; }
@test "docs/security.md" { run_page docs/security.md; }
@test "docs/simulation.md" { run_page docs/simulation.md; }
@test "docs/testing.md" { run_page docs/testing.md; }
@test "docs/torture.md" { run_page docs/torture.md; }

# The runner itself, on small pages of its own.

page() {
    PAGE=$BATS_TEST_TMPDIR/page.md
    cat >"$PAGE"
}

@test "runner: a page that shows what its commands print passes; the session carries on" {
    page <<'EOF'
# A page

```console
$ export GREETING=hello
$ echo "$GREETING from $(basename $PWD)"; echo oops >&2
hello from work
oops
$ (exit 3)
$ echo $?
3
```

```sh
$ this is an illustration and never runs
```

<!-- docs-test: skip (an interactive program) -->
```console
$ read -r x; echo never
```

<!-- docs-test: write hello.yaml -->
```yaml
greeting: hello
```

```console
$ cat hello.yaml && pwd | sed 's,.*/,,' && echo /tmp/x > /tmp/y && cat /tmp/y
greeting: hello
work
/tmp/x
$ printf 'a\nb\nc\nd\n'
a
...
d
```
EOF
    run -0 tests/docs/run-docs.sh "$PAGE"
    assert_output ""
}

@test "runner: a difference is a diff naming the page, line and command; --update writes it" {
    page <<'EOF'
Text.

```console
$ echo one; echo two
one
three
$ echo same
same
```
EOF
    run -1 tests/docs/run-docs.sh "$PAGE"
    assert_output "$PAGE:4: the output differs (exit 0)
  \$ echo one; echo two
  --- shown in $PAGE
  +++ printed
   one
  -three
  +two"
    run -1 tests/docs/run-docs.sh --update "$PAGE"
    assert_output "$PAGE: wrote the printed output of 1 command(s)"
    run -0 tests/docs/run-docs.sh "$PAGE"
    run -0 cat "$PAGE"
    assert_line --index 4 "two"
}

@test "runner: ids, times, ports, pids, ages and resourceVersions are masked, nothing else" {
    page <<'EOF'
```console
$ echo "job_01m8m94shp8p4av37yp4pwbbq6 req_01m8sz1rvw0ehyhbrznzqa22zd 2026-12-01T10:00:00Z"
job_01aaaaaaaaaaaaaaaaaaaaaaaa req_01bbbbbbbbbbbbbbbbbbbbbbbb 2025-01-01T00:00:00.5Z
$ echo "http://127.0.0.1:4242 (pid 77) \"resourceVersion\": \"12\""
http://127.0.0.1:8443 (pid 1) "resourceVersion": "9"
$ printf 'NAME   AGE   PHASE\ntrain  9s    Running\n'
NAME   AGE   PHASE
train  3h31m   Running
```
EOF
    run -0 tests/docs/run-docs.sh "$PAGE"
    page <<'EOF'
```console
$ echo '$0.83 train-a 2xH100'
$0.84 train-a 2xH100
```
EOF
    run -1 tests/docs/run-docs.sh "$PAGE"
    assert_line "  -\$0.84 train-a 2xH100"
}

@test "runner: a clock directive advances the emulator the commands talk to" {
    page <<'EOF'
```console
$ bin/nodus-emulator --state /tmp/emu --listen 127.0.0.1:0 --port-file /tmp/emu/port --quiet &
listening on http://127.0.0.1:41827
console: http://127.0.0.1:41827/
$ export NODUS_SERVER=http://127.0.0.1:$(cat /tmp/emu/port)
$ curl -s $NODUS_SERVER/emulator/v1/clock | jq -r .speed
0
$ before=$(curl -s $NODUS_SERVER/emulator/v1/clock | jq -r .now)
```

<!-- docs-test: clock advance 90s -->
```console
$ now=$(curl -s $NODUS_SERVER/emulator/v1/clock | jq -r .now)
$ echo $(( $(date -d "$now" +%s) - $(date -d "$before" +%s) ))
90
$ kill %1
```
EOF
    run -0 tests/docs/run-docs.sh "$PAGE"
    # a hidden step that fails is reported
    sed -i 's/clock advance 90s/run false/' "$PAGE"
    run -1 tests/docs/run-docs.sh "$PAGE"
    assert_line --partial 'the docs-test directive "run false" failed (exit 1)'
}

@test "runner: a hung command is reported and what it started is ended" {
    page <<'EOF'
```console
$ cp /bin/sleep /tmp/emu-sleep && /tmp/emu-sleep 300 &
$ sleep 60
$ echo after
after
```
EOF
    DOCS_TIMEOUT=2 run -1 tests/docs/run-docs.sh --keep "$PAGE"
    assert_line "$PAGE: stopped after 2s (DOCS_TIMEOUT)"
    assert_line "$PAGE:3: not run: it did not finish before the time limit (hung?)"
    assert_line "$PAGE:4: not run: the session stopped before it"
    local dir
    dir=$(sed -n 's/.*scratch directory kept in //p' <<<"$output")
    # nothing of it runs any more (each process's command line, read without a process
    # per process)
    local p args
    for p in /proc/[0-9]*; do
        args=()
        # a process may end between the glob and the read
        { mapfile -d '' args <"$p/cmdline"; } 2>/dev/null || continue
        if [[ "${args[*]}" == *"$dir/tmp/emu-sleep"* ]]; then
            echo "still running: $p"
            return 1
        fi
    done
    rm -rf "$dir"
}
