/* fuzz_selector: label and field selectors (pkg/selector).
 * Input: one mode byte, then the selector text (NUL bytes end it, as in a C string).
 *   mode & 1 == 0  label selector: parse, match against fixed label sets, print the
 *                  canonical form and parse that again (it must parse and print the same)
 *   mode & 1 == 1  field selector: parse (mode & 2: any field, else the emulator's
 *                  usual list), match against a fixed object, canonical form re-parsed
 *   mode & 4           also the request's two selectors (nd_select_parse), the text as
 *                      the label selector or the field selector (mode & 1) and the rest
 *                      after the first '\n' as the other, for a collection write (mode & 8)
 *                      or a read: a write's rule is stricter than a read's, so what a
 *                      write takes a read takes and both select the same objects
 * Also nd_selector_from_json over the input read as JSON (a metav1.LabelSelector). */
#include <stdio.h>

#include "fuzz.h"
#include "json/json.h"
#include "selector/selector.h"

static json_t *labels[3], *object;
static const char *const allowed[] = {"metadata.name", "metadata.namespace", "status.phase",
                                      NULL};

/* nd_select_parse over the two halves of s (see the header). */
static void both(int mode, const char *s)
{
    const char *nl = strchr(s, '\n');
    char *first = nl ? strndup(s, (size_t)(nl - s)) : strdup(s);
    const char *second = nl ? nl + 1 : "";
    const char *ls = mode & 1 ? second : first, *fs = mode & 1 ? first : second;
    const char *const *fields = mode & 2 ? NULL : allowed;
    enum nd_select_use use = mode & 8 ? ND_SELECT_WRITE : ND_SELECT_READ;
    struct nd_status st = ND_STATUS_INIT, st2 = ND_STATUS_INIT;
    struct nd_select sel, read;
    int rc = nd_select_parse(&sel, ls, fs, fields, use, &st);
    FZ_ASSERT(rc == 0 || (st.message && st.reason && st.fix && nd_select_everything(&sel)));
    if (rc == 0) {
        int rc2 = nd_select_parse(&read, ls, fs, fields, ND_SELECT_READ, &st2);
        FZ_ASSERT(rc2 == 0);
        FZ_ASSERT(nd_select_matches(&sel, object) == nd_select_matches(&read, object));
        nd_select_release(&read);
        /* nothing the rule takes for a write is "not empty" */
        if (use == ND_SELECT_WRITE && sel.fields) {
            char *canon = nd_field_selector_string(sel.fields);
            FZ_ASSERT(!strstr(canon, "!=,") && !(strlen(canon) >= 2 &&
                                                 !strcmp(canon + strlen(canon) - 2, "!=")));
            free(canon);
        }
    }
    nd_select_release(&sel);
    nd_status_release(&st);
    nd_status_release(&st2);
    free(first);
}

static void setup(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    fz_init();
    labels[0] = json_pack("{ssssssss}", "app", "web", "tier", "frontend", "nodus.dev/pool", "gpu",
                          "n", "5");
    labels[1] = json_object();
    labels[2] = json_pack("{ss}", "a.b/c-d_e", "");
    object = json_pack("{ss s{ssssss} s{sssisb}}", "kind", "Job", "metadata", "name", "a,b=c\\",
                       "namespace", "default", "uid", "1", "status", "phase", "Running", "n", 3,
                       "ok", 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    if (size < 1)
        return 0;
    int mode = data[0];
    char *s = fz_str(data + 1, size - 1);
    struct nd_status st = ND_STATUS_INIT;
    if ((mode & 1) == 0) {
        struct nd_selector *sel = nd_selector_parse(s, &st);
        if (sel) {
            for (size_t i = 0; i < 3; i++)
                nd_selector_matches(sel, labels[i]);
            nd_selector_matches(sel, NULL);
            nd_selector_value(sel, "app");
            char *canon = nd_selector_string(sel);
            struct nd_status st2 = ND_STATUS_INIT;
            struct nd_selector *again = nd_selector_parse(canon, &st2);
            if (!again)
                fprintf(stderr, "canonical %s: %s\n", canon, st2.message);
            FZ_ASSERT(again);
            char *canon2 = nd_selector_string(again);
            FZ_ASSERT(strcmp(canon, canon2) == 0);
            for (size_t i = 0; i < 3; i++)
                FZ_ASSERT(nd_selector_matches(sel, labels[i]) ==
                          nd_selector_matches(again, labels[i]));
            free(canon2);
            nd_selector_free(again);
            nd_status_release(&st2);
            free(canon);
        } else {
            FZ_ASSERT(st.message);
        }
        nd_selector_free(sel);
    } else {
        const char *const *fields = mode & 2 ? NULL : allowed;
        struct nd_field_selector *fs = nd_field_selector_parse(s, fields, &st);
        if (fs) {
            bool m = nd_field_selector_matches(fs, object);
            nd_field_selector_value(fs, "metadata.name");
            char *canon = nd_field_selector_string(fs);
            struct nd_status st2 = ND_STATUS_INIT;
            struct nd_field_selector *again = nd_field_selector_parse(canon, fields, &st2);
            if (!again)
                fprintf(stderr, "canonical %s: %s\n", canon, st2.message);
            FZ_ASSERT(again);
            FZ_ASSERT(nd_field_selector_matches(again, object) == m);
            nd_field_selector_free(again);
            nd_status_release(&st2);
            free(canon);
        } else {
            FZ_ASSERT(st.message);
        }
        nd_field_selector_free(fs);
    }
    nd_status_release(&st);
    if (mode & 4)
        both(mode, s);

    json_t *ls = nd_json_load(s, strlen(s), NULL, &st);
    nd_status_release(&st);
    if (ls) {
        struct nd_selector *sel = nd_selector_from_json_at(ls, "spec.selector", &st);
        if (sel) {
            nd_selector_matches(sel, labels[0]);
            free(nd_selector_string(sel));
        }
        nd_selector_free(sel);
        nd_status_release(&st);
        json_decref(ls);
    }
    free(s);
    return 0;
}
