/* nodus run: the one-liner. Makes a Job from an image, a GPU and a command, creates it
 * (after a server dry run, whose estimate it shows), streams its log and exits with the
 * Job's exit code.
 *
 * Everything the command line says is checked before anything is sent: --env NAME=VALUE,
 * --volume VOLUME:/PATH[:ro], --gpu MODEL[:COUNT] (a model the image is built for, as its
 * Image in project nodus lists), -l KEY=VALUE, --max-cost. Then the server's dry run
 * checks the Job as the create would, so a bad Job is refused before it exists.
 *
 * Attached (the default), stdout carries the log only: what run says about the Job
 * (created, the estimate, how it ended, how to follow it after Ctrl-C) goes to stderr,
 * and against an emulator that simulates Jobs (its stats say so) that the log is made
 * up, which there lasts 30s unless --sim-duration says otherwise. The same run again
 * finds the Job it made (the server answers it, 200): "unchanged", and followed.
 * Exit codes: the Job's exit code (status.exitCode) when its command ended; 125 when the
 * Job ended without one (Cancelled, deleted, stopped at maxCostUSD or maxDuration); 130
 * after Ctrl-C (the Job keeps running); before the Job runs, nodus's own codes (2 a bad
 * flag, 4 a Job of that name with another spec exists, 5 forbidden, 7 unreachable, 8 a
 * budget).
 */
#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kinds/object.h"
#include "client/client.h"
#include "commands.h"
#include "logs.h"
#include "util/money.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "write.h"

#define DEFAULT_MAX_COST "10.00"
#define DEFAULT_SIM_DURATION "30s" /* a run's simulated length on a simulating emulator */
#define DURATION_ANNOTATION "emulator.nodus.dev/duration"
#define EXIT_NO_CODE 125
#define EXIT_DETACHED 130

struct run_opts {
    const char *image;
    const char *gpu;
    const char *max_cost;
    int64_t max_duration;
    bool max_duration_given;
    struct nd_strings env;
    struct nd_strings volume;
    struct nd_strings labels;
    struct nd_strings annotations;
    int64_t sim_duration;
    bool sim_duration_given;
    const char *dry_run;
    bool detach;
    const char *output;
};

#define TO(f) ND_TO(struct run_opts, f)
const struct nd_flag cmd_run_flags[] = {
    {"image", 0, ND_STRING, "IMAGE", "the image to run, nodus/NAME:TAG (required)", NULL,
     TO(image)},
    {"gpu", 0, ND_STRING, "MODEL[:COUNT]", "GPUs, e.g. H100 or H100:2 (default: none, CPU only)",
     NULL, TO(gpu)},
    {"max-cost", 0, ND_STRING, "USD", "stop the Job when its cost reaches this (default 10.00)",
     NULL, TO(max_cost)},
    {"max-duration", 0, ND_DURATION, "DURATION", "stop the Job after running this long", NULL,
     TO(max_duration), TO(max_duration_given)},
    {"env", 'e', ND_STRINGS, "NAME=VALUE", "an environment variable (repeatable)", NULL, TO(env)},
    {"volume", 0, ND_STRINGS, "VOLUME:/PATH[:ro]", "mount a Volume of the project (repeatable)",
     NULL, TO(volume)},
    {"labels", 'l', ND_STRINGS, "KEY=VALUE", "labels of the Job (repeatable, or a,b)", NULL,
     TO(labels)},
    {"annotations", 0, ND_STRINGS, "KEY=VALUE", "annotations of the Job (repeatable)", NULL,
     TO(annotations)},
    {"sim-duration", 0, ND_DURATION, "DURATION",
     "against an emulator that simulates Jobs: how long the run lasts (default 30s)", NULL,
     TO(sim_duration), TO(sim_duration_given)},
    {"dry-run", 0, ND_STRING, "MODE",
     "server: show the Job and its estimate, create nothing; client: show the Job", NULL,
     TO(dry_run)},
    {"detach", 'd', ND_BOOL, NULL, "create the Job and return, without streaming its log", NULL,
     TO(detach)},
    {"output", 'o', ND_STRING, "FORMAT",
     "with --detach or --dry-run: print the Job as name, json, yaml ...", "=json yaml name",
     TO(output)},
    ND_FLAGS_END(struct run_opts),
};

/* ---- the command line ---- */

/* pflag splits repeated values at commas; a piece without '=' belonged to the one
 * before (--env LIST=a,b) when join. NEW array of "K=V" strings. */
static json_t *rejoin(const struct nd_strings *list, bool join)
{
    json_t *out = json_array();
    for (size_t i = 0; i < list->n; i++) {
        const char *s = list->v[i];
        size_t n = json_array_size(out);
        if (join && !strchr(s, '=') && n) {
            char *joined = nd_xasprintf("%s,%s", json_string_value(json_array_get(out, n - 1)), s);
            json_array_set_new(out, n - 1, json_string(joined));
            free(joined);
        } else {
            json_array_append_new(out, json_string(s));
        }
    }
    return out;
}

static bool env_name_ok(const char *s, size_t n)
{
    if (n == 0 || (!isalpha((unsigned char)s[0]) && s[0] != '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '-')
            return false;
    return true;
}

static int parse_env(struct nd_ctx *ctx, const struct nd_strings *list, json_t *spec)
{
    json_t *items = rejoin(list, true);
    json_t *env = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(items, i, v) {
        const char *s = json_string_value(v);
        const char *eq = strchr(s, '=');
        if (!eq || !env_name_ok(s, (size_t)(eq - s))) {
            int rc = nd_cli_usage(ctx,
                                  "invalid --env \"%s\": expected NAME=VALUE, NAME made of "
                                  "letters, digits, _ . - and not starting with a digit "
                                  "(e.g. --env WANDB_MODE=offline)", s);
            json_decref(items);
            json_decref(env);
            return rc;
        }
        json_array_append_new(env, json_pack("{s:s%,ss}", "name", s, (size_t)(eq - s), "value",
                                             eq + 1));
    }
    json_decref(items);
    if (json_array_size(env))
        json_object_set_new(spec, "env", env);
    else
        json_decref(env);
    return 0;
}

static int parse_volumes(struct nd_ctx *ctx, const struct nd_strings *list, json_t *spec)
{
    json_t *vols = json_array();
    for (size_t i = 0; i < list->n; i++) {
        const char *s = list->v[i];
        const char *colon = strchr(s, ':');
        const char *path = colon ? colon + 1 : NULL;
        const char *mode = path ? strchr(path, ':') : NULL;
        size_t plen = mode ? (size_t)(mode - path) : path ? strlen(path) : 0;
        bool ro = mode && strcmp(mode, ":ro") == 0;
        if (!colon || colon == s || !plen || path[0] != '/' ||
            (mode && !ro && strcmp(mode, ":rw") != 0)) {
            json_decref(vols);
            return nd_cli_usage(ctx,
                                "invalid --volume \"%s\": expected VOLUME:/PATH, or "
                                "VOLUME:/PATH:ro (e.g. --volume datasets:/data:ro)", s);
        }
        json_t *m = json_pack("{s:s%,s:s%}", "name", s, (size_t)(colon - s), "mountPath", path,
                              plen);
        if (ro)
            json_object_set_new(m, "readOnly", json_true());
        json_array_append_new(vols, m);
    }
    if (json_array_size(vols))
        json_object_set_new(spec, "volumes", vols);
    else
        json_decref(vols);
    return 0;
}

/* KEY=VALUE pairs into an object (labels, annotations). */
static int parse_pairs(struct nd_ctx *ctx, const char *flag, const struct nd_strings *list,
                       bool join, json_t *meta)
{
    json_t *items = rejoin(list, join);
    json_t *map = json_object();
    size_t i;
    json_t *v;
    int rc = 0;
    json_array_foreach(items, i, v) {
        const char *s = json_string_value(v);
        const char *eq = strchr(s, '=');
        if (!eq || eq == s) {
            rc = nd_cli_usage(ctx, "invalid --%s \"%s\": expected KEY=VALUE", flag, s);
            break;
        }
        char *key = nd_xasprintf("%.*s", (int)(eq - s), s);
        json_object_set_new(map, key, json_string(eq + 1));
        free(key);
    }
    json_decref(items);
    if (rc == 0 && json_object_size(map))
        json_object_set(meta, flag, map);
    json_decref(map);
    return rc;
}

static int parse_gpu(struct nd_ctx *ctx, const char *gpu, json_t *spec, char **model)
{
    const char *colon = strchr(gpu, ':');
    size_t mlen = colon ? (size_t)(colon - gpu) : strlen(gpu);
    long count = 1;
    if (colon) {
        char *end;
        count = strtol(colon + 1, &end, 10);
        if (!colon[1] || *end || count < 1 || count > 8)
            return nd_cli_usage(ctx, "invalid --gpu \"%s\": the count after : is 1 to 8 "
                                     "(e.g. --gpu H100:2)", gpu);
    }
    if (!mlen)
        return nd_cli_usage(ctx, "invalid --gpu \"%s\": name the model, e.g. --gpu H100", gpu);
    *model = nd_xasprintf("%.*s", (int)mlen, gpu);
    json_object_set_new(spec, "resources",
                        json_pack("{s{sssi}}", "gpu", "model", *model, "count", (int)count));
    return 0;
}

/* The GPU models the image is built for (its tag's accelerators), and every model the
 * catalogue knows: a model outside them is refused before anything is created. A
 * catalogue that cannot be read leaves the check to the server. */
static int check_gpu(struct nd_ctx *ctx, const char *image, const char *model)
{
    struct nd_status st = ND_STATUS_INIT;
    struct nd_client *c = nd_ctx_client(ctx, &st);
    json_t *list = NULL;
    if (!c || nd_client_json(c, "GET", "/apis/nodus.dev/v1/namespaces/nodus/images", NULL, &list,
                             &st) < 0) {
        int rc = st.code == 404 || st.code == 403 ? 0 : nd_cli_error(ctx, &st);
        nd_status_release(&st);
        return rc;
    }
    json_t *known = json_array(), *built_for = NULL;
    const char *colon = strrchr(image, ':');
    size_t i, j, k;
    json_t *img, *tag, *acc;
    json_array_foreach(json_object_get(list, "items"), i, img) {
        const char *name = json_string_value(json_object_get(json_object_get(img, "metadata"),
                                                             "name"));
        json_array_foreach(json_object_get(json_object_get(img, "spec"), "tags"), j, tag) {
            const char *t = json_string_value(json_object_get(tag, "tag"));
            const json_t *accs = json_object_get(tag, "accelerators");
            json_array_foreach(accs, k, acc)
                nd_json_array_add_unique(known, acc);
            if (name && t && colon && !strncmp(image, "nodus/", 6) &&
                strlen(name) == (size_t)(colon - image - 6) &&
                !strncmp(image + 6, name, strlen(name)) && !strcmp(colon + 1, t))
                built_for = (json_t *)accs;
        }
    }
    struct nd_buf names = ND_BUF_INIT;
    const json_t *offer = json_array_size(built_for) ? built_for : known;
    bool ok = false;
    json_array_foreach(offer, i, acc) {
        nd_buf_addf(&names, "%s%s", i ? ", " : "", json_string_value(acc));
        ok |= !strcmp(json_string_value(acc), model);
    }
    int rc = 0;
    if (!ok && json_array_size(offer)) {
        if (offer == built_for)
            rc = nd_cli_usage(ctx, "--gpu %s: the image %s is built for %s; choose one of them",
                              model, image, names.data);
        else
            rc = nd_cli_usage(ctx, "--gpu %s: unknown GPU model; the models are %s", model,
                              names.data);
    }
    nd_buf_release(&names);
    json_decref(known);
    json_decref(list);
    nd_status_release(&st);
    return rc;
}

/* ---- the simulated runtime ---- */

/* Whether the server simulates Jobs: an emulator whose stats say "runtime": "simulate"
 * (its default). A real platform has no /emulator/v1 (404), and an emulator with a
 * token file answers it to admin tokens only: both count as not simulating. -1 with st
 * when no answer came at all (the server cannot be reached). */
static int simulates(struct nd_ctx *ctx, struct nd_status *st)
{
    json_t *stats = NULL;
    int code = 0;
    if (nd_call(ctx, &(struct nd_call_req){.method = "GET", .path = "/emulator/v1/stats",
                                             .out = &stats, .code = &code},
                 st) < 0) {
        if (code == 0)
            return -1;
        nd_status_release(st);
        nd_status_init(st);
        return 0;
    }
    const char *rt = json_string_value(json_object_get(stats, "runtime"));
    int yes = rt && !strcmp(rt, "simulate");
    json_decref(stats);
    return yes;
}

/* The run's simulated length: --sim-duration, else (against a simulating emulator)
 * DEFAULT_SIM_DURATION, as the annotation the emulator reads; an annotation given with
 * --annotations wins over the default and may not be given with --sim-duration. */
static int sim_duration(struct nd_ctx *ctx, const struct run_opts *opt, bool simulated, json_t *job)
{
    json_t *meta = json_object_get(job, "metadata");
    json_t *ann = json_object_get(meta, "annotations");
    bool given = json_object_get(ann, DURATION_ANNOTATION) != NULL;
    if (!opt->sim_duration_given) {
        if (simulated && !given) {
            if (!ann)
                json_object_set_new(meta, "annotations", ann = json_object());
            json_object_set_new(ann, DURATION_ANNOTATION, json_string(DEFAULT_SIM_DURATION));
        }
        return 0;
    }
    int64_t ms = opt->sim_duration;
    if (ms <= 0)
        return nd_cli_usage(ctx, "--sim-duration must be greater than 0");
    if (given)
        return nd_cli_usage(ctx, "--sim-duration sets the annotation " DURATION_ANNOTATION
                                 ": give one of them");
    struct nd_buf d = ND_BUF_INIT;
    nd_duration_format_short(ms, &d);
    if (!ann)
        json_object_set_new(meta, "annotations", ann = json_object());
    json_object_set_new(ann, DURATION_ANNOTATION, json_string(d.data));
    nd_buf_release(&d);
    return 0;
}

/* Says, once and before the log, that the log to come is not the command's output. */
static void say_simulated(const json_t *job)
{
    const char *d = json_string_value(json_object_get(
        json_object_get(json_object_get(job, "metadata"), "annotations"), DURATION_ANNOTATION));
    fprintf(stderr, "  simulated: the emulator simulates Jobs (--runtime simulate): the log "
                    "below is made up, the command does not run");
    if (d)
        fprintf(stderr, ", the run lasts %s (--sim-duration)", d);
    fprintf(stderr, "\n  to see the command's real output: restart the emulator with --runtime "
                    "local (nodus emulator stop, then nodus emulator start --runtime local)\n");
}

/* A Job of that name with another spec: which fields differ, and what to do. */
static void exists_fix(struct nd_status *st, const char *name, const char *ns)
{
    const json_t *causes = json_object_get(st->details, "causes");
    if (!nd_status_is(st, ND_REASON_ALREADY_EXISTS) || !json_array_size(causes))
        return;
    struct nd_buf fields = ND_BUF_INIT;
    size_t i;
    json_t *c;
    json_array_foreach(causes, i, c)
        nd_buf_addf(&fields, "%s%s", i ? ", " : "",
                    json_string_value(json_object_get(c, "field")));
    nd_status_set_fix(st, "job/%s exists with another spec (%s differs): choose another name, or "
                          "delete it first: nodus delete %s/%s -n %s --wait",
                      name, fields.data, "job", name, ns);
    nd_buf_release(&fields);
}

/* ---- Ctrl-C ---- */

static char detach_msg[1024];

static void on_interrupt(int sig)
{
    (void)sig;
    ssize_t n = write(STDERR_FILENO, detach_msg, strlen(detach_msg));
    (void)n;
    _exit(EXIT_DETACHED);
}

/* ---- the verb ---- */

static int build(struct nd_ctx *ctx, const struct nd_opts *o, const struct run_opts *opt,
                 json_t **job)
{
    int rc = 0;
    char *model = NULL;
    json_t *meta = json_pack("{ss}", "name", o->pos[0]);
    json_t *spec = json_object();
    const char *image = opt->image;
    const char *max_cost = opt->max_cost;
    int64_t micros;
    struct nd_status st = ND_STATUS_INIT;
    if (!image || !*image) {
        rc = nd_cli_usage(ctx, "name the image: --image nodus/NAME:TAG (nodus get images -n "
                               "nodus lists them)");
        goto out;
    }
    json_object_set_new(spec, "image", json_string(image));
    if (o->ndash) {
        json_t *cmd = json_array();
        for (int i = 0; i < o->ndash; i++)
            json_array_append_new(cmd, json_string(o->dash[i]));
        json_object_set_new(spec, "command", cmd);
    }
    if (!max_cost)
        max_cost = DEFAULT_MAX_COST;
    if (nd_money_parse(max_cost, &micros, &st) < 0 || micros <= 0) {
        rc = nd_cli_usage(ctx, "invalid --max-cost \"%s\": a positive amount of US dollars, "
                               "e.g. --max-cost 25.00", max_cost);
        goto out;
    }
    json_object_set_new(spec, "maxCostUSD", json_string(max_cost));
    if (opt->max_duration_given) {
        int64_t ms = opt->max_duration;
        if (ms <= 0) {
            rc = nd_cli_usage(ctx, "--max-duration must be greater than 0");
            goto out;
        }
        char d[32];
        snprintf(d, sizeof d, "%llds", (long long)((ms + 999) / 1000));
        json_object_set_new(spec, "maxDuration", json_string(d));
    }
    const char *gpu = opt->gpu;
    if ((rc = parse_env(ctx, &opt->env, spec)) != 0 ||
        (rc = parse_volumes(ctx, &opt->volume, spec)) != 0 ||
        (rc = parse_pairs(ctx, "labels", &opt->labels, false, meta)) != 0 ||
        (rc = parse_pairs(ctx, "annotations", &opt->annotations, true, meta)) != 0 ||
        (gpu && (rc = parse_gpu(ctx, gpu, spec, &model)) != 0) ||
        (model && (rc = check_gpu(ctx, image, model)) != 0))
        goto out;
    *job = json_pack("{sssssOsO}", "apiVersion", "nodus.dev/v1", "kind", "Job", "metadata", meta,
                     "spec", spec);
out:
    free(model);
    json_decref(meta);
    json_decref(spec);
    nd_status_release(&st);
    return rc;
}

struct attach {
    const char *op;       /* "created", or "unchanged" for the existing identical Job */
    const json_t *job;    /* as created (or found) */
    const json_t *preview; /* the server's dry run: the estimate */
    bool simulated;       /* the server simulates the run: say so */
};

/* Says the Job was created (on stderr: stdout is its log), then streams its log until
 * it ends; the exit code run ends with. Ctrl-C is handled before anything is said. */
static int attach(struct nd_ctx *ctx, const struct nd_kind *k, const char *ns, const char *name,
                  const struct attach *a)
{
    snprintf(detach_msg, sizeof detach_msg,
             "\njob/%s keeps running (detached).\n  follow it: nodus logs -f job/%s -n %s\n"
             "  cancel it: nodus cancel job/%s -n %s\n",
             name, name, ns, name, ns);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    struct nd_buf line = ND_BUF_INIT;
    nd_estimate_line(a->preview, &line);
    char kn[ND_KIND_NAME_MAX];
    fprintf(stderr, "%s/%s %s\n", nd_kind_display_name(k, kn, sizeof kn), name, a->op);
    if (line.len)
        fprintf(stderr, "  estimate: %s\n", line.data);
    nd_buf_release(&line);
    if (a->simulated)
        say_simulated(a->job);
    struct nd_log_query q = {.tail = -1};
    json_t *last = NULL;
    int rc = nd_logs_follow(ctx, &q, k, ns, name, NULL, &last);
    signal(SIGINT, SIG_DFL);
    if (rc != 0 && !last) {
        /* no end seen: the Job was deleted, or the log could not be followed (stdout
         * closed, the server gone) while the Job may run on */
        struct nd_buf path = ND_BUF_INIT;
        struct nd_status st = ND_STATUS_INIT;
        int got = 0;
        nd_kind_path(k, ns, name, NULL, &path);
        if (nd_call(ctx,
                     &(struct nd_call_req){
                         .method = "GET", .path = path.data, .out = &last, .code = &got},
                     &st) < 0 &&
            got == 404)
            rc = EXIT_NO_CODE; /* deleted */
        const char *phase = json_string_value(
            json_object_get(json_object_get(last, "status"), "phase"));
        if (last && !(phase && nd_phase_terminal(k->family, phase))) {
            fputs(detach_msg, stderr);
            json_decref(last);
            last = NULL;
        }
        nd_status_release(&st);
        nd_buf_release(&path);
    }
    const json_t *code = json_object_get(json_object_get(last, "status"), "exitCode");
    if (rc != 0 && json_is_integer(code))
        rc = (int)(json_integer_value(code) & 0xff);
    else if (rc == 1 && last)
        rc = EXIT_NO_CODE; /* ended, but not by its command's exit */
    json_decref(last);
    return rc;
}

int cmd_run(int argc, char **argv, struct nd_ctx *ctx)
{
    struct nd_opts o;
    struct run_opts opt = {0};
    struct nd_status st = ND_STATUS_INIT;
    struct nd_print_opts popts;
    nd_print_opts_init(&popts);
    enum nd_dry_run dry;
    json_t *job = NULL, *preview = NULL, *created = NULL;
    int rc = 0;
    if (nd_cli_parse(ctx, argc, argv, &o, &opt, sizeof opt, &st) < 0 ||
        nd_dry_run_parse(opt.dry_run, &dry, &st) < 0 ||
        nd_write_output_parse(opt.output, &popts, &st) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if (o.npos != 1) {
        rc = o.npos == 0 ? nd_cli_usage(ctx, "name the Job: nodus run NAME --image IMAGE -- "
                                             "COMMAND...")
                         : nd_cli_usage(ctx, "put the command after --: nodus run %s --image "
                                             "IMAGE -- %s ...", o.pos[0], o.pos[1]);
        goto out;
    }
    bool has_output = opt.output != NULL;
    bool detach = opt.detach;
    if (has_output && !detach && dry == ND_DRY_NONE) {
        rc = nd_cli_usage(ctx, "-o prints the Job: use it with --detach or --dry-run (attached, "
                               "stdout is the Job's log)");
        goto out;
    }
    int simulated = 0;
    if ((rc = build(ctx, &o, &opt, &job)) != 0)
        goto out;
    if (dry != ND_DRY_CLIENT && (simulated = simulates(ctx, &st)) < 0) {
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    if ((rc = sim_duration(ctx, &opt, simulated > 0, job)) != 0)
        goto out;
    const struct nd_kind *k = nd_kind_by_plural("nodus.dev", "jobs");
    const char *ns = nd_ctx_project(ctx);
    json_object_set_new(json_object_get(job, "metadata"), "namespace", json_string(ns));
    if (dry == ND_DRY_CLIENT) {
        if (nd_print_result(&popts, has_output, job, "created", dry, 0, &st) < 0)
            rc = nd_cli_error(ctx, &st);
        goto out;
    }
    struct nd_buf path = ND_BUF_INIT;
    nd_kind_path(k, ns, NULL, NULL, &path);
    nd_buf_adds(&path, "?fieldManager=nodus-run");
    /* the server's dry run first: the Job checked as the create will be, and its price */
    char *dry_path = nd_xasprintf("%s&dryRun=All", path.data);
    int code = 201; /* 200: the Job exists with this spec, and is answered as it is */
    rc = nd_call(ctx,
                  &(struct nd_call_req){.method = "POST", .path = dry_path, .body = job,
                                         .out = &preview, .code = &code},
                  &st);
    free(dry_path);
    if (rc == 0 && dry == ND_DRY_NONE)
        rc = nd_call(ctx,
                      &(struct nd_call_req){.method = "POST", .path = path.data, .body = job,
                                             .out = &created, .code = &code},
                      &st);
    nd_buf_release(&path);
    if (rc < 0) {
        exists_fix(&st, o.pos[0], ns);
        rc = nd_cli_error(ctx, &st);
        goto out;
    }
    const char *op = code == 200 ? "unchanged" : "created";
    if (dry == ND_DRY_SERVER || detach) {
        const json_t *shown = created ? created : preview;
        if (nd_print_result(&popts, has_output, shown, op, dry, 0, &st) < 0) {
            rc = nd_cli_error(ctx, &st);
            goto out;
        }
        if (!has_output)
            nd_print_estimate(preview);
        if (detach && !has_output && dry == ND_DRY_NONE)
            printf("  follow it: nodus logs -f job/%s -n %s\n", o.pos[0], ns);
        goto out;
    }
    rc = attach(ctx, k, ns, o.pos[0],
                &(struct attach){.op = op, .job = created, .preview = preview,
                                 .simulated = simulated > 0});
out:
    json_decref(job);
    json_decref(preview);
    json_decref(created);
    nd_print_opts_release(&popts);
    nd_status_release(&st);
    nd_opts_release(&o);
    return rc;
}
