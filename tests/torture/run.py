#!/usr/bin/env python3
"""run.py: the history check's driver (`make torture`, docs/torture.md).

Starts nodus-emulator on a state directory, runs CLIENTS clients against one kind
(Volumes in project default, with --no-simulation: every change is a client's write, so
the checker can name the write that made each version) while the emulator is killed
with SIGKILL every KILL_MIN..KILL_MAX seconds and started again on the same directory
and port. Every operation is recorded, one JSON line each, in OUT/history.ndjson:

  {"t":"op","c":client,"n":seq,"op":"create|update|cupdate|delete|get|list","key":K,
   "tok":token written,"prec":rv a cupdate names,"start":s,"end":s,
   "status":HTTP code or null (no answer: error/timeout),"err":text,
   "rv":the answer's resourceVersion,"seen":the answer's token (a get's, or a create's
   that found the object there: it answers 200 and the object as it is),
   "items":{key:[rv,token]} (list)}
  {"t":"seg","w":watcher,"seg":n,"from":rv,"start":s}      a watch connection opened
  {"t":"ev","w":watcher,"seg":n,"type":T,"key":K,"rv":rv,"tok":token,"at":s}
  {"t":"kill","at":s} {"t":"ready","at":s}                 the emulator killed / serving
Times are seconds of one monotonic clock. Each write puts a token of its own
("c3-17": client 3, operation 17) in the label `t`, so a read names the write it shows.

Python 3 and its standard library only (http.client, threading): the driver is mostly
waiting on sockets, needs no build, and a history line is a json.dumps.
"""
import argparse
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

PATH = "/apis/nodus.dev/v1/namespaces/default/volumes"
REPLAY = 200  # a watch reconnects this many of its events back (checks the replay)


class History:
    def __init__(self, path):
        self.f = open(path, "w")
        self.lock = threading.Lock()

    def add(self, rec):
        line = json.dumps(rec, separators=(",", ":"))
        with self.lock:
            self.f.write(line + "\n")

    def close(self):
        self.f.close()


def now():
    return time.monotonic()


class Emulator:
    def __init__(self, args, hist):
        self.args, self.hist = args, hist
        self.port = 0
        self.proc = None
        self.err = open(os.path.join(args.out, "emulator.log"), "ab")

    def start(self):
        pf = os.path.join(self.args.out, "port")
        deadline = now() + 60
        while True:
            if os.path.exists(pf):
                os.unlink(pf)
            cmd = [self.args.emulator, "--state", self.args.state, "--listen",
                   "127.0.0.1:%d" % self.port, "--port-file", pf, "--quiet", "--speed", "0",
                   "--no-simulation", "--fsync", self.args.fsync, "--no-console"]
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.err,
                                         stdin=subprocess.DEVNULL)
            while self.proc.poll() is None and not os.path.exists(pf):
                time.sleep(0.01)
            if self.proc.poll() is None:
                break
            if now() > deadline:  # e.g. the port is not free again
                sys.exit("run.py: the emulator does not start: see %s/emulator.log" % self.args.out)
            time.sleep(0.2)
        while True:  # the port file is written once it is ready, maybe before the content
            try:
                port = int(open(pf).read().strip())
                break
            except ValueError:
                time.sleep(0.01)
        self.port = port
        self.hist.add({"t": "ready", "at": now()})

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.hist.add({"t": "kill", "at": now()})

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.kill()


def obj_fields(o):
    md = o.get("metadata", {})
    return md.get("name"), int(md.get("resourceVersion", "0")), md.get("labels", {}).get("t")


class Client(threading.Thread):
    OPS = [("create", 15), ("update", 15), ("cupdate", 20), ("delete", 10), ("get", 25),
           ("list", 15)]

    def __init__(self, cid, run):
        super().__init__(daemon=True)
        self.cid, self.run_, self.n, self.conn, self.known = cid, run, 0, None, {}
        self.rng = random.Random(run.args.seed * 1000 + cid)

    def request(self, method, path, body):
        rec = {}
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.run_.emu.port,
                                                       timeout=self.run_.args.timeout)
            data = json.dumps(body).encode() if body is not None else None
            hdr = {"Content-Type": "application/json"} if data else {}
            self.conn.request(method, path, body=data, headers=hdr)
            resp = self.conn.getresponse()
            raw = resp.read()
            rec["status"] = resp.status
            try:
                return rec, json.loads(raw)
            except ValueError:
                return rec, None
        except (OSError, http.client.HTTPException) as e:
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            rec["status"] = None
            rec["err"] = type(e).__name__
            return rec, None

    def body(self, key, tok, rv=None):
        md = {"name": key, "labels": {"t": tok}}
        if rv is not None:
            md["resourceVersion"] = str(rv)
        return {"apiVersion": "nodus.dev/v1", "kind": "Volume", "metadata": md,
                "spec": {"size": "1Gi"}}

    def one(self, op, key):
        self.n += 1
        tok = "c%d-%d" % (self.cid, self.n)
        rec = {"t": "op", "c": self.cid, "n": self.n, "op": op}
        method, path, body = "GET", PATH + "/" + (key or ""), None
        if op in ("create", "update", "cupdate", "delete"):
            rec["tok"] = tok
        if op == "create":
            method, path, body = "POST", PATH, self.body(key, tok)
        elif op == "update":
            method, body = "PUT", self.body(key, tok)
        elif op == "cupdate":
            prec = self.known.get(key, 1)
            rec["prec"] = prec
            method, body = "PUT", self.body(key, tok, prec)
        elif op == "delete":
            method = "DELETE"
        elif op == "list":
            path = PATH
        if op != "list":
            rec["key"] = key
        rec["start"] = now()
        ans, obj = self.request(method, path, body)
        rec["end"] = now()
        rec.update(ans)
        self.note(op, key, rec, obj)
        self.run_.hist.add(rec)

    def note(self, op, key, rec, obj):
        ok = rec["status"] is not None and 200 <= rec["status"] < 300 and isinstance(obj, dict)
        if not ok:
            return
        if op == "list":
            rec["rv"] = int(obj["metadata"]["resourceVersion"])
            items = {}
            for it in obj.get("items", []):
                name, rv, tok = obj_fields(it)
                items[name] = [rv, tok]
                self.known[name] = rv
            rec["items"] = items
        elif op == "delete":  # the object as it was (or a Status: no revision)
            if obj.get("kind") == "Volume":
                rec["rv"] = obj_fields(obj)[1]
        else:
            name, rv, tok = obj_fields(obj)
            rec["rv"] = rv
            rec["seen"] = tok  # a create of an object that exists answers it as it is
            self.known[key] = rv

    def run(self):
        ops = [o for o, _ in self.OPS]
        weights = [w for _, w in self.OPS]
        while not self.run_.stopping.is_set():
            self.one(self.rng.choices(ops, weights)[0],
                     "k%d" % self.rng.randrange(self.run_.args.keys))
            if self.conn is None:
                time.sleep(0.02)  # the emulator is down: try again shortly


class Watcher(threading.Thread):
    def __init__(self, wid, run):
        super().__init__(daemon=True)
        self.wid, self.run_, self.seg, self.rvs = wid, run, 0, []
        self.first_from = None
        self.lister = Client(wid, run)

    def resume_from(self):
        if len(self.rvs) > REPLAY:
            return self.rvs[-REPLAY - 1]
        return self.first_from

    def watch(self, frm, timeout=None):
        """One watch connection from rv frm; returns False when it must list again."""
        self.seg += 1
        hist = self.run_.hist
        hist.add({"t": "seg", "w": self.wid, "seg": self.seg, "from": frm, "start": now()})
        q = "?watch=1&resourceVersion=%d" % frm
        if timeout:
            q += "&timeoutSeconds=%d" % timeout
        conn = http.client.HTTPConnection("127.0.0.1", self.run_.emu.port,
                                          timeout=timeout + 5 if timeout else None)
        try:
            conn.request("GET", PATH + q)
            resp = conn.getresponse()
            if resp.status != 200:
                return resp.status != 410
            for line in resp:
                ev = json.loads(line)
                if ev.get("type") == "ERROR":
                    return False
                if ev.get("type") == "BOOKMARK":
                    continue
                name, rv, tok = obj_fields(ev["object"])
                hist.add({"t": "ev", "w": self.wid, "seg": self.seg, "type": ev["type"],
                          "key": name, "rv": rv, "tok": tok, "at": now()})
                self.rvs.append(rv)
        except (OSError, http.client.HTTPException, ValueError):
            pass
        finally:
            conn.close()
        return True

    def relist(self):
        while not self.run_.stopping.is_set():
            self.lister.n += 1
            rec = {"t": "op", "c": self.wid, "n": self.lister.n, "op": "list", "start": now()}
            ans, obj = self.lister.request("GET", PATH, None)
            rec["end"] = now()
            rec.update(ans)
            self.lister.note("list", None, rec, obj)
            self.run_.hist.add(rec)
            if "rv" in rec:
                self.first_from = rec["rv"]
                self.rvs = []
                return rec["rv"]
            time.sleep(0.05)
        return None

    def run(self):
        frm = self.relist()
        while frm is not None and not self.run_.stopping.is_set():
            if not self.watch(frm):
                frm = self.relist()
                continue
            frm = self.resume_from()
            time.sleep(0.02)


class Run:
    def __init__(self, args):
        self.args = args
        os.makedirs(args.out, exist_ok=True)
        self.hist = History(os.path.join(args.out, "history.ndjson"))
        self.emu = Emulator(args, self.hist)
        self.stopping = threading.Event()

    def go(self):
        a = self.args
        rng = random.Random(a.seed)
        self.emu.start()
        nw = min(a.watchers, a.clients)
        clients = [Client(i, self) for i in range(a.clients - nw)]
        watchers = [Watcher(a.clients - nw + i, self) for i in range(nw)]
        for t in clients + watchers:
            t.start()
        end = now() + a.seconds
        kills = 0
        while now() < end:
            time.sleep(min(rng.uniform(a.kill_min, a.kill_max), max(0.0, end - now())))
            if now() >= end:
                break
            self.emu.kill()
            kills += 1
            self.emu.start()
        # the final look: one more restart, then every key read and every watch replayed
        self.stopping.set()
        self.emu.kill()
        for t in clients + watchers:
            t.join(a.timeout + 5)
        self.emu.start()
        self.stopping.clear()
        final = Client(-1, self)
        final.one("list", None)
        for k in range(a.keys):
            final.one("get", "k%d" % k)
        for w in watchers:
            frm = w.resume_from()
            if frm is not None:
                w.watch(frm, timeout=2)
        self.emu.stop()
        self.hist.close()
        print("run.py: %s: %d s, %d kills, history in %s" %
              (a.fsync, a.seconds, kills, os.path.join(a.out, "history.ndjson")))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--emulator", default="bin/nodus-emulator")
    p.add_argument("--state", required=True, help="state directory (emptied first)")
    p.add_argument("--out", required=True, help="directory for history.ndjson and the log")
    p.add_argument("--fsync", default="always", choices=["always", "batch", "never"])
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--clients", type=int, default=16, help="clients in all, watchers included")
    p.add_argument("--watchers", type=int, default=2)
    p.add_argument("--keys", type=int, default=24)
    p.add_argument("--kill-min", type=float, default=1.0)
    p.add_argument("--kill-max", type=float, default=4.0)
    p.add_argument("--timeout", type=float, default=10.0, help="a request's timeout (s)")
    p.add_argument("--seed", type=int, default=int(time.time()))
    a = p.parse_args()
    if os.path.isdir(a.state):
        subprocess.run(["rm", "-rf", a.state], check=True)
    Run(a).go()


if __name__ == "__main__":
    main()
