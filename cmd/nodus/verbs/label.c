/* nodus label: set (KEY=VALUE) or remove (KEY-) labels of objects. */
#include "commands.h"
#include "metadata.h"

#define TO(f) ND_TO(struct nd_metadata_opts, f)
const struct nd_flag cmd_label_flags[] = {
    {"overwrite", 0, ND_BOOL, NULL, "allow changing a label that has a value", NULL, TO(overwrite)},
    {"selector", 'l', ND_STRING, "SELECTOR", "label the objects matching a selector", NULL,
     TO(selector)},
    {"all", 0, ND_BOOL, NULL, "label every object of the kind", NULL, TO(all)},
    ND_FLAGS_END(struct nd_metadata_opts),
};

int cmd_label(int argc, char **argv, struct nd_ctx *ctx)
{
    return nd_edit_metadata(argc, argv, ctx, "labels", "labeled", "unlabeled");
}
