/* pool_predict.c: a Pool's hourly history (utilization and peak GPU demand) and the
 * Predict tier (its fee and the demand forecast); see pools.h.
 *
 * History lives in status.simulation, in clock hours (UTC):
 *   hour      start of the current hour (ms)
 *   busyMs    device-milliseconds of work in each of the last 24 hours (the last one is
 *             the current hour so far); totalMs the same for usable devices
 *   demand    peak GPU demand of each completed hour, the last 720 (30 days), run-length
 *             encoded as [demand, hours] pairs, oldest first
 *   peak      peak demand of the current hour so far
 *   lastAt, lastBusy, lastTotal, lastDemand: the values in force since lastAt
 * Demand is every GPU the Pool's work asks for: placed in the Pool, waiting for it, or
 * burst to the market.
 *
 * The forecast (redone each hour, and when the horizon or the devices change) reads the
 * demand samples plus the current hour's peak. The trend b (GPUs per hour) is the
 * least-squares slope of the daily peaks of the whole days of completed samples (counted
 * back from the newest; 0 before two whole days), divided by 24. Each sample less b times
 * its index is its residual; residuals are grouped by hour of the day (one group of all
 * of them before a day of samples). For each of the next `horizon` hours j, p50 and p90
 * are b * j plus the 50th and 90th percentile (linear interpolation) of the residuals at
 * j's hour of the day, rounded to hundredths and never below 0. The Pool's peakDemandGPUs
 * are the highest of those; shortfallTime the start of the first hour whose p90 exceeds
 * the Pool's devices. A steady daily pattern has no trend and repeats exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "kinds/object.h"
#include "objects.h"
#include "pools.h"
#include "pricebook.h"
#include "util/money.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define WINDOW_HOURS  24
#define HISTORY_HOURS 720

static json_t *sim_array(struct em_ctl *c, const char *key)
{
    json_t *a = json_object_get(c->sim, key);
    if (!json_is_array(a)) {
        a = json_array();
        json_object_set_new(c->sim, key, a);
    }
    return a;
}

static void push_capped(json_t *a, int64_t v, size_t cap)
{
    json_array_append_new(a, json_integer(v));
    while (json_array_size(a) > cap)
        json_array_remove(a, 0);
}

static void add_last(json_t *a, int64_t v)
{
    size_t n = json_array_size(a);
    if (!n) {
        json_array_append_new(a, json_integer(v));
        return;
    }
    json_array_set_new(a, n - 1, json_integer(json_integer_value(json_array_get(a, n - 1)) + v));
}

/* Appends one hour of demand v to the run-length encoded history, keeping 720 hours. */
static void demand_push(json_t *runs, int64_t v)
{
    json_t *last = json_array_get(runs, json_array_size(runs) - 1);
    if (last && json_integer_value(json_array_get(last, 0)) == v)
        json_array_set_new(last, 1, json_integer(json_integer_value(json_array_get(last, 1)) + 1));
    else
        json_array_append_new(runs, json_pack("[II]", (json_int_t)v, (json_int_t)1));
    int64_t total = 0;
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r) total += json_integer_value(json_array_get(r, 1));
    while (total > HISTORY_HOURS) {
        json_t *first = json_array_get(runs, 0);
        int64_t n = json_integer_value(json_array_get(first, 1));
        if (n > total - HISTORY_HOURS) {
            json_array_set_new(first, 1, json_integer(n - (total - HISTORY_HOURS)));
            break;
        }
        total -= n;
        json_array_remove(runs, 0);
    }
}

static int64_t sum(const json_t *a)
{
    int64_t s = 0;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) s += json_integer_value(v);
    return s;
}

static void utilization(struct em_ctl *c, const json_t *busy, const json_t *total)
{
    int64_t b = sum(busy), t = sum(total);
    int64_t pct = t > 0 ? (b * 100 + t / 2) / t : 0;
    int64_t hundredths = (b * 100 + EM_HOUR_MS / 2) / EM_HOUR_MS;
    char hours[48];
    snprintf(hours, sizeof hours, "%lld.%02lld", (long long)(hundredths / 100),
             (long long)(hundredths % 100));
    json_t *u = json_object();
    json_object_set_new(u, "deviceHours", json_string(hours));
    json_object_set_new(u, "gpuPercent", json_integer(pct));
    json_object_set_new(u, "window", json_string("24h"));
    json_object_set_new(c->status, "utilization", u);
}

void em_pool_track(struct em_ctl *c, int64_t busy, int64_t total, int64_t demand)
{
    json_t *b = sim_array(c, "busyMs"), *t = sim_array(c, "totalMs"), *d = sim_array(c, "demand");
    int64_t hour = em_ctl_sim_get(c, "hour", -1);
    int64_t peak = em_ctl_sim_get(c, "peak", 0);
    if (hour < 0) {
        hour = c->now / EM_HOUR_MS * EM_HOUR_MS;
        json_array_clear(b);
        json_array_clear(t);
        push_capped(b, 0, WINDOW_HOURS);
        push_capped(t, 0, WINDOW_HOURS);
        peak = demand;
    } else {
        int64_t at = em_ctl_sim_get(c, "lastAt", c->now);
        int64_t lb = em_ctl_sim_get(c, "lastBusy", 0), lt = em_ctl_sim_get(c, "lastTotal", 0);
        int64_t ld = em_ctl_sim_get(c, "lastDemand", 0);
        while (at < c->now) {
            int64_t end = hour + EM_HOUR_MS, seg = c->now < end ? c->now : end;
            add_last(b, lb * (seg - at));
            add_last(t, lt * (seg - at));
            at = seg;
            if (at == end) {
                demand_push(d, peak);
                push_capped(b, 0, WINDOW_HOURS);
                push_capped(t, 0, WINDOW_HOURS);
                peak = ld;
                hour = end;
            }
        }
    }
    em_ctl_sim_set(c, "hour", hour);
    em_ctl_sim_set(c, "lastAt", c->now);
    em_ctl_sim_set(c, "lastBusy", busy);
    em_ctl_sim_set(c, "lastTotal", total);
    em_ctl_sim_set(c, "lastDemand", demand);
    em_ctl_sim_set(c, "peak", demand > peak ? demand : peak);
    utilization(c, b, t);
    em_ctl_due(c, hour + EM_HOUR_MS);
    if (busy > 0) /* the device-hours shown move at least this often */
        em_ctl_due(c, c->now + EM_ACCRUE_EVERY_MS);
}

/* ---- the forecast ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The p-th percentile of sorted v (linear interpolation between closest ranks). */
static double percentile(const double *v, size_t n, double p)
{
    if (!n)
        return 0;
    double pos = p * (double)(n - 1);
    size_t lo = (size_t)pos, hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

static double round2(double x)
{
    return x <= 0 ? 0 : (double)(int64_t)(x * 100 + 0.5) / 100;
}

struct band {
    double p50, p90;
    int64_t shortfall; /* ms, or -1 */
};

static void forecast(const json_t *hist, int64_t now_peak, int64_t hours, int64_t devices,
                     int64_t hour0, struct band *out)
{
    size_t n = 1, i;
    json_t *run;
    json_array_foreach(hist, i, run) n += (size_t)json_integer_value(json_array_get(run, 1));
    double *x = nd_xmalloc(n * sizeof *x), *r = nd_xmalloc(n * sizeof *r);
    double *sorted = nd_xmalloc(n * sizeof *sorted);
    size_t at = 0;
    json_array_foreach(hist, i, run) {
        for (json_int_t k = json_integer_value(json_array_get(run, 1)); k > 0 && at + 1 < n; k--)
            x[at++] = (double)json_integer_value(json_array_get(run, 0));
    }
    x[n - 1] = (double)now_peak;
    /* the trend: least squares over the peaks of the whole days of completed samples,
     * counted back from the newest, in GPUs per day (none before two days) */
    size_t days = (n - 1) / WINDOW_HOURS;
    double b = 0;
    if (days >= 2) {
        double *peak = nd_xmalloc(days * sizeof *peak), my = 0, md = (double)(days - 1) / 2;
        for (size_t d = 0; d < days; d++) {
            size_t end = n - 1 - d * WINDOW_HOURS; /* block d (0 = newest) is [end-24, end) */
            peak[days - 1 - d] = 0;
            for (i = end - WINDOW_HOURS; i < end; i++)
                if (x[i] > peak[days - 1 - d])
                    peak[days - 1 - d] = x[i];
        }
        for (size_t d = 0; d < days; d++)
            my += peak[d];
        my /= (double)days;
        double sxy = 0, sxx = 0;
        for (size_t d = 0; d < days; d++) {
            sxy += ((double)d - md) * (peak[d] - my);
            sxx += ((double)d - md) * ((double)d - md);
        }
        b = sxy / sxx / WINDOW_HOURS;
        free(peak);
    }
    for (i = 0; i < n; i++)
        r[i] = x[i] - b * (double)i;
    /* residuals grouped by hour of the day: group d holds samples i with i % 24 == d;
     * before a day of samples, one group of them all */
    size_t off[WINDOW_HOURS + 1] = {0};
    int groups = n < WINDOW_HOURS ? 1 : WINDOW_HOURS;
    for (int d = 0; d < groups; d++) {
        off[d + 1] = off[d];
        for (i = 0; i < n; i++)
            if (groups == 1 || (int)(i % WINDOW_HOURS) == d)
                sorted[off[d + 1]++] = r[i];
        qsort(sorted + off[d], off[d + 1] - off[d], sizeof *sorted, cmp_double);
    }
    out->p50 = out->p90 = 0;
    out->shortfall = -1;
    for (int64_t k = 1; k <= hours; k++) {
        size_t j = n - 1 + (size_t)k;
        int d = groups == 1 ? 0 : (int)(j % WINDOW_HOURS);
        const double *set = sorted + off[d];
        size_t m = off[d + 1] - off[d];
        double base = b * (double)j;
        double q50 = round2(base + percentile(set, m, 0.5));
        double q90 = round2(base + percentile(set, m, 0.9));
        if (q50 > out->p50)
            out->p50 = q50;
        if (q90 > out->p90)
            out->p90 = q90;
        if (out->shortfall < 0 && q90 > (double)devices)
            out->shortfall = hour0 + k * EM_HOUR_MS;
    }
    free(x);
    free(r);
    free(sorted);
}

static void drop_condition(struct em_ctl *c, const char *type)
{
    json_t *conds = json_object_get(c->status, "conditions");
    for (size_t i = 0; i < json_array_size(conds); i++) {
        const char *t = json_string_value(json_object_get(json_array_get(conds, i), "type"));
        if (t && !strcmp(t, type)) {
            json_array_remove(conds, i);
            return;
        }
    }
}

static void set_time(json_t *obj, const char *key, int64_t ms)
{
    struct nd_buf t = ND_BUF_INIT;
    nd_time_format(ms / 1000, &t);
    json_object_set_new(obj, key, json_string(t.data));
    nd_buf_release(&t);
}

/* The fee since enabledTime: feeMicros accrued up to feeAt (the last price change), plus
 * the current fee from feeAt to now, computed over the whole span so it stays exact. */
static void accrue_fee(struct em_ctl *c)
{
    int64_t rate = em_book_rate(c->srv, EM_RATE_PREDICT_FEE);
    int64_t at = em_ctl_sim_get(c, "feeAt", c->now), base = em_ctl_sim_get(c, "feeMicros", 0);
    int64_t was = em_ctl_sim_get(c, "feeRate", rate), add = 0;
    if (c->now > at)
        nd_money_mul_rate(was, c->now - at, &add);
    if (was != rate) {
        base += add;
        add = 0;
        em_ctl_sim_set(c, "feeMicros", base);
        em_ctl_sim_set(c, "feeAt", c->now);
    }
    em_ctl_sim_set(c, "feeRate", rate);
    em_ctl_sim_set(c, "predictFeeMicros", base + add);
}

static void predict_off(struct em_ctl *c)
{
    accrue_fee(c);
    struct nd_buf fee = ND_BUF_INIT;
    nd_money_format(em_ctl_sim_get(c, "predictFeeMicros", 0), &fee);
    em_event_record(c->srv, c->k, c->obj, "Normal", "PredictDisabled",
                    "Predict is off; its fee came to %s USD", fee.data);
    nd_buf_release(&fee);
    json_object_del(c->status, "predict");
    json_object_del(c->status, "forecast");
    static const char *const keys[] = {
        "feeAt",        "feeMicros",       "feeRate",         "predictFeeMicros",
        "forecastHour", "forecastDevices", "forecastHorizon", NULL};
    for (int i = 0; keys[i]; i++)
        em_ctl_sim_del(c, keys[i]);
    drop_condition(c, "Shortfall");
}

void em_pool_predict(struct em_ctl *c, int64_t devices)
{
    bool on = json_is_true(nd_obj_get(c->obj, "spec.predict.enabled")) && !em_obj_deleting(c->obj);
    json_t *pred = json_object_get(c->status, "predict");
    if (!on) {
        if (pred)
            predict_off(c);
        return;
    }
    if (!json_is_object(pred)) {
        pred = json_object();
        set_time(pred, "enabledTime", c->now);
        json_object_set_new(c->status, "predict", pred);
        em_ctl_sim_set(c, "feeAt", c->now);
        em_ctl_sim_set(c, "feeMicros", 0);
        struct nd_buf fee = ND_BUF_INIT;
        nd_money_format(em_book_rate(c->srv, EM_RATE_PREDICT_FEE), &fee);
        em_event_record(c->srv, c->k, c->obj, "Normal", "PredictEnabled",
                        "Predict is on: a demand forecast every hour, at %s USD per hour",
                        fee.data);
        nd_buf_release(&fee);
    }
    accrue_fee(c);

    int64_t horizon = em_json_duration(c->obj, "spec.predict.horizon", 168 * EM_HOUR_MS);
    int64_t hour = em_ctl_sim_get(c, "hour", c->now / EM_HOUR_MS * EM_HOUR_MS);
    if (json_object_get(c->status, "forecast") && em_ctl_sim_get(c, "forecastHour", -1) == hour &&
        em_ctl_sim_get(c, "forecastDevices", -1) == devices &&
        em_ctl_sim_get(c, "forecastHorizon", -1) == horizon)
        return;
    struct band band;
    int64_t hours = horizon / EM_HOUR_MS;
    forecast(json_object_get(c->sim, "demand"), em_ctl_sim_get(c, "peak", 0), hours > 0 ? hours : 1,
             devices, hour, &band);
    json_t *f = json_object();
    set_time(f, "generatedTime", c->now);
    const char *h = nd_obj_get_string(c->obj, "spec.predict.horizon");
    json_object_set_new(f, "horizon", json_string(h ? h : "168h"));
    json_object_set_new(f, "peakDemandGPUs",
                        json_pack("{s:f, s:f}", "p50", band.p50, "p90", band.p90));
    struct nd_buf msg = ND_BUF_INIT;
    if (band.shortfall >= 0) {
        set_time(f, "shortfallTime", band.shortfall);
        nd_buf_addf(&msg, "the p90 demand exceeds the Pool's %lld devices from %s",
                    (long long)devices, json_string_value(json_object_get(f, "shortfallTime")));
    } else {
        nd_buf_addf(&msg, "the p90 demand stays within the Pool's %lld devices over %s",
                    (long long)devices, h ? h : "168h");
    }
    json_object_set_new(c->status, "forecast", f);
    em_ctl_condition(c, "Shortfall", band.shortfall >= 0,
                     band.shortfall >= 0 ? "ShortfallForecast" : "NoShortfall", msg.data);
    nd_buf_release(&msg);
    em_ctl_sim_set(c, "forecastHour", hour);
    em_ctl_sim_set(c, "forecastDevices", devices);
    em_ctl_sim_set(c, "forecastHorizon", horizon);
}
