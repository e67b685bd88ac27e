/* fuzz_config: kubeconfig parsing (pkg/config): the input is written to a file in a
 * temporary directory (made once per process) and loaded with nd_config_load; a
 * configuration that loads is resolved (current context, then each context by name),
 * edited (set-context, set-cluster, set-credentials, use-context, delete-context), saved
 * and loaded again (which must succeed). */
#include <stdio.h>
#include <unistd.h>

#include "config/config.h"
#include "fuzz.h"

static char dir[64], path[96];

static void cleanup(void)
{
    fz_remove_tree(dir);
}

static void setup(void)
{
    if (dir[0])
        return;
    fz_init();
    snprintf(dir, sizeof dir, "%s", "/tmp/nodus-fuzz-config-XXXXXX");
    FZ_ASSERT(mkdtemp(dir));
    atexit(cleanup);
    snprintf(path, sizeof path, "%s/config", dir);
    unsetenv("NODUS_SERVER");
    unsetenv("NODUS_TOKEN");
    unsetenv("NODUS_CONFIG");
    unsetenv("KUBECONFIG");
}

static void resolve(const struct nd_config *cfg, const char *context)
{
    struct nd_overrides ov = {.context = context};
    struct nd_target t;
    struct nd_status st = ND_STATUS_INIT;
    if (nd_config_resolve(cfg, &ov, &t, &st) == 0) {
        FZ_ASSERT(t.server && t.namespace);
        nd_target_release(&t);
    } else {
        FZ_ASSERT(st.message);
    }
    nd_status_release(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    FILE *f = fopen(path, "wb");
    FZ_ASSERT(f);
    FZ_ASSERT(fwrite(data, 1, size, f) == size);
    FZ_ASSERT(fclose(f) == 0);

    struct nd_config cfg;
    struct nd_status st = ND_STATUS_INIT;
    if (nd_config_load(&cfg, path, &st) < 0) {
        FZ_ASSERT(st.message);
        nd_status_release(&st);
        nd_config_release(&cfg);
        return 0;
    }
    resolve(&cfg, NULL);
    json_t *names = nd_config_context_names(&cfg);
    size_t i;
    json_t *n;
    json_array_foreach(names, i, n) {
        if (i >= 8)
            break;
        resolve(&cfg, json_string_value(n));
        nd_config_get(&cfg, "contexts", json_string_value(n));
    }
    nd_config_current_context(&cfg);
    nd_config_get(&cfg, "clusters", "c");
    nd_config_get(&cfg, "users", "u");

    const char *first = json_string_value(json_array_get(names, 0));
    nd_config_set_cluster(&cfg, "c", "http://127.0.0.1:1", NULL, -1, &st);
    nd_status_release(&st);
    nd_config_set_credentials(&cfg, "u", "tok", NULL, NULL, NULL, &st);
    nd_status_release(&st);
    nd_config_set_context(&cfg, first ? first : "x", "c", "u", "ns", &st);
    nd_status_release(&st);
    nd_config_use_context(&cfg, first ? first : "x", &st);
    nd_status_release(&st);
    resolve(&cfg, NULL);
    if (nd_config_save(&cfg, &st) == 0) {
        struct nd_config again;
        struct nd_status st2 = ND_STATUS_INIT;
        if (nd_config_load(&again, path, &st2) < 0)
            fprintf(stderr, "reload: %s\n", st2.message);
        FZ_ASSERT(st2.message == NULL);
        nd_config_delete_context(&again, first ? first : "x", &st2);
        nd_config_release(&again);
        nd_status_release(&st2);
    }
    nd_status_release(&st);
    json_decref(names);
    nd_config_release(&cfg);
    return 0;
}
