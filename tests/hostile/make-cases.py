# Writes tests/hostile/cases/ (the corpus was made with it; the .http files are what counts:
# edit them directly, or edit this and run it again, which rewrites every case):
#   python3 tests/hostile/make-cases.py tests/hostile/cases
# Expectations are today's answers where the rules of issue 9 say nothing (PIN below), and
# the hardened answers otherwise (the cases that fail today are listed in PENDING).
import os, sys, json
OUT = sys.argv[1]
NS = "/apis/nodus.dev/v1/namespaces/default"
cases = []

def case(group, name, expect, text, extra=()):
    cases.append((group, name, expect, text, list(extra)))

def req(method, path, body=None, token="WRITE", ct="application/json", headers=(), version="HTTP/1.1",
        host="{{HOST}}"):
    lines = ["%s %s %s" % (method, path, version)]
    if host is not None:
        lines.append("Host: " + host)
    if token:
        lines.append("Authorization: Bearer {{TOKEN_%s}}" % token)
    lines.extend(headers)
    if body is not None:
        if ct:
            lines.append("Content-Type: " + ct)
        lines.append("Content-Length: {{LEN}}")
        return "\n".join(lines) + "\n\n" + body + "\n"
    return "\n".join(lines) + "\n\n"

def job(name="hostile-x", **over):
    o = {"apiVersion": "nodus.dev/v1", "kind": "Job", "metadata": {"name": name},
         "spec": {"image": "nodus/pytorch:2.8-cuda12.8", "command": ["python", "train.py"],
                  "maxCostUSD": "40.00"}}
    o.update(over)
    return json.dumps(o)

JOBS = NS + "/jobs"
# ---------------- 01-json: bodies that are not JSON objects ----------------
G = "01-json"
for name, body in [
    ("empty-object-truncated", "{"), ("array-truncated", "[1,2"), ("garbage", "nul"),
    ("trailing-garbage", "{}x"), ("string", '"x"'), ("number", "42"), ("array", "[]"),
    ("null", "null"), ("true", "true"), ("unterminated-string", '{"apiVersion":"nodus.dev/v1'),
    ("single-quotes", "{'apiVersion':'nodus.dev/v1'}"), ("trailing-comma", '{"a":1,}'),
    ("comment", '/* c */ {}'), ("nan", '{"a":NaN}'), ("infinity", '{"a":Infinity}'),
    ("huge-exponent", '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"e"},"spec":{"parallelism":1e999999}}'),
    ("bare-key", '{apiVersion:"nodus.dev/v1"}'), ("lone-surrogate", '{"a":"\\ud800"}'),
    ("escaped-nul", '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"a\\u0000b"}}'),
    ("bad-escape", '{"a":"\\q"}'), ("whitespace-only", "   \t  "),
    ("two-documents", '{} {}'), ("leading-plus", '{"a":+1}'), ("hex-number", '{"a":0x10}'),
]:
    case(G, name, "400 BadRequest", req("POST", JOBS, body))
case(G, "empty-body", "400 BadRequest", req("POST", JOBS, ""))
case(G, "invalid-utf8", "400 BadRequest", req("POST", JOBS, '{"apiVersion":"{{HEX c3 28 ff fe}}"}'))
case(G, "raw-control-char", "400 BadRequest", req("POST", JOBS, '{"a":"x{{HEX 01}}y"}'))
case(G, "nul-byte-raw", "400 BadRequest", req("POST", JOBS, '{"a":1}{{HEX 00}}'))
case(G, "bom-then-object", "400 BadRequest", req("POST", JOBS, '{{HEX ef bb bf}}' + job()))
case(G, "nested-arrays-100k", "400 BadRequest", req("POST", JOBS, "{{REPEAT '[' 100000}}{{REPEAT ']' 100000}}"))
case(G, "nested-objects-50k", "400 BadRequest", req("POST", JOBS, "{{REPEAT '{\"a\":' 50000}}1{{REPEAT '}' 50000}}"))
case(G, "nested-in-spec-5k", "400 BadRequest", req("POST", JOBS,
     '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"deep"},"spec":{"x":' +
     "{{REPEAT '[' 5000}}{{REPEAT ']' 5000}}}}"))
case(G, "nested-unclosed-1m", "400 BadRequest", req("POST", JOBS, "{{REPEAT '[' 1000000}}"))
case(G, "body-over-3mib", "413 RequestEntityTooLarge",
     req("POST", JOBS, '{"a":"' + "{{REPEAT 'a' 3200000}}" + '"}'))
case(G, "content-length-4mib-announced", "413 RequestEntityTooLarge",
     "POST %s HTTP/1.1\nHost: {{HOST}}\nAuthorization: Bearer {{TOKEN_WRITE}}\nContent-Type: application/json\nContent-Length: 4194304\n\n{}\n" % JOBS)
case(G, "content-length-1e30", "413 RequestEntityTooLarge",
     "POST %s HTTP/1.1\nHost: {{HOST}}\nAuthorization: Bearer {{TOKEN_WRITE}}\nContent-Type: application/json\nContent-Length: 1000000000000000000000000000000\n\n{}\n" % JOBS)
case(G, "kind-mismatch", "400 BadRequest", req("POST", JOBS, job(kind="Volume")))
case(G, "apiversion-mismatch", "400 BadRequest", req("POST", JOBS, job(apiVersion="evil.dev/v9")))
case(G, "metadata-string", "400 BadRequest", req("POST", JOBS, job(metadata="x")))
case(G, "spec-string", "422 Invalid", req("POST", JOBS, job(spec="x")))
case(G, "spec-missing", "422 Invalid", req("POST", JOBS, json.dumps({"apiVersion": "nodus.dev/v1", "kind": "Job", "metadata": {"name": "nospec"}})))
case(G, "namespace-mismatch", "400 BadRequest", req("POST", JOBS, job(metadata={"name": "x", "namespace": "nodus"})))
case(G, "labels-not-strings", "422 Invalid", req("POST", JOBS, job(metadata={"name": "x", "labels": {"a": 1}})))
case(G, "label-value-bad", "422 Invalid", req("POST", JOBS, job(metadata={"name": "x", "labels": {"a": "../../x"}})))
case(G, "label-key-bad", "422 Invalid", req("POST", JOBS, job(metadata={"name": "x", "labels": {"/../a": "b"}})))
case(G, "annotations-array", "422 Invalid", req("POST", JOBS, job(metadata={"name": "x", "annotations": ["a"]})))
case(G, "command-not-array", "422 Invalid", req("POST", JOBS, job(spec={"image": "nodus/pytorch:2.8-cuda12.8", "command": "rm -rf /", "maxCostUSD": "1.00"})))
case(G, "maxcost-negative", "422 Invalid", req("POST", JOBS, job(spec={"image": "nodus/pytorch:2.8-cuda12.8", "command": ["x"], "maxCostUSD": "-1.00"})))
case(G, "maxcost-huge", "422 Invalid", req("POST", JOBS, job(spec={"image": "nodus/pytorch:2.8-cuda12.8", "command": ["x"], "maxCostUSD": "1e400"})))

# ---------------- 02-yaml ----------------
G = "02-yaml"
Y = "application/yaml"
bomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\n" + "".join(
    "%s: &%s [%s]\n" % (chr(98 + i), chr(98 + i), ",".join(["*" + chr(97 + i)] * 10)) for i in range(8))
for name, body, exp in [
    ("alias-bomb", bomb, "400 BadRequest"),
    ("alias-bomb-in-spec", "apiVersion: nodus.dev/v1\nkind: Job\nmetadata: {name: bomb}\nspec:\n  a: &a [x,x,x,x,x,x,x,x,x,x]\n  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n  g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n  h: [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]\n", "400 BadRequest"),
    ("alias-undefined", "a: *nope\n", "400 BadRequest"),
    ("alias-self", "a: &a [*a]\n", "400 BadRequest"),
    ("tab-indent", "apiVersion: nodus.dev/v1\nmetadata:\n\tname: x\n", "400 BadRequest"),
    ("unclosed-flow", "a: [1, 2\n", "400 BadRequest"),
    ("unclosed-quote", "a: \"x\n", "400 BadRequest"),
    ("bad-indent", "a:\n  b: 1\n c: 2\n", "400 BadRequest"),
    ("two-documents", job() + "\n---\n" + job("hostile-y") + "\n", "400 BadRequest"),
    ("scalar-document", "just a string\n", "400 BadRequest"),
    ("sequence-document", "- a\n- b\n", "400 BadRequest"),
    ("empty-document", "---\n...\n", "400 BadRequest"),
    ("nested-flow-50k", "{{REPEAT '[' 50000}}{{REPEAT ']' 50000}}\n", "400 BadRequest"),
    ("nested-block-maps", "".join("%sk:\n" % (" " * i) for i in range(500)) + " " * 500 + "v\n", "400 BadRequest"),
    ("python-tag", "!!python/object/apply:os.system ['touch /tmp/hostile-escape-yaml']\n", "400 BadRequest"),
    ("yaml-directive-future", "%YAML 9.9\n---\na: 1\n", "400 BadRequest"),
    ("invalid-utf8", "a: {{HEX c3 28 ff}}\n", "400 BadRequest"),
    ("merge-key-loop", "a: &a\n  <<: *a\n", "400 BadRequest"),
    ("control-char", "a: b{{HEX 07}}c\n", "400 BadRequest"),
    ("complex-key", "? [a, b]\n: c\n", "400 BadRequest"),
]:
    case(G, name, exp, req("POST", JOBS, body, ct=Y))
case(G, "yaml-on-patch-merge", "400 BadRequest", req("PATCH", JOBS + "/job1", "a: [\n", ct="application/merge-patch+json"))
case(G, "apply-alias-bomb", "400 BadRequest", req("PATCH", JOBS + "/job1?fieldManager=h", bomb, ct="application/apply-patch+yaml"))
case(G, "apply-garbage", "400 BadRequest", req("PATCH", JOBS + "/job1?fieldManager=h", "a: [\n", ct="application/apply-patch+yaml"))

# ---------------- 03-names ----------------
G = "03-names"
for name, bad in [("dotdot", ".."), ("dot", "."), ("slash", "a/b"), ("dotdot-slash", "../x"),
                  ("pct-dotdot", "%2e%2e"), ("uppercase", "Job1"), ("len-254", "a" * 254),
                  ("len-64", "a" * 64), ("leading-dash", "-a"), ("trailing-dash", "a-"),
                  ("underscore", "a_b"), ("dotted", "a.b"), ("empty", ""), ("unicode", "j\u00f6b"),
                  ("newline", "a\nb"), ("space", "a b"), ("backslash", "a\\b"),
                  ("nul", "a\u0000b"), ("tilde", "~root"), ("absolute", "/etc/passwd")]:
    case(G, "create-" + name, "422 Invalid", req("POST", JOBS, job(bad)))
case(G, "create-generatename-dotdot", "422 Invalid", req("POST", JOBS, json.dumps(
    {"apiVersion": "nodus.dev/v1", "kind": "Job", "metadata": {"generateName": "../"},
     "spec": {"image": "nodus/pytorch:2.8-cuda12.8", "command": ["x"], "maxCostUSD": "1.00"}}),
    headers=["Idempotency-Key: hostile-gen-dotdot"]))
for name, path in [("dotdot", ".."), ("pct-dotdot", "%2e%2e"), ("pct-slash", "a%2fb"),
                   ("uppercase", "JOB1"), ("len-254", "a" * 254), ("pct-nul", "a%00b"),
                   ("dotdot-pricebook", "..%2f..%2f..%2fpricebook"), ("dot", ".")]:
    for m in ("GET", "DELETE"):
        case(G, "%s-%s" % (m.lower(), name), "404 NotFound", req(m, JOBS + "/" + path))
    case(G, "put-" + name, "400 BadRequest", req("PUT", JOBS + "/" + path, job("job1")))
    case(G, "patch-" + name, "404 NotFound", req("PATCH", JOBS + "/" + path, '{"metadata":{"labels":{"a":"b"}}}', ct="application/merge-patch+json"))
case(G, "create-namespace-dotdot", "422 Invalid", req("POST", "/api/v1/namespaces", '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":".."}}', token="ADMIN"))
case(G, "create-namespace-upper", "422 Invalid", req("POST", "/api/v1/namespaces", '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ETC"}}', token="ADMIN"))
case(G, "ns-dotdot-list", "404 NotFound", req("GET", "/apis/nodus.dev/v1/namespaces/../jobs"))
case(G, "ns-pct-dotdot-create", "404 NotFound", req("POST", "/apis/nodus.dev/v1/namespaces/%2e%2e/jobs", job()))
case(G, "ns-upper-create", "404 NotFound", req("POST", "/apis/nodus.dev/v1/namespaces/DEFAULT/jobs", job()))
case(G, "ns-missing-create", "404 NotFound", req("POST", "/apis/nodus.dev/v1/namespaces/ghost/jobs", job()))

# ---------------- 04-urls ----------------
G = "04-urls"
for name, path, exp in [
    ("traversal-etc", "/apis/nodus.dev/v1/namespaces/../../etc", "404 NotFound"),
    ("traversal-passwd", JOBS + "/job1/../../../../../../etc/passwd", "404 NotFound"),
    ("root-traversal", "/../../etc/passwd", "404 NotFound"),
    ("pct-traversal", "/%2e%2e/%2e%2e/etc/passwd", "404 NotFound"),
    ("docs-traversal", "/docs/../../../etc/passwd", "404 NotFound"),
    ("docs-pct-traversal", "/docs/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "404 NotFound"),
    ("docs-absolute", "/docs//etc/passwd", "404 NotFound"),
    ("pct-slash-name", JOBS + "%2fjob1", "404 NotFound"),
    ("double-slash", "//apis//nodus.dev//v1//namespaces//default//jobs", "404 NotFound"),
    ("version-v2", "/apis/nodus.dev/v2/namespaces/default/jobs", "404 NotFound"),
    ("other-group", "/apis/evil.dev/v1/namespaces/default/jobs", "404 NotFound"),
    ("unknown-kind", NS + "/widgets", "404 NotFound"),
    ("unknown-kind-object", NS + "/widgets/w", "404 NotFound"),
    ("core-secrets", "/api/v1/secrets", "404 NotFound"),
    ("core-ns-secrets", "/api/v1/namespaces/default/secrets", "404 NotFound"),
    ("unknown-subresource", JOBS + "/job1/bogus", "404 NotFound"),
    ("deep-path", JOBS + "/job1/status/x/y/z", "404 NotFound"),
    ("pct-nul", JOBS + "/job1%00", "404 NotFound"),
    ("state-file", "/objects/default/jobs/job1.json", "404 NotFound"),
    ("pricebook-file", "/pricebook.json", "404 NotFound"),
    ("emulator-unknown", "/emulator/v1/../../etc/passwd", "404 NotFound"),
    ("emulator-snapshot-traversal", "/emulator/v1/snapshots/..%2f..%2fetc", "404 NotFound"),
    ("openapi-traversal", "/openapi/v3/../../etc/passwd", "404 NotFound"),
    ("backslash", "/apis\\nodus.dev\\v1", "404 NotFound"),
    ("fragment", JOBS + "#frag", "200"),
]:
    case(G, name, exp, req("GET", path, token="ADMIN"))
case(G, "absolute-form-target", "200", req("GET", "http://evil.example" + JOBS, token="ADMIN"))
case(G, "url-57k", "414 RequestURITooLong", req("GET", JOBS + "?x={{REPEAT 'a' 57000}}", token="ADMIN"))
case(G, "url-path-57k", "414 RequestURITooLong", req("GET", JOBS + "/{{REPEAT 'a' 57000}}", token="ADMIN"))
case(G, "snapshot-name-dotdot", "400 BadRequest", req("POST", "/emulator/v1/snapshots/..", "{}", token="ADMIN"))
case(G, "snapshot-restore-dotdot", "400 BadRequest", req("POST", "/emulator/v1/snapshots/%2e%2e/restore", "{}", token="ADMIN"))

# ---------------- 05-methods ----------------
G = "05-methods"
for name, m, path, exp in [
    ("delete-api-v1", "DELETE", "/api/v1", "405 MethodNotAllowed"),
    ("put-collection", "PUT", JOBS, "405 MethodNotAllowed"),
    ("post-object", "POST", JOBS + "/job1", "405 MethodNotAllowed"),
    ("patch-collection", "PATCH", JOBS, "405 MethodNotAllowed"),
    ("trace", "TRACE", JOBS, "405 MethodNotAllowed"),
    ("options", "OPTIONS", JOBS, "405 MethodNotAllowed"),
    ("custom-method", "FROB", JOBS, "405 MethodNotAllowed"),
    ("lowercase-get", "get", JOBS, "405 MethodNotAllowed"),
    ("post-version", "POST", "/version", "405 MethodNotAllowed"),
    ("delete-clock", "DELETE", "/emulator/v1/clock", "405 MethodNotAllowed"),
    ("post-log", "POST", JOBS + "/job1/log", "405 MethodNotAllowed"),
    ("delete-files", "DELETE", NS + "/volumes/vol1/files?path=/work", "405 MethodNotAllowed"),
    ("delete-exec", "DELETE", NS + "/sandboxes/exec1/exec", "405 MethodNotAllowed"),
    ("post-status", "POST", JOBS + "/job1/status", "405 MethodNotAllowed"),
    ("delete-status", "DELETE", JOBS + "/job1/status", "405 MethodNotAllowed"),
    ("put-apis", "PUT", "/apis", "405 MethodNotAllowed"),
    ("post-openapi", "POST", "/openapi/v2", "405 MethodNotAllowed"),
    ("delete-pricebook", "DELETE", "/emulator/v1/pricebook", "405 MethodNotAllowed"),
    ("put-stats", "PUT", "/emulator/v1/stats", "405 MethodNotAllowed"),
    ("delete-events", "DELETE", "/api/v1/namespaces/default/events", "405 MethodNotAllowed"),
    ("post-events", "POST", "/api/v1/namespaces/default/events", "405 MethodNotAllowed"),
]:
    case(G, name, exp, req(m, path, "{}" if m in ("POST", "PUT", "PATCH") else None, token="ADMIN",
                           ct="application/merge-patch+json" if m == "PATCH" else "application/json"))
case(G, "head-job", "200", req("HEAD", JOBS + "/job1", token="READ"), ["# body-bytes 0"])
case(G, "head-list", "200", req("HEAD", JOBS, token="READ"), ["# body-bytes 0"])
case(G, "head-no-token", "401 Unauthorized", req("HEAD", JOBS, token=None), ["# body-bytes 0"])
case(G, "connect", "405 MethodNotAllowed", "CONNECT evil.example:443 HTTP/1.1\nHost: evil.example:443\nAuthorization: Bearer {{TOKEN_ADMIN}}\n\n")

# ---------------- 06-query ----------------
G = "06-query"
for name, path, m, exp in [
    ("dryrun-bogus", JOBS + "?dryRun=Bogus", "POST", "400 BadRequest"),
    ("dryrun-empty-value", JOBS + "?dryRun=", "POST", "400 BadRequest"),
    ("fieldvalidation-bogus", JOBS + "?fieldValidation=Lenient", "POST", "400 BadRequest"),
    ("label-in-empty", JOBS + "?labelSelector=a%20in%20()", "GET", "400 BadRequest"),
    ("label-neq-empty", JOBS + "?labelSelector=a!%3D", "GET", "400 BadRequest"),
    ("label-bang-bang", JOBS + "?labelSelector=!!a", "GET", "400 BadRequest"),
    ("label-open-paren", JOBS + "?labelSelector=a%20in%20(b", "GET", "400 BadRequest"),
    ("label-bad-key", JOBS + "?labelSelector=..%2F..%3Db", "GET", "400 BadRequest"),
    ("label-nul", JOBS + "?labelSelector=a%00%3Db", "GET", "400 BadRequest"),
    ("label-huge-set", JOBS + "?labelSelector=a%20in%20({{REPEAT 'x,' 20000}}x)", "GET", "400 BadRequest"),
    ("field-comma", JOBS + "?fieldSelector=,", "GET", "400 BadRequest"),
    ("field-unknown", JOBS + "?fieldSelector=spec.secret%3Dx", "GET", "400 BadRequest"),
    ("field-no-op", JOBS + "?fieldSelector=metadata.name", "GET", "400 BadRequest"),
    ("rv-abc", JOBS + "?resourceVersion=abc", "GET", "400 BadRequest"),
    ("rv-negative", JOBS + "?resourceVersion=-1", "GET", "400 BadRequest"),
    ("rv-overflow", JOBS + "?resourceVersion=999999999999999999999999", "GET", "400 BadRequest"),
    ("continue-nul", JOBS + "?continue=%00", "GET", "400 BadRequest"),
    ("continue-garbage", JOBS + "?continue=%ff%fe", "GET", "400 BadRequest"),
    ("continue-traversal", JOBS + "?continue=..%2F..%2Fetc", "GET", "400 BadRequest"),
    ("limit-negative", JOBS + "?limit=-1", "GET", "400 BadRequest"),
    ("limit-abc", JOBS + "?limit=abc", "GET", "400 BadRequest"),
    ("limit-overflow", JOBS + "?limit=99999999999999999999", "GET", "400 BadRequest"),
    ("watch-maybe", JOBS + "?watch=maybe", "GET", "400 BadRequest"),
    ("timeout-negative", JOBS + "?watch=true&timeoutSeconds=-5", "GET", "400 BadRequest"),
    ("timeout-abc", JOBS + "?watch=true&timeoutSeconds=abc", "GET", "400 BadRequest"),
    ("watch-rv-abc", JOBS + "?watch=true&resourceVersion=abc", "GET", "400 BadRequest"),
    ("log-taillines-abc", JOBS + "/job1/log?tailLines=abc", "GET", "400 BadRequest"),
    ("log-limitbytes-negative", JOBS + "/job1/log?limitBytes=-1", "GET", "400 BadRequest"),
    ("log-sinceseconds-abc", JOBS + "/job1/log?sinceSeconds=abc", "GET", "400 BadRequest"),
    ("log-sincetime-garbage", JOBS + "/job1/log?sinceTime=yesterday", "GET", "400 BadRequest"),
    ("log-follow-maybe", JOBS + "/job1/log?follow=maybe", "GET", "400 BadRequest"),
    ("delete-propagation-bogus", JOBS + "/job1?propagationPolicy=Evil", "DELETE", "400 BadRequest"),
    ("delete-grace-abc", JOBS + "/job1?gracePeriodSeconds=abc", "DELETE", "400 BadRequest"),
    ("delete-dryrun-bogus", JOBS + "/job1?dryRun=Nope", "DELETE", "400 BadRequest"),
    ("deletecollection-label-bad", JOBS + "?labelSelector=a%20in%20()", "DELETE", "400 BadRequest"),
    ("deletecollection-field-bad", JOBS + "?fieldSelector=,", "DELETE", "400 BadRequest"),
    ("deletecollection-label-neq-empty", JOBS + "?labelSelector=a!%3D", "DELETE", "400 BadRequest"),
    ("deletecollection-rv-abc", JOBS + "?resourceVersion=abc", "DELETE", "400 BadRequest"),
    ("files-path-5000-get", NS + "/volumes/vol1/files?path=/{{REPEAT 'a' 5000}}", "GET", "400 BadRequest"),
    ("files-path-relative", NS + "/volumes/vol1/files?path=work", "GET", "400 BadRequest"),
    ("files-path-dotdot", NS + "/volumes/vol1/files?path=/work/../../../etc", "GET", "400 BadRequest"),
    ("files-path-nul", NS + "/volumes/vol1/files?path=/work%00/x", "GET", "400 BadRequest"),
    ("files-path-missing", NS + "/volumes/vol1/files", "GET", "400 BadRequest"),
    ("files-path-pct-dotdot", NS + "/volumes/vol1/files?path=/%2e%2e/%2e%2e", "GET", "400 BadRequest"),
    ("query-bad-escape", JOBS + "?limit=%zz", "GET", "400 BadRequest"),
    ("query-nonutf8-label", JOBS + "?labelSelector=a%3D%ff", "GET", "400 BadRequest"),
    ("patch-fieldmanager-huge", JOBS + "/job1?fieldManager={{REPEAT 'm' 200}}", "PATCH", "400 BadRequest"),
    ("apply-no-fieldmanager", JOBS + "/job1", "APPLY", "400 BadRequest"),
]:
    if m == "POST":
        r = req("POST", path, job())
    elif m == "PATCH":
        r = req("PATCH", path, '{"metadata":{"labels":{"a":"b"}}}', ct="application/merge-patch+json")
    elif m == "APPLY":
        r = req("PATCH", path, '{"apiVersion":"nodus.dev/v1","kind":"Job","metadata":{"name":"job1"}}', ct="application/apply-patch+yaml", headers=["User-Agent:"])
    else:
        r = req(m, path, token="ADMIN" if m == "DELETE" else "READ")
    case(G, name, exp, r)
for name, q in [("files-path-5000-put", "path=/{{REPEAT 'a' 5000}}"), ("files-put-path-dotdot", "path=/../../x"),
                ("files-put-path-relative", "path=x"), ("files-put-path-nul", "path=/x%00y"),
                ("files-put-path-pct-dotdot", "path=/%2e%2e/%2e%2e/hostile-escape")]:
    case(G, name, "400 BadRequest", req("PUT", NS + "/volumes/vol1/files?" + q, "{{BINFILE tars/good.tar}}", ct="application/x-tar"))

# ---------------- 07-content-types ----------------
G = "07-content-types"
for name, ct in [("text-plain", "text/plain"), ("form", "application/x-www-form-urlencoded"),
                 ("multipart", "multipart/form-data; boundary=x"), ("text-plain-charset", "text/plain;charset=UTF-8")]:
    case(G, "post-" + name, "415 UnsupportedMediaType", req("POST", JOBS, job("hostile-ct"), ct=ct))
    case(G, "put-" + name, "415 UnsupportedMediaType", req("PUT", JOBS + "/job1", job("job1"), ct=ct))
    case(G, "patch-" + name, "415 UnsupportedMediaType", req("PATCH", JOBS + "/job1", '{"metadata":{"labels":{"x":"y"}}}', ct=ct))
    case(G, "files-put-" + name, "415 UnsupportedMediaType", req("PUT", NS + "/volumes/vol1/files?path=/ct", "{{BINFILE tars/good.tar}}", ct=ct))
case(G, "post-ns-text-plain", "415 UnsupportedMediaType", req("POST", "/api/v1/namespaces", '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ct"}}', ct="text/plain", token="ADMIN"))
case(G, "patch-strategic-merge", "415 UnsupportedMediaType", req("PATCH", JOBS + "/job1", '{"metadata":{"labels":{"x":"y"}}}', ct="application/strategic-merge-patch+json"))
case(G, "patch-application-json", "415 UnsupportedMediaType", req("PATCH", JOBS + "/job1", '{"metadata":{"labels":{"x":"y"}}}', ct="application/json"))
case(G, "patch-no-content-type", "415 UnsupportedMediaType", req("PATCH", JOBS + "/job1", '{"metadata":{"labels":{"x":"y"}}}', ct=None))
case(G, "patch-xml", "415 UnsupportedMediaType", req("PATCH", JOBS + "/job1", '<a/>', ct="application/xml"))
case(G, "post-xml", "415 UnsupportedMediaType", req("POST", JOBS, '<a/>', ct="application/xml"))
case(G, "post-protobuf-garbage", "400 BadRequest", req("POST", JOBS, "{{HEX 6b 38 73 00 0a 02 ff ff}}", ct="application/vnd.kubernetes.protobuf"))
case(G, "post-ns-protobuf-garbage", "400 BadRequest", req("POST", "/api/v1/namespaces", "{{HEX 6b 38 73 00 0a ff ff ff ff 0f}}", ct="application/vnd.kubernetes.protobuf", token="ADMIN"))
case(G, "post-ns-protobuf-truncated", "400 BadRequest", req("POST", "/api/v1/namespaces", "{{HEX 6b 38 73}}", ct="application/vnd.kubernetes.protobuf", token="ADMIN"))
case(G, "files-put-json", "415 UnsupportedMediaType", req("PUT", NS + "/volumes/vol1/files?path=/ct", '{"a":1}'))
case(G, "post-yaml-to-status", "415 UnsupportedMediaType", req("PUT", JOBS + "/job1/status", "a: 1\n", ct="text/yaml"))
case(G, "post-origin-evil-text-plain", "403 Forbidden", req("POST", JOBS, job("hostile-evil"), ct="text/plain", headers=["Origin: http://evil.example"]))


def _ld(field, b):
    n = len(b); v = b""
    while True:
        c = n & 0x7f; n >>= 7
        v += bytes([c | (0x80 if n else 0)])
        if not n: break
    return bytes([(field << 3) | 2]) + v + b
def _pbns(meta, tail=b""):
    tm = _ld(1, b"v1") + _ld(2, b"Namespace")
    return b"k8s\0" + _ld(1, tm) + _ld(2, _ld(1, meta) + tail)
def _hx(b): return "{{HEX " + " ".join("%02x" % c for c in b) + "}}"
PB = "application/vnd.kubernetes.protobuf"
for name, body, exp in [
    ("pb-ns-name-nul", _pbns(_ld(1, b"hostile-pb\0/../../x")), "422 Invalid"),
    ("pb-ns-name-dotdot", _pbns(_ld(1, b"..")), "422 Invalid"),
    ("pb-ns-name-slash", _pbns(_ld(1, b"a/../../b")), "422 Invalid"),
    ("pb-ns-name-not-utf8", _pbns(_ld(1, b"a\xff\xfeb")), "422 Invalid"),
    ("pb-ns-label-key-nul", _pbns(_ld(1, b"hostile-pbl") + _ld(11, _ld(1, b"a\0b") + _ld(2, b"v"))), "422 Invalid"),
    ("pb-ns-no-metadata", _pbns(b"")[:-2] + b"\x12\x00", "422 Invalid"),
    ("pb-overlong-varint", b"k8s\0" + b"\x08" + b"\xff" * 11, "415 UnsupportedMediaType"),
    ("pb-fixed64-truncated", b"k8s\0\x09\x01\x02", "415 UnsupportedMediaType"),
    ("pb-length-past-end", b"k8s\0\x0a\xff\xff\xff\xff\x0f\x01", "415 UnsupportedMediaType"),
    ("pb-wire-type-7", b"k8s\0\x0f", "415 UnsupportedMediaType"),
    ("pb-meta-length-past-end", _pbns(b"")[:-2] + b"\x12\x03\x0a\x7f\x0a", "415 UnsupportedMediaType"),
]:
    case("07-content-types", name, exp, req("POST", "/api/v1/namespaces", _hx(body), ct=PB, token="ADMIN"))

# ---------------- 08-patch ----------------
G = "08-patch"
JP = "application/json-patch+json"
MP = "application/merge-patch+json"
P1 = JOBS + "/job1"
for name, body, exp in [
    ("test-fails", '[{"op":"test","path":"/metadata/name","value":"other"}]', "422 Invalid"),
    ("test-missing-path", '[{"op":"test","path":"/nope/x","value":1}]', "422 Invalid"),
    ("move-missing-from", '[{"op":"move","from":"/nope","path":"/metadata/labels/x"}]', "422 Invalid"),
    ("copy-missing-from", '[{"op":"copy","from":"/nope","path":"/metadata/labels/x"}]', "422 Invalid"),
    ("remove-missing", '[{"op":"remove","path":"/metadata/labels/nope"}]', "422 Invalid"),
    ("replace-missing", '[{"op":"replace","path":"/spec/nope/deeper","value":1}]', "422 Invalid"),
    ("add-missing-parent", '[{"op":"add","path":"/a/b/c/d","value":1}]', "422 Invalid"),
    ("index-out-of-range", '[{"op":"add","path":"/spec/command/99","value":"x"}]', "422 Invalid"),
    ("index-negative", '[{"op":"replace","path":"/spec/command/-1","value":"x"}]', "422 Invalid"),
    ("index-leading-zero", '[{"op":"replace","path":"/spec/command/01","value":"x"}]', "422 Invalid"),
    ("index-huge", '[{"op":"replace","path":"/spec/command/99999999999999999999","value":"x"}]', "422 Invalid"),
    ("op-unknown", '[{"op":"bogus","path":"/metadata/labels/x","value":1}]', "400 BadRequest"),
    ("op-missing", '[{"path":"/metadata/labels/x","value":1}]', "400 BadRequest"),
    ("path-missing", '[{"op":"add","value":1}]', "400 BadRequest"),
    ("value-missing", '[{"op":"add","path":"/metadata/labels/x"}]', "400 BadRequest"),
    ("path-no-slash", '[{"op":"add","path":"metadata","value":1}]', "400 BadRequest"),
    ("path-bad-escape", '[{"op":"add","path":"/metadata/labels/~2","value":"x"}]', "400 BadRequest"),
    ("not-an-array", '{"op":"add","path":"/a","value":1}', "400 BadRequest"),
    ("array-of-strings", '["add"]', "400 BadRequest"),
    ("malformed", '[{"op":', "400 BadRequest"),
    ("move-into-self", '[{"op":"move","from":"/metadata","path":"/metadata/labels/m"}]', "422 Invalid"),
    ("replace-root", '[{"op":"replace","path":"","value":[]}]', "422 Invalid"),
    ("remove-root", '[{"op":"remove","path":""}]', "422 Invalid"),
    ("change-name", '[{"op":"replace","path":"/metadata/name","value":"other"}]', "400 BadRequest"),
    ("change-kind", '[{"op":"replace","path":"/kind","value":"Volume"}]', "400 BadRequest"),
    ("change-namespace", '[{"op":"replace","path":"/metadata/namespace","value":"nodus"}]', "400 BadRequest"),
    ("spec-to-string", '[{"op":"replace","path":"/spec","value":"x"}]', "422 Invalid"),
    ("labels-to-number", '[{"op":"replace","path":"/metadata/labels","value":5}]', "422 Invalid"),
    ("self-copies-20", "[" + ",".join(['{"op":"copy","from":"/metadata/annotations","path":"/metadata/annotations/c%d"}' % i for i in range(20)]) + "]", "422 Invalid"),
    ("empty-body", "", "400 BadRequest"),
]:
    case(G, "json-" + name, exp, req("PATCH", P1, body, ct=JP))
for name, body, exp in [
    ("array", "[1,2]", "400 BadRequest"), ("string", '"x"', "400 BadRequest"), ("number", "5", "400 BadRequest"),
    ("null", "null", "400 BadRequest"), ("malformed", '{"metadata":', "400 BadRequest"),
    ("change-name", '{"metadata":{"name":"other"}}', "400 BadRequest"),
    ("change-kind", '{"kind":"Volume"}', "400 BadRequest"),
    ("change-apiversion", '{"apiVersion":"evil.dev/v1"}', "400 BadRequest"),
    ("spec-null-required", '{"spec":{"image":null}}', "422 Invalid"),
    ("labels-bad-value", '{"metadata":{"labels":{"a":"../x"}}}', "422 Invalid"),
    ("deep-nesting", '{"spec":{"x":' + "{{REPEAT '{\"a\":' 20000}}1{{REPEAT '}' 20000}}" + '}}', "400 BadRequest"),
]:
    case(G, "merge-" + name, exp, req("PATCH", P1, body, ct=MP))
case(G, "merge-missing-object", "404 NotFound", req("PATCH", JOBS + "/ghost", '{"metadata":{"labels":{"a":"b"}}}', ct=MP))
case(G, "status-merge-array", "400 BadRequest", req("PATCH", P1 + "/status", "[1]", ct=MP))
case(G, "patch-nodus-namespace", "403 Forbidden", req("PATCH", "/api/v1/namespaces/nodus", '{"metadata":{"labels":{"a":"b"}}}', ct=MP, token="ADMIN"))
case(G, "patch-nodus-object", "403 Forbidden", req("PATCH", "/apis/nodus.dev/v1/namespaces/nodus/jobs/x", '{"metadata":{"labels":{"a":"b"}}}', ct=MP, token="ADMIN"))

# ---------------- 09-preconditions ----------------
G = "09-preconditions"
case(G, "generatename-without-key", "428 IdempotencyKeyRequired", req("POST", JOBS, json.dumps(
    {"apiVersion": "nodus.dev/v1", "kind": "Job", "metadata": {"generateName": "gen-"},
     "spec": {"image": "nodus/pytorch:2.8-cuda12.8", "command": ["x"], "maxCostUSD": "1.00"}})))
case(G, "key-reused-other-body", "422 IdempotencyKeyReused", req("POST", JOBS, json.dumps(
    {"apiVersion": "nodus.dev/v1", "kind": "Job", "metadata": {"generateName": "keyed-"},
     "spec": {"image": "nodus/pytorch:2.8-cuda12.8", "command": ["false"], "maxCostUSD": "1.00"}}),
    headers=["Idempotency-Key: hostile-key-0001"]))
case(G, "key-reused-other-path", "422 IdempotencyKeyReused", req("POST", NS + "/volumes", '{"apiVersion":"nodus.dev/v1","kind":"Volume","metadata":{"generateName":"v-"},"spec":{"size":"1Gi"}}',
    headers=["Idempotency-Key: hostile-key-0001"]))
case(G, "key-reused-other-method", "422 IdempotencyKeyReused", req("DELETE", JOBS + "/job1", headers=["Idempotency-Key: hostile-key-0001"]))
case(G, "key-huge", "400 BadRequest", req("POST", JOBS, job("hostile-k"), headers=["Idempotency-Key: {{REPEAT 'k' 10000}}"]))
case(G, "key-control-chars", "400 BadRequest", req("POST", JOBS, job("hostile-k"), headers=["Idempotency-Key: a{{HEX 01}}b"]))
case(G, "if-match-mismatch", "412 PreconditionFailed", req("POST", JOBS, job("hostile-ifm"), headers=['If-Match: "0000000000000000"']))
case(G, "if-match-garbage", "412 PreconditionFailed", req("POST", JOBS, job("hostile-ifm"), headers=["If-Match: {{REPEAT 'x' 3000}}"]))
case(G, "put-stale-rv", "409 Conflict", req("PUT", P1, json.dumps(
    {"apiVersion": "nodus.dev/v1", "kind": "Job", "metadata": {"name": "job1", "resourceVersion": "1"},
     "spec": {"image": "nodus/pytorch:2.8-cuda12.8", "command": ["python", "train.py"], "maxCostUSD": "40.00"}})))
case(G, "put-rv-garbage", "400 BadRequest", req("PUT", P1, json.dumps(
    {"apiVersion": "nodus.dev/v1", "kind": "Job", "metadata": {"name": "job1", "resourceVersion": "abc"},
     "spec": {"image": "nodus/pytorch:2.8-cuda12.8", "command": ["python", "train.py"], "maxCostUSD": "40.00"}})))
case(G, "create-existing-different", "409 AlreadyExists", req("POST", JOBS, job("job1", spec={"image": "nodus/pytorch:2.8-cuda12.8", "command": ["rm", "-rf", "/"], "maxCostUSD": "40.00"})))
case(G, "delete-precondition-uid", "409 Conflict", req("DELETE", P1, '{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"not-the-uid"}}', token="ADMIN"))
case(G, "delete-precondition-rv", "409 Conflict", req("DELETE", P1, '{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"resourceVersion":"1"}}', token="ADMIN"))
case(G, "delete-options-garbage", "400 BadRequest", req("DELETE", P1, '{"propagationPolicy":', token="ADMIN"))

# ---------------- 10-auth ----------------
G = "10-auth"
case(G, "no-token", "401 Unauthorized", req("GET", JOBS, token=None))
case(G, "unknown-token", "401 Unauthorized", req("GET", JOBS, token=None, headers=["Authorization: Bearer not-a-token"]))
case(G, "empty-bearer", "401 Unauthorized", req("GET", JOBS, token=None, headers=["Authorization: Bearer "]))
case(G, "basic-auth", "401 Unauthorized", req("GET", JOBS, token=None, headers=["Authorization: Basic YWRtaW46YWRtaW4="]))
case(G, "token-prefix", "401 Unauthorized", req("GET", JOBS, token=None, headers=["Authorization: Bearer hostile-admin"]))
case(G, "token-with-suffix", "401 Unauthorized", req("GET", JOBS, token=None, headers=["Authorization: Bearer {{TOKEN_ADMIN}}x"]))
case(G, "token-trailing-space", "401 Unauthorized", req("GET", JOBS, token=None, headers=["Authorization: Bearer {{TOKEN_ADMIN}} x"]))
case(G, "two-authorizations", "401 Unauthorized", req("GET", JOBS, token=None, headers=["Authorization: Bearer {{TOKEN_READ}}", "Authorization: Bearer {{TOKEN_ADMIN}}"]))
case(G, "token-in-query", "401 Unauthorized", req("GET", JOBS + "?access_token={{TOKEN_ADMIN}}", token=None))
case(G, "huge-token", "401 Unauthorized", req("GET", JOBS, token=None, headers=["Authorization: Bearer {{REPEAT 'x' 60000}}"]))
case(G, "no-token-post", "401 Unauthorized", req("POST", JOBS, job("hostile-anon"), token=None))
case(G, "no-token-delete", "401 Unauthorized", req("DELETE", JOBS + "/job1", token=None))
case(G, "no-token-files-put", "401 Unauthorized", req("PUT", NS + "/volumes/vol1/files?path=/a", "{{BINFILE tars/good.tar}}", ct="application/x-tar", token=None))
case(G, "no-token-exec", "401 Unauthorized", req("GET", NS + "/sandboxes/exec1/exec?command=true&stdout=true", token=None, headers=["Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol: v5.channel.k8s.io"]))
case(G, "read-post", "403 Forbidden", req("POST", JOBS, job("hostile-r"), token="READ"))
case(G, "read-delete", "403 Forbidden", req("DELETE", JOBS + "/job1", token="READ"))
case(G, "read-patch", "403 Forbidden", req("PATCH", JOBS + "/job1", '{"metadata":{"labels":{"a":"b"}}}', ct=MP, token="READ"))
case(G, "read-files-put", "403 Forbidden", req("PUT", NS + "/volumes/vol1/files?path=/a", "{{BINFILE tars/good.tar}}", ct="application/x-tar", token="READ"))
case(G, "read-files-get", "403 Forbidden", req("GET", NS + "/volumes/vol1/files?path=/work", token="READ"))
case(G, "read-exec-upgrade", "403 Forbidden", req("GET", NS + "/sandboxes/exec1/exec?command=true&stdout=true", token="READ", headers=["Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol: v5.channel.k8s.io"]))
case(G, "read-invoke", "403 Forbidden", req("POST", NS + "/functions/f/invoke", "{}", token="READ"))
case(G, "proj-other-project", "403 Forbidden", req("GET", JOBS, token="PROJ"))
case(G, "proj-other-project-post", "403 Forbidden", req("POST", JOBS, job("hostile-p"), token="PROJ"))
case(G, "proj-cluster-list", "403 Forbidden", req("GET", "/apis/nodus.dev/v1/jobs", token="PROJ"))
case(G, "proj-delete-namespaces", "403 Forbidden", req("DELETE", "/api/v1/namespaces", token="PROJ"))
case(G, "proj-delete-default", "403 Forbidden", req("DELETE", "/api/v1/namespaces/default", token="PROJ"))
case(G, "proj-pct-namespace", "403 Forbidden", req("GET", "/apis/nodus.dev/v1/namespaces/defaul%74/jobs", token="PROJ"))
case(G, "proj-ns-in-query-trick", "403 Forbidden", req("GET", "/apis/nodus.dev/v1/namespaces/default/jobs?x=/namespaces/team-a/", token="PROJ"))
case(G, "proj-events-other", "403 Forbidden", req("GET", "/api/v1/namespaces/default/events", token="PROJ"))
case(G, "write-nodus-project", "403 Forbidden", req("POST", "/apis/nodus.dev/v1/namespaces/nodus/jobs", job("hostile-n"), token="ADMIN"))
case(G, "delete-nodus-namespace", "403 Forbidden", req("DELETE", "/api/v1/namespaces/nodus", token="ADMIN"))
case(G, "put-nodus-namespace", "403 Forbidden", req("PUT", "/api/v1/namespaces/nodus", '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"nodus"}}', token="ADMIN"))
case(G, "proj-write-nodus", "403 Forbidden", req("POST", "/apis/nodus.dev/v1/namespaces/nodus/jobs", job("hostile-n"), token="PROJ"))
case(G, "read-faults", "403 Forbidden", req("POST", "/emulator/v1/faults", '{"path":".*","status":503,"count":1000}', token="READ"))
case(G, "anon-faults", "401 Unauthorized", req("POST", "/emulator/v1/faults", '{"path":".*","status":503,"count":1000}', token=None))
case(G, "write-pricebook", "403 Forbidden", req("PUT", "/emulator/v1/pricebook", '{}', token="WRITE"))
case(G, "anon-clock", "401 Unauthorized", req("POST", "/emulator/v1/clock", '{"speed":0}', token=None))
case(G, "proj-snapshot", "403 Forbidden", req("POST", "/emulator/v1/snapshots/hostile-proj", '{}', token="PROJ"))

# ---------------- 11-origin-host ----------------
G = "11-origin-host"
EV = "Origin: http://evil.example"
case(G, "origin-get", "403 Forbidden", req("GET", JOBS, token="READ", headers=[EV]))
case(G, "origin-post", "403 Forbidden", req("POST", JOBS, job("hostile-o"), headers=[EV]))
case(G, "origin-null", "403 Forbidden", req("POST", JOBS, job("hostile-o"), headers=["Origin: null"]))
case(G, "origin-lookalike", "403 Forbidden", req("GET", JOBS, token="READ", headers=["Origin: http://127.0.0.1.evil.example"]))
case(G, "origin-no-token", "403 Forbidden", req("GET", JOBS, token=None, headers=[EV]))
case(G, "origin-ws-upgrade", "403 Forbidden", req("GET", NS + "/sandboxes/exec1/exec?command=true&stdout=true", headers=[EV, "Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol: v5.channel.k8s.io"]))
case(G, "origin-reset-text-plain", "403 Forbidden", req("POST", "/emulator/v1/reset", "{}", token=None, ct="text/plain", headers=[EV]))
case(G, "origin-reset-form", "403 Forbidden", req("POST", "/emulator/v1/reset", "a=b", token=None, ct="application/x-www-form-urlencoded", headers=[EV]))
case(G, "origin-reset-admin", "403 Forbidden", req("POST", "/emulator/v1/reset", "{}", token="ADMIN", headers=[EV]))
case(G, "origin-faults", "403 Forbidden", req("POST", "/emulator/v1/faults", '{"path":".*","status":503,"count":1000}', token=None, ct="text/plain", headers=[EV]))
case(G, "origin-files-put", "403 Forbidden", req("PUT", NS + "/volumes/vol1/files?path=/o", "{{BINFILE tars/good.tar}}", ct="application/x-tar", headers=[EV]))
case(G, "origin-delete", "403 Forbidden", req("DELETE", JOBS + "/job1", token="ADMIN", headers=[EV]))
case(G, "host-evil", "403 Forbidden", req("GET", JOBS, token="READ", host="evil.example"))
case(G, "host-evil-port", "403 Forbidden", req("GET", JOBS, token="READ", host="evil.example:80"))
case(G, "host-evil-post", "403 Forbidden", req("POST", JOBS, job("hostile-h"), host="evil.example"))
case(G, "host-evil-reset", "403 Forbidden", req("POST", "/emulator/v1/reset", "{}", token=None, host="attacker.example"))
case(G, "host-rebind-lookalike", "403 Forbidden", req("GET", JOBS, token="READ", host="127.0.0.1.evil.example"))
case(G, "anon-reset", "401 Unauthorized", req("POST", "/emulator/v1/reset", "{}", token=None))
case(G, "read-reset", "403 Forbidden", req("POST", "/emulator/v1/reset", "{}", token="READ"))
case(G, "anon-snapshot-restore", "401 Unauthorized", req("POST", "/emulator/v1/snapshots/hostile-base/restore", "{}", token=None))

# ---------------- 12-headers ----------------
G = "12-headers"
case(G, "header-1mb", "431 RequestHeaderFieldsTooLarge", req("GET", JOBS, token="READ", headers=["X-Big: {{REPEAT 'a' 1048576}}"]))
case(G, "header-300k", "431 RequestHeaderFieldsTooLarge", req("GET", JOBS, token="READ", headers=["X-Big: {{REPEAT 'a' 300000}}"]))
case(G, "many-headers", "431 RequestHeaderFieldsTooLarge", req("GET", JOBS, token="READ", headers=["{{REPEAT 'X-H: v\n' 40000}}X-End: 1"]))
case(G, "post-header-1mb", "431 RequestHeaderFieldsTooLarge", req("POST", JOBS, job("hostile-hb"), headers=["X-Big: {{REPEAT 'a' 1048576}}"]))
case(G, "header-no-colon", "400 BadRequest", req("GET", JOBS, token="READ", headers=["NoColonHere"]))
case(G, "header-name-space", "400 BadRequest", req("GET", JOBS, token="READ", headers=["Bad Name: x"]))
case(G, "content-length-twice", "400 BadRequest", req("POST", JOBS, job("hostile-cl"), headers=["Content-Length: 3"]))
case(G, "content-length-negative", "400 BadRequest", "POST %s HTTP/1.1\nHost: {{HOST}}\nAuthorization: Bearer {{TOKEN_WRITE}}\nContent-Type: application/json\nContent-Length: -1\n\n{}\n" % JOBS)
case(G, "content-length-letters", "400 BadRequest", "POST %s HTTP/1.1\nHost: {{HOST}}\nAuthorization: Bearer {{TOKEN_WRITE}}\nContent-Type: application/json\nContent-Length: abc\n\n{}\n" % JOBS)
case(G, "chunked-bad-size", "400 BadRequest", "POST %s HTTP/1.1\nHost: {{HOST}}\nAuthorization: Bearer {{TOKEN_WRITE}}\nContent-Type: application/json\nTransfer-Encoding: chunked\n\nzz{{HEX 0d 0a}}{}{{HEX 0d 0a}}0{{HEX 0d 0a 0d 0a}}\n" % JOBS)
case(G, "chunked-huge-size", "413 RequestEntityTooLarge", "POST %s HTTP/1.1\nHost: {{HOST}}\nAuthorization: Bearer {{TOKEN_WRITE}}\nContent-Type: application/json\nTransfer-Encoding: chunked\n\nfffffffffffffff{{HEX 0d 0a}}{}{{HEX 0d 0a}}0{{HEX 0d 0a 0d 0a}}\n" % JOBS)
case(G, "chunked-over-3mib", "413 RequestEntityTooLarge", ("POST %s HTTP/1.1\nHost: {{HOST}}\nAuthorization: Bearer {{TOKEN_WRITE}}\nContent-Type: application/json\nTransfer-Encoding: chunked\n\n" % JOBS) + "100000{{HEX 0d 0a}}{{REPEAT 'a' 1048576}}{{HEX 0d 0a}}" * 4 + "0{{HEX 0d 0a 0d 0a}}\n")
case(G, "chunked-and-length", "400 BadRequest", "POST %s HTTP/1.1\nHost: {{HOST}}\nAuthorization: Bearer {{TOKEN_WRITE}}\nContent-Type: application/json\nContent-Length: 5\nTransfer-Encoding: chunked\n\n2{{HEX 0d 0a}}{}{{HEX 0d 0a}}0{{HEX 0d 0a 0d 0a}}\n" % JOBS)
case(G, "transfer-encoding-gzip", "400 BadRequest", "POST %s HTTP/1.1\nHost: {{HOST}}\nAuthorization: Bearer {{TOKEN_WRITE}}\nContent-Type: application/json\nTransfer-Encoding: gzip\n\n{}\n" % JOBS)
case(G, "expect-continue-too-large", "413 RequestEntityTooLarge", "POST %s HTTP/1.1\nHost: {{HOST}}\nAuthorization: Bearer {{TOKEN_WRITE}}\nContent-Type: application/json\nExpect: 100-continue\nContent-Length: 5000000\n\n" % JOBS)
case(G, "http-2-version", "505", req("GET", JOBS, token="READ", version="HTTP/2.0"))
case(G, "http-9-version", "505", req("GET", JOBS, token="READ", version="HTTP/9.9"))
case(G, "no-host-http11", "400 BadRequest", req("GET", JOBS, token="READ", host=None))
case(G, "two-hosts", "400 BadRequest", req("GET", JOBS, token="READ", headers=["Host: evil.example"]))
case(G, "request-line-garbage", "400 BadRequest", "{{HEX 16 03 01 00 a5 01 00 00 a1 03 03}}\n\n")
case(G, "request-line-extra-spaces", "400 BadRequest", "GET  %s  HTTP/1.1\nHost: {{HOST}}\n\n" % JOBS)
case(G, "accept-garbage", "406 NotAcceptable", req("GET", JOBS + "/job1", token="READ", headers=["Accept: application/x-evil"]))
case(G, "accept-huge-list", "406 NotAcceptable", req("GET", JOBS + "/job1", token="READ", headers=["Accept: {{REPEAT 'application/x-e;q=0.1, ' 2000}}application/x-end"]))
case(G, "nul-in-header-value", "400 BadRequest", req("GET", JOBS, token="READ", headers=["X-A: a{{HEX 00}}b"]))
case(G, "obs-fold", "400 BadRequest", req("GET", JOBS, token="READ", headers=["X-A: a", " folded"]))
case(G, "nodus-price-consent-huge", "400 BadRequest", req("POST", JOBS, job("hostile-pc"), headers=["Nodus-Price-Consent: {{REPEAT 'x' 20000}}"]))

# ---------------- 13-tar ----------------
G = "13-tar"
TARS = ["dotdot", "dotdot-deep", "dotdot-middle", "dotdot-after-good", "dotdot-dir", "symlink-out-then-file",
        "symlink-abs-then-file", "symlink-etc", "symlink-dotdot", "symlink-chain", "hardlink-etc",
        "hardlink-dotdot", "hardlink-inside", "pax-dotdot", "gnu-longname-dotdot", "pax-linkpath-out",
        "chardev", "fifo", "blockdev", "truncated-header", "truncated-data", "bad-checksum",
        "size-not-octal", "size-huge", "size-base256", "prefix-dotdot", "type-unknown",
        "garbage", "pax-bad-length", "name-with-nul-dotdot", "zeros-only"]
for t in TARS:
    for obj, short in (("sandboxes/box1", "box"), ("volumes/vol1", "vol")):
        if short == "vol" and t not in ("dotdot", "dotdot-middle", "symlink-out-then-file", "symlink-abs-then-file",
                                        "hardlink-etc", "hardlink-dotdot", "pax-dotdot", "gnu-longname-dotdot",
                                        "truncated-header", "size-huge", "symlink-chain", "pax-linkpath-out"):
            continue
        case(G, "%s-%s" % (short, t), "400 BadRequest", req("PUT", NS + "/" + obj + "/files?path=/work", "{{BINFILE tars/%s.tar}}" % t, ct="application/x-tar"))
case(G, "box-empty-body", "400 BadRequest", req("PUT", NS + "/sandboxes/box1/files?path=/work", "", ct="application/x-tar"))
case(G, "box-into-file", "400 BadRequest", req("PUT", NS + "/sandboxes/box1/files?path=/work/inside.txt", "{{BINFILE tars/good.tar}}", ct="application/x-tar"))
case(G, "job-files", "404 NotFound", req("PUT", JOBS + "/job1/files?path=/work", "{{BINFILE tars/good.tar}}", ct="application/x-tar"))
case(G, "missing-sandbox-files", "404 NotFound", req("PUT", NS + "/sandboxes/ghost/files?path=/work", "{{BINFILE tars/good.tar}}", ct="application/x-tar"))
case(G, "get-dotdot-path", "400 BadRequest", req("GET", NS + "/sandboxes/box1/files?path=/../../../../etc/passwd"))
case(G, "get-missing", "404 NotFound", req("GET", NS + "/sandboxes/box1/files?path=/nope"))

# ---------------- 14-websocket ----------------
G = "14-websocket"
WSH = ["Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13",
       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol: v5.channel.k8s.io"]
EX = NS + "/sandboxes/exec1/exec?command=sleep&command=%s&stdin=true&stdout=true"
for name, exp, hdrs, path in [
    ("no-upgrade-header", "400 BadRequest", [h for h in WSH if not h.startswith("Upgrade")], EX % "1"),
    ("version-8", "400 BadRequest", [h if not h.startswith("Sec-WebSocket-Version") else "Sec-WebSocket-Version: 8" for h in WSH], EX % "1"),
    ("no-key", "400 BadRequest", [h for h in WSH if not h.startswith("Sec-WebSocket-Key")], EX % "1"),
    ("bad-protocol", "400 BadRequest", [h if not h.startswith("Sec-WebSocket-Protocol") else "Sec-WebSocket-Protocol: evil" for h in WSH], EX % "1"),
    ("no-command", "400 BadRequest", WSH, NS + "/sandboxes/exec1/exec?stdout=true"),
    ("no-streams", "400 BadRequest", WSH, NS + "/sandboxes/exec1/exec?command=true"),
    ("tty-maybe", "400 BadRequest", WSH, NS + "/sandboxes/exec1/exec?command=true&stdout=true&tty=maybe"),
    ("volume-exec", "404 NotFound", WSH, NS + "/volumes/vol1/exec?command=true&stdout=true"),
    ("missing-sandbox", "404 NotFound", WSH, NS + "/sandboxes/ghost/exec?command=true&stdout=true"),
    ("queued-job", "400 BadRequest", WSH, JOBS + "/job1/exec?command=true&stdout=true"),
    ("post-upgrade", "405 MethodNotAllowed", WSH, EX % "1"),
    ("key-garbage", "400 BadRequest", [h if not h.startswith("Sec-WebSocket-Key") else "Sec-WebSocket-Key: {{REPEAT 'x' 5000}}" for h in WSH], EX % "1"),
]:
    m = "POST" if name == "post-upgrade" else "GET"
    case(G, name, exp, req(m, path, token="WRITE", headers=hdrs) if m == "GET" else req(m, path, "", token="WRITE", headers=hdrs))
# frames after a valid upgrade: a unique sleep per case, which must be gone after
frames = [
    ("unmasked-frame", "{{HEX 82 02 00 61}}", 1002),
    ("reserved-opcode-3", "{{HEX 83 80 00 00 00 00}}", 1002),
    ("reserved-opcode-b", "{{HEX 8b 80 00 00 00 00}}", 1002),
    ("rsv1-set", "{{HEX c2 82 00 00 00 00 00 61}}", 1002),
    ("rsv3-set", "{{HEX 92 82 00 00 00 00 00 61}}", 1002),
    ("ping-200-bytes", "{{HEX 89 fe 00 c8 00 00 00 00}}{{REPEAT 'p' 200}}", 1002),
    ("stray-continuation", "{{HEX 80 82 00 00 00 00 00 61}}", 1002),
    ("fragmented-ping", "{{HEX 09 80 00 00 00 00}}", 1002),
    ("data-during-fragment", "{{HEX 02 82 00 00 00 00 00 61 82 82 00 00 00 00 00 61}}", 1002),
    ("close-code-999", "{{HEX 88 82 00 00 00 00 03 e7}}", 1002),
    ("close-one-byte", "{{HEX 88 81 00 00 00 00 03}}", 1002),
    ("length-msb-set", "{{HEX 82 ff 80 00 00 00 00 00 00 01 00 00 00 00}}", 1002),
    # what must keep working: a clean close ends the session and its process
    ("client-close-1000", "{{HEX 88 82 00 00 00 00 03 e8}}", 1000),
    ("resize-garbage-then-close", "{{HEX 82 8c 00 00 00 00 04}}{\"Width\":-1{{HEX 82 89 00 00 00 00 04}}{{REPEAT '[' 8}}{{HEX 88 82 00 00 00 00 03 e8}}", 1000),
]
for i, (name, payload, code) in enumerate(frames):
    marker = "3%d.4%02d" % (i, i)
    case("16-websocket-frames", name, "101", req("GET", EX % marker, token="WRITE", headers=WSH) + payload + "\n",
         ["# ws-close %d" % code, "# frames-after-101", "# gone sleep %s" % marker])

# ---------------- 16-control: /emulator/v1 with the admin token, bad bodies ----------------
G = "15-control"
for name, m, path, body, exp in [
    ("clock-backwards", "POST", "clock", '{"advance":"-1h"}', "422 Invalid"),
    ("clock-huge", "POST", "clock", '{"advance":"100000000h"}', "422 Invalid"),
    ("clock-exponent", "POST", "clock", '{"advance":"1e308s"}', "422 Invalid"),
    ("clock-number", "POST", "clock", '{"advance":5}', "422 Invalid"),
    ("clock-malformed", "POST", "clock", '{"advance":', "400 BadRequest"),
    ("clock-nested", "POST", "clock", "{{REPEAT '[' 10000}}", "400 BadRequest"),
    ("faults-bad-regex", "POST", "faults", '{"path":"([","status":503}', "422 Invalid"),
    ("faults-status-200", "POST", "faults", '{"path":".*","status":200,"count":1}', "422 Invalid"),
    ("faults-status-99999", "POST", "faults", '{"path":".*","status":99999,"count":1}', "422 Invalid"),
    ("faults-delay-huge", "POST", "faults", '{"path":"^/x$","delayMs":100000000000,"count":1}', "422 Invalid"),
    ("faults-delay-negative", "POST", "faults", '{"path":"^/x$","delayMs":-5,"count":1}', "422 Invalid"),
    ("faults-count-negative", "POST", "faults", '{"path":"^/x$","status":503,"count":-1}', "422 Invalid"),
    ("faults-array", "POST", "faults", '[1]', "400 BadRequest"),
    ("pricebook-array", "PUT", "pricebook", '[1]', "400 BadRequest"),
    ("pricebook-garbage", "PUT", "pricebook", 'nope', "400 BadRequest"),
    ("pricebook-empty-object", "PUT", "pricebook", '{}', "422 Invalid"),
    ("pricebook-over-3mib", "PUT", "pricebook", '{"a":"' + "{{REPEAT 'a' 3200000}}" + '"}', "413 RequestEntityTooLarge"),
    ("snapshot-name-300", "POST", "snapshots/{{REPEAT 'a' 300}}", '{}', "422 Invalid"),
    ("snapshot-name-pct-slash", "POST", "snapshots/a%2f..%2f..%2fx", '{}', "404 NotFound"),
    ("snapshot-restore-missing", "POST", "snapshots/ghost/restore", '{}', "404 NotFound"),
    ("reset-get", "GET", "reset", None, "405 MethodNotAllowed"),
]:
    case(G, name, exp, req(m, "/emulator/v1/" + path, body, token="ADMIN"))

# today's answers, pinned (refusals all the same, or harmless)
PIN = {
    "01-json/content-length-1e30": "413 -",
    "03-names/create-nul": "400 BadRequest",
    "04-urls/absolute-form-target": "404 NotFound",
    "04-urls/fragment": "404 NotFound",
    "04-urls/pct-slash-name": "200",
    "04-urls/emulator-snapshot-traversal": "422 Invalid",
    "04-urls/snapshot-name-dotdot": "422 Invalid",
    "04-urls/snapshot-restore-dotdot": "422 Invalid",
    "05-methods/connect": "404 NotFound",
    "05-methods/post-openapi": "404 NotFound",
    "05-methods/post-status": "422 Invalid",
    "05-methods/head-no-token": "401",
    "06-query/files-path-missing": "200",
    "06-query/files-path-relative": "200",
    "06-query/files-put-path-relative": "200",
    "06-query/label-huge-set": "200",
    "06-query/limit-overflow": "200",
    "06-query/query-nonutf8-label": "200",
    "06-query/log-limitbytes-negative": "422 Invalid",
    "07-content-types/post-protobuf-garbage": "415 UnsupportedMediaType",
    "07-content-types/post-ns-protobuf-garbage": "415 UnsupportedMediaType",
    "08-patch/json-replace-root": "400 BadRequest",
    "09-preconditions/put-rv-garbage": "409 Conflict",
    "12-headers/chunked-and-length": "422 Invalid",
    "12-headers/chunked-bad-size": "400 -",
    "12-headers/content-length-letters": "400 -",
    "12-headers/content-length-negative": "400 -",
    "12-headers/header-no-colon": "400 -",
    "12-headers/header-name-space": "200",
    "12-headers/no-host-http11": "200",
    "12-headers/nul-in-header-value": "200",
    "12-headers/obs-fold": "200",
    "12-headers/request-line-extra-spaces": "401 Unauthorized",
    "12-headers/request-line-garbage": "none",
    "13-tar/box-name-with-nul-dotdot": "200",
    "13-tar/box-zeros-only": "200",
}
for n in ["put-dot", "put-dotdot", "put-len-254", "put-pct-dotdot", "put-uppercase",
          "patch-dot", "patch-dotdot", "patch-len-254", "patch-pct-dotdot", "patch-uppercase"]:
    PIN["03-names/" + n] = "422 Invalid"
for n in ["put-dotdot-pricebook", "put-pct-nul", "put-pct-slash"]:
    PIN["03-names/" + n] = "404 NotFound"
DROP = {"12-headers/chunked-huge-size", "12-headers/transfer-encoding-gzip", "14-websocket/post-upgrade",
        "06-query/dryrun-empty-value", "09-preconditions/key-control-chars", "09-preconditions/key-huge",
        "12-headers/two-hosts", "12-headers/nodus-price-consent-huge", "01-json/bom-then-object"}
# the state may change on these (a write that is allowed)
CHANGES = {"06-query/files-put-path-relative", "13-tar/box-name-with-nul-dotdot", "13-tar/box-zeros-only",
           "04-urls/pct-slash-name"}
cases = [(g, n, PIN.get(g + "/" + n, e), t, x + (["# state changed"] if g + "/" + n in CHANGES else []))
         for g, n, e, t, x in cases if g + "/" + n not in DROP]

# write the files
for group, name, expect, text, extra in cases:
    d = os.path.join(OUT, group)
    os.makedirs(d, exist_ok=True)
    hdr = "# status %s\n" % expect + "".join(e + "\n" for e in extra)
    with open(os.path.join(d, name + ".http"), "w", encoding="utf-8", newline="") as f:
        f.write(hdr + text)
print(len(cases))
