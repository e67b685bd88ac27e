/* The lines of a log; see loglines.h. */
#include "loglines.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/time.h"
#include "util/xmalloc.h"

void em_log_addn(struct em_log_lines *l, int64_t ns, const char *text, size_t len)
{
    if (l->len == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        l->v = nd_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->len].ns = ns;
    l->v[l->len].text = nd_xstrndup(text, len);
    l->len++;
}

void em_log_add(struct em_log_lines *l, int64_t ns, const char *fmt, ...)
{
    struct nd_buf b = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    em_log_addn(l, ns, b.data, b.len);
    nd_buf_release(&b);
}

void em_log_lines_release(struct em_log_lines *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->v[i].text);
    free(l->v);
    memset(l, 0, sizeof *l);
}

void em_log_format_time(int64_t ns, struct nd_buf *out)
{
    int64_t sec = ns / 1000000000, frac = ns % 1000000000;
    if (frac < 0) {
        frac += 1000000000;
        sec--;
    }
    size_t before = out->len;
    if (nd_time_format(sec, out) < 0 || out->len == before) {
        nd_buf_adds(out, "0001-01-01T00:00:00.000000000Z");
        return;
    }
    nd_buf_truncate(out, out->len - 1); /* the 'Z' */
    nd_buf_addf(out, ".%09lldZ", (long long)frac);
}
