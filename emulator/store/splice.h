/* splice.h: a revision's compact JSON made from the previous revision's bytes where the
 * two trees share subtrees.
 *
 * A write that replaces a stored object whose tree is held (entry.h: a running Job's kept
 * tree, a hot one) often shares most of that tree: a controller's working copy shares
 * what it does not change (sim/controllers/common.h), a request's write its
 * managedFields. The stored tree's compact bytes are json_dumps(tree, JSON_COMPACT) (the
 * store's invariant, entry.h), and a value's compact dump does not depend on where it
 * sits, so the dump of a member that is the same jansson value (the same pointer: stored
 * trees are never changed in place) is the previous bytes' span of that member. The rest
 * (the changed members, an object's keys) is dumped by jansson. The result is
 * byte for byte json_dumps(obj, JSON_COMPACT); anything the splice is not sure of (no
 * shared member, a key jansson would escape, text that is not what it expects) is
 * dumped whole. */
#ifndef EM_STORE_SPLICE_H
#define EM_STORE_SPLICE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "bytes.h"

/* NEW compact JSON of obj, an object: spliced from prev (the previous revision's tree,
 * or NULL) and prev_json (prev's compact JSON, NULL when not known) where obj shares
 * members with prev, down to the members of obj's members; else json_dumps. NULL only
 * when jansson cannot dump obj. NODUS_EMULATOR_TEST_FULL_DUMP (tests): never spliced;
 * NODUS_EMULATOR_TEST_CHECK_DUMP (tests): each splice compared with json_dumps, a
 * difference aborts the process. */
struct em_bytes *em_dump_next(const json_t *obj, const json_t *prev,
                              const struct em_bytes *prev_json);

/* A member of a compact JSON object's text: its key as written (between the quotes) and
 * its value's text. */
struct em_json_member {
    const char *key, *val;
    size_t klen, vlen;
};

/* The members of the compact object text [p, end) (as json_dumps(JSON_COMPACT) writes
 * it), at most max: their count, or -1 when the text is not such an object, has more, or
 * a key holds an escape. */
int em_json_members(const char *p, const char *end, struct em_json_member *m, int max);

/* The writes whose bytes em_dump_next spliced since the process began. */
uint64_t em_dump_spliced(void);

/* The spliced dump alone (no fallback, no switches): NEW, or NULL when it could not be
 * made (the caller dumps). For the unit tests. */
struct em_bytes *em_dump_splice(const json_t *obj, const json_t *prev,
                                const struct em_bytes *prev_json);

#endif
