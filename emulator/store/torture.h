/* torture.h: the deliberately broken builds of `make torture-selftest` (docs/torture.md).
 *
 * Built with -DEM_TORTURE_BREAK=N, the emulator breaks one promise, so the history check
 * (tests/torture/check.py) can be shown to name the anomaly that break causes. Off (0) in
 * every normal build: each switch below is a constant false, and the compiler drops it.
 *
 *   1 ack-early    em_journal_commit answers at once; the journal's thread writes the
 *                  record up to 200 ms later (a kill in between loses acknowledged
 *                  writes: lost-write)
 *   2 rv-low       the first revision a run hands out is 100 below the last one
 *                  (rv-backwards)
 *   3 watch-skip   a watch stream drops every 50th change it would send (watch-skip)
 *   4 watch-repeat a watch stream sends every 50th change twice (watch-repeat)
 *   5 watch-early  watches see changes before they are on disk, and each flush of the
 *                  journal waits 20 ms first (a kill then undoes changes a watch showed:
 *                  watch-unconfirmed)
 */
#ifndef EM_TORTURE_H
#define EM_TORTURE_H

#ifndef EM_TORTURE_BREAK
#define EM_TORTURE_BREAK 0
#endif

#define EM_TORTURE_ACK_EARLY (EM_TORTURE_BREAK == 1)
#define EM_TORTURE_RV_LOW (EM_TORTURE_BREAK == 2)
#define EM_TORTURE_WATCH_SKIP (EM_TORTURE_BREAK == 3)
#define EM_TORTURE_WATCH_REPEAT (EM_TORTURE_BREAK == 4)
#define EM_TORTURE_WATCH_EARLY (EM_TORTURE_BREAK == 5)

#endif
