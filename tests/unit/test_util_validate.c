/* Unit tests of pkg/util/validate.h (and quote.h, which shapes its messages). The
 * messages are Kubernetes 1.33's, as kubectl 1.33 carries them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/quote.h"
#include "util/status.h"
#include "util/validate.h"
#include "util/xmalloc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Written out in full (not assembled from pieces) so a wrong piece shows. */
static const char LABEL_MSG[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
static const char SUB_MSG[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
static const char NAME_PART_MSG[] =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
static const char QNAME_MSG[] =
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
    "subdomain prefix and '/' (e.g. 'example.com/MyName')";
static const char VALUE_MSG[] =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

static char *repeat(char c, size_t n)
{
    char *s = nd_xmalloc(n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

enum kind { LABEL, SUBDOMAIN, LABEL_KEY, LABEL_VALUE, ANNOTATION_KEY };

static int validate(enum kind k, const char *s, const char *field, struct nd_status *st)
{
    switch (k) {
    case LABEL:
        return nd_validate_dns_label(s, field, st);
    case SUBDOMAIN:
        return nd_validate_dns_subdomain(s, field, st);
    case LABEL_KEY:
        return nd_validate_label_key(s, field, st);
    case LABEL_VALUE:
        return nd_validate_label_value(s, field, st);
    default:
        return nd_validate_annotation_key(s, field, st);
    }
}

static bool is(enum kind k, const char *s)
{
    switch (k) {
    case LABEL:
        return nd_is_dns_label(s);
    case SUBDOMAIN:
        return nd_is_dns_subdomain(s);
    case LABEL_KEY:
        return nd_is_label_key(s);
    case LABEL_VALUE:
        return nd_is_label_value(s);
    default:
        return nd_is_annotation_key(s);
    }
}

static void test_valid_values(void **state)
{
    (void)state;
    static const struct {
        enum kind k;
        const char *s;
    } rows[] = {
        {LABEL, "a"},
        {LABEL, "my-name"},
        {LABEL, "123-abc"},
        {LABEL, "0"},
        {LABEL, "a--b"},
        {LABEL, "train-a"},
        {SUBDOMAIN, "example.com"},
        {SUBDOMAIN, "a"},
        {SUBDOMAIN, "a-1.b-2.c"},
        {SUBDOMAIN, "nodus.dev"},
        {LABEL_KEY, "app"},
        {LABEL_KEY, "MyName"},
        {LABEL_KEY, "my.name"},
        {LABEL_KEY, "my_name-1"},
        {LABEL_KEY, "nodus.dev/created-by"},
        {LABEL_KEY, "example.com/MyName"},
        {LABEL_KEY, "app.kubernetes.io/name"},
        {LABEL_VALUE, ""},
        {LABEL_VALUE, "trainer"},
        {LABEL_VALUE, "MyValue"},
        {LABEL_VALUE, "my_value"},
        {LABEL_VALUE, "12345"},
        {LABEL_VALUE, "v1.2-rc_3"},
        {ANNOTATION_KEY, "nodus.dev/restart-requested-at"},
        {ANNOTATION_KEY, "Example.COM/Key"}, /* annotations: case does not matter */
        {ANNOTATION_KEY, "kubectl.kubernetes.io/last-applied-configuration"},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        if (validate(rows[i].k, rows[i].s, "f", &st) != 0)
            fail_msg("%s: %s", rows[i].s, st.message);
        assert_false(nd_status_failed(&st));
        assert_true(is(rows[i].k, rows[i].s));
    }
    /* the limits themselves are fine */
    char *s63 = repeat('a', 63), *s253 = repeat('a', 253);
    for (size_t i = 63; i < 253; i += 64)
        s253[i] = '.';
    assert_true(nd_is_dns_label(s63));
    assert_true(nd_is_label_value(s63));
    assert_true(nd_is_label_key(s63));
    assert_true(nd_is_dns_subdomain(s253));
    struct nd_buf key = ND_BUF_INIT;
    nd_buf_addf(&key, "%s/%s", s253, s63);
    assert_true(nd_is_label_key(key.data));
    nd_buf_release(&key);
    free(s63);
    free(s253);
}

static void test_invalid_values(void **state)
{
    (void)state;
    static const char *const none = NULL;
    struct row {
        enum kind k;
        const char *s;
        const char *msgs[3]; /* the causes' details, in order */
    };
    const struct row rows[] = {
        {LABEL, "", {LABEL_MSG, none}},
        {LABEL, "Foo", {LABEL_MSG, none}},
        {LABEL, "-a", {LABEL_MSG, none}},
        {LABEL, "a-", {LABEL_MSG, none}},
        {LABEL, "a_b", {LABEL_MSG, none}},
        {LABEL, "a b", {LABEL_MSG, none}},
        {LABEL, "a.b", {"must not contain dots", none}},
        {LABEL, "caf\xc3\xa9", {LABEL_MSG, none}},
        {SUBDOMAIN, "", {SUB_MSG, none}},
        {SUBDOMAIN, "a..b", {SUB_MSG, none}},
        {SUBDOMAIN, ".a", {SUB_MSG, none}},
        {SUBDOMAIN, "a.", {SUB_MSG, none}},
        {SUBDOMAIN, "a.-b", {SUB_MSG, none}},
        {SUBDOMAIN, "Example.com", {SUB_MSG, none}},
        {LABEL_KEY, "", {"name part must be non-empty", NAME_PART_MSG, none}},
        {LABEL_KEY, "-app", {NAME_PART_MSG, none}},
        {LABEL_KEY, "app!", {NAME_PART_MSG, none}},
        {LABEL_KEY, "a/b/c", {QNAME_MSG, none}},
        {LABEL_KEY, "/app", {"prefix part must be non-empty", none}},
        {LABEL_KEY, "nodus.dev/", {"name part must be non-empty", NAME_PART_MSG, none}},
        {LABEL_KEY, "Example.com/app", {"prefix part ", none}}, /* completed below */
        {LABEL_KEY,
         "/",
         {"prefix part must be non-empty", "name part must be non-empty", NAME_PART_MSG}},
        {LABEL_VALUE, "-x", {VALUE_MSG, none}},
        {LABEL_VALUE, "bad value", {VALUE_MSG, none}},
        {LABEL_VALUE, "x_", {VALUE_MSG, none}},
        {ANNOTATION_KEY, "a/b/c", {QNAME_MSG, none}},
        {ANNOTATION_KEY, "-x", {NAME_PART_MSG, none}},
        {ANNOTATION_KEY, "exa mple.com/x", {"prefix part ", none}},
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_status st = ND_STATUS_INIT;
        assert_int_equal(validate(rows[i].k, rows[i].s, "metadata.labels", &st), -1);
        assert_false(is(rows[i].k, rows[i].s));
        assert_string_equal(st.reason, "Invalid");
        assert_int_equal(st.code, 422);
        json_t *causes = json_object_get(st.details, "causes");
        size_t want = 0;
        while (want < 3 && rows[i].msgs[want])
            want++;
        if (json_array_size(causes) != want)
            fail_msg("%s: %zu causes: %s", rows[i].s, json_array_size(causes), st.message);
        struct nd_buf all = ND_BUF_INIT;
        if (want > 1)
            nd_buf_addch(&all, '[');
        for (size_t c = 0; c < want; c++) {
            json_t *cause = json_array_get(causes, c);
            struct nd_buf msg = ND_BUF_INIT;
            nd_buf_adds(&msg, "Invalid value: ");
            nd_quote(&msg, rows[i].s, 256);
            nd_buf_addf(&msg, ": %s", rows[i].msgs[c]);
            if (strcmp(rows[i].msgs[c], "prefix part ") == 0)
                nd_buf_adds(&msg, SUB_MSG);
            assert_string_equal(json_string_value(json_object_get(cause, "reason")),
                                "FieldValueInvalid");
            assert_string_equal(json_string_value(json_object_get(cause, "field")),
                                "metadata.labels");
            assert_string_equal(json_string_value(json_object_get(cause, "message")), msg.data);
            nd_buf_addf(&all, "%smetadata.labels: %s", c ? ", " : "", msg.data);
            nd_buf_release(&msg);
        }
        if (want > 1)
            nd_buf_addch(&all, ']');
        assert_string_equal(st.message, all.data);
        nd_buf_release(&all);
        nd_status_release(&st);
    }
}

static void test_exact_messages(void **state)
{
    (void)state;
    /* one complete message, spelled out, as kube-apiserver would word the cause */
    struct nd_status st = ND_STATUS_INIT;
    assert_int_equal(nd_validate_dns_label("Train_A", "metadata.name", &st), -1);
    assert_string_equal(
        st.message,
        "metadata.name: Invalid value: \"Train_A\": a lowercase RFC 1123 label must consist of "
        "lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
        "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    nd_status_release(&st);

    /* kubectl's own wording for a bad label value (kubectl label checks values locally) */
    assert_int_equal(nd_validate_label_value("bad value", "metadata.labels[foo]", &st), -1);
    assert_string_equal(
        st.message,
        "metadata.labels[foo]: Invalid value: \"bad value\": a valid label must be an empty "
        "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
        "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
        "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
    nd_status_release(&st);

    /* no field: no prefix */
    assert_int_equal(nd_validate_dns_label("a.b", NULL, &st), -1);
    assert_string_equal(st.message, "Invalid value: \"a.b\": must not contain dots");
    json_t *cause = json_array_get(json_object_get(st.details, "causes"), 0);
    assert_null(json_object_get(cause, "field"));
    nd_status_release(&st);

    /* NULL value: Required */
    assert_int_equal(nd_validate_dns_label(NULL, "metadata.name", &st), -1);
    assert_string_equal(st.message, "metadata.name: Required value");
    cause = json_array_get(json_object_get(st.details, "causes"), 0);
    assert_string_equal(json_string_value(json_object_get(cause, "reason")), "FieldValueRequired");
    nd_status_release(&st);
    assert_false(nd_is_dns_label(NULL));
    assert_false(nd_is_dns_subdomain(NULL));
    assert_false(nd_is_label_key(NULL));
    assert_false(nd_is_label_value(NULL));
    assert_false(nd_is_annotation_key(NULL));
}

static void test_too_long(void **state)
{
    (void)state;
    char *s64 = repeat('a', 64), *s254 = repeat('a', 254);
    struct nd_status st = ND_STATUS_INIT;

    /* too long only: one cause */
    assert_int_equal(nd_validate_dns_label(s64, "metadata.name", &st), -1);
    assert_int_equal(nd_status_cause_count(&st), 1);
    assert_non_null(strstr(st.message, "\": must be no more than 63 characters"));
    nd_status_release(&st);

    /* too long and a bad character: two causes, aggregated as Kubernetes does */
    s64[0] = 'A';
    assert_int_equal(nd_validate_dns_label(s64, "metadata.name", &st), -1);
    assert_int_equal(nd_status_cause_count(&st), 2);
    struct nd_buf want = ND_BUF_INIT;
    nd_buf_addf(&want,
                "[metadata.name: Invalid value: \"%s\": must be no more than 63 characters, "
                "metadata.name: Invalid value: \"%s\": %s]",
                s64, s64, LABEL_MSG);
    assert_string_equal(st.message, want.data);
    nd_buf_release(&want);
    nd_status_release(&st);

    assert_int_equal(nd_validate_dns_subdomain(s254, "spec.host", &st), -1);
    assert_int_equal(nd_status_cause_count(&st), 1);
    assert_non_null(strstr(st.message, "a\": must be no more than 253 characters"));
    nd_status_release(&st);

    s64[0] = 'a';
    assert_int_equal(nd_validate_label_value(s64, "metadata.labels[x]", &st), -1);
    assert_non_null(strstr(st.message, "\": must be no more than 63 characters"));
    nd_status_release(&st);

    struct nd_buf key = ND_BUF_INIT;
    nd_buf_addf(&key, "%s/%s", s254, s64);
    assert_int_equal(nd_validate_label_key(key.data, "metadata.labels", &st), -1);
    json_t *causes = json_object_get(st.details, "causes");
    assert_int_equal(json_array_size(causes), 2);
    const char *m0 = json_string_value(json_object_get(json_array_get(causes, 0), "message"));
    const char *m1 = json_string_value(json_object_get(json_array_get(causes, 1), "message"));
    assert_non_null(strstr(m0, "\"...: prefix part must be no more than 253 characters"));
    assert_non_null(strstr(m1, "\"...: name part must be no more than 63 characters"));
    nd_buf_release(&key);
    nd_status_release(&st);

    /* a 1 MiB name: rejected quickly, the message stays short */
    char *huge = repeat('a', 1 << 20);
    assert_int_equal(nd_validate_dns_label(huge, "metadata.name", &st), -1);
    assert_true(strlen(st.message) < 400);
    assert_false(nd_is_dns_label(huge));
    assert_false(nd_is_dns_subdomain(huge));
    assert_false(nd_is_label_key(huge));
    nd_status_release(&st);
    free(huge);
    free(s64);
    free(s254);
}

static void test_accumulate(void **state)
{
    (void)state;
    struct nd_status st = ND_STATUS_INIT;
    /* an unrelated earlier error is replaced */
    nd_status_set(&st, "NotFound", NULL, "no such thing");
    assert_int_equal(nd_validate_dns_label("ok-name", "metadata.name", &st), 0);
    assert_string_equal(st.reason, "NotFound"); /* a valid value leaves st alone */
    assert_int_equal(nd_validate_dns_label("Bad", "metadata.name", &st), -1);
    assert_int_equal(nd_validate_label_value("-x", "metadata.labels[app]", &st), -1);
    assert_int_equal(nd_validate_required(&st, "spec.image", NULL), -1);
    assert_int_equal(nd_validate_invalid(&st, "spec.maxCostUSD", "abc", "must be a number"), -1);
    assert_string_equal(st.reason, "Invalid");
    assert_int_equal(nd_status_cause_count(&st), 4);
    struct nd_buf want = ND_BUF_INIT;
    nd_buf_addf(&want,
                "[metadata.name: Invalid value: \"Bad\": %s, metadata.labels[app]: Invalid "
                "value: \"-x\": %s, spec.image: Required value, spec.maxCostUSD: Invalid value: "
                "\"abc\": must be a number]",
                LABEL_MSG, VALUE_MSG);
    assert_string_equal(st.message, want.data);
    nd_buf_release(&want);
    nd_status_release(&st);

    /* an Invalid error without causes (from a parser) is replaced, not extended */
    nd_status_set(&st, "Invalid", NULL, "invalid time \"x\"");
    nd_validate_invalid(&st, "spec.x", "y", NULL);
    assert_string_equal(st.message, "spec.x: Invalid value: \"y\"");
    assert_int_equal(nd_status_cause_count(&st), 1);
    nd_status_release(&st);

    nd_validate_required(&st, NULL, "name or generateName is required");
    assert_string_equal(st.message, "Required value: name or generateName is required");
    nd_status_release(&st);
}

static void test_quote(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t max;
        const char *out;
    } rows[] = {
        {"abc", 0, "\"abc\""},
        {"", 0, "\"\""},
        {NULL, 0, "\"\""},
        {"a\"b\\c", 0, "\"a\\\"b\\\\c\""},
        {"\a\b\f\n\r\t\v", 0, "\"\\a\\b\\f\\n\\r\\t\\v\""},
        {"\x01\x1f\x7f", 0, "\"\\x01\\x1f\\x7f\""},
        {"caf\xc3\xa9", 0, "\"caf\xc3\xa9\""},           /* valid UTF-8 kept */
        {"\xe2\x82\xac", 0, "\"\xe2\x82\xac\""},         /* euro sign */
        {"\xf0\x9f\x98\x80", 0, "\"\xf0\x9f\x98\x80\""}, /* emoji */
        {"\xff\xfe", 0, "\"\\xff\\xfe\""},               /* invalid bytes escaped */
        {"\xc3", 0, "\"\\xc3\""},                        /* truncated sequence */
        {"\xc0\xaf", 0, "\"\\xc0\\xaf\""},               /* overlong */
        {"\xed\xa0\x80", 0, "\"\\xed\\xa0\\x80\""},      /* surrogate */
        {"a\xc2\x9b" "31m\xc2\x80\xc2\x9f\xc2\xa0", 0,
         "\"a\\u009b31m\\u0080\\u009f\xc2\xa0\""}, /* C1 controls (CSI), not NBSP */
        {"abcdef", 3, "\"abc\"..."},
        {"abc", 3, "\"abc\""},
        {"ab\xc3\xa9", 3, "\"ab\"..."}, /* never splits a sequence */
    };
    for (size_t i = 0; i < N(rows); i++) {
        struct nd_buf b = ND_BUF_INIT;
        assert_int_equal(nd_quote(&b, rows[i].in, rows[i].max), 0);
        assert_string_equal(b.data, rows[i].out);
        nd_buf_release(&b);
    }
    struct nd_buf b = ND_BUF_INIT;
    nd_quote_n(&b, "a\0b", 3, 0);
    assert_string_equal(b.data, "\"a\\x00b\"");
    nd_buf_release(&b);
    nd_buf_init(&b, 4);
    assert_int_equal(nd_quote(&b, "abcdef", 0), -1);
    nd_buf_release(&b);
    /* for a shell: single quotes, a quote in it closed, escaped and reopened */
    nd_buf_init(&b, 0);
    nd_quote_shell(&b, "/tmp/it's here");
    nd_quote_shell_n(&b, "a\nb", 3);
    assert_string_equal(b.data, "'/tmp/it'\\''s here''a\nb'");
    nd_buf_release(&b);
}

int main(void)
{
    nd_xmalloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_values),   cmocka_unit_test(test_invalid_values),
        cmocka_unit_test(test_exact_messages), cmocka_unit_test(test_too_long),
        cmocka_unit_test(test_accumulate),     cmocka_unit_test(test_quote),
    };
    return cmocka_run_group_tests_name("util_validate", tests, NULL, NULL);
}
