/* fuzz_accept: the Accept header's reader (emulator/api/accept.c). Input: a header value
 * (NUL ends it, as in a C string). The clauses come sorted by quality and specificity,
 * trimmed, within their fields and printable; the choice is a representation with
 * meta.k8s.io's version, or a NotAcceptable Status that serialises (its fix echoes what
 * was sent). */
#include "accept.h"
#include "fuzz.h"

static int spec(const char *type)
{
    if (strcmp(type, "*/*") == 0)
        return 0;
    const char *slash = strchr(type, '/');
    return slash && strcmp(slash, "/*") == 0 ? 1 : 2;
}

static void printable(const char *s, size_t size)
{
    FZ_ASSERT(strlen(s) < size);
    for (; *s; s++)
        FZ_ASSERT(*s > ' ' && *s < 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    char *accept = fz_str(data, size);
    struct em_accept_clause cl[8];
    size_t n = em_accept_clauses(accept, cl, 8);
    FZ_ASSERT(n <= 8);
    for (size_t i = 0; i < n; i++) {
        FZ_ASSERT(*cl[i].type);
        printable(cl[i].type, sizeof cl[i].type);
        printable(cl[i].as, sizeof cl[i].as);
        printable(cl[i].g, sizeof cl[i].g);
        printable(cl[i].v, sizeof cl[i].v);
        /* no clause is beaten by the one after it */
        if (i)
            FZ_ASSERT(!(cl[i - 1].q < cl[i].q) &&
                      !(cl[i - 1].q == cl[i].q && spec(cl[i - 1].type) < spec(cl[i].type)));
    }
    struct em_accept acc;
    struct nd_status st = ND_STATUS_INIT;
    if (em_accept_choose(accept, &acc, &st) == 0) {
        FZ_ASSERT(acc.repr >= EM_REPR_OBJECT && acc.repr <= EM_REPR_META_LIST);
        FZ_ASSERT(!strcmp(acc.version, "v1") || !strcmp(acc.version, "v1beta1"));
        FZ_ASSERT(!nd_status_failed(&st));
        for (int list = 0; list < 2; list++) {
            struct nd_status fit = ND_STATUS_INIT;
            int rc = em_accept_fits(&acc, list, "JobList", &fit);
            FZ_ASSERT(rc == 0 || (rc == -1 && !strcmp(fit.reason, "NotAcceptable")));
            nd_status_release(&fit);
        }
    } else {
        FZ_ASSERT(!strcmp(st.reason, "NotAcceptable") && st.message && st.fix);
        json_t *j = nd_status_to_json(&st);
        FZ_ASSERT(j && json_string_value(json_object_get(j, "fix")));
        json_decref(j);
    }
    nd_status_release(&st);
    free(accept);
    return 0;
}
