/* What every emulator holds from the start: the projects default and nodus, and the
 * Image catalogue Nodus publishes in nodus. */
#include <string.h>

#include "kinds/registry.h"
#include "objects.h"
#include "router.h"
#include "util/hash.h"
#include "util/id.h"
#include "util/xmalloc.h"

struct image_row {
    const char *name, *description;
    const char *tags[4];
    const char *accelerators; /* comma-separated; "" for CPU only */
};

static const struct image_row catalogue[] = {
    {"pytorch", "PyTorch with CUDA, cuDNN and NCCL, for training and inference on GPUs.",
     {"2.8-cuda12.8", "2.7-cuda12.6", "2.6-cuda12.4", NULL}, "H100,A100,L40S,L4"},
    {"cuda", "The CUDA toolkit on Ubuntu: runtime and development images.",
     {"12.8-runtime", "12.8-devel", "12.6-runtime", NULL}, "H100,A100,L40S,L4"},
    {"jax", "JAX with CUDA, for accelerated numerical computing.",
     {"0.6-cuda12.8", "0.5-cuda12.6", NULL}, "H100,A100,L40S,L4"},
    {"vllm", "vLLM, a high-throughput server for large language models.",
     {"0.10-cuda12.8", "0.9-cuda12.8", NULL}, "H100,A100,L40S,L4"},
    {"python", "Python on Debian, for CPU work and small tools.", {"3.12", "3.11", NULL}, ""},
    {"ubuntu", "A plain Ubuntu base image.", {"24.04", "22.04", NULL}, ""},
};

static json_t *image_object(struct em_server *srv, const struct image_row *r, const char *now)
{
    json_t *tags = json_array();
    for (int i = 0; r->tags[i]; i++) {
        /* a stable digest, derived from the name and tag */
        char *ref = nd_xasprintf("nodus/%s:%s", r->name, r->tags[i]);
        char hex[17];
        nd_hash_hex(nd_fnv64(ND_FNV64_INIT, ref, strlen(ref)), hex);
        char *digest = nd_xasprintf("sha256:%s%s%s%s", hex, hex, hex, hex);
        json_t *acc = json_array();
        char *list = nd_xstrdup(r->accelerators);
        char *save = NULL;
        for (char *m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save))
            json_array_append_new(acc, json_string(m));
        free(list);
        json_array_append_new(tags, json_pack("{sssssO}", "tag", r->tags[i], "digest", digest,
                                              "accelerators", acc));
        json_decref(acc);
        free(digest);
        free(ref);
    }
    (void)srv;
    char *uid = nd_uid_new("img");
    json_t *obj = json_pack("{sssss{sssssssssI}s{ssso}}", "apiVersion", "nodus.dev/v1", "kind",
                            "Image", "metadata", "name", r->name, "namespace", "nodus", "uid", uid,
                            "creationTimestamp", now, "generation", (json_int_t)1, "spec",
                            "description", r->description, "tags", tags);
    free(uid);
    return obj;
}

static int ensure_project(struct em_server *srv, const char *name, const char *now,
                          struct nd_status *st)
{
    if (em_store_entry(&srv->store, nd_kind_by_plural(NULL, "namespaces"), "", name))
        return 0;
    const struct nd_kind *k = nd_kind_by_plural("", "namespaces");
    char *uid = nd_uid_new(k->uid_prefix);
    json_t *ns = json_pack("{sssss{sssssssIs{ss}}s{s[s]}s{ss}}", "apiVersion", "v1", "kind",
                           "Namespace", "metadata", "name", name, "uid", uid, "creationTimestamp",
                           now, "generation", (json_int_t)1, "labels",
                           "kubernetes.io/metadata.name", name, "spec", "finalizers",
                           "kubernetes", "status", "phase", "Active");
    free(uid);
    int rc = em_obj_add(srv, k, ns, st);
    json_decref(ns);
    return rc;
}

int em_builtin_ensure(struct em_server *srv, struct nd_status *st)
{
    char now[32];
    em_now_rfc3339(srv, now);
    if (ensure_project(srv, "default", now, st) < 0 || ensure_project(srv, "nodus", now, st) < 0)
        return -1;
    const struct nd_kind *ik = nd_kind_by_plural("nodus.dev", "images");
    for (size_t i = 0; i < sizeof catalogue / sizeof catalogue[0]; i++) {
        if (em_store_entry(&srv->store, nd_kind_by_plural(NULL, "images"), "nodus",
                         catalogue[i].name))
            continue;
        json_t *img = image_object(srv, &catalogue[i], now);
        int rc = em_obj_add(srv, ik, img, st);
        json_decref(img);
        if (rc < 0)
            return -1;
    }
    return 0;
}
