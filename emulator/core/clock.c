#include "clock.h"

#include <stdint.h>
#include <time.h>

int64_t em_real_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void em_clock_init(struct em_clock *c, double speed, int64_t offset_ms)
{
    c->base_real_ms = em_real_now_ms();
    c->base_emu_ms = c->base_real_ms + offset_ms;
    c->speed = speed >= 0 ? speed : 1.0;
    if (c->speed == 0) /* a stopped clock stands on a whole second: times add up exactly */
        c->base_emu_ms -= c->base_emu_ms % 1000;
}

void em_clock_init_at(struct em_clock *c, double speed, int64_t emu_ms)
{
    c->base_real_ms = em_real_now_ms();
    c->base_emu_ms = emu_ms;
    c->speed = speed >= 0 ? speed : 1.0;
}

int64_t em_clock_now_ms(const struct em_clock *c)
{
    int64_t real = em_real_now_ms() - c->base_real_ms;
    return c->base_emu_ms + (int64_t)((double)real * c->speed);
}

int64_t em_clock_offset_ms(const struct em_clock *c)
{
    return em_clock_now_ms(c) - em_real_now_ms();
}

void em_clock_advance(struct em_clock *c, int64_t ms)
{
    c->base_emu_ms += ms;
    c->gen++;
}

void em_clock_set_speed(struct em_clock *c, double speed)
{
    int64_t now = em_clock_now_ms(c);
    c->base_real_ms = em_real_now_ms();
    c->base_emu_ms = now;
    c->speed = speed >= 0 ? speed : 1.0;
    c->gen++;
}

int64_t em_clock_real_delay_ms(const struct em_clock *c, int64_t emu_ms)
{
    int64_t d = emu_ms - em_clock_now_ms(c);
    if (d <= 0)
        return 0;
    if (c->speed <= 0)
        return INT64_MAX; /* a stopped clock moves only when advanced */
    return (int64_t)((double)d / c->speed) + 1;
}
