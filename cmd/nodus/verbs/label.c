/* nodus label: set (KEY=VALUE) or remove (KEY-) labels of objects. */
#include "commands.h"
#include "metadata.h"

const struct nd_flag cmd_label_flags[] = {
    {"overwrite", 0, ND_BOOL, NULL, "allow changing a label that has a value", NULL},
    {"selector", 'l', ND_STRING, "SELECTOR", "label the objects matching a selector", NULL},
    {"all", 0, ND_BOOL, NULL, "label every object of the kind", NULL},
    {NULL},
};

int cmd_label(int argc, char **argv, struct nd_ctx *ctx)
{
    return nd_edit_metadata(argc, argv, ctx, "labels", "labeled", "unlabeled");
}
