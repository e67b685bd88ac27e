/* emulator.c: the emulator a cluster entry stands for.
 *
 * `nodus emulator start` records the state directory of the emulator it runs with the
 * cluster it writes, as an extension of that cluster (kubeconfig's NamedExtension, the
 * way minikube records its own; kubectl keeps it and ignores it):
 *
 *   clusters:
 *   - name: emulator
 *     cluster:
 *       server: http://127.0.0.1:40731
 *       extensions:
 *       - name: emulator.nodus.dev
 *         extension: {state: /home/me/.nodus/emulator}
 */
#include "config/config.h"

#include <string.h>

#include "config/internal.h"

#define EXTENSION "emulator.nodus.dev"

/* The extension object {state: ...} of a cluster body. BORROWED, or NULL. */
static json_t *extension_of(const json_t *cluster)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(cluster, "extensions"), i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (n && !strcmp(n, EXTENSION))
            return json_object_get(e, "extension");
    }
    return NULL;
}

const char *nd_config_cluster_emulator(const struct nd_config *cfg, const char *cluster)
{
    if (!cluster)
        return NULL;
    return cfg_str(extension_of(nd_config_get(cfg, "clusters", cluster)), "state");
}

const char *nd_config_context_emulator(const struct nd_config *cfg, const char *context)
{
    if (!context)
        return NULL;
    const json_t *ctx = nd_config_get(cfg, "contexts", context);
    return nd_config_cluster_emulator(cfg, cfg_str(ctx, "cluster"));
}

int nd_config_set_cluster_emulator(struct nd_config *cfg, const char *cluster, const char *dir,
                                   struct nd_status *st)
{
    json_t *body = cluster && *cluster ? nd_config_get(cfg, "clusters", cluster) : NULL;
    if (!body)
        return nd_status_set(st, "Usage", "list the clusters: nodus config view",
                             "cluster \"%s\" does not exist", cluster ? cluster : "");
    json_t *list = json_object_get(body, "extensions");
    if (!json_is_array(list)) {
        list = json_array();
        json_object_set_new(body, "extensions", list);
    }
    json_t *ext = extension_of(body);
    if (!json_is_object(ext)) {
        size_t i;
        json_t *e;
        json_array_foreach(list, i, e)
        {
            const char *n = json_string_value(json_object_get(e, "name"));
            if (n && !strcmp(n, EXTENSION)) {
                json_array_remove(list, i);
                break;
            }
        }
        ext = json_object();
        json_array_append_new(list, json_pack("{s:s, s:o}", "name", EXTENSION, "extension", ext));
    }
    json_object_set_new(ext, "state", json_string(dir));
    return 0;
}
