/* The simulated log (--runtime simulate): a believable, deterministic log generated
 * from an object's status on the emulated clock; see logs.h.
 *
 * A Job prints an image pull and its start when it enters Running, then one progress
 * line per minute of run time (step, loss, learning rate, throughput; a checkpoint every
 * five minutes), then how it ended. The numbers come from a counter-based generator
 * seeded by the uid, so line k is the same whenever and however often it is asked for,
 * and a resumed Job goes on from the step it had reached. Long-running kinds print their
 * start and how they stopped. Every line's time has a nanosecond part from the same
 * generator, so timestamps look like a kubelet's and stay the same.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/phase.h"
#include "loglines.h"
#include "pricebook.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define MINUTE_MS 60000

/* splitmix64 */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t seed, uint64_t a, uint64_t b)
{
    return mix(seed ^ mix(a * 0x100000001b3ULL + b));
}

/* [0, 1) */
static double unit(uint64_t seed, uint64_t a, uint64_t b)
{
    return (double)(rnd(seed, a, b) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t seed_of(const json_t *obj)
{
    const char *uid =
        json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid"));
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (const char *p = uid ? uid : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    return h;
}

/* Lines printed at the same millisecond get increasing nanoseconds. */
struct out {
    struct em_log_lines *lines;
    uint64_t seed;
    int64_t now;    /* emulated ms: nothing later is printed */
    int64_t at;     /* the millisecond of the last line */
    int64_t sub;    /* its nanoseconds within that millisecond */
    uint64_t count; /* lines so far */
};

static bool emit(struct out *o, int64_t ms, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool emit(struct out *o, int64_t ms, const char *fmt, ...)
{
    if (ms > o->now)
        return false;
    if (ms != o->at) {
        o->at = ms;
        o->sub = (int64_t)(rnd(o->seed, 7, o->count) % 900000);
    } else {
        o->sub += 1000 + (int64_t)(rnd(o->seed, 8, o->count) % 9000);
        if (o->sub > 999999)
            o->sub = 999999;
    }
    struct nd_buf b = ND_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    nd_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    em_log_addn(o->lines, ms * 1000000 + o->sub, b.data, b.len);
    nd_buf_release(&b);
    o->count++;
    return true;
}

static const json_t *status_of(const json_t *obj)
{
    return json_object_get(obj, "status");
}

static int64_t sim_get(const json_t *obj, const char *key, int64_t def)
{
    const json_t *v = json_object_get(json_object_get(status_of(obj), "simulation"), key);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

static int64_t time_ms(const json_t *parent, const char *field)
{
    const char *s = json_string_value(json_object_get(parent, field));
    int64_t sec;
    struct nd_status st = ND_STATUS_INIT;
    int64_t ms = s && nd_time_parse(s, &sec, &st) == 0 ? sec * 1000 : -1;
    nd_status_release(&st);
    return ms;
}

static const char *str(const json_t *parent, const char *field)
{
    const char *s = json_string_value(json_object_get(parent, field));
    return s ? s : "";
}

static const char *phase_of(const json_t *obj)
{
    return str(status_of(obj), "phase");
}

static bool deleting(const json_t *obj)
{
    return json_object_get(json_object_get(obj, "metadata"), "deletionTimestamp") != NULL;
}

/* A container run to completion (a Job), not a Pipeline of them nor a PoolAction. */
static bool runs_container(const struct nd_kind *k)
{
    return nd_kind_is(k, ND_KIND_BILLED | ND_KIND_COMPUTE) && k->family == ND_FAMILY_RUN;
}

int64_t em_logsim_run(const struct nd_kind *k, const json_t *obj, bool *ended)
{
    enum nd_phase phase = nd_phase_of(obj);
    const json_t *status = status_of(obj);
    int64_t run = -1;
    *ended = false;
    if (k->family == ND_FAMILY_RUN) {
        run = sim_get(obj, "runStart", -1);
        if (run < 0)
            run = time_ms(status, "startTime");
        bool stopped = sim_get(obj, "runEnd", -1) >= 0 || run < 0 ||
                       time_ms(status, "completionTime") >= 0;
        *ended = nd_phase_ended(phase) || (deleting(obj) && stopped);
    } else {
        bool running = phase == ND_PHASE_RUNNING;
        run = running ? sim_get(obj, "phaseTime", -1) : -1;
        if (run < 0)
            run = time_ms(status, "startTime");
        *ended = phase == ND_PHASE_STOPPED || phase == ND_PHASE_TERMINATING || deleting(obj);
    }
    return run;
}

/* The image's digest from the catalogue (project nodus), else one derived from its name. */
static void image_ref(struct em_server *srv, const char *image, struct nd_buf *out)
{
    nd_buf_adds(out, image);
    const char *digest = NULL;
    if (strncmp(image, "nodus/", 6) == 0) {
        const char *colon = strchr(image + 6, ':');
        char *name = colon ? nd_xstrndup(image + 6, (size_t)(colon - image - 6)) : NULL;
        json_t *img =
            name ? em_store_get(&srv->store, nd_kind_by_plural(NULL, "images"), "nodus", name)
                 : NULL;
        size_t i;
        json_t *t;
        json_array_foreach(json_object_get(json_object_get(img, "spec"), "tags"), i, t) {
            if (!strcmp(str(t, "tag"), colon + 1))
                digest = json_string_value(json_object_get(t, "digest"));
        }
        free(name);
    }
    if (digest) {
        nd_buf_addf(out, "@%s", digest);
        return;
    }
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *p = image; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    nd_buf_adds(out, "@sha256:");
    for (int i = 0; i < 4; i++)
        nd_buf_addf(out, "%016llx", (unsigned long long)mix(h + (uint64_t)i));
}

/* spec.command and spec.args as a person would type them. */
static void command_line(const json_t *spec, const char *def, struct nd_buf *out)
{
    size_t before = out->len;
    const char *parts[] = {"command", "args"};
    for (int p = 0; p < 2; p++) {
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(spec, parts[p]), i, a) {
            const char *s = json_string_value(a);
            if (!s)
                continue;
            if (out->len > before)
                nd_buf_addch(out, ' ');
            bool plain = *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_./=:,+@%") == strlen(s);
            if (plain) {
                nd_buf_adds(out, s);
                continue;
            }
            nd_buf_addch(out, '\'');
            for (const char *c = s; *c; c++) {
                if (*c == '\'')
                    nd_buf_adds(out, "'\\''");
                else
                    nd_buf_addch(out, *c);
            }
            nd_buf_addch(out, '\'');
        }
    }
    if (out->len == before)
        nd_buf_adds(out, def);
}

static void header(struct out *o, struct em_server *srv, const json_t *obj, int64_t at,
                   const char *def_cmd, const char *where)
{
    const json_t *spec = json_object_get(obj, "spec");
    const char *image = str(spec, "image");
    struct nd_buf ref = ND_BUF_INIT, cmd = ND_BUF_INIT;
    image_ref(srv, *image ? image : "nodus/base:latest", &ref);
    command_line(spec, def_cmd, &cmd);
    emit(o, at, "[nodus] pulling image %s", *image ? image : "nodus/base:latest");
    emit(o, at, "[nodus] pulled image %s", ref.data);
    emit(o, at, "[nodus] starting%s: %s", where, cmd.data);
    nd_buf_release(&ref);
    nd_buf_release(&cmd);
}

/* " on market, 1x H100" from the placement and the GPU asked for. */
static void where_of(const json_t *obj, struct nd_buf *out)
{
    const json_t *placement = json_object_get(status_of(obj), "placement");
    const json_t *gpu =
        json_object_get(json_object_get(json_object_get(obj, "spec"), "resources"), "gpu");
    const char *target = str(placement, "target");
    if (*target)
        nd_buf_addf(out, " on %s", target);
    const char *model = str(gpu, "model");
    if (*model) {
        json_int_t n = json_integer_value(json_object_get(gpu, "count"));
        nd_buf_addf(out, "%s %lldx %s", *target ? "," : " with", (long long)(n > 0 ? n : 1),
                    model);
    }
}

static double gpu_speed(const json_t *obj)
{
    const json_t *gpu =
        json_object_get(json_object_get(json_object_get(obj, "spec"), "resources"), "gpu");
    const char *model = str(gpu, "model");
    json_int_t n = json_integer_value(json_object_get(gpu, "count"));
    static const struct {
        const char *model;
        double speed;
    } speeds[] = {{"H100", 2900}, {"A100", 1500}, {"L40S", 1050}, {"L4", 420}};
    double s = *model ? 800 : 45;
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
        if (!strcmp(model, speeds[i].model))
            s = speeds[i].speed;
    return s * (double)(n > 1 ? n : 1);
}

/* Why a Job's run stopped, for its last lines ("" when it exited by itself). */
static const char *job_stop_reason(const json_t *obj)
{
    enum nd_phase phase = nd_phase_of(obj);
    const char *reason = str(status_of(obj), "reason");
    if (phase == ND_PHASE_SUCCEEDED || (phase == ND_PHASE_FAILED && !strcmp(reason, "Error")))
        return "";
    if (!strcmp(reason, "MaxCostReached"))
        return "the cost reached maxCostUSD";
    if (!strcmp(reason, "DeadlineExceeded"))
        return "the run reached maxDuration";
    if (!strcmp(reason, "BudgetExceeded"))
        return "the project's Budget was exceeded";
    if (phase == ND_PHASE_CANCELLED)
        return "the Job was cancelled";
    if (deleting(obj))
        return "the Job is being deleted";
    if (phase == ND_PHASE_QUEUED || phase == ND_PHASE_PROVISIONING)
        return "the Job was suspended";
    const char *msg = str(status_of(obj), "message");
    return *msg ? msg : "the run was stopped";
}

static int64_t planned_ms(struct em_server *srv, const json_t *obj)
{
    const char *v = json_string_value(json_object_get(
        json_object_get(json_object_get(obj, "metadata"), "annotations"),
        "emulator.nodus.dev/duration"));
    int64_t ms = -1;
    struct nd_status st = ND_STATUS_INIT;
    if (!v || nd_duration_parse(v, &ms, &st) < 0 || ms <= 0)
        ms = em_delay_ms(srv, "jobRun");
    nd_status_release(&st);
    return ms > 0 ? ms : MINUTE_MS;
}

static void job_log(struct out *o, struct em_server *srv, const json_t *obj, int64_t start)
{
    uint64_t seed = o->seed;
    int64_t from = sim_get(obj, "runFrom", 0);
    int64_t end = sim_get(obj, "runEnd", -1);
    enum nd_phase phase = nd_phase_of(obj);
    if (end < 0 && (nd_phase_ended(phase) || deleting(obj)))
        end = time_ms(status_of(obj), "completionTime");
    if (end >= 0 && end < start)
        end = start;
    int64_t minutes = (planned_ms(srv, obj) + MINUTE_MS - 1) / MINUTE_MS;
    int64_t per_min = 50 * (int64_t)(2 + rnd(seed, 1, 0) % 9);
    int64_t total = minutes * per_min;
    int64_t batch = 32 * (int64_t)(1 + rnd(seed, 2, 0) % 8);
    double loss0 = 2.2 + unit(seed, 3, 0) * 0.8, loss_end = 0.25 + unit(seed, 4, 0) * 0.35;
    double lr0 = (double)(1 + rnd(seed, 5, 0) % 9) * 1e-4;
    double speed = gpu_speed(obj);

    struct nd_buf where = ND_BUF_INIT;
    where_of(obj, &where);
    header(o, srv, obj, start, "the image's default command", where.data);
    nd_buf_release(&where);
    if (from >= MINUTE_MS)
        emit(o, start, "resuming from checkpoint step-%lld",
             (long long)(from / MINUTE_MS * per_min));
    else
        emit(o, start, "training: %lld steps, batch size %lld", (long long)total,
             (long long)batch);

    /* one line per minute of run time, at the emulated time it was reached */
    int64_t upto = (end >= 0 ? end : o->now) - start + from;
    int64_t k = from / MINUTE_MS + 1;
    double loss = loss0;
    for (; k * MINUTE_MS <= upto; k++) {
        int64_t at = start + (k * MINUTE_MS - from);
        double x = (double)k / (double)minutes;
        loss = loss_end + (loss0 - loss_end) / (1.0 + 4.0 * x);
        loss *= 1.0 + (unit(seed, 10, (uint64_t)k) - 0.5) * 0.04;
        double lr = lr0 * (x < 1 ? 1.0 - 0.9 * x : 0.1);
        double tput = speed * (0.97 + unit(seed, 11, (uint64_t)k) * 0.06);
        int64_t step = k * per_min < total ? k * per_min : total;
        if (!emit(o, at, "step %lld/%lld | loss %.4f | lr %.1e | %.1f samples/s", (long long)step,
                  (long long)total, loss, lr, tput))
            break;
        if (k % 5 == 0)
            emit(o, at, "saved checkpoint step-%lld", (long long)step);
    }
    if (end < 0 || end > o->now)
        return;
    int64_t reached = (end - start + from) / MINUTE_MS * per_min;
    if (reached > total)
        reached = total;
    const char *why = job_stop_reason(obj);
    if (!*why && phase == ND_PHASE_SUCCEEDED) {
        emit(o, end, "training finished: %lld steps, final loss %.4f", (long long)total, loss);
        emit(o, end, "[nodus] the command exited with code 0");
    } else if (!*why) {
        json_int_t code = json_integer_value(json_object_get(status_of(obj), "exitCode"));
        emit(o, end, "RuntimeError: CUDA error: an illegal memory access was encountered "
                     "(step %lld)", (long long)reached);
        emit(o, end, "[nodus] the command exited with code %lld", (long long)(code ? code : 1));
    } else {
        emit(o, end, "[nodus] stopping the command (SIGTERM): %s", why);
        emit(o, end, "received SIGTERM: saved checkpoint step-%lld", (long long)reached);
        emit(o, end, "[nodus] the command stopped");
    }
}

static const char *longrun_stop_reason(const json_t *obj)
{
    const char *reason = str(status_of(obj), "reason");
    if (deleting(obj) || nd_phase_of(obj) == ND_PHASE_TERMINATING)
        return "being deleted";
    if (!strcmp(reason, "IdleTimeout"))
        return "no exec session for spec.idleTimeout";
    if (!strcmp(reason, "Stopped"))
        return "spec.state is Stopped";
    if (!strcmp(reason, "MaxCostReached"))
        return "the cost reached maxCostUSD";
    if (!strcmp(reason, "Restarted"))
        return "a restart was requested";
    const char *msg = str(status_of(obj), "message");
    return *msg ? msg : "stopped";
}

static void longrun_log(struct out *o, struct em_server *srv, const struct nd_kind *k,
                        const json_t *obj, int64_t start)
{
    const json_t *spec = json_object_get(obj, "spec");
    enum nd_phase phase = nd_phase_of(obj);
    bool interactive = nd_kind_has_subresource(k, "exec"); /* a Sandbox */
    header(o, srv, obj, start, interactive ? "/bin/sh" : "the image's default command", "");
    if (interactive) {
        const char *idle = str(spec, "idleTimeout");
        const char *shell = json_string_value(json_array_get(json_object_get(spec, "command"), 0));
        const char *base = shell && strrchr(shell, '/') ? strrchr(shell, '/') + 1 : shell;
        emit(o, start, "[nodus] ready: open a shell with nodus exec -it sandbox/%s -- %s "
                       "(stops after %s without a session)",
             str(json_object_get(obj, "metadata"), "name"), base && *base ? base : "sh",
             *idle ? idle : "30m");
    } else if (nd_kind_has_subresource(k, "invoke")) { /* a Function */
        const json_t *sc = json_object_get(spec, "scaling");
        json_int_t conc = json_integer_value(json_object_get(sc, "concurrency"));
        emit(o, start, "serving on :8080 (concurrency %lld)", (long long)(conc > 0 ? conc : 1));
    }
    if (phase == ND_PHASE_RUNNING && !deleting(obj))
        return;
    int64_t end = -1;
    if (phase == ND_PHASE_STOPPED)
        end = sim_get(obj, "stoppedAt", sim_get(obj, "phaseTime", -1));
    else if (deleting(obj) || phase == ND_PHASE_TERMINATING)
        end = sim_get(obj, "endedAt", -1);
    else
        end = sim_get(obj, "phaseTime", -1); /* Pending or Starting again: a restart */
    if (end < start)
        return;
    emit(o, end, "[nodus] stopping (SIGTERM): %s", longrun_stop_reason(obj));
    emit(o, end, "[nodus] stopped");
}

static void other_log(struct out *o, const struct nd_kind *k, const json_t *obj, int64_t start)
{
    emit(o, start, "[nodus] %s %s started", k->kind,
         str(json_object_get(obj, "metadata"), "name"));
    int64_t end = time_ms(status_of(obj), "completionTime");
    const char *phase = phase_of(obj);
    if (end >= start && nd_phase_terminal(k->family, phase)) {
        const char *msg = str(status_of(obj), "message");
        emit(o, end, "[nodus] %s%s%s", phase, *msg ? ": " : "", msg);
    }
}

void em_logsim_read(struct em_server *srv, const struct nd_kind *k, const json_t *obj,
                    int64_t now_ms, struct em_log_lines *out, struct em_log_state *state)
{
    state->local = false;
    state->run = em_logsim_run(k, obj, &state->ended);
    if (state->run < 0)
        return;
    struct out o = {.lines = out, .seed = seed_of(obj), .now = now_ms, .at = -1};
    if (runs_container(k))
        job_log(&o, srv, obj, state->run);
    else if (k->family == ND_FAMILY_LONG)
        longrun_log(&o, srv, k, obj, state->run);
    else
        other_log(&o, k, obj, state->run);
}
