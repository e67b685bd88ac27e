/*
 * jpath FILTER [FILE]: what `jq -r FILTER [FILE]` prints (no FILE: standard input), for
 * the filters the suites ask of an answer most (tests/lib/common.bash's body_json): a path of fields and indexes
 * (.metadata.name, .items[0].status.phase, .details.causes[1].field) whose value is a
 * string, a whole number, true, false or null. A jq costs ~30 ms of CPU before it reads
 * a byte (jq 1.6 binds its builtins at every start), this ~1 ms; the suites asked
 * thousands.
 *
 * Anything else runs jq itself, with the same arguments, so what is printed (and the exit
 * status, and any error) is always jq's: another filter, a file that is not exactly one
 * JSON value, a value jq would print otherwise (an object, an array, a fraction, a number
 * beyond 2^53: jq reads every number as a double), a field of something that is not an
 * object, an index of something that is not an array.
 */
#include <ctype.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *in;      /* what was read of standard input (no FILE) */
static size_t in_len;

/* jq itself, on FILE or on what was read of standard input (put back through a file) */
static int jq(char **argv)
{
    char *args[] = {"jq", "-r", argv[1], argv[2], NULL};
    fflush(stdout);
    if (!argv[2] && in) {
        FILE *t = tmpfile();
        if (!t || fwrite(in, 1, in_len, t) != in_len || fflush(t) || fseek(t, 0, SEEK_SET) ||
            dup2(fileno(t), 0) < 0) {
            perror("jpath: standard input");
            return 2;
        }
    }
    execvp("jq", args);
    perror("jpath: jq");
    return 127;
}

static int keyword(const char *k)
{
    static const char *const words[] = {"def", "if", "then", "elif", "else", "end", "as",
        "reduce", "foreach", "try", "catch", "label", "import", "include", "and", "or",
        "not", "__loc__", NULL};
    for (int i = 0; words[i]; i++)
        if (!strcmp(k, words[i]))
            return 1;
    return 0;
}

/* How deep v nests (jq 1.6's parser refuses a document deeper than 256 levels, jansson's
 * only beyond 2048: such a document is jq's to read). */
static int depth(json_t *v)
{
    int d = 0, e;
    const char *k;
    json_t *m;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach(v, k, m) if ((e = depth(m)) > d) d = e;
        return d + 1;
    }
    if (json_is_array(v)) {
        json_array_foreach(v, i, m) if ((e = depth(m)) > d) d = e;
        return d + 1;
    }
    return 0;
}

/* Follows the path at f from v: the value (NULL for jq's null), or sets *other when the
 * filter is not a plain path or a step meets a value jq would refuse. */
static json_t *walk(const char *f, json_t *v, int *other)
{
    const char *start = f;
    if (*f != '.') {
        *other = 1;
        return NULL;
    }
    if (!strcmp(f, ".")) /* the whole value */
        return v;
    while (*f) {
        if (f[0] == '.' && (isalpha((unsigned char)f[1]) || f[1] == '_')) {
            char key[256];
            size_t n = 0;
            f++;
            while (isalnum((unsigned char)*f) || *f == '_') {
                if (n + 1 >= sizeof key) {
                    *other = 1;
                    return NULL;
                }
                key[n++] = *f++;
            }
            key[n] = '\0';
            if (keyword(key)) { /* jq 1.6 reads .if or .and as its own words */
                *other = 1;
                return NULL;
            }
            if (v && json_is_null(v))
                v = NULL;
            if (v && !json_is_object(v)) {
                *other = 1;
                return NULL;
            }
            v = v ? json_object_get(v, key) : NULL;
        } else if (f[0] == '[' || (f == start && f[1] == '[')) {
            /* (.[0] only first: jq 1.6 refuses .a.[0]) */
            f += f[0] == '.' ? 2 : 1;
            if (!isdigit((unsigned char)*f)) {
                *other = 1;
                return NULL;
            }
            size_t i = 0;
            while (isdigit((unsigned char)*f)) {
                if (i > 100000000) {
                    *other = 1;
                    return NULL;
                }
                i = i * 10 + (size_t)(*f++ - '0');
            }
            if (*f++ != ']') {
                *other = 1;
                return NULL;
            }
            if (v && json_is_null(v))
                v = NULL;
            if (v && !json_is_array(v)) {
                *other = 1;
                return NULL;
            }
            v = v ? json_array_get(v, i) : NULL;
        } else {
            *other = 1;
            return NULL;
        }
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3)
        return fprintf(stderr, "usage: jpath FILTER [FILE] (as jq -r FILTER [FILE])\n"), 2;
    json_error_t err;
    const size_t flags = JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL;
    json_t *doc;
    /* exactly one value (jq would print one line a value of a stream) */
    if (argc == 3) {
        doc = json_load_file(argv[2], flags, &err);
    } else {
        size_t cap = 65536, n;
        in = malloc(cap);
        while (in && (n = fread(in + in_len, 1, cap - in_len, stdin)) > 0) {
            in_len += n;
            if (in_len == cap)
                in = realloc(in, cap *= 2);
        }
        if (!in || ferror(stdin)) {
            free(in);
            return perror("jpath: standard input"), 2;
        }
        doc = json_loadb(in, in_len, flags, &err);
    }
    /* (what was read is freed on every way out: make asan builds this too, and a leak
     * report on standard error would be part of what a test reads) */
    int rc = 0;
    if (!doc || depth(doc) > 200)
        goto with_jq;
    int other = 0;
    json_t *v = walk(argv[1], doc, &other);
    if (other)
        goto with_jq;
    if (!v || json_is_null(v)) {
        fputs("null\n", stdout);
    } else if (json_is_true(v)) {
        fputs("true\n", stdout);
    } else if (json_is_false(v)) {
        fputs("false\n", stdout);
    } else if (json_is_string(v)) {
        fwrite(json_string_value(v), 1, json_string_length(v), stdout);
        putchar('\n');
    } else if (json_is_real(v) && fabs(json_real_value(v)) < 9007199254740992.0 &&
               json_real_value(v) == (double)(int64_t)json_real_value(v)) {
        /* (every number read as a double, as jq does: -0 stays -0) */
        double d = json_real_value(v);
        if (d == 0 && signbit(d))
            fputs("-0\n", stdout);
        else
            printf("%" PRId64 "\n", (int64_t)d);
    } else {
        goto with_jq;
    }
    rc = fflush(stdout) == 0 ? 0 : 1;
    json_decref(doc);
    free(in);
    return rc;
with_jq:
    json_decref(doc);
    rc = jq(argv); /* (it reads in; a failed exec returns) */
    free(in);
    return rc;
}
