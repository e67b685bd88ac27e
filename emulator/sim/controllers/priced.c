/* priced.c: prices are never made up (see priced.h). */
#include "priced.h"

#include <string.h>
#include <strings.h>

#include "kinds/field_errors.h"
#include "kinds/object.h"
#include "kinds/schema.h"
#include "objects.h"
#include "pools.h"
#include "pricebook.h"
#include "util/money.h"
#include "util/suggest.h"

/* Adds the keys of object o to the array offered, once each. */
static void add_keys(json_t *offered, const json_t *o)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        bool seen = false;
        size_t i;
        json_t *x;
        json_array_foreach(offered, i, x) seen |= !strcmp(json_string_value(x), key);
        if (!seen)
            json_array_append_new(offered, json_string(key));
    }
}

json_t *em_offered_models(struct em_server *srv, const char *ns, const char *pool)
{
    json_t *offered = json_array();
    const json_t *gpu = json_object_get(em_pricebook(srv), "gpu");
    add_keys(offered, json_object_get(gpu, "market"));
    if (!pool)
        return offered;
    add_keys(offered, json_object_get(gpu, "pool"));
    json_t *hosts = em_pool_hosts(srv, ns, pool);
    size_t i;
    json_t *h;
    json_array_foreach(hosts, i, h) add_keys(offered, nd_obj_get(h, "spec.gpus"));
    json_decref(hosts);
    return offered;
}

struct walk {
    struct em_server *srv;
    const char *ns;
    const json_t *work; /* the nearest object with a placement: the one a GPU runs for */
    json_t *out;
};

static void check_model(struct walk *w, const char *field, const json_t *v)
{
    const char *pool = nd_obj_get_string(w->work, "placement.pool");
    const char *model = json_string_value(v);
    /* the market's price (what a running Job asks every minute): offered, no list made */
    if (json_object_get(json_object_get(json_object_get(em_pricebook(w->srv), "gpu"), "market"),
                        model))
        return;
    json_t *offered = em_offered_models(w->srv, w->ns, pool);
    size_t i;
    json_t *x;
    json_array_foreach(offered, i, x) {
        if (!strcmp(json_string_value(x), model)) {
            json_decref(offered);
            return;
        }
    }
    json_t *miss = json_pack("{s:s, s:O, s:o}", "field", field, "value", v, "offered", offered);
    if (pool)
        json_object_set_new(miss, "pool", json_string(pool));
    json_array_append_new(w->out, miss);
}

static void walk(struct walk *w, const json_t *schema, const json_t *v, struct nd_buf *path)
{
    schema = nd_schema_deref(schema);
    if (!schema || !v)
        return;
    const char *priced = json_string_value(json_object_get(schema, "x-nodus-priced"));
    if (priced && !strcmp(priced, "gpu") && json_is_string(v)) {
        check_model(w, path->data, v);
        return;
    }
    size_t len = path->len;
    if (json_is_object(v)) {
        const json_t *props = json_object_get(schema, "properties");
        const json_t *saved = w->work;
        if (json_object_get(props, "placement"))
            w->work = v;
        const char *key;
        json_t *child;
        json_object_foreach((json_t *)v, key, child) {
            const json_t *cs = json_object_get(props, key);
            if (!cs)
                continue;
            if (len) /* (not nd_buf_addf: a running Job's minute walks its spec) */
                nd_buf_addch(path, '.');
            nd_buf_adds(path, key);
            walk(w, cs, child, path);
            nd_buf_truncate(path, len);
        }
        w->work = saved;
    } else if (json_is_array(v)) {
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) {
            nd_buf_addf(path, "[%zu]", i);
            walk(w, json_object_get(schema, "items"), item, path);
            nd_buf_truncate(path, len);
        }
    }
}

json_t *em_unpriced(struct em_server *srv, const struct nd_kind *k, const json_t *obj)
{
    struct walk w = {.srv = srv, .ns = em_obj_ns(obj), .out = json_array()};
    const json_t *schema = k ? nd_kind_schema(k) : NULL;
    struct nd_buf path = ND_BUF_INIT;
    nd_buf_adds(&path, "spec");
    walk(&w, nd_schema_at(schema, "spec"), json_object_get(obj, "spec"), &path);
    nd_buf_release(&path);
    return w.out;
}

/* `"A100", "H100"` */
static void quoted_list(const json_t *arr, struct nd_buf *out)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x) nd_buf_addf(out, "%s\"%s\"", i ? ", " : "", json_string_value(x));
    if (!json_array_size(arr))
        nd_buf_adds(out, "none");
}

/* The closest offered model to what was typed, or NULL (BORROWED from miss). */
static const char *closest(const json_t *miss)
{
    struct nd_suggest s;
    nd_suggest_init(&s, json_string_value(json_object_get(miss, "value")));
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(miss, "offered"), i, x)
        nd_suggest_add(&s, json_string_value(x), NULL);
    const char *best = nd_suggest_count(&s) ? nd_suggest_at(&s, 0) : NULL;
    nd_suggest_release(&s);
    return best;
}

int em_priced_admit(struct em_admission *a, const json_t *old, json_t *obj)
{
    json_t *miss = em_unpriced(a->srv, a->kind, obj);
    struct nd_field_errors errs;
    nd_field_errors_init(&errs);
    size_t i;
    json_t *m;
    json_array_foreach(miss, i, m) {
        const char *field = json_string_value(json_object_get(m, "field"));
        const json_t *v = json_object_get(m, "value");
        /* an update keeps what the object already had: a model the price book dropped
         * since does not stop it being suspended or stopped (its status explains) */
        if (old && json_equal(nd_obj_get(old, field), v))
            continue;
        const char *pool = json_string_value(json_object_get(m, "pool"));
        struct nd_buf offered = ND_BUF_INIT;
        quoted_list(json_object_get(m, "offered"), &offered);
        const char *best = closest(m);
        struct nd_buf mean = ND_BUF_INIT;
        if (best)
            nd_buf_addf(&mean, "; did you mean \"%s\"?%s", best,
                        strcasecmp(best, json_string_value(v)) ? ""
                                                              : " (models are case-sensitive)");
        size_t first = nd_field_errors_count(&errs);
        nd_field_errors_invalid(&errs, field, v,
                                "no price for this GPU model: the price book%s%s%s %s%s",
                                pool ? " and pool/" : "", pool ? pool : "",
                                pool ? "'s hosts offer" : " offers", offered.data, mean.data);
        if (best)
            nd_field_errors_fix(&errs, first,
                                "set %s to \"%s\", then review the estimate again with "
                                "--dry-run=server",
                                field, best);
        else
            nd_field_errors_fix(&errs, first, "set %s to one of the offered models (%s)%s",
                                field, offered.data,
                                pool ? ", or enroll a Host carrying it in the Pool" : "");
        nd_buf_release(&offered);
        nd_buf_release(&mean);
    }
    int rc = nd_field_errors_to_status(&errs, "Invalid", a->kind, em_obj_name(obj), a->st);
    nd_field_errors_release(&errs);
    json_decref(miss);
    return rc;
}

int64_t em_ctl_spec_rate(struct em_ctl *c, int64_t charged)
{
    const json_t *spec = json_object_get(c->obj, "spec");
    int64_t rate = em_spec_rate(c->srv, c->k->plural, spec);
    json_t *miss = em_unpriced(c->srv, c->k, c->obj);
    /* (a running Job's next minute takes it from here: job_minute.c) */
    c->money->priced_ok = !json_array_size(miss);
    c->money->priced_rate = rate;
    c->money->priced_book = em_pricebook_serial(c->srv);
    if (!json_array_size(miss)) {
        em_ctl_sim_set(c, "pricedRate", rate);
        if (em_ctl_condition_true(c, "Unpriced"))
            em_ctl_condition(c, "Unpriced", false, "Priced",
                             "every GPU model it asks for has a price again");
        json_decref(miss);
        return rate;
    }
    int64_t last = em_ctl_sim_get(c, "pricedRate", -1);
    const json_t *m = json_array_get(miss, 0);
    struct nd_buf msg = ND_BUF_INIT, money = ND_BUF_INIT;
    nd_buf_addf(&msg, "%s \"%s\" is no longer in the price book",
                json_string_value(json_object_get(m, "field")),
                json_string_value(json_object_get(m, "value")));
    if (json_object_get(m, "pool"))
        nd_buf_addf(&msg, " nor carried by the hosts of pool/%s",
                    json_string_value(json_object_get(m, "pool")));
    if (charged >= 0) {
        nd_money_format(charged, &money);
        nd_buf_addf(&msg, "; it keeps the rate it runs at, %s USD per hour "
                          "(status.rateUSDPerHour)",
                    money.data);
        rate = charged;
    } else if (last >= 0) {
        nd_money_format(last, &money);
        nd_buf_addf(&msg, "; its spec is charged %s USD per hour, its last priced rate, until the "
                          "price book prices the model again",
                    money.data);
        rate = last;
    } else {
        nd_money_format(rate, &money);
        nd_buf_addf(&msg, "; no price was ever known for it: it is charged %s USD per hour, "
                          "without its GPUs, until the price book prices the model",
                    money.data);
    }
    em_ctl_condition(c, "Unpriced", true, "ModelNotPriced", msg.data);
    nd_buf_release(&msg);
    nd_buf_release(&money);
    json_decref(miss);
    return rate;
}
