#!/usr/bin/env python3
"""check.py: the history check's checker (`make torture`, docs/torture.md).

Reads a history run.py recorded (one JSON object a line; run.py's docstring describes
them) and prints every anomaly, one line each, then a summary line:

  lost-write          an acknowledged write missing or reverted: a read that began after
                      the acknowledgement and after a restart shows an older version
  stale-read          the same without a restart between: a read older than a write
                      acknowledged before the read began
  flip                a read older than what an earlier read (ended before it began)
                      showed: an indeterminate write seen, then gone (or gone, then back)
  rv-backwards        a resourceVersion at or below one acknowledged or listed before the
                      operation began (a write's must be higher, a list's not lower)
  watch-skip          a watch stream passed an acknowledged change without sending it
  watch-repeat        a watch stream sent a change twice (or went back)
  watch-unconfirmed   a watch stream sent a change nothing confirms: not acknowledged, no
                      read showed it, and no watch opened after the first restart after its
                      write began sent it (or it contradicts what was acknowledged at that
                      revision)
  failed-write-visible  a write answered with a refusal (4xx) is seen

A write's outcome: a 2xx answer is acknowledged; a 4xx a refusal (it did nothing); no
answer (the connection cut, a timeout) or a 5xx is indeterminate: it may or may not
have happened, and either is fine as long as every read agrees after the first that
shows it. A create that finds the object there answers 200 with the object as it is: a
read. Exit status 0 when the history is clean, 1 when it holds an anomaly, 2 on a history
that cannot be read. --expect KIND: exit 0 only when an anomaly of KIND was found (the
self-tests of the broken builds).
"""
import argparse
import bisect
import json
import sys
from collections import defaultdict

KINDS = ["lost-write", "stale-read", "flip", "rv-backwards", "watch-skip", "watch-repeat",
         "watch-unconfirmed", "failed-write-visible"]
WRITES = ("create", "update", "cupdate", "delete")


class Obs:
    """A read of one key: present at rv with tok, or absent (rv None; lrv: a list's rv)."""
    __slots__ = ("start", "end", "rv", "tok", "lrv", "what")

    def __init__(self, start, end, rv, tok, lrv, what):
        self.start, self.end, self.rv, self.tok, self.lrv, self.what = \
            start, end, rv, tok, lrv, what


class PrefixMax:
    """Items sorted by a time; the item of highest value among those before a time."""

    def __init__(self, items):  # items: (time, value, payload)
        items = sorted(items, key=lambda x: x[0])
        self.times = [t for t, _, _ in items]
        self.best = []
        cur = None
        for it in items:
            if cur is None or it[1] > cur[1]:
                cur = it
            self.best.append(cur)

    def before(self, t):
        i = bisect.bisect_left(self.times, t)
        return self.best[i - 1] if i else None


def outcome(op):
    st = op.get("status")
    if st is None or st >= 500:
        return "indeterminate"
    if 200 <= st < 300:
        return "ok"
    return "refused"


def describe(op):
    s = "%s c%s#%s" % (op["op"], op["c"], op["n"])
    if op.get("key"):
        s += " %s" % op["key"]
    return s + " [%.3f-%.3f]" % (op["start"], op["end"])


class Checker:
    def __init__(self, lines):
        self.ops, self.segs, self.evs, self.kills = [], {}, defaultdict(list), []
        for ln in lines:
            r = json.loads(ln)
            t = r.get("t")
            if t == "op":
                self.ops.append(r)
            elif t == "seg":
                self.segs[(r["w"], r["seg"])] = r
            elif t == "ev":
                self.evs[(r["w"], r["seg"])].append(r)
            elif t == "kill":
                self.kills.append(r["at"])
        self.kills.sort()
        self.found = defaultdict(list)

    def anomaly(self, kind, msg):
        self.found[kind].append(msg)

    def killed_between(self, a, b):
        i = bisect.bisect_right(self.kills, a)
        return i < len(self.kills) and self.kills[i] < b

    # -- what the history says ------------------------------------------------------
    def index(self):
        self.writes = {}                  # token -> write op
        self.acked = defaultdict(list)    # key -> (end, rv, op): acknowledged writes
        self.deletes = defaultdict(list)  # key -> deletes not refused
        self.obs = defaultdict(list)      # key -> Obs
        self.rv_ops = []                  # ops whose answer carries a revision
        self.acked_rvs = {}               # rv -> (key, tok) of an acknowledged create/update
        keys = set()
        for op in self.ops:
            if op.get("key"):
                keys.add(op["key"])
            for k in op.get("items", {}):
                keys.add(k)
        for op in self.ops:
            self.index_op(op, keys)
        self.confirmed = set()            # (key, rv, tok) a read or an ack showed
        for k, lst in self.obs.items():
            for o in lst:
                if o.rv is not None:
                    self.confirmed.add((k, o.rv, o.tok))
        for rv, (k, tok) in self.acked_rvs.items():
            self.confirmed.add((k, rv, tok))

    def index_op(self, op, keys):
        kind, out, key = op["op"], outcome(op), op.get("key")
        if kind in WRITES:
            self.writes[op["tok"]] = op
            if kind == "delete" and out != "refused":
                self.deletes[key].append(op)
        if out != "ok":
            if kind == "get" and op.get("status") == 404:
                self.obs[key].append(Obs(op["start"], op["end"], None, None, None, op))
            return
        if kind == "list":
            self.rv_ops.append(op)
            items = op.get("items", {})
            for k in keys:
                rv, tok = items.get(k, (None, None))
                self.obs[k].append(Obs(op["start"], op["end"], rv, tok, op["rv"], op))
        elif kind == "get" or (kind != "delete" and op.get("seen") != op["tok"]):
            self.obs[key].append(Obs(op["start"], op["end"], op["rv"], op.get("seen"), None, op))
        elif kind == "delete":
            # the answer is the object as it was: the deletion comes after its rv
            if "rv" in op:
                self.acked[key].append((op["end"], op["rv"] + 0.5, op))
        else:
            self.acked[key].append((op["end"], op["rv"], op))
            self.acked_rvs[op["rv"]] = (key, op["tok"])
            self.rv_ops.append(op)

    # -- the checks -----------------------------------------------------------------
    def deleted_between(self, key, after, before, cache):
        """A delete of key (not refused) that may come after time `after` and before
        `before`: one that ended after `after` and began before `before`."""
        pm = cache.get(key)
        if pm is None:
            pm = cache[key] = PrefixMax([(d["start"], d["end"], d) for d in self.deletes[key]])
        best = pm.before(before)
        return best is not None and best[1] > after

    def check_reads(self):
        dcache = {}
        for key, obs in self.obs.items():
            acked = PrefixMax([(e, rv, op) for e, rv, op in self.acked[key]])
            present = PrefixMax([(o.end, o.rv, o) for o in obs if o.rv is not None])
            absent = PrefixMax([(o.end, o.lrv, o) for o in obs if o.rv is None and o.lrv])
            for o in obs:
                if self.read_vs_ack(key, o, acked, dcache):
                    continue
                self.read_vs_read(key, o, present, absent, dcache)

    def seen(self, o):
        return ("absent" if o.rv is None else "rv %d (%s)" % (o.rv, o.tok)) + \
            " by " + describe(o.what)

    def read_vs_ack(self, key, o, acked, dcache):
        w = acked.before(o.start)
        if w is None:
            return False
        wend, wrv, wop = w
        if wop["op"] == "delete":
            bad = o.rv is not None and o.rv < wrv
        elif o.rv is None:
            bad = not self.deleted_between(key, wop["start"], o.end, dcache)
        else:
            bad = o.rv < wrv
        if not bad:
            return False
        kind = "lost-write" if self.killed_between(wend, o.start) else "stale-read"
        self.anomaly(kind, "%s: %s acknowledged %s, then read %s" % (
            key, describe(wop), "the deletion" if wop["op"] == "delete" else
            "rv %d (%s)" % (wrv, wop["tok"]), self.seen(o)))
        return True

    def read_vs_read(self, key, o, present, absent, dcache):
        p = present.before(o.start)
        a = absent.before(o.start)
        if o.rv is not None:
            if p is not None and p[1] > o.rv:
                prev = p[2]
            elif a is not None and a[1] >= o.rv:
                prev = a[2]
            else:
                return
        elif p is not None and not self.deleted_between(key, p[2].start, o.end, dcache):
            prev = p[2]
        else:
            return
        self.anomaly("flip", "%s: read %s, then read %s" % (key, self.seen(prev), self.seen(o)))

    def check_rvs(self):
        done = PrefixMax([(op["end"], op["rv"], op) for op in self.rv_ops])
        for op in self.rv_ops:
            b = done.before(op["start"])
            if b is None:
                continue
            if b[1] > op["rv"] or (b[1] == op["rv"] and op["op"] != "list"):
                self.anomaly("rv-backwards", "%s answered rv %d after %s answered rv %d" % (
                    describe(op), op["rv"], describe(b[2]), b[1]))

    def check_watches(self):
        rvs = sorted(self.acked_rvs)
        order = sorted((seg["start"], sk) for sk, seg in self.segs.items())
        starts = [s for s, _ in order]
        sent = {sk: {(e["key"], e["rv"], e["tok"]) for e in evs} for sk, evs in self.evs.items()}

        def sent_after(t, at):
            """Whether a watch opened after the first kill after `at` (when the write began)
            sent t: it came from the journal (after the last kill no client writes)."""
            i = bisect.bisect_right(self.kills, at)
            if i == len(self.kills):
                return True
            j = bisect.bisect_right(starts, self.kills[i])
            return any(t in sent.get(sk, ()) for _, sk in order[j:])

        for sk, seg in self.segs.items():
            self.check_segment(sk, seg, self.evs.get(sk, []), rvs)
            for e in self.evs.get(sk, []):
                self.check_event(sk, e, sent_after)

    def check_segment(self, sk, seg, evs, rvs):
        last = None
        for e in evs:
            if last is not None and e["rv"] <= last:
                self.anomaly("watch-repeat", "watch w%s seg %s (from %s): rv %d (%s %s) after rv %d"
                             % (sk[0], sk[1], seg["from"], e["rv"], e["type"], e["key"], last))
            last = e["rv"] if last is None else max(last, e["rv"])
        if last is None:
            return
        got = {e["rv"] for e in evs}
        for i in range(bisect.bisect_right(rvs, seg["from"]), bisect.bisect_right(rvs, last)):
            if rvs[i] not in got:
                key, tok = self.acked_rvs[rvs[i]]
                self.anomaly("watch-skip", "watch w%s seg %s (from %s, up to %d) skipped rv %d "
                             "(%s %s, acknowledged)" % (sk[0], sk[1], seg["from"], last, rvs[i],
                                                        key, tok))

    def check_event(self, sk, e, sent_after):
        if e["type"] == "DELETED":
            return
        t = (e["key"], e["rv"], e["tok"])
        w = self.writes.get(e["tok"])
        if w is not None and outcome(w) == "refused":
            self.anomaly("failed-write-visible", "watch w%s seg %s sent rv %d (%s %s), written "
                         "by %s, answered %s" % (sk[0], sk[1], e["rv"], e["key"], e["tok"],
                                                 describe(w), w["status"]))
            return
        if t in self.confirmed:
            return
        ack = self.acked_rvs.get(e["rv"])
        if ack is None and sent_after(t, e["at"] if w is None else w["start"]):
            return
        self.anomaly("watch-unconfirmed", "watch w%s seg %s sent rv %d (%s %s %s)%s" % (
            sk[0], sk[1], e["rv"], e["type"], e["key"], e["tok"],
            "" if ack is None else ", but rv %d is %s %s, acknowledged" % ((e["rv"],) + ack)))

    def check_refused(self):
        for key, obs in self.obs.items():
            for o in obs:
                w = self.writes.get(o.tok) if o.tok else None
                if w is not None and outcome(w) == "refused":
                    self.anomaly("failed-write-visible", "%s: read %s, written by %s, answered %s"
                                 % (key, self.seen(o), describe(w), w["status"]))

    def run(self):
        self.index()
        self.check_reads()
        self.check_rvs()
        self.check_watches()
        self.check_refused()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("history")
    p.add_argument("--max", type=int, default=20, help="lines printed per kind (default 20)")
    p.add_argument("--expect", choices=KINDS, help="exit 0 only if this kind was found")
    a = p.parse_args()
    try:
        with open(a.history) as f:
            c = Checker(f)
    except (OSError, ValueError, KeyError) as e:
        print("check.py: %s: cannot read the history: %s" % (a.history, e), file=sys.stderr)
        return 2
    c.run()
    for kind in KINDS:
        for msg in c.found[kind][:a.max]:
            print("%s: %s" % (kind, msg))
        if len(c.found[kind]) > a.max:
            print("%s: ... and %d more" % (kind, len(c.found[kind]) - a.max))
    nev = sum(len(v) for v in c.evs.values())
    total = sum(len(v) for v in c.found.values())
    print("check.py: %d operations, %d watch events, %d kills: %d anomalies (%s)" % (
        len(c.ops), nev, len(c.kills), total,
        ", ".join("%s %d" % (k, len(c.found[k])) for k in KINDS)))
    if a.expect:
        return 0 if c.found[a.expect] else 1
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
