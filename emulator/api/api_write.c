/* create and replace, and the write pipeline they share with patch and apply. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kinds/field_errors.h"
#include "kinds/object.h"
#include "errors.h"
#include "objects.h"
#include "patch/ssa.h"
#include "pricebook.h"
#include "util/id.h"
#include "util/validate.h"
#include "util/xmalloc.h"
#include "write.h"
#include "controllers/admit.h"
#include "util/money.h"

int em_write_options(struct em_api *a, struct em_write *w)
{
    memset(w, 0, sizeof *w);
    if (em_api_dry_run(a, &w->dry_run) < 0)
        return -1;
    if (nd_field_validation_parse(em_req_query(a->req, "fieldValidation"), &w->fv, &a->st) < 0)
        return -1;
    const char *fm = em_req_query(a->req, "fieldManager");
    if (fm && strlen(fm) > 128)
        return nd_status_set(&a->st, "BadRequest", NULL,
                             "fieldManager: must be at most 128 characters");
    em_api_field_manager(a, w->manager);
    w->status_only = a->path.sub && strcmp(a->path.sub, "status") == 0;
    return 0;
}

int em_write_check_header(struct em_api *a, json_t *obj, const char *path_name)
{
    const struct nd_kind *k = a->kind;
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (json_object_get(obj, "apiVersion") && (!av || strcmp(av, k->api_version) != 0))
        return nd_status_set(&a->st, "BadRequest", NULL,
                             "the API version in the data (%s) does not match the expected API "
                             "version (%s)", av ? av : "?", k->api_version);
    if (json_object_get(obj, "kind") && (!kind || strcmp(kind, k->kind) != 0))
        return nd_status_set(&a->st, "BadRequest", NULL,
                             "the kind in the data (%s) does not match the expected kind (%s)",
                             kind ? kind : "?", k->kind);
    json_object_set_new(obj, "apiVersion", json_string(k->api_version));
    json_object_set_new(obj, "kind", json_string(k->kind));
    json_t *meta = json_object_get(obj, "metadata");
    if (meta && !json_is_object(meta))
        return nd_status_set(&a->st, "BadRequest", NULL, "metadata must be an object");
    meta = em_obj_meta(obj);
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    if (k->namespaced) {
        if (ns && *ns && strcmp(ns, a->ns) != 0)
            return nd_status_set(&a->st, "BadRequest", NULL,
                                 "the namespace of the provided object (%s) does not match the "
                                 "namespace sent on the request (%s)", ns, a->ns);
        json_object_set_new(meta, "namespace", json_string(a->ns));
    } else {
        json_object_del(meta, "namespace");
    }
    const char *name = json_string_value(json_object_get(meta, "name"));
    if (path_name) {
        if (!name)
            json_object_set_new(meta, "name", json_string(path_name));
        else if (strcmp(name, path_name) != 0)
            return nd_status_set(&a->st, "BadRequest", NULL,
                                 "the name of the object (%s) does not match the name on the URL "
                                 "(%s)", name, path_name);
    }
    return 0;
}


/* The platform's rules (controllers/admit.h), given what they need of the request. */
static int admit(struct em_api *a, const json_t *old, json_t *obj)
{
    struct em_admission ad = {
        .srv = a->srv,
        .kind = a->kind,
        .identity = a->identity,
        .may_bill = (a->who->scopes & EM_SCOPE_BILLING_WRITE) == EM_SCOPE_BILLING_WRITE,
        .seeding = strcmp(a->req->request_id, "seed") == 0,
        .price_consent = em_req_header(a->req, "nodus-price-consent"),
        .st = &a->st,
    };
    return em_admit(&ad, old, obj);
}

/* Where a create came from, by its User-Agent; a browser cannot set one, so a request
 * of a page of the emulator's own origin (the console: a browser's Sec-Fetch-Site, which
 * a page cannot set) is the console's. */
static const char *launched_by(const char *ua, const char *fetch_site)
{
    if (fetch_site && strcmp(fetch_site, "same-origin") == 0 && ua &&
        strncmp(ua, "Mozilla/", 8) == 0)
        return "console";
    if (!ua)
        return "api";
    if (strstr(ua, "kubectl"))
        return "kubectl";
    if (strncmp(ua, "nodus/", 6) == 0 || strncmp(ua, "nodus-cli", 9) == 0)
        return "cli";
    if (strncmp(ua, "nodus-sdk", 9) == 0 || strncmp(ua, "nodus-python", 12) == 0)
        return "sdk";
    if (strncmp(ua, "nodus-console", 13) == 0)
        return "console";
    if (strncmp(ua, "nodus-mcp", 9) == 0 || strncasecmp(ua, "mcp", 3) == 0)
        return "mcp";
    return "api";
}

/* A label value from an identity: characters a label value cannot hold become '-'. */
static char *label_safe(const char *s)
{
    size_t n = strlen(s);
    if (n > 63)
        n = 63;
    char *out = nd_xstrndup(s, n);
    for (char *p = out; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
            *p = '-';
    while (n && !isalnum((unsigned char)out[n - 1]))
        out[--n] = '\0';
    return out;
}

static void set_label(json_t *meta, const char *key, const char *value)
{
    json_t *labels = json_object_get(meta, "labels");
    if (labels && !json_is_object(labels) && !json_is_null(labels))
        return; /* not a map: validation says so */
    if (!json_is_object(labels)) {
        labels = json_object();
        json_object_set_new(meta, "labels", labels);
    }
    json_object_set_new(labels, key, json_string(value));
}

/* Images are named nodus/<name>:<tag> and published in the project nodus. */
static void check_image(struct em_api *a, const json_t *image, const char *field,
                        struct nd_field_errors *errs)
{
    const char *ref = json_string_value(image);
    if (!ref || strncmp(ref, "nodus/", 6) != 0)
        return; /* the schema reports the format */
    const char *colon = strchr(ref + 6, ':');
    if (!colon)
        return;
    char *name = nd_xstrndup(ref + 6, (size_t)(colon - ref - 6));
    json_t *img = em_store_get(&a->srv->store, nd_kind_by_plural(NULL, "images"), "nodus", name);
    bool found = false;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(json_object_get(img, "spec"), "tags"), i, t) {
        const char *tag = json_string_value(json_object_get(t, "tag"));
        if (tag && strcmp(tag, colon + 1) == 0)
            found = true;
    }
    if (!found)
        nd_field_errors_invalid(errs, field, image,
                                "no such image in the catalogue (see: nodus get images -n nodus)");
    free(name);
}

static int check_references(struct em_api *a, const json_t *obj)
{
    struct nd_field_errors errs;
    nd_field_errors_init(&errs);
    const json_t *spec = json_object_get(obj, "spec");
    if (json_object_get(spec, "image"))
        check_image(a, json_object_get(spec, "image"), "spec.image", &errs);
    size_t i;
    json_t *step;
    json_array_foreach(json_object_get(spec, "steps"), i, step) {
        char field[64];
        snprintf(field, sizeof field, "spec.steps[%zu].job.image", i);
        check_image(a, nd_obj_get(step, "job.image"), field, &errs);
    }
    int rc = nd_field_errors_to_status(&errs, "Invalid", a->kind, em_obj_name(obj), &a->st);
    nd_field_errors_release(&errs);
    return rc;
}

static void strip_server_metadata(json_t *meta)
{
    static const char *const server_owned[] = {
        "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
        "deletionGracePeriodSeconds", "selfLink", NULL};
    for (int i = 0; server_owned[i]; i++)
        json_object_del(meta, server_owned[i]);
}

static void set_warnings(struct em_api *a, json_t *warnings)
{
    size_t i;
    json_t *w;
    json_array_foreach(warnings, i, w) json_array_append(a->warnings, w);
}

static int validate(struct em_api *a, struct em_write *w, json_t *obj)
{
    json_t *warnings = json_array();
    int rc = w->status_only
                 ? nd_kind_validate_status(a->kind, obj, w->fv, warnings, &a->st)
                 : nd_kind_validate(a->kind, obj, w->fv, warnings, &a->st);
    set_warnings(a, warnings);
    json_decref(warnings);
    if (rc == 0 && !w->status_only) {
        /* unknown fields were warned about; they are not kept. status is the stored
         * object's (shared, never changed in place), with Nodus's own bookkeeping in it */
        json_t *status = json_incref(json_object_get(obj, "status"));
        json_object_del(obj, "status");
        nd_kind_prune(a->kind, obj);
        if (status)
            json_object_set_new(obj, "status", status);
        rc = check_references(a, obj);
    }
    return rc;
}

static void record_update(struct em_api *a, struct em_write *w, const json_t *old, json_t *obj)
{
    if (w->apply)
        return;
    char now[32];
    em_now_rfc3339(a->srv, now);
    nd_ssa_record_update(old, obj, w->manager, a->kind->api_version,
                         w->status_only ? "status" : "", now);
}

/* A dry-run create of a kind that uses compute answers its estimate and the ETag the
 * real create may send as If-Match to do exactly what was reviewed. (Updates answer
 * none: `kubectl diff` shows a dry-run update's answer, and an estimate is not a change.) */
static void add_review(struct em_api *a, json_t *obj)
{
    json_t *est = em_estimate(a->srv, a->kind->plural, obj);
    if (!est)
        return;
    json_t *status = json_object_get(obj, "status");
    if (!json_is_object(status)) {
        status = json_object();
        json_object_set_new(obj, "status", status);
    }
    json_object_set_new(status, "estimate", est);
    char *etag = em_review_etag(a->srv, a->kind->plural, obj);
    em_resp_set_header(a->resp, "ETag", etag);
    free(etag);
}

/* If-Match: the spec and the price book must be what was reviewed. The rate reviewed
 * then caps what the object may run at: status.maxRateUSDPerHour, the reviewed rate +
 * 10 % (the controllers keep it Queued with PriceAboveEstimate while the market is
 * above; spec.placement.maxRateUSDPerHour, when set, says otherwise). */
static int check_if_match(struct em_api *a, json_t *obj)
{
    const char *want = em_req_header(a->req, "if-match");
    if (!want || !*want || !strcmp(want, "*"))
        return 0;
    int64_t reviewed;
    if (em_review_check(a->srv, obj, want, &reviewed) == 0) {
        json_t *status = json_object_get(obj, "status");
        if (!json_is_object(status)) {
            status = json_object();
            json_object_set_new(obj, "status", status);
        }
        struct nd_buf b = ND_BUF_INIT;
        nd_money_format(reviewed + reviewed / 10, &b);
        json_object_set_new(status, "maxRateUSDPerHour", json_string(b.data));
        nd_buf_release(&b);
        return 0;
    }
    return nd_status_set(&a->st, "PreconditionFailed",
                         "review again (a server dry run gives the new ETag): "
                         "nodus apply -f FILE --review",
                         "If-Match %s no longer matches: the spec or the price book changed "
                         "since the review",
                         want);
}

/* The same-spec retry rule: 200 with the existing object, or AlreadyExists listing
 * the differing fields. */
static int existing_answer(struct em_api *a, json_t *existing, const json_t *obj)
{
    char res[ND_KIND_NAME_MAX];
    const char *name = em_obj_name(obj);
    if (json_object_get(json_object_get(existing, "metadata"), "deletionTimestamp")) {
        nd_status_set(&a->st, "AlreadyExists", NULL,
                      "object is being deleted: %s \"%s\" already exists",
                      nd_kind_resource_name(a->kind, res, sizeof res), name);
        nd_status_set_fix(&a->st, "wait for the deletion to finish, then create: nodus wait %s/%s%s%s "
                          "--for=delete", a->kind->singular, name, *a->ns ? " -n " : "", a->ns);
        nd_status_set_target(&a->st, name, a->kind->group, a->kind->plural);
        return -1;
    }
    json_t *diff =
        nd_obj_diff_atomic(json_object_get(existing, "spec"), json_object_get(obj, "spec"));
    if (json_array_size(diff) == 0) {
        json_decref(diff);
        em_api_answer(a, 200, existing);
        return 0;
    }
    nd_status_set(&a->st, "AlreadyExists", "choose another name, or change it: nodus apply -f FILE",
                  "%s \"%s\" already exists", nd_kind_resource_name(a->kind, res, sizeof res),
                  name);
    nd_status_set_target(&a->st, name, a->kind->group, a->kind->plural);
    size_t i;
    json_t *p;
    json_array_foreach(diff, i, p) {
        const char *sub = json_string_value(p);
        char *field = *sub ? nd_xasprintf("spec%s%s", sub[0] == '[' ? "" : ".", sub)
                           : nd_xstrdup("spec");
        nd_status_add_cause(&a->st, "FieldValueInvalid", field,
                            "differs from the existing object");
        free(field);
    }
    json_decref(diff);
    return -1;
}

/* The name of an object to create: metadata.name, or one made from
 * metadata.generateName (set in meta; a create with generateName needs an
 * Idempotency-Key, so that a retry does not make a second object). NULL with a->st when
 * it has neither. */
static const char *create_name(struct em_api *a, json_t *meta)
{
    struct em_server *srv = a->srv;
    const struct nd_kind *k = a->kind;
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *gen = json_string_value(json_object_get(meta, "generateName"));
    if ((!name || !*name) && gen && *gen) {
        const char *key = em_req_header(a->req, "idempotency-key");
        if (!key || !*key) {
            nd_status_set(&a->st, "IdempotencyKeyRequired",
                          "send an Idempotency-Key header, or set metadata.name",
                          "a create with metadata.generateName needs an Idempotency-Key "
                          "header");
            return NULL;
        }
        char suffix[6];
        for (int tries = 0; tries < 16; tries++) {
            nd_random_suffix(suffix);
            char *candidate = nd_xasprintf("%.*s%s", 58, gen, suffix);
            json_object_set_new(meta, "name", json_string(candidate));
            bool taken = em_store_get(&srv->store, k, a->ns, candidate) != NULL;
            free(candidate);
            if (!taken)
                break;
        }
        name = json_string_value(json_object_get(meta, "name"));
    }
    if (!name || !*name) {
        struct nd_field_errors errs;
        nd_field_errors_init(&errs);
        nd_field_errors_required(&errs, "metadata.name", "name or generateName is required");
        nd_field_errors_to_status(&errs, "Invalid", k, "", &a->st);
        nd_field_errors_release(&errs);
        return NULL;
    }
    return name;
}

/* What the server sets on an object it creates (named name): uid, creationTimestamp,
 * generation, the created-by and launched-by labels of a nodus.dev kind, the billing
 * finalizer of a billed kind, the initial phase (a project's: Active, and its
 * metadata.name label). */
static void stamp_created(struct em_api *a, json_t *obj, const char *name)
{
    struct em_server *srv = a->srv;
    const struct nd_kind *k = a->kind;
    json_t *meta = em_obj_meta(obj);
    char now[32];
    em_now_rfc3339(srv, now);
    char *uid = nd_uid_new(k->uid_prefix);
    json_object_set_new(meta, "uid", json_string(uid));
    free(uid);
    json_object_set_new(meta, "creationTimestamp", json_string(now));
    json_object_set_new(meta, "generation", json_integer(1));
    if (*k->group) {
        char *who = label_safe(a->identity);
        set_label(meta, "nodus.dev/created-by", who);
        free(who);
        set_label(meta, "nodus.dev/launched-by", launched_by(em_req_header(a->req, "user-agent"),
                                                                em_req_header(a->req, "sec-fetch-site")));
    }
    if (nd_kind_is(k, ND_KIND_BILLED) && !em_obj_has_finalizer(obj, EM_FINALIZER_BILLING)) {
        json_t *fins = json_object_get(meta, "finalizers");
        if (!json_is_array(fins)) {
            fins = json_array();
            json_object_set_new(meta, "finalizers", fins);
        }
        json_array_append_new(fins, json_string(EM_FINALIZER_BILLING));
    }
    const char *initial = nd_phase_initial(k->family);
    if (initial)
        json_object_set_new(obj, "status", json_pack("{ss}", "phase", initial));
    else if (nd_kind_is(k, ND_KIND_PROJECT)) {
        json_object_set_new(obj, "status", json_pack("{ss}", "phase", "Active"));
        set_label(meta, "kubernetes.io/metadata.name", name);
    }
}

int em_write_create(struct em_api *a, struct em_write *w, json_t *obj)
{
    struct em_server *srv = a->srv;
    const struct nd_kind *k = a->kind;
    json_t *meta = em_obj_meta(obj);
    if (json_object_get(meta, "resourceVersion") &&
        *json_string_value(json_object_get(meta, "resourceVersion")))
        return nd_status_set(&a->st, "BadRequest", "remove metadata.resourceVersion",
                             "resourceVersion should not be set on objects to be created");
    strip_server_metadata(meta);
    if (!w->apply)
        json_object_del(meta, "managedFields");
    json_object_del(obj, "status");
    if (k->namespaced &&
        !em_store_get(&srv->store, nd_kind_by_plural(NULL, "namespaces"), "", a->ns)) {
        nd_status_set(&a->st, "NotFound", NULL, "namespaces \"%s\" not found", a->ns);
        nd_status_set_fix(&a->st, "create it: nodus create project %s", a->ns);
        nd_status_set_target(&a->st, a->ns, "", "namespaces");
        return -1;
    }
    const char *name = create_name(a, meta);
    if (!name)
        return -1;
    if (nd_kind_check_reserved(k, NULL, obj, &a->st) < 0)
        return -1;
    nd_kind_default(k, obj);
    if (validate(a, w, obj) < 0)
        return -1;
    json_t *existing = em_store_get(&srv->store, k, a->ns, name);
    if (existing)
        return existing_answer(a, existing, obj);

    record_update(a, w, NULL, obj); /* before the server adds its own fields */
    stamp_created(a, obj, name);
    em_obj_normalize(obj);
    if (admit(a, NULL, obj) < 0)
        return -1;
    if (w->dry_run) {
        add_review(a, obj);
        em_api_answer(a, 201, obj);
        return 0;
    }
    if (check_if_match(a, obj) < 0)
        return -1;
    if (em_obj_add(srv, k, obj, &a->st) < 0)
        return -1;
    em_event_record(srv, k, obj, "Normal", "Created", "created by %s", a->identity);
    em_api_answer(a, 201, obj);
    return 0;
}

int em_api_create(struct em_api *a)
{
    struct em_write w;
    if (em_write_options(a, &w) < 0)
        return -1;
    json_t *obj = em_api_body(a, true);
    if (!obj)
        return -1;
    int rc = em_write_check_header(a, obj, NULL);
    if (rc == 0)
        rc = em_write_create(a, &w, obj);
    json_decref(obj);
    return rc;
}

static int conflict(struct em_api *a, const char *name)
{
    char res[ND_KIND_NAME_MAX];
    nd_status_set(&a->st, "Conflict", NULL,
                  "Operation cannot be fulfilled on %s \"%s\": the object has been modified; "
                  "please apply your changes to the latest version and try again",
                  nd_kind_resource_name(a->kind, res, sizeof res), name);
    nd_status_set_fix(&a->st, "read the object again, then retry: nodus get %s %s%s%s -o yaml",
                      a->kind->singular, name, *a->ns ? " -n " : "", a->ns);
    nd_status_set_target(&a->st, name, a->kind->group, a->kind->plural);
    return -1;
}

/* Server-set metadata, reserved keys the body leaves out, and (outside the status
 * subresource) status come from the stored object. */
static void carry_over(json_t *old, json_t *obj, bool status_only)
{
    json_t *om = em_obj_meta(old), *nm = em_obj_meta(obj);
    static const char *const keep[] = {"uid", "creationTimestamp", "generation",
                                       "deletionTimestamp", "deletionGracePeriodSeconds",
                                       "namespace", "name", NULL};
    for (int i = 0; keep[i]; i++) {
        json_t *v = json_object_get(om, keep[i]);
        if (v)
            json_object_set(nm, keep[i], v);
        else
            json_object_del(nm, keep[i]);
    }
    json_object_del(nm, "selfLink");
    static const char *const maps[] = {"labels", "annotations", NULL};
    for (int i = 0; maps[i]; i++) {
        const char *key;
        json_t *v;
        json_object_foreach(json_object_get(om, maps[i]), key, v) {
            if (strncmp(key, "nodus.dev/", 10) != 0 || strstr(key, "-requested-at"))
                continue;
            json_t *m = json_object_get(nm, maps[i]);
            if (m && !json_is_object(m) && !json_is_null(m))
                break; /* not a map: validation says so, nothing is put over it */
            if (!json_is_object(m)) {
                m = json_object();
                json_object_set_new(nm, maps[i], m);
            }
            if (!json_object_get(m, key))
                json_object_set(m, key, v);
        }
    }
    if (status_only) {
        /* only status changes: everything else is the stored object's */
        json_t *status = json_incref(json_object_get(obj, "status"));
        json_t *managed = json_incref(json_object_get(nm, "managedFields"));
        json_object_clear(obj);
        json_object_update(obj, old);
        json_object_set_new(obj, "metadata", json_deep_copy(om));
        if (status)
            json_object_set_new(obj, "status", status);
        else
            json_object_del(obj, "status");
        if (managed)
            json_object_set_new(em_obj_meta(obj), "managedFields", managed);
        return;
    }
    json_t *status = json_object_get(old, "status");
    if (status) /* a copy: validation prunes obj, never the stored object */
        json_object_set_new(obj, "status", json_deep_copy(status));
    else
        json_object_del(obj, "status");
}

static bool adds_finalizer(const json_t *old, const json_t *obj)
{
    json_t *fins = json_object_get(json_object_get(obj, "metadata"), "finalizers");
    size_t i;
    json_t *f;
    json_array_foreach(fins, i, f) {
        if (json_is_string(f) && !em_obj_has_finalizer(old, json_string_value(f)))
            return true;
    }
    return false;
}

int em_write_update(struct em_api *a, struct em_write *w, json_t *old, json_t *obj)
{
    struct em_server *srv = a->srv;
    const struct nd_kind *k = a->kind;
    const char *name = em_obj_name(old);
    json_t *nm = em_obj_meta(obj);
    const char *rv = json_string_value(json_object_get(nm, "resourceVersion"));
    const char *cur = json_string_value(json_object_get(json_object_get(old, "metadata"),
                                                        "resourceVersion"));
    if (rv && *rv && (!cur || strcmp(rv, cur) != 0))
        return conflict(a, name);
    json_object_del(nm, "resourceVersion");
    carry_over(old, obj, w->status_only);
    /* a status write's carry_over replaces obj's metadata: nm would point at freed memory
     * (and the resourceVersion below would land in whatever took its place) */
    nm = em_obj_meta(obj);
    if (!w->status_only) {
        if (nd_kind_check_reserved(k, old, obj, &a->st) < 0)
            return -1;
        nd_kind_default(k, obj);
        if (nd_kind_is(k, ND_KIND_PROJECT)) /* kube-apiserver keeps it on every update */
            set_label(nm, "kubernetes.io/metadata.name", name);
    }
    if (validate(a, w, obj) < 0)
        return -1;
    if (!w->status_only && json_object_get(old, "status")) /* Nodus's, unpruned */
        json_object_set_new(obj, "status", json_deep_copy(json_object_get(old, "status")));
    if (!w->status_only && nd_kind_check_update(k, old, obj, &a->st) < 0)
        return -1;
    if (!w->status_only && admit(a, old, obj) < 0)
        return -1;
    if (json_object_get(json_object_get(old, "metadata"), "deletionTimestamp") &&
        adds_finalizer(old, obj)) {
        struct nd_field_errors errs;
        nd_field_errors_init(&errs);
        nd_field_errors_forbidden(&errs, "metadata.finalizers",
                                  "no new finalizers can be added if the object is being deleted");
        nd_field_errors_to_status(&errs, "Invalid", k, name, &a->st);
        nd_field_errors_release(&errs);
        return -1;
    }
    record_update(a, w, old, obj);
    /* Compare without resourceVersion: a write that changes nothing is not a change. */
    json_object_set(nm, "resourceVersion", json_object_get(json_object_get(old, "metadata"),
                                                           "resourceVersion"));
    em_obj_normalize(obj);
    if (w->dry_run) {
        json_t *gen = json_object_get(json_object_get(old, "metadata"), "generation");
        if (!nd_json_equal(json_object_get(old, "spec"), json_object_get(obj, "spec")))
            json_object_set_new(nm, "generation", json_integer(json_integer_value(gen) + 1));
        em_api_answer(a, 200, obj);
        return 0;
    }
    if (!w->status_only && check_if_match(a, obj) < 0)
        return -1;
    if (nd_json_equal(old, obj)) {
        em_api_answer(a, 200, old);
        return 0;
    }
    if (em_obj_update(srv, k, old, obj, &a->st) < 0)
        return -1;
    json_t *now_obj = em_store_get(&srv->store, k, a->ns, name);
    em_api_answer(a, 200, now_obj ? now_obj : obj);
    return 0;
}

int em_api_replace(struct em_api *a)
{
    struct em_write w;
    if (em_write_options(a, &w) < 0)
        return -1;
    json_t *old = em_store_get(&a->srv->store, a->kind, a->ns, a->path.name);
    if (!old)
        return em_api_not_found(a, a->path.name);
    json_t *obj = em_api_body(a, true);
    if (!obj)
        return -1;
    int rc = em_write_check_header(a, obj, a->path.name);
    if (rc == 0) {
        if (!json_object_get(json_object_get(obj, "metadata"), "managedFields"))
            json_object_set(em_obj_meta(obj), "managedFields",
                            json_object_get(json_object_get(old, "metadata"), "managedFields"));
        rc = em_write_update(a, &w, old, obj);
    }
    json_decref(obj);
    return rc;
}
