#include "util/validate.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/quote.h"
#include "util/xmalloc.h"

/* The messages of Kubernetes 1.33, built at compile time from the same pieces its
 * RegexError() joins (the doubled space before "or" is Kubernetes' own). */
#define LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define SUB_FMT   LABEL_FMT "(\\." LABEL_FMT ")*"
#define QN_FMT    "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define LV_FMT    "(" QN_FMT ")?"
#define LABEL_MSG                                                                                  \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "       \
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "       \
    "regex used for validation is '" LABEL_FMT "')"
#define SUB_MSG                                                                                    \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "       \
    "used for validation is '" SUB_FMT "')"
#define QN_MSG                                                                                     \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "    \
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "         \
    "validation is '" QN_FMT "')"
#define LV_MSG                                                                                     \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "             \
    "'my_value',  or '12345', regex used for validation is '" LV_FMT "')"
#define MAXLEN(n) "must be no more than " #n " characters"

/* Up to four messages for one value (the most any check below produces). */
struct errs {
    const char *msg[4];
    int n;
};

static void add(struct errs *e, const char *msg)
{
    if (e->n < 4)
        e->msg[e->n++] = msg;
}

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool alnum(char c)
{
    return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..n) */
static bool label_re(const char *s, size_t n)
{
    if (n == 0 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

/* label(\.label)* over s[0..n) */
static bool subdomain_re(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (!label_re(s + start, i - start))
                return false;
            start = i + 1;
        }
    }
    return true;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] over s[0..n) */
static bool qname_re(const char *s, size_t n)
{
    if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

static void check_label(const char *s, size_t n, struct errs *e)
{
    if (n > ND_DNS_LABEL_MAX)
        add(e, MAXLEN(63));
    if (!label_re(s, n))
        add(e, subdomain_re(s, n) ? "must not contain dots" : LABEL_MSG);
}

static void check_subdomain(const char *s, size_t n, struct errs *e, bool prefix_part)
{
    if (n > ND_DNS_SUBDOMAIN_MAX)
        add(e, prefix_part ? "prefix part " MAXLEN(253) : MAXLEN(253));
    if (!subdomain_re(s, n))
        add(e, prefix_part ? "prefix part " SUB_MSG : SUB_MSG);
}

/* IsQualifiedName; `lower` checks the prefix as if it were lower case (annotations). */
static void check_qname(const char *s, size_t n, struct errs *e, bool lower)
{
    const char *slash = memchr(s, '/', n);
    const char *name = s;
    size_t name_len = n;
    if (slash) {
        if (memchr(slash + 1, '/', n - (size_t)(slash - s) - 1)) {
            add(e, "a qualified name " QN_MSG " with an optional DNS subdomain prefix and '/' "
                   "(e.g. 'example.com/MyName')");
            return;
        }
        size_t plen = (size_t)(slash - s);
        if (plen == 0) {
            add(e, "prefix part must be non-empty");
        } else if (lower) {
            char *low = nd_xstrndup(s, plen);
            for (size_t i = 0; i < plen; i++)
                low[i] = (char)tolower((unsigned char)low[i]);
            check_subdomain(low, plen, e, true);
            free(low);
        } else {
            check_subdomain(s, plen, e, true);
        }
        name = slash + 1;
        name_len = n - plen - 1;
    }
    if (name_len == 0)
        add(e, "name part must be non-empty");
    else if (name_len > 63)
        add(e, "name part " MAXLEN(63));
    if (!qname_re(name, name_len))
        add(e, "name part " QN_MSG);
}

static void check_label_value(const char *s, size_t n, struct errs *e)
{
    if (n > ND_LABEL_VALUE_MAX)
        add(e, MAXLEN(63));
    if (n > 0 && !qname_re(s, n))
        add(e, LV_MSG);
}

/* ---- recording ---- */

/* Rebuilds st->message from the causes: "field: message" each, one alone or
 * "[a, b]" (Kubernetes' aggregate of a field.ErrorList). */
static void rebuild_message(struct nd_status *st)
{
    json_t *causes = json_object_get(st->details, "causes");
    size_t n = json_array_size(causes);
    struct nd_buf b = ND_BUF_INIT;
    if (n > 1)
        nd_buf_addch(&b, '[');
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(causes, i);
        const char *field = json_string_value(json_object_get(c, "field"));
        const char *msg = json_string_value(json_object_get(c, "message"));
        if (i)
            nd_buf_adds(&b, ", ");
        if (field)
            nd_buf_addf(&b, "%s: ", field);
        nd_buf_adds(&b, msg ? msg : "");
    }
    if (n > 1)
        nd_buf_addch(&b, ']');
    free(st->message);
    st->message = nd_buf_detach(&b);
}

static void add_cause(struct nd_status *st, const char *reason, const char *field, const char *msg)
{
    if (!nd_status_is(st, ND_REASON_INVALID) || nd_status_cause_count(st) == 0)
        nd_status_set(st, "Invalid", NULL, "%s", "");
    nd_status_add_cause(st, reason, field, "%s", msg);
    rebuild_message(st);
}

int nd_validate_invalid(struct nd_status *st, const char *field, const char *value,
                        const char *detail)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "Invalid value: ");
    nd_quote(&b, value, ND_QUOTE_MAX);
    if (detail && *detail)
        nd_buf_addf(&b, ": %s", detail);
    add_cause(st, "FieldValueInvalid", field, b.data);
    nd_buf_release(&b);
    return -1;
}

int nd_validate_required(struct nd_status *st, const char *field, const char *detail)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_buf_adds(&b, "Required value");
    if (detail && *detail)
        nd_buf_addf(&b, ": %s", detail);
    add_cause(st, "FieldValueRequired", field, b.data);
    nd_buf_release(&b);
    return -1;
}

static int run(void (*check)(const char *, size_t, struct errs *), const char *s, const char *field,
               struct nd_status *st)
{
    if (!s)
        return nd_validate_required(st, field, NULL);
    struct errs e = {{NULL}, 0};
    check(s, strlen(s), &e);
    for (int i = 0; i < e.n; i++)
        nd_validate_invalid(st, field, s, e.msg[i]);
    return e.n ? -1 : 0;
}

static bool ok(void (*check)(const char *, size_t, struct errs *), const char *s)
{
    if (!s)
        return false;
    struct errs e = {{NULL}, 0};
    check(s, strlen(s), &e);
    return e.n == 0;
}

static void check_sub(const char *s, size_t n, struct errs *e)
{
    check_subdomain(s, n, e, false);
}

static void check_label_key(const char *s, size_t n, struct errs *e)
{
    check_qname(s, n, e, false);
}

static void check_annotation_key(const char *s, size_t n, struct errs *e)
{
    check_qname(s, n, e, true);
}

int nd_validate_dns_label(const char *s, const char *field, struct nd_status *st)
{
    return run(check_label, s, field, st);
}

int nd_validate_dns_subdomain(const char *s, const char *field, struct nd_status *st)
{
    return run(check_sub, s, field, st);
}

int nd_validate_label_key(const char *s, const char *field, struct nd_status *st)
{
    return run(check_label_key, s, field, st);
}

int nd_validate_label_value(const char *s, const char *field, struct nd_status *st)
{
    return run(check_label_value, s, field, st);
}

int nd_validate_annotation_key(const char *s, const char *field, struct nd_status *st)
{
    return run(check_annotation_key, s, field, st);
}

bool nd_is_dns_label(const char *s)
{
    return ok(check_label, s);
}

bool nd_is_dns_subdomain(const char *s)
{
    return ok(check_sub, s);
}

bool nd_is_label_key(const char *s)
{
    return ok(check_label_key, s);
}

bool nd_is_label_value(const char *s)
{
    return ok(check_label_value, s);
}

bool nd_is_annotation_key(const char *s)
{
    return ok(check_annotation_key, s);
}
