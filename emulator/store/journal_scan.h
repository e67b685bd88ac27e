/* The start's reader of journal lines as the store writes them, without a tree.
 *
 * A restart reads the whole journal (the history of 24 hours: tens of megabytes at
 * 10,000 Jobs made with the simulation on), and jansson's parse of every line into a tree
 * that is freed at once was a third of its CPU. A line as em_store_record_line_bytes
 * writes it, {"rev":R,"time":T,"type":"..","plural":"..","object":{..}}, or a marker
 * {"wall":W,"applied":A}, is checked here in one pass with no allocation: the grammar of
 * JSON with no whitespace, no member named twice in an object, the object's
 * metadata.name, namespace and resourceVersion picked; strings are checked as jansson
 * checks them (well-formed UTF-8, no control byte, escapes that decode to neither NUL
 * nor half a surrogate pair). Whatever it is not sure of (a real, an integer of more
 * than 18 digits, whitespace, deep nesting, an escape in the name, namespace or
 * resourceVersion, \u of NUL or of a surrogate, a line in another shape) it leaves to
 * jansson, so a line it takes is one jansson takes the same way (journal.c: record_of). */
#ifndef EM_JOURNAL_SCAN_H
#define EM_JOURNAL_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { EM_SCAN_UNSURE = 0, EM_SCAN_RECORD = 1, EM_SCAN_MARKER = 2 };

struct em_journal_scan {
    int64_t wall, applied;         /* a marker's */
    int64_t rev, time_ms;          /* a record's head */
    char type[24], plural[96];     /* NUL-terminated */
    const char *object;            /* the object's bytes in the line */
    size_t object_len;
    /* metadata's name, namespace and resourceVersion when they are strings (no escape) */
    struct {
        const char *p;
        size_t len;
    } name, ns, rv;
    bool has_name, has_ns, has_rv;
};

/* EM_SCAN_RECORD or EM_SCAN_MARKER (out filled, pointing into line), or EM_SCAN_UNSURE:
 * parse the line with jansson. */
int em_journal_scan_line(const char *line, size_t len, struct em_journal_scan *out);

#endif
