/* namesort.h: a directory's names put in strcmp order, quickly.
 *
 * The start lists every kind directory and puts its files' names in name order, so the
 * store's indexes are built by appending (load.c). At 100k names in one directory a
 * qsort by strcmp was a third of the listing, on the one thread that lists while the
 * other core waits: each comparison follows two pointers to strings the directory's hash
 * order scattered. Names of one directory mostly share a prefix ("bench-0", "api-") and
 * differ in the next few bytes, so the sort orders 64-bit keys made of the 8 bytes after
 * the prefix every name shares, by radix (no comparison, the names read once); names of
 * equal keys that go on past them are ordered by their next 8 bytes the same way (a few
 * by strcmp). */
#ifndef EM_STORE_NAMESORT_H
#define EM_STORE_NAMESORT_H

#include <stddef.h>

/* Puts the n NUL-terminated strings of v in strcmp order (as qsort with strcmp would;
 * equal strings in any order). */
void em_names_sort(char **v, size_t n);

#endif
