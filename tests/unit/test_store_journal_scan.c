/* Unit tests of the start's reader of journal lines (emulator/store/journal_scan.h): the
 * lines the store writes are taken, with the fields jansson would give; what jansson
 * refuses is never taken; what it is not sure of goes to jansson; and em_journal_read
 * reads a journal of both kinds of lines to the same records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "journal_scan.h"
#include "store.h"
#include "store_tmpdir.h"
#include "util/xmalloc.h"

static int scan(const char *line, struct em_journal_scan *sc)
{
    return em_journal_scan_line(line, strlen(line), sc);
}

static void assert_span(const char *p, size_t len, const char *want)
{
    assert_int_equal(len, strlen(want));
    assert_memory_equal(p, want, len);
}

static void test_store_lines_taken(void **state)
{
    (void)state;
    json_t *obj = json_pack("{ss ss s{ss ss ss s{ss}} s[iib] s{}}", "apiVersion", "v1", "kind",
                            "Event", "metadata", "name", "caf\xc3\xa9", "namespace", "p",
                            "resourceVersion", "7", "annotations", "say", "\"q\"\t\x01 \xf0\x9f\x98\x80",
                            "list", 1, -20, 1, "spec");
    size_t len;
    char *line = em_store_record_line(7, 1796554422537, "MODIFIED", "events", obj, &len);
    struct em_journal_scan sc;
    assert_int_equal(em_journal_scan_line(line, len, &sc), EM_SCAN_RECORD);
    assert_int_equal(sc.rev, 7);
    assert_int_equal(sc.time_ms, 1796554422537);
    assert_string_equal(sc.type, "MODIFIED");
    assert_string_equal(sc.plural, "events");
    assert_true(sc.has_name && sc.has_ns && sc.has_rv);
    assert_span(sc.name.p, sc.name.len, "caf\xc3\xa9");
    assert_span(sc.ns.p, sc.ns.len, "p");
    assert_span(sc.rv.p, sc.rv.len, "7");
    char *body = json_dumps(obj, JSON_COMPACT);
    assert_span(sc.object, sc.object_len, body);
    /* the line is the record's format printed whole, for any plural's length */
    char *want = nd_xasprintf("{\"rev\":7,\"time\":1796554422537,\"type\":\"MODIFIED\","
                              "\"plural\":\"events\",\"object\":%s}", body);
    assert_string_equal(line, want);
    assert_int_equal(len, strlen(want));
    free(want);
    char plural[300];
    memset(plural, 'x', sizeof plural - 1);
    plural[sizeof plural - 1] = '\0';
    size_t llen;
    char *long_line = em_store_record_line_bytes(-3, 0, "ADDED", plural, body, &llen);
    want = nd_xasprintf("{\"rev\":-3,\"time\":0,\"type\":\"ADDED\",\"plural\":\"%s\","
                        "\"object\":%s}", plural, body);
    assert_string_equal(long_line, want);
    assert_int_equal(llen, strlen(want));
    free(want);
    free(long_line);
    free(body);
    free(line);
    json_decref(obj);

    assert_int_equal(scan("{\"wall\":1796554422538365,\"applied\":11}", &sc), EM_SCAN_MARKER);
    assert_int_equal(sc.wall, 1796554422538365);
    assert_int_equal(sc.applied, 11);
    /* a cluster-scoped object with no resourceVersion */
    assert_int_equal(scan("{\"rev\":1,\"time\":0,\"type\":\"ADDED\",\"plural\":\"namespaces\","
                          "\"object\":{\"metadata\":{\"name\":\"a\",\"x\":\"\\u00e9\"}}}",
                          &sc),
                     EM_SCAN_RECORD);
    assert_false(sc.has_ns || sc.has_rv);
}

/* lines jansson reads (or refuses) otherwise than the scan could say: left to it */
static void test_unsure_lines(void **state)
{
    (void)state;
    static const char *const lines[] = {
        /* a member named twice, at the top of the object and deeper */
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"metadata\":{\"name\":\"a\",\"name\":\"b\"}}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":{\"x\":1,\"x\":2}}}",
        /* an escape in what is kept; \u of NUL and of half a pair */
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"metadata\":{\"name\":\"a\\\"b\"}}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":\"\\u0000\"}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":\"\\ud83d\\ude00\"}}",
        /* a real, an integer past 18 digits, whitespace, a leading zero */
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":1.5}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":1234567890123456789}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\": 1}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":01}}",
        /* not UTF-8: overlong, a surrogate, a cut sequence; a control byte */
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":\"\xc0\xaf\"}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":\"\xed\xa0\x80\"}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":\"\xe2\x82\"}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":\"\x01\"}}",
        /* another head: members in another order, a sixth, rev 0; torn lines */
        "{\"time\":1,\"rev\":5,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{},\"x\":1}",
        "{\"rev\":0,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":[1,2}}",
        "{\"rev\":5,\"time\":1,\"type\":\"ADDED\",\"plural\":\"jobs\",\"object\":{\"s\":\"ab",
        "{\"wall\":1,\"applied\":",
        "{\"wall\":1,\"applied\":2} ",
    };
    struct em_journal_scan sc;
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        if (scan(lines[i], &sc) != EM_SCAN_UNSURE)
            fail_msg("taken: %s", lines[i]);
    }
}

/* A journal of the store's lines and of lines edited by hand: the same records, only the
 * hand-edited ones parsed by jansson. */
static void test_read_mixed(void **state)
{
    (void)state;
    char *dir = store_tmpdir("jscan");
    char *path = nd_xasprintf("%s/journal.ndjson", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"wall\":10,\"applied\":0}\n"
          "{\"rev\":1,\"time\":5,\"type\":\"ADDED\",\"plural\":\"volumes\",\"object\":{\"metadata\":{\"name\":\"a\",\"namespace\":\"p\",\"resourceVersion\":\"1\"}}}\n"
          "{ \"rev\": 2, \"time\": 6, \"type\": \"MODIFIED\", \"plural\": \"volumes\", \"object\": {\"metadata\": {\"name\": \"\\u0061\", \"namespace\": \"p\", \"resourceVersion\": \"2\"}}}\n"
          "not a record\n"
          "{\"wall\":11,\"applied\":2}\n"
          "{\"rev\":3,\"time\":7,\"type\":\"DELETED\",\"plural\":\"volumes\",\"object\":{\"metadata\":{\"name\":\"a\",\"namespace\":\"p\",\"resourceVersion\":\"3\"}}}\n"
          "{\"rev\":4,\"time\":8,\"type\":\"ADDED\",\"plural\":\"volumes\",\"obj",
          f);
    fclose(f);
    struct em_journal_record *r;
    size_t n, bad, parsed, torn;
    int64_t applied;
    struct nd_buf err = ND_BUF_INIT;
    assert_int_equal(em_journal_read(path, &r, &n, &bad, &parsed, &torn, &applied, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(bad, 1);
    assert_int_equal(parsed, 2); /* the spaced line and the line that is not a record */
    assert_true(torn > 0);
    assert_int_equal(applied, 2);
    static const char *const types[] = {"ADDED", "MODIFIED", "DELETED"};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(r[i].rev, (int64_t)i + 1);
        assert_int_equal(r[i].time_ms, (int64_t)i + 5);
        assert_string_equal(r[i].type, types[i]);
        assert_string_equal(r[i].plural, "volumes");
        assert_string_equal(r[i].ns, "p");
        assert_string_equal(r[i].name, "a");
        char rv[24];
        snprintf(rv, sizeof rv, "%zu", i + 1);
        assert_string_equal(r[i].rv, rv);
        assert_int_equal(r[i].wall_us, i < 2 ? 10 : 11);
        assert_int_equal(r[i].tail, i == 2);
    }
    /* the hand-edited line's object is dumped again, the others are the line's bytes */
    assert_memory_equal(r[1].json->data, "{\"metadata\":{\"name\":\"a\",", 24);
    em_journal_records_free(r, n);
    nd_buf_release(&err);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_lines_taken),
        cmocka_unit_test(test_unsure_lines),
        cmocka_unit_test(test_read_mixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
