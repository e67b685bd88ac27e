/* objscan.h: an object file's compact bytes and the values its record reads, in one pass
 * over the file's text, without a jansson tree of the object.
 *
 * A start without a checkpoint reads every object file (load.c). Those the store wrote are
 * jansson's compact dump re-spaced (pretty.h), so the compact bytes are the text without
 * the blanks outside strings. em_scan_object strips them while it checks that every token
 * is exactly what json_dumps(JSON_COMPACT) would write for the value json_loadb reads
 * there: keys unique in each object, strings valid UTF-8 with only the escapes jansson's
 * dump writes (\" \\ \b \f \n \r \t, \u00XX upper case for the other control
 * characters), integers within 64 bits without a leading zero or "-0", reals that
 * jansson prints back as they are written. Its bytes are then json_dumps(json_loadb(text,
 * JSON_REJECT_DUPLICATES), JSON_COMPACT)'s. Of the values it builds only what em_rec_of
 * reads of an object of the plan's kind (metadata's, status's and the kind's field
 * selectors' paths) and "kind", as jansson would load them, in the shape of the object
 * (the part): em_rec_of(kind, part) is the object's record.
 *
 * Anything else (a duplicate key, an escape the dump writes otherwise, "\/", a big or
 * unusual number, invalid UTF-8, more than 64 levels or 512 keys open at once, a
 * hand-edited file's odd text) is refused, and the caller reads the text with jansson. */
#ifndef EM_STORE_OBJSCAN_H
#define EM_STORE_OBJSCAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "bytes.h"
#include "kinds/registry.h"

/* What the record of an object of one kind reads: made once per kind directory. */
struct em_scan_plan;

/* NEW plan for objects of kind k (NULL: none, as em_rec_of's k). */
struct em_scan_plan *em_scan_plan_new(const struct nd_kind *k);
void em_scan_plan_free(struct em_scan_plan *p);
/* Adds a dotted path the caller reads of the object besides its record (an Event hour
 * file's deletion line: "deleted", "resourceVersion"): built into the part, off the
 * records' arena. */
void em_scan_plan_add(struct em_scan_plan *p, const char *path);

/* One pass over text (len bytes): true, with *json (NEW, the compact bytes) and *part
 * (NEW, the values of the plan's paths in the object's shape), when the text is accepted
 * (above); false, with nothing made, else. The values are jansson's allocations (the
 * caller chooses the records' arena). */
bool em_scan_object(const struct em_scan_plan *p, const char *text, size_t len,
                    struct em_bytes **json, json_t **part);

#endif
