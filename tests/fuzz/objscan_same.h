/* objscan_same.h: the check that the start's one-pass read of an object file
 * (emulator/store/objscan.h) makes what jansson's path makes (load.c: json_loadb with
 * JSON_REJECT_DUPLICATES, json_dumps(JSON_COMPACT), em_rec_of), shared by the unit test
 * (tests/unit/test_store_objscan.c) and the fuzz target (fuzz_objscan.c). */
#ifndef ND_OBJSCAN_SAME_H
#define ND_OBJSCAN_SAME_H

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"
#include "objscan.h"

enum os_result {
    OS_SAME,     /* the scan accepted the text and made jansson's bytes and record */
    OS_REFUSED,  /* the scan refused it (jansson's path reads it, whatever it is) */
    OS_DIFFERENT /* the scan accepted it and made something else: a bug */
};

static bool os_equal_dumps(const json_t *a, const json_t *b)
{
    if (!a || !b)
        return a == b;
    char *x = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
    char *y = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);
    bool same = x && y && strcmp(x, y) == 0 && json_equal(a, b);
    free(x);
    free(y);
    return same;
}

/* Both reads of text as an object file of kind k (NULL: none). */
static enum os_result os_compare(const struct em_scan_plan *plan, const struct nd_kind *k,
                                 const char *text, size_t len)
{
    struct em_bytes *bytes = NULL;
    json_t *part = NULL;
    if (!em_scan_object(plan, text, len, &bytes, &part))
        return OS_REFUSED;
    enum os_result r = OS_DIFFERENT;
    json_t *obj = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    char *compact = obj ? json_dumps(obj, JSON_COMPACT) : NULL;
    if (compact && strlen(compact) == bytes->len && strcmp(compact, bytes->data) == 0) {
        json_t *want = em_rec_of(k, obj), *got = em_rec_of(k, part);
        /* and what load.c's check_obj reads besides the record */
        if (os_equal_dumps(want, got) &&
            os_equal_dumps(json_object_get(obj, "kind"), json_object_get(part, "kind")) &&
            json_is_object(json_object_get(obj, "metadata")) ==
                json_is_object(json_object_get(part, "metadata")))
            r = OS_SAME;
        json_decref(want);
        json_decref(got);
    }
    free(compact);
    json_decref(obj);
    json_decref(part);
    em_bytes_unref(bytes);
    return r;
}

#endif
