#!/usr/bin/env bats
# nodus api-resources, api-versions and explain against the emulator: kubectl's tables
# and explain output (compared byte for byte with the real kubectl 1.33 when the
# machine has it), the discovery cache under ~/.nodus/cache/discovery, and explain's
# built-in schemas when no server answers.

load ../lib/common

bats_require_minimum_version 1.5.0

setup_file() {
    start_emulator
    # The real kubectl 1.33 (beside the target of the kubectl on PATH), if any.
    local path
    KC133=
    path=$(command -v kubectl 2>/dev/null || true)
    if [ -n "$path" ] && [ -x "$(dirname "$(readlink -f "$path")")/kubectl.1.33" ]; then
        KC133=$(dirname "$(readlink -f "$path")")/kubectl.1.33
    fi
    mkdir -p "$BATS_FILE_TMPDIR/kc-home"
    export KC133
}

teardown_file() {
    stop_stub
    stop_emulator
}

setup() {
    # A fresh HOME per test: an empty discovery cache, no configuration file.
    export HOME=$BATS_TEST_TMPDIR/home
    mkdir -p "$HOME"
    unset NODUS_CONFIG KUBECONFIG NODUS_TOKEN
    export NODUS_SERVER=$EMU_URL
    CACHE=$HOME/.nodus/cache/discovery/127.0.0.1_${EMU_URL##*:}
}

T=$'\t'

# The emulator's count of requests served (this request included).
requests() {
    curl -sS "$EMU_URL/emulator/v1/stats" | jq -r .requests
}

need_kubectl() {
    [ -n "$KC133" ] || skip "kubectl 1.33 is not installed on this machine (nothing to compare with)"
}

kc() {
    HOME=$BATS_FILE_TMPDIR/kc-home "$KC133" --server "$EMU_URL" \
        --cache-dir "$BATS_FILE_TMPDIR/kc-cache" "$@"
}

# Runs `nodus explain ARGS` and `kubectl explain ARGS` and compares stdout byte for byte.
same_as_kubectl() {
    nodus explain "$@" >"$BATS_TEST_TMPDIR/nodus.out"
    kc explain "$@" >"$BATS_TEST_TMPDIR/kubectl.out"
    diff "$BATS_TEST_TMPDIR/kubectl.out" "$BATS_TEST_TMPDIR/nodus.out"
}

# A stub server whose OpenAPI document has what the emulator's schemas never use: line
# breaks and runs of spaces in descriptions, a word longer than a line, UTF-8, enums of
# numbers, booleans and "", allOf, $ref to a string type and to nothing, maps of
# objects, arrays of arrays, a reference cycle. Prints its port into $1.
write_stub() {
    cat >"$BATS_FILE_TMPDIR/stub.py" <<'PY'
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
G = "test.dev"
gvk = {"group": G, "version": "v1", "kind": "Widget"}
ref = lambda n: {"$ref": "#/components/schemas/dev.test.v1." + n}
desc = ("This   description has  several spaces,\na newline in the middle, and a "
        + "very" * 19 + "longword that does not fit, then \u201cunicode\u201d quotes \u2014 and "
        "dashes \u00e9 \u00e0 \u00fc \u00fcn\u00efc\u00f6d\u00e9 words words words words words "
        "words words words words end.\n\nSecond paragraph after a blank line.  Trailing spaces   ")
schemas = {
  "dev.test.v1.Widget": {"type": "object", "description": desc,
    "x-kubernetes-group-version-kind": [gvk], "required": ["spec", "zeta"], "properties": {
      "spec": ref("WidgetSpec"),
      "zeta": {"type": "string", "enum": ["", "a", "b", "c", "d", "e"]},
      "nums": {"type": "integer", "enum": [1, 2, 1000000, 1.5, 100]},
      "flags": {"type": "boolean", "enum": [True, False]},
      "node": {"allOf": [ref("Node")], "description": "A node, via allOf."},
      "prim": ref("Prim"), "missing": ref("Nope"), "nodesc": {"type": "number"},
      "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
      "byName": {"type": "object", "additionalProperties": {"type": "object",
        "description": "One entry.", "properties": {"x": {"type": "string"}, "y": ref("Node")}}},
      "open": {"type": "object", "additionalProperties": True, "description": "Open map."},
      "Upper": {"type": "string", "description": "Capital first."}}},
  "dev.test.v1.WidgetSpec": {"type": "object", "description": "WidgetSpec is the spec.",
    "properties": {"size": {"type": "integer"},
      "nodes": {"type": "array", "items": ref("Node"), "description": "Nodes."},
      "combo": {"allOf": [ref("Prim"), {"description": "second"}], "description": "combo"}}},
  "dev.test.v1.Node": {"type": "object", "description": "Node is a tree node.", "properties": {
      "children": {"type": "array", "items": ref("Node")}, "value": {"type": "string"}}},
  "dev.test.v1.Prim": {"type": "string", "description": "Prim is a string type."},
}
item = "/apis/test.dev/v1/namespaces/{namespace}/widgets/{name}"
routes = {
  "/api": {"kind": "APIVersions", "versions": ["v1"]},
  "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": []},
  "/apis": {"kind": "APIGroupList", "groups": [{"name": G,
    "versions": [{"groupVersion": G + "/v1", "version": "v1"}],
    "preferredVersion": {"groupVersion": G + "/v1", "version": "v1"}}]},
  "/apis/test.dev/v1": {"kind": "APIResourceList", "groupVersion": G + "/v1", "resources": [
    {"name": "widgets", "singularName": "widget", "namespaced": True, "kind": "Widget",
     "verbs": ["get", "list"], "shortNames": ["wd"]}]},
  "/openapi/v3": {"paths": {"apis/test.dev/v1": {"serverRelativeURL": "/openapi/v3/apis/test.dev/v1?hash=A1"}}},
  "/openapi/v3/apis/test.dev/v1": {"openapi": "3.0.0",
    "paths": {item: {"get": {"x-kubernetes-group-version-kind": gvk}}},
    "components": {"schemas": schemas}},
}
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        body = routes.get(self.path.split("?")[0])
        self.send_response(200 if body else 404)
        b = json.dumps(body or {"kind": "Status", "code": 404, "reason": "NotFound"}).encode()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + ".tmp", "w").write(str(s.server_address[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
}

start_stub() {
    write_stub
    rm -f "$BATS_FILE_TMPDIR/stub.port"
    python3 "$BATS_FILE_TMPDIR/stub.py" "$BATS_FILE_TMPDIR/stub.port" 3>&- &
    echo $! >"$BATS_FILE_TMPDIR/stub.pid"
    wait_until test -s "$BATS_FILE_TMPDIR/stub.port"
    STUB_URL="http://127.0.0.1:$(cat "$BATS_FILE_TMPDIR/stub.port")"
}

stop_stub() {
    [ -s "$BATS_FILE_TMPDIR/stub.pid" ] || return 0
    kill "$(cat "$BATS_FILE_TMPDIR/stub.pid")" 2>/dev/null || true
    rm -f "$BATS_FILE_TMPDIR/stub.pid"
}

@test "api-resources: kubectl's table, sorted by group then name" {
    run -0 --separate-stderr nodus api-resources
    assert_output "NAME                       SHORTNAMES   APIVERSION                 NAMESPACED   KIND
events                     ev           v1                         true         Event
namespaces                 ns           v1                         false        Namespace
selfsubjectreviews                      authentication.k8s.io/v1   false        SelfSubjectReview
selfsubjectaccessreviews                authorization.k8s.io/v1    false        SelfSubjectAccessReview
selfsubjectrulesreviews                 authorization.k8s.io/v1    false        SelfSubjectRulesReview
events                     ev           events.k8s.io/v1           true         Event
budgets                    bgt          nodus.dev/v1               true         Budget
functions                  fn           nodus.dev/v1               true         Function
hosts                                   nodus.dev/v1               true         Host
images                     img          nodus.dev/v1               true         Image
jobs                       nj           nodus.dev/v1               true         Job
pipelines                  pipe         nodus.dev/v1               true         Pipeline
poolactions                pact         nodus.dev/v1               true         PoolAction
pools                      pl           nodus.dev/v1               true         Pool
sandboxes                  sbx          nodus.dev/v1               true         Sandbox
volumes                    vol          nodus.dev/v1               true         Volume"
    assert_equal "$stderr" ""
}

@test "api-resources -o wide: sorted verbs and categories, padded as kubectl pads them" {
    local w='create,delete,deletecollection,get,list,patch,update,watch'
    run -0 --separate-stderr nodus api-resources -o wide --api-group=nodus.dev
    assert_line -n 0 "NAME          SHORTNAMES   APIVERSION     NAMESPACED   KIND         VERBS                                                        CATEGORIES"
    # No category: the VERBS cell is still padded (kubectl's tabwriter).
    assert_line -n 4 "images        img          nodus.dev/v1   true         Image        get,list,watch                                               nodus"
    assert_line -n 5 "jobs          nj           nodus.dev/v1   true         Job          $w   nodus,all"
    assert_line -n 8 "pools         pl           nodus.dev/v1   true         Pool         $w   nodus"
    assert_equal "${#lines[@]}" 11
    run -0 --separate-stderr nodus api-resources -o wide --api-group=
    assert_line -n 1 "events       ev           v1           true         Event       get,list,watch                                               "
    run -0 --separate-stderr nodus api-resources -o wide --api-group=authorization.k8s.io
    assert_line -n 1 "selfsubjectaccessreviews                authorization.k8s.io/v1   false        SelfSubjectAccessReview   create   "
}

@test "api-resources and api-versions match the real kubectl" {
    need_kubectl
    local args
    for args in "" "-o wide" "-o name" "--namespaced=false" "--api-group=" "--sort-by=kind" \
        "--verbs=create,watch --categories=all --no-headers" "--api-group=nope"; do
        # shellcheck disable=SC2086
        diff <(kc api-resources $args) <(nodus api-resources $args)
    done
    diff <(kc api-versions) <(nodus api-versions)
}

@test "api-resources filters: scope, group, verbs, categories, sort order, names" {
    run -0 nodus api-resources --namespaced=false
    assert_output "NAME                       SHORTNAMES   APIVERSION                 NAMESPACED   KIND
namespaces                 ns           v1                         false        Namespace
selfsubjectreviews                      authentication.k8s.io/v1   false        SelfSubjectReview
selfsubjectaccessreviews                authorization.k8s.io/v1    false        SelfSubjectAccessReview
selfsubjectrulesreviews                 authorization.k8s.io/v1    false        SelfSubjectRulesReview"
    run -0 nodus api-resources --api-group= --no-headers
    assert_output "events       ev    v1    true    Event
namespaces   ns    v1    false   Namespace"
    run -0 nodus api-resources --verbs=get,list,watch --verbs=create --categories=all -o name
    assert_output "functions.nodus.dev
jobs.nodus.dev
pipelines.nodus.dev
sandboxes.nodus.dev
volumes.nodus.dev"
    run -0 nodus api-resources --api-group=nodus.dev --sort-by=kind -o name
    assert_line -n 0 budgets.nodus.dev
    assert_line -n 7 poolactions.nodus.dev
    assert_line -n 6 pools.nodus.dev
    # Nothing matches: the header alone, as kubectl.
    run -0 nodus api-resources --api-group=nope
    assert_output "NAME   SHORTNAMES   APIVERSION   NAMESPACED   KIND"
}

@test "api-resources and api-versions: usage errors exit 2" {
    run -2 --separate-stderr nodus api-resources -o json
    assert_equal "$output" ""
    [ "${stderr_lines[0]}" = "error: --output json is not available" ]
    run -2 --separate-stderr nodus api-resources --sort-by=age
    [ "${stderr_lines[0]}" = "error: --sort-by accepts only name or kind" ]
    run -2 --separate-stderr nodus api-versions extra args
    [ "${stderr_lines[0]}" = "error: unexpected arguments: [extra args]" ]
}

@test "api-versions: every group version, sorted" {
    run -0 --separate-stderr nodus api-versions
    assert_output "authentication.k8s.io/v1
authorization.k8s.io/v1
events.k8s.io/v1
nodus.dev/v1
v1"
    assert_equal "$stderr" ""
}

@test "discovery cache: the first api-resources asks four documents and caches them" {
    local before after
    before=$(requests)
    run -0 nodus api-resources
    after=$(requests)
    # /api, /api/v1, /apis, /apis/nodus.dev/v1, /apis/events.k8s.io/v1,
    # /apis/authentication.k8s.io/v1, /apis/authorization.k8s.io/v1, and the stats request
    # of $(requests)
    assert_equal "$((after - before))" 8
    run -0 jq -r '[.etag != null, (.fetched | type), .body.kind] | @tsv' "$CACHE/api.json"
    assert_output "true${T}number${T}APIVersions"
    run -0 jq -r .body.groupVersion "$CACHE/apis_nodus.dev_v1.json"
    assert_output nodus.dev/v1
    [ -f "$CACHE/apis.json" ] && [ -f "$CACHE/api_v1.json" ]
    # The cache is private.
    [ "$(stat -c %a "$CACHE/api.json")" = 600 ]
    [ "$(stat -c %a "$HOME/.nodus/cache")" = 700 ]
}

@test "discovery cache: a second api-resources within 6 hours asks nothing" {
    local before after
    nodus api-resources >/dev/null
    before=$(requests)
    run -0 nodus api-resources
    assert_line -n 11 --regexp '^jobs +nj +nodus\.dev/v1 +true +Job$'
    run -0 nodus api-versions
    run -0 nodus api-resources -o wide
    after=$(requests)
    assert_equal "$((after - before))" 1
}

@test "discovery cache: older than 6 hours is revalidated with If-None-Match; 304 refreshes it" {
    local before after f now
    nodus api-resources >/dev/null
    for f in "$CACHE"/*.json; do
        jq -c '.fetched -= 7 * 3600' "$f" >"$f.new" && mv "$f.new" "$f"
    done
    before=$(requests)
    run -0 --separate-stderr nodus api-resources -v 6
    after=$(requests)
    assert_equal "$((after - before))" 8
    assert_line -n 16 --regexp '^volumes +vol +nodus\.dev/v1 +true +Volume$'
    [ "$(grep -c ' 304 Not Modified in ' <<<"$stderr")" = 7 ]
    now=$(date +%s)
    for f in "$CACHE"/*.json; do
        [ "$(jq -r ".fetched >= $now - 60" "$f")" = true ]
    done
    # --cached takes a stale cache without asking.
    for f in "$CACHE"/*.json; do
        jq -c '.fetched -= 7 * 3600' "$f" >"$f.new" && mv "$f.new" "$f"
    done
    before=$(requests)
    run -0 nodus api-resources --cached -o name
    after=$(requests)
    assert_equal "$((after - before))" 1
    assert_line jobs.nodus.dev
}

@test "discovery cache: a broken cache file is ignored and replaced" {
    nodus api-resources >/dev/null
    printf 'not json{' >"$CACHE/apis_nodus.dev_v1.json"
    printf '{"fetched":"yesterday","body":{}}' >"$CACHE/api.json"
    run -0 --separate-stderr nodus api-resources -o name
    assert_line jobs.nodus.dev
    assert_line namespaces
    assert_equal "$stderr" ""
    run -0 jq -r .body.groupVersion "$CACHE/apis_nodus.dev_v1.json"
    assert_output nodus.dev/v1
    run -0 jq -r '.fetched | type' "$CACHE/api.json"
    assert_output number
}

@test "discovery cache: without a usable HOME there is no cache and no error" {
    HOME=$BATS_TEST_TMPDIR/missing run -0 --separate-stderr nodus api-versions
    assert_output "authentication.k8s.io/v1
authorization.k8s.io/v1
events.k8s.io/v1
nodus.dev/v1
v1"
    assert_equal "$stderr" ""
    [ ! -e "$BATS_TEST_TMPDIR/missing" ]
    # (without HOME the configuration file must be named)
    run -0 --separate-stderr env -u HOME NODUS_CONFIG="$BATS_TEST_TMPDIR/none" \
        "$ND_BIN_DIR/nodus" api-resources -o name
    assert_line jobs.nodus.dev
    assert_equal "$stderr" ""
    # A HOME that cannot be written: every call asks, nothing fails.
    mkdir -p "$BATS_TEST_TMPDIR/ro"
    chmod 500 "$BATS_TEST_TMPDIR/ro"
    HOME=$BATS_TEST_TMPDIR/ro run -0 --separate-stderr nodus api-versions
    chmod 700 "$BATS_TEST_TMPDIR/ro"
    assert_equal "$stderr" ""
}

@test "explain jobs.spec.state: the FIELD line, its enum and the wrapped description" {
    run -0 --separate-stderr nodus explain jobs.spec.state
    assert_output "GROUP:      nodus.dev
KIND:       Job
VERSION:    v1

FIELD: state <string>
ENUM:
    Running
    Suspended
    Cancelled

DESCRIPTION:
    State is Running (the default), Suspended (back to Queued, no cost accrues,
    the Job resumes when set to Running again) or Cancelled (stops the Job for
    good). Once the Job has finished its state can no longer change.
    "
    assert_equal "$stderr" ""
}

@test "explain pools.spec.act --recursive: the tree, short enums, no descriptions" {
    run -0 nodus explain pools.spec.act --recursive
    assert_output "GROUP:      nodus.dev
KIND:       Pool
VERSION:    v1

FIELD: act <Object>


DESCRIPTION:
    PoolAct configures the Act tier.
    
FIELDS:
  mode${T}<string>
  enum: Off, Shadow, Propose, Auto
  paused${T}<boolean>
  policies${T}<[]Object>
    action${T}<string> -required-
    enum: IdleReclaim, Drain, Defragment, WaitTuning, ....
    duration${T}<string>
    idleFor${T}<string>
    maxGPUs${T}<integer>
    maxRateUSDPerHour${T}<string>
    maxWaitTimeout${T}<string>
    minWaitTimeout${T}<string>
    schedule${T}<string>"
}

@test "explain jobs: kinds, required fields, references shown by their name" {
    run -0 nodus explain jobs
    assert_line -n 0 "GROUP:      nodus.dev"
    assert_line "  metadata${T}<ObjectMeta>"
    assert_line "  spec${T}<Object> -required-"
    assert_line "    JobSpec is what the Job runs and what it may spend."
    run -0 nodus explain jobs.metadata.labels
    assert_line "FIELD: labels <map[string]string>"
}

@test "explain is byte-identical to kubectl 1.33: jobs, jobs.spec, pools.spec.routing, pools.spec.act --recursive" {
    need_kubectl
    same_as_kubectl jobs
    same_as_kubectl jobs.spec
    same_as_kubectl pools.spec.routing
    same_as_kubectl pools.spec.act --recursive
    same_as_kubectl jobs --recursive
    same_as_kubectl namespaces
    same_as_kubectl sandboxes.spec.ports
}

@test "explain renders what the emulator's schemas never use as kubectl does (a stub server)" {
    command -v python3 >/dev/null || skip "python3 is not installed (it runs the stub server)"
    start_stub
    export NODUS_SERVER=$STUB_URL
    run -0 --separate-stderr nodus explain widgets
    assert_line -n 3 "DESCRIPTION:"
    # go-wordwrap: breaks kept, spaces kept inside lines, a long word on its own line,
    # widths counted in characters (not bytes), trailing spaces kept. (bats' lines
    # leaves empty lines out.)
    assert_line -n 4 "    This   description has  several spaces,"
    assert_line -n 5 "    a newline in the middle, and a"
    assert_line -n 6 "    veryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryverylongword"
    assert_line -n 7 "    that does not fit, then “unicode” quotes — and dashes é à ü ünïcödé words"
    assert_line -n 9 "    "
    assert_line -n 10 "    Second paragraph after a blank line.  Trailing spaces   "
    assert_line "  Upper${T}<string>"
    assert_line "  byName${T}<map[string]Object>"
    assert_line "  grid${T}<[][]integer>"
    assert_line "  missing${T}<Nope>"
    assert_line "  node${T}<Node>"
    assert_line "  prim${T}<string>"
    assert_line "  nums${T}<integer>"
    assert_line "  enum: 1, 2, 1e+06, 1.5, ...."
    assert_line "  enum: true, false"
    assert_line "  zeta${T}<string> -required-"
    assert_line '  enum: "", a, b, c, ....'
    assert_line "    <no description>"
    run -0 nodus explain wd.spec --recursive
    assert_output "GROUP:      test.dev
KIND:       Widget
VERSION:    v1

FIELD: spec <WidgetSpec>


DESCRIPTION:
    WidgetSpec is the spec.
    
FIELDS:
  combo${T}<Object>
  nodes${T}<[]Node>
    children${T}<[]Node>
    value${T}<string>
  size${T}<integer>"
    run -2 --separate-stderr nodus explain widgets.open.x
    [ "$stderr" = 'error: field "x" does not exist' ]
    if [ -n "$KC133" ]; then
        local p
        for p in widgets widgets.spec widgets.node widgets.byName; do
            diff <(HOME=$BATS_FILE_TMPDIR/kc-home "$KC133" --server "$STUB_URL" \
                --cache-dir "$BATS_FILE_TMPDIR/kc-cache-stub" explain "$p") \
                <(nodus explain "$p")
            diff <(HOME=$BATS_FILE_TMPDIR/kc-home "$KC133" --server "$STUB_URL" \
                --cache-dir "$BATS_FILE_TMPDIR/kc-cache-stub" explain "$p" --recursive) \
                <(nodus explain "$p" --recursive)
        done
    fi
    stop_stub
}

@test "explain finds kinds as kubectl does: short name, Kind, kind.group, --api-version" {
    local want
    want=$(nodus explain jobs.spec.image)
    run -0 nodus explain nj.spec.image
    assert_output "$want"
    run -0 nodus explain Job.spec.image
    assert_output "$want"
    run -0 nodus explain jobs.nodus.dev.spec.image
    assert_output "$want"
    run -0 nodus explain jobs.spec.image --api-version=nodus.dev/v1
    assert_output "$want"
    run -0 nodus explain projects
    assert_line -n 0 "KIND:       Namespace"
}

@test "explain: unknown fields and kinds are errors (exit 2, nothing on stdout)" {
    run -2 --separate-stderr nodus explain jobs.spec.nope
    assert_equal "$output" ""
    [ "$stderr" = 'error: field "nope" does not exist' ]
    # As kubectl: the last name of the path is the one named.
    run -2 --separate-stderr nodus explain jobs.nope.deeper
    [ "$stderr" = 'error: field "deeper" does not exist' ]
    run -2 --separate-stderr nodus explain nope.spec
    [ "${stderr_lines[0]}" = 'error: the server doesn'"'"'t have a resource type "nope"' ]
    run -2 --separate-stderr nodus explain jobs --api-version=v2
    [ "${stderr_lines[0]}" = 'error: couldn'"'"'t find resource for "/v2, Resource=jobs"' ]
    run -2 --separate-stderr nodus explain jobs --api-version=v1
    [ "${stderr_lines[0]}" = 'error: GVR (/v1, Resource=jobs) not found in OpenAPI schema' ]
    run -2 --separate-stderr nodus explain
    [ "${stderr_lines[0]}" = 'error: You must specify the type of resource to explain. Use "nodus api-resources" for a complete list of supported resources.' ]
    run -2 --separate-stderr nodus explain jobs pools
    [ "${stderr_lines[0]}" = 'error: We accept only this format: explain RESOURCE' ]
}

@test "explain: a misspelt field names the fields it may have meant" {
    run -2 --separate-stderr nodus explain job.spec.resourcez
    assert_equal "$output" ""
    assert_equal "$stderr" 'error: field "resourcez" does not exist
fix: did you mean resources? list the fields: nodus explain jobs.spec'
    run -2 --separate-stderr nodus explain jobs.spec.resources.gpu.modle
    assert_equal "${stderr_lines[1]}" \
        'fix: did you mean model? list the fields: nodus explain jobs.spec.resources.gpu'
}

@test "explain uses the discovery cache: a second explain asks nothing" {
    local before after
    nodus explain jobs.spec >/dev/null
    ls "$CACHE" | grep -q '^openapi_v3_apis_nodus\.dev_v1%3Fhash%3D[0-9A-F]*\.json$'
    before=$(requests)
    run -0 nodus explain pools.spec --recursive
    assert_line "  routing${T}<Object>"
    after=$(requests)
    assert_equal "$((after - before))" 1
}

@test "explain without any server configured uses the built-in schemas" {
    local want
    want=$(nodus explain pools.spec.routing)
    unset NODUS_SERVER
    run -0 --separate-stderr nodus explain pools.spec.routing
    assert_output "$want"
    assert_equal "$stderr" ""
    # A context that does not exist is a configuration error, not "no server".
    run -2 --separate-stderr nodus explain pools.spec.routing --context nope
    assert_equal "$output" ""
    [ "${stderr_lines[0]}" = 'error: context "nope" does not exist' ]
    # So is a broken configuration file.
    mkdir -p "$HOME/.nodus"
    printf 'contexts: {\n' >"$HOME/.nodus/config"
    run -2 --separate-stderr nodus explain jobs
    assert_regex "${stderr_lines[0]}" '^error: error loading config file ".*/\.nodus/config": '
}

# Last: it stops the emulator of this file.
@test "explain with the emulator stopped uses the built-in schemas, fast and quietly" {
    local path want
    for path in jobs jobs.spec pools.spec.routing "pools.spec.act --recursive" namespaces; do
        # shellcheck disable=SC2086
        nodus explain $path >"$BATS_TEST_TMPDIR/online.${path// /_}"
    done
    stop_emulator
    export HOME=$BATS_TEST_TMPDIR/home2
    mkdir -p "$HOME"
    for path in jobs jobs.spec pools.spec.routing "pools.spec.act --recursive" namespaces; do
        # shellcheck disable=SC2086
        run -0 --separate-stderr nodus explain $path
        want=$(cat "$BATS_TEST_TMPDIR/online.${path// /_}")
        assert_output "$want"
        assert_equal "$stderr" ""
    done
    run -2 --separate-stderr nodus explain jobs.spec.nope
    [ "$stderr" = 'error: field "nope" does not exist' ]
    # api-resources needs the server: its error, exit 7.
    run -7 --separate-stderr nodus api-resources
    assert_equal "$output" ""
}
