"""The proxy's ABI 1.5 serving features through a real cubed: the
servingprobe plugin (tests/proxy/servingprobe.c) mirrors a share of
requests to a second server, parks requests (resolve returns CUBE_EAGAIN)
until its route wakes them, records what its done callback gets and reads
proxy_stats. The primary upstream is upstream.py's; the mirror is a slow
server of this file whose answers must never reach a client."""
import hashlib
import http.client
import json
import os
import socket
import sys
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import websocket  # python3-websocket

from cubetest import Cubed

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from upstream import Upstream, dead_port  # noqa: E402

SERVE = "/serve/{project}/{name}"
MIRROR_DELAY = 1.0


class SlowMirror(BaseHTTPRequestHandler):
    """Records each request (path, body digest, framing), answers late."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_one(self):
        n = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(n) if n else b""
        self.server.got.append({"method": self.command, "path": self.path,
                                "sha": hashlib.sha256(body).hexdigest(), "len": len(body),
                                "te": self.headers.get("Transfer-Encoding"),
                                "connection": self.headers.get("Connection")})
        time.sleep(MIRROR_DELAY)
        data = b"MIRROR ANSWER"
        try:
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except ConnectionError:  # cubed hangs up once it read the status line
            self.close_connection = True

    do_GET = do_POST = do_PUT = handle_one


def admin_token(c):
    """Headers with a bearer token of the platform admin (the apps origin
    takes tokens, not the console's session cookie)."""
    r = c.admin().request("POST", "/api/v1/auth/tokens", {"name": "serving"})
    assert r.status == 201, r.body
    return {"Authorization": "Bearer " + r.json()["token"]}


def wait_for(what, cond, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class Serving(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.up = Upstream()
        cls.mirror = ThreadingHTTPServer(("127.0.0.1", 0), SlowMirror)
        cls.mirror.daemon_threads = True
        cls.mirror.got = []
        threading.Thread(target=cls.mirror.serve_forever, daemon=True).start()
        cls.c = Cubed(plugins={"servingprobe": {
            "port": cls.up.port, "mirror_port": cls.mirror.server_address[1],
            "dead_port": dead_port(), "park_ms": 1500}},
            plugin_dir=os.environ["CUBE_PROXY_PLUGIN_DIR"])
        cls.auth = admin_token(cls.c)

    @classmethod
    def tearDownClass(cls):
        cls.c.close()  # fails on a sanitizer report or an unclean exit
        cls.up.stop()
        cls.mirror.shutdown()
        cls.mirror.server_close()

    def send(self, method, path, body=None, headers=None, timeout=30):
        conn = http.client.HTTPConnection("127.0.0.1", self.c.apps_port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=dict(self.auth, **(headers or {})))
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()

    def stats(self, key=None, prefix="serve"):
        q = f"?prefix={prefix}" + (f"&key={key}" if key else "")
        return self.c.get("/api/v1/servingprobe/stats" + q).json()

    def done(self, key):
        return self.c.get(f"/api/v1/servingprobe/done?key={key}").json()

    def ready(self, key, prefix="serve"):
        r = self.c.request("POST", f"/api/v1/servingprobe/ready?prefix={prefix}&key={key}")
        self.assertEqual(r.status, 200, r.body)
        return r.json()["woken"]

    def in_threads(self, calls):
        """Runs each (method, path, body) on its own connection; returns
        the (status, body) answers in order once all are in."""
        out = [None] * len(calls)

        def one(i, method, path, body):
            try:
                out[i] = self.send(method, path, body)
            except Exception as e:  # noqa: BLE001 — the assertion shows it
                out[i] = ("error", repr(e))
        threads = [threading.Thread(target=one, args=(i, *c)) for i, c in enumerate(calls)]
        for t in threads:
            t.start()
        return threads, out

    # -- mirror ---------------------------------------------------------------

    def test_mirror_gets_half_and_never_delays_or_alters(self):
        before = len(self.mirror.got)
        for i in range(20):
            t0 = time.time()
            status, body = self.send("GET", f"/serve/p/m50a/get{i}")
            self.assertEqual(status, 200)
            self.assertLess(time.time() - t0, MIRROR_DELAY / 2, "the mirror delayed the answer")
            self.assertEqual(json.loads(body)["path"], f"/serve/p/m50a/get{i}")
        got = wait_for("10 copies", lambda: len(self.mirror.got) - before >= 10 and
                       self.mirror.got[before:])
        time.sleep(0.3)
        self.assertEqual(len(self.mirror.got) - before, 10)
        self.assertTrue(all(g["connection"] == "close" for g in got))
        # bodies are copied whole, chunked ones re-framed with a length
        blob = os.urandom(3000)
        sha = hashlib.sha256(blob).hexdigest()
        for _ in range(2):
            status, body = self.send("POST", "/serve/p/m50b/upload", blob)
            self.assertEqual((status, json.loads(body)["body_sha256"]), (200, sha))
        parts = [os.urandom(700) for _ in range(3)]
        for _ in range(2):
            conn = http.client.HTTPConnection("127.0.0.1", self.c.apps_port, timeout=10)
            conn.request("PUT", "/serve/p/m50c/chunky", body=iter(parts), encode_chunked=True,
                         headers=dict(self.auth, **{"Transfer-Encoding": "chunked"}))
            self.assertEqual(conn.getresponse().status, 200)
            conn.close()
        def copies(method):
            return [g for g in self.mirror.got if g["method"] == method]
        wait_for("the body copies", lambda: copies("POST") and copies("PUT"))
        self.assertEqual([(g["sha"], g["len"]) for g in copies("POST")], [(sha, 3000)])
        put = copies("PUT")
        self.assertEqual(len(put), 1)
        self.assertEqual((put[0]["len"], put[0]["te"]), (2100, None))
        self.assertEqual(put[0]["sha"], hashlib.sha256(b"".join(parts)).hexdigest())
        wait_for("the end", lambda: self.stats("p/m50a")["inflight"] == 0)
        s = self.stats("p/m50a")
        self.assertEqual((s["requests"], s["errors"], s["inflight"], s["mirrored"]),
                         (20, 0, 0, 10))
        # the slow mirror's answers count as they come (ok: not errors)
        time.sleep(MIRROR_DELAY + 0.5)
        self.assertEqual(self.stats("p/m50a")["mirror_errors"], 0)
        d = self.done("p/m50a")
        self.assertEqual(len(d), 20)
        self.assertTrue(all(r["status"] == 200 and r["upstream"] and not r["parked"]
                            for r in d))
        self.assertEqual(sum(r["mirrored"] for r in d), 10)

    def test_a_dead_mirror_changes_nothing(self):
        for i in range(6):
            status, body = self.send("GET", f"/serve/p/mdead/x{i}")
            self.assertEqual((status, json.loads(body)["path"]), (200, f"/serve/p/mdead/x{i}"))
        wait_for("6 mirror errors", lambda: self.stats("p/mdead")["mirror_errors"] == 6)
        s = self.stats("p/mdead")
        self.assertEqual((s["mirrored"], s["errors"]), (6, 0))
        self.assertTrue(all(r["mirrored"] and not r["error"] for r in self.done("p/mdead")))
        m = self.c.get("/metrics").body
        self.assertIn(f'cube_proxy_mirror_total{{prefix="{SERVE}",result="error"}}', m)

    def test_bodies_over_the_cap_are_not_copied(self):
        before = len(self.mirror.got)
        for _ in range(2):
            self.assertEqual(self.send("POST", "/serve/p/m50big/x", os.urandom(5000))[0], 200)
        time.sleep(0.3)
        self.assertEqual(len(self.mirror.got), before)
        self.assertEqual(self.stats("p/m50big")["mirrored"], 0)
        self.assertIn(f'cube_proxy_mirror_total{{prefix="{SERVE}",result="skipped"}} 1',
                      self.c.get("/metrics").body)

    def test_misconfigured_mirror_is_503(self):
        self.assertEqual(self.send("GET", "/serve/p/badmirror/x")[0], 503)
        self.assertIn("mirror_percent is above 100", self.c.output())

    # -- park -------------------------------------------------------------------

    def test_parked_requests_are_all_answered_after_wake(self):
        seen = len(self.up.requests)
        blob = os.urandom(100_000)
        calls = [("GET", f"/serve/p/cold1/g{i}", None) for i in range(4)]
        calls.append(("POST", "/serve/p/cold1/upload", blob))
        threads, out = self.in_threads(calls)
        wait_for("5 parked", lambda: self.stats("p/cold1")["parked"] == 5)
        s = self.stats("p/cold1")
        self.assertEqual((s["requests"], s["inflight"]), (5, 5))
        time.sleep(0.3)   # parked: nothing reaches the upstream
        self.assertEqual(len(self.up.requests), seen, "a parked request reached the upstream")
        self.assertEqual(self.ready("p/cold1"), 5)
        for t in threads:
            t.join(20)
        self.assertEqual([o[0] for o in out], [200] * 5, out)
        self.assertEqual([json.loads(o[1])["path"] for o in out[:4]],
                         [f"/serve/p/cold1/g{i}" for i in range(4)])
        self.assertEqual(json.loads(out[4][1])["body_sha256"], hashlib.sha256(blob).hexdigest())
        d = wait_for("5 done", lambda: len(self.done("p/cold1")) == 5 and self.done("p/cold1"))
        for r in d:
            self.assertEqual((r["status"], r["upstream"], r["parked"], r["error"]),
                             (200, 1, 1, 0))
            self.assertGreater(r["parked_us"], 250_000, d)
            self.assertGreaterEqual(r["duration_us"], r["parked_us"])
        post = [r for r in d if r["bytes_in"]][0]
        self.assertEqual(post["bytes_in"], len(blob))
        self.assertEqual(post["bytes_out"], len(out[4][1]))
        s = self.stats("p/cold1")
        self.assertEqual((s["parked"], s["inflight"]), (0, 0))
        # once ready, resolve relays at once
        self.assertEqual(self.send("GET", "/serve/p/cold1/now")[0], 200)

    def test_a_parked_websocket_is_relayed_after_wake(self):
        out = {}

        def connect():
            try:
                out["ws"] = websocket.create_connection(
                    f"ws://127.0.0.1:{self.c.apps_port}/serve/p/coldws/ws", timeout=20,
                    header=[f"Authorization: {self.auth['Authorization']}"])
            except Exception as e:  # noqa: BLE001 — the assertion shows it
                out["error"] = repr(e)
        t = threading.Thread(target=connect)
        t.start()
        wait_for("parked", lambda: self.stats("p/coldws")["parked"] == 1)
        self.assertEqual(self.ready("p/coldws"), 1)
        t.join(20)
        ws = out.get("ws")
        self.assertIsNotNone(ws, out)
        self.assertEqual(ws.recv(), "welcome")
        ws.send("after the park")
        self.assertEqual(ws.recv(), "after the park")
        ws.close()

    def test_a_wake_while_resolve_runs_is_not_lost(self):
        # resolve becomes ready and wakes its key before returning EAGAIN
        t0 = time.time()
        self.assertEqual(self.send("GET", "/serve/p/race1/x")[0], 200)
        self.assertLess(time.time() - t0, 5, "the request waited for a wake it had missed")
        self.assertEqual(self.stats("p/race1")["parked"], 0)

    def test_the_deadline_answers_504(self):
        t0 = time.time()
        status, body = self.send("GET", "/serve/p/coldshort1/x")
        self.assertEqual((status, json.loads(body)["error"]["code"]), (504, "GatewayTimeout"))
        self.assertGreater(time.time() - t0, 1.2)
        d = self.done("p/coldshort1")
        self.assertEqual((d[0]["status"], d[0]["error"], d[0]["upstream"]), (504, 1, 0))
        self.assertEqual(self.stats("p/coldshort1")["errors"], 1)

    def test_park_max_answers_503_and_a_hang_up_frees_the_slot(self):
        key, pfx = "p/cold5", "servecap"
        socks = []
        for i in range(2):
            s = socket.create_connection(("127.0.0.1", self.c.apps_port), timeout=20)
            s.sendall(f"GET /servecap/p/cold5/s{i} HTTP/1.1\r\nHost: x\r\nAuthorization: "
                      f"{self.auth['Authorization']}\r\n\r\n".encode())
            socks.append(s)
        wait_for("2 parked", lambda: self.stats(key, pfx)["parked"] == 2)
        status, _ = self.send("GET", "/servecap/p/cold5/third")
        self.assertEqual(status, 503)
        socks[0].close()   # the caller went away: its slot is free again
        wait_for("1 parked", lambda: self.stats(key, pfx)["parked"] == 1)
        threads, out = self.in_threads([("GET", "/servecap/p/cold5/fourth", None)])
        wait_for("2 parked again", lambda: self.stats(key, pfx)["parked"] == 2)
        self.assertEqual(self.ready(key, pfx), 2)
        threads[0].join(20)
        self.assertEqual(out[0][0], 200)
        self.assertIn(b" 200 ", socks[1].recv(200))
        socks[1].close()
        statuses = sorted(r["status"] for r in wait_for(
            "4 done", lambda: len(self.done(key)) == 4 and self.done(key)))
        self.assertEqual(statuses, [200, 200, 499, 503])
        s = self.stats(key, pfx)
        self.assertEqual((s["requests"], s["inflight"], s["parked"], s["errors"]), (4, 0, 0, 1))

    def test_wake_of_nothing_and_of_a_foreign_prefix(self):
        self.assertEqual(self.ready("p/nobody"), 0)

    # -- counters -------------------------------------------------------------------

    def test_counters_by_key_prefix_and_metrics(self):
        self.assertEqual(self.send("GET", "/serve/p/keyed/x")[0], 200)
        # the request ends (and leaves inflight) just after its answer went out
        wait_for("the end", lambda: self.stats("custom-key")["inflight"] == 0)
        s = self.stats("custom-key")
        self.assertEqual((s["rc"], s["requests"], s["inflight"]), (0, 1, 0))
        self.assertGreater(s["last_ms"], (time.time() - 60) * 1000)
        self.assertEqual(self.stats("p/never")["rc"], -3)  # CUBE_ENOTFOUND
        total = self.stats()
        self.assertEqual(total["rc"], 0)
        self.assertGreaterEqual(total["requests"], 1)
        m = self.c.get("/metrics").body
        for name in ("cube_proxy_inflight", "cube_proxy_parked"):
            self.assertIn(f'{name}{{prefix="{SERVE}"}}', m)


class Shutdown(unittest.TestCase):
    def test_a_parked_request_gets_503_when_cubed_stops(self):
        up = Upstream()
        c = Cubed(plugins={"servingprobe": {"port": up.port}},
                  plugin_dir=os.environ["CUBE_PROXY_PLUGIN_DIR"])
        try:
            auth = admin_token(c)["Authorization"]
            s = socket.create_connection(("127.0.0.1", c.apps_port), timeout=20)
            s.sendall(f"GET /serve/p/cold/x HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}"
                      "\r\n\r\n".encode())
            wait_for("parked", lambda: c.get("/api/v1/servingprobe/stats?key=p/cold")
                     .json()["parked"] == 1)
            t0 = time.time()
            self.assertEqual(c.stop(), 0)
            self.assertLess(time.time() - t0, 8)
            answer = s.recv(200)
            self.assertTrue(answer == b"" or b" 503 " in answer, answer)
            s.close()
        finally:
            c.close()
            up.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
