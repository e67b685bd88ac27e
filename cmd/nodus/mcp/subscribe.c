/* subscribe.c: resources/subscribe and resources/unsubscribe.
 *
 * A subscription is a job without a request id (mcp_job_start with its uri): its child
 * follows the object with the CLI's watch of one object (watchobj.c: it resumes from the
 * last resourceVersion when the connection drops, and gets the object again and watches
 * from there after 410 Expired) and writes a notifications/resources/updated {uri} each
 * time the object's resourceVersion changes (or it comes or goes). The job has no id, so
 * the end of the session (stdin's end, the HTTP session's) ends it, as unsubscribe does.
 *
 * The child answers the subscribe request itself, through the pipe's {"notify": MESSAGE}
 * line (a message sent on as it is), once it has read the object: a change made after
 * the answer is never missed. A child that cannot read it answers the error instead. */
#include <string.h>
#include <time.h>

#include "kinds/registry.h"
#include "mcp.h"
#include "watchobj.h"

/* Subscriptions a session may hold (each is a process with a watch open). */
#define MAX_SUBSCRIPTIONS 64
/* The longest pause between two watches when they keep failing, in seconds. */
#define RETRY_MAX_S 30

struct sub_body {
    struct mcp_server *srv;
    const json_t *id;
    const char *uri;
    struct mcp_uri u;
    int log_level;
};

/* What the child knows of the object: its resourceVersion ("" absent). */
struct follow_state {
    const struct sub_body *b;
    int fd;
    bool answered;
    char rv[128];
};

static void send_message(int fd, json_t *msg)
{
    mcp_child_write(fd, json_pack("{s:o}", "notify", msg));
}

static int on_change(void *cls, const char *type, const json_t *obj, struct nd_status *st)
{
    (void)st;
    struct follow_state *f = cls;
    const char *rv =
        json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
    if (!rv || (type && !strcmp(type, "DELETED")))
        rv = "";
    if (!f->answered) {
        f->answered = true;
        send_message(f->fd, mcp_response(f->b->id, json_object()));
    } else if (strcmp(f->rv, rv) != 0) {
        send_message(f->fd, mcp_notification("notifications/resources/updated",
                                             json_pack("{s:s}", "uri", f->b->uri)));
    }
    snprintf(f->rv, sizeof f->rv, "%s", rv);
    return 0; /* never done: the job ends when it is cancelled */
}

static void warn(const struct follow_state *f, const struct nd_status *st, int delay)
{
    if (MCP_WARNING < f->b->log_level)
        return;
    char text[600];
    snprintf(text, sizeof text, "the watch of %s failed (%s); watching it again in %d s", f->b->uri,
             st->message ? st->message : "no answer", delay);
    send_message(f->fd, mcp_notification("notifications/message",
                                         json_pack("{s:s, s:s, s:s}", "level", "warning", "logger",
                                                   "resources", "data", text)));
}

static void run_subscription(int fd, void *cls)
{
    struct sub_body *b = cls;
    struct follow_state f = {.b = b, .fd = fd};
    struct nd_watch_opts o = {.fn = on_change, .cls = &f, .what = b->uri};
    int delay = 1;
    for (;;) {
        struct nd_status st = ND_STATUS_INIT;
        nd_watch_object(b->srv->ctx, b->u.k, b->u.k->namespaced ? b->u.project : NULL, b->u.name,
                        &o, &st);
        if (!f.answered) { /* the object could not be read: the subscription's error */
            send_message(fd, mcp_status_error(b->id, MCP_INTERNAL_ERROR, b->uri, &st));
            nd_status_release(&st);
            return;
        }
        warn(&f, &st, delay);
        nd_status_release(&st);
        nanosleep(&(struct timespec){delay, 0}, NULL);
        delay = delay * 2 > RETRY_MAX_S ? RETRY_MAX_S : delay * 2;
    }
}

static struct mcp_job *find(struct mcp_session *s, const char *uri, int *count)
{
    struct mcp_job *found = NULL;
    *count = 0;
    for (struct mcp_job *j = s->srv->jobs; j; j = j->next)
        if (j->sess == s && !j->id && j->uri) {
            ++*count;
            if (!strcmp(j->uri, uri))
                found = j;
        }
    return found;
}

/* params.uri, checked: NULL after answering the error. */
static const char *checked_uri(struct mcp_session *s, const struct mcp_message *m,
                               struct mcp_uri *u)
{
    const char *uri = json_string_value(json_object_get(m->params, "uri"));
    struct nd_status st = ND_STATUS_INIT;
    int code = MCP_INVALID_PARAMS;
    if (!uri)
        nd_status_set(&st, "BadRequest", "resources/list names the resources",
                      "%s needs params.uri", m->method);
    else
        code = mcp_uri_parse(s->srv->cfg, uri, u, &st);
    if (code && m->id)
        s->send(s, mcp_status_error(m->id, code, uri, &st));
    nd_status_release(&st);
    return code ? NULL : uri;
}

void mcp_on_resources_subscribe(struct mcp_session *s, const struct mcp_message *m)
{
    struct sub_body b = {s->srv, m->id ? m->id : json_null(), NULL, {0}, s->log_level};
    if (!(b.uri = checked_uri(s, m, &b.u)))
        return;
    int count;
    if (find(s, b.uri, &count)) { /* subscribed already: one watch is enough */
        if (m->id)
            s->send(s, mcp_response(m->id, json_object()));
        return;
    }
    if (count >= MAX_SUBSCRIPTIONS) {
        if (m->id)
            s->send(s, mcp_error(m->id, MCP_INVALID_PARAMS,
                                 "a session holds at most 64 subscriptions: unsubscribe from "
                                 "one first"));
        return;
    }
    if (!mcp_job_start(s, NULL, b.uri, run_subscription, &b) && m->id)
        s->send(s, mcp_error(m->id, MCP_INTERNAL_ERROR,
                             "could not start the subscription (fork failed)"));
}

void mcp_on_resources_unsubscribe(struct mcp_session *s, const struct mcp_message *m)
{
    struct mcp_uri u;
    const char *uri = checked_uri(s, m, &u);
    if (!uri)
        return;
    int count;
    struct mcp_job *j = find(s, uri, &count);
    if (j)
        mcp_job_cancel(j);
    if (m->id)
        s->send(s, mcp_response(m->id, json_object()));
}
