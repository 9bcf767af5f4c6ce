"""A malformed client against the HTTP layer, over raw sockets: request
heads that frame the body two ways (a smuggled second request), a coding
the server cannot read, a field name with a space before its colon, a
request target with whitespace, or a query long enough to exhaust the
server's per-connection memory. Each gets a prompt 400, 414 or 501 and
the connection closed, on core routes and proxied prefixes alike; valid
chunked uploads and keep-alive keep working."""
import os
import re
import socket
import sys
import time
import unittest

from cubetest import Cubed

sys.path.insert(0, os.path.join(os.environ.get("CUBE_SOURCE_ROOT", "."), "tests", "proxy"))
from upstream import Upstream, dead_port  # noqa: E402

PROMPT = 3.0     # seconds; the server's idle timeout is 30


def exchange(port, data, timeout=6.0):
    """Sends data, reads until the server closes or goes quiet; returns
    (bytes, closed by the server, seconds taken)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    start, out, closed = time.time(), b"", False
    try:
        s.sendall(data)
        while True:
            b = s.recv(65536)
            if not b:
                closed = True
                break
            out += b
    except socket.timeout:
        pass
    except ConnectionResetError:
        closed = True
    finally:
        s.close()
    return out, closed, time.time() - start


def statuses(raw):
    """The status codes of the responses in a byte stream (the answers
    here never quote a status line in their bodies)."""
    return [int(code) for code in re.findall(rb"HTTP/1\.[01] (\d{3}) ", raw)]


class Framing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed()

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def refused(self, data, status, path="/api/v1/auth/login"):
        raw, closed, took = exchange(self.c.port, data)
        self.assertLess(took, PROMPT, f"no prompt answer: {raw[:200]!r}")
        self.assertEqual(statuses(raw), [status], raw[:400])
        self.assertTrue(closed, "the connection must close after a framing error")
        self.assertIn(b"Connection: close", raw)
        return raw

    def test_content_length_with_transfer_encoding_smuggles_nothing(self):
        smuggled = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        body = b"0\r\n\r\n" + smuggled
        self.refused(b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n" % len(body)
                     + body, 400)
        self.refused(b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\n"
                     b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n" + body, 400)

    def test_two_content_lengths(self):
        for a, b in ((2, 40), (2, 2)):
            self.refused(b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\n"
                         b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n{}" % (a, b)
                         + b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400)

    def test_space_before_the_colon(self):
        for name in (b"Content-Length ", b"Content-Length\t", b"Transfer-Encoding ",
                     b"X Y", b"X(y)"):
            self.refused(b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\n" + name +
                         b": 5\r\n\r\nhello", 400)

    def test_unknown_transfer_coding_is_answered_at_once(self):
        head = b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: %s\r\n\r\n"
        for coding, status in ((b"gzip", 400), (b"chunked, gzip", 400), (b"identity", 400),
                               (b"chunked, chunked", 400), (b"chunked;x=1", 400),
                               (b"gzip, chunked", 501), (b"x-custom , chunked", 501)):
            raw = self.refused(head % coding + b"5\r\nhello\r\n0\r\n\r\n", status)
            self.assertIn(b'"code":"%s"' % (b"NotImplemented" if status == 501
                                           else b"BadRequest"), raw)
        self.refused(b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\n"
                     b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                     400)
        self.refused(b"POST /api/v1/auth/login HTTP/1.0\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400)

    def test_host_exactly_once_in_http11(self):
        self.refused(b"GET /healthz HTTP/1.1\r\n\r\n", 400)
        self.refused(b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400)
        raw, _, _ = exchange(self.c.port, b"GET /healthz HTTP/1.0\r\n\r\n")
        self.assertEqual(statuses(raw), [200], raw)

    def test_whitespace_in_the_target(self):
        self.refused(b"GET /healthz?a=b c HTTP/1.1\r\nHost: x\r\n\r\n", 400)
        self.refused(b"GET /health\x01z HTTP/1.1\r\nHost: x\r\n\r\n", 400)

    def test_many_query_parameters_are_answered_at_once(self):
        q = "&".join(f"a{i}=1" for i in range(800))
        raw = self.refused(f"GET /healthz?{q} HTTP/1.1\r\nHost: x\r\n\r\n".encode(), 414)
        self.assertIn(b'"code":"URITooLong"', raw)
        q = "&" * 3000
        self.refused(f"GET /healthz?{q} HTTP/1.1\r\nHost: x\r\n\r\n".encode(), 414)

    def test_queries_up_to_the_limit_still_work(self):
        a = self.c.admin()
        self.c.make_user("q-user")
        junk = "&".join(f"x{i}=%20y+z" for i in range(250))
        r = a.get(f"/api/v1/users?{junk}&limit=1")
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(len(r.json()["items"]), 1, "limit=1 is read among 251 parameters")
        r = a.get("/api/v1/users?limit=abc")
        self.assertEqual((r.status, r.json()["error"]["field"]), (400, "limit"))

    def test_valid_chunked_upload_and_keep_alive(self):
        body = b'{"username":"admin","password":"%s"}' % self.c.admin_password.encode()
        chunked = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (body[:7], body[7:]))
        data = (b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
                chunked + b"0\r\n\r\n" +
                b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" +
                b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        raw, closed, took = exchange(self.c.port, data)
        self.assertEqual(statuses(raw), [200, 200, 200], raw[:600])
        self.assertLess(took, PROMPT)


class ProxiedFraming(unittest.TestCase):
    """The same heads sent to a proxied prefix: refused before anything is
    relayed, so the upstream never sees a second request."""

    @classmethod
    def setUpClass(cls):
        cls.up = Upstream()
        cls.c = Cubed(plugins={"proxyprobe": {"port": cls.up.port, "down_port": dead_port()}},
                      plugin_dir=os.environ["CUBE_PROXY_PLUGIN_DIR"])
        ops = cls.c.make_user("ops1")
        cls.c.make_project("p1", [("ops1", "ops")])
        r = ops.request("POST", "/api/v1/projects/p1/probeapps",
                        {"metadata": {"name": "app1"}, "spec": {}})
        assert r.status == 201, r.body
        cls.auth = b"Authorization: " + ops.headers["Authorization"].encode() + b"\r\n"

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.up.stop()

    def head(self, method=b"POST", target=b"/probe/p1/app1/x"):
        return method + b" " + target + b" HTTP/1.1\r\nHost: x\r\n" + self.auth

    def refused(self, data, status):
        before = len(self.up.requests)
        raw, closed, took = exchange(self.c.apps_port, data)  # where proxied servers answer
        self.assertLess(took, PROMPT, raw[:200])
        self.assertEqual(statuses(raw), [status], raw[:400])
        self.assertTrue(closed)
        time.sleep(0.2)
        self.assertEqual(len(self.up.requests), before, "nothing may reach the upstream")

    def test_the_proxy_works(self):
        raw, _, _ = exchange(self.c.apps_port, self.head(b"GET", b"/probe/p1/app1/ok?a=1&b=x+y")
                             + b"Connection: close\r\n\r\n")
        self.assertEqual(statuses(raw), [200], raw[:400])
        self.assertEqual(self.up.last()["path"], "/probe/p1/app1/ok?a=1&b=x+y")

    def test_smuggling_heads_are_not_relayed(self):
        smuggled = b"GET /probe/p1/app1/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
        body = b"0\r\n\r\n" + smuggled
        self.refused(self.head() + b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n"
                     % len(body) + body, 400)
        self.refused(self.head() + b"Content-Length: 0\r\nContent-Length: %d\r\n\r\n"
                     % len(smuggled) + smuggled, 400)
        self.refused(self.head() + b"Content-Length : %d\r\n\r\n" % len(smuggled) + smuggled,
                     400)
        self.refused(self.head() + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501)
        self.assertFalse(any("smuggled" in r["path"] for r in self.up.requests))

    def test_targets_that_would_change_meaning_upstream(self):
        self.refused(self.head(b"GET", b"/probe/p1/app1/a b") + b"\r\n", 400)
        self.refused(self.head(b"GET", b"/probe/p1/app1/x?q=a b") + b"\r\n", 400)
        q = b"&".join(b"k%d=v" % i for i in range(300))
        self.refused(self.head(b"GET", b"/probe/p1/app1/x?" + q) + b"\r\n", 414)


if __name__ == "__main__":
    unittest.main()
