"""watch_bench.py — plugin watch delivery vs the REST watch stream, same run.

Starts cubed (CUBED) with the watchprobe test plugin (CUBE_TEST_PLUGIN_DIR),
opens SUBS plugin watches (host->watch, through watchprobe) and SUBS
Server-Sent-Events watches (GET /api/v1/projects/bench/ticks?watch=1) of
the same kind and project, then creates Ticks at RATE per second for
SECONDS (WRITERS keep-alive connections, each paced). Latency is from the
write acknowledged (the client read the 201) to the plugin's callback
(CLOCK_REALTIME in the callback) or to the SSE bytes arriving (recv()),
on the same wall clock; a delivery before the acknowledgement counts 0.

Prints ours (plugin watch), the peer's (REST watch) and the ratio of the
p99s, and one JSON line. Exit 0 whenever it ran. Stdlib only.

Usage: python3 watch_bench.py [SUBS=100] [RATE=1000] [SECONDS=5] [WRITERS=4]
"""
import http.client
import json
import os
import re
import selectors
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from cubetest import Cubed  # noqa: E402
from watch_latency import Watch, pct  # noqa: E402

TOKEN = "bench-watch-token"
NAME_RE = re.compile(rb'"name":"(b\d+)"')


class NamedWatch(Watch):
    """An SSE watch noting when each Tick's event arrived."""

    def __init__(self, *a):
        super().__init__(*a)
        self.arrived = {}

    def feed(self, data, t_ns, lat=None):
        self.body += self.dechunk(data)
        while b"\n\n" in self.body:
            ev, self.body = self.body.split(b"\n\n", 1)
            m = NAME_RE.search(ev)
            if m and ev.startswith(b"event: ADDED"):
                self.arrived.setdefault(m.group(1).decode(), t_ns)


def writer(port, rate, seconds, writers, acks):
    per = rate / writers
    total = int(rate * seconds)

    def run(k):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        hdrs = {"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"}
        t_next = time.monotonic()
        for i in range(k, total, writers):
            name = f"b{i}"
            body = json.dumps({"metadata": {"name": name}, "spec": {}})
            t0 = time.time_ns()
            conn.request("POST", "/api/v1/projects/bench/ticks", body=body, headers=hdrs)
            r = conn.getresponse()
            r.read()
            if r.status == 201:
                acks[name] = (t0, time.time_ns())
            t_next += 1.0 / per
            d = t_next - time.monotonic()
            if d > 0:
                time.sleep(d)

    ts = [threading.Thread(target=run, args=(k,)) for k in range(writers)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def summary(lat_ms):
    lat_ms.sort()
    return {"n": len(lat_ms), "p50_ms": pct(lat_ms, 0.5), "p99_ms": pct(lat_ms, 0.99),
            "max_ms": lat_ms[-1] if lat_ms else None}


def main():
    args = [int(a) for a in sys.argv[1:]]
    subs, rate, seconds, writers = (args + [100, 1000, 5, 4][len(args):])[:4]
    c = Cubed(plugins={"watchprobe": None}, env={"CUBE_ADMIN_TOKEN": TOKEN},
              cube={"log": {"level": "warn", "access": "off"}})
    try:
        h = {"Authorization": "Bearer " + TOKEN}
        r = c.request("POST", "/api/v1/projects", headers=h,
                      body={"metadata": {"name": "bench"}, "spec": {}})
        assert r.status == 201, r.body
        ids = []
        for _ in range(subs):
            r = c.request("POST", "/api/v1/watchprobe/watches?kind=Tick&project=bench&max=60000",
                          headers=h)
            assert r.status == 201, r.body
            ids.append(r.json()["id"])
        ws = [NamedWatch(c.port, "/api/v1/projects/bench/ticks?watch=1", TOKEN)
              for _ in range(subs)]
        sel = selectors.DefaultSelector()
        for w in ws:
            w.feed(w.read_head(), time.time_ns())
            sel.register(w.sock, selectors.EVENT_READ, w)
        # The writers run in a child process: the SSE reading here does not
        # hold up their requests (nor their acknowledgement stamps).
        rfd, wfd = os.pipe()
        t_start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(rfd)
                acks = {}
                writer(c.port, rate, seconds, writers, acks)
                with os.fdopen(wfd, "w") as f:
                    json.dump(acks, f)
            finally:
                os._exit(0)
        os.close(wfd)
        sel.register(rfd, selectors.EVENT_READ, None)
        acks, child, done_at = None, b"", None
        while True:
            if done_at is not None and (time.monotonic() - done_at > 3 or
                                        all(len(w.arrived) >= len(acks) for w in ws)):
                break
            ready = sel.select(0.2)
            got = []
            for key, _ in ready:
                if key.data is None:
                    chunk = os.read(rfd, 1 << 20)
                    child += chunk
                    if not chunk:
                        sel.unregister(rfd)
                        os.close(rfd)
                        os.waitpid(pid, 0)
                        acks = json.loads(child or b"{}")
                        done_at = time.monotonic()
                    continue
                try:
                    got.append((key.data, key.data.sock.recv(1 << 20), time.time_ns()))
                except BlockingIOError:
                    pass
            for w, data, t in got:
                w.feed(data, t)
        elapsed = done_at - t_start - 0.0
        ours, peer, early = [], [], 0
        got_ours = 0
        for wid in ids:
            seen = c.request("GET", f"/api/v1/watchprobe/watches/{wid}", headers=h,
                             timeout=60).json()["seen"]
            for s in seen:
                a = acks.get(s["name"])
                if a and s["type"] == "ADDED":
                    got_ours += 1
                    d = (s["t"] - a[1]) / 1e6
                    early += d < 0
                    ours.append(max(0.0, d))
        for w in ws:
            for name, t in w.arrived.items():
                a = acks.get(name)
                if a:
                    peer.append(max(0.0, (t - a[1]) / 1e6))
        res = {"subscribers": subs, "rate_target": rate, "writes": len(acks),
               "rate_achieved": round(len(acks) / elapsed, 1), "expected": len(acks) * subs,
               "ours": summary(ours), "peer_rest_sse": summary(peer),
               "ours_before_ack": early}
        o, p = res["ours"]["p99_ms"], res["peer_rest_sse"]["p99_ms"]
        res["ratio_p99_ours_over_peer"] = round(o / p, 3) if o is not None and p else None
        print(f"writes {len(acks)} at {res['rate_achieved']}/s, {subs} subscribers each")
        print(f"ours (plugin watch): p50 {res['ours']['p50_ms']:.2f} ms  "
              f"p99 {o:.2f} ms  ({res['ours']['n']}/{res['expected']} delivered)")
        print(f"peer (REST SSE watch): p50 {res['peer_rest_sse']['p50_ms']:.2f} ms  "
              f"p99 {p:.2f} ms  ({res['peer_rest_sse']['n']}/{res['expected']} delivered)")
        print(f"ratio p99 ours/peer: {res['ratio_p99_ours_over_peer']}  (bar: ours p99 <= 20 ms)")
        print(json.dumps(res))
    finally:
        c.close()


if __name__ == "__main__":
    main()
