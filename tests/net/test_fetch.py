"""The fetch slots (ABI 1.5) through a real cubed: the fetchprobe plugin
runs one fetch per request against a local server this test starts, with
egress.allow = ["127.0.0.1:*"]; 127.0.0.2 (also loopback, not allowed)
plays the refused host."""
import json
import os
import sys
import unittest
from urllib.parse import quote

from cubetest import Cubed

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from upstream_fetch import Upstream  # noqa: E402

EPERM, ETOOBIG, ETIMEDOUT, ENOTFOUND, EINVAL = -5, -10, -15, -3, -1


class Fetch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.up = Upstream()
        cls.base = "http://127.0.0.1:%d" % cls.up.port
        cls.c = Cubed(plugins={"fetchprobe": {}},
                      cube={"egress": {"allow": ["127.0.0.1:*"]}},
                      plugin_dir=os.environ["CUBE_FETCH_PLUGIN_DIR"])

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.up.stop()

    def run_fetch(self, url, **q):
        qs = "url=" + quote(url, safe="") + "".join(
            "&%s=%s" % (k, quote(str(v), safe="")) for k, v in q.items())
        r = self.c.get("/api/v1/fetchprobe/run?" + qs, timeout=40)
        self.assertEqual(r.status, 200, r.body)
        return r.json()

    def test_get(self):
        r = self.run_fetch(self.base + "/hello")
        self.assertEqual((r["error"], r["status"], r["body"]), (0, 200, "hello"), r)
        self.assertEqual(r["content_type"], "text/plain")
        self.assertTrue(r["thread_differs"], "done ran on the handler's thread")

    def test_post(self):
        r = self.run_fetch(self.base + "/echo", method="POST", body='{"a":1}')
        self.assertEqual((r["error"], r["status"], r["body"]), (0, 200, '{"a":1}'), r)
        self.assertEqual(r["content_type"], "application/json")

    def test_put_and_404(self):
        r = self.run_fetch(self.base + "/echo", method="PUT", body="x")
        self.assertEqual((r["error"], r["body"]), (0, "x"), r)
        r = self.run_fetch(self.base + "/nowhere")
        self.assertEqual((r["error"], r["status"]), (0, 404), r)

    def test_stream_arrives_in_chunks_in_order(self):
        r = self.run_fetch(self.base + "/stream", stream=1)
        self.assertEqual(r["error"], 0, r)
        self.assertEqual(r["body"], "".join("part-%d;" % i for i in range(5)))
        self.assertGreaterEqual(r["chunks"], 3, r)

    def test_timeout(self):
        r = self.run_fetch(self.base + "/slow", timeout_ms=300)
        self.assertEqual(r["error"], ETIMEDOUT, r)
        self.assertIn("300 ms", r["message"])

    def test_byte_cap(self):
        r = self.run_fetch(self.base + "/big?n=100000", max_bytes=1000)
        self.assertEqual(r["error"], ETOOBIG, r)
        r = self.run_fetch(self.base + "/big?n=100000", max_bytes=1000, stream=1)
        self.assertEqual(r["error"], ETOOBIG, r)
        r = self.run_fetch(self.base + "/big?n=1000", max_bytes=1000)
        self.assertEqual((r["error"], r["total"]), (0, 1000), r)

    def test_refused_by_the_allow_list(self):
        url = "http://127.0.0.2:%d/hello" % self.up.port
        r = self.run_fetch(url)
        self.assertEqual(r["error"], EPERM, r)
        self.assertIn("egress", r["message"])
        self.assertIn("127.0.0.2:%d" % self.up.port, r["message"])

    def test_redirect_to_a_refused_host(self):
        to = "http://127.0.0.2:%d/hello" % self.up.port
        r = self.run_fetch(self.base + "/redirect?to=" + quote(to, safe=""))
        self.assertEqual(r["error"], EPERM, r)
        self.assertIn("a redirect from", r["message"])

    def test_redirect_followed_and_limited(self):
        r = self.run_fetch(self.base + "/redirect?to=/hello")
        self.assertEqual((r["error"], r["status"], r["body"]), (0, 200, "hello"), r)
        r = self.run_fetch(self.base + "/redirect?to=/hello", redirects=-1)
        self.assertEqual((r["error"], r["status"]), (0, 302), r)
        loop = self.base + "/redirect?to=" + quote(self.base + "/redirect?to=/hello", safe="")
        r = self.run_fetch(loop, redirects=2)     # two hops
        self.assertEqual((r["error"], r["status"]), (0, 200), r)
        r = self.run_fetch(loop, redirects=1)
        self.assertEqual(r["error"], -6, r)
        self.assertIn("redirects", r["message"])

    def test_credentials_not_sent_to_another_host(self):
        r = self.run_fetch(self.base + "/headers", auth="s3cret")
        self.assertEqual(json.loads(r["body"])["authorization"], "Bearer s3cret")
        other = "http://localhost:%d/headers" % self.up.port   # resolves to 127.0.0.1
        r = self.run_fetch(self.base + "/redirect?to=" + quote(other, safe=""), auth="s3cret")
        self.assertEqual(r["error"], 0, r)
        self.assertNotIn("authorization", json.loads(r["body"]))
        self.assertNotIn("s3cret", self.c.output())

    def test_cancel(self):
        r = self.run_fetch(self.base + "/slow", cancel_ms=100)
        self.assertEqual((r["cancel_rc"], r["late"], r["finished"]), (0, 0, False), r)
        r = self.run_fetch(self.base + "/stream", stream=1, cancel_ms=150)
        self.assertEqual((r["cancel_rc"], r["late"], r["finished"]), (0, 0, False), r)

    def test_bad_descriptor(self):
        r = self.run_fetch("ftp://127.0.0.1/x")
        self.assertEqual(r.get("fetch_rc"), EINVAL, r)
        r = self.run_fetch(self.base + "/hello", method="get")
        self.assertEqual(r.get("fetch_rc"), EINVAL, r)


if __name__ == "__main__":
    unittest.main()
