/* Unit tests of pkg/util/term.h: strings from a server made safe for a terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/term.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define NL  ND_TERM_KEEP_NL
#define TAB ND_TERM_KEEP_TAB

static const struct {
    const char *name;
    const char *in;
    size_t len; /* 0: strlen(in) */
    unsigned flags;
    const char *want;
} rows[] = {
    {"plain ASCII", "train-a", 0, 0, "train-a"},
    {"empty", "", 0, 0, ""},
    {"UTF-8 kept", "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x9a\x80", 0, 0,
     "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x9a\x80"},
    {"backslash kept", "a\\x1b", 0, 0, "a\\x1b"},
    {"ESC as kubectl", "a\x1b[31mb", 0, 0, "a^[[31mb"},
    {"OSC title with BEL", "\x1b]0;pwned\x07", 0, 0, "^[]0;pwned\\x07"},
    {"clear screen", "\x1b[2J\x1b[H", 0, 0, "^[[2J^[[H"},
    {"CR as kubectl", "ok\rFAIL", 0, 0, "ok\\rFAIL"},
    {"backspace", "ab\x08\x08xy", 0, 0, "ab\\x08\\x08xy"},
    {"DEL", "a\x7f", 0, 0, "a\\x7f"},
    {"C0 low", "\x01\x1f", 0, 0, "\\x01\\x1f"},
    {"NUL inside", "a\0b", 3, 0, "a\\x00b"},
    {"LF escaped", "a\nb", 0, 0, "a\\x0ab"},
    {"LF kept", "a\nb", 0, NL, "a\nb"},
    {"TAB escaped", "a\tb", 0, 0, "a\\x09b"},
    {"TAB kept", "a\tb", 0, TAB, "a\tb"},
    {"KEEP_NL keeps no CR", "a\r\nb", 0, NL | TAB, "a\\r\nb"},
    {"C1 CSI U+009B", "\xc2\x9b" "1m", 0, 0, "\\u009b1m"},
    {"C1 first U+0080", "\xc2\x80", 0, 0, "\\u0080"},
    {"C1 last U+009F", "\xc2\x9f", 0, 0, "\\u009f"},
    {"U+00A0 kept", "\xc2\xa0", 0, 0, "\xc2\xa0"},
    {"lone 0x9b byte", "a\x9b" "b", 0, 0, "a\\x9bb"},
    {"overlong ESC", "\xc0\x9b", 0, 0, "\\xc0\\x9b"},
    {"cut sequence", "\xe6\x97", 0, 0, "\\xe6\\x97"},
    {"surrogate", "\xed\xa0\x80", 0, 0, "\\xed\\xa0\\x80"},
    {"past U+10FFFF", "\xf4\x90\x80\x80", 0, 0, "\\xf4\\x90\\x80\\x80"},
    {"every kind at once", "x\x1b]0;t\x07\x1b[2J\xc2\x9b\x7f\x08\r", 0, NL | TAB,
     "x^[]0;t\\x07^[[2J\\u009b\\x7f\\x08\\r"},
};

static void test_escape(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(rows); i++) {
        size_t len = rows[i].len ? rows[i].len : strlen(rows[i].in);
        struct nd_buf b = ND_BUF_INIT;
        nd_term_escape(&b, rows[i].in, len, rows[i].flags);
        if (strcmp(b.data, rows[i].want) != 0)
            fail_msg("%s: got \"%s\", want \"%s\"", rows[i].name, b.data, rows[i].want);
        bool same = strcmp(rows[i].want, rows[i].in) == 0 && len == strlen(rows[i].in);
        if (nd_term_is_safe(rows[i].in, len, rows[i].flags) != same)
            fail_msg("%s: nd_term_is_safe says %d", rows[i].name, !same);
        /* the escaped text is itself safe: escaping twice changes nothing */
        if (!nd_term_is_safe(b.data, b.len, rows[i].flags))
            fail_msg("%s: the escaped text is not safe", rows[i].name);
        nd_buf_release(&b);
        if (rows[i].len == 0) {
            char *s = nd_term_safe(rows[i].in, rows[i].flags);
            if (strcmp(s, rows[i].want) != 0)
                fail_msg("%s: nd_term_safe got \"%s\"", rows[i].name, s);
            free(s);
        }
    }
    assert_null(nd_term_safe(NULL, 0));
}

/* No raw ESC, C0 (but LF with KEEP_NL), DEL or C1 survives, whatever the bytes. */
static void test_no_control_survives(void **state)
{
    (void)state;
    unsigned char in[4096];
    uint32_t x = 12345;
    for (int round = 0; round < 200; round++) {
        for (size_t i = 0; i < sizeof in; i++) {
            x = x * 1103515245u + 12345u;
            in[i] = (unsigned char)(x >> 16);
        }
        struct nd_buf b = ND_BUF_INIT;
        nd_term_escape(&b, (const char *)in, sizeof in, NL);
        for (size_t i = 0; i < b.len; i++) {
            unsigned char c = (unsigned char)b.data[i];
            if ((c < 0x20 && c != '\n') || c == 0x7f)
                fail_msg("round %d: byte 0x%02x at %zu survived", round, c, i);
            if (c == 0xc2 && i + 1 < b.len && (unsigned char)b.data[i + 1] <= 0x9f &&
                (unsigned char)b.data[i + 1] >= 0x80)
                fail_msg("round %d: a C1 control at %zu survived", round, i);
        }
        assert_true(nd_term_is_safe(b.data, b.len, NL));
        nd_buf_release(&b);
    }
}

static void test_json(void **state)
{
    (void)state;
    json_t *v = json_pack("{s:s, s:[s, i, n], s:{s:s}}", "name", "a\x1b[2Jb", "list", "x\ny", 7,
                          "meta", "k\x07", "v\xc2\x9b");
    json_t *safe = nd_term_safe_json(v, NL);
    char *text = json_dumps(safe, JSON_SORT_KEYS | JSON_COMPACT);
    assert_string_equal(text, "{\"list\":[\"x\\ny\",7,null],\"meta\":{\"k\\\\x07\":\"v\\\\u009b\"},"
                              "\"name\":\"a^[[2Jb\"}");
    free(text);
    json_decref(safe);
    /* the original is untouched */
    assert_string_equal(json_string_value(json_object_get(v, "name")), "a\x1b[2Jb");
    json_decref(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_no_control_survives),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
