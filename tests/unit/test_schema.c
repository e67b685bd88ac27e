/* Unit tests of pkg/kinds/schema: the embedded kind schemas, validation, defaults and
 * update checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kinds/formats.h"
#include "kinds/schema.h"
#include "util/buf.h"
#include "yaml/yaml.h"

static json_t *load(const char *yaml)
{
    struct nd_status st = ND_STATUS_INIT;
    json_t *v = nd_yaml_load(yaml, strlen(yaml), "test", &st);
    if (!v)
        fail_msg("yaml: %s", st.message);
    nd_status_release(&st);
    return v;
}

static const struct nd_kind *kind_of(const json_t *obj)
{
    const struct nd_kind *k =
        nd_kind_by_api_version(json_string_value(json_object_get(obj, "apiVersion")),
                               json_string_value(json_object_get(obj, "kind")));
    assert_non_null(k);
    return k;
}

/* ---- the schemas themselves ---- */

static void test_schemas_load(void **state)
{
    (void)state;
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_schemas_check(&st), 0);
    assert_false(nd_status_failed(&st));
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        const json_t *s = nd_kind_schema(k);
        assert_non_null(s);
        /* the same pointer every time: parsed once */
        assert_ptr_equal(s, nd_kind_schema(k));
        const json_t *props = json_object_get(s, "properties");
        assert_string_equal(json_string_value(json_object_get(s, "type")), "object");
        assert_true(json_string_length(json_object_get(s, "description")) > 20);
        assert_non_null(json_object_get(props, "apiVersion"));
        assert_non_null(json_object_get(props, "kind"));
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(props, "metadata"), "$ref")),
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
        /* the property order kubectl explain shows: apiVersion, kind, metadata first */
        const char *first = NULL;
        void *it = json_object_iter((json_t *)props);
        first = json_object_iter_key(it);
        assert_string_equal(first, "apiVersion");
        if (strcmp(k->kind, "Event") != 0) {
            assert_non_null(json_object_get(props, "spec"));
            assert_non_null(json_object_get(props, "status"));
        }
        json_t *want = json_pack("[{s:s, s:s, s:s}]", "group", k->group, "version", k->version,
                                 "kind", k->kind);
        assert_true(json_equal(json_object_get(s, "x-kubernetes-group-version-kind"), want));
        json_decref(want);
    }
    const json_t *comps = nd_schema_components();
    static const char *const names[] = {
        "ObjectMeta", "ManagedFieldsEntry", "OwnerReference", "ListMeta",
        "Status",     "DeleteOptions",      "Patch"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char full[128];
        snprintf(full, sizeof full, "io.k8s.apimachinery.pkg.apis.meta.v1.%s", names[i]);
        assert_non_null(json_object_get(comps, full));
    }
    nd_status_release(&st);
}

/* Every field of every schema has a description, and no include is left. */
static void check_described(const json_t *s, const char *path)
{
    s = nd_schema_deref(s);
    assert_non_null(s);
    assert_null(json_object_get(s, "x-nodus-include"));
    const char *name;
    json_t *p;
    json_object_foreach((json_t *)json_object_get(s, "properties"), name, p)
    {
        char sub[512];
        snprintf(sub, sizeof sub, "%s.%s", path, name);
        if (!json_is_string(json_object_get(p, "description")))
            fail_msg("no description: %s", sub);
        if (!json_object_get(p, "$ref"))
            check_described(p, sub);
    }
    const json_t *items = json_object_get(s, "items");
    if (items && !json_object_get(items, "$ref"))
        check_described(items, path);
    const json_t *extra = json_object_get(s, "additionalProperties");
    if (json_is_object(extra))
        check_described(extra, path);
}

static void test_schemas_described(void **state)
{
    (void)state;
    for (size_t i = 0; i < nd_kind_count(); i++)
        check_described(nd_kind_schema(&nd_kinds[i]), nd_kinds[i].kind);
    const char *name;
    json_t *s;
    json_object_foreach((json_t *)nd_schema_components(), name, s)
    {
        assert_true(json_is_string(json_object_get(s, "description")));
        check_described(s, name);
    }
}

/* The registry and the schemas agree: states, mutable fields, selectors, columns. */
static void strip_brackets(const char *in, char *out, size_t n)
{
    size_t j = 0;
    for (const char *p = in[0] == '.' ? in + 1 : in; *p && j + 1 < n; p++) {
        if (*p == '[') {
            p = strchr(p, ']');
            if (!p)
                break;
            memcpy(out + j, "[0]", 3);
            j += 3;
            continue;
        }
        out[j++] = *p;
    }
    out[j] = '\0';
}

static void test_registry_matches_schemas(void **state)
{
    (void)state;
    for (size_t i = 0; i < nd_kind_count(); i++) {
        const struct nd_kind *k = &nd_kinds[i];
        const json_t *s = nd_kind_schema(k);
        print_message("%s\n", k->kind);
        const json_t *st = nd_schema_at(s, "spec.state");
        if (k->state_values) {
            assert_non_null(st);
            assert_string_equal(json_string_value(json_object_get(st, "default")),
                                k->state_values[0]);
            const json_t *en = json_object_get(st, "enum");
            size_t n = 0;
            for (; k->state_values[n]; n++)
                assert_string_equal(json_string_value(json_array_get(en, n)), k->state_values[n]);
            assert_int_equal(json_array_size(en), n);
        } else {
            assert_null(st);
        }
        for (const struct nd_mutable *m = k->mutable_fields; m->path; m++) {
            const json_t *f = nd_schema_at(s, m->path);
            assert_non_null(f);
            if (m->rule == ND_MUT_RAISE_ONLY) {
                const char *format = json_string_value(json_object_get(f, "format"));
                assert_non_null(format);
                assert_true(strcmp(format, "money") == 0 || strcmp(format, "duration") == 0 ||
                            strcmp(format, "quantity") == 0);
            }
            if (m->rule == ND_MUT_WHILE) {
                json_t *v = json_string(m->while_value);
                bool found = false;
                size_t j;
                json_t *e;
                json_array_foreach(json_object_get(f, "enum"), j, e) found |= json_equal(e, v);
                json_decref(v);
                assert_true(found);
            }
        }
        for (const char *const *f = k->field_selectors; *f; f++) {
            const char *path = strchr(*f, '=') ? strchr(*f, '=') + 1 : *f; /* LABEL=PATH */
            assert_non_null(nd_schema_at(s, path));
        }
        for (const struct nd_column *c = k->columns; c->name; c++) {
            char path[256];
            strip_brackets(c->jsonpath, path, sizeof path);
            print_message("  %s %s\n", c->name, path);
            assert_non_null(nd_schema_at(s, path));
        }
    }
}

static void test_schema_at(void **state)
{
    (void)state;
    const json_t *job = nd_kind_schema(nd_kind_lookup("jobs"));
    const json_t *pipe = nd_kind_schema(nd_kind_lookup("pipelines"));
    static const struct {
        const char *path, *type, *format;
    } rows[] = {
        {"spec", "object", NULL},
        {"spec.resources.gpu.count", "integer", "int32"},
        {"spec.maxCostUSD", "string", "money"},
        {"spec.volumes[0].mountPath", "string", NULL},
        {"spec.volumes", "array", NULL},
        {"metadata.labels", "object", NULL},
        {"metadata.labels[app]", "string", NULL},
        {"metadata.ownerReferences[0].uid", "string", NULL},
        {"status.conditions[2].observedGeneration", "integer", "int64"},
        {"spec.nope", NULL, NULL},
        {"spec.image.x", NULL, NULL},
        {"metadata.nope", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const json_t *s = nd_schema_at(job, rows[i].path);
        print_message("%s\n", rows[i].path);
        if (!rows[i].type) {
            assert_null(s);
            continue;
        }
        assert_non_null(s);
        assert_string_equal(json_string_value(json_object_get(s, "type")), rows[i].type);
        if (rows[i].format)
            assert_string_equal(json_string_value(json_object_get(s, "format")), rows[i].format);
    }
    /* a Pipeline step's job is a Job's spec, with its own description */
    const json_t *step_job = nd_schema_at(pipe, "spec.steps[1].job");
    assert_non_null(step_job);
    assert_string_equal(json_string_value(json_object_get(step_job, "description")),
                        "Job is the spec of the step's Job, as in a Job's spec.");
    assert_true(json_equal(json_object_get(step_job, "properties"),
                           json_object_get(nd_schema_at(job, "spec"), "properties")));
    assert_ptr_equal(nd_schema_at(job, ""), job);
    assert_null(nd_schema_at(job, "spec["));
}

/* The Pool follows its reference field by field. */
static void test_pool_seed(void **state)
{
    (void)state;
    const json_t *s = nd_kind_schema(nd_kind_lookup("pools"));
    static const struct {
        const char *path, *type, *format, *def, *enums, *min, *max, *required;
    } rows[] = {
        {"spec", "object", NULL, NULL, NULL, NULL, NULL, NULL},
        {"spec.act.mode", "string", NULL, "Off", "Off Shadow Propose Auto", NULL, NULL, NULL},
        {"spec.act.paused", "boolean", NULL, NULL, NULL, NULL, NULL, NULL},
        {"spec.act.policies", "array", NULL, NULL, NULL, NULL, NULL, NULL},
        {"spec.act.policies[0]", "object", NULL, NULL, NULL, NULL, NULL, "action"},
        {"spec.act.policies[0].action", "string", NULL, NULL,
         "IdleReclaim Drain Defragment WaitTuning Burst", NULL, NULL, NULL},
        {"spec.act.policies[0].duration", "string", "duration", NULL, NULL, NULL, NULL, NULL},
        {"spec.act.policies[0].idleFor", "string", "duration", NULL, NULL, NULL, NULL, NULL},
        {"spec.act.policies[0].maxGPUs", "integer", "int32", NULL, NULL, NULL, NULL, NULL},
        {"spec.act.policies[0].maxRateUSDPerHour", "string", "money", NULL, NULL, NULL, NULL, NULL},
        {"spec.act.policies[0].maxWaitTimeout", "string", "duration", NULL, NULL, NULL, NULL, NULL},
        {"spec.act.policies[0].minWaitTimeout", "string", "duration", NULL, NULL, NULL, NULL, NULL},
        {"spec.act.policies[0].schedule", "string", "cron", NULL, NULL, NULL, NULL, NULL},
        {"spec.predict.enabled", "boolean", NULL, NULL, NULL, NULL, NULL, NULL},
        {"spec.predict.horizon", "string", "duration", "168h", NULL, "24h", "720h", NULL},
        {"spec.routing.burstToMarket", "string", NULL, "Approve", "Allow Approve Deny", NULL, NULL,
         NULL},
        {"spec.routing.mode", "string", NULL, "Prefer", "Prefer Only", NULL, NULL, NULL},
        {"spec.routing.waitPolicy", "string", NULL, "Timeout", "Never Cheaper Timeout", NULL, NULL,
         NULL},
        {"spec.routing.waitTimeout", "string", "duration", "30m", NULL, "1m", "24h", NULL},
        {"spec.sandboxCapable", "boolean", NULL, NULL, NULL, NULL, NULL, NULL},
        {"status.act", "object", NULL, NULL, NULL, NULL, NULL, "pending"},
        {"status.act.pending", "integer", "int32", NULL, NULL, NULL, NULL, NULL},
        {"status.capacity", "object", NULL, NULL, NULL, NULL, NULL, "nodes readyNodes"},
        {"status.capacity.gpus[H100]", "object", NULL, NULL, NULL, NULL, NULL, "free total"},
        {"status.capacity.gpus[H100].free", "integer", "int32", NULL, NULL, NULL, NULL, NULL},
        {"status.conditions[0]", "object", NULL, NULL, NULL, NULL, NULL,
         "lastTransitionTime message reason status type"},
        {"status.forecast", "object", NULL, NULL, NULL, NULL, NULL,
         "generatedTime horizon peakDemandGPUs"},
        {"status.forecast.peakDemandGPUs.p50", "number", "double", NULL, NULL, NULL, NULL, NULL},
        {"status.forecast.peakDemandGPUs.p90", "number", "double", NULL, NULL, NULL, NULL, NULL},
        {"status.predict", "object", NULL, NULL, NULL, NULL, NULL, "enabledTime"},
        {"status.routing", "object", NULL, NULL, NULL, NULL, NULL, "burstPending waiting"},
        {"status.routing.consent", "object", NULL, NULL, NULL, NULL, NULL, "rateUSD time"},
        {"status.utilization", "object", NULL, NULL, NULL, NULL, NULL, "gpuPercent"},
        {"status.utilization.deviceHours", "string", NULL, NULL, NULL, NULL, NULL, NULL},
        {"status.phase", "string", NULL, NULL, NULL, NULL, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const json_t *f = nd_schema_at(s, rows[i].path);
        print_message("%s\n", rows[i].path);
        assert_non_null(f);
        assert_string_equal(json_string_value(json_object_get(f, "type")), rows[i].type);
        const char *format = json_string_value(json_object_get(f, "format"));
        if (rows[i].format)
            assert_string_equal(format, rows[i].format);
        else
            assert_null(format);
        const json_t *def = json_object_get(f, "default");
        if (rows[i].def)
            assert_string_equal(json_string_value(def), rows[i].def);
        else if (strcmp(rows[i].type, "object") != 0)
            assert_null(def);
        struct nd_buf b = ND_BUF_INIT;
        size_t j;
        json_t *e;
        json_array_foreach(json_object_get(f, "enum"), j, e)
        {
            nd_buf_addf(&b, "%s%s", j ? " " : "", json_string_value(e));
        }
        assert_string_equal(b.data, rows[i].enums ? rows[i].enums : "");
        nd_buf_reset(&b);
        json_array_foreach(json_object_get(f, "required"), j, e)
        {
            nd_buf_addf(&b, "%s%s", j ? " " : "", json_string_value(e));
        }
        assert_string_equal(b.data, rows[i].required ? rows[i].required : "");
        nd_buf_release(&b);
        const char *min = json_string_value(json_object_get(f, "x-nodus-min"));
        const char *max = json_string_value(json_object_get(f, "x-nodus-max"));
        if (rows[i].min) {
            assert_string_equal(min, rows[i].min);
            assert_string_equal(max, rows[i].max);
        } else {
            assert_null(min);
            assert_null(max);
        }
        assert_null(json_object_get(f, "minimum"));
        assert_null(json_object_get(f, "maximum"));
    }
    const json_t *pol = nd_schema_at(s, "spec.act.policies");
    assert_int_equal(json_integer_value(json_object_get(pol, "maxItems")), 16);
    assert_true(json_is_true(json_object_get(pol, "nullable")));
    assert_true(json_is_true(json_object_get(nd_schema_at(s, "status.conditions"), "nullable")));
    /* nested defaults apply when the parent is left out */
    static const char *const parents[] = {"spec.act", "spec.predict", "spec.routing"};
    for (size_t i = 0; i < 3; i++) {
        json_t *empty = json_object();
        assert_true(json_equal(json_object_get(nd_schema_at(s, parents[i]), "default"), empty));
        json_decref(empty);
    }
    assert_string_equal(json_string_value(json_object_get(s, "description")),
                        "Pool is a set of the customer\xe2\x80\x99s own hosts that Nodus measures, "
                        "routes work onto, forecasts and manages.");
    assert_string_equal(
        json_string_value(
            json_object_get(nd_schema_at(s, "spec.routing.waitTimeout"), "description")),
        "WaitTimeout bounds the wait for Pool capacity under waitPolicy Timeout, from 1m to 24h. "
        "Default 30m.");
    const json_t *req = json_object_get(s, "required");
    assert_int_equal(json_array_size(req), 1);
    assert_string_equal(json_string_value(json_array_get(req, 0)), "spec");
}

/* ---- the examples of spec/examples validate with no problem ---- */

static const struct {
    const char *name, *yaml;
} examples[] = {
    {"budget.yaml", "apiVersion: nodus.dev/v1\n"
                    "kind: Budget\n"
                    "metadata:\n"
                    "  name: team-monthly\n"
                    "spec:\n"
                    "  limitUSD: \"500.00\"\n"
                    "  period: Monthly\n"
                    "  selector:\n"
                    "    matchLabels: {app: trainer}\n"
                    "  action: Suspend\n"
                    "  thresholds: [50, 80, 100]\n"},
    {"function.yaml", "apiVersion: nodus.dev/v1\n"
                      "kind: Function\n"
                      "metadata:\n"
                      "  name: embed\n"
                      "spec:\n"
                      "  image: nodus/pytorch:2.8-cuda12.8\n"
                      "  command: [python, serve.py]\n"
                      "  resources:\n"
                      "    gpu: {model: L4, count: 1}\n"
                      "  scaling: {minReplicas: 0, maxReplicas: 4, concurrency: 8}\n"
                      "  maxCostUSD: \"25.00\"\n"},
    {"host.yaml", "apiVersion: nodus.dev/v1\n"
                  "kind: Host\n"
                  "metadata:\n"
                  "  name: rack1-node01\n"
                  "spec:\n"
                  "  pool: lab\n"
                  "  gpus: {H100: 8}\n"
                  "  cordoned: false\n"},
    {"job.yaml", "# The resource model seed's Job, with the fields kinds.md adds.\n"
                 "apiVersion: nodus.dev/v1\n"
                 "kind: Job\n"
                 "metadata:\n"
                 "  name: train-a\n"
                 "  namespace: default\n"
                 "  labels:\n"
                 "    app: trainer\n"
                 "spec:\n"
                 "  image: nodus/pytorch:2.8-cuda12.8\n"
                 "  command: [python, train.py]\n"
                 "  args: [--epochs, \"3\"]\n"
                 "  env:\n"
                 "    - {name: WANDB_MODE, value: offline}\n"
                 "  resources:\n"
                 "    gpu: {model: H100, count: 1}\n"
                 "    cpu: \"8\"\n"
                 "    memory: 64Gi\n"
                 "  volumes:\n"
                 "    - {name: datasets, mountPath: /data, readOnly: true}\n"
                 "  maxCostUSD: \"40.00\"\n"
                 "  maxDuration: 6h\n"
                 "  placement:\n"
                 "    pool: lab\n"},
    {"pipeline.yaml", "apiVersion: nodus.dev/v1\n"
                      "kind: Pipeline\n"
                      "metadata:\n"
                      "  name: nightly\n"
                      "spec:\n"
                      "  maxCostUSD: \"120.00\"\n"
                      "  steps:\n"
                      "    - name: prep\n"
                      "      job: {image: nodus/pytorch:2.8-cuda12.8, command: [python, prep.py], "
                      "maxCostUSD: \"10.00\"}\n"
                      "    - name: train\n"
                      "      dependsOn: [prep]\n"
                      "      job:\n"
                      "        image: nodus/pytorch:2.8-cuda12.8\n"
                      "        command: [python, train.py]\n"
                      "        resources: {gpu: {model: H100, count: 4}}\n"
                      "        maxCostUSD: \"100.00\"\n"
                      "    - name: eval\n"
                      "      dependsOn: [train]\n"
                      "      job: {image: nodus/pytorch:2.8-cuda12.8, command: [python, eval.py], "
                      "maxCostUSD: \"10.00\"}\n"},
    {"pool.yaml", "# Every spec field of the Pool reference seed, with its values spelled out.\n"
                  "apiVersion: nodus.dev/v1\n"
                  "kind: Pool\n"
                  "metadata:\n"
                  "  name: lab\n"
                  "spec:\n"
                  "  sandboxCapable: true\n"
                  "  routing:\n"
                  "    mode: Prefer            # Prefer | Only\n"
                  "    burstToMarket: Approve  # Allow | Approve | Deny\n"
                  "    waitPolicy: Timeout     # Never | Cheaper | Timeout\n"
                  "    waitTimeout: 30m        # 1m .. 24h\n"
                  "  predict:\n"
                  "    enabled: false          # enabling needs billing:write and price consent\n"
                  "    horizon: 168h           # 24h .. 720h\n"
                  "  act:\n"
                  "    mode: Propose           # Off | Shadow | Propose | Auto\n"
                  "    paused: false\n"
                  "    policies:               # at most 16\n"
                  "      - {action: IdleReclaim, idleFor: 2h}\n"
                  "      - {action: Drain, schedule: \"0 2 * * 6\", duration: 4h}\n"
                  "      - {action: Defragment}\n"
                  "      - {action: WaitTuning, minWaitTimeout: 5m, maxWaitTimeout: 2h}\n"
                  "      - {action: Burst, maxGPUs: 8, maxRateUSDPerHour: \"3.00\"}\n"},
    {"sandbox.yaml", "apiVersion: nodus.dev/v1\n"
                     "kind: Sandbox\n"
                     "metadata:\n"
                     "  name: dev\n"
                     "spec:\n"
                     "  image: nodus/pytorch:2.8-cuda12.8\n"
                     "  resources:\n"
                     "    gpu: {model: L4, count: 1}\n"
                     "  volumes:\n"
                     "    - {name: datasets, mountPath: /data}\n"
                     "  ports:\n"
                     "    - {name: jupyter, port: 8888}\n"
                     "  idleTimeout: 30m\n"
                     "  maxCostUSD: \"10.00\"\n"},
    {"volume.yaml", "apiVersion: nodus.dev/v1\n"
                    "kind: Volume\n"
                    "metadata:\n"
                    "  name: datasets\n"
                    "spec:\n"
                    "  size: 100Gi\n"
                    "  accessMode: ReadWriteMany\n"},
};

static void test_examples_validate(void **state)
{
    (void)state;
    assert_int_equal(sizeof examples / sizeof examples[0], 8);
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        print_message("%s\n", examples[i].name);
        json_t *obj = load(examples[i].yaml);
        const struct nd_kind *k = kind_of(obj);
        struct nd_status st = ND_STATUS_INIT;
        json_t *warnings = json_array();
        /* as written, and once defaulted */
        for (int pass = 0; pass < 2; pass++) {
            if (pass)
                nd_kind_default(k, obj);
            int rc = nd_kind_validate(k, obj, ND_FIELD_VALIDATION_STRICT, warnings, &st);
            if (rc != 0)
                fail_msg("%s: %s", examples[i].name, st.message);
            assert_int_equal(json_array_size(warnings), 0);
        }
        nd_status_release(&st);
        json_decref(warnings);
        json_decref(obj);
    }
}

/* ---- defaults ---- */

static void test_defaults(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } rows[] = {
        /* the Pool with an empty spec gets every default of its reference */
        {"{apiVersion: nodus.dev/v1, kind: Pool, metadata: {name: p}, spec: {}}",
         "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Pool\",\"metadata\":{\"name\":\"p\"},"
         "\"spec\":{\"act\":{\"mode\":\"Off\"},\"predict\":{\"horizon\":\"168h\"},"
         "\"routing\":{\"burstToMarket\":\"Approve\",\"mode\":\"Prefer\",\"waitPolicy\":"
         "\"Timeout\",\"waitTimeout\":\"30m\"}}}"},
        /* given values stay; missing siblings are defaulted; nullable null stays */
        {"{apiVersion: nodus.dev/v1, kind: Pool, metadata: {name: p}, spec: {routing: {mode: "
         "Only, waitTimeout: 2h}, act: {mode: Auto, policies: null}, predict: {enabled: true}}}",
         "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Pool\",\"metadata\":{\"name\":\"p\"},"
         "\"spec\":{\"routing\":{\"mode\":\"Only\",\"waitTimeout\":\"2h\",\"burstToMarket\":"
         "\"Approve\",\"waitPolicy\":\"Timeout\"},\"act\":{\"mode\":\"Auto\",\"policies\":null},"
         "\"predict\":{\"enabled\":true,\"horizon\":\"168h\"}}}"},
        /* a null that is not nullable is pruned, then defaulted */
        {"{kind: Job, metadata: {name: j, creationTimestamp: null}, spec: {image: nodus/a:1, "
         "maxCostUSD: '1', state: null, volumes: [{name: d, mountPath: /d}]}}",
         "{\"kind\":\"Job\",\"metadata\":{\"name\":\"j\"},\"spec\":{\"image\":\"nodus/a:1\","
         "\"maxCostUSD\":\"1\",\"volumes\":[{\"name\":\"d\",\"mountPath\":\"/d\",\"readOnly\":"
         "false}],\"backoffLimit\":0,\"state\":\"Running\"}}"},
        /* a Pipeline step's job is defaulted as a Job's spec */
        {"{kind: Pipeline, spec: {steps: [{name: a, job: {image: nodus/a:1}}]}}",
         "{\"kind\":\"Pipeline\",\"spec\":{\"steps\":[{\"name\":\"a\",\"job\":{\"image\":"
         "\"nodus/a:1\",\"backoffLimit\":0,\"state\":\"Running\"}}],\"state\":\"Running\"}}"},
        {"{kind: Sandbox, spec: {image: nodus/a:1}}",
         "{\"kind\":\"Sandbox\",\"spec\":{\"image\":\"nodus/a:1\",\"command\":[\"/bin/bash\","
         "\"-l\"],\"idleTimeout\":\"30m\",\"state\":\"Running\"}}"},
        {"{kind: Function, spec: {image: nodus/a:1}}",
         "{\"kind\":\"Function\",\"spec\":{\"image\":\"nodus/a:1\",\"scaling\":{\"minReplicas\":"
         "0,\"maxReplicas\":1,\"concurrency\":1},\"state\":\"Running\"}}"},
        {"{kind: Function, spec: {scaling: {maxReplicas: 3}}}",
         "{\"kind\":\"Function\",\"spec\":{\"scaling\":{\"maxReplicas\":3,\"minReplicas\":0,"
         "\"concurrency\":1},\"state\":\"Running\"}}"},
        {"{kind: Budget, spec: {limitUSD: '5'}}",
         "{\"kind\":\"Budget\",\"spec\":{\"limitUSD\":\"5\",\"period\":\"Monthly\",\"action\":"
         "\"Block\",\"thresholds\":[50,80,100],\"state\":\"Running\"}}"},
        {"{kind: Volume, spec: {size: 1Gi}}",
         "{\"kind\":\"Volume\",\"spec\":{\"size\":\"1Gi\",\"accessMode\":\"ReadWriteOnce\"}}"},
        {"{kind: PoolAction, spec: {pool: lab}}",
         "{\"kind\":\"PoolAction\",\"spec\":{\"pool\":\"lab\",\"decision\":\"Pending\"}}"},
        {"{kind: Host, spec: {pool: lab}}",
         "{\"kind\":\"Host\",\"spec\":{\"pool\":\"lab\",\"cordoned\":false}}"},
        /* no spec: nothing to default inside it; a spec of the wrong type is left alone */
        {"{kind: Job}", "{\"kind\":\"Job\"}"},
        {"{kind: Job, spec: [1]}", "{\"kind\":\"Job\",\"spec\":[1]}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *obj = load(rows[i].in);
        const struct nd_kind *k =
            nd_kind_by_kind(NULL, json_string_value(json_object_get(obj, "kind")));
        nd_kind_default(k, obj);
        char *got = json_dumps(obj, JSON_COMPACT);
        print_message("%s\n", got);
        assert_string_equal(got, rows[i].out);
        /* defaulting twice changes nothing */
        nd_kind_default(k, obj);
        char *again = json_dumps(obj, JSON_COMPACT);
        assert_string_equal(again, got);
        free(again);
        free(got);
        json_decref(obj);
    }
    nd_kind_default(nd_kind_lookup("jobs"), NULL); /* tolerated */
}

static void test_prune(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } rows[] = {
        /* unknown members go, at any depth; known ones stay */
        {"{apiVersion: nodus.dev/v1, kind: Job, metadata: {name: j, colour: red}, spec: {image: "
         "nodus/a:1, gpuCount: 2, resources: {gpu: {model: L4, count: 1, speed: fast}}}}",
         "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\"},"
         "\"spec\":{\"image\":\"nodus/a:1\",\"resources\":{\"gpu\":{\"model\":\"L4\","
         "\"count\":1}}}}"},
        /* map values (labels), list items and preserved trees (fieldsV1) are kept */
        {"{kind: Job, metadata: {labels: {a: b}, managedFields: [{manager: m, fieldsV1: {'f:spec': "
         "{'f:x': {}}}, extra: 1}]}, spec: {env: [{name: A, value: B, secret: C}]}}",
         "{\"kind\":\"Job\",\"metadata\":{\"labels\":{\"a\":\"b\"},\"managedFields\":"
         "[{\"manager\":\"m\",\"fieldsV1\":{\"f:spec\":{\"f:x\":{}}}}]},\"spec\":{\"env\":"
         "[{\"name\":\"A\",\"value\":\"B\"}]}}"},
        {"{kind: Pool, spec: {routing: {mode: Only, speed: 1}, nothing: {}}}",
         "{\"kind\":\"Pool\",\"spec\":{\"routing\":{\"mode\":\"Only\"}}}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *obj = load(rows[i].in);
        const struct nd_kind *k =
            nd_kind_by_kind(NULL, json_string_value(json_object_get(obj, "kind")));
        nd_kind_prune(k, obj);
        char *got = json_dumps(obj, JSON_COMPACT);
        assert_string_equal(got, rows[i].out);
        free(got);
        json_decref(obj);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schemas_load),
        cmocka_unit_test(test_prune),
        cmocka_unit_test(test_schemas_described),
        cmocka_unit_test(test_registry_matches_schemas),
        cmocka_unit_test(test_schema_at),
        cmocka_unit_test(test_pool_seed),
        cmocka_unit_test(test_examples_validate),
        cmocka_unit_test(test_defaults),
    };
    return cmocka_run_group_tests_name("schema", tests, NULL, NULL);
}
