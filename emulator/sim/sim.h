/* sim.h: the simulation's scheduler.
 *
 * Each kind that moves on its own has a controller (controllers/<kind>.c): reconcile()
 * brings one object up to date at an emulated time, writing what changed through
 * objects.h, and says when it next needs to run. The scheduler keeps, per object, the
 * emulated time it is due. It learns what changed by reading the journal, as a watch
 * does (a write only rings its bell, sim_wake): any change marks its object, and the
 * objects it may matter to, due at once (so controllers react to spec changes and to
 * each other's writes). A thread runs what falls due as the
 * emulated clock moves; a clock jump (em_sim_advance) runs every due time on the way,
 * in order, so an hour jumped over is an hour simulated. Everything runs with the server
 * lock held; a round over many due objects runs in slices (sim.c), the hot trees trimmed
 * between them, and the thread lets go of the lock between slices.
 */
#ifndef EM_SIM_H
#define EM_SIM_H

#include <jansson.h>
#include <stdint.h>

#include "kinds/registry.h"
#include "server.h"

#include "due.h"

struct em_admission;

struct em_entry;

struct em_controller {
    const char *plural;
    /* Brings obj (the stored object: never change it in place) up to date at now
     * (emulated ms) and returns the emulated time it next needs to run, or EM_NEVER. */
    int64_t (*reconcile)(struct em_server *srv, const struct nd_kind *k, json_t *obj,
                         int64_t now);
    /* The kind's own write-time rules (controllers/admit.h), or NULL: 0 to go on, or -1
     * with a->st filled. */
    int (*admit)(struct em_admission *a, const json_t *old, json_t *obj);
    /* Whether reconcile would change nothing, read from the object's record alone
     * (store/entry.h: no tree is built); then *due is what it would return. NULL, or
     * false: reconcile runs. */
    bool (*idle)(struct em_server *srv, const struct nd_kind *k, const json_t *rec, int64_t now,
                 int64_t *due);
    /* Whether the object's common step (a running Job's minute) was written from its
     * stored bytes and record alone (no tree built); then *due is what reconcile would
     * have returned. NULL, or false: reconcile runs. */
    bool (*minute)(struct em_server *srv, const struct nd_kind *k, const struct em_entry *e,
                   int64_t now, int64_t *due);
};

/* The controllers (controllers/controllers.c). */
const struct em_controller *em_controller_find(const struct nd_kind *k);

/* At start: each object due when it was due at the last clean stop (the schedule it
 * saved, em_sim_save), when the objects are exactly those it saved; else (a first start,
 * a crash, a hand edit, another address or price book) every object due now. */
void em_sim_init(struct em_server *srv);
/* At a clean stop, with the simulation stopped: saves every due time for the next start
 * (DIR/history/schedule). */
void em_sim_save(struct em_server *srv);
void em_sim_release(struct em_server *srv);
/* Starts and stops the thread that runs what falls due in real time. */
int em_sim_start(struct em_server *srv);
void em_sim_stop(struct em_server *srv);
/* An object is due now (the journal's changes; controllers that wake others). */
void em_sim_touch(struct em_server *srv, const struct nd_kind *k, const json_t *obj);
/* Every stored object is due now (at start, when prices move). */
void em_sim_touch_all(struct em_server *srv);
/* Objects obj's change may matter to are due now too: its owners, the Pool it names,
 * the Volumes it mounts, the Budgets of its project. */
void em_sim_touch_related(struct em_server *srv, const struct nd_kind *k, const json_t *obj);
/* Runs every object due at or before now, again until none is (after the round the
 * thread left open, at its own time); the earliest later due time (EM_NEVER when nothing
 * is pending). Trims the hot trees between slices: no borrowed tree may live across it. */
int64_t em_sim_run(struct em_server *srv, int64_t now);
/* Moves the clock forward by ms, running everything due on the way in time order, then
 * housekeeps, saves emulator.json and wakes every waiting stream (the admin API's clock
 * jump). Lock held. */
void em_sim_advance(struct em_server *srv, int64_t ms);
/* When a controller's periodic look at what no write records (a Volume's files) is next
 * due: now + period. Within a clock jump no real time passes, so such a look can only
 * find what the one before it found: it skips to the last time of its period before the
 * jump ends, the time a look every period would have reached (changes on the way still
 * make the object due at once), so a jump of hours costs its changes, not its minutes. */
int64_t em_sim_every(const struct em_server *srv, int64_t now, int64_t period);

#endif
