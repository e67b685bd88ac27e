/* Unit tests of the spliced dump (emulator/store/splice.h): a revision's compact JSON made
 * from the previous revision's bytes where the trees share members is byte for byte
 * jansson's dump of the new tree: a running Job's minute (its metadata and status copied,
 * three values changed, the rest shared), and thousands of random trees with random
 * changes (members shared, replaced, removed, added, moved to the end; keys and strings
 * with escapes, quotes, brackets and UTF-8); what shares nothing, or has keys the splice
 * does not write itself, is left to jansson. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splice.h"

#define TEST_RNG_SEED 0x5eed5911ce2026ULL
#include "test_rng.h"

/* jansson's dump of obj equals b's bytes */
static void same_as_jansson(const json_t *obj, const struct em_bytes *b)
{
    char *want = json_dumps(obj, JSON_COMPACT);
    assert_non_null(want);
    assert_non_null(b);
    assert_string_equal(b->data, want);
    assert_int_equal(b->len, strlen(want));
    free(want);
}

static struct em_bytes *dump(const json_t *obj)
{
    return em_bytes_take(json_dumps(obj, JSON_COMPACT));
}

/* A Job as the API stores one, Running. */
static json_t *running_job(void)
{
    json_error_t err;
    json_t *j = json_loads(
        "{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j1\","
        "\"namespace\":\"s\",\"uid\":\"job_01\",\"resourceVersion\":\"41\",\"generation\":1,"
        "\"creationTimestamp\":\"2026-12-06T12:00:00Z\",\"labels\":{\"tier\":\"1\"},"
        "\"finalizers\":[\"nodus.dev/billing\"],\"managedFields\":[{\"manager\":\"curl\","
        "\"operation\":\"Update\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{"
        "\"f:image\":{},\"f:resources\":{\"f:gpu\":{\"f:model\":{},\"f:count\":{}}}}}}]},"
        "\"spec\":{\"image\":\"nodus/pytorch:2.8\",\"resources\":{\"gpu\":{\"model\":\"H100\","
        "\"count\":1}},\"maxCostUSD\":\"10.00\",\"note\":\"a \\\"quoted\\\" {brace} \\\\ é\"},"
        "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":"
        "\"True\",\"reason\":\"Running\",\"message\":\"the command is running\"}],"
        "\"rateUSDPerHour\":\"2.49\",\"costUSD\":\"0.04\",\"startTime\":\"2026-12-06T12:00:40Z\","
        "\"simulation\":{\"phaseTime\":40000,\"accruedAt\":40000,\"runMs\":0},"
        "\"observedGeneration\":1}}",
        0, &err);
    assert_non_null(j);
    return j;
}

static void test_a_running_jobs_minute(void **state)
{
    (void)state;
    json_t *prev = running_job();
    struct em_bytes *pb = dump(prev);
    /* the working copy of em_ctl_begin_light, and what the minute changes */
    json_t *obj = json_copy(prev);
    json_t *meta = json_copy(json_object_get(prev, "metadata"));
    json_t *status = json_copy(json_object_get(prev, "status"));
    json_object_set_new(obj, "metadata", meta);
    json_object_set_new(obj, "status", status);
    json_object_set_new(meta, "resourceVersion", json_string("42"));
    json_object_set_new(status, "costUSD", json_string("0.08"));
    json_object_set_new(status, "simulation",
                        json_pack("{sI sI sI}", "phaseTime", (json_int_t)40000, "accruedAt",
                                  (json_int_t)100000, "runMs", (json_int_t)60000));
    struct em_bytes *b = em_dump_splice(obj, prev, pb);
    same_as_jansson(obj, b);
    em_bytes_unref(b);
    /* em_dump_next gives the same */
    b = em_dump_next(obj, prev, pb);
    same_as_jansson(obj, b);
    em_bytes_unref(b);
    /* a member gone and one added at the end */
    json_object_del(status, "observedGeneration");
    json_object_set_new(status, "message", json_string("line\nbreak \"q\""));
    b = em_dump_splice(obj, prev, pb);
    same_as_jansson(obj, b);
    em_bytes_unref(b);
    em_bytes_unref(pb);
    json_decref(obj);
    json_decref(prev);
}

static void test_left_to_jansson(void **state)
{
    (void)state;
    json_t *prev = running_job();
    struct em_bytes *pb = dump(prev);
    /* nothing shared: a deep copy */
    json_t *copy = json_deep_copy(prev);
    assert_null(em_dump_splice(copy, prev, pb));
    struct em_bytes *b = em_dump_next(copy, prev, pb);
    same_as_jansson(copy, b);
    em_bytes_unref(b);
    /* no previous bytes, or no previous tree */
    json_t *obj = json_copy(prev);
    assert_null(em_dump_splice(obj, prev, NULL));
    assert_null(em_dump_splice(obj, NULL, pb));
    b = em_dump_next(obj, NULL, NULL);
    same_as_jansson(obj, b);
    em_bytes_unref(b);
    /* a key the dump escapes, or not ASCII */
    json_object_set_new(obj, "a\"b", json_integer(1));
    assert_null(em_dump_splice(obj, prev, pb));
    json_object_del(obj, "a\"b");
    json_object_set_new(obj, "clé", json_integer(1));
    assert_null(em_dump_splice(obj, prev, pb));
    /* text that is not prev's (fewer members) */
    json_object_del(obj, "clé");
    json_t *other = json_pack("{ss}", "kind", "Job");
    struct em_bytes *ob = dump(other);
    assert_null(em_dump_splice(obj, prev, ob));
    em_bytes_unref(ob);
    json_decref(other);
    json_decref(obj);
    json_decref(copy);
    em_bytes_unref(pb);
    json_decref(prev);
}

/* ---- random trees ---- */

static const char *const words[] = {"a", "b", "kind", "x y", "q\"t", "back\\slash", "{[", "]}",
                                    ",:", "é", "日本", "tab\t", "nl\n", "\x01", "/", ""};
#define NWORDS (sizeof words / sizeof *words)
/* keys: most of them of bytes the splice writes itself (brackets and commas included),
 * one in 16 of others (left to jansson) */
static const char *const keys[] = {"a", "b", "kind", "x y", "{[", "]}", ",:", "/", ""};
static const char *const odd_keys[] = {"q\"t", "é", "nl\n", "back\\slash"};

static const char *random_key(void)
{
    return rnd(16) ? keys[rnd(sizeof keys / sizeof *keys)] : odd_keys[rnd(4)];
}

static json_t *random_value(int depth);

static json_t *random_string(void)
{
    char s[64] = "";
    size_t len = 0;
    for (uint32_t i = 0, n = rnd(4); i < n; i++) {
        const char *w = words[rnd(NWORDS)];
        memcpy(s + len, w, strlen(w) + 1); /* 4 words of at most 10 bytes */
        len += strlen(w);
    }
    return json_string(s);
}

static json_t *random_object(int depth)
{
    json_t *o = json_object();
    for (uint32_t i = 0, n = rnd(7); i < n; i++)
        json_object_set_new(o, random_key(), random_value(depth + 1));
    return o;
}

static json_t *random_value(int depth)
{
    switch (depth > 3 ? rnd(6) : rnd(8)) {
    case 0:
        return random_string();
    case 1:
        return json_integer((json_int_t)rnd(100000) - 50000);
    case 2:
        return json_real((double)rnd(1000) / 7.0);
    case 3:
        return rnd(2) ? json_true() : json_false();
    case 4:
        return json_null();
    case 5:
        return json_string(words[rnd(NWORDS)]);
    case 6: {
        json_t *a = json_array();
        for (uint32_t i = 0, n = rnd(4); i < n; i++)
            json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default:
        return random_object(depth);
    }
}

/* A copy of prev (an object) as a writer makes one: each member shared, replaced,
 * removed, moved to the end, or (an object, above depth 2) copied and changed the same
 * way; new members added. */
static json_t *changed_copy(const json_t *prev, int depth)
{
    json_t *o = json_copy((json_t *)prev);
    const char *key;
    json_t *v;
    void *tmp;
    json_object_foreach_safe((json_t *)prev, tmp, key, v) {
        switch (rnd(6)) {
        case 0:
            json_object_set_new(o, key, random_value(depth + 1));
            break;
        case 1:
            json_object_del(o, key);
            break;
        case 2:
            json_incref(v);
            json_object_del(o, key);
            json_object_set_new(o, key, v);
            break;
        case 3:
            if (json_is_object(v) && depth < 2)
                json_object_set_new(o, key, changed_copy(v, depth + 1));
            break;
        default:
            break; /* shared */
        }
    }
    for (uint32_t i = 0, n = rnd(3); i < n; i++)
        json_object_set_new(o, random_key(), random_value(depth + 1));
    return o;
}

static void test_random_changes(void **state)
{
    (void)state;
    int spliced = 0, rounds = 4000;
    for (int r = 0; r < rounds; r++) {
        json_t *prev = random_object(0);
        /* a tree of the shape of an object: objects two deep */
        json_object_set_new(prev, "metadata", random_object(1));
        json_object_set_new(prev, "status", random_object(1));
        struct em_bytes *pb = dump(prev);
        json_t *obj = changed_copy(prev, 0);
        struct em_bytes *b = em_dump_splice(obj, prev, pb);
        if (b) {
            spliced++;
            same_as_jansson(obj, b);
            em_bytes_unref(b);
        }
        b = em_dump_next(obj, prev, pb);
        same_as_jansson(obj, b);
        em_bytes_unref(b);
        em_bytes_unref(pb);
        json_decref(obj);
        json_decref(prev);
    }
    /* not vacuous: most were spliced (keys of other bytes go to jansson) */
    assert_true(spliced > rounds / 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_running_jobs_minute),
        cmocka_unit_test(test_left_to_jansson),
        cmocka_unit_test(test_random_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
