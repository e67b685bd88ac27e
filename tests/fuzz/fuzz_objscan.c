/* fuzz_objscan: the start's one-pass read of an object file (emulator/store/objscan.h)
 * against jansson's (load.c): whatever the scan accepts must give jansson's compact bytes
 * and record, byte for byte (objscan_same.h). The first byte picks the kind of the plan
 * (none, or one of the served kinds); the rest is the file's text. */
#include "fuzz.h"
#include "objscan_same.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size < 1)
        return 0;
    size_t nk = nd_kind_served_count();
    const struct nd_kind *k = data[0] % (nk + 1) ? nd_kind_served(data[0] % (nk + 1) - 1) : NULL;
    struct em_scan_plan *plan = em_scan_plan_new(k);
    if (os_compare(plan, k, (const char *)data + 1, size - 1) == OS_DIFFERENT)
        abort();
    em_scan_plan_free(plan);
    return 0;
}
