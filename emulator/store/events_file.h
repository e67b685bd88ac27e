/* events_file.h: how the store keeps Events (core/v1 Event, also served as events.k8s.io)
 * on disk: not one file each, but one append-only NDJSON file per project and hour,
 *
 *   DIR/objects/<project>/events/<hour>.ndjson      <hour>: YYYY-MM-DDTHH
 *
 * the hour of the Event's metadata.creationTimestamp (the emulator's clock; "undated" when
 * it has none). Each line is one revision of one Event, its compact JSON exactly as the API
 * returns it; a deletion is a line {"deleted":"<name>","resourceVersion":"<rv>"}. A create
 * costs an append to a file that is usually there already, not a new file.
 *
 * Reading (a start): the hour files of a project are read in name order; for each name the
 * line with the highest resourceVersion wins (on a tie, the later line: a line edited in
 * place or appended by hand keeps or repeats its resourceVersion, and wins); a winning
 * deletion line means the Event is gone. A line that does not parse, or is neither an Event
 * nor a deletion, is reported and skipped (the rest of its file loads; the file is left as
 * it is). A last line without its newline gets one when it parses; else it is torn (a crash
 * in the middle of an append) and cut off, its bytes kept aside (em_write_aside) and said
 * on the start's report (the journal holds the Event the append was of: a start appends it
 * again; a broken hand edit is not lost either).
 * A start tidies a project's files when it must or when it is worth it: an Event whose
 * lines sit in more than one file or outside its hour's file (a hand edit), or a legacy
 * one-file-per-Event <name>.json, makes it rewrite the project's hour files with one line
 * per live Event; a file more than half made of superseded lines is rewritten alone; a file
 * with no live Event goes. Rewritten files keep the newest modification time of the files
 * they replace (the journal's repair compares it). A project with a line that does not
 * parse is not tidied.
 *
 * Writing: an Event's change is appended to its hour's file after the journal's flush, as
 * an object file is written (journal.h); the deletion of the last live Event of a file
 * removes the file instead. The store counts the live Events of each file for that.
 */
#ifndef EM_STORE_EVENTS_FILE_H
#define EM_STORE_EVENTS_FILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "bytes.h"
#include "journal.h"
#include "kinds/registry.h"
#include "util/buf.h"

/* Whether k's objects are kept in hour files (ND_KIND_HOUR_FILES: Events). */
bool em_events_kind(const struct nd_kind *k);

/* The file of an Event of project ns (nsdir: "_cluster" never holds Events): NEW. */
char *em_events_path(const char *dir, const char *ns, const json_t *obj);

/* The store's count of live Events per file ("<project>/<hour>" -> count): live is a JSON
 * object. Notes that an Event changed from was (NULL: new) to now (NULL: gone). */
void em_events_count(json_t *live, const char *ns, const json_t *was, const json_t *now);

/* The journal's file write for a change of an Event of project ns: the line (obj's compact
 * JSON, json) appended to its hour file, or for remove a deletion line, or the file's
 * removal when cur (the stored Event, before the change) is its last live one. */
void em_events_op(const char *dir, json_t *live, const char *ns, const json_t *cur,
                  const json_t *obj, const struct em_bytes *json, bool remove,
                  struct em_journal_op *op);

/* A start's repair (store.c) of an Event a crash left behind the journal's record r: its
 * line appended (or its file removed, for the deletion of its last Event), said in report.
 * 0 or -1. */
int em_events_repair(const char *dir, json_t *live, const struct em_journal_record *r,
                     const json_t *cur, const json_t *obj, struct nd_buf *report);

/* A start: one item per live Event of the project directory's events/ (pdir) and per line
 * that does not parse (obj NULL, why set); the items' strings are NEW (fn owns them). An
 * Event's obj is its tree (NEW), or, when json is set (its compact bytes, NEW), the part
 * em_scan_object made of its line (NEW: the values its record reads, objscan.h).
 *
 * With a plan (em_events_scan_plan), each line of an hour file is read in one pass
 * (objscan.h: the tokens jansson's compact dump writes, no tree) when it is an Event of
 * the project or a deletion line as the emulator writes them; anything else (a hand edit
 * the scan is not sure of, a line of another project, a legacy file) is parsed by jansson
 * as without a plan, to the same items, reports and tidied files. read counts the lines
 * and those jansson parsed. */
struct em_events_read {
    size_t lines, parsed;
    struct nd_buf *report; /* a line for each torn last line cut off (NULL: none) */
};
typedef void (*em_events_item_fn)(void *ctx, char *name, json_t *obj, struct em_bytes *json,
                                  char *path, char *why);
struct em_scan_plan;
void em_events_load_dir(const char *pdir, const char *ns, const struct em_scan_plan *plan,
                        em_events_item_fn fn, void *ctx, struct em_events_read *read);
/* NEW plan for the Events' lines (em_scan_plan_free): their records' paths and a deletion
 * line's. */
struct em_scan_plan *em_events_scan_plan(void);

#endif
