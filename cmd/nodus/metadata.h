/* metadata.h: nodus label and nodus annotate, which differ only in the map they edit. */
#ifndef ND_CMD_METADATA_H
#define ND_CMD_METADATA_H

#include "cli.h"

/* The flags of label and annotate (their tables differ in help only). */
struct nd_metadata_opts {
    bool overwrite;
    const char *selector;
    bool all;
};

/* Runs label (map "labels", verb "labeled") or annotate (map "annotations"). */
int nd_edit_metadata(int argc, char **argv, struct nd_ctx *ctx, const char *map,
                     const char *verb, const char *unverb);

#endif
