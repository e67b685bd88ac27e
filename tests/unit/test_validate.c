/* Unit tests of validation (nd_kind_validate, fieldValidation) and update checks
 * (nd_kind_check_update); the string formats are test_formats.c's. */
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

/* "reason|field|message" of every cause, one per line. */
static char *causes_text(const struct nd_status *st)
{
    struct nd_buf b = ND_BUF_INIT;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(st->details, "causes"), i, c)
    {
        const char *field = json_string_value(json_object_get(c, "field"));
        nd_buf_addf(&b, "%s|%s|%s\n", json_string_value(json_object_get(c, "reason")),
                    field ? field : "", json_string_value(json_object_get(c, "message")));
    }
    return nd_buf_detach(&b);
}

static char *join_strings(const json_t *arr)
{
    struct nd_buf b = ND_BUF_INIT;
    size_t i;
    json_t *s;
    json_array_foreach(arr, i, s) nd_buf_addf(&b, "%s\n", json_string_value(s));
    return nd_buf_detach(&b);
}

#define JOB  "apiVersion: nodus.dev/v1\nkind: Job\nmetadata: {name: x}\n"
#define POOL "apiVersion: nodus.dev/v1\nkind: Pool\nmetadata: {name: p}\n"
#define IMG  "image: nodus/pytorch:2.8-cuda12.8"

struct invalid_row {
    const char *kind;
    const char *yaml;
    const char *message; /* NULL: valid */
    const char *causes;
};

static const struct invalid_row invalid[] = {
    /* the brief's example: required and bounds */
    {"Job", JOB "spec: {" IMG ", resources: {gpu: {model: H100, count: -1}}}",
     "Job.nodus.dev \"x\" is invalid: [spec.maxCostUSD: Required value, "
     "spec.resources.gpu.count: Invalid value: -1: must be greater than or equal to 1]",
     "FieldValueRequired|spec.maxCostUSD|Required value\n"
     "FieldValueInvalid|spec.resources.gpu.count|Invalid value: -1: must be greater than or equal "
     "to 1\n"},
    {"Job", JOB "spec: {" IMG ", maxCostUSD: '1', resources: {gpu: {model: H100, count: 9}}}",
     "Job.nodus.dev \"x\" is invalid: spec.resources.gpu.count: Invalid value: 9: must be less "
     "than or equal to 8",
     "FieldValueInvalid|spec.resources.gpu.count|Invalid value: 9: must be less than or equal to "
     "8\n"},
    /* enums */
    {"Pool", POOL "spec: {routing: {mode: Sometimes}}",
     "Pool.nodus.dev \"p\" is invalid: spec.routing.mode: Unsupported value: \"Sometimes\": "
     "supported values: \"Prefer\", \"Only\"",
     "FieldValueNotSupported|spec.routing.mode|Unsupported value: \"Sometimes\": supported "
     "values: \"Prefer\", \"Only\"\n"},
    {"Pool", POOL "spec: {act: {mode: off}}",
     "Pool.nodus.dev \"p\" is invalid: spec.act.mode: Unsupported value: \"off\": supported "
     "values: \"Off\", \"Shadow\", \"Propose\", \"Auto\"",
     "FieldValueNotSupported|spec.act.mode|Unsupported value: \"off\": supported values: \"Off\", "
     "\"Shadow\", \"Propose\", \"Auto\"\n"},
    {"Pool", POOL "spec: {act: {mode: Off}, routing: {waitPolicy: Timeout}}", NULL, NULL},
    /* duration bounds */
    {"Pool", POOL "spec: {routing: {waitTimeout: 30s}}",
     "Pool.nodus.dev \"p\" is invalid: spec.routing.waitTimeout: Invalid value: \"30s\": must be "
     "at least 1m",
     "FieldValueInvalid|spec.routing.waitTimeout|Invalid value: \"30s\": must be at least 1m\n"},
    {"Pool", POOL "spec: {routing: {waitTimeout: 25h}}",
     "Pool.nodus.dev \"p\" is invalid: spec.routing.waitTimeout: Invalid value: \"25h\": must be "
     "at most 24h",
     "FieldValueInvalid|spec.routing.waitTimeout|Invalid value: \"25h\": must be at most 24h\n"},
    {"Pool", POOL "spec: {routing: {waitTimeout: 1m}, predict: {horizon: 720h}}", NULL, NULL},
    {"Pool", POOL "spec: {routing: {waitTimeout: 24h0m0s}, predict: {horizon: 24h}}", NULL, NULL},
    {"Pool", POOL "spec: {predict: {horizon: 12h}}",
     "Pool.nodus.dev \"p\" is invalid: spec.predict.horizon: Invalid value: \"12h\": must be at "
     "least 24h",
     "FieldValueInvalid|spec.predict.horizon|Invalid value: \"12h\": must be at least 24h\n"},
    {"Pool", POOL "spec: {predict: {horizon: 720h1s}, routing: {waitTimeout: soon}}",
     "Pool.nodus.dev \"p\" is invalid: [spec.predict.horizon: Invalid value: \"720h1s\": must be "
     "at most 720h, spec.routing.waitTimeout: Invalid value: \"soon\": must be a duration such as "
     "\"30m\", \"1h30m\" or \"90s\"]",
     "FieldValueInvalid|spec.predict.horizon|Invalid value: \"720h1s\": must be at most 720h\n"
     "FieldValueInvalid|spec.routing.waitTimeout|Invalid value: \"soon\": must be a duration such "
     "as \"30m\", \"1h30m\" or \"90s\"\n"},
    {"Pool", POOL "spec: {act: {policies: [{action: IdleReclaim, idleFor: -2h}]}}",
     "Pool.nodus.dev \"p\" is invalid: spec.act.policies[0].idleFor: Invalid value: \"-2h\": must "
     "not be negative",
     "FieldValueInvalid|spec.act.policies[0].idleFor|Invalid value: \"-2h\": must not be "
     "negative\n"},
    /* too many */
    {"Pool",
     POOL "spec: {act: {policies: [{action: Defragment}, {action: Defragment}, {action: "
          "Defragment}, {action: Defragment}, {action: Defragment}, {action: Defragment}, "
          "{action: Defragment}, {action: Defragment}, {action: Defragment}, {action: Defragment}, "
          "{action: Defragment}, {action: Defragment}, {action: Defragment}, {action: Defragment}, "
          "{action: Defragment}, {action: Defragment}, {action: Defragment}]}}",
     "Pool.nodus.dev \"p\" is invalid: spec.act.policies: Too many: 17: must have at most 16 items",
     "FieldValueTooMany|spec.act.policies|Too many: 17: must have at most 16 items\n"},
    /* wrong types */
    {"Job", JOB "spec: {" IMG ", maxCostUSD: 40, backoffLimit: '3', command: python}",
     "Job.nodus.dev \"x\" is invalid: [spec.maxCostUSD: Invalid value: 40: must be of type "
     "string, spec.backoffLimit: Invalid value: \"3\": must be of type integer, spec.command: "
     "Invalid value: \"python\": must be of type array]",
     "FieldValueTypeInvalid|spec.maxCostUSD|Invalid value: 40: must be of type string\n"
     "FieldValueTypeInvalid|spec.backoffLimit|Invalid value: \"3\": must be of type integer\n"
     "FieldValueTypeInvalid|spec.command|Invalid value: \"python\": must be of type array\n"},
    {"Pool", POOL "spec: [1, 2]",
     "Pool.nodus.dev \"p\" is invalid: spec: Invalid value: [1,2]: must be of type object",
     "FieldValueTypeInvalid|spec|Invalid value: [1,2]: must be of type object\n"},
    {"Pool", POOL "spec: {sandboxCapable: yes, act: {policies: [{action: Burst, maxGPUs: 1.5}]}}",
     "Pool.nodus.dev \"p\" is invalid: [spec.sandboxCapable: Invalid value: \"yes\": must be of "
     "type boolean, spec.act.policies[0].maxGPUs: Invalid value: 1.5: must be of type integer]",
     "FieldValueTypeInvalid|spec.sandboxCapable|Invalid value: \"yes\": must be of type boolean\n"
     "FieldValueTypeInvalid|spec.act.policies[0].maxGPUs|Invalid value: 1.5: must be of type "
     "integer\n"},
    {"Job", JOB "spec: {" IMG ", maxCostUSD: '1', backoffLimit: 2.0, resources: {cpu: 8}}", NULL,
     NULL},
    {"Host", "kind: Host\nmetadata: {name: h}\nspec: {pool: lab, gpus: {H100: 3000000000}}",
     "Host.nodus.dev \"h\" is invalid: spec.gpus[H100]: Invalid value: 3000000000: must be less "
     "than or equal to 64",
     "FieldValueInvalid|spec.gpus[H100]|Invalid value: 3000000000: must be less than or equal to "
     "64\n"},
    /* required, and null where null is not allowed */
    {"Volume", "kind: Volume\nmetadata: {name: v}\nspec: {}",
     "Volume.nodus.dev \"v\" is invalid: spec.size: Required value",
     "FieldValueRequired|spec.size|Required value\n"},
    {"Volume", "kind: Volume\nmetadata: {name: v}",
     "Volume.nodus.dev \"v\" is invalid: spec: Required value",
     "FieldValueRequired|spec|Required value\n"},
    {"Volume", "kind: Volume\nspec: {size: 1Gi}",
     "Volume.nodus.dev \"\" is invalid: metadata.name: Required value: name or generateName is "
     "required",
     "FieldValueRequired|metadata.name|Required value: name or generateName is required\n"},
    {"Volume", "kind: Volume\nmetadata: [v]\nspec: {size: 1Gi}",
     "Volume.nodus.dev \"\" is invalid: metadata: Invalid value: [\"v\"]: must be of type object",
     "FieldValueTypeInvalid|metadata|Invalid value: [\"v\"]: must be of type object\n"},
    {"Job", JOB "spec: {" IMG ", maxCostUSD: null}",
     "Job.nodus.dev \"x\" is invalid: spec.maxCostUSD: Required value",
     "FieldValueRequired|spec.maxCostUSD|Required value\n"},
    {"Pool", POOL "spec: {act: {policies: [{idleFor: 2h}]}}",
     "Pool.nodus.dev \"p\" is invalid: spec.act.policies[0].action: Required value",
     "FieldValueRequired|spec.act.policies[0].action|Required value\n"},
    {"Pool", POOL "spec: {act: {policies: null}}", NULL, NULL},
    /* names */
    {"Pool", "kind: Pool\nmetadata: {labels: {app: x}}\nspec: {}",
     "Pool.nodus.dev \"\" is invalid: metadata.name: Required value: name or generateName is "
     "required",
     "FieldValueRequired|metadata.name|Required value: name or generateName is required\n"},
    {"Pool", "kind: Pool\nmetadata: {generateName: lab-}\nspec: {}", NULL, NULL},
    {"Pool", "kind: Pool\nmetadata: {name: Lab_1}\nspec: {}",
     "Pool.nodus.dev \"Lab_1\" is invalid: metadata.name: Invalid value: \"Lab_1\": a lowercase "
     "RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
     "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
     "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
     "FieldValueInvalid|metadata.name|Invalid value: \"Lab_1\": a lowercase RFC 1123 label must "
     "consist of lower case alphanumeric characters or '-', and must start and end with an "
     "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"},
    {"Pool",
     "kind: Pool\nmetadata: {name: p, namespace: default, labels: {app: '-x'}, annotations: "
     "{'a b': v}}\nspec: {}",
     "Pool.nodus.dev \"p\" is invalid: [metadata.labels: Invalid value: \"-x\": a valid label "
     "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
     "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
     "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), "
     "metadata.annotations: Invalid value: \"a b\": name part must consist of alphanumeric "
     "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
     "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]",
     NULL},
    /* header */
    {"Job",
     "apiVersion: nodus.dev/v2\nkind: Jobs\nmetadata: {name: x}\nspec: {" IMG ", maxCostUSD: '1'}",
     "Job.nodus.dev \"x\" is invalid: [apiVersion: Invalid value: \"nodus.dev/v2\": must be "
     "nodus.dev/v1, kind: Invalid value: \"Jobs\": must be Job]",
     "FieldValueInvalid|apiVersion|Invalid value: \"nodus.dev/v2\": must be nodus.dev/v1\n"
     "FieldValueInvalid|kind|Invalid value: \"Jobs\": must be Job\n"},
    /* formats */
    {"Job",
     JOB "spec: {image: 'pytorch:latest', maxCostUSD: '40.001.2', resources: {memory: lots, cpu: "
         "-1}, placement: {pool: Lab, maxRateUSDPerHour: '-1.00'}, maxDuration: 1000h}",
     "Job.nodus.dev \"x\" is invalid: [spec.image: Invalid value: \"pytorch:latest\": must name "
     "a published image as nodus/<name>:<tag>, such as \"nodus/pytorch:2.8-cuda12.8\", "
     "spec.maxCostUSD: Invalid value: \"40.001.2\": must be a decimal amount of US dollars with "
     "at most 6 decimal places, such as \"40.00\", spec.resources.memory: Invalid value: \"lots\": "
     "must be a quantity such as \"100Gi\", \"500m\" or \"8\", spec.resources.cpu: Invalid value: "
     "-1: must not be negative, spec.placement.pool: Invalid value: \"Lab\": a lowercase RFC 1123 "
     "label must consist of lower case alphanumeric characters or '-', and must start and end "
     "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation "
     "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.placement.maxRateUSDPerHour: Invalid value: "
     "\"-1.00\": must not be negative, spec.maxDuration: Invalid value: \"1000h\": must be at "
     "most 720h]",
     NULL},
    {"Pool", POOL "spec: {act: {policies: [{action: Drain, schedule: '0 2 * *', duration: 4h}]}}",
     "Pool.nodus.dev \"p\" is invalid: spec.act.policies[0].schedule: Invalid value: \"0 2 * *\": "
     "must be a cron expression of 5 fields (minute hour day-of-month month day-of-week) such "
     "as \"0 2 * * 6\"",
     NULL},
    {"Volume", "kind: Volume\nmetadata: {name: v}\nspec: {size: 512Mi}",
     "Volume.nodus.dev \"v\" is invalid: spec.size: Invalid value: \"512Mi\": must be at least 1Gi",
     NULL},
    {"Volume", "kind: Volume\nmetadata: {name: v}\nspec: {size: 65Ti}",
     "Volume.nodus.dev \"v\" is invalid: spec.size: Invalid value: \"65Ti\": must be at most 64Ti",
     NULL},
    {"Volume", "kind: Volume\nmetadata: {name: v}\nspec: {size: 2000000000}", NULL, NULL},
    {"Job",
     JOB "spec: {" IMG ", maxCostUSD: '1', env: [{name: 1A}], volumes: [{name: d, "
         "mountPath: data}]}",
     "Job.nodus.dev \"x\" is invalid: [spec.env[0].name: Invalid value: \"1A\": must match "
     "'^[A-Za-z_][A-Za-z0-9_]*$', spec.volumes[0].mountPath: Invalid value: \"data\": must match "
     "'^/']",
     NULL},
    {"Host", "kind: Host\nmetadata: {name: h}\nspec: {pool: lab, gpus: {'': 1}}", NULL, NULL},
    {"Job", JOB "spec: {" IMG ", maxCostUSD: '1', resources: {gpu: {model: '', count: 1}}}",
     "Job.nodus.dev \"x\" is invalid: spec.resources.gpu.model: Invalid value: \"\": must be at "
     "least 1 characters long",
     NULL},
    /* the kinds' own rules */
    {"Pipeline",
     "kind: Pipeline\nmetadata: {name: nightly}\nspec:\n  steps:\n"
     "  - {name: prep, dependsOn: [eval], job: {" IMG ", maxCostUSD: '1'}}\n"
     "  - {name: train, dependsOn: [prep], job: {" IMG ", maxCostUSD: '1'}}\n"
     "  - {name: eval, dependsOn: [train], job: {" IMG ", maxCostUSD: '1'}}\n",
     "Pipeline.nodus.dev \"nightly\" is invalid: spec.steps[1].dependsOn[0]: Invalid value: "
     "\"prep\": dependency cycle: prep -> eval -> train -> prep",
     "FieldValueInvalid|spec.steps[1].dependsOn[0]|Invalid value: \"prep\": dependency cycle: "
     "prep -> eval -> train -> prep\n"},
    {"Pipeline",
     "kind: Pipeline\nmetadata: {name: nightly}\nspec:\n  steps:\n"
     "  - {name: a, dependsOn: [a, b, b, zz], job: {" IMG ", maxCostUSD: '1', volumes: [{name: "
     "d, mountPath: /d}, {name: d, mountPath: /e}]}}\n"
     "  - {name: b, job: {" IMG ", maxCostUSD: '1', bogus: 1}}\n"
     "  - {name: b, job: {" IMG "}}\n"
     "  - {name: a-step-name-long-enough-to-pass-sixty-three-with-the-pipe, job: {" IMG
     ", maxCostUSD: '1'}}\n",
     NULL,
     "FieldValueInvalid|spec.steps[1].job.bogus|unknown field \"spec.steps[1].job.bogus\"\n"
     "FieldValueRequired|spec.steps[2].job.maxCostUSD|Required value\n"
     "FieldValueDuplicate|spec.steps[2].name|Duplicate value: \"b\"\n"
     "FieldValueInvalid|spec.steps[3].name|Invalid value: \"a-step-name-long-enough-to-pass-"
     "sixty-three-with-the-pipe\": the step's Job name \"nightly-a-step-name-long-enough-to-pass-"
     "sixty-three-with-the-pipe\" must be no more than 63 characters\n"
     "FieldValueInvalid|spec.steps[0].dependsOn[0]|Invalid value: \"a\": a step cannot depend on "
     "itself\n"
     "FieldValueDuplicate|spec.steps[0].dependsOn[2]|Duplicate value: \"b\"\n"
     "FieldValueInvalid|spec.steps[0].dependsOn[3]|Invalid value: \"zz\": no step of this "
     "Pipeline has that name\n"
     "FieldValueDuplicate|spec.steps[0].job.volumes[1].name|Duplicate value: \"d\"\n"},
    {"Pipeline", "kind: Pipeline\nmetadata: {name: p}\nspec: {steps: []}",
     "Pipeline.nodus.dev \"p\" is invalid: spec.steps: Invalid value: 0: must have at least 1 "
     "items",
     "FieldValueInvalid|spec.steps|Invalid value: 0: must have at least 1 items\n"},
    {"Budget",
     "kind: Budget\nmetadata: {name: b}\nspec: {limitUSD: '5', thresholds: [50, 40, 101]}",
     "Budget.nodus.dev \"b\" is invalid: [spec.thresholds[2]: Invalid value: 101: must be less "
     "than or equal to 100, spec.thresholds[1]: Invalid value: 40: must be greater than the "
     "threshold before it (50)]",
     NULL},
    {"Budget",
     "kind: Budget\nmetadata: {name: b}\nspec: {limitUSD: '5', selector: {matchExpressions: "
     "[{key: app, operator: In}, {key: tier, operator: Exists, values: [a]}, {key: x, operator: "
     "Has}]}}",
     "Budget.nodus.dev \"b\" is invalid: [spec.selector.matchExpressions[2].operator: Unsupported "
     "value: \"Has\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", "
     "spec.selector.matchExpressions[0].values: Required value: must be specified when "
     "`operator` is 'In' or 'NotIn', spec.selector.matchExpressions[1].values: Forbidden: may "
     "not be specified when `operator` is 'Exists' or 'DoesNotExist']",
     NULL},
    {"Pool",
     POOL "spec: {act: {policies: [{action: Drain, idleFor: 2h, maxGPUs: 2}, {action: WaitTuning, "
          "minWaitTimeout: 3h, maxWaitTimeout: 2h}]}}",
     "Pool.nodus.dev \"p\" is invalid: [spec.act.policies[0].idleFor: Forbidden: may only be set "
     "when action is IdleReclaim, spec.act.policies[0].maxGPUs: Forbidden: may only be set when "
     "action is Burst, spec.act.policies[1].minWaitTimeout: Invalid value: \"3h\": must not be "
     "greater than maxWaitTimeout (2h)]",
     "FieldValueForbidden|spec.act.policies[0].idleFor|Forbidden: may only be set when action is "
     "IdleReclaim\n"
     "FieldValueForbidden|spec.act.policies[0].maxGPUs|Forbidden: may only be set when action is "
     "Burst\n"
     "FieldValueInvalid|spec.act.policies[1].minWaitTimeout|Invalid value: \"3h\": must not be "
     "greater than maxWaitTimeout (2h)\n"},
    {"Function", "kind: Function\nmetadata: {name: f}\nspec: {" IMG ", scaling: {minReplicas: 2}}",
     "Function.nodus.dev \"f\" is invalid: spec.scaling.minReplicas: Invalid value: 2: must be "
     "less than or equal to maxReplicas (1)",
     NULL},
    {"Function",
     "kind: Function\nmetadata: {name: f}\nspec: {" IMG ", scaling: {minReplicas: 2, maxReplicas: "
     "2}}",
     NULL, NULL},
    {"Sandbox",
     "kind: Sandbox\nmetadata: {name: s}\nspec: {" IMG ", ports: [{name: web, port: 80}, {name: "
     "web, port: 80}, {name: big, port: 70000}]}",
     "Sandbox.nodus.dev \"s\" is invalid: [spec.ports[2].port: Invalid value: 70000: must be less "
     "than or equal to 65535, spec.ports[1].name: Duplicate value: \"web\", spec.ports[1].port: "
     "Duplicate value: 80]",
     NULL},
    /* status is not checked on spec writes */
    {"Job", JOB "spec: {" IMG ", maxCostUSD: '1'}\nstatus: {phase: 5, bogus: true}", NULL, NULL},
};

static void test_invalid(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        const struct invalid_row *r = &invalid[i];
        print_message("row %zu\n", i);
        json_t *obj = load(r->yaml);
        const struct nd_kind *k = nd_kind_by_kind(NULL, r->kind);
        struct nd_status st = ND_STATUS_INIT;
        json_t *warnings = json_array();
        int rc = nd_kind_validate(k, obj, ND_FIELD_VALIDATION_STRICT, warnings, &st);
        if (!r->message && !r->causes) {
            if (rc != 0)
                fail_msg("row %zu: %s", i, st.message);
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(st.reason, "Invalid");
            assert_int_equal(st.code, 422);
            if (r->message)
                assert_string_equal(st.message, r->message);
            char *causes = causes_text(&st);
            if (r->causes)
                assert_string_equal(causes, r->causes);
            free(causes);
            assert_string_equal(json_string_value(json_object_get(st.details, "kind")), k->kind);
            assert_string_equal(json_string_value(json_object_get(st.details, "group")),
                                "nodus.dev");
        }
        assert_int_equal(json_array_size(warnings), 0);
        json_decref(warnings);
        nd_status_release(&st);
        json_decref(obj);
    }
}

/* Unknown fields under each fieldValidation mode. */
static void test_field_validation(void **state)
{
    (void)state;
    json_t *obj = load(JOB "spec: {" IMG ", maxCostUSD: '1', foo: 1, resources: {gpu: {model: "
                           "H100, count: 1, vendor: x}}}\nextra: true\nstatus: {what: 1}");
    const struct nd_kind *k = nd_kind_lookup("jobs");
    struct nd_status st = ND_STATUS_INIT;
    json_t *w = json_array();

    assert_int_equal(nd_kind_validate(k, obj, ND_FIELD_VALIDATION_IGNORE, w, &st), 0);
    assert_int_equal(json_array_size(w), 0);

    assert_int_equal(nd_kind_validate(k, obj, ND_FIELD_VALIDATION_WARN, w, &st), 0);
    char *text = join_strings(w);
    assert_string_equal(text, "unknown field \"spec.foo\"\n"
                              "unknown field \"spec.resources.gpu.vendor\"\n"
                              "unknown field \"extra\"\n");
    free(text);
    assert_int_equal(nd_kind_validate(k, obj, ND_FIELD_VALIDATION_WARN, NULL, &st), 0);

    json_array_clear(w);
    assert_int_equal(nd_kind_validate(k, obj, ND_FIELD_VALIDATION_STRICT, w, &st), -1);
    assert_int_equal(json_array_size(w), 0);
    assert_string_equal(st.message, "Job.nodus.dev \"x\" is invalid: [unknown field \"spec.foo\", "
                                    "unknown field \"spec.resources.gpu.vendor\", unknown field "
                                    "\"extra\"]");
    text = causes_text(&st);
    assert_string_equal(text, "FieldValueInvalid|spec.foo|unknown field \"spec.foo\"\n"
                              "FieldValueInvalid|spec.resources.gpu.vendor|unknown field "
                              "\"spec.resources.gpu.vendor\"\n"
                              "FieldValueInvalid|extra|unknown field \"extra\"\n");
    free(text);
    nd_status_release(&st);

    /* the status subresource checks status only */
    assert_int_equal(nd_kind_validate_status(k, obj, ND_FIELD_VALIDATION_WARN, w, &st), 0);
    text = join_strings(w);
    assert_string_equal(text, "unknown field \"status.what\"\n");
    free(text);
    json_decref(obj);
    obj = load(JOB "status: {phase: 5, costUSD: '1.00'}");
    assert_int_equal(nd_kind_validate_status(k, obj, ND_FIELD_VALIDATION_STRICT, NULL, &st), -1);
    assert_string_equal(st.message, "Job.nodus.dev \"x\" is invalid: status.phase: Invalid value: "
                                    "5: must be of type string");
    nd_status_release(&st);
    json_decref(obj);
    json_decref(w);

    /* not an object at all */
    obj = json_string("job");
    assert_int_equal(nd_kind_validate(k, obj, ND_FIELD_VALIDATION_STRICT, NULL, &st), -1);
    assert_string_equal(
        st.message,
        "Job.nodus.dev \"\" is invalid: Invalid value: \"job\": must be of type object");
    assert_null(json_object_get(json_array_get(json_object_get(st.details, "causes"), 0), "field"));
    nd_status_release(&st);
    json_decref(obj);

    static const struct {
        const char *in;
        int rc;
        enum nd_field_validation fv;
    } parse[] = {
        {"Strict", 0, ND_FIELD_VALIDATION_STRICT},
        {"Warn", 0, ND_FIELD_VALIDATION_WARN},
        {"Ignore", 0, ND_FIELD_VALIDATION_IGNORE},
        {"", 0, ND_FIELD_VALIDATION_WARN},
        {NULL, 0, ND_FIELD_VALIDATION_WARN},
        {"strict", -1, 0},
        {"All", -1, 0},
    };
    for (size_t i = 0; i < sizeof parse / sizeof parse[0]; i++) {
        enum nd_field_validation fv = 99;
        assert_int_equal(nd_field_validation_parse(parse[i].in, &fv, &st), parse[i].rc);
        if (parse[i].rc == 0) {
            assert_int_equal(fv, parse[i].fv);
        } else {
            assert_string_equal(st.reason, "BadRequest");
            assert_non_null(strstr(st.message, "must be Ignore, Warn or Strict"));
        }
        nd_status_release(&st);
    }
}

/* The fix: the problems' own when each has one (each once, in order), else the reason's. */
static void test_own_fixes(void **state)
{
    (void)state;
    static const struct {
        const char *fixes[3]; /* per problem; NULL: none */
        size_t n;
        const char *want;
    } cases[] = {
        {{"write a"}, 1, "write a"},
        {{"write a", "write b", "write a"}, 3, "write a; write b"},
        {{"write a", NULL}, 2, "correct the fields named in the causes; see what a Job takes: "
                               "nodus explain job --recursive"},
        {{NULL}, 1, "correct the fields named in the causes; see what a Job takes: "
                    "nodus explain job --recursive"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct nd_field_errors e;
        nd_field_errors_init(&e);
        for (size_t j = 0; j < cases[i].n; j++) {
            size_t first = nd_field_errors_count(&e);
            nd_field_errors_required(&e, "spec.a", NULL);
            if (cases[i].fixes[j])
                nd_field_errors_fix(&e, first, "%s", cases[i].fixes[j]);
        }
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(nd_field_errors_to_status(&e, "Invalid", nd_kind_lookup("jobs"), "j", &st),
                         -1);
        assert_string_equal(st.fix, cases[i].want);
        nd_status_release(&st);
        nd_field_errors_release(&e);
    }
}

/* Messages list identical problems once, causes every time; core kinds have no group. */
static void test_message_shape(void **state)
{
    (void)state;
    struct nd_field_errors e;
    nd_field_errors_init(&e);
    nd_field_errors_required(&e, "spec.a", NULL);
    nd_field_errors_required(&e, "spec.a", NULL);
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_field_errors_to_status(&e, "Invalid", nd_kind_lookup("ns"), "x\"y", &st),
                     -1);
    assert_string_equal(st.message, "Namespace \"x\\\"y\" is invalid: spec.a: Required value");
    assert_int_equal(nd_status_cause_count(&st), 2);
    assert_null(json_object_get(st.details, "group"));
    assert_string_equal(json_string_value(json_object_get(st.details, "name")), "x\"y");
    nd_status_release(&st);
    nd_field_errors_release(&e);

    nd_field_errors_init(&e);
    assert_int_equal(nd_field_errors_to_status(&e, "Invalid", nd_kind_lookup("ns"), "x", &st), 0);
    assert_false(nd_status_failed(&st));
    json_t *v = json_real(0.1);
    nd_field_errors_invalid(&e, "a", v, "x");
    json_decref(v);
    v = json_pack("{s:i}", "k", 1);
    nd_field_errors_invalid(&e, "b", v, "%s", "");
    json_decref(v);
    nd_field_errors_invalid(&e, "c", NULL, "no value %d", 3);
    v = json_null();
    nd_field_errors_duplicate(&e, "d", v);
    json_decref(v);
    nd_field_errors_too_long(&e, "e", 63);
    nd_field_errors_not_supported(&e, "f", json_true(), NULL);
    assert_int_equal(nd_field_errors_count(&e), 6);
    assert_int_equal(nd_field_errors_to_status(&e, "Invalid", nd_kind_lookup("jobs"), "j", &st),
                     -1);
    assert_string_equal(st.message, "Job.nodus.dev \"j\" is invalid: [a: Invalid value: 0.1: x, "
                                    "b: Invalid value: {\"k\":1}, c: Invalid value: no value 3, "
                                    "d: Duplicate value: null, e: Too long: may not be longer "
                                    "than 63, f: Unsupported value: true]");
    nd_status_release(&st);
    nd_field_errors_release(&e);
}

/* ---- updates ---- */

struct update_row {
    const char *kind;
    const char *old_yaml, *new_yaml;
    const char *reason; /* NULL: accepted */
    const char *message;
    const char *causes;
};

#define JOB_OLD                                                                                    \
    "kind: Job\nmetadata: {name: train-a, namespace: default, uid: job_1, labels: {a: b}}\n"       \
    "spec: {image: nodus/pytorch:2.8-cuda12.8, command: [python, train.py], maxCostUSD: '40.00', " \
    "maxDuration: 6h, state: Running, resources: {gpu: {model: H100, count: 1}}}\n"                \
    "status: {phase: Running}\n"

static const struct update_row updates[] = {
    /* nothing changed, or only what may change */
    {"Job", JOB_OLD, JOB_OLD, NULL, NULL, NULL},
    {"Job", JOB_OLD,
     "kind: Job\nmetadata: {name: train-a, labels: {a: c, d: e}, annotations: {x: y}}\n"
     "spec: {image: nodus/pytorch:2.8-cuda12.8, command: [python, train.py], maxCostUSD: '40.5', "
     "maxDuration: 6h1m, state: Suspended, resources: {gpu: {model: H100, count: 1}}}\n"
     "status: {phase: Queued, costUSD: '3.00'}\n",
     NULL, NULL, NULL},
    /* removing maxDuration removes the limit: a raise */
    {"Job", JOB_OLD,
     "kind: Job\nmetadata: {name: train-a}\nspec: {image: nodus/pytorch:2.8-cuda12.8, command: "
     "[python, train.py], maxCostUSD: '40.00', state: Running, resources: {gpu: {model: H100, "
     "count: 1}}}\n",
     NULL, NULL, NULL},
    /* immutable fields: one cause each */
    {"Job", JOB_OLD,
     "kind: Job\nmetadata: {name: train-a}\nspec: {image: nodus/pytorch:2.9-cuda12.8, command: "
     "[python, eval.py], maxCostUSD: '40.00', maxDuration: 6h, state: Running, resources: {gpu: "
     "{model: H100, count: 2}, cpu: '8'}}\n",
     "FieldImmutable",
     "Job.nodus.dev \"train-a\" is invalid: [spec.image: Forbidden: field is immutable, "
     "spec.command: Forbidden: field is immutable, spec.resources.gpu.count: Forbidden: field "
     "is immutable, spec.resources.cpu: Forbidden: field is immutable]",
     "FieldValueForbidden|spec.image|Forbidden: field is immutable\n"
     "FieldValueForbidden|spec.command|Forbidden: field is immutable\n"
     "FieldValueForbidden|spec.resources.gpu.count|Forbidden: field is immutable\n"
     "FieldValueForbidden|spec.resources.cpu|Forbidden: field is immutable\n"},
    /* raise-only fields may not be lowered, nor set where there was no limit */
    {"Job", JOB_OLD,
     "kind: Job\nmetadata: {name: train-a}\nspec: {image: nodus/pytorch:2.8-cuda12.8, command: "
     "[python, train.py], maxCostUSD: '39.999999', maxDuration: 5h59m, state: Running, "
     "resources: {gpu: {model: H100, count: 1}}}\n",
     "Invalid",
     "Job.nodus.dev \"train-a\" is invalid: [spec.maxCostUSD: Invalid value: \"39.999999\": may "
     "only be raised (it is \"40.00\"), spec.maxDuration: Invalid value: \"5h59m\": may only be "
     "raised (it is \"6h\")]",
     "FieldValueInvalid|spec.maxCostUSD|Invalid value: \"39.999999\": may only be raised (it is "
     "\"40.00\")\n"
     "FieldValueInvalid|spec.maxDuration|Invalid value: \"5h59m\": may only be raised (it is "
     "\"6h\")\n"},
    {"Sandbox", "kind: Sandbox\nmetadata: {name: dev}\nspec: {image: nodus/a:1}\n",
     "kind: Sandbox\nmetadata: {name: dev}\nspec: {image: nodus/a:1, maxCostUSD: '5', "
     "idleTimeout: 2h, state: Stopped}\n",
     "Invalid",
     "Sandbox.nodus.dev \"dev\" is invalid: spec.maxCostUSD: Invalid value: \"5\": may only be "
     "raised (it had no limit)",
     NULL},
    /* Volume size compares as a quantity */
    {"Volume", "kind: Volume\nmetadata: {name: v}\nspec: {size: 100Gi}\n",
     "kind: Volume\nmetadata: {name: v}\nspec: {size: 0.5Ti}\n", NULL, NULL, NULL},
    {"Volume",
     "kind: Volume\nmetadata: {name: v}\nspec: {size: 100Gi, accessMode: ReadWriteOnce}\n",
     "kind: Volume\nmetadata: {name: v}\nspec: {size: 100G, accessMode: ReadWriteMany}\n",
     "FieldImmutable",
     "Volume.nodus.dev \"v\" is invalid: [spec.size: Invalid value: \"100G\": may only be raised "
     "(it is \"100Gi\"), spec.accessMode: Forbidden: field is immutable]",
     NULL},
    /* a finished Job keeps its state */
    {"Job",
     "kind: Job\nmetadata: {name: j}\nspec: {image: nodus/a:1, maxCostUSD: '1', state: Running}\n"
     "status: {phase: Succeeded}\n",
     "kind: Job\nmetadata: {name: j}\nspec: {image: nodus/a:1, maxCostUSD: '1', state: "
     "Cancelled}\n",
     "Invalid",
     "Job.nodus.dev \"j\" is invalid: spec.state: Invalid value: \"Cancelled\": the Job has "
     "finished (Succeeded); its state can no longer change",
     "FieldValueInvalid|spec.state|Invalid value: \"Cancelled\": the Job has finished "
     "(Succeeded); its state can no longer change\n"},
    {"Pipeline",
     "kind: Pipeline\nmetadata: {name: p}\nspec: {state: Suspended}\nstatus: {phase: Failed}\n",
     "kind: Pipeline\nmetadata: {name: p}\nspec: {}\n", "Invalid",
     "Pipeline.nodus.dev \"p\" is invalid: spec.state: Invalid value: the Pipeline has finished "
     "(Failed); its state can no longer change",
     NULL},
    /* a Stopped Sandbox is not finished */
    {"Sandbox",
     "kind: Sandbox\nmetadata: {name: s}\nspec: {image: nodus/a:1, state: Stopped}\n"
     "status: {phase: Stopped}\n",
     "kind: Sandbox\nmetadata: {name: s}\nspec: {image: nodus/a:1, state: Running}\n", NULL, NULL,
     NULL},
    /* PoolAction decisions change only from Pending */
    {"PoolAction",
     "kind: PoolAction\nmetadata: {name: a}\nspec: {pool: lab, action: Burst, "
     "decision: Pending}\n",
     "kind: PoolAction\nmetadata: {name: a}\nspec: {pool: lab, action: Burst, decision: "
     "Approved}\n",
     NULL, NULL, NULL},
    {"PoolAction",
     "kind: PoolAction\nmetadata: {name: a}\nspec: {pool: lab, action: Burst, "
     "decision: Approved}\n",
     "kind: PoolAction\nmetadata: {name: a}\nspec: {pool: lab, action: Drain, decision: "
     "Rejected}\n",
     "FieldImmutable",
     "PoolAction.nodus.dev \"a\" is invalid: [spec.action: Forbidden: field is immutable, "
     "spec.decision: Forbidden: may only change while it is Pending (it is Approved)]",
     NULL},
    /* Function scaling, Budget and Pool specs, Host cordoned */
    {"Function", "kind: Function\nmetadata: {name: f}\nspec: {image: nodus/a:1}\n",
     "kind: Function\nmetadata: {name: f}\nspec: {image: nodus/a:1, scaling: {maxReplicas: 3}, "
     "state: Stopped}\n",
     NULL, NULL, NULL},
    {"Budget", "kind: Budget\nmetadata: {name: b}\nspec: {limitUSD: '5'}\n",
     "kind: Budget\nmetadata: {name: b}\nspec: {limitUSD: '1', period: Daily}\n", NULL, NULL, NULL},
    {"Pool", "kind: Pool\nmetadata: {name: p}\nspec: {}\n",
     "kind: Pool\nmetadata: {name: p}\nspec: {act: {mode: Auto}}\n", NULL, NULL, NULL},
    {"Host", "kind: Host\nmetadata: {name: h}\nspec: {pool: lab, gpus: {H100: 8}}\n",
     "kind: Host\nmetadata: {name: h}\nspec: {pool: lab, gpus: {H100: 8}, cordoned: true}\n", NULL,
     NULL, NULL},
    {"Host", "kind: Host\nmetadata: {name: h}\nspec: {pool: lab, gpus: {H100: 8}}\n",
     "kind: Host\nmetadata: {name: h}\nspec: {pool: lab2, gpus: {H100: 4}}\n", "FieldImmutable",
     "Host.nodus.dev \"h\" is invalid: [spec.pool: Forbidden: field is immutable, spec.gpus.H100: "
     "Forbidden: field is immutable]",
     NULL},
    /* metadata that never changes */
    {"Job", JOB_OLD,
     "kind: Job\nmetadata: {name: train-b, namespace: other, uid: job_2}\n"
     "spec: {image: nodus/pytorch:2.8-cuda12.8, command: [python, train.py], maxCostUSD: '40.00', "
     "maxDuration: 6h, state: Running, resources: {gpu: {model: H100, count: 1}}}\n",
     "FieldImmutable",
     "Job.nodus.dev \"train-a\" is invalid: [metadata.name: Forbidden: field is immutable, "
     "metadata.namespace: Forbidden: field is immutable, metadata.uid: Forbidden: field is "
     "immutable]",
     NULL},
    /* spec removed altogether */
    {"Volume", "kind: Volume\nmetadata: {name: v}\nspec: {size: 1Gi}\n",
     "kind: Volume\nmetadata: {name: v}\n", "FieldImmutable",
     "Volume.nodus.dev \"v\" is invalid: spec: Forbidden: field is immutable", NULL},
};

static void test_check_update(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof updates / sizeof updates[0]; i++) {
        const struct update_row *r = &updates[i];
        print_message("update %zu\n", i);
        json_t *o = load(r->old_yaml), *n = load(r->new_yaml);
        struct nd_status st = ND_STATUS_INIT;
        int rc = nd_kind_check_update(nd_kind_by_kind(NULL, r->kind), o, n, &st);
        if (!r->reason) {
            if (rc != 0)
                fail_msg("update %zu: %s", i, st.message);
            assert_false(nd_status_failed(&st));
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(st.reason, r->reason);
            assert_int_equal(st.code, 422);
            assert_string_equal(st.message, r->message);
            if (r->causes) {
                char *causes = causes_text(&st);
                assert_string_equal(causes, r->causes);
                free(causes);
            }
        }
        nd_status_release(&st);
        json_decref(o);
        json_decref(n);
    }
}

static void test_reserved(void **state)
{
    (void)state;
    static const struct {
        const char *old_yaml, *new_yaml, *message;
    } rows[] = {
        /* on create; a Job takes no requests */
        {NULL, "metadata: {name: j, labels: {app: x}}", NULL},
        {NULL,
         "metadata: {name: j, labels: {app: x}, annotations: {nodus.dev/restart-requested-at: "
         "'2026-11-29T16:00:00Z'}}",
         "Job.nodus.dev \"j\" is invalid: metadata.annotations[nodus.dev/restart-requested-at]: "
         "Forbidden: a Job takes no requests (restart)"},
        {NULL,
         "metadata: {name: j, labels: {nodus.dev/created-by: me, nodus.dev/x: y}, annotations: "
         "{nodus.dev/note: hi, nodus.dev/Restart-requested-at: t, nodus.dev/-requested-at: t}}",
         "Job.nodus.dev \"j\" is invalid: [metadata.labels[nodus.dev/created-by]: Forbidden: "
         "labels under nodus.dev/ are set by Nodus, metadata.labels[nodus.dev/x]: Forbidden: "
         "labels under nodus.dev/ are set by Nodus, metadata.annotations[nodus.dev/note]: "
         "Forbidden: annotations under nodus.dev/ are set by Nodus, "
         "metadata.annotations[nodus.dev/Restart-requested-at]: Forbidden: annotations under "
         "nodus.dev/ are set by Nodus, metadata.annotations[nodus.dev/-requested-at]: Forbidden: "
         "annotations under nodus.dev/ are set by Nodus]"},
        /* on update: unchanged or left out is fine, changed is not */
        {"metadata: {name: j, labels: {nodus.dev/created-by: me, nodus.dev/launched-by: cli}}",
         "metadata: {name: j, labels: {nodus.dev/created-by: me, app: y}}", NULL},
        {"metadata: {name: j, labels: {nodus.dev/created-by: me}}",
         "metadata: {name: j, labels: {nodus.dev/created-by: you}, annotations: "
         "{nodus.dev/requestor-requested-at: now}}",
         "Job.nodus.dev \"j\" is invalid: [metadata.labels[nodus.dev/created-by]: Forbidden: labels "
         "under nodus.dev/ are set by Nodus, metadata.annotations[nodus.dev/requestor-requested-at]: "
         "Forbidden: a Job takes no requests (requestor)]"},
        /* labels are never requests */
        {NULL, "metadata: {name: j, labels: {nodus.dev/restart-requested-at: x}}",
         "Job.nodus.dev \"j\" is invalid: metadata.labels[nodus.dev/restart-requested-at]: "
         "Forbidden: labels under nodus.dev/ are set by Nodus"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *o = rows[i].old_yaml ? load(rows[i].old_yaml) : NULL;
        json_t *n = load(rows[i].new_yaml);
        struct nd_status st = ND_STATUS_INIT;
        int rc = nd_kind_check_reserved(nd_kind_lookup("jobs"), o, n, &st);
        if (!rows[i].message) {
            assert_int_equal(rc, 0);
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(st.reason, "Invalid");
            assert_string_equal(st.message, rows[i].message);
        }
        nd_status_release(&st);
        json_decref(o);
        json_decref(n);
    }
}

/* The request annotations of a kind that takes requests: its actions pass, another is
 * Unsupported (naming the actions), an unchanged one stays; the fix names the action. */
static void test_requests(void **state)
{
    (void)state;
    static const struct {
        const char *old_yaml, *new_yaml, *message;
    } rows[] = {
        {NULL, "metadata: {name: dev, annotations: {nodus.dev/restart-requested-at: t1}}", NULL},
        {"metadata: {name: dev, annotations: {nodus.dev/restart-requested-at: t1}}",
         "metadata: {name: dev, annotations: {nodus.dev/restart-requested-at: t2}}", NULL},
        {"metadata: {name: dev}",
         "metadata: {name: dev, annotations: {nodus.dev/frobnicate-requested-at: t1}}",
         "Sandbox.nodus.dev \"dev\" is invalid: metadata.annotations[nodus.dev/"
         "frobnicate-requested-at]: Unsupported value: \"frobnicate\": supported values: "
         "\"restart\""},
        /* set before this rule: left as it is, it is no new request */
        {"metadata: {name: dev, annotations: {nodus.dev/frobnicate-requested-at: t1}}",
         "metadata: {name: dev, annotations: {nodus.dev/frobnicate-requested-at: t1}}", NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *o = rows[i].old_yaml ? load(rows[i].old_yaml) : NULL;
        json_t *n = load(rows[i].new_yaml);
        struct nd_status st = ND_STATUS_INIT;
        int rc = nd_kind_check_reserved(nd_kind_lookup("sandboxes"), o, n, &st);
        if (!rows[i].message) {
            assert_int_equal(rc, 0);
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(st.reason, "Invalid");
            assert_string_equal(st.message, rows[i].message);
            assert_string_equal(st.fix,
                                "ask for an action a Sandbox takes: nodus request restart "
                                "sandbox/dev");
        }
        nd_status_release(&st);
        json_decref(o);
        json_decref(n);
    }
}

int main(void)
{
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_field_validation),
        cmocka_unit_test(test_message_shape),
        cmocka_unit_test(test_own_fixes),
        cmocka_unit_test(test_check_update),
        cmocka_unit_test(test_reserved),
        cmocka_unit_test(test_requests),
    };
    /* clang-format on */
    return cmocka_run_group_tests_name("validate", tests, NULL, NULL);
}
