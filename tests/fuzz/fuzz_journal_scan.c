/* fuzz_journal_scan: the restart's one-pass read of a journal line
 * (emulator/store/journal_scan.h) against jansson's: a line the scan takes, as a record
 * or a marker, must be one jansson parses (no member named twice) to the same head, the
 * same object and the same metadata name, namespace and resourceVersion; what it is not
 * sure of is left to jansson and not checked here. */
#include <jansson.h>

#include "fuzz.h"
#include "journal_scan.h"

/* Whether the span is the string v (and v is a string). */
static int same_str(const json_t *v, const char *p, size_t len)
{
    return json_is_string(v) && json_string_length(v) == len &&
           memcmp(json_string_value(v), p, len) == 0;
}

static void check_record(const json_t *j, const struct em_journal_scan *sc)
{
    const json_t *obj = json_object_get(j, "object");
    const json_t *meta = json_object_get(obj, "metadata");
    if (json_object_size(j) != 5 || !json_is_object(obj) ||
        json_integer_value(json_object_get(j, "rev")) != sc->rev ||
        !json_is_integer(json_object_get(j, "rev")) ||
        json_integer_value(json_object_get(j, "time")) != sc->time_ms ||
        !json_is_integer(json_object_get(j, "time")) ||
        !same_str(json_object_get(j, "type"), sc->type, strlen(sc->type)) ||
        !same_str(json_object_get(j, "plural"), sc->plural, strlen(sc->plural)))
        abort();
    json_t *mine = json_loadb(sc->object, sc->object_len, JSON_REJECT_DUPLICATES, NULL);
    if (!mine || !json_equal(mine, obj))
        abort();
    json_decref(mine);
    static const char *const keys[] = {"name", "namespace", "resourceVersion"};
    const bool has[] = {sc->has_name, sc->has_ns, sc->has_rv};
    const char *p[] = {sc->name.p, sc->ns.p, sc->rv.p};
    const size_t len[] = {sc->name.len, sc->ns.len, sc->rv.len};
    for (int i = 0; i < 3; i++) {
        const json_t *v = json_object_get(meta, keys[i]);
        if (has[i] ? !same_str(v, p[i], len[i]) : json_is_string(v))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    struct em_journal_scan sc;
    int kind = em_journal_scan_line((const char *)data, size, &sc);
    if (kind == EM_SCAN_UNSURE)
        return 0;
    json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(j))
        abort();
    if (kind == EM_SCAN_MARKER) {
        if (json_object_size(j) != 2 || !json_is_integer(json_object_get(j, "wall")) ||
            !json_is_integer(json_object_get(j, "applied")) ||
            json_integer_value(json_object_get(j, "wall")) != sc.wall ||
            json_integer_value(json_object_get(j, "applied")) != sc.applied)
            abort();
    } else {
        check_record(j, &sc);
    }
    json_decref(j);
    return 0;
}
