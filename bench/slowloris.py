#!/usr/bin/env python3
"""Slow clients against a running emulator, and what a new client sees meanwhile.

The measurement of docs/security.md ("Slow clients"): CONNS connections from 127.0.0.1
that each send one byte every INTERVAL seconds, either of their request headers (never
ending them) or of a body announced as 1 MiB; with --reconnect a connection the server
closes is opened again at once. Every second, from --probe-from (another loopback
address, so that the cap per client address does not count the probe with the attack),
a GET of /healthz and one of /version (with --token). Prints, for each probe, how many
answered 200 and the seconds (from the attack's start) of the first and last that did
not, then how many attack connections the server closed and after how long.

  bench/slowloris.py --port P [--conns 260] [--interval 20] [--seconds 90]
      [--mode headers|body] [--reconnect] [--token T] [--probe-from 127.0.0.2]

Loopback only; at most 2000 connections and 600 seconds.
"""
import argparse
import http.client
import selectors
import socket
import time

HOST = "127.0.0.1"


def probe(port, src, path, token):
    c = http.client.HTTPConnection(HOST, port, timeout=5, source_address=(src, 0))
    try:
        headers = {"Authorization": "Bearer " + token} if token else {}
        c.request("GET", path, headers=headers)
        return c.getresponse().status
    except (OSError, http.client.HTTPException):
        return 0  # reset, refused or timed out
    finally:
        c.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--conns", type=int, default=260)
    ap.add_argument("--interval", type=float, default=20)
    ap.add_argument("--seconds", type=float, default=90)
    ap.add_argument("--mode", choices=["headers", "body"], default="headers")
    ap.add_argument("--reconnect", action="store_true")
    ap.add_argument("--token", default="")
    ap.add_argument("--probe-from", default="127.0.0.2")
    a = ap.parse_args()
    conns, secs = min(a.conns, 2000), min(a.seconds, 600)
    auth = ("Authorization: Bearer %s\r\n" % a.token) if a.token else ""
    if a.mode == "headers":
        head = "GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n%sX-Slow: " % auth
    else:
        head = ("POST /apis/nodus.dev/v1/namespaces/default/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "%sContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n{" % auth)
    sel = selectors.DefaultSelector()
    closed = []

    def open_one():
        s = socket.socket()
        s.connect((HOST, a.port))
        s.setblocking(False)
        s.send(head.encode())
        sel.register(s, selectors.EVENT_READ, time.monotonic())

    t0 = time.monotonic()
    for _ in range(conns):
        open_one()
    next_byte, next_probe = t0 + a.interval, t0 + 1
    results = {"/healthz": [], "/version": []}
    while time.monotonic() - t0 < secs:
        for key, _ in sel.select(timeout=0.05):
            try:
                data = key.fileobj.recv(65536)
            except OSError:
                data = b""
            if data:
                continue
            closed.append(time.monotonic() - key.data)
            sel.unregister(key.fileobj)
            key.fileobj.close()
            if a.reconnect:
                open_one()
        now = time.monotonic()
        if now >= next_byte:
            next_byte += a.interval
            for key in list(sel.get_map().values()):
                try:
                    key.fileobj.send(b"a" if a.mode == "headers" else b" ")
                except OSError:
                    pass
        if now >= next_probe:
            next_probe += 1
            for path in results:
                results[path].append((now - t0, probe(a.port, a.probe_from, path, a.token)))
    for path, rs in results.items():
        bad = [t for t, code in rs if code != 200]
        codes = sorted({code for _, code in rs})
        print("%-9s %d of %d probes 200; not 200 from %s s to %s s; codes seen %s" % (
            path, len(rs) - len(bad), len(rs), "%.0f" % bad[0] if bad else "-",
            "%.0f" % bad[-1] if bad else "-", codes))
    if closed:
        print("attack connections closed by the server: %d, after %.1f to %.1f s" % (
            len(closed), min(closed), max(closed)))
    else:
        print("attack connections closed by the server: 0")
    print("attack connections still open at the end: %d" % len(sel.get_map()))


if __name__ == "__main__":
    main()
