#!/usr/bin/env python3
"""Writes docs/benchmarks.md and its plots from one run of bench/run.sh.

    report.py RESULTS.tsv OUTDIR --quick 0|1 --seconds S --commit C --machine M --durations D

RESULTS.tsv: section, server, N, connections, mode, metric, value (one per line, tabs).
Writes OUTDIR/benchmarks.md and OUTDIR/bench/{throughput,list}.png (gnuplot)."""
import argparse
import datetime
import os
import statistics
import subprocess
import sys

p = argparse.ArgumentParser()
p.add_argument("results")
p.add_argument("out")
p.add_argument("--quick", default="0")
p.add_argument("--seconds", default="?")
p.add_argument("--commit", default="?")
p.add_argument("--machine", default="?")
p.add_argument("--durations", default="?")
p.add_argument("--note", default="", help="a line on how this run was made, when it was not one plain run")
a = p.parse_args()

R = {}  # (section, server, N, conns, mode, metric) -> [values]
for line in open(a.results):
    f = line.rstrip("\n").split("\t")
    if len(f) != 7:
        continue
    R.setdefault(tuple(f[:6]), []).append(f[6])


def get(section, server, n, conns, mode, metric, how=None):
    v = R.get((section, server, str(n), str(conns), mode, metric))
    if not v:
        return None
    try:
        nums = [float(x) for x in v]
    except ValueError:
        return v[0]
    return statistics.median(nums) if how == "median" else nums[-1]


def Ns(section, server):
    return sorted({int(k[2]) for k in R if k[0] == section and k[1] == server and k[2].isdigit()})


def fnum(x, unit=""):
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    if abs(x) >= 100 or x == int(x):
        s = f"{x:,.0f}"
    elif abs(x) >= 10:
        s = f"{x:.1f}"
    else:
        s = f"{x:.2f}"
    return s + unit


def fn(n):
    n = int(n)
    if n >= 1000000 and n % 1000000 == 0:
        return f"{n // 1000000}M"
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def verdict(vs):
    if vs is None:
        return "—"
    return "**meets**" if vs >= 1 else "**misses**"


misses = []
# the two kinds of state every emulator row is measured on (the server column of the TSV)
STATES = [("emulator", "seeded"), ("emulator-sim", "API, sim on")]


def states(section):
    """(server, label) of the states that have rows of section."""
    return [(srv, lab) for srv, lab in STATES if Ns(section, srv)]


def fm(srv):
    """the mode column of the floors measured beside srv's rows"""
    return "-" if srv == "emulator" else srv


def floor_of(section, server, n, conns, srv, metric):
    """the floor measured beside srv's rows, else (a quick run) the seeded rows' one"""
    v = get(section, server, n, conns, fm(srv), metric)
    return v if v is not None else get(section, server, n, conns, "-", metric)


def miss_label(label, srv):
    return label if srv == "emulator" else f"{label} [API, sim on]"


def vs_row(name, measured, target, higher_better):
    """measured/target (higher better) or target/measured: >= 1 means the target holds."""
    if measured is None or target is None or measured == 0:
        return None
    vs = measured / target if higher_better else target / measured
    if vs < 1:
        misses.append(name)
    return vs


md = []
w = md.append
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
quick = a.quick == "1"

w("# Benchmarks")
w("")
w("Speed and memory targets are measured here, never in timed unit tests. `make bench`")
w("reproduces every figure on the machine it runs on and rewrites this page and its plots")
w("(`BENCH_QUICK=1 make bench`: a two-minute subset at N = 1k; `BENCH_OUT=DIR` writes")
w("`DIR/benchmarks.md` and `DIR/bench/` instead of `docs/`). The raw figures of the run are")
w("in [bench/results.tsv](bench/results.tsv).")
w("")
w("How to read the tables. Absolute figures on a shared 2-core machine move by half from")
w("run to run, so every emulator figure sits beside a **floor** measured in the same run,")
w("interleaved with it:")
w("")
w("- the **ceiling** (`bench/ceiling.c`): libmicrohttpd in the emulator's own mode (thread")
w("  per connection, internal polling thread, the same limits) answering every request")
w("  with a fixed 679-byte Job, and a request with `?limit=500` with a list of 500 of them;")
w("  nothing the emulator serves over HTTP can be cheaper;")
w("- the **fsync floor** (`bench/fsyncfloor.c`): a loop of 600-byte appends, each followed")
w("  by `fdatasync`, on the same filesystem: what one durable write costs here;")
w("- the **fan-out floor** (`bench/fanout.c`): a bare server with two epoll threads and no")
w("  HTTP library sending each create to every watch stream, one `send()` a stream: what")
w("  a watch event costs any server over loopback TCP.")
w("")
w("**ratio** is the emulator's figure over its floor; **vs target** is how far the target")
w("holds (measured/target, or target/measured for an upper bound): 1 or more meets it,")
w("under 1 misses it. The load comes from `bench/load.c` (HTTP/1.1 keep-alive, one")
w("request in flight per connection, latency per request). Every emulator row is measured")
w("on two kinds of state, named in the tables' *state* column: **seeded**, objects written")
w("as the state directory's files directly (`bench/seed.c`: copies of a Job the emulator")
w("created, in the documented layout) and the emulator then started on them with")
w("`--no-simulation` (storage and HTTP only), which is also the start-to-ready measurement;")
w("and **API, sim on**, what users run: the Jobs created through the API (8 connections),")
w("each with the Event the emulator records, and the simulation on (its controllers")
w("working on every Job). The second kind also gives the *Restart* rows: a clean stop and")
w("start of that state, and a start after `kill -9` (recovery from the journal), with the")
w("time, the memory and the bytes each wrote. A full run adds the rows at a million")
w("seeded objects, and *Beside the run before issue 25* sets every row beside its figure")
w("at commit `1d3ca13`. `BENCH_ONLY=GROUP,...` measures some groups of rows alone")
w("(`bench/run.sh` lists them; its report goes to `/tmp/nodus-bench-only/`). The")
w("emulator runs on loopback.")
w("")
w("## This run")
w("")
w(f"- date: {now}; commit `{a.commit}`; {'**quick subset** (`BENCH_QUICK=1`)' if quick else 'full run'}, "
  f"{a.seconds} s in all")
w(f"- machine: {a.machine}")
w(f"- durations: {a.durations}")
if a.note:
    w(f"- {a.note}")
w("")

# ---------------------------------------------------------------- GET one object
TABLE_HEAD = ("| N | connections | measured | floor | ratio | target | vs target | |\n"
              "| --- | --- | --- | --- | --- | --- | --- | --- |")
w("## GET one object")
w("")
w("Requests/s for `GET .../namespaces/bench/jobs/NAME` (one object of N in the kind), and")
w("the ceiling's requests/s at the same connection count. Target: ≥ 0.70 of the ceiling.")
w("")
w("| state | N | connections | req/s (p50 / p99 ms) | ceiling req/s | ratio | target | vs target | |")
w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for srv, lab in states("get"):
    for n in Ns("get", srv):
        for c in (1, 16):
            e = get("get", srv, n, c, "-", "rps")
            f = floor_of("get", "ceiling", n, c, srv, "rps")
            r = e / f if e and f else None
            vs = vs_row(miss_label(f"GET one object, N={fn(n)}, {c} conn", srv), r, 0.70, True)
            w(f"| {lab} | {fn(n)} | {c} | {fnum(e)} ({fnum(get('get', srv, n, c, '-', 'p50_ms'))} / "
              f"{fnum(get('get', srv, n, c, '-', 'p99_ms'))}) | {fnum(f)} | {fnum(r)} | ≥ 0.70 | "
              f"{fnum(vs)} | {verdict(vs)} |")
for n in Ns("wrk", "emulator"):
    e = get("wrk", "emulator", n, 16, "-", "rps")
    f = get("wrk", "ceiling", n, 16, "-", "rps")
    le = get("get", "emulator", n, 16, "-", "rps")
    lf = get("get", "ceiling", n, 16, "-", "rps")
    w("")
    w(f"Cross-check with wrk (2 threads, 16 connections, N = {fn(n)}): emulator {fnum(e)} req/s, "
      f"ceiling {fnum(f)} req/s, ratio {fnum(e / f if e and f else None)} (`bench/load`: "
      f"{fnum(le / lf if le and lf else None)}).")
w("")

# ---------------------------------------------------------------- creates
w("## Creates per `--fsync` mode")
w("")
w("Creates/s of a Job (`POST .../namespaces/bench/jobs`, a new name each), into a kind that")
w("already holds N Jobs. The floor of `always` and `batch` is the fsync floor (durable")
w("appends/s of one writer: without group commit, one connection cannot beat it); the floor")
w("of `never` is the ceiling answering the same POSTs. Targets: `always` and `batch` ≥ 1,000")
w("at 1 connection and ≥ 3,000 at 8; `never` ≥ 5,000 at 8.")
w("")
w("The **file floor** is what this filesystem itself allows for a create done the")
w("emulator's way, without any HTTP or JSON: two new files written to temporary names and")
w("renamed into place (the object and its Event) and one journal append, flushed with")
w("`fdatasync` for `always`/`batch` (the ext4 journal commits the new inodes and directory")
w("entries with it) and not flushed for `never`; one writer, so one create per flush.")
w("")
w("| state | N | --fsync | connections | creates/s (p50 / p99 ms) | floor | ratio | file floor | ratio to it | target | vs target | |")
w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
targets = {("always", 1): 1000, ("always", 8): 3000, ("batch", 1): 1000, ("batch", 8): 3000,
           ("never", 8): 5000}
for srv, lab, n in [(srv, lab, n) for srv, lab in states("create") for n in Ns("create", srv)]:
    for mode in ("always", "batch", "never"):
        for c in (1, 8):
            e = get("create", srv, n, c, mode, "rps")
            if mode == "never":
                f = floor_of("create", "ceiling", n, c, srv, "rps")
                fl = f"{fnum(f)} (ceiling)"
            else:
                f = floor_of("floor", "fsync", n, 1, srv, "ops_per_s")
                fl = f"{fnum(f)} (fsync)"
            r = e / f if e and f else None
            ff = floor_of("floor", "files-nosync" if mode == "never" else "files", n, 1, srv, "ops_per_s")
            rf = e / ff if e and ff else None
            t = targets.get((mode, c))
            vs = vs_row(miss_label(f"creates/s --fsync {mode}, N={fn(n)}, {c} conn", srv), e, t, True) if t else None
            w(f"| {lab} | {fn(n)} | {mode} | {c} | {fnum(e)} ({fnum(get('create', srv, n, c, mode, 'p50_ms'))} / "
              f"{fnum(get('create', srv, n, c, mode, 'p99_ms'))}) | {fl} | {fnum(r)} | "
              f"{fnum(ff)} | {fnum(rf)} | "
              f"{'≥ ' + format(t, ',') if t else '—'} | {fnum(vs)} | {verdict(vs)} |")
w("")

# ---------------------------------------------------------------- kill -9
w("## Acknowledged creates lost to `kill -9`")
w("")
w("8 connections create Jobs; every name answered 2xx is logged by the driver the moment")
w("the answer is in. The server is killed with SIGKILL mid-load, restarted on the same")
w("state, and every logged name is looked up in a list. Target: 0 missing with `always`")
w("and `batch`; `never` and json-server promise nothing (a process kill keeps the page")
w("cache, so only writes still inside the process can go: power loss would lose more).")
w("json-server's command line stores through lowdb's `FileAsync`: it answers a create")
w("before its rewrite of `db.json` has run, so the last acknowledged creates go.")
w("")
w("| server | --fsync | acked before the kill | missing after the restart | target | |")
w("| --- | --- | --- | --- | --- | --- |")
for mode in ("always", "batch", "never"):
    ack = get("kill", "emulator", 1000, 8, mode, "acked")
    mis = get("kill", "emulator", 1000, 8, mode, "missing")
    if mode in ("always", "batch") and mis is not None:
        ok = mis == 0
        if not ok:
            misses.append(f"kill -9 --fsync {mode}: {mis:.0f} acked creates missing")
        v = "**meets**" if ok else "**misses**"
        t = "0"
    else:
        v, t = "—", "none"
    w(f"| emulator | {mode} | {fnum(ack)} | {fnum(mis)} | {t} | {v} |")
ack = get("kill", "json-server", 1000, 8, "-", "acked")
mis = get("kill", "json-server", 1000, 8, "-", "missing")
w(f"| json-server | — | {fnum(ack)} | {fnum(mis)} | none | — |")
w("")

# ---------------------------------------------------------------- LIST
w("## LIST 500 of a kind")
w("")
w("`GET .../namespaces/bench/jobs?limit=500` (the first page) at 1 connection, N Jobs in the")
w("kind. The floor is the ceiling sending a list of 500 Jobs of the same shape. Target: the")
w("latency at N = 100k (and 1M) within 2× of the latency at N = 1k of the same state (vs")
w("target: 2 / (p50 at N / p50 at 1k)).")
w("")
w("| state | N | lists/s | p50 / p99 ms | ceiling p50 ms | ratio (p50 / ceiling p50) | p50 / p50 at 1k | target | vs target | |")
w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for srv, lab in states("list"):
    base = get("list", srv, 1000, 1, "-", "p50_ms")
    for n in Ns("list", srv):
        e = get("list", srv, n, 1, "-", "p50_ms")
        f = floor_of("list", "ceiling", n, 1, srv, "p50_ms")
        rel = e / base if e and base else None
        vs = vs_row(miss_label(f"LIST 500 at N={fn(n)}", srv), rel, 2.0, False) if rel else None
        w(f"| {lab} | {fn(n)} | {fnum(get('list', srv, n, 1, '-', 'rps'))} | {fnum(e)} / "
          f"{fnum(get('list', srv, n, 1, '-', 'p99_ms'))} | {fnum(f)} | "
          f"{fnum(e / f if e and f else None)} | {fnum(rel)} | ≤ 2 | {fnum(vs)} | {verdict(vs)} |")
w("")


def start_target(n):
    return 10000.0 if n >= 1000000 else 1000.0


# ---------------------------------------------------------------- start to ready
w("## Start to ready")
w("")
w("From exec to the first `200` from `/readyz` (polled every 0.5 ms by `bench/waitready.c`),")
w("on an empty state (median of 3), on the seeded states (first start, and the restart")
w("after the GET, LIST and watch load, from the checkpoint of the clean stop) and on the")
w("states made through the API with the simulation on (the start after a clean stop, and")
w("the start after `kill -9`: recovery from the journal; see *Restart*). The floor is the")
w("ceiling's exec to its first answer. Targets: ≤ 20 ms empty, ≤ 1 s with objects up to")
w("100k, ≤ 10 s at 1M.")
w("")
w("| state | N | start | ms | floor ms | ratio | target | vs target | |")
w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
floor = get("start", "ceiling", 0, "-", "-", "first_ms", "median")
e = get("start", "emulator", 0, "-", "always", "first_ms", "median")
vs = vs_row("start to ready, empty", e, 20.0, False)
w(f"| — | empty | first | {fnum(e)} | {fnum(floor)} | {fnum(e / floor if e and floor else None)} | ≤ 20 | {fnum(vs)} | {verdict(vs)} |")
for srv, lab in states("start"):
    for n in Ns("start", srv):
        if n == 0:
            continue
        rows = [("first", get("start", srv, n, "-", "always", "first_ms")),
                ("restart", get("start", srv, n, "-", "always", "restart_ms")),
                ("after kill -9", get("restart", srv, n, "-", "kill9", "ready_ms"))]
        for kind, e in rows:
            if e is None:
                continue
            t = start_target(n)
            vs = vs_row(miss_label(f"start to ready, N={fn(n)} ({kind})", srv), e, t, False)
            w(f"| {lab} | {fn(n)} | {kind} | {fnum(e)} | {fnum(floor)} | "
              f"{fnum(e / floor if e and floor else None)} | ≤ {fnum(t)} | {fnum(vs)} | {verdict(vs)} |")
w("")

# ---------------------------------------------------------------- restart
w("## Restart")
w("")
w("The state made through the API with the simulation on (N Jobs, each with its Event,")
w("created at 8 connections: *built at* creates/s), stopped cleanly (SIGTERM: *stop ms* until")
w("the process is gone) and started again, and later killed with `kill -9` right after a")
w("create and started again (recovery from the journal). *Written* is what each process")
w("had written to storage: the stop's bytes are the emulator's whole-life `write_bytes`")
w("(GNU time's `%O`) less its `/proc/PID/io` `write_bytes` just before the SIGTERM; the")
w("start's are its `write_bytes` once ready. *State* is `du -sb` of the state directory")
w("before the stop (or kill) and once ready again. Memory is VmRSS once ready. A start")
w("that rewrote every object would write about the state's size. Targets: see *Start to")
w("ready* and *Memory*.")
w("")
w("| N | built at creates/s | how | stop ms | start to ready ms | VmRSS MB (peak) | written by the stop MB | written by the start MB | state MB before → after |")
w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
MB = 1048576
for n in Ns("restart", "emulator-sim"):
    for how, label in (("clean", "clean stop, start"), ("kill9", "kill -9, start")):
        g = lambda m: get("restart", "emulator-sim", n, "-", how, m)
        if g("ready_ms") is None:
            continue
        rss = g("rss_kb") if how == "kill9" else get("mem", "emulator-sim", n, "-", "restart", "rss_kb")
        hwm = g("hwm_kb") if how == "kill9" else get("mem", "emulator-sim", n, "-", "restart", "hwm_kb")
        sb, sa = g("state_before"), g("state_after")
        w(f"| {fn(n)} | {fnum(get('build', 'emulator-sim', n, 8, 'always', 'rps'))} | {label} | "
          f"{fnum(g('stop_ms'))} | {fnum(g('ready_ms'))} | {fnum(rss / 1024 if rss else None)} "
          f"({fnum(hwm / 1024 if hwm else None)}) | {fnum(g('stop_bytes') / MB if g('stop_bytes') is not None else None)} | "
          f"{fnum(g('start_bytes') / MB if g('start_bytes') is not None else None)} | "
          f"{fnum(sb / MB if sb else None)} → {fnum(sa / MB if sa else None)} |")
        if g("lost"):
            misses.append(f"restart after kill -9, N={fn(n)}: a create acknowledged before the kill is gone")
w("")

# ---------------------------------------------------------------- memory
w("## Memory")
w("")
w("The emulator's resident memory (VmRSS, and the peak VmHWM) after the GET, LIST and")
w("watch load, and again right after a restart on the same state, against the size of")
w("`objects/` on disk (the JSON files' bytes, Events included). Target: ≤ 3 × the JSON on")
w("disk + 16 MB (at 100k and at 1M, and at every N measured), and the same before and")
w("after a restart.")
w("")
w("| state | N | when | VmRSS MB | VmHWM MB | JSON on disk MB | KB per object | target MB | vs target | |")
w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for srv, lab in states("mem"):
    for n in Ns("mem", srv):
        for when in ("first", "restart"):
            rss = get("mem", srv, n, "-", when, "rss_kb")
            hwm = get("mem", srv, n, "-", when, "hwm_kb")
            disk = get("mem", srv, n, "-", when, "disk_bytes")
            if rss is None or disk is None:
                continue
            t = 3 * disk / MB + 16
            wl = "after load" if when == "first" else "after restart"
            vs = vs_row(miss_label(f"memory at N={fn(n)} ({wl})", srv), rss / 1024, t, False)
            w(f"| {lab} | {fn(n)} | {wl} | {fnum(rss / 1024)} | "
              f"{fnum(hwm / 1024 if hwm else None)} | {fnum(disk / MB)} | {fnum(rss / n)} | ≤ {fnum(t)} | "
              f"{fnum(vs)} | {verdict(vs)} |")
w("")

# ---------------------------------------------------------------- watchers
w("## Watch fan-out")
w("")
w("`bench/watchers.c` opens W watches (`GET .../namespaces/watch/jobs?watch=1`, each its")
w("own connection: 1,000, and 10,000 on the seeded state at the first N; 10 at 1M), then")
w("creates one Job per round on another connection; per watcher,")
w("the delay from the create's acknowledgement to that watcher reading the ADDED event")
w("(negative: the event came before the acknowledgement). The rounds start once every")
w("stream has its response headers (*streams open*: from the first connect to the last")
w("stream's headers; an event not read within 10 s is *missed*). The **floor** is")
w("`bench/fanout.c` measured the same way just before each row: a bare server (two epoll")
w("threads as the emulator's loop has, no HTTP library, no JSON) that answers the create and")
w("then sends it as one chunk to every stream, one `send()` each: the loopback TCP and the")
w("receiver's side that any server pays. Target: p99 ≤ 10 ms up to 1,000 watchers, ≤ 50 ms")
w("at 10,000.")
w("")
w("| state | N in the store | watchers | streams open s | samples | missed | p50 ms | p99 ms | max ms | "
  "floor p50 / p99 ms | ratio (p99 / floor p99) | target | vs target | |")
w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for srv, lab in states("watch"):
    for n in Ns("watch", srv):
        for c in sorted({int(k[3]) for k in R if k[0] == "watch" and k[1] == srv and k[2] == str(n)}):
            g = lambda m: get("watch", srv, n, c, "-", m)
            p99, missed = g("p99_ms"), g("missed")
            f50, f99 = (floor_of("watch", "fanout", n, c, srv, m) for m in ("p50_ms", "p99_ms"))
            t = 50.0 if c > 1000 else 10.0
            vs = vs_row(miss_label(f"watch fan-out p99, N={fn(n)}, {c:,} watchers", srv),
                        max(p99, 0.001), t, False) if p99 is not None else None
            if missed:
                misses.append(miss_label(f"watch fan-out, N={fn(n)}, {c:,} watchers: {missed:.0f} events "
                                         "not received within 10 s", srv))
            ratio = p99 / f99 if p99 is not None and f99 else None
            w(f"| {lab} | {fn(n)} | {c:,} | {fnum(g('setup_s'))} | {fnum(g('samples'))} | {fnum(missed)} | "
              f"{fnum(g('p50_ms'))} | {fnum(p99)} | {fnum(g('max_ms'))} | {fnum(f50)} / {fnum(f99)} | "
              f"{fnum(ratio)} | ≤ {fnum(t)} | {fnum(vs)} | {verdict(vs)} |")
w("")

# ---------------------------------------------------------------- one create, cascade
w("## One create and a cascade delete among N")
w("")
w("*One create*: 50 creates of a Job one after another at 1 connection, `--fsync always`,")
w("into the kind holding N (p50 / p99 of their latency). *Cascade*: a Job owning 5 Jobs")
w("(`ownerReferences`) among the N is deleted (`propagationPolicy=Background`): the")
w("DELETE's answer, and the time until every dependent answers 404 (polled). No target")
w("(issue 25's owner index is to keep both flat as N grows).")
w("")
w("| state | N | one create p50 / p99 ms | cascade: DELETE answered ms | cascade: dependents gone ms |")
w("| --- | --- | --- | --- | --- |")
for srv, lab in states("one-create"):
    for n in Ns("one-create", srv):
        w(f"| {lab} | {fn(n)} | {fnum(get('one-create', srv, n, 1, 'always', 'p50_ms'))} / "
          f"{fnum(get('one-create', srv, n, 1, 'always', 'p99_ms'))} | "
          f"{fnum(get('cascade', srv, n, 5, '-', 'delete_ms'))} | {fnum(get('cascade', srv, n, 5, '-', 'gone_ms'))} |")
w("")
big = Ns("seed", "emulator")  # the N of the million rows (BENCH_MILLION_N)
if big or Ns("skipped", "million"):
    w("## A million objects")
    w("")
    if big:
        n = big[-1]
        w(f"The seeded state at N = {fn(n)} (written by `bench/seed.c` in "
          f"{fnum(get('seed', 'emulator', n, '-', '-', 'secs'))} s) has its rows in the tables above:")
        w("start to ready (first and restart), memory, GET, LIST 500, one create, a watch (10")
        w("watchers) and a cascade delete. It runs in a full `make bench` only (or")
        w("`BENCH_ONLY=million`), when the disk and the memory have room for it.")
    else:
        w("Skipped in this run: too little free disk or memory for it (see the run's output).")
    w("")

# ---------------------------------------------------------------- json-server
w("## Beside json-server")
w("")
js_ver = "?"
try:
    import json
    js_ver = json.load(open(os.path.join(os.path.dirname(__file__), "node_modules", "json-server",
                                         "package.json")))["version"]
except Exception:
    pass
node_ver = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
w(f"The same load against [json-server](https://github.com/typicode/json-server) {js_ver} (pinned in")
w(f"`bench/package.json`, installed under `bench/node_modules` by `make bench`; node {node_ver}),")
w("seeded with the same N Jobs in its `db.json`: `GET /jobs/NAME`, `GET /jobs?_limit=500`,")
w("`POST /jobs`. json-server rewrites its whole `db.json` on every write (asynchronously,")
w("to a temporary file renamed over it, without fsync).")
w("Emulator creates are with `--fsync always`.")
w("")
w("| N | load | emulator | json-server | emulator / json-server |")
w("| --- | --- | --- | --- | --- |")
for n in Ns("get", "json-server"):
    rows = [("GET req/s, 1 connection", ("get", 1, "-", "rps"), ("get", 1, "-", "rps")),
            ("GET req/s, 16 connections", ("get", 16, "-", "rps"), ("get", 16, "-", "rps")),
            ("LIST 500 p50 ms", ("list", 1, "-", "p50_ms"), ("list", 1, "-", "p50_ms")),
            ("creates/s, 1 connection", ("create", 1, "always", "rps"), ("create", 1, "-", "rps")),
            ("creates/s, 8 connections", ("create", 8, "always", "rps"), ("create", 8, "-", "rps")),
            ("start to ready ms", ("start", "-", "always", "first_ms"), ("start", "-", "-", "first_ms")),
            ("memory after load MB", ("mem", "-", "first", "rss_kb"), ("mem", "-", "first", "rss_kb"))]
    for label, ek, jk in rows:
        e = get(ek[0], "emulator", n, ek[1], ek[2], ek[3])
        j = get(jk[0], "json-server", n, jk[1], jk[2], jk[3])
        if label.startswith("memory"):
            e = e / 1024 if e else None
            j = j / 1024 if j else None
        w(f"| {fn(n)} | {label} | {fnum(e)} | {fnum(j)} | {fnum(e / j if e and j else None)} |")
w("")

# ---------------------------------------------------------------- CLI
w("## The CLI: nodus vs kubectl")
w("")
kver = get("cli-version", "kubectl", "-", "-", "-", "version") or "not installed"
w("Warm `nodus` against warm `kubectl` "
  f"({kver}, its discovery cache warm) on one emulator holding N Jobs in project")
w("`default` (created through the API with `nodus create -f`; the emulator with")
w("`--no-simulation`, and again with the simulation on, where each Job also has its")
w("Event and the controllers' status): wall time with `hyperfine -N` (no shell in")
w("between), peak memory with GNU `time -f %M` (highest of 3 runs). `apply -f` applies an")
w("unchanged object. The targets are for `get jobs`: nodus at most 1/10 of kubectl's wall")
w("time and at most 1/5 of its memory (issues 4 and 25), and for `get jobs -o json` at")
w("most 1/6 of its wall time (issue 25); the other commands have no target and show the")
w("ratios only.")
w("")
w("| simulation | N | command | nodus ms (± σ) | kubectl ms (± σ) | time kubectl/nodus | nodus MB | kubectl MB | memory kubectl/nodus | |")
w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
labels = {"get": "get jobs", "get-json": "get jobs -o json", "get-name": "get job/NAME",
          "apply": "apply -f", "describe": "describe job NAME"}
for sec, sim in (("cli", "off"), ("cli-sim", "on")):
    for n in Ns(sec, "nodus"):
        for row, label in labels.items():
            nm = get(sec, "nodus", n, "-", row, "mean_ms")
            km = get(sec, "kubectl", n, "-", row, "mean_ms")
            nr = get(sec, "nodus", n, "-", row, "rss_kb")
            kr = get(sec, "kubectl", n, "-", row, "rss_kb")
            tr = km / nm if km and nm else None
            mr = kr / nr if kr and nr else None
            ok = None
            if row == "get" and tr is not None and mr is not None:
                ok = min(tr / 10, mr / 5)
            if row == "get-json" and tr is not None:
                ok = tr / 6
            if ok is not None and ok < 1:
                misses.append(f"CLI {label} at N={n}" + ("" if sim == "off" else " [simulation on]"))
            w(f"| {sim} | {n} | `{label}` | {fnum(nm)} ± {fnum(get(sec, 'nodus', n, '-', row, 'sd_ms'))} | "
              f"{fnum(km)} ± {fnum(get(sec, 'kubectl', n, '-', row, 'sd_ms'))} | {fnum(tr)} | "
              f"{fnum(nr / 1024 if nr else None)} | {fnum(kr / 1024 if kr else None)} | {fnum(mr)} | {verdict(ok)} |")
w("")

# ---------------------------------------------------------------- MCP (bench/mcp/section.py)
import importlib.util

sys.dont_write_bytecode = True  # no __pycache__ left in bench/mcp/
_spec = importlib.util.spec_from_file_location(
    "mcp_section", os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp", "section.py"))
mcp_section = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mcp_section)
md += mcp_section.render(R, misses, commit=a.commit)

# ---------------------------------------------------------------- the run before issue 25
_spec = importlib.util.spec_from_file_location(
    "report_before", os.path.join(os.path.dirname(os.path.abspath(__file__)), "report_before.py"))
report_before = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report_before)
md += report_before.render(R, os.path.join(os.path.dirname(os.path.abspath(__file__)), "before.tsv"),
                           misses)

# ---------------------------------------------------------------- plots
plots = os.path.join(a.out, "bench")
os.makedirs(plots, exist_ok=True)
dat = os.path.join(plots, ".plot.dat")
with open(dat, "w") as f:
    f.write("# N get1 get16 ceil16 create8_always create8_batch create8_never js_get16 js_create8 "
            "list_p50 js_list_p50 ceil_list_p50\n")
    for n in sorted(set(Ns("get", "emulator")) | set(Ns("get", "json-server"))):
        vals = [get("get", "emulator", n, 1, "-", "rps"), get("get", "emulator", n, 16, "-", "rps"),
                get("get", "ceiling", n, 16, "-", "rps"),
                get("create", "emulator", n, 8, "always", "rps"),
                get("create", "emulator", n, 8, "batch", "rps"),
                get("create", "emulator", n, 8, "never", "rps"),
                get("get", "json-server", n, 16, "-", "rps"),
                get("create", "json-server", n, 8, "-", "rps"),
                get("list", "emulator", n, 1, "-", "p50_ms"),
                get("list", "json-server", n, 1, "-", "p50_ms"),
                get("list", "ceiling", n, 1, "-", "p50_ms")]
        f.write(" ".join([str(n)] + ["NaN" if v is None else str(v) for v in vals]) + "\n")
gp = f"""
set terminal pngcairo size 900,520 font ",10"
set datafile missing "NaN"
set logscale xy
set grid
set key outside right
set xlabel "objects of the kind (N)"
set xrange [500:200000]
set output "{plots}/throughput.png"
set title "Throughput against N ({now}, {'quick' if quick else 'full'} run)"
set ylabel "requests/s"
plot "{dat}" u 1:4 w lp lw 2 t "ceiling GET, 16 conn", \\
     "{dat}" u 1:3 w lp lw 2 t "emulator GET, 16 conn", \\
     "{dat}" u 1:2 w lp lw 2 t "emulator GET, 1 conn", \\
     "{dat}" u 1:5 w lp lw 2 t "creates, always, 8 conn", \\
     "{dat}" u 1:6 w lp lw 2 t "creates, batch, 8 conn", \\
     "{dat}" u 1:7 w lp lw 2 t "creates, never, 8 conn", \\
     "{dat}" u 1:8 w lp lw 2 dt 2 t "json-server GET, 16 conn", \\
     "{dat}" u 1:9 w lp lw 2 dt 2 t "json-server creates, 8 conn"
set output "{plots}/list.png"
set title "LIST 500 latency (p50) against N"
set ylabel "ms"
plot "{dat}" u 1:10 w lp lw 2 t "emulator", \\
     "{dat}" u 1:11 w lp lw 2 dt 2 t "json-server", \\
     "{dat}" u 1:12 w lp lw 2 t "ceiling (fixed 500 items)"
"""
if Ns("get", "emulator") or Ns("get", "json-server"):
    try:
        r = subprocess.run(["gnuplot"], input=gp, text=True, capture_output=True)
        if r.returncode != 0:
            sys.stderr.write("report: gnuplot failed: " + r.stderr)
    except FileNotFoundError:
        sys.stderr.write("report: no gnuplot: the plots are not redrawn\n")
os.unlink(dat)
w("## Plots")
w("")
w("![Throughput of GET and creates against N](bench/throughput.png)")
w("")
w("![LIST 500 latency against N](bench/list.png)")
w("")

# ---------------------------------------------------------------- summary up top
summary = ["## Which targets miss", ""]
if misses:
    summary.append(f"{len(misses)} measured lines miss their target in this run:")
    summary.append("")
    summary += [f"- {m}" for m in misses]
else:
    summary.append("Every measured line meets its target in this run.")
summary.append("")
# what limits the rows that miss: measured, with profiles (bench/limits.md, kept by hand)
limits = os.path.join(os.path.dirname(os.path.abspath(__file__)), "limits.md")
if os.path.exists(limits):
    with open(limits) as f:
        summary += f.read().rstrip("\n").split("\n") + [""]
at = md.index("## GET one object")
md[at:at] = summary

with open(os.path.join(a.out, "benchmarks.md"), "w") as f:
    f.write("\n".join(md).rstrip("\n") + "\n")
