/* Seeds a state fast: N Job files written straight into a stopped emulator's state
 * directory (the documented layout: objects/<project>/jobs/<name>.json, pretty JSON), each
 * a copy of TEMPLATE (a Job the emulator created and stored) with its own metadata.name,
 * uid and resourceVersion; or the same N Jobs as one json-server database.
 *
 *   seed emulator TEMPLATE DIR N RV_BASE      writes DIR/bench-000000.json ...
 *   seed json-server TEMPLATE FILE N          writes {"jobs": [{"id": "bench-000000", ...}]}
 *
 * Names are bench-%06d; resourceVersions RV_BASE+1 ... RV_BASE+N. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    fprintf(stderr, "usage: seed emulator TEMPLATE DIR N RV_BASE | seed json-server TEMPLATE FILE N\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 5)
        usage();
    int emu = strcmp(argv[1], "emulator") == 0;
    if (!emu && strcmp(argv[1], "json-server") != 0)
        usage();
    if (emu && argc != 6)
        usage();
    json_error_t err;
    json_t *job = json_load_file(argv[2], 0, &err);
    if (!job || !json_is_object(json_object_get(job, "metadata"))) {
        fprintf(stderr, "seed: %s: %s\n", argv[2], job ? "no metadata" : err.text);
        return 1;
    }
    long n = atol(argv[4]);
    long rv_base = emu ? atol(argv[5]) : 0;
    json_t *md = json_object_get(job, "metadata");
    FILE *db = NULL;
    if (!emu) {
        db = fopen(argv[3], "w");
        if (!db) {
            perror(argv[3]);
            return 1;
        }
        fputs("{\n  \"jobs\": [\n", db);
    }
    char name[64], uid[64], rv[32], path[4096];
    for (long i = 0; i < n; i++) {
        snprintf(name, sizeof name, "bench-%06ld", i);
        snprintf(uid, sizeof uid, "b0000000-0000-4000-8000-%012lx", (unsigned long)i);
        snprintf(rv, sizeof rv, "%ld", rv_base + 1 + i);
        json_object_set_new(md, "name", json_string(name));
        json_object_set_new(md, "uid", json_string(uid));
        json_object_set_new(md, "resourceVersion", json_string(rv));
        if (emu) {
            snprintf(path, sizeof path, "%s/%s.json", argv[3], name);
            FILE *f = fopen(path, "w");
            if (!f || json_dumpf(job, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 ||
                fputc('\n', f) == EOF || fclose(f) != 0) {
                perror(path);
                return 1;
            }
        } else {
            json_t *row = json_object();
            json_object_set_new(row, "id", json_string(name));
            json_object_update(row, job);
            char *s = json_dumps(row, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
            /* nest the object one level (4 spaces) as JSON.stringify(db, null, 2) would */
            fputs("    ", db);
            for (char *p = s; *p; p++) {
                fputc(*p, db);
                if (*p == '\n')
                    fputs("    ", db);
            }
            fputs(i + 1 < n ? ",\n" : "\n", db);
            free(s);
            json_decref(row);
        }
    }
    if (db) {
        fputs("  ]\n}\n", db);
        if (fclose(db) != 0) {
            perror(argv[3]);
            return 1;
        }
    }
    json_decref(job);
    return 0;
}
