/* nodus annotate: set (KEY=VALUE) or remove (KEY-) annotations of objects. */
#include "commands.h"
#include "metadata.h"

#define TO(f) ND_TO(struct nd_metadata_opts, f)
const struct nd_flag cmd_annotate_flags[] = {
    {"overwrite", 0, ND_BOOL, NULL, "allow changing an annotation that has a value", NULL,
     TO(overwrite)},
    {"selector", 'l', ND_STRING, "SELECTOR", "annotate the objects matching a selector", NULL,
     TO(selector)},
    {"all", 0, ND_BOOL, NULL, "annotate every object of the kind", NULL, TO(all)},
    ND_FLAGS_END(struct nd_metadata_opts),
};

int cmd_annotate(int argc, char **argv, struct nd_ctx *ctx)
{
    return nd_edit_metadata(argc, argv, ctx, "annotations", "annotated", "annotated");
}
