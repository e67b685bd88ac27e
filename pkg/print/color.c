/* color.c: phase colours (cli.md "get"). kubectl has none; nodus colours the PHASE
 * column on a terminal, and the table code counts the escapes as zero width. */
#include "print/print.h"

#include <string.h>

static const struct {
    const char *phase;
    const char *color;
} phase_colors[] = {
    {"Running", ND_COLOR_GREEN},   {"Succeeded", ND_COLOR_GREEN},     {"Queued", ND_COLOR_YELLOW},
    {"Pending", ND_COLOR_YELLOW},  {"Provisioning", ND_COLOR_YELLOW}, {"Starting", ND_COLOR_YELLOW},
    {"Failed", ND_COLOR_RED},      {"Stopped", ND_COLOR_GREY},        {"Cancelled", ND_COLOR_GREY},
    {"Cancelling", ND_COLOR_GREY}, {"Terminating", ND_COLOR_GREY},
};

const char *nd_print_phase_color(const char *phase)
{
    if (!phase)
        return NULL;
    for (size_t i = 0; i < sizeof phase_colors / sizeof phase_colors[0]; i++)
        if (strcmp(phase, phase_colors[i].phase) == 0)
            return phase_colors[i].color;
    return NULL;
}

void nd_print_add_colored(struct nd_buf *out, const char *text, const char *color)
{
    if (!color) {
        nd_buf_adds(out, text);
        return;
    }
    nd_buf_adds(out, color);
    nd_buf_adds(out, text);
    nd_buf_adds(out, ND_COLOR_RESET);
}
