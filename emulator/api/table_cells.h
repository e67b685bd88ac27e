/* table_cells.h: each object revision's Table row, made once.
 *
 * A Table row is the kind's printer-column cells (pkg/kinds/columns.c) and, for
 * ?includeObject=Metadata, the object's metadata without managedFields. Both follow from
 * one revision of the object alone, except the AGE cells, which also follow the clock:
 * the cache keeps the time they count from and renders the age on every answer. So a
 * Table of 1,000 rows copies 1,000 prepared rows instead of walking 1,000 trees.
 *
 * Entries are keyed by (kind, the revision's bytes): a revision's struct em_bytes is
 * immutable and made once (store/bytes.h), and the cache holds a reference to it, so the
 * pointer names that revision alone for as long as the entry lives. A new revision has
 * new bytes, hence a new entry; the old one ages out. The cache is bounded: past
 * max_bytes (each entry counts its own text and the bytes it holds), the least recently
 * used entries go. It has its own lock (a watch stream may build a row without the
 * server lock).
 */
#ifndef EM_TABLE_CELLS_H
#define EM_TABLE_CELLS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "entry.h"
#include "kinds/registry.h"
#include "util/buf.h"

/* The server's bound (16 MiB: some 13,000 rows of Jobs with the bytes they hold). */
#define EM_TABLE_CELLS_MAX_BYTES ((size_t)16 << 20)

struct em_table_cells;

/* A NEW empty cache that holds at most max_bytes. */
struct em_table_cells *em_table_cells_new(size_t max_bytes);
/* Frees c and drops every reference it holds; NULL is fine. */
void em_table_cells_free(struct em_table_cells *c);

/* One row's object, as the Table shows it. */
struct em_table_obj {
    const json_t *obj;     /* the object as served (a view's: converted); NULL: entry's */
    struct em_bytes *rev;  /* the stored revision's bytes, the cache's key; NULL: not
                            * cached (an older revision from the history, one object) */
    const struct em_entry *entry; /* when obj is NULL: the stored object, its tree asked
                                   * for (em_entry_obj, the server lock held) only when
                                   * the row is not cached: a list of cached rows builds
                                   * no tree */
};

/* Appends the cells of o's row, a JSON array (["a","b",...]), ages against now_unix.
 * c may be NULL (nothing cached). Call between em_table_cells_lock and _unlock when c is
 * not NULL. */
void em_table_cells_row(struct em_table_cells *c, const struct nd_kind *k,
                        const struct em_table_obj *o, int64_t now_unix, struct nd_buf *out);
/* Appends o's metadata without managedFields as a JSON object (compact). As above; the
 * stats count a row once, by em_table_cells_row. */
void em_table_cells_meta(struct em_table_cells *c, const struct nd_kind *k,
                         const struct em_table_obj *o, struct nd_buf *out);

void em_table_cells_lock(struct em_table_cells *c);
void em_table_cells_unlock(struct em_table_cells *c);

/* What c holds: entries and the bytes counted against its bound. */
size_t em_table_cells_count(struct em_table_cells *c);
size_t em_table_cells_size(struct em_table_cells *c);
/* The stats endpoint's tableRows (NEW): {kept, bytes, made, reused}: the rows kept and the
 * bytes counted against the bound now, and since start the rows made (a revision not
 * kept, or with no bytes to key it by, is made for each answer) and the rows an answer
 * took as they were kept. c may be NULL (all 0). */
json_t *em_table_cells_stats(struct em_table_cells *c);

#endif
