#!/usr/bin/env python3
"""The section "nodus mcp vs kubernetes-mcp-server" of docs/benchmarks.md, from the mcp
rows of a results.tsv (bench/mcp.sh writes them).

bench/report.py calls render() for the whole page. Alone (make bench-mcp):

    section.py RESULTS.tsv --splice docs/benchmarks.md [--commit C --machine M]

replaces that section of the page (or adds it before "## Plots") and leaves the rest."""
import argparse
import datetime
import os

TITLE = "## nodus mcp vs kubernetes-mcp-server"


def load(path):
    R = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) == 7:
            R.setdefault(tuple(f[:6]), []).append(f[6])
    return R


def _val(R, server, task, metric, section="mcp", n=None):
    for k, v in R.items():
        if k[0] == section and k[1] == server and k[4] == task and k[5] == metric and (
                n is None or k[2] == str(n)):
            try:
                return float(v[-1])
            except ValueError:
                return v[-1]
    return None


def _fnum(x, unit=""):
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    if abs(x) >= 100:
        return f"{x:,.0f}{unit}"
    if abs(x) >= 10:
        return f"{x:.1f}{unit}"
    return f"{x:.2f}{unit}"


def _fbytes(x):
    return "—" if x is None else (x if isinstance(x, str) else f"{x:,.0f}")


def render(R, misses, when=None, machine=None, commit=None):
    """The section's lines; appends what misses its goal to misses."""
    g = lambda srv, task, metric: _val(R, srv, task, metric)
    if not any(k[0] == "mcp" for k in R):
        return []
    n = next((k[2] for k in R if k[0] == "mcp"), "100")
    peer_ver = next((v[-1] for k, v in R.items() if k[:2] == ("mcp-version", "peer")), "?")
    reps = int(g("peer", "get", "calls") or 0)
    md = []
    w = md.append
    w(TITLE)
    w("")
    w("The same agent tasks through `nodus mcp` and through")
    w(f"[kubernetes-mcp-server](https://github.com/containers/kubernetes-mcp-server) {peer_ver}")
    w("(npm `kubernetes-mcp-server-linux-amd64`, pinned in `bench/package.json`: a Go binary on")
    w("client-go, default toolsets, `--kubeconfig` at the emulator), both over stdio, driven by")
    w("the official MCP client (`@modelcontextprotocol/sdk`, the copy `tests/clients` pins) from")
    w(f"`bench/mcp/driver.mjs`, against one emulator with the simulation on and {n} Jobs created")
    w("through the API. Each repetition runs every task through nodus, raw HTTP and the peer in")
    w("turn (the next repetition the other way round); repetitions start at most every 1.2 s,")
    w("as an agent thinks between calls. The tasks: **list** the Jobs of a project (nodus")
    w(f"`list {{kind: jobs, limit: {n}}}`, the peer `resources_list` with its default table")
    w("output), **get** one (`get` / `resources_get`), **apply** a new Job from a YAML manifest")
    w("(`apply` / `resources_create_or_update`) and **delete** it (`delete` / `resources_delete`).")
    w("A Job costs money, so nodus's apply is a review (the estimate and an ETag, nothing")
    w("launched) and then the launch with that ETag: the task row is both calls, as an agent")
    w("must make them, and each call has a row of its own; the peer launches with one call.")
    w("")
    w("Latency is per call on the wire (the request written to the server's stdin to its answer")
    w("read from its stdout), median and p90; **bytes** are what the server wrote for the call")
    w("(the JSON-RPC message), with the text content's bytes in parentheses (what a host puts")
    w("in the model's context). The **floor** is the same work as one raw HTTP request to the")
    w("emulator on a new connection, its JSON answer's bytes in parentheses. **CPU** is what the")
    w("server used per call (user + system, from `/proc/PID/stat`, with the reaped children")
    w("where nodus runs each call), which a busy machine moves far less than latency. Goals (issue 23):")
    w("every nodus call faster than the peer's, and every list answer at most half its bytes.")
    w("")
    load = [next((v[-1] for k, v in R.items() if k[:2] == ("mcp-load", x)), "?") for x in ("before", "after")]
    run = f"{reps} repetitions; load average {load[0]} before, {load[1]} after"
    when = next((v[-1] for k, v in R.items() if k[:2] == ("mcp-date", "run")), when)
    if when or machine or commit:
        run = f"{when or '?'}; commit `{commit or '?'}`; {run}{'; ' + machine if machine else ''}"
    w(f"This section's run: {run}.")
    w("")
    w("| task | nodus p50 / p90 ms | peer p50 / p90 ms | floor p50 ms (bytes) | time nodus / peer | "
      "CPU ms nodus / peer | nodus bytes (text) | peer bytes (text) | bytes nodus / peer | goal |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = [
        ("list", "list", f"list {n} Jobs", "list", True),
        ("get", "get", "get one", "get", False),
        ("apply", "apply", "apply one: the task (nodus: review + launch)", "apply", False),
        ("apply-review", "apply", "  apply: the review call", "apply", False),
        ("apply-launch", "apply", "  apply: the launch call", "apply", False),
        ("delete", "delete", "delete one", "delete", False),
    ]
    for task, ptask, label, ftask, bytes_goal in rows:
        na_n = g("nodus", ftask, "na")
        na_p = g("peer", ftask, "na")
        nm, pm = g("nodus", task, "p50_ms"), g("peer", ptask, "p50_ms")
        nb, pb = g("nodus", task, "wire_bytes"), g("peer", ptask, "wire_bytes")
        cells = [label.replace("  ", "↳ ")]
        if na_n:
            cells.append(na_n)
        else:
            cells.append(f"{_fnum(nm)} / {_fnum(g('nodus', task, 'p90_ms'))}")
        cells.append(na_p if na_p else f"{_fnum(pm)} / {_fnum(g('peer', ptask, 'p90_ms'))}")
        fm = g("http", ftask, "p50_ms")
        cells.append(f"{_fnum(fm)} ({_fbytes(g('http', ftask, 'wire_bytes'))})")
        tr = nm / pm if nm and pm else None
        br = nb / pb if nb and pb else None
        cells.append(_fnum(tr))
        cells.append(f"{_fnum(g('nodus', task, 'cpu_ms'))} / {_fnum(g('peer', ptask, 'cpu_ms'))}")
        cells.append("—" if na_n else f"{_fbytes(nb)} ({_fbytes(g('nodus', task, 'text_bytes'))})")
        cells.append("—" if na_p else f"{_fbytes(pb)} ({_fbytes(g('peer', ptask, 'text_bytes'))})")
        cells.append(_fnum(br))
        verdict = []
        if tr is not None:
            if tr < 1:
                verdict.append("faster: **meets**")
            else:
                verdict.append(f"time: **misses** ({tr:.1f}×)")
                misses.append(f"nodus mcp {label.strip()}: {tr:.1f}× the peer's time")
        if bytes_goal and br is not None:
            if br <= 0.5:
                verdict.append("≤ ½ bytes: **meets**")
            else:
                verdict.append(f"bytes: **misses** ({br:.2f}, goal ≤ 0.5)")
                misses.append(f"nodus mcp {label.strip()}: {br:.2f} of the peer's bytes (goal ≤ 0.5)")
        errs = [f"{s} {int(g(s, t, 'errors'))} errors" for s, t in (("nodus", task), ("peer", ptask))
                if g(s, t, "errors")]
        if errs:
            verdict.append("; ".join(errs))
        cells.append("; ".join(verdict) if verdict else "—")
        w("| " + " | ".join(cells) + " |")
    notes = []
    for srv in ("nodus", "peer"):
        names = g(srv, "list", "names")
        if names is not None and names < int(n):
            notes.append(f"- {srv}'s list answer named only {names:.0f} of the {n} Jobs.")
            misses.append(f"nodus mcp list: {srv}'s answer named {names:.0f} of {n} Jobs")
    note = g("nodus", "apply", "note")
    if note:
        notes.append(f"- nodus apply: {note}.")
    for srv in ("nodus", "peer"):
        for task in ("list", "get", "apply", "apply-review", "apply-launch", "delete"):
            e = g(srv, task, "error")
            if e:
                notes.append(f"- {srv} {task}, the first error: `{e}`")
    if notes:
        w("")
        md += notes
    w("")
    bn, bp = g("nodus", "get-burst", "p50_ms"), g("peer", "get-burst", "p50_ms")
    sn, sp = g("nodus", "start", "p50_ms"), g("peer", "start", "p50_ms")
    w("Beside the goals: **back to back**, 20 gets in a row with no pause (the last 10")
    w(f"measured), nodus answers in {_fnum(bn)} ms at the median and the peer in {_fnum(bp)} ms:")
    w("client-go holds the peer to its default client-side rate limit (5 requests/s after a burst")
    w("of 10) however fast the server answers. **Start** (spawn, `initialize`, `tools/list`;")
    w(f"median of {int(g('nodus', 'start', 'calls') or 0)}): nodus {_fnum(sn)} ms, the peer {_fnum(sp)} ms. "
      f"`tools/list` answers {_fbytes(g('nodus', 'tools', 'result_bytes'))} bytes for")
    w(f"nodus's {_fbytes(g('nodus', 'tools', 'count'))} tools and {_fbytes(g('peer', 'tools', 'result_bytes'))} "
      f"for the peer's {_fbytes(g('peer', 'tools', 'count'))}; the SDK then takes")
    w(f"{_fnum(g('nodus', 'sdk-tools', 'p50_ms'))} ms (nodus) and {_fnum(g('peer', 'sdk-tools', 'p50_ms'))} ms "
      "(the peer) for `listTools()`, a second round trip plus a validator compiled per outputSchema.")
    w("")
    limits = os.path.join(os.path.dirname(os.path.abspath(__file__)), "limits.md")
    if os.path.exists(limits):
        with open(limits) as f:
            md += f.read().rstrip("\n").split("\n") + [""]
    w("Re-run this section alone: `make bench-mcp` (about a minute; `MCP_REPS=N` repetitions,")
    w("30 by default; `MCP_LOG=FILE` keeps the emulator's request log). It rewrites this section")
    w("of `docs/benchmarks.md` only; `make bench` runs it with the rest.")
    w("")
    return md


def splice(page_path, section):
    """Replaces the section in the page (or inserts it before ## Plots, else at the end)."""
    lines = open(page_path).read().rstrip("\n").split("\n") if os.path.exists(page_path) else []
    if TITLE in lines:
        a = lines.index(TITLE)
        b = next((i for i in range(a + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    else:
        a = b = lines.index("## Plots") if "## Plots" in lines else len(lines)
    lines[a:b] = section
    with open(page_path, "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("results")
    p.add_argument("--splice", required=True)
    p.add_argument("--commit")
    p.add_argument("--machine")
    a = p.parse_args()
    misses = []
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    sec = render(load(a.results), misses, now, a.machine, a.commit)
    if not sec:
        raise SystemExit("report: no mcp rows in " + a.results)
    splice(a.splice, sec)
    print("\n".join(sec))
    for m in misses:
        print("misses: " + m)
