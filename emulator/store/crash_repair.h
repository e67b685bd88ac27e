/* crash_repair.h: between store.c and crash_repair.c: the start's repair of what a power
 * loss (the machine's crash) leaves of the object files.
 *
 * The files are written behind the journal into a spare whose name is then exchanged with
 * the file's (journal_files.c). Under --fsync always and batch a marker counts them only
 * once they are flushed, so a power loss leaves the files before the last marker whole;
 * under never (and in a state an emulator wrote before the files were flushed) a marker
 * counts them once the kernel has them, and a power loss within the writeback delay can
 * leave a file, whatever marker its record is behind, at an older revision the journal
 * wrote, empty, or holding a spare's older text of another object. A copy of an earlier
 * file put back by hand looks the same. */
#ifndef EM_CRASH_REPAIR_H
#define EM_CRASH_REPAIR_H

#include <jansson.h>
#include <stdint.h>

#include "journal.h"
#include "store.h"
#include "util/buf.h"

/* obj's metadata.resourceVersion as a number (0 when it has none). */
int64_t em_store_obj_rv(const json_t *obj);

/* The journal's record of obj's revision when the journal wrote obj as it is (the
 * emulator wrote the file that holds it): a record of the object of (plural, ns, name),
 * or with of NULL of any object; else NULL. */
const struct em_journal_record *em_store_journal_wrote(const struct em_store *s,
                                                       const json_t *obj,
                                                       const struct em_journal_record *of);

/* Writes r's object as its file and takes it as the object's entry, with the line
 * "brought up to revision N from the journal (why)" on the report; 0, or -1 when it
 * cannot be written (nothing changed). */
int em_store_bring_up(struct em_store *s, const struct nd_kind *k,
                      const struct em_journal_record *r, const char *why, struct nd_buf *report);

/* Writes text as the whole of path's file for em_store_bring_up (before the journal is
 * open), through the journal's spares (s->open_spares): 0, or -1 with errno. */
int em_store_bring_up_write(struct em_store *s, const char *path, const char *text, size_t len);

/* A broken file (at path: torn, or not the object its name says) of r's object, r the
 * newest record of the journal's tail: a write a crash cut off (or an edit since the
 * crash). The journal is the truth for its tail: the broken file is moved aside
 * (em_move_aside: nothing is lost; not when it is empty or a text the journal wrote, as
 * em_crash_repair tells them) and the file written from r (for a deletion, left
 * removed), with a line on the report that says where the broken one went. 0, or -1 when
 * it cannot be moved aside or written (left as it was: still broken, reported). */
int em_store_torn(struct em_store *s, const struct nd_kind *k,
                  const struct em_journal_record *r, const char *path, struct nd_buf *report);

/* After the tail's repair: each object whose newest record anywhere in the journal is
 * newer than what was loaded is brought up from the journal when its file is evidently a
 * power loss's leftover, never a hand edit: it holds a revision the journal wrote of it,
 * or it is empty, or it holds a revision the journal wrote of another object. Any other
 * text (a hand edit) wins; a missing file stays a deletion. Costs a lookup a record on a
 * start with nothing to repair. */
void em_crash_repair(struct em_store *s, struct nd_buf *report);

#endif
