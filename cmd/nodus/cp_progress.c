/* cp_progress.c: the progress line of `nodus cp` (bytes, %, rate, ETA), redrawn at most
 * ten times a second on stderr when it is a terminal. */
#include "cp_progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void bytes(char *out, size_t n, double v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int i = 0;
    while (v >= 1024 && i < 5) {
        v /= 1024;
        i++;
    }
    if (i == 0)
        snprintf(out, n, "%.0f B", v);
    else
        snprintf(out, n, "%.1f %s", v, unit[i]);
}

void cp_progress_format(char *out, size_t n, uint64_t done, uint64_t total, int64_t ms)
{
    char d[32], t[32], r[32];
    bytes(d, sizeof d, (double)done);
    double rate = ms > 0 ? (double)done * 1000.0 / (double)ms : 0;
    bytes(r, sizeof r, rate);
    if (!total) {
        snprintf(out, n, "%s  %s/s", d, r);
        return;
    }
    bytes(t, sizeof t, (double)total);
    uint64_t shown = done > total ? total : done;
    unsigned pct = (unsigned)(shown * 100 / total);
    char bar[24];
    size_t fill = (size_t)(shown * 20 / total);
    bar[0] = '[';
    for (size_t i = 0; i < 20; i++)
        bar[i + 1] = i < fill ? '#' : ' ';
    bar[21] = ']';
    bar[22] = '\0';
    char eta[32] = "ETA --:--";
    if (rate > 0 && shown < total) {
        uint64_t s = (uint64_t)((double)(total - shown) / rate + 0.5);
        if (s >= 3600)
            snprintf(eta, sizeof eta, "ETA %llu:%02llu:%02llu", (unsigned long long)(s / 3600),
                     (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
        else
            snprintf(eta, sizeof eta, "ETA %llu:%02llu", (unsigned long long)(s / 60),
                     (unsigned long long)(s % 60));
    } else if (shown >= total) {
        snprintf(eta, sizeof eta, "ETA 0:00");
    }
    snprintf(out, n, "%s %s / %s  %3u%%  %s/s  %s", bar, d, t, pct, r, eta);
}

static void draw(struct cp_progress *p)
{
    char line[160];
    cp_progress_format(line, sizeof line, p->done, p->total, now_ms() - p->start_ms);
    fprintf(p->out, "\r%s\033[K", line);
    fflush(p->out);
    p->drawn = true;
}

void cp_progress_start(struct cp_progress *p, bool quiet, uint64_t total)
{
    memset(p, 0, sizeof *p);
    p->out = !quiet && isatty(STDERR_FILENO) ? stderr : NULL;
    p->total = total;
    p->start_ms = p->drawn_ms = now_ms();
}

void cp_progress_add(struct cp_progress *p, uint64_t n)
{
    p->done += n;
    if (!p->out)
        return;
    int64_t t = now_ms();
    if (t - p->drawn_ms >= 100) {
        p->drawn_ms = t;
        draw(p);
    }
}

void cp_progress_end(struct cp_progress *p, bool ok)
{
    if (!p->out)
        return;
    if (ok) {
        draw(p);
        fputc('\n', p->out);
    } else if (p->drawn) {
        fputs("\r\033[K", p->out);
    }
    fflush(p->out);
}
