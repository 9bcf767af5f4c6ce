"""The core reverse proxy (register_proxy) through a real cubed: the
proxyprobe plugin registers /probe/{project}/{name} (project:view, login
redirect) and /probeop/{project}/{name} (project:operate on ProbeApp
objects, prefix stripped), resolving to a stdlib upstream this test runs.
Proxied servers answer on the apps listener only; the console origin
hands browsers over to it (tests/security/test_apps_origin.py attacks
that boundary)."""
import hashlib
import http.client
import json
import re
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import unittest

import websocket  # python3-websocket

from cubetest import Cubed

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from upstream import Upstream, dead_port  # noqa: E402

MAX_BODY = 1 << 20


def headers_of(rec):
    return {k.lower(): v for k, v in rec["headers"]}


class Proxy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.up = Upstream()
        cls.c = Cubed(plugins={"proxyprobe": {"port": cls.up.port, "down_port": dead_port()}},
                      cube={"limits": {"max_body_bytes": MAX_BODY}},
                      plugin_dir=os.environ["CUBE_PROXY_PLUGIN_DIR"])
        c = cls.c
        cls.ops = c.make_user("ops1")
        cls.viewer = c.make_user("viewer1")
        cls.dev = c.make_user("dev1")
        cls.outsider = c.make_user("outsider1")
        c.make_project("p1", [("ops1", "ops"), ("viewer1", "viewer"), ("dev1", "dev")])
        for name, owner in (("app1", None), ("devapp", "dev1")):
            who = cls.dev if owner else cls.ops
            r = who.request("POST", "/api/v1/projects/p1/probeapps",
                            {"metadata": {"name": name}, "spec": {}})
            assert r.status == 201, r.body

    @classmethod
    def tearDownClass(cls):
        cls.c.close()  # fails on a sanitizer report or an unclean exit
        cls.up.stop()

    def conn(self):
        """A connection to the apps listener, where proxied servers answer."""
        return http.client.HTTPConnection("127.0.0.1", self.c.apps_port, timeout=10)

    # -- registration ---------------------------------------------------------

    def test_invalid_registrations_are_refused(self):
        got = self.c.get("/api/v1/proxyprobe/registrations").json()
        want = {"api": -1, "ui": -1, "param_first": -1, "overlap": -4, "overlap_param": -4,
                "bad_perm": -1, "no_project": -1, "bad_kind": -1, "core_route": -1,
                "trailing_slash": -1, "reserved": -1}
        self.assertEqual(got, want)

    # -- relaying ------------------------------------------------------------

    def test_get_keeps_path_and_query_adds_forwarding_headers(self):
        r = self.ops.apps_get("/probe/p1/app1/some/where%2Fx?a=1&b=x+y&flag&e=")
        self.assertEqual(r.status, 200, r.body)
        rec = r.json()
        self.assertEqual(rec["path"], "/probe/p1/app1/some/where%2Fx?a=1&b=x+y&flag&e=")
        h = headers_of(rec)
        self.assertEqual(h["x-probe-token"], "token-app1")
        self.assertNotIn("authorization", h)
        self.assertEqual(h["x-forwarded-for"], "127.0.0.1")
        self.assertEqual(h["x-forwarded-proto"], "http")
        self.assertEqual(h["x-forwarded-host"], f"127.0.0.1:{self.c.apps_port}")
        # a caller's own X-Forwarded-* are not believed (no front proxy here)
        r = self.ops.apps_get("/probe/p1/app1/x", headers={"X-Forwarded-For": "10.9.9.9",
                                                      "X-Forwarded-Host": "evil"})
        h = headers_of(r.json())
        self.assertEqual((h["x-forwarded-for"], h["x-forwarded-host"]),
                         ("127.0.0.1", f"127.0.0.1:{self.c.apps_port}"))
        self.assertTrue(r.header("x-request-id"))
        c = self.conn()
        c.request("GET", "/probe/p1/app1/cookies", headers=self.ops.headers)
        r = c.getresponse()
        r.read()
        self.assertEqual([v for k, v in r.getheaders() if k.lower() == "set-cookie"],
                         ["up1=a; Path=/", "up2=b; Path=/"])
        c.close()

    def test_post_body_arrives_intact(self):
        body = os.urandom(300_000)
        r = self.ops.apps_request("POST", "/probe/p1/app1/upload", body=body,
                             headers={"Content-Type": "application/octet-stream"})
        self.assertEqual(r.status, 200, r.body)
        rec = r.json()
        self.assertEqual((rec["method"], rec["body_len"]), ("POST", len(body)))
        self.assertEqual(rec["body_sha256"], hashlib.sha256(body).hexdigest())

    def test_chunked_request_body_is_rechunked(self):
        parts = [os.urandom(5000) for _ in range(7)]
        c = self.conn()
        c.request("PUT", "/probe/p1/app1/chunky", body=iter(parts), encode_chunked=True,
                  headers=dict(self.ops.headers, **{"Transfer-Encoding": "chunked"}))
        r = c.getresponse()
        rec = json.loads(r.read())
        self.assertEqual(r.status, 200)
        self.assertEqual(rec["body_sha256"], hashlib.sha256(b"".join(parts)).hexdigest())
        c.close()

    def test_head_and_close_delimited_and_big_answers(self):
        r = self.ops.apps_request("HEAD", "/probe/p1/app1/big?n=5000")
        self.assertEqual((r.status, r.header("content-length"), r.body), (200, "5000", ""))
        r = self.ops.apps_get("/probe/p1/app1/close")
        self.assertEqual((r.status, r.body), (200, "until the end" * 1000))
        r = self.ops.apps_get("/probe/p1/app1/big?n=3000001")
        self.assertEqual((r.status, len(r.body)), (200, 3000001))
        self.assertEqual(r.body[:32], "0123456789abcdef" * 2)

    def test_cube_cookies_never_reach_upstream_and_need_no_csrf(self):
        s = self.c.login("admin", self.c.admin_password)
        session = s.headers["Cookie"]
        app = self.c.hand_over(s.headers, "/probe/p1/app1/")
        # the console's session cookie alone is no credential here
        r = self.c.apps_request("POST", "/probe/p1/app1/form", body="x=1",
                                headers={"Cookie": session})
        self.assertEqual(r.status, 401, r.body)
        r = self.c.apps_request("POST", "/probe/p1/app1/form", body="x=1",
                                headers={"Cookie": f"theirs=1; {session}; {app}; _xsrf=abc"})
        self.assertEqual(r.status, 200, r.body)  # no X-CSRF-Token sent
        h = headers_of(r.json())
        self.assertEqual(h["cookie"], "theirs=1; _xsrf=abc")
        self.assertNotIn("cube_session", json.dumps(r.json()))
        self.assertNotIn("cube_app", json.dumps(r.json()))
        r = self.c.apps_request("GET", "/probe/p1/app1/x", headers={"Cookie": app})
        self.assertNotIn("cookie", headers_of(r.json()))
        # an upstream cannot set Cube's cookies
        r = self.c.apps_request("GET", "/probe/p1/app1/cookies?set=cube", headers={"Cookie": app})
        self.assertEqual(r.status, 200, r.body)
        self.assertNotIn("cube_", r.header("set-cookie") or "")

    def test_streamed_answer_arrives_incrementally(self):
        c = self.conn()
        t0 = time.time()
        c.request("GET", "/probe/p1/app1/stream", headers=self.ops.headers)
        r = c.getresponse()
        self.assertEqual(r.status, 200)
        first = r.readline()
        t_first = time.time() - t0
        rest = r.read()
        total = time.time() - t0
        c.close()
        self.assertTrue(first.startswith(b"tick 0"), first)
        self.assertEqual(rest.count(b"tick"), 4)
        self.assertLess(t_first, 0.5, "the first chunk waited for the whole body")
        self.assertGreater(total, 0.75)

    def test_connections_to_the_upstream_are_reused(self):
        self.ops.apps_get("/probe/p1/app1/warm")
        before = self.up.connections
        for i in range(20):
            self.assertEqual(self.ops.apps_get(f"/probe/p1/app1/seq{i}").status, 200)
        self.assertLessEqual(self.up.connections - before, 2)

    def test_many_concurrent_requests(self):
        errors = []

        def worker(n):
            try:
                c = self.conn()
                for i in range(15):
                    body = f"{n}-{i}".encode() * 50
                    c.request("POST", f"/probe/p1/app1/c{n}/{i}", body=body,
                              headers=self.ops.headers)
                    r = c.getresponse()
                    rec = json.loads(r.read())
                    if r.status != 200 or rec["path"] != f"/probe/p1/app1/c{n}/{i}" or \
                            rec["body_sha256"] != hashlib.sha256(body).hexdigest():
                        errors.append((n, i, r.status))
                c.close()
            except Exception as e:  # noqa: BLE001 — reported below
                errors.append((n, repr(e)))

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(errors, [])

    # -- WebSockets -------------------------------------------------------------

    def ws(self, path, **kw):
        return websocket.create_connection(f"ws://127.0.0.1:{self.c.apps_port}{path}", timeout=10,
                                           **kw)

    def test_websocket_echo_both_ways(self):
        token = self.ops.headers["Authorization"]
        ws = self.ws("/probe/p1/app1/ws", header=[f"Authorization: {token}"])
        self.assertEqual(ws.recv(), "welcome")  # sent by the upstream with its 101
        ws.send("hello")
        self.assertEqual(ws.recv(), "hello")
        blob = os.urandom(200_000)
        ws.send_binary(blob)
        self.assertEqual(ws.recv(), blob)
        ws.close()
        h = headers_of([r for r in self.up.requests if r["method"] == "WS"][-1])
        self.assertEqual(h["x-probe-token"], "token-app1")
        self.assertNotIn("authorization", h)

    def test_websocket_half_close_still_delivers_the_answer(self):
        token = self.ops.headers["Authorization"]
        ws = self.ws("/probe/p1/app1/ws", header=[f"Authorization: {token}"])
        self.assertEqual(ws.recv(), "welcome")
        ws.send("last words")
        ws.sock.shutdown(socket.SHUT_WR)  # our side is done sending
        self.assertEqual(ws.recv(), "last words")
        self.assertEqual(ws.sock.recv(10), b"")  # then the relay closes
        ws.sock.close()

    def test_websocket_with_the_apps_cookie_and_many_at_once(self):
        s = self.c.login("ops1", "password-" + "x" * 8)
        cookie = self.c.hand_over(s.headers, "/probe/p1/app1/")
        socks = [self.ws("/probe/p1/app1/ws", cookie=cookie) for _ in range(20)]
        for i, ws in enumerate(socks):
            self.assertEqual(ws.recv(), "welcome")
            ws.send(f"m{i}")
        for i, ws in enumerate(socks):
            self.assertEqual(ws.recv(), f"m{i}")
            ws.close()

    def test_websocket_refused_without_credentials(self):
        with self.assertRaises(websocket.WebSocketBadStatusException) as e:
            self.ws("/probe/p1/app1/ws")
        self.assertEqual(e.exception.status_code, 401)

    # -- who may pass -------------------------------------------------------------

    def test_anonymous_gets_401_or_a_login_redirect(self):
        r = self.c.apps_get("/probe/p1/app1/tree")
        self.assertEqual(r.status, 401, r.body)
        # an anonymous browser goes to the console origin, which signs in
        r = self.c.apps_get("/probe/p1/app1/tree?x=1", headers={"Accept": "text/html,*/*"})
        self.assertEqual(r.status, 302)
        self.assertEqual(r.header("location"),
                         f"http://127.0.0.1:{self.c.port}/probe/p1/app1/tree?x=1")
        r = self.c.get("/probe/p1/app1/tree?x=1", headers={"Accept": "text/html,*/*"})
        self.assertEqual(r.status, 302)
        self.assertEqual(r.header("location"), "/login?next=%2Fprobe%2Fp1%2Fapp1%2Ftree%3Fx%3D1")
        r = self.c.apps_get("/probeop/p1/app1/", headers={"Accept": "text/html"})
        self.assertEqual(r.status, 401)  # no login_redirect on this prefix

    def test_the_console_origin_hands_over_and_never_relays(self):
        before = len(self.up.requests)
        r = self.ops.get("/probe/p1/app1/lab?a=1")
        self.assertEqual(r.status, 302, r.body)
        self.assertRegex(r.header("location"), rf"^http://127\.0\.0\.1:{self.c.apps_port}"
                         r"/_cube/apps/callback\?code=[0-9a-f]{64}$")
        r = self.ops.request("POST", "/probe/p1/app1/form", body="x=1")
        self.assertEqual(r.status, 421, r.body)
        self.assertEqual(self.viewer.get("/probeop/p1/app1/").status, 403)
        self.assertEqual(self.outsider.get("/probe/p1/app1/").status, 404)
        self.assertEqual(len(self.up.requests), before, "nothing was relayed")

    def test_non_members_get_404_viewers_403_on_operate(self):
        self.assertEqual(self.outsider.apps_get("/probe/p1/app1/").status, 404)
        self.assertEqual(self.outsider.apps_get("/probeop/p1/app1/").status, 404)
        self.assertEqual(self.viewer.apps_get("/probe/p1/app1/").status, 200)
        self.assertEqual(self.viewer.apps_get("/probeop/p1/app1/").status, 403)
        self.assertEqual(self.ops.apps_get("/probeop/p1/nosuch/").status, 404)
        self.assertEqual(self.c.get("/probe/nosuchproject/app1/",
                                    headers=self.ops.headers).status, 404)

    def test_operate_admits_the_owning_dev_only(self):
        self.assertEqual(self.dev.apps_get("/probeop/p1/app1/x").status, 403)
        r = self.dev.apps_get("/probeop/p1/devapp/x?q=1")
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(r.json()["path"], "/x?q=1")  # strip_prefix
        self.assertEqual(self.dev.apps_get("/probeop/p1/devapp").json()["path"], "/")

    # -- failures -----------------------------------------------------------------

    def test_upstream_failures(self):
        r = self.ops.apps_get("/probe/p1/down/x")
        self.assertEqual(r.status, 502, r.body)
        self.assertEqual(r.json()["error"]["code"], "BadGateway")
        r = self.ops.apps_get("/probe/p1/starting/x")
        self.assertEqual((r.status, r.header("retry-after")), (503, "2"))
        self.assertEqual(self.ops.apps_get("/probe/p1/gone/x").status, 404)
        self.assertEqual(self.ops.apps_get("/probe/p1/remote/x").status, 503)

    def test_broken_upstream_answers_are_502(self):
        for path in ("garbage", "hangup"):
            r = self.ops.apps_get(f"/probe/p1/app1/{path}")
            self.assertEqual(r.status, 502, f"{path}: {r.body}")
            self.assertEqual(r.json()["error"]["code"], "BadGateway")

    def test_http10_client_and_other_methods(self):
        s = socket.create_connection(("127.0.0.1", self.c.apps_port), timeout=10)
        s.sendall(f"GET /probe/p1/app1/old HTTP/1.0\r\nAuthorization: "
                  f"{self.ops.headers['Authorization']}\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        s.close()
        head, _, body = data.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.") and b" 200 " in head, head)
        self.assertEqual(json.loads(body)["path"], "/probe/p1/app1/old")
        for method in ("OPTIONS", "DELETE", "PATCH"):
            r = self.ops.apps_request(method, "/probe/p1/app1/m")
            self.assertEqual((r.status, r.json()["method"]), (200, method))

    def test_bodies_beyond_the_limit_get_413(self):
        # refused from the Content-Length, before the body is read
        c = self.conn()
        c.putrequest("POST", "/probe/p1/app1/big-upload")
        c.putheader("Authorization", self.ops.headers["Authorization"])
        c.putheader("Content-Length", str(MAX_BODY + 1))
        c.endheaders()
        self.assertEqual(c.getresponse().status, 413)
        c.close()
        self.assertEqual(self.send_chunked_until_answered(MAX_BODY // 65536 + 4), 413)

    def send_chunked_until_answered(self, chunks):
        """Streams a chunked body from a thread (ignoring the reset that
        follows an early answer) and returns the status the server sent."""
        s = socket.create_connection(("127.0.0.1", self.c.apps_port), timeout=10)
        head = (f"POST /probe/p1/app1/big-chunked HTTP/1.1\r\nHost: x\r\n"
                f"Authorization: {self.ops.headers['Authorization']}\r\n"
                "Transfer-Encoding: chunked\r\n\r\n").encode()

        def send():
            try:
                s.sendall(head)
                for _ in range(chunks):
                    s.sendall(b"10000\r\n" + b"y" * 65536 + b"\r\n")
                s.sendall(b"0\r\n\r\n")
            except OSError:
                pass

        t = threading.Thread(target=send)
        t.start()
        try:
            status = int(s.recv(64).split()[1])
        finally:
            t.join()
            s.close()
        return status

    def test_metrics_count_per_prefix(self):
        self.ops.apps_get("/probe/p1/app1/counted")
        m = self.c.get("/metrics").body
        self.assertIn('cube_proxy_requests_total{prefix="/probe/{project}/{name}",code="200"}',
                      m)

    def test_core_routes_still_answer(self):
        self.assertEqual(self.c.get("/healthz").status, 200)
        self.assertEqual(self.ops.get("/api/v1/projects/p1/probeapps/app1").status, 200)


class FrontProxy(unittest.TestCase):
    """Behind a trusted front proxy (auth.trusted_header): its user header
    signs the caller in and never reaches the upstream, and its
    X-Forwarded-* are extended rather than replaced."""

    def test_forwarded_headers_and_user_header(self):
        up = Upstream()
        c = Cubed(plugins={"proxyprobe": {"port": up.port, "down_port": dead_port()}},
                  cube={"auth": {"trusted_header": {"header": "X-Remote-User",
                                                    "proxies": ["127.0.0.1"]}}},
                  plugin_dir=os.environ["CUBE_PROXY_PLUGIN_DIR"])
        try:
            front = {"X-Remote-User": "fp-user"}
            self.assertEqual(c.get("/api/v1/auth/me", headers=front).status, 200)
            c.make_project("p1", [("fp-user", "viewer")])
            # the user header signs in at the console origin only: the apps
            # origin takes the cookie the hand-over set
            self.assertEqual(c.apps_get("/probe/p1/app1/x", headers=front).status, 401)
            app = c.hand_over(front, "/probe/p1/app1/x")
            r = c.apps_get("/probe/p1/app1/x", headers=dict(front, **{
                "Cookie": app, "X-Forwarded-For": "203.0.113.7", "X-Forwarded-Proto": "https",
                "X-Forwarded-Host": "cube.example.org"}))
            self.assertEqual(r.status, 200, r.body)
            h = headers_of(r.json())
            self.assertNotIn("x-remote-user", h)
            self.assertEqual(h["x-forwarded-for"], "203.0.113.7, 127.0.0.1")
            self.assertEqual(h["x-forwarded-proto"], "https")
            self.assertEqual(h["x-forwarded-host"], "cube.example.org")
        finally:
            c.close()
            up.stop()


class Tls(unittest.TestCase):
    """Over HTTPS: X-Forwarded-Proto says so, streams pass, and a
    WebSocket is relayed through MHD's TLS socket pair."""

    def test_https_and_wss(self):
        openssl = shutil.which("openssl")
        if not openssl:
            self.skipTest("openssl command not installed")
        up = Upstream()
        c = Cubed(plugins={"proxyprobe": {"port": up.port, "down_port": dead_port()}},
                  plugin_dir=os.environ["CUBE_PROXY_PLUGIN_DIR"], wait=False)
        try:
            key, cert = os.path.join(c.dir, "key.pem"), os.path.join(c.dir, "cert.pem")
            subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                            "-keyout", key, "-out", cert, "-days", "1",
                            "-subj", "/CN=127.0.0.1"], check=True, capture_output=True)
            with open(c.config_path, "a") as f:
                f.write(f"tls:\n  cert: {cert}\n  key: {key}\n")
            c.log = open(c.log_path, "w")
            c.proc = subprocess.Popen([os.path.abspath(os.environ["CUBED"]), "-c",
                                       c.config_path], stdout=c.log, stderr=subprocess.STDOUT,
                                      env=c.env, cwd=c.dir)
            ctx = ssl.create_default_context(cafile=cert)
            ctx.check_hostname = False

            def https(method, path, body=None, headers=None, port=c.port):
                for _ in range(250):
                    try:
                        h = http.client.HTTPSConnection("127.0.0.1", port, context=ctx,
                                                        timeout=10)
                        h.request(method, path, body=body, headers=headers or {})
                        r = h.getresponse()
                        return r.status, r.getheader("set-cookie"), r.read()
                    except (ConnectionRefusedError, ConnectionResetError):
                        time.sleep(0.02)
                raise AssertionError("cubed did not start:\n" + c.output())

            status, cookie, _ = https("POST", "/api/v1/auth/login", json.dumps(
                {"username": "admin", "password": c.admin_password}))
            self.assertEqual(status, 200)
            session = re.search(r"cube_session=[^;,\s]+", cookie).group(0)
            h = http.client.HTTPSConnection("127.0.0.1", c.port, context=ctx, timeout=10)
            h.request("GET", "/probe/p1/app1/x", headers={"Cookie": session})
            r = h.getresponse()
            r.read()
            self.assertEqual(r.status, 302)
            where = r.getheader("location")
            self.assertTrue(where.startswith(f"https://127.0.0.1:{c.apps_port}/"), where)
            status, cookie, _ = https("GET", where.split(str(c.apps_port), 1)[1],
                                      port=c.apps_port)
            self.assertEqual(status, 303)
            self.assertIn("; Secure", cookie)
            cookie = cookie.split(";")[0]
            status, _, body = https("GET", "/probe/p1/app1/x", headers={"Cookie": cookie},
                                    port=c.apps_port)
            self.assertEqual(status, 200)
            self.assertEqual(headers_of(json.loads(body))["x-forwarded-proto"], "https")
            status, _, body = https("GET", "/probe/p1/app1/stream", headers={"Cookie": cookie},
                                    port=c.apps_port)
            self.assertEqual((status, body.count(b"tick")), (200, 5))
            ws = websocket.create_connection(f"wss://127.0.0.1:{c.apps_port}/probe/p1/app1/ws",
                                             cookie=cookie, timeout=10,
                                             sslopt={"ca_certs": cert, "check_hostname": False})
            self.assertEqual(ws.recv(), "welcome")
            blob = os.urandom(300_000)
            ws.send_binary(blob)
            self.assertEqual(ws.recv(), blob)
            ws.close()
        finally:
            c.close()
            up.stop()


class Shutdown(unittest.TestCase):
    """cubed stops promptly and cleanly (exit 0, no sanitizer report) with
    a WebSocket open, a request parked waiting for its answer head and a
    streamed answer half read."""

    def test_stops_with_open_relays_and_parked_requests(self):
        up = Upstream()
        c = Cubed(plugins={"proxyprobe": {"port": up.port, "down_port": dead_port()}},
                  plugin_dir=os.environ["CUBE_PROXY_PLUGIN_DIR"])
        try:
            token = c.hand_over(c.admin().headers, "/probe/p/a/")
            ws = websocket.create_connection(f"ws://127.0.0.1:{c.apps_port}/probe/p/a/ws",
                                             cookie=token, timeout=10)
            self.assertEqual(ws.recv(), "welcome")
            hang = socket.create_connection(("127.0.0.1", c.apps_port), timeout=20)
            hang.sendall(f"GET /probe/p/a/hang HTTP/1.1\r\nHost: x\r\nCookie: {token}"
                         "\r\n\r\n".encode())
            stream = socket.create_connection(("127.0.0.1", c.apps_port), timeout=20)
            stream.sendall(f"GET /probe/p/a/stream HTTP/1.1\r\nHost: x\r\nCookie: {token}"
                           "\r\n\r\n".encode())
            self.assertIn(b"200", stream.recv(100))
            time.sleep(0.3)  # the hanging request is parked by now
            t0 = time.time()
            self.assertEqual(c.stop(), 0)
            self.assertLess(time.time() - t0, 8)
            answer = hang.recv(200)  # 503 from the parked request, or closed
            self.assertTrue(answer == b"" or b" 503 " in answer, answer)
            for s in (ws.sock, hang, stream):
                s.close()
        finally:
            c.close()
            up.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
