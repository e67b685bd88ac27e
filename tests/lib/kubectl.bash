# Helpers for the kubectl suite (tests/kubectl/): run the REAL kubectl binaries of the
# machine against this file's emulator. Load after ../lib/common. Every kubectl run costs
# about 0.12 s of CPU, and a test may run for several versions: check what a
# write stored over HTTP (emu_get), not with another kubectl run.
#
#   kubectl_setup           in setup_file, after start_emulator: finds the kubectl
#                           versions, writes a kubeconfig into BATS_FILE_TMPDIR
#   kubectl_require         in setup: skips when the machine has no kubectl at all
#   for KV in $(kc_versions [all | VERSION...]); do kc_use; ...; done
#                           runs a test body for the newest version, and before it for
#                           each older VERSION the machine has (all: every one; see "The
#                           versions" below); kc_use prints a marker
#                           line "=== kubectl 1.31" (shown when the test fails, so the
#                           failing version is the last marker above the failure) and
#                           sets SFX (e.g. 131) for fresh object names per version
#   kc ARGS...              the kubectl of the last kc_use, with the file's kubeconfig,
#                           its own cache dir and HOME/TMPDIR inside BATS_FILE_TMPDIR
#   kc_show_last            in teardown: prints the last run's stdout and stderr when
#                           the test failed
#   kc_bg OUT ARGS...       kc in the background, stdout+stderr to OUT; sets
#                           KC_BG_PID (kubectl's own pid: wait for it, or kill it)
#   wait_for_line FILE RE   waits until FILE has a line matching RE
#   wait_for_watches N      (tests/lib/common.bash) waits until N watches are open
#   mask_age                stdin -> stdout: a kubectl table with every AGE cell
#                           replaced by "<age>" (header keeps "AGE")
#   assert_table            compares $output, masked, with the table on stdin
#   fixture NAME [SED...]   prints tests/kubectl/fixtures/NAME, through sed expressions
#   job_file NAME [SED...]  writes fixtures/job-min.yaml named NAME (through SED...) to
#                           $BATS_TEST_TMPDIR/NAME.yaml and prints that path
#   emu_apply_yaml NS PLURAL YAML
#                           POSTs a YAML manifest (fails unless 201)
#   emu_namespace NAME      creates a project
#   emu_get NS PLURAL NAME  GETs an object: EMU_CODE (HTTP status), EMU_OBJ
#                           (the body); checks of what kubectl wrote use it, so they
#                           cost no kubectl run

# The versions the suite runs, each that the machine has (kubectl.<version> beside the
# target of the kubectl on PATH). ND_KUBECTL_VERSIONS="1.33" narrows a run while
# debugging.
KC_WANTED=${ND_KUBECTL_VERSIONS:-"1.27 1.28 1.29 1.30 1.31 1.32 1.33"}

# The versions: every test runs the newest; an older version runs only the tests whose
# requests or output differ by version, each naming in its loop the versions on the old
# side of the changes it crosses, with a one-line reason above the loop. What changed
# between 1.27 and 1.33 (from their -v=8 requests for each verb the suite runs, and the
# suite's own version branches):
#   1.27 | 1.28  whoami asks SelfSubjectReview v1beta1, then v1; annotate prints
#                "annotate"; events --for takes no group-qualified KIND
#   1.28 | 1.29  OpenAPI v2 (protobuf, /openapi/v2) before, v3 after: explain, and every
#                write that validates or patches with it (create, replace, apply, edit,
#                diff); events --for adds involvedObject.apiVersion to its selector
#   1.29 | 1.30  aggregated discovery v2beta1 before, v2 after: how a name (nj,
#                jobs.v1.nodus.dev, the category all) maps to a resource
#   1.31 | 1.32  auth reviews, create namespace's Namespace and the Events of describe
#                and events go as JSON before, protobuf after
#   each         its own Go, so its own TLS client (06-tls runs every version)
# The rest (get's tables and formats, selectors, paging, patch, label, delete, wait, get
# -w) sends the same requests in every version: the newest alone runs it.
# ND_KUBECTL_ALL=1 runs every test on every version (before adding a version to
# KC_WANTED: a difference found there adds a line above and the version to its tests).
kc_versions() {
    local newest=${KC_VERSIONS##* } v out=
    if [ "${1:-}" = all ] || [ -n "${ND_KUBECTL_ALL:-}" ]; then
        echo "$KC_VERSIONS"
        return
    fi
    for v in $KC_VERSIONS; do
        case " $* " in *" $v "*) [ "$v" = "$newest" ] || out="$out$v " ;; esac
    done
    echo "$out$newest"
}

kubectl_setup() {
    KC_DIR=
    KC_VERSIONS=
    local path v
    path=$(command -v kubectl 2>/dev/null || true)
    if [ -n "$path" ]; then
        KC_DIR=$(dirname "$(readlink -f "$path")")
        for v in $KC_WANTED; do
            [ -x "$KC_DIR/kubectl.$v" ] && KC_VERSIONS="$KC_VERSIONS $v"
        done
        # No versioned binary: the kubectl on PATH, whatever it is.
        [ -n "$KC_VERSIONS" ] || { KC_VERSIONS=path; KC_DIR=$(dirname "$path"); }
    fi
    KC_VERSIONS=${KC_VERSIONS# }
    KC_CONFIG=$BATS_FILE_TMPDIR/kubeconfig
    mkdir -p "$BATS_FILE_TMPDIR/home" "$BATS_FILE_TMPDIR/tmp"
    cat >"$KC_CONFIG" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: emulator
  cluster:
    server: $EMU_URL
users:
- name: emulator
  user: {}
contexts:
- name: emulator
  context:
    cluster: emulator
    user: emulator
    namespace: default
current-context: emulator
EOF
    export KC_DIR KC_VERSIONS KC_CONFIG
}

kubectl_require() {
    [ -n "${KC_VERSIONS:-}" ] || skip "kubectl is not installed on this machine"
    # Nothing of the user's: no other kubeconfig, differ or editor.
    unset KUBECONFIG KUBECTL_EXTERNAL_DIFF KUBE_EDITOR
}

kc_use() {
    echo "=== kubectl $KV"
    SFX=${KV//./}
    if [ "$KV" = path ]; then
        KC_BIN=$KC_DIR/kubectl
    else
        KC_BIN=$KC_DIR/kubectl.$KV
    fi
}

# HOME and TMPDIR keep kubectl (the dispatcher's /version cache, diff's and edit's
# files) out of the user's ~/.kube and /tmp. One fork and exec: a run costs enough.
kc() {
    HOME=$BATS_FILE_TMPDIR/home TMPDIR=$BATS_FILE_TMPDIR/tmp \
        "$KC_BIN" --kubeconfig "$KC_CONFIG" --cache-dir "$BATS_FILE_TMPDIR/cache-$KV" "$@"
}

# In the background, $! is kubectl itself (a simple command forks and execs).
kc_bg() {
    local out=$1
    shift
    HOME=$BATS_FILE_TMPDIR/home TMPDIR=$BATS_FILE_TMPDIR/tmp \
        "$KC_BIN" --kubeconfig "$KC_CONFIG" --cache-dir "$BATS_FILE_TMPDIR/cache-$KV" "$@" \
        >"$out" 2>&1 &
    KC_BG_PID=$!
}

# Waits (up to ~10 s) until FILE holds a line matching the extended regexp RE.
wait_for_line() {
    local file=$1 re=$2
    wait_until grep -Eq "$re" "$file" 2>/dev/null && return 0
    echo "no line matching '$re' in $file:" >&2
    cat "$file" >&2
    return 1
}

mask_age() {
    awk '
        /^(NAMESPACE +)?NAME +/ {
            s = index($0, " AGE")
            w = 0
            if (s) {
                s++
                rest = substr($0, s + 3)
                m = match(rest, /[^ ]/)
                if (m) w = 3 + m - 1       # the cell and its padding; 0: last column
            }
            print
            next
        }
        s && length($0) >= s {
            if (w) printf "%s%-*s%s\n", substr($0, 1, s - 1), w, "<age>", substr($0, s + w)
            else print substr($0, 1, s - 1) "<age>"
            next
        }
        { print }'
}

assert_table() {
    local got expected
    got=$(printf '%s\n' "$output" | mask_age)
    expected=$(cat)
    assert_equal "$got" "$expected"
}

fixture() {
    local name=$1
    shift
    local args=() e
    for e in "$@"; do args+=(-e "$e"); done
    if [ ${#args[@]} -eq 0 ]; then
        cat "$BATS_TEST_DIRNAME/fixtures/$name"
    else
        sed "${args[@]}" "$BATS_TEST_DIRNAME/fixtures/$name"
    fi
}

job_file() {
    local name=$1
    shift
    fixture job-min.yaml "s/NAME/$name/" "$@" >"$BATS_TEST_TMPDIR/$name.yaml"
    echo "$BATS_TEST_TMPDIR/$name.yaml"
}

# emu_post PATH TYPE BODY: POSTs BODY to this file's emulator (from the shell, see http in
# common.bash, unless EMU_URL is not plain http on 127.0.0.1); fails unless 201
emu_post() {
    local path=$1 type=$2 data=$3 BODY=$BATS_FILE_TMPDIR/emu_apply.out CODE
    local HDRS=$BODY.headers HTTP_MAX_TIME=
    if [[ $EMU_URL =~ ^http://127\.0\.0\.1:([0-9]+)$ ]]; then
        untraced _http_tcp "${BASH_REMATCH[1]}" POST "$path" "$data" "Content-Type: $type"
    else
        CODE=$(curl -sS -o "$BODY" -w '%{http_code}' -X POST -H "Content-Type: $type" \
            --data-binary "$data" "$EMU_URL$path")
    fi
    if [ "$CODE" != 201 ]; then
        echo "POST $path answered $CODE:" >&2
        cat "$BODY" >&2
        return 1
    fi
}

emu_apply_yaml() {
    emu_post "/apis/nodus.dev/v1/namespaces/$1/$2" application/yaml "$3"$'\n'
}

emu_namespace() {
    emu_post /api/v1/namespaces application/json \
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$1\"}}"
}

# For teardown: when the test failed, shows what the last `run` captured (bats prints
# only the failed check), so a report carries kubectl's own words.
kc_show_last() {
    [ -z "${BATS_TEST_COMPLETED:-}" ] || return 0
    echo "--- last kubectl stdout:"
    printf '%s\n' "${output:-}"
    echo "--- last kubectl stderr:"
    printf '%s\n' "${stderr:-}"
    if [ -n "${EMU_CODE:-}" ]; then
        echo "--- last emu_get: $EMU_CODE"
        printf '%s\n' "$EMU_OBJ"
    fi
}

emu_get() {
    local path=/apis/nodus.dev/v1/namespaces/$1/$2/$3 got
    if [[ $EMU_URL =~ ^http://127\.0\.0\.1:([0-9]+)$ ]]; then
        local BODY=${BATS_TEST_TMPDIR:-$BATS_FILE_TMPDIR}/emu_get CODE
        local HDRS=$BODY.headers
        local HTTP_MAX_TIME=
        untraced _http_tcp "${BASH_REMATCH[1]}" GET "$path" -
        EMU_CODE=$CODE EMU_OBJ=
        IFS= read -r -d '' EMU_OBJ <"$BODY" || true
        return 0
    fi
    got=$(curl -sS -w '\n%{http_code}' "$EMU_URL$path")
    EMU_CODE=${got##*$'\n'}
    EMU_OBJ=${got%$'\n'*}
}

# The hooks of a kubectl suite, unless the file defines its own after loading this one:
# one emulator per file and kubectl's config for it; each test needs kubectl; after each,
# the last kubectl output when the test failed, and the background processes it left in
# WATCHERS or WAITERS ended.
setup_file() {
    start_emulator
    kubectl_setup
}

teardown_file() {
    stop_emulator
}

setup() {
    kubectl_require
}

teardown() {
    kc_show_last
    local pid
    for pid in ${WATCHERS:-} ${WAITERS:-}; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}

# For a setup_file over https (load ../lib/tls first): an emulator with a throwaway CA and
# FLAGS..., kubectl's config trusting that CA and sending the bearer token TOKEN (kubectl
# sends no token over plain http, and asks for a user over https without one). Does
# nothing without openssl: the tests then skip in setup_tls.
kubectl_setup_tls() {
    local token=$1 d=$BATS_FILE_TMPDIR ca64
    shift
    command -v openssl >/dev/null || return 0
    make_test_ca "$d"
    start_emulator --tls-cert "$d/srv.pem" --tls-key "$d/srv.key" "$@"
    EMU_URL=https://127.0.0.1:$(cat "$d/port")
    export EMU_URL
    kubectl_setup
    ca64=$(base64 -w0 <"$d/ca.pem")
    sed -i -e "s|^    server: .*|&\n    certificate-authority-data: $ca64|" \
        -e "s|^  user: {}\$|  user: {token: $token}|" "$KC_CONFIG"
    grep -q "token: $token" "$KC_CONFIG"
}

# setup of a suite over https: each test skips, saying why, without openssl.
setup_tls() {
    command -v openssl >/dev/null || skip "openssl is not installed"
    kubectl_require
}
