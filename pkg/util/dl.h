/* dl.h: binding a table of a shared library's functions, for the libraries the CLI loads
 * only when a command needs them (libcurl for https://, libmicrohttpd for mcp --listen). */
#ifndef ND_UTIL_DL_H
#define ND_UTIL_DL_H

#include <stddef.h>

/* One function: its symbol, and where its pointer goes in the caller's table. */
struct nd_dl_sym {
    const char *name;
    size_t off; /* offsetof the table's field */
};

/* Looks up each of the n symbols in the dlopen()ed h and stores its pointer at
 * table + off. NULL when all were found, else the name of the first one missing (then h
 * is closed and the table left partly filled). */
const char *nd_dl_bind(void *h, const struct nd_dl_sym *syms, size_t n, void *table);

#endif
