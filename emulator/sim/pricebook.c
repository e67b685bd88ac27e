/* The price book and estimates; see pricebook.h. */
#include "pricebook.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "fsutil.h"
#include "json/json.h"
#include "objects.h"
#include "server.h"
#include "sim.h"
#include "util/hash.h"
#include "util/money.h"
#include "util/quantity.h"
#include "util/time.h"
#include "util/xmalloc.h"

static const char default_book[] =
    "{\n"
    "  \"version\": 1,\n"
    "  \"gpu\": {\n"
    "    \"market\": {\"H100\": \"2.49\", \"A100\": \"1.29\", \"L40S\": \"0.99\", \"L4\": \"0.39\"},\n"
    "    \"pool\": {\"H100\": \"0.00\", \"A100\": \"0.00\", \"L40S\": \"0.00\", \"L4\": \"0.00\"}\n"
    "  },\n"
    "  \"cpuCoreHourUSD\": \"0.04\",\n"
    "  \"memoryGiBHourUSD\": \"0.005\",\n"
    "  \"storageGiBMonthUSD\": \"0.08\",\n"
    "  \"predictFeeUSDPerHour\": \"0.10\",\n"
    "  \"holds\": {\"firstHoldHours\": 1},\n"
    "  \"delays\": {\"queued\": \"5s\", \"provisioning\": \"30s\", \"pending\": \"2s\",\n"
    "             \"starting\": \"10s\", \"jobRun\": \"10m\", \"finalCharge\": \"30s\"}\n"
    "}\n";

/* A GPU model's price in micro-dollars an hour. */
struct gpu_price {
    char *model;
    int64_t micros;
};

/* The price book of one server (srv->prices) and what its file looked like when taken.
 * Its prices are read into micro-dollars once, when a book is taken (use_book): what every
 * reconcile prices with (the text is for the file and the wire). */
struct em_prices {
    json_t *book;
    struct gpu_price *gpu[2]; /* market, pool */
    size_t ngpu[2];
    int64_t cpu_core_hour, memory_gib_hour, storage_gib_month, predict_fee_hour;
    int64_t delay_ms[EM_DELAY_COUNT]; /* delays.<delay_names[i]>, 0 when absent */
    struct {
        bool known;
        struct timespec mtime;
        off_t size;
    } seen;
    uint64_t serial; /* the books taken so far (em_pricebook_serial) */
};

/* The delays the simulation reads, in the order of enum em_delay. */
static const char *const delay_names[EM_DELAY_COUNT] = {
    [EM_DELAY_QUEUED] = "queued",     [EM_DELAY_PROVISIONING] = "provisioning",
    [EM_DELAY_PENDING] = "pending",   [EM_DELAY_STARTING] = "starting",
    [EM_DELAY_JOB_RUN] = "jobRun",    [EM_DELAY_FINAL_CHARGE] = "finalCharge",
};

static json_t *book_of(const struct em_server *srv)
{
    return srv->prices ? srv->prices->book : NULL;
}

/* srv's price book state, made at its first use */
static struct em_prices *prices_of(struct em_server *srv)
{
    if (!srv->prices)
        srv->prices = nd_xcalloc(1, sizeof *srv->prices);
    return srv->prices;
}

static void remember(struct em_prices *p, const char *path);

static int64_t money_at(const json_t *obj, const char *key)
{
    return nd_money_or(json_string_value(json_object_get(obj, key)), -1);
}

static void prices_free(struct em_prices *p)
{
    for (int i = 0; i < 2; i++) {
        for (size_t j = 0; j < p->ngpu[i]; j++)
            free(p->gpu[i][j].model);
        free(p->gpu[i]);
    }
    memset(p->gpu, 0, sizeof p->gpu);
    memset(p->ngpu, 0, sizeof p->ngpu);
    p->cpu_core_hour = p->memory_gib_hour = p->storage_gib_month = p->predict_fee_hour = 0;
    memset(p->delay_ms, 0, sizeof p->delay_ms);
}

/* delays.<name> of a checked book in ms; 0 when absent */
static int64_t delay_at(const json_t *book, const char *name)
{
    const char *s = json_string_value(json_object_get(json_object_get(book, "delays"), name));
    int64_t ms = 0;
    struct nd_status st = ND_STATUS_INIT;
    if (!s || nd_duration_parse(s, &ms, &st) < 0)
        ms = 0;
    nd_status_release(&st);
    return ms;
}

/* Makes nb (checked, stolen) p's book, its prices read into p. */
static void use_book(struct em_prices *p, json_t *nb)
{
    json_decref(p->book);
    p->book = nb;
    p->serial++;
    prices_free(p);
    static const char *const where[] = {"market", "pool"};
    for (int i = 0; i < 2; i++) {
        const json_t *m = json_object_get(json_object_get(nb, "gpu"), where[i]);
        p->gpu[i] = nd_xcalloc(json_object_size(m) + 1, sizeof *p->gpu[i]);
        const char *model;
        json_t *v;
        json_object_foreach((json_t *)m, model, v) {
            struct gpu_price *g = &p->gpu[i][p->ngpu[i]++];
            g->model = nd_xstrdup(model);
            g->micros = money_at(m, model);
        }
    }
    p->cpu_core_hour = money_at(nb, "cpuCoreHourUSD");
    p->memory_gib_hour = money_at(nb, "memoryGiBHourUSD");
    p->storage_gib_month = money_at(nb, "storageGiBMonthUSD");
    p->predict_fee_hour = money_at(nb, "predictFeeUSDPerHour");
    for (int i = 0; i < EM_DELAY_COUNT; i++)
        p->delay_ms[i] = delay_at(nb, delay_names[i]);
}

/* Every price a decimal string, every delay a duration: what the simulation relies on. */
static int check(const json_t *b, struct nd_status *st)
{
    if (!json_is_integer(json_object_get(b, "version")))
        return nd_status_set(st, "Invalid", NULL, "pricebook: version must be an integer");
    const json_t *gpu = json_object_get(b, "gpu");
    static const char *const where[] = {"market", "pool"};
    for (int i = 0; i < 2; i++) {
        const json_t *m = json_object_get(gpu, where[i]);
        if (!json_is_object(m))
            return nd_status_set(st, "Invalid", NULL, "pricebook: gpu.%s must be an object of "
                                                      "model -> hourly rate",
                                 where[i]);
        const char *model;
        json_t *v;
        json_object_foreach((json_t *)m, model, v) {
            if (money_at(m, model) < 0)
                return nd_status_set(st, "Invalid", NULL, "pricebook: gpu.%s.%s: not a decimal "
                                                          "amount",
                                     where[i], model);
        }
    }
    static const char *const rates[] = {"cpuCoreHourUSD", "memoryGiBHourUSD",
                                        "storageGiBMonthUSD", "predictFeeUSDPerHour", NULL};
    for (int i = 0; rates[i]; i++)
        if (money_at(b, rates[i]) < 0)
            return nd_status_set(st, "Invalid", NULL, "pricebook: %s: not a decimal amount",
                                 rates[i]);
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(b, "delays"), key, v) {
        int64_t ms;
        if (!json_is_string(v) || nd_duration_parse(json_string_value(v), &ms, st) < 0)
            return nd_status_set(st, "Invalid", NULL, "pricebook: delays.%s: not a duration",
                                 key);
    }
    return 0;
}

int em_pricebook_load(struct em_server *srv, struct nd_status *st)
{
    char *path = em_store_path(&srv->store, "pricebook.json");
    struct nd_buf b = ND_BUF_INIT;
    int rc = -1;
    if (nd_buf_read_file(&b, path) < 0) {
        if (em_store_write_file(&srv->store, path, default_book, strlen(default_book), st) < 0)
            goto out;
        nd_buf_adds(&b, default_book);
    }
    json_t *j = nd_json_load(b.data, b.len, path, st);
    if (!j)
        goto out;
    if (check(j, st) < 0) {
        json_decref(j);
        goto out;
    }
    struct em_prices *p = prices_of(srv);
    use_book(p, j);
    remember(p, path);
    rc = 0;
out:
    nd_buf_release(&b);
    free(path);
    return rc;
}

void em_pricebook_release(struct em_server *srv)
{
    if (srv->prices) {
        json_decref(srv->prices->book);
        prices_free(srv->prices);
    }
    free(srv->prices);
    srv->prices = NULL;
}

const json_t *em_pricebook(const struct em_server *srv)
{
    return book_of(srv);
}

int64_t em_pricebook_version(const struct em_server *srv)
{
    return json_integer_value(json_object_get(book_of(srv), "version"));
}

uint64_t em_pricebook_serial(const struct em_server *srv)
{
    return srv->prices ? srv->prices->serial : 0;
}

int64_t em_gpu_rate(const struct em_server *srv, const char *model, int pool)
{
    const struct em_prices *p = srv->prices;
    const int i = pool ? 1 : 0;
    for (size_t j = 0; p && model && j < p->ngpu[i]; j++) {
        if (!strcmp(p->gpu[i][j].model, model))
            return p->gpu[i][j].micros;
    }
    return -1;
}

int64_t em_delay_ms(const struct em_server *srv, const char *name)
{
    for (int i = 0; srv->prices && i < EM_DELAY_COUNT; i++) {
        if (!strcmp(delay_names[i], name))
            return srv->prices->delay_ms[i];
    }
    return 0;
}

int64_t em_book_rate(const struct em_server *srv, enum em_book_rate which)
{
    const struct em_prices *p = srv->prices;
    if (!p)
        return 0;
    int64_t m = which == EM_RATE_PREDICT_FEE ? p->predict_fee_hour : p->storage_gib_month;
    return m < 0 ? 0 : m;
}

static int64_t quantity(const json_t *v, bool milli)
{
    struct nd_quantity q;
    struct nd_status st = ND_STATUS_INIT;
    int64_t out = 0;
    char buf[32];
    const char *s = json_string_value(v);
    if (json_is_integer(v)) {
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
        s = buf;
    }
    if (s && nd_quantity_parse(s, &q, &st) == 0) {
        if (milli ? nd_quantity_milli(&q, &out) < 0 : nd_quantity_bytes(&q, &out) < 0)
            out = 0;
    }
    nd_status_release(&st);
    return out;
}

int64_t em_spec_rate(const struct em_server *srv, const char *plural, const json_t *spec)
{
    static const struct em_prices none;
    const struct em_prices *p = srv->prices ? srv->prices : &none;
    const struct nd_kind *k = nd_kind_by_plural("nodus.dev", plural);
    if (nd_kind_is(k, ND_KIND_BILLED) && !nd_kind_is(k, ND_KIND_COMPUTE)) {
        /* storage (a Volume), per GiB-month; a month is 730 hours */
        int64_t gib = quantity(json_object_get(spec, "size"), false) >> 30;
        return gib * p->storage_gib_month / 730;
    }
    const json_t *res = json_object_get(spec, "resources");
    const json_t *gpu = json_object_get(res, "gpu");
    int64_t rate = 0;
    if (gpu) {
        bool pool = json_string_value(json_object_get(json_object_get(spec, "placement"), "pool"));
        int64_t per = em_gpu_rate(srv, json_string_value(json_object_get(gpu, "model")), pool);
        json_int_t count = json_integer_value(json_object_get(gpu, "count"));
        if (per > 0)
            rate += per * (count > 0 ? count : 1);
    }
    int64_t cpu_milli = quantity(json_object_get(res, "cpu"), true);
    int64_t mem = quantity(json_object_get(res, "memory"), false);
    rate += p->cpu_core_hour * cpu_milli / 1000;
    rate += (int64_t)((__int128)p->memory_gib_hour * mem / (1LL << 30));
    return rate;
}

static void set_money(json_t *o, const char *key, int64_t micros)
{
    struct nd_buf b = ND_BUF_INIT;
    nd_money_format(micros, &b);
    json_object_set_new(o, key, json_string(b.data));
    nd_buf_release(&b);
}

/* How long a Job is expected to run: its annotation, else the price book's default,
 * bounded by spec.maxDuration. */
static int64_t job_run_ms(struct em_server *srv, const json_t *meta, const json_t *spec)
{
    int64_t ms = em_delay_ms(srv, "jobRun"), max;
    struct nd_status st = ND_STATUS_INIT;
    const char *ann = json_string_value(json_object_get(json_object_get(meta, "annotations"),
                                                        "emulator.nodus.dev/duration"));
    int64_t v;
    if (ann && nd_duration_parse(ann, &v, &st) == 0)
        ms = v;
    const char *md = json_string_value(json_object_get(spec, "maxDuration"));
    if (md && nd_duration_parse(md, &max, &st) == 0 && max < ms)
        ms = max;
    nd_status_release(&st);
    return ms;
}

json_t *em_estimate(struct em_server *srv, const char *plural, const json_t *obj)
{
    const struct nd_kind *k = nd_kind_by_plural("nodus.dev", plural);
    if (!nd_kind_is(k, ND_KIND_COMPUTE))
        return NULL;
    const json_t *spec = json_object_get(obj, "spec");
    const json_t *meta = json_object_get(obj, "metadata");
    int64_t rate = 0, expected = 0;
    if (!nd_kind_is(k, ND_KIND_BILLED)) {
        /* an owner (a Pipeline) costs what the Jobs it runs cost */
        size_t i;
        json_t *step;
        json_array_foreach(json_object_get(spec, "steps"), i, step) {
            const json_t *job = json_object_get(step, "job");
            int64_t r = em_spec_rate(srv, "jobs", job), c = 0;
            nd_money_mul_rate(r, job_run_ms(srv, NULL, job), &c);
            expected += c;
            if (r > rate)
                rate = r;
        }
    } else {
        rate = em_spec_rate(srv, k->plural, spec);
        /* a run to completion lasts as long as it is expected to; an hour of the rest */
        int64_t run = k->family == ND_FAMILY_RUN ? job_run_ms(srv, meta, spec) : 3600 * 1000;
        nd_money_mul_rate(rate, run, &expected);
    }
    int64_t hold = 0, max = money_at(spec, "maxCostUSD");
    nd_money_mul_rate(rate, 3600 * 1000, &hold);
    if (max >= 0) {
        if (hold > max)
            hold = max;
        if (expected > max)
            expected = max;
    }
    json_t *e = json_object();
    set_money(e, "rateUSDPerHour", rate);
    set_money(e, "expectedCostUSD", expected);
    set_money(e, "firstHoldUSD", hold);
    bool long_running = k->family == ND_FAMILY_LONG;
    int64_t start = em_clock_now_ms(&srv->clock) +
                    (long_running ? em_delay_ms(srv, "pending") + em_delay_ms(srv, "starting")
                                  : em_delay_ms(srv, "queued") + em_delay_ms(srv, "provisioning"));
    struct nd_buf t = ND_BUF_INIT;
    nd_time_format(start / 1000, &t);
    json_object_set_new(e, "startTime", json_string(t.data));
    nd_buf_release(&t);
    return e;
}

/* The hash part of a review ETag: the spec and the price book's version. */
static void review_hash(const struct em_server *srv, const json_t *obj, char hex[17])
{
    char *spec = json_dumps(json_object_get(obj, "spec"), JSON_COMPACT | JSON_SORT_KEYS);
    uint64_t h = nd_fnv64(ND_FNV64_INIT, spec ? spec : "", spec ? strlen(spec) : 0);
    free(spec);
    int64_t v = em_pricebook_version(srv);
    h = nd_fnv64(h, &v, sizeof v);
    nd_hash_hex(h, hex);
}

/* The rate a review quoted: a Pipeline's highest step, else the object's own. */
static int64_t review_rate(struct em_server *srv, const char *plural, const json_t *obj)
{
    json_t *est = em_estimate(srv, plural, obj);
    int64_t r = est ? money_at(est, "rateUSDPerHour") : 0;
    json_decref(est);
    return r < 0 ? 0 : r;
}

char *em_review_etag(struct em_server *srv, const char *plural, const json_t *obj)
{
    char hex[17];
    review_hash(srv, obj, hex);
    return nd_xasprintf("\"%s-%lld\"", hex, (long long)review_rate(srv, plural, obj));
}

int em_review_check(struct em_server *srv, const json_t *obj, const char *etag,
                    int64_t *reviewed_rate)
{
    char hex[17];
    review_hash(srv, obj, hex);
    size_t n = strlen(etag);
    if (n >= 2 && etag[0] == '"' && etag[n - 1] == '"') {
        etag++;
        n -= 2;
    }
    const char *dash = memchr(etag, '-', n);
    if (!dash || (size_t)(dash - etag) != 16 || memcmp(etag, hex, 16) != 0)
        return -1;
    char *end;
    long long r = strtoll(dash + 1, &end, 10);
    if (end != etag + n || r < 0)
        return -1;
    *reviewed_rate = r;
    return 0;
}

/* ---- changing the price book ---- */

static void remember(struct em_prices *p, const char *path)
{
    struct stat sb;
    p->seen.known = stat(path, &sb) == 0;
    if (p->seen.known) {
        p->seen.mtime = sb.st_mtim;
        p->seen.size = sb.st_size;
    }
}

/* A move of market rates alone keeps the version (a reviewed estimate stays valid). */
static bool only_market_moved(const json_t *a, const json_t *b)
{
    json_t *x = json_deep_copy(a), *y = json_deep_copy(b);
    json_t *all[] = {x, y};
    for (int i = 0; i < 2; i++) {
        json_object_del(all[i], "version");
        json_object_del(json_object_get(all[i], "gpu"), "market");
    }
    bool same = json_equal(x, y);
    json_decref(x);
    json_decref(y);
    return same;
}

/* Marks everything that may be waiting on a price due, so it looks again. */
static void prices_moved(struct em_server *srv)
{
    em_sim_touch_all(srv);
}

/* Takes nb (checked) as the new book: its version follows the rule above; written to
 * the file when write_file or when the version had to move. Steals nb. */
static int take(struct em_server *srv, json_t *nb, bool write_file, struct nd_status *st)
{
    struct em_prices *p = prices_of(srv);
    json_t *book = p->book;
    bool same = book && json_equal(book, nb);
    int64_t v = em_pricebook_version(srv);
    if (book && !only_market_moved(book, nb))
        v++;
    bool bump = book && json_integer_value(json_object_get(nb, "version")) != v;
    json_object_set_new(nb, "version", json_integer(v));
    char *path = em_store_path(&srv->store, "pricebook.json");
    int rc = 0;
    if (!same && (write_file || bump)) {
        char *text = json_dumps(nb, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        size_t len = strlen(text);
        char *withnl = nd_xasprintf("%s\n", text);
        rc = em_store_write_file(&srv->store, path, withnl, len + 1, st);
        free(withnl);
        free(text);
    }
    if (rc == 0) {
        remember(p, path);
        if (!same) {
            use_book(p, nb);
            nb = NULL;
            prices_moved(srv);
        }
    }
    json_decref(nb);
    free(path);
    return rc;
}

int em_pricebook_put(struct em_server *srv, const char *data, size_t len, struct nd_status *st)
{
    json_t *nb = nd_json_load_limited(data, len, "pricebook", &em_body_limits, st);
    if (!nb)
        return -1;
    if (!json_is_object(nb)) {
        json_decref(nb);
        return nd_status_set(st, "BadRequest", NULL, "pricebook: must be a JSON object");
    }
    /* what the caller leaves out stays as it was (the version is the server's) */
    if (!json_object_get(nb, "version"))
        json_object_set_new(nb, "version", json_integer(em_pricebook_version(srv)));
    if (check(nb, st) < 0) {
        json_decref(nb);
        return -1;
    }
    return take(srv, nb, true, st);
}

void em_pricebook_poll(struct em_server *srv)
{
    char *path = em_store_path(&srv->store, "pricebook.json");
    struct stat sb;
    const struct em_prices *p = srv->prices;
    bool changed = p && stat(path, &sb) == 0 &&
                   (!p->seen.known || sb.st_size != p->seen.size ||
                    sb.st_mtim.tv_sec != p->seen.mtime.tv_sec ||
                    sb.st_mtim.tv_nsec != p->seen.mtime.tv_nsec);
    if (changed) {
        struct nd_buf b = ND_BUF_INIT;
        struct nd_status st = ND_STATUS_INIT;
        json_t *nb = NULL;
        if (nd_buf_read_file(&b, path) == 0 && (nb = nd_json_load(b.data, b.len, path, &st)) &&
            check(nb, &st) == 0) {
            take(srv, nb, false, &st);
        } else {
            json_decref(nb);
            fprintf(stderr, "nodus-emulator: %s: not taken, the price book stays as it was: %s\n",
                    path, st.message ? st.message : "unreadable");
            remember(srv->prices, path); /* say it once per edit */
        }
        nd_status_release(&st);
        nd_buf_release(&b);
    }
    free(path);
}
