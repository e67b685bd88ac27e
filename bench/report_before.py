"""The "Beside the run before issue 25" section of docs/benchmarks.md (bench/report.py).

bench/before.tsv holds the figures of the full run at commit 1d3ca13 (the docs/bench/
results.tsv of that commit, seeded states with --no-simulation), kept as they were. Each
row's figure of this run sits beside its figure then, both as measured and, where the row
has a floor, as a ratio to the floor measured in the same run (so a slower or faster
machine moves both). A row is *worse* when its figure (the ratio to its floor where it has
one) is worse by more than 25% (the noise of this 2-core machine from run to run)."""
import statistics

MARGIN = 0.75


def load(path):
    R = {}
    try:
        f = open(path)
    except OSError:
        return None
    for line in f:
        x = line.rstrip("\n").split("\t")
        if len(x) == 7:
            R.setdefault(tuple(x[:6]), []).append(x[6])
    return R


def val(R, key, how=None):
    v = R.get(tuple(str(k) for k in key))
    if not v:
        return None
    try:
        nums = [float(x) for x in v]
    except ValueError:
        return None
    return statistics.median(nums) if how == "median" else nums[-1]


def rows(R):
    """(label, key of the figure, key of its floor or None, higher is better)"""
    out = []
    Ns = sorted({int(k[2]) for k in R if k[1] == "emulator" and k[2].isdigit() and int(k[2]) > 0})
    for n in Ns:
        for c in (1, 16):
            out.append((f"GET req/s, N={n:,}, {c} conn", ("get", "emulator", n, c, "-", "rps"),
                        ("get", "ceiling", n, c, "-", "rps"), True))
        for mode in ("always", "batch", "never"):
            for c in (1, 8):
                fl = (("create", "ceiling", n, c, "-", "rps") if mode == "never"
                      else ("floor", "fsync", n, 1, "-", "ops_per_s"))
                out.append((f"creates/s --fsync {mode}, N={n:,}, {c} conn",
                            ("create", "emulator", n, c, mode, "rps"), fl, True))
        out.append((f"LIST 500 p50 ms, N={n:,}", ("list", "emulator", n, 1, "-", "p50_ms"),
                    ("list", "ceiling", n, 1, "-", "p50_ms"), False))
        for kind in ("first", "restart"):
            out.append((f"start to ready ms, N={n:,} ({kind})",
                        ("start", "emulator", n, "-", "always", kind + "_ms"), None, False))
            out.append((f"VmRSS MB, N={n:,} ({'after load' if kind == 'first' else 'after restart'})",
                        ("mem", "emulator", n, "-", kind, "rss_kb"), None, False))
        out.append((f"watch p99 ms, N={n:,}, 1,000 watchers", ("watch", "emulator", n, 1000, "-", "p99_ms"),
                    None, False))
    for n in sorted({int(k[2]) for k in R if k[0] == "cli" and k[2].isdigit()}):
        for row, label in (("get", "get jobs"), ("get-json", "get jobs -o json")):
            out.append((f"nodus {label} ms, N={n:,}", ("cli", "nodus", n, "-", row, "mean_ms"),
                        ("cli", "kubectl", n, "-", row, "mean_ms"), False))
    return out


def fnum(x):
    if x is None:
        return "—"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"


def render(R, before_path, misses):
    B = load(before_path)
    md = ["## Beside the run before issue 25", ""]
    if B is None:
        return md + [f"No figures of the run before ({before_path} is missing).", ""]
    md += ["Every row of the full run at commit `1d3ca13` (seeded states, `--no-simulation`;",
           "`bench/before.tsv`) beside the same row of this run: the figure then and now, and",
           "where the row has a floor (the ceiling, the fsync floor, or kubectl for the CLI rows)",
           "its ratio to the floor measured in the same run (emulator/floor, or floor/emulator",
           "for latencies, so higher is better). Target: no row worse; a row is **worse** when",
           "it lost more than 25% (the ratio to its floor where it has one), the noise of this",
           "machine from run to run.", "",
           "| row | then | now | then vs floor | now vs floor | now / then | |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    shown = 0
    for label, key, fkey, higher in rows(B):
        now = val(R, key)
        if now is None:
            continue
        then = val(B, key)
        scale = 1 / 1024 if key[5] == "rss_kb" else 1
        rt = rn = None
        if fkey:
            ft, fn_ = val(B, fkey), val(R, fkey)
            if ft and fn_ and then and now:
                rt = then / ft if higher else ft / then
                rn = now / fn_ if higher else fn_ / now
        if rt is not None and rn is not None:
            gain = rn / rt
        elif then and now:
            gain = now / then if higher else then / now
        else:
            gain = None
        worse = gain is not None and gain < MARGIN
        if worse:
            misses.append(f"worse than before issue 25: {label} ({fnum(then * scale)} then, "
                          f"{fnum(now * scale)} now)")
        md.append(f"| {label} | {fnum(then * scale if then is not None else None)} | {fnum(now * scale)} | "
                  f"{fnum(rt)} | {fnum(rn)} | {fnum(gain)} | {'**worse**' if worse else ''} |")
        shown += 1
    if not shown:
        md.append("| (no row of the run before was measured in this run) | | | | | | |")
    md.append("")
    return md
