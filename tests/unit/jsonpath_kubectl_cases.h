/* jsonpath_kubectl_cases.h: fixtures and expected results for test_jsonpath.c.
 *
 * Every expected output and message here was printed by kubectl v1.32: the list cases by
 * `kubectl get jobs -o jsonpath=...` against a stub API server answering with jobs_json
 * (list_outputs, list_errors; missing_key_errors with --allow-missing-template-keys=false),
 * the odd cases by `kubectl label --local -f odd.json -o jsonpath=...`. Templates whose
 * kubectl output depends on Go's random map order are left out (test_jsonpath.c checks
 * them in nodus's sorted order). Included once, by test_jsonpath.c. */
#ifndef ND_TEST_JSONPATH_KUBECTL_CASES_H
#define ND_TEST_JSONPATH_KUBECTL_CASES_H

#include <stdbool.h>

struct jp_case {
    const char *tmpl, *out; /* out: the output, or the error message */
};

struct jp_odd_case {
    const char *tmpl;
    bool ok;
    const char *out; /* the output, or the error message */
};

/* A List of Jobs as `kubectl get jobs -o json` receives it (kubectl rewrites the list's
 * own metadata to {"resourceVersion":""}, so the fixture does too). */
static const char jobs_json[] =
    "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"metadata\": {\"resourceVersion\": \"\"},\n"
    " \"items\": [\n"
    "  {\"apiVersion\": \"nodus.dev/v1\", \"kind\": \"Job\",\n"
    "   \"metadata\": {\"name\": \"train-a\", \"namespace\": \"default\", \"uid\": \"job_01j9a\",\n"
    "     \"resourceVersion\": \"17\", \"creationTimestamp\": \"2025-01-02T03:04:05Z\",\n"
    "     \"labels\": {\"app\": \"trainer\", \"team\": \"ml\", \"tier\": \"gpu\"},\n"
    "     \"annotations\": {\"nodus.dev/launched-by\": \"cli\", \"note\": \"<b>&\\\"q\\\"\"}},\n"
    "   \"spec\": {\"image\": \"nodus/pytorch:2.8-cuda12.8\", \"command\": [\"python\", "
    "\"train.py\"],\n"
    "     \"args\": [\"--epochs\", \"3\"], \"env\": [{\"name\": \"WANDB_MODE\", \"value\": "
    "\"offline\"}],\n"
    "     \"resources\": {\"gpu\": {\"model\": \"H100\", \"count\": 1}, \"cpu\": \"8\",\n"
    "                   \"memory\": \"64Gi\"},\n"
    "     \"maxCostUSD\": \"40.00\", \"maxDuration\": \"6h\", \"priority\": 5, \"weight\": 0.75,\n"
    "     \"state\": \"Running\"},\n"
    "   \"status\": {\"phase\": \"Running\", \"costUSD\": \"1.20\", \"progress\": 0.5,\n"
    "     \"startTime\": \"2025-01-02T03:05:00Z\",\n"
    "     \"conditions\": [\n"
    "       {\"type\": \"Scheduled\", \"status\": \"True\",\n"
    "        \"lastTransitionTime\": \"2025-01-02T03:04:30Z\"},\n"
    "       {\"type\": \"Ready\", \"status\": \"True\",\n"
    "        \"lastTransitionTime\": \"2025-01-02T03:05:00Z\"}]}},\n"
    "  {\"apiVersion\": \"nodus.dev/v1\", \"kind\": \"Job\",\n"
    "   \"metadata\": {\"name\": \"eval-b\", \"namespace\": \"default\", \"uid\": \"job_01j9b\",\n"
    "     \"resourceVersion\": \"23\", \"creationTimestamp\": \"2025-01-02T04:00:00Z\",\n"
    "     \"labels\": {\"app\": \"evaluator\", \"team\": \"ml\"}},\n"
    "   \"spec\": {\"image\": \"nodus/pytorch:2.8-cuda12.8\", \"command\": [\"python\", "
    "\"eval.py\"],\n"
    "     \"resources\": {\"gpu\": {\"model\": \"A100\", \"count\": 4}}, \"maxCostUSD\": "
    "\"12.50\",\n"
    "     \"priority\": 10, \"weight\": 1.25, \"state\": \"Suspended\"},\n"
    "   \"status\": {\"phase\": \"Queued\", \"progress\": 0,\n"
    "     \"conditions\": [\n"
    "       {\"type\": \"Scheduled\", \"status\": \"False\", \"reason\": \"NoCapacity\",\n"
    "        \"message\": \"no A100 free\\tin pool lab\",\n"
    "        \"lastTransitionTime\": \"2025-01-02T04:00:01Z\"}]}},\n"
    "  {\"apiVersion\": \"nodus.dev/v1\", \"kind\": \"Job\",\n"
    "   \"metadata\": {\"name\": \"prep-c\", \"namespace\": \"research\", \"uid\": \"job_01j9c\",\n"
    "     \"resourceVersion\": \"31\", \"creationTimestamp\": \"2025-01-01T00:00:00Z\"},\n"
    "   \"spec\": {\"image\": \"nodus/python:3.12\", \"command\": [\"python\", \"prep.py\"],\n"
    "     \"maxCostUSD\": \"2.00\", \"priority\": 1, \"weight\": 1234567.5, \"tolerance\": "
    "0.00001,\n"
    "     \"budget\": 1e21, \"note\": null, \"flags\": {\"spot\": true, \"preemptible\": false}},\n"
    "   \"status\": {\"phase\": \"Succeeded\", \"progress\": 1.0, \"exitCode\": 0,\n"
    "     \"conditions\": [\n"
    "       {\"type\": \"Complete\", \"status\": \"True\",\n"
    "        \"lastTransitionTime\": \"2025-01-01T00:10:00Z\"}]}}\n"
    " ]}\n";

/* Odd values: escapes, non-ASCII, nulls, nested lists, numbers of every shape. */
static const char odd_json[] =
    "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"odd\"},\n"
    " \"data\": {\"bs\": \"a\\bb\\fc\\u0001d\\u2028e\", \"html\": \"<&>\",\n"
    "          \"uni\": \"h\\u00e9llo \\u2603 \\ud83d\\ude00\", \"q\": \"it's \\\"q\\\"\",\n"
    "          \"k.with.dots\": \"dotted\", \"sp ace\": \"spaced\"},\n"
    " \"spec\": {\"list\": [null, 1, \"s\", {\"k\": null}], \"arr\": [[1, 2], [3]],\n"
    "          \"items\": [{\"a\": [1, 2]}, {\"a\": [1]}, {\"b\": 1}], \"e\": [], \"eo\": {},\n"
    "          \"nested\": {\"z\": 1, \"a\": {\"m\": 2}},\n"
    "          \"nums\": [1, 2.5, -3, 0.1, 1e21, 1e-7, 100, 1e6], \"bools\": [true, false],\n"
    "          \"strs\": [\"b\", \"a\", \"c\"], \"big\": 9007199254740993, \"neg\": -0.0}}\n";

static const struct jp_case list_outputs[] = {
    {"{.kind}", "List"},
    {"{.apiVersion}", "v1"},
    {"{.metadata}", "{\"resourceVersion\":\"\"}"},
    {"{.items[0].metadata.labels}", "{\"app\":\"trainer\",\"team\":\"ml\",\"tier\":\"gpu\"}"},
    {"{.items[*].metadata.name}", "train-a eval-b prep-c"},
    {"{.items[*].spec.priority}", "5 10 1"},
    {"{.items[*].spec.weight}", "0.75 1.25 1.2345675e+06"},
    {"{.items[2].spec.tolerance}", "1e-05"},
    {"{.items[2].spec.budget}", "1e+21"},
    {"{.items[2].spec.note}", "null"},
    {"{.items[2].status.progress}", "1"},
    {"{.items[0].metadata.annotations}",
     "{\"nodus.dev/launched-by\":\"cli\",\"note\":\"\\u003cb\\u003e\\u0026\\\"q\\\"\"}"},
    {"{.items[1].status.conditions[0].message}", "no A100 free\tin pool lab"},
    {"{.items[1].status.conditions}",
     "[{\"lastTransitionTime\":\"2025-01-02T04:00:01Z\",\"message\":\"no A100 free\\tin pool "
     "lab\",\"reason\":\"NoCapacity\",\"status\":\"False\",\"type\":\"Scheduled\"}]"},
    {"{range .items[*]}{.metadata.name}{\"\\t\"}{.status.phase}{\"\\n\"}{end}",
     "train-a\tRunning\neval-b\tQueued\nprep-c\tSucceeded\n"},
    {"{.items[-1].metadata.name}", "prep-c"},
    {"{.items[0:2].metadata.name}", "train-a eval-b"},
    {"{.items[::2].metadata.name}", "train-a prep-c"},
    {"{.items[1:].metadata.name}", "eval-b prep-c"},
    {"{.items[:1].metadata.name}", "train-a"},
    {"{.items[-2:].metadata.name}", "eval-b prep-c"},
    {"{.items[0,2].metadata.name}", "train-a prep-c"},
    {"{.items[0].metadata['name','namespace']}", "train-a default"},
    {"{.items[0].metadata.annotations['nodus.dev/launched-by']}", ""},
    {"{.items[0].metadata.annotations.nodus\\.dev/launched-by}", "cli"},
    {"{..count}", "1 4"},
    {"{.items[?(@.status.phase==\"Running\")].metadata.name}", "train-a"},
    {"{.items[?(@.spec.priority>2)].metadata.name}", "train-a eval-b"},
    {"{.items[?(@.spec.priority>=10)].metadata.name}", "eval-b"},
    {"{.items[?(@.spec.priority<=5)].metadata.name}", "train-a prep-c"},
    {"{.items[?(@.spec.priority<5)].metadata.name}", "prep-c"},
    {"{.items[?(@.spec.priority!=5)].metadata.name}", "eval-b prep-c"},
    {"{.items[?(@.spec.weight<1.3)].metadata.name}", "train-a eval-b"},
    {"{.items[?(@.metadata.labels.tier)].metadata.name}", "train-a"},
    {"{.items[?(@.metadata.labels.app!=\"trainer\")].metadata.name}", "eval-b"},
    {"{.items[*].status.conditions[?(@.type==\"Ready\")].status}", "True"},
    {"{.items[0].spec.command}{\"\\n\"}{.items[0].spec.command[*]}",
     "[\"python\",\"train.py\"]\npython train.py"},
    {"x{.kind}y{\"z\"}", "xListyz"},
    {"{.items[1:1]}", ""},
    {"{.items[0].spec.flags[0]}", ""},
    {"{.items[2].spec.note[0]}", ""},
    {"{range .items[*]}{.metadata.name}", "train-aeval-bprep-c"},
    {"{'single'}", "single"},
    {"{\"\\x41\\u00e9\\101\"}", "A\303\251A"},
    {"{12}{3.5}{true}{false}", "123.5truefalse"},
    {"{.items[?(@.spec.priority==5)].metadata.name}", "train-a"},
    {"{.metadata.name.*}", ""},
    {"{.kind.*}", "76 105 115 116"},
    {"{.a }", ""},
    {"{ .kind }", "List"},
    {"{.items[0].metadata.labels['app']}", "trainer"},
    {"{.items[*]['kind']}", "Job Job Job"},
    {"{.items[0].spec.resources..count}", "1"},
    {"{.items[0, 2].metadata.name}", "train-a prep-c"},
    {"{.items[0,].metadata.name}", "train-a train-a"},
    {"{.items[].metadata.name}", "train-a"},
    {"{.items[?(@.spec.priority > 2)].metadata.name}", "train-a eval-b"},
    {"{range .items[*]}{range .status.conditions[*]}{.type}{\",\"}{end}{\"\\n\"}{end}",
     "Scheduled,Ready,\nScheduled,\nComplete,\n"},
    {"{range .items[?(@.spec.priority>100)]}{.metadata.name}{end}done", "done"},
    {"a}b{.kind}", "a}bList"},
    {"{.items[?(@.metadata.labels.app=='trainer')].metadata.name}", "train-a"},
    {"{.items[?(@.metadata.name==\"train-a\")].spec.command[1]}", "train.py"},
    {"{.items[?(@.spec.flags.spot==true)].metadata.name}", "prep-c"},
    {"{.items[?(@.status.conditions[*].type)].metadata.name}", "train-a eval-b prep-c"},
    {"{.items[*].metadata.labels}", "{\"app\":\"trainer\",\"team\":\"ml\",\"tier\":\"gpu\"} "
                                    "{\"app\":\"evaluator\",\"team\":\"ml\"}"},
    {"{.items[0].spec.env[*].name}", "WANDB_MODE"},
    {"{.items[0]..name}", "train-a WANDB_MODE"},
    {"{.items[*].status.conditions[*].type}", "Scheduled Ready Scheduled Complete"},
    {"{.items[*].status.conditions[-1:].type}", "Ready Scheduled Complete"},
    {"{.items[?(@.spec.state)].metadata.name}", "train-a eval-b"},
    {"{.items[?(@.spec.state==\"Suspended\")].spec.resources.gpu.model}", "A100"},
    {"{.items[?(@.spec.resources.gpu.count>=4)].metadata.name}", "eval-b"},
    {"{.items[*].metadata.labels.app}", "trainer evaluator"},
    {"{.items[?(@.metadata.labels.team==\"ml\")].metadata.labels.app}", "trainer evaluator"},
    {"{range .items[*]}[{.metadata.labels.tier}]{end}", "[gpu][][]"},
    {"{range .items[*]}{@.metadata.name}{\" \"}{$.kind}{\"\\n\"}{end}",
     "train-a Job\neval-b Job\nprep-c Job\n"},
    {"{range .items[*]}{.metadata.name}{end}{range .items[*]}{.kind}{end}",
     "train-aeval-bprep-cJobJobJob"},
    {"{.items[*].spec.command[0]}", "python python python"},
    {"{.items[0].spec.args[1]}", "3"},
    {"{.items[0].status.conditions[?(@.status==\"True\")].type}", "Scheduled Ready"},
    {"{.items[0].status.conditions[0,1].type}", "Scheduled Ready"},
    {"{.items[0].status.conditions[*]['type','status']}", "Scheduled Ready True True"},
    {"{.items[0].spec.resources.gpu}", "{\"count\":1,\"model\":\"H100\"}"},
    {"{.items[*].status.startTime}", "2025-01-02T03:05:00Z"},
    {"{.items[?(@.status.exitCode==0)].metadata.name}", "prep-c"},
    {"{.items[?(@.status.exitCode)].metadata.name}", "prep-c"},
    {"{.items[?(@.spec.note)].metadata.name}", "prep-c"},
    {"{.items[?(@.spec.flags.preemptible==false)].metadata.name}", "prep-c"},
    {"{.items[?(@.metadata.name<\"f\")].metadata.name}", "eval-b"},
    {"{.items[?(@.metadata.name>=\"p\")].metadata.name}", "train-a prep-c"},
    {"{.items[2].spec.flags}", "{\"preemptible\":false,\"spot\":true}"},
    {"{.items[*].spec.maxCostUSD}", "40.00 12.50 2.00"},
    {"{.items[0].metadata.name}{.items[1].metadata.name}", "train-aeval-b"},
    {"{.items[0].metadata.name} and {.items[1].metadata.name}", "train-a and eval-b"},
    {"{.items[?(@.spec.priority==10)].metadata.name}", "eval-b"},
    {"{.items[?(@.spec.priority == 10)].metadata.name}", "eval-b"},
    {"{.items[?( @.spec.priority==10 )].metadata.name}", "eval-b"},
    {"{.items[?(10==@.spec.priority)].metadata.name}", "eval-b"},
    {"{.items[?(@.spec.priority==-1)].metadata.name}", ""},
    {"{.items[?(@.spec.priority>+4)].metadata.name}", "train-a eval-b"},
    {"{.items[*].nope}", ""},
    {"{.nope.deeper}", ""},
    {"{.items[0].spec.command[-1]}", "train.py"},
    {"{.items[0].spec.command[0:-1]}", "python"},
    {"{.items[0].spec.command[-1:]}", "train.py"},
    {"{range .items[*]}{.metadata.name}:{range .spec.command[*]}{@} {end}{\"\\n\"}{end}",
     "train-a:python train.py \neval-b:python eval.py \nprep-c:python prep.py \n"},
    {"{\"a\"}{\"\\\"\"}{'\\''}", "a\"'"},
    {"{\"tab\\there\"}", "tab\there"},
    {"{.items[0]['spec']['image']}", "nodus/pytorch:2.8-cuda12.8"},
    {"{.items[0].metadata.name.x}", ""},
    {"{@.items[0].kind}", "Job"},
    {"{$.items[1].kind}", "Job"},
    {"{true}", "true"},
    {"{.items[0].spec.priority}{\" \"}{.items[0].spec.priority}", "5 5"},
    {"{range .items[*]}{.metadata.name}{\"\\n\"}{end}{\"total: \"}{.kind}",
     "train-a\neval-b\nprep-c\ntotal: List"},
    {"{range .items[0].status.conditions[*]}{.type}={.status}{\";\"}{end}",
     "Scheduled=True;Ready=True;"},
    {"{.items[*].status.conditions[?(@.reason)].message}", "no A100 free\tin pool lab"},
    {"{.items[?(@.status.conditions[0].status==\"False\")].metadata.name}", "eval-b"},
    {"{.items[*].metadata.namespace}", "default default research"},
    {"{..labels}", "{\"app\":\"trainer\",\"team\":\"ml\",\"tier\":\"gpu\"} "
                   "{\"app\":\"evaluator\",\"team\":\"ml\"}"},
    {"{.items..labels}", "{\"app\":\"trainer\",\"team\":\"ml\",\"tier\":\"gpu\"} "
                         "{\"app\":\"evaluator\",\"team\":\"ml\"}"},
    {"{..conditions[*].type}", "Scheduled Ready Scheduled Complete"},
    {"{.items[*]..model}", "H100 A100"},
    {"{.items[0].spec.env[0]}", "{\"name\":\"WANDB_MODE\",\"value\":\"offline\"}"},
    {"{.items[0].spec.env}", "[{\"name\":\"WANDB_MODE\",\"value\":\"offline\"}]"},
    {"{.items[*].spec.env[*].value}", "offline"},
    {"{.items[0].spec.resources['gpu','cpu']}", "{\"count\":1,\"model\":\"H100\"} 8"},
    /* no braces: plain text */
    {".metadata.name", ".metadata.name"},
};

static const struct jp_case list_errors[] = {
    {"{.items[?(@.spec.weight<2)].metadata.name}", "incompatible types for comparison"},
    {"{.items[5]}", "array index out of bounds: index 5, length 3"},
    {"{.items[0:10]}", "array index out of bounds: index 9, length 3"},
    {"{.items[2:1]}", "starting index 2 is greater than ending index 1"},
    {"{.items[::0]}", "step must be > 0"},
    {"{.items[-5]}", "array index out of bounds: index -2, length 3"},
    {"{.kind[0]}", "string is not array or slice"},
    {"{.items[0].metadata[0]}", "map[string]interface {} is not array or slice"},
    {"{.items[0].spec.priority[0]}", "int64 is not array or slice"},
    {"{.items[0].spec.weight[0]}", "float64 is not array or slice"},
    {"{.items[2].spec.flags[0]}", "map[string]interface {} is not array or slice"},
    {"{end}", "not in range, nothing to end"},
    {"{foo}", "unrecognized identifier foo"},
    {"{.items[?(@.spec.priority=5)].metadata.name}", "unrecognized filter operator ="},
    {"{.items[?(@.spec.priority>@.status.progress)].metadata.name}",
     "incompatible types for comparison"},
    {"{.items[?(@.status.progress==0)].metadata.name}", "incompatible types for comparison"},
    {"{.items[?(@.status.progress==1.0)].metadata.name}", "incompatible types for comparison"},
    {"{.items[?(@.status.conditions[*].type==\"Ready\")].metadata.name}",
     "can only compare one element at a time"},
    {"{range .items[*]}{.metadata.name}{end}{end}", "not in range, nothing to end"},
    {"{.items[?(@.spec.flags.spot<true)].metadata.name}", "invalid type for comparison"},
    {"{.items[?(@.spec.priority==\"10\")].metadata.name}", "incompatible types for comparison"},
    {"{.items[0].spec.command[5]}", "array index out of bounds: index 5, length 2"},
    {"{.items[0].spec.command[-3]}", "array index out of bounds: index -1, length 2"},
    {"{.items[0].spec.command[1:0]}", "starting index 1 is greater than ending index 0"},
    {"{.items[*].kind[0]}", "string is not array or slice"},
};

static const struct jp_case missing_key_errors[] = {
    {"{.items[0].metadata.annotations['nodus.dev/launched-by']}", "nodus is not found"},
    {"{.items[?(@.metadata.labels.app!=\"trainer\")].metadata.name}", "labels is not found"},
    {"{.items[0].spec.flags[0]}", "flags is not found"},
    {"{range .items[*]}{.metadata.name}", "name is not found"},
    {"{.metadata.name.*}", "name is not found"},
    {"{.a }", "a is not found"},
    {"{range .items[?(@.spec.priority>100)]}{.metadata.name}{end}done", "metadata is not found"},
    {"{.items[?(@.metadata.labels.app=='trainer')].metadata.name}", "labels is not found"},
    {"{.items[?(@.spec.flags.spot==true)].metadata.name}", "flags is not found"},
    {"{.items[?(@.spec.state==\"Suspended\")].spec.resources.gpu.model}", "state is not found"},
    {"{.items[?(@.spec.resources.gpu.count>=4)].metadata.name}", "resources is not found"},
    {"{.items[?(@.metadata.labels.team==\"ml\")].metadata.labels.app}", "labels is not found"},
    {"{range .items[*]}[{.metadata.labels.tier}]{end}", "tier is not found"},
    {"{.items[?(@.status.exitCode==0)].metadata.name}", "exitCode is not found"},
    {"{.items[?(@.spec.flags.preemptible==false)].metadata.name}", "flags is not found"},
    {"{.items[*].nope}", "nope is not found"},
    {"{.nope.deeper}", "nope is not found"},
    {"{.items[0].metadata.name.x}", "x is not found"},
};

static const struct jp_odd_case odd_cases[] = {
    {"{.data}", true,
     "{\"bs\":\"a\\bb\\fc\\u0001d\\u2028e\",\"html\":\"\\u003c\\u0026\\u003e\",\"k.with.dots\":"
     "\"dotted\",\"q\":\"it's \\\"q\\\"\",\"sp ace\":\"spaced\",\"uni\":\"h\303\251llo "
     "\342\230\203 \360\237\230\200\"}"},
    {"{.data.bs}", true, "a\010b\014c\001d\342\200\250e"},
    {"{.data.html}", true, "<&>"},
    {"{.data.uni}", true, "h\303\251llo \342\230\203 \360\237\230\200"},
    {"{.data.q}", true, "it's \"q\""},
    {"{.data['k.with.dots']}", true, ""},
    {"{.data.k\\.with\\.dots}", true, "dotted"},
    {"{.data['sp ace']}", false, "unrecognized identifier ace"},
    {"{.data.sp ace}", false, "unrecognized identifier ace"},
    {"{range .spec.list[*]}[{@}]{end}", true, "[<no value>][1][s][{\"k\":null}]"},
    {"{.spec.list[*]}", true, "null 1 s {\"k\":null}"},
    {"{.spec.list}", true, "[null,1,\"s\",{\"k\":null}]"},
    {"{.spec.items[?(@.a[1])]}", true, "{\"a\":[1,2]} {\"a\":[1]}"},
    {"{.spec.arr[*][0]}", true, "1 3"},
    {"{.spec.arr[0,*]}", true, "[1,2] [1,2] [3]"},
    {"{.spec.e[*]}", true, ""},
    {"{.spec.e}", true, "[]"},
    {"{.spec.eo}", true, "{}"},
    {"{.spec.eo.*}", true, ""},
    {"{range .spec.e[*]}x{end}y", true, "y"},
    {"{..m}", true, "2"},
    {"{.spec.list[?(@==1)]}", false, "invalid type for comparison"},
    {"{.spec.list[?(@.k)]}", true, "{\"k\":null}"},
    {"{.spec.nested[?(@.z)]}", false,
     "map[a:map[m:2] z:1] is not array or slice and cannot be filtered"},
    {"{.spec.items[0].a[?(@>1)]}", true, "2"},
    {"{.spec.items[?(@.a[0]==1)].b}", true, ""},
    {"{.spec.list[?(@==\"s\")]}", false, "invalid type for comparison"},
    {"{.metadata.name[?(@)]}", false, "odd is not array or slice and cannot be filtered"},
    {"{.spec.nums}", true, "[1,2.5,-3,0.1,1e+21,1e-7,100,1000000]"},
    {"{.spec.nums[*]}", true, "1 2.5 -3 0.1 1e+21 1e-07 100 1e+06"},
    {"{.spec.nums[?(@>1)]}", false, "incompatible types for comparison"},
    {"{.spec.nums[?(@>1.0)]}", false, "incompatible types for comparison"},
    {"{.spec.bools[?(@==true)]}", true, "true"},
    {"{.spec.bools[?(@<true)]}", false, "invalid type for comparison"},
    {"{.spec.strs[?(@>\"a\")]}", true, "b c"},
    {"{.spec.strs[?(@>=@)]}", true, "b a c"},
    {"{.spec.big}", true, "9007199254740993"},
    {"{.spec.neg}", true, "-0"},
    {"{.spec.strs[1:3]}", true, "a c"},
    {"{.spec.strs[0:3:2]}", true, "b c"},
    {"{.spec.strs[-1:]}", true, "c"},
    {"{.spec.strs[-3:-1]}", true, "b a"},
    {"{.spec.strs[:-1]}", true, "b a"},
    {"{.spec.strs[3:]}", true, ""},
    {"{.spec.strs[3]}", false, "array index out of bounds: index 3, length 3"},
    {"{.spec.strs[0:0]}", true, ""},
    {"{.spec.strs[*].*}", true, "98 97 99"},
    {"{.metadata.name.*}", true, "111 100 100"},
    {"{.data.uni.*}", true, "104 195 169 108 108 111 32 226 152 131 32 240 159 152 128"},
    {"{.spec.strs[0][0]}", false, "string is not array or slice"},
    {"{range .metadata.name.*}{@},{end}", true, "111,100,100,"},
    {"{.spec.nums[?(@==100)]}", false, "incompatible types for comparison"},
    {"{.spec.strs[?(@=='a')]}", true, "a"},
    {"{.spec.strs[?(@==\"a\\\"\")]}", true, ""},
    {"{.spec.strs[?(@==\")\")]}", true, ""},
    {"{.spec.items[?(@.a[0]==1)].a[0]}", true, "1 1"},
    {"{.spec.items[*].a[5]}", false, "array index out of bounds: index 5, length 2"},
    {"{.spec.items[?(@.a[5])]}", true, "{\"a\":[1,2]} {\"a\":[1]}"},
    {"{.spec.items[?(@.b==1)]}", true, "{\"b\":1}"},
    {"{.spec.items[?(@.b!=1)]}", true, ""},
    {"{.spec.items[?(@.c)]}", true, ""},
    {"{.spec.items[?(@.b<=1)]}", true, "{\"b\":1}"},
    {"{.spec.items[?(@.a==1)]}", false, "invalid type for comparison"},
    {"{.spec.items[?(@.a)]}", true, "{\"a\":[1,2]} {\"a\":[1]}"},
    {"{@.spec.nested.z}{@.spec.nested.a.m}", true, "12"},
    {"{\"\\u00e9\\U0001F600\"}", true, "\303\251\360\237\230\200"},
    {"{\"\\a\\b\\f\\n\\r\\t\\v\"}", true, "\007\010\014\n\015\t\013"},
    {"{'a\"b'}", true, "a\"b"},
    {"{\"a'b\"}", true, "a'b"},
    {"{\"\303\251\"}", true, "\303\251"},
    {"{\303\251}", false, "unrecognized identifier \303\251"},
    {"{.spec.\303\251}", true, ""},
    {"{1 2}", true, "2"},
    {"{.spec.nested.z 5}", true, "5"},
    {"{range .spec.strs[*]}{@}{end}{end}", false, "not in range, nothing to end"},
    {"{range .spec.strs[*]}{range .spec.strs[*]}{@}{end}{end}", true, ""},
    {"{range .spec.arr[*]}{range @[*]}{@};{end}|{end}", true, "1;2;|3;|"},
    {"{range .spec.arr[*]}{@[0]}{end}", true, "13"},
    {"{.spec.arr[*][*]}", true, "1 2 3"},
    {"{.spec.arr[1][0]}", true, "3"},
    {"{.spec.arr[*][1]}", false, "array index out of bounds: index 1, length 1"},
    {"{99999999999999999999}", true, "1e+20"},
    {"{-5}{+5}{-0}{1.}{.5}", true, "-5501"},
    {"{..a..b}", true, ""},
    {"{.spec..z}", true, "1"},
    {"{.spec..a.m}", true, "2"},
    {"{..[0]}", false, "map[string]interface {} is not array or slice"},
    {"{.spec.strs[0,1,2]}", true, "b a c"},
    {"{.spec.strs[ 0 , 1 ]}", true, "b a"},
    {"{.spec.strs['a',0]}", true, "b"},
    {"{.spec.nested['z','a']}", true, "1 {\"m\":2}"},
    {"{.spec.nested['z',]}", false, "map[string]interface {} is not array or slice"},
    {"{.spec.strs[0:1,2]}", true, "b c"},
    {"{.spec.strs[?(@==\"a\")]}{.spec.strs[?(@==\"b\")]}", true, "ab"},
    {"{.spec.strs[?(@ ==\"a\")]}", true, "a"},
    {"{.spec.strs[?(@== \"a\" )]}", true, "a"},
    {"{.spec.strs[?()]}", true, "b a c"},
    {"{.spec.nums[?(@>>1)]}", false, "unrecognized filter operator >>"},
    {"{.spec.nums[?(@<>1)]}", false, "unrecognized filter operator <>"},
    {"{.spec.nums[?(@!1)]}", false, "unrecognized filter operator !"},
    {"{.spec.nums[?(@>==1)]}", false, "unrecognized filter operator >=="},
    {"text only", true, "text only"},
    {"{$.spec.nested}", true, "{\"a\":{\"m\":2},\"z\":1}"},
};

#endif
