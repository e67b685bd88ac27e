/* clock.h: the emulator's own clock.
 *
 * Emulated time runs `speed` times faster than real time from the moment it was last
 * set, and can be advanced by a jump. Every timestamp the emulator writes (creation
 * times, phases, costs, history expiry) comes from here, so tests move time instead of
 * sleeping. Not thread-safe: used under the server lock.
 */
#ifndef EM_CLOCK_H
#define EM_CLOCK_H

#include <stdint.h>
#include <time.h>

struct em_clock {
    int64_t base_real_ms; /* CLOCK_REALTIME at the last re-base */
    int64_t base_emu_ms;  /* emulated time at the last re-base */
    double speed;         /* >= 0; 0: stands still but for advances */
    uint64_t gen;         /* bumped by every change but flowing (advance, speed, restore) */
};

/* Starts at real time (offset_ms = 0) or at real time + offset_ms (a saved clock). */
void em_clock_init(struct em_clock *c, double speed, int64_t offset_ms);
/* Starts at emulated time emu_ms exactly (a stopped clock saved at a stop: it stands
 * where it stood, however long the emulator was down). */
void em_clock_init_at(struct em_clock *c, double speed, int64_t emu_ms);
int64_t em_clock_now_ms(const struct em_clock *c);
/* Emulated minus real time, to save and restore across restarts. */
int64_t em_clock_offset_ms(const struct em_clock *c);
void em_clock_advance(struct em_clock *c, int64_t ms);
void em_clock_set_speed(struct em_clock *c, double speed);
/* Real milliseconds until the emulated clock reaches emu_ms (0 if already there). */
int64_t em_clock_real_delay_ms(const struct em_clock *c, int64_t emu_ms);
int64_t em_real_now_ms(void);

#endif
