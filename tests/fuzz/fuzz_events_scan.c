/* fuzz_events_scan: the start's read of the Events' hour files with the one-pass scan
 * (emulator/store/events_file.h with a plan, objscan.h) against jansson's path: the same
 * Events (names, compact bytes, records), the same reports of the lines that do not
 * parse, the same files after the tidy, byte for byte (events_same.h). The input is one
 * hour file of project "p", or two split at the first "\n=\n". */
#include "events_same.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    static struct em_scan_plan *plan;
    if (!plan)
        plan = em_events_scan_plan();
    const uint8_t *a, *b;
    size_t alen, blen;
    fz_split(data, size, "\n=\n", &a, &alen, &b, &blen);
    struct es_file files[] = {{"2026-12-06T12.ndjson", (const char *)a, alen},
                              {"2026-12-06T13.ndjson", (const char *)b, blen}};
    struct em_events_read rd = {0};
    if (!es_same(plan, files, b > a + alen ? 2 : 1, &rd))
        abort();
    return 0;
}
