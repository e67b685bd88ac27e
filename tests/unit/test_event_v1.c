/* Unit tests of the events.k8s.io/v1 view of Events: the conversion (pkg/kinds/event_v1.c)
 * and how the registry finds the view beside the core Event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kinds/event_v1.h"
#include "kinds/registry.h"

static json_t *parse(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    assert_non_null(j);
    return j;
}

/* Every field moves to its events.k8s.io name, in kube's order; nothing else comes. */
static void test_convert_fields(void **state)
{
    (void)state;
    json_t *core = parse(
        "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"j.1\",\"namespace\":"
        "\"default\",\"resourceVersion\":\"7\"},\"involvedObject\":{\"kind\":\"Job\",\"name\":"
        "\"j\"},"
        "\"reason\":\"Running\",\"message\":\"m\",\"type\":\"Normal\",\"count\":3,"
        "\"firstTimestamp\":\"2026-01-02T03:04:05Z\",\"lastTimestamp\":\"2026-01-02T03:05:00Z\","
        "\"source\":{\"component\":\"nodus\"},\"reportingComponent\":\"nodus\","
        "\"reportingInstance\":\"i\",\"action\":\"Placed\",\"related\":{\"kind\":\"Pool\"},"
        "\"series\":{\"count\":3,\"lastObservedTime\":\"2026-01-02T03:05:00.000000Z\"}}");
    json_t *v1 = nd_event_v1_from_core(core);
    char *text = json_dumps(v1, JSON_COMPACT);
    assert_string_equal(
        text,
        "{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"j.1\","
        "\"namespace\":\"default\",\"resourceVersion\":\"7\"},\"eventTime\":"
        "\"2026-01-02T03:04:05.000000Z\",\"series\":{\"count\":3,\"lastObservedTime\":"
        "\"2026-01-02T03:05:00.000000Z\"},\"reportingController\":\"nodus\","
        "\"reportingInstance\":\"i\",\"action\":\"Placed\",\"reason\":\"Running\",\"regarding\":"
        "{\"kind\":\"Job\",\"name\":\"j\"},\"related\":{\"kind\":\"Pool\"},\"note\":\"m\",\"type\":"
        "\"Normal\",\"deprecatedSource\":{\"component\":\"nodus\"},\"deprecatedFirstTimestamp\":"
        "\"2026-01-02T03:04:05Z\",\"deprecatedLastTimestamp\":\"2026-01-02T03:05:00Z\","
        "\"deprecatedCount\":3}");
    free(text);
    json_decref(v1);
    json_decref(core);
}

/* eventTime: the Event's own, else the first timestamp with microseconds, else null. */
static void test_event_time(void **state)
{
    (void)state;
    static const struct {
        const char *core, *want;
    } rows[] = {
        {"{\"eventTime\":\"2026-01-02T03:04:05.123456Z\",\"firstTimestamp\":\"2026-01-01T00:00:"
         "00Z\"}",
         "\"2026-01-02T03:04:05.123456Z\""},
        {"{\"firstTimestamp\":\"2026-01-01T00:00:00Z\"}", "\"2026-01-01T00:00:00.000000Z\""},
        {"{\"firstTimestamp\":\"yesterday\"}", "null"},
        {"{}", "null"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *core = parse(rows[i].core);
        json_t *v1 = nd_event_v1_from_core(core);
        char *t = json_dumps(json_object_get(v1, "eventTime"), JSON_ENCODE_ANY);
        assert_string_equal(t, rows[i].want);
        free(t);
        json_decref(v1);
        json_decref(core);
    }
}

/* The view is found by its group (URLs) and qualified name; everything else finds the
 * core Event, and the kinds table does not hold the view. */
static void test_registry_finds_view(void **state)
{
    (void)state;
    const struct nd_kind *core = nd_kind_by_plural("", "events");
    const struct nd_kind *view = nd_kind_by_plural("events.k8s.io", "events");
    assert_non_null(core);
    assert_non_null(view);
    assert_ptr_not_equal(core, view);
    assert_null(core->from_stored);
    assert_non_null(view->from_stored);
    assert_string_equal(view->api_version, "events.k8s.io/v1");
    assert_ptr_equal(nd_kind_by_plural(NULL, "events"), core);
    assert_ptr_equal(nd_kind_by_kind(NULL, "Event"), core);
    assert_ptr_equal(nd_kind_by_kind("events.k8s.io", "Event"), view);
    assert_ptr_equal(nd_kind_lookup("events"), core);
    assert_ptr_equal(nd_kind_lookup("ev"), core);
    assert_ptr_equal(nd_kind_lookup("events.events.k8s.io"), view);
    assert_ptr_equal(nd_kind_lookup("event.v1.events.k8s.io"), view);
    assert_null(nd_kind_by_api_version("events.k8s.io/v1", "Event")); /* nothing is written as it */
    assert_int_equal(nd_kind_served_count(), nd_kind_count() + 1);
    for (size_t i = 0; i < nd_kind_count(); i++)
        assert_null(nd_kinds[i].from_stored);
    assert_true(nd_kind_field_selectable(view, "regarding.kind"));
    assert_false(nd_kind_field_selectable(view, "involvedObject.kind"));
    assert_false(nd_kind_field_selectable(view, "regarding"));
    assert_true(nd_kind_field_selectable(core, "involvedObject.apiVersion"));
    assert_true(nd_kind_field_selectable(core, "source"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convert_fields),
        cmocka_unit_test(test_event_time),
        cmocka_unit_test(test_registry_finds_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
