/* Unit tests of the start's one-pass read of the Events' hour files (events_file.h with a
 * plan, objscan.h): real lines the emulator wrote are read with no jansson parse, to the
 * same Events (bytes, records) and files as jansson's path; lines mutated (blanks,
 * escapes, numbers, duplicate keys, invalid UTF-8, another project, torn or cut, deletion
 * lines) give what jansson's path gives, byte for byte (events_same.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events_same.h"
#define TEST_RNG_SEED 0x9e3779b97f4a7c15ull /* (test_rng.h) */
#include "test_rng.h"

#define HOUR "2026-12-06T12"

/* Lines of an hour file the emulator wrote (a state of Jobs POSTed with the simulation
 * on), their project renamed "p"; the same Event twice (a newer revision), a deletion. */
static const char *const real[] = {
    "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"template.001a24b6971f9001\",\"namespace\":\"p\",\"uid\":\"evt_01m95pjwfsq8evmzkpamhcc5x5\",\"resourceVersion\":\"13\",\"generation\":1,\"creationTimestamp\":\"2026-12-06T12:52:11Z\"},\"involvedObject\":{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"name\":\"template\",\"namespace\":\"p\",\"uid\":\"job_01m95pjwfsq8evmzkpamhcc5x4\",\"resourceVersion\":\"12\"},\"reason\":\"Created\",\"message\":\"created by emulator-user\",\"type\":\"Normal\",\"count\":1,\"firstTimestamp\":\"2026-12-06T12:52:11Z\",\"lastTimestamp\":\"2026-12-06T12:52:11Z\",\"source\":{\"component\":\"nodus\"},\"reportingComponent\":\"nodus\",\"reportingInstance\":\"nodus-emulator\"}",
    "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"api-0-0.001a24b6973a5004\",\"namespace\":\"p\",\"uid\":\"evt_01m95pjwx5gh3vta717n8rbemh\",\"resourceVersion\":\"25\",\"generation\":1,\"creationTimestamp\":\"2026-12-06T12:52:11Z\"},\"involvedObject\":{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"name\":\"api-0-0\",\"namespace\":\"p\",\"uid\":\"job_01m95pjwx5gh3vta717n8rbemg\",\"resourceVersion\":\"24\"},\"reason\":\"Created\",\"message\":\"created by emulator-user\",\"type\":\"Normal\",\"count\":1,\"firstTimestamp\":\"2026-12-06T12:52:11Z\",\"lastTimestamp\":\"2026-12-06T12:52:11Z\",\"source\":{\"component\":\"nodus\"},\"reportingComponent\":\"nodus\",\"reportingInstance\":\"nodus-emulator\"}",
    "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"template.001a24b69891515a\",\"namespace\":\"p\",\"uid\":\"evt_01m95pk28nryz5yf030e9jqc41\",\"resourceVersion\":\"1042\",\"generation\":1,\"creationTimestamp\":\"2026-12-06T12:52:17Z\"},\"involvedObject\":{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"name\":\"template\",\"namespace\":\"p\",\"uid\":\"job_01m95pjwfsq8evmzkpamhcc5x4\",\"resourceVersion\":\"14\"},\"reason\":\"Provisioning\",\"message\":\"placed on market; provisioning\",\"type\":\"Normal\",\"count\":1,\"firstTimestamp\":\"2026-12-06T12:52:17Z\",\"lastTimestamp\":\"2026-12-06T12:52:17Z\",\"source\":{\"component\":\"nodus\"},\"reportingComponent\":\"nodus\",\"reportingInstance\":\"nodus-emulator\"}",
    "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"template.001a24b69fe5169a\",\"namespace\":\"p\",\"uid\":\"evt_01m95pkzjh7fmkszw0znafq9c9\",\"resourceVersion\":\"35389\",\"generation\":1,\"creationTimestamp\":\"2026-12-06T12:52:47Z\"},\"involvedObject\":{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"name\":\"template\",\"namespace\":\"p\",\"uid\":\"job_01m95pjwfsq8evmzkpamhcc5x4\",\"resourceVersion\":\"1043\"},\"reason\":\"Running\",\"message\":\"the command is running\",\"type\":\"Normal\",\"count\":1,\"firstTimestamp\":\"2026-12-06T12:52:47Z\",\"lastTimestamp\":\"2026-12-06T12:52:47Z\",\"source\":{\"component\":\"nodus\"},\"reportingComponent\":\"nodus\",\"reportingInstance\":\"nodus-emulator\"}",
    "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"api-0-0.001a24b6973a5004\",\"namespace\":\"p\",\"uid\":\"evt_01m95pjwx5gh3vta717n8rbemh\",\"resourceVersion\":\"40\",\"generation\":1,\"creationTimestamp\":\"2026-12-06T12:52:11Z\"},\"involvedObject\":{\"apiVersion\":\"nodus.dev/v1\",\"kind\":\"Job\",\"name\":\"api-0-0\",\"namespace\":\"p\",\"uid\":\"job_01m95pjwx5gh3vta717n8rbemg\",\"resourceVersion\":\"24\"},\"reason\":\"Created\",\"message\":\"created by emulator-user \\\"caf\xc3\xa9\\\"\\n\\u001F\",\"type\":\"Normal\",\"count\":2,\"firstTimestamp\":\"2026-12-06T12:52:11Z\",\"lastTimestamp\":\"2026-12-06T12:52:12Z\",\"source\":{\"component\":\"nodus\"},\"reportingComponent\":\"nodus\",\"reportingInstance\":\"nodus-emulator\"}",
    "{\"deleted\":\"template.001a24b69891515a\",\"resourceVersion\":\"36000\"}",
};
#define NREAL (sizeof real / sizeof *real)

static struct em_scan_plan *plan;

static int setup(void **state)
{
    (void)state;
    plan = em_events_scan_plan();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    em_scan_plan_free(plan);
    return 0;
}

/* The lines as one file (each with its newline). */
static char *file_of(const char *const *lines, size_t n, size_t *len)
{
    struct nd_buf b = ND_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        nd_buf_add(&b, lines[i], strlen(lines[i]));
        nd_buf_addch(&b, '\n');
    }
    *len = b.len;
    return nd_buf_detach(&b);
}

static void test_real_lines_read_without_jansson(void **state)
{
    (void)state;
    size_t len;
    char *text = file_of(real, NREAL, &len);
    struct es_file f = {HOUR ".ndjson", text, len};
    struct em_events_read rd = {0};
    assert_true(es_same(plan, &f, 1, &rd));
    assert_int_equal(rd.lines, NREAL);
    assert_int_equal(rd.parsed, 0);
    /* and spread over two files (the tidy rewrites them), a torn last line */
    struct es_file two[] = {{HOUR ".ndjson", text, len / 2},
                            {"2026-12-06T13.ndjson", text + len / 2, len - len / 2}};
    assert_true(es_same(plan, two, 2, &rd));
    free(text);
}

/* Lines the scan must leave to jansson, or read to the same effect. */
static void test_hand_lines(void **state)
{
    (void)state;
    static const char *const lines[] = {
        /* blanks, an escape jansson's dump writes otherwise, "\/", a real, a duplicate */
        "{ \"apiVersion\": \"v1\", \"kind\": \"Event\", \"metadata\": {\"name\": \"a\", \"namespace\": \"p\", \"resourceVersion\": \"3\"}}",
        "{\"kind\":\"Event\",\"metadata\":{\"name\":\"b\",\"namespace\":\"p\",\"resourceVersion\":\"4\"},\"message\":\"\\u0041\\/\"}",
        "{\"kind\":\"Event\",\"metadata\":{\"name\":\"c\",\"namespace\":\"p\",\"resourceVersion\":\"5\"},\"count\":1.50}",
        "{\"kind\":\"Event\",\"metadata\":{\"name\":\"d\",\"namespace\":\"p\",\"resourceVersion\":\"6\"},\"count\":1,\"count\":2}",
        /* another project, none (the directory says it), a name jansson reports */
        "{\"kind\":\"Event\",\"metadata\":{\"name\":\"e\",\"namespace\":\"q\",\"resourceVersion\":\"7\"}}",
        "{\"kind\":\"Event\",\"metadata\":{\"name\":\"f\",\"resourceVersion\":\"8\"}}",
        "{\"kind\":\"Event\",\"metadata\":{\"name\":\"\",\"namespace\":\"p\"}}",
        "{\"kind\":\"Event\",\"metadata\":{\"name\":7,\"namespace\":\"p\"},\"deleted\":\"g\"}",
        "{\"kind\":1,\"metadata\":{\"name\":\"h\",\"namespace\":\"p\"}}",
        /* invalid UTF-8, a control byte, a cut line, not an object */
        "{\"kind\":\"Event\",\"metadata\":{\"name\":\"i\",\"namespace\":\"p\"},\"m\":\"\xc0\xaf\"}",
        "{\"kind\":\"Event\",\"metadata\":{\"name\":\"j\",\"namespace\":\"p\"},\"m\":\"\x01\"}",
        "{\"kind\":\"Event\",\"metadata\":{\"name\":\"k\"",
        "[1,2]",
        /* deletion lines: as written, with blanks, without a resourceVersion, empty */
        "{\"deleted\":\"a\",\"resourceVersion\":\"9\"}",
        "{ \"deleted\" : \"b\" }",
        "{\"deleted\":\"\",\"resourceVersion\":\"1\"}",
        "{\"deleted\":\"c\",\"resourceVersion\":9}",
    };
    size_t n = sizeof lines / sizeof *lines;
    struct em_events_read rd = {0};
    for (size_t i = 0; i < n; i++) {
        const char *one[] = {real[1], lines[i], real[3]};
        size_t len;
        char *text = file_of(one, 3, &len);
        struct es_file f = {HOUR ".ndjson", text, len};
        if (!es_same(plan, &f, 1, &rd))
            fail_msg("differs: %s", lines[i]);
        free(text);
    }
    /* the real lines, and the deletion line as the emulator writes it, were scanned */
    assert_int_equal(rd.lines, 3 * n);
    assert_true(rd.parsed < n);
    assert_true(rd.parsed > 10);
}

/* One mutation of line (NEW): a byte replaced, inserted or removed, or a token spliced in. */
static char *mutate(const char *line)
{
    static const char *const tokens[] = {" ",          "\\u00e9",  "\\/",     "1.0",  "-0",
                                         "1e5",        "\xff",     "\xc3",    "\"",   ",",
                                         "}",          "{",        "\\u0000", "\\t",  "99999999999999999999",
                                         "\"name\":\"x\",", "\"namespace\":\"p\",", "\\ud800", "\n", "\t"};
    size_t len = strlen(line), at = rnd((unsigned)len + 1);
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_add(&b, line, at);
    switch (rnd(4)) {
    case 0: /* a byte replaced */
        nd_buf_addch(&b, (char)(rnd(255) + 1));
        at += at < len;
        break;
    case 1: /* removed */
        at += at < len;
        break;
    case 2: /* a printable byte inserted */
        nd_buf_addch(&b, (char)(rnd(95) + 32));
        break;
    default: {
        const char *t = tokens[rnd(sizeof tokens / sizeof *tokens)];
        nd_buf_add(&b, t, strlen(t));
    }
    }
    nd_buf_add(&b, line + at, len - at);
    return nd_buf_detach(&b);
}

static void test_mutated_lines(void **state)
{
    (void)state;
    struct em_events_read rd = {0};
    for (int round = 0; round < 500; round++) {
        const char *lines[NREAL];
        char *made[NREAL] = {0};
        for (size_t i = 0; i < NREAL; i++) {
            lines[i] = real[i];
            if (rnd(3) == 0) {
                made[i] = mutate(real[i]);
                for (unsigned m = rnd(3); m > 0; m--) {
                    char *again = mutate(made[i]);
                    free(made[i]);
                    made[i] = again;
                }
                lines[i] = made[i];
            }
        }
        size_t len;
        char *text = file_of(lines, NREAL, &len);
        /* sometimes without the last newline (a torn append) */
        struct es_file f = {HOUR ".ndjson", text, rnd(4) ? len : len - 1};
        if (!es_same(plan, &f, 1, &rd))
            fail_msg("differs at round %d:\n%s", round, text);
        free(text);
        for (size_t i = 0; i < NREAL; i++)
            free(made[i]);
    }
    /* both paths were taken */
    print_message("%zu lines, %zu parsed\n", rd.lines, rd.parsed);
    assert_true(rd.parsed > 300);
    assert_true(rd.lines - rd.parsed > 1500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_lines_read_without_jansson),
        cmocka_unit_test(test_hand_lines),
        cmocka_unit_test(test_mutated_lines),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
