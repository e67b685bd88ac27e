/* /emulator/v1: reset, stats, faults (the clock, price book and snapshots join them with
 * the simulation). */
#include "admin.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errors.h"
#include "line_stream.h"
#include "objects.h"
#include "pricebook.h"
#include "route.h"
#include "sim.h"
#include "util/buf.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* One injected fault: the object as posted, its compiled path pattern and how many
 * more requests it answers (-1: until cleared). */
struct em_fault {
    json_t *spec;
    regex_t rx;
    bool has_rx;
    json_int_t left;
};

struct em_faults {
    struct em_fault *v;
    size_t len, cap;
};

static void fault_remove(struct em_faults *fs, size_t i)
{
    json_decref(fs->v[i].spec);
    if (fs->v[i].has_rx)
        regfree(&fs->v[i].rx);
    memmove(fs->v + i, fs->v + i + 1, (fs->len - i - 1) * sizeof *fs->v);
    fs->len--;
}

void em_faults_release(struct em_server *srv)
{
    struct em_faults *fs = srv->faults;
    if (!fs)
        return;
    while (fs->len)
        fault_remove(fs, fs->len - 1);
    free(fs->v);
    free(fs);
    srv->faults = NULL;
}

static struct em_faults *faults(struct em_server *srv)
{
    if (!srv->faults)
        srv->faults = nd_xcalloc(1, sizeof *srv->faults);
    return srv->faults;
}

static int add_fault(struct em_server *srv, const json_t *body, struct nd_status *st)
{
    if (!json_is_object(body))
        return nd_status_set(st, "BadRequest", NULL, "a fault is a JSON object: "
                             "{\"path\":\"regex\",\"verb\":\"GET\",\"status\":503,\"count\":3,"
                             "\"delayMs\":0}");
    const char *path = json_string_value(json_object_get(body, "path"));
    const char *verb = json_string_value(json_object_get(body, "verb"));
    json_t *status = json_object_get(body, "status");
    json_t *count = json_object_get(body, "count");
    json_t *delay = json_object_get(body, "delayMs");
    json_t *retry = json_object_get(body, "retryAfterSeconds");
    if (json_object_get(body, "path") && !path)
        return nd_status_set(st, "Invalid", NULL, "path: must be a string (a regular expression)");
    if (json_object_get(body, "verb") && !verb)
        return nd_status_set(st, "Invalid", NULL, "verb: must be a string such as GET");
    if (status && (!json_is_integer(status) || (json_integer_value(status) != 0 &&
                                                (json_integer_value(status) < 400 ||
                                                 json_integer_value(status) > 599))))
        return nd_status_set(st, "Invalid", NULL, "status: must be an HTTP error code 400-599 "
                                                  "(or 0 for a delay only)");
    if (count && (!json_is_integer(count) || json_integer_value(count) < 1))
        return nd_status_set(st, "Invalid", NULL, "count: must be an integer >= 1");
    if (delay && (!json_is_integer(delay) || json_integer_value(delay) < 0 ||
                  json_integer_value(delay) > 60000))
        return nd_status_set(st, "Invalid", NULL, "delayMs: must be an integer 0-60000");
    if (retry && (!json_is_integer(retry) || json_integer_value(retry) < 0))
        return nd_status_set(st, "Invalid", NULL, "retryAfterSeconds: must be an integer >= 0");
    struct em_fault f = {0};
    if (path) {
        if (regcomp(&f.rx, path, REG_EXTENDED | REG_NOSUB) != 0)
            return nd_status_set(st, "Invalid", NULL,
                                 "path: %s is not a valid extended regular expression", path);
        f.has_rx = true;
    }
    f.spec = json_deep_copy(body);
    if (!status)
        json_object_set_new(f.spec, "status", json_integer(503));
    f.left = count ? json_integer_value(count) : -1;
    struct em_faults *fs = faults(srv);
    if (fs->len == fs->cap) {
        fs->cap = fs->cap ? fs->cap * 2 : 8;
        fs->v = nd_xrealloc(fs->v, fs->cap * sizeof *fs->v);
    }
    fs->v[fs->len++] = f;
    return 0;
}

int em_faults_check(struct em_server *srv, const struct em_req *req, const struct em_route *rt,
                    struct em_resp *resp, int64_t *delay_ms)
{
    *delay_ms = 0;
    struct em_faults *fs = srv->faults;
    if (rt->target == EM_TO_CONTROL || em_route_open(rt))
        return 0; /* the operator's way in and out is never broken */
    for (size_t i = 0; fs && i < fs->len; i++) {
        struct em_fault *f = &fs->v[i];
        const char *verb = json_string_value(json_object_get(f->spec, "verb"));
        if (verb && strcasecmp(verb, rt->method) != 0)
            continue;
        if (f->has_rx && regexec(&f->rx, rt->path, 0, NULL, 0) != 0)
            continue;
        int code = (int)json_integer_value(json_object_get(f->spec, "status"));
        *delay_ms += json_integer_value(json_object_get(f->spec, "delayMs"));
        json_int_t retry = json_integer_value(json_object_get(f->spec, "retryAfterSeconds"));
        if (f->left > 0 && --f->left == 0) {
            fault_remove(fs, i);
            i--;
        }
        if (!code)
            continue; /* a delay only: later faults may still answer */
        struct nd_status st = ND_STATUS_INIT;
        nd_status_setc(&st, code, nd_reason_for_http_code(code), "retry the request",
                       "injected fault: %s %s answers %d", req->method, req->path, code);
        if (retry > 0 || code == 429 || code == 503) {
            json_object_set_new(nd_status_details(&st), "retryAfterSeconds",
                                json_integer(retry > 0 ? retry : 1));
        }
        em_resp_status(srv, req, resp, &st);
        nd_status_release(&st);
        return 1;
    }
    return 0;
}

static json_t *public_faults(struct em_server *srv)
{
    json_t *out = json_array();
    struct em_faults *fs = srv->faults;
    for (size_t i = 0; fs && i < fs->len; i++) {
        json_t *c = json_deep_copy(fs->v[i].spec);
        if (fs->v[i].left > 0)
            json_object_set_new(c, "count", json_integer(fs->v[i].left));
        json_array_append_new(out, c);
    }
    return out;
}

static json_t *clock_json(struct em_server *srv)
{
    char now[32];
    return json_pack("{sssIsf}", "now", em_now_rfc3339(srv, now), "nowMs",
                     (json_int_t)em_clock_now_ms(&srv->clock), "speed", srv->clock.speed);
}

/* GET clock?watch=true: a stream of clock lines, the clock first and then again
 * whenever it changes other than by flowing at its speed (clock.gen: an advance, a speed
 * change, a reset, a snapshot restore). A reader that falls behind is never queued for:
 * it gets the newest clock once. Ends at shutdown, at timeoutSeconds, or when the client
 * goes away (line_stream.h). */
struct clock_watch {
    uint64_t gen_sent;
    bool started;
};

static void clock_fill(struct em_line_stream *ls, void *cls)
{
    struct clock_watch *w = cls;
    if (w->started && w->gen_sent == ls->srv->clock.gen)
        return;
    w->started = true;
    w->gen_sent = ls->srv->clock.gen;
    em_line_stream_add(ls, NULL, clock_json(ls->srv));
}

/* watch=true (any ParseBool true): a stream (0); false or absent: not (1); anything else:
 * -1 with st. */
static int clock_watch_start(struct em_server *srv, const struct em_req *req,
                             struct em_resp *resp, struct nd_status *st)
{
    bool watch;
    int64_t timeout_s;
    if (em_line_stream_query(req, &watch, &timeout_s, st) < 0)
        return -1;
    if (!watch)
        return 1;
    struct clock_watch *w = nd_xcalloc(1, sizeof *w);
    em_line_stream_start(srv, resp, timeout_s, clock_fill, w, free);
    return 0;
}

/* POST clock: {"advance": "2h"} jumps the clock; {"speed": 10} changes its rate. */
static int clock_post(struct em_server *srv, const struct em_req *req, struct nd_status *st)
{
    json_error_t jerr;
    json_t *body = json_loadb(req->body.data, req->body.len, JSON_REJECT_DUPLICATES, &jerr);
    int rc = -1;
    if (!json_is_object(body)) {
        nd_status_set(st, "BadRequest", "send {\"advance\": \"2h\"}",
                      "the body must be a JSON object such as {\"advance\": \"2h\"}");
        goto out;
    }
    json_t *adv = json_object_get(body, "advance");
    json_t *speed = json_object_get(body, "speed");
    if (!adv && !speed) {
        nd_status_set(st, "BadRequest", "send {\"advance\": \"2h\"}",
                      "nothing to do: give advance (a duration) or speed (a number)");
        goto out;
    }
    int64_t ms = 0;
    if (adv) {
        if (!json_is_string(adv)) {
            nd_status_set(st, "Invalid", NULL, "advance: must be a duration such as \"90s\"");
            goto out;
        }
        if (nd_duration_parse(json_string_value(adv), &ms, st) < 0) {
            nd_status_prefix(st, "advance");
            goto out;
        }
        if (ms < 0) {
            nd_status_set(st, "Invalid", NULL, "advance: the clock only moves forward");
            goto out;
        }
    }
    if (speed && (!json_is_number(speed) || !(json_number_value(speed) >= 0) ||
                  json_number_value(speed) > 1e6)) {
        nd_status_set(st, "Invalid", NULL, "speed: must be a number from 0 (stopped) to 1000000");
        goto out;
    }
    if (speed)
        em_clock_set_speed(&srv->clock, json_number_value(speed));
    em_sim_advance(srv, ms);
    rc = 0;
out:
    json_decref(body);
    return rc;
}

void em_admin_handle(struct em_server *srv, const struct em_req *req, struct em_resp *resp,
                     const char *rest)
{
    struct nd_status st = ND_STATUS_INIT;
    bool get = strcmp(req->method, "GET") == 0;
    bool post = strcmp(req->method, "POST") == 0;
    bool del = strcmp(req->method, "DELETE") == 0;
    enum em_control to = em_route_control(req->method, rest);
    if (to == EM_CONTROL_STATS) {
        json_t *j = em_stats_json(srv);
        em_resp_json(resp, 200, j);
        json_decref(j);
    } else if (to == EM_CONTROL_RESET) {
        if (em_reset_state(srv, &st) < 0)
            goto fail;
        json_t *j = json_pack("{ss}", "status", "reset");
        em_resp_json(resp, 200, j);
        json_decref(j);
    } else if (to == EM_CONTROL_CLOCK) {
        int w = get ? clock_watch_start(srv, req, resp, &st) : 1;
        if (w < 0)
            goto fail;
        if (w == 0)
            goto done;
        if (post && clock_post(srv, req, &st) < 0)
            goto fail;
        json_t *j = clock_json(srv);
        em_resp_json(resp, 200, j);
        json_decref(j);
    } else if (to == EM_CONTROL_PRICEBOOK) {
        if (get)
            em_pricebook_poll(srv);
        else if (em_pricebook_put(srv, req->body.data, req->body.len, &st) < 0)
            goto fail;
        char v[32];
        snprintf(v, sizeof v, "\"%lld\"", (long long)em_pricebook_version(srv));
        em_resp_set_header(resp, "ETag", v);
        em_resp_json(resp, 200, em_pricebook(srv));
    } else if (to == EM_CONTROL_SPEND) {
        if (em_spend_handle(srv, req, resp, &st) < 0)
            goto fail;
    } else if (to == EM_CONTROL_SNAPSHOTS) {
        if (em_snapshot_handle(srv, req, resp, rest + 9, &st) < 0)
            goto fail;
    } else if (to == EM_CONTROL_FAULTS) {
        if (post) {
            json_error_t jerr;
            json_t *body = json_loadb(req->body.data, req->body.len, JSON_REJECT_DUPLICATES, &jerr);
            if (!body) {
                nd_status_set(&st, "BadRequest", NULL, "body: line %d, column %d: %s", jerr.line,
                              jerr.column, jerr.text);
                goto fail;
            }
            int rc = 0;
            if (json_is_array(body)) {
                size_t i;
                json_t *f;
                json_array_foreach(body, i, f) if ((rc = add_fault(srv, f, &st)) < 0) break;
            } else {
                rc = add_fault(srv, body, &st);
            }
            json_decref(body);
            if (rc < 0)
                goto fail;
        } else if (del) {
            em_faults_release(srv);
        }
        json_t *list = public_faults(srv);
        json_t *j = json_pack("{so}", "faults", list);
        em_resp_json(resp, post ? 201 : 200, j);
        json_decref(j);
    } else if (to == EM_CONTROL_METHOD) {
        nd_status_set(&st, "MethodNotAllowed", NULL, "%s is not served on %s", req->method,
                      req->path);
        goto fail;
    } else {
        nd_status_set(&st, "NotFound", "see nodus-emulator(1) for the control endpoints",
                      "no control endpoint %s", req->path);
        goto fail;
    }
done:
    nd_status_release(&st);
    return;
fail:
    em_resp_status(srv, req, resp, &st);
    nd_status_release(&st);
}
