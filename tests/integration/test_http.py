"""Integration: a real cubed over HTTP — core routes, errors, limits,
request ids, gzip, the hello plugin, admin permission, SSE, metrics."""
import http.client
import json
import os
import shutil
import socket
import subprocess
import time
import unittest

from cubetest import Cubed

ADMIN_TOKEN = "s3cret-admin-token"


class CoreRoutes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"hello": {"greeting": "Bonjour", "ticks": 5}},
                      cube={"limits": {"max_body_bytes": 1024, "max_header_bytes": 2048}},
                      env={"CUBE_ADMIN_TOKEN": ADMIN_TOKEN})

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def test_healthz_and_readyz(self):
        r = self.c.get("/healthz")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.json(), {"status": "ok"})
        r = self.c.get("/readyz")
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(r.json()["plugins"], {"hello": "started"})

    def test_landing_page_while_console_is_not_built(self):
        r = self.c.get("/")
        self.assertEqual(r.status, 200)
        self.assertIn("Cube is running", r.body)
        self.assertEqual(self.c.get("/jobs/x").status, 404)

    def test_unknown_path_is_json_404(self):
        r = self.c.get("/api/v1/nope")
        self.assertEqual(r.status, 404)
        self.assertEqual(r.json()["error"]["code"], "NotFound")
        self.assertIn("application/json", r.header("content-type"))

    def test_wrong_method_is_json_405_with_allow(self):
        r = self.c.request("DELETE", "/healthz")
        self.assertEqual(r.status, 405)
        self.assertEqual(r.json()["error"]["code"], "MethodNotAllowed")
        self.assertEqual(r.header("allow"), "GET, HEAD")

    def test_plugin_route_uses_config_and_params(self):
        r = self.c.get("/api/v1/hello/ada%20lovelace")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.json(), {"message": "Bonjour, ada lovelace!"})

    def test_body_over_limit_is_413(self):
        r = self.c.request("PUT", "/api/v1/hello/greeting", body="x" * 5000,
                           headers={"Authorization": "Bearer " + ADMIN_TOKEN})
        self.assertEqual(r.status, 413)
        self.assertEqual(r.json()["error"]["code"], "PayloadTooLarge")
        self.assertEqual(self.c.get("/api/v1/hello/x").json()["message"], "Bonjour, x!")

    def test_chunked_body_over_limit_is_413(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.c.port, timeout=10)
        chunks = (b"y" * 600 for _ in range(4))
        conn.request("PUT", "/api/v1/hello/greeting", body=chunks, encode_chunked=True,
                     headers={"Authorization": "Bearer " + ADMIN_TOKEN})
        self.assertEqual(conn.getresponse().status, 413)
        conn.close()

    def test_headers_over_limit_are_refused(self):
        r = self.c.get("/healthz", headers={"X-Big": "z" * 4000})
        self.assertIn(r.status, (413, 431))

    def test_admin_route_needs_an_administrator(self):
        # anonymous, or a credential that is not one: 401
        r = self.c.request("PUT", "/api/v1/hello/greeting", body="Hey")
        self.assertEqual(r.status, 401)
        r = self.c.request("PUT", "/api/v1/hello/greeting", body="Hey",
                           headers={"Authorization": "Bearer wrong"})
        self.assertEqual(r.status, 401)
        # a signed-in user who is not an administrator: 403
        user = self.c.make_user("not-admin")
        r = user.request("PUT", "/api/v1/hello/greeting", body="Hey")
        self.assertEqual(r.status, 403, r.body)
        self.assertEqual(self.c.get("/api/v1/hello/x").json()["message"], "Bonjour, x!")
        # the configured admin token, and the first admin's session
        r = self.c.request("PUT", "/api/v1/hello/greeting", body="Salut",
                           headers={"Authorization": "Bearer " + ADMIN_TOKEN})
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(self.c.get("/api/v1/hello/x").json()["message"], "Salut, x!")
        r = self.c.admin().request("PUT", "/api/v1/hello/greeting", body="Bonjour")
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(self.c.get("/api/v1/hello/x").json()["message"], "Bonjour, x!")

    def test_request_id_is_echoed_or_generated(self):
        r = self.c.get("/healthz", headers={"X-Request-Id": "abc-123"})
        self.assertEqual(r.header("x-request-id"), "abc-123")
        r = self.c.get("/healthz", headers={"X-Request-Id": "bad id\twith junk"})
        self.assertRegex(r.header("x-request-id"), r"^[0-9a-f]{32}$")
        r2 = self.c.get("/healthz")
        self.assertNotEqual(r.header("x-request-id"), r2.header("x-request-id"))

    def test_large_json_is_gzipped_when_accepted(self):
        r = self.c.get("/api/v1/hello", headers={"Accept-Encoding": "gzip"})
        self.assertEqual(r.header("content-encoding"), "gzip")
        self.assertEqual(len(r.json()["items"]), 16)
        r = self.c.get("/api/v1/hello")
        self.assertIsNone(r.header("content-encoding"))

    def test_sse_stream_delivers_events(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.c.port, timeout=10)
        conn.request("GET", "/api/v1/hello-ticks")
        r = conn.getresponse()
        self.assertEqual(r.getheader("content-type"), "text/event-stream")
        body = r.read().decode()
        conn.close()
        events = [l for l in body.splitlines() if l.startswith("data: ")]
        self.assertEqual(events, ['data: {"n":%d}' % i for i in range(1, 6)])

    def test_keep_alive_reuses_connection(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.c.port, timeout=10)
        for _ in range(5):
            conn.request("GET", "/healthz")
            r = conn.getresponse()
            r.read()
            self.assertEqual(r.status, 200)
        conn.close()

    def test_metrics_pass_promtool(self):
        self.c.get("/api/v1/hello/m")
        r = self.c.get("/metrics")
        self.assertEqual(r.status, 200)
        self.assertIn('cube_http_requests_total{route="/api/v1/hello/{name}",method="GET",status="200"}', r.body)
        self.assertIn("cube_http_request_duration_seconds_bucket", r.body)
        self.assertIn("cube_hello_greetings_total", r.body)
        self.assertIn("cube_plugins_loaded 1", r.body)
        self.assertIn('cube_build_info{version="', r.body)
        promtool = shutil.which("promtool")
        if not promtool:
            self.skipTest("promtool not installed")
        p = subprocess.run([promtool, "check", "metrics"], input=r.body,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_malformed_escape_is_404_not_crash(self):
        for path in ["/api/v1/hello/%zz", "/api/v1/hello/%00", "/api//v1", "/" + "a/" * 200]:
            self.assertEqual(self.c.get(path).status, 404, path)
        self.assertEqual(self.c.get("/healthz").status, 200)

    def test_access_log_has_request_lines(self):
        self.c.get("/healthz", headers={"X-Request-Id": "log-check-1"})
        time.sleep(0.1)
        self.assertIn("rid=log-check-1", self.c.output())


class SlowClients(unittest.TestCase):
    def test_idle_connection_is_closed_after_timeout(self):
        with Cubed(cube={"limits": {"request_timeout_s": 1}}) as c:
            s = socket.create_connection(("127.0.0.1", c.port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # never finished
            s.settimeout(5)
            t0 = time.time()
            data = s.recv(100)
            self.assertEqual(data, b"")
            self.assertLess(time.time() - t0, 4)
            s.close()
            self.assertEqual(c.get("/healthz").status, 200)


class JsonAccessLog(unittest.TestCase):
    def test_json_lines(self):
        with Cubed(cube={"log": {"level": "info", "format": "json", "access": "json"}}) as c:
            c.get("/healthz", headers={"X-Request-Id": "json-1"})
            time.sleep(0.1)
            lines = [json.loads(l) for l in c.output().splitlines() if l.strip()]
            access = [l for l in lines if l.get("request_id") == "json-1"]
            self.assertEqual(len(access), 1)
            self.assertEqual(access[0]["status"], 200)
            self.assertEqual(access[0]["path"], "/healthz")
            self.assertTrue(any(l.get("level") == "info" for l in lines))


class StaticConsole(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(wait=False)
        web = os.path.join(cls.c.dir, "web")
        os.makedirs(os.path.join(web, "assets"))
        with open(os.path.join(web, "index.html"), "w") as f:
            f.write("<!doctype html><title>Cube</title>")
        with open(os.path.join(web, "assets", "app.js"), "w") as f:
            f.write("console.log('cube')")
        with open(os.path.join(cls.c.dir, "secret.txt"), "w") as f:
            f.write("outside web root")
        cls.c.start()

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def test_file_with_mime_and_etag(self):
        r = self.c.get("/assets/app.js")
        self.assertEqual(r.status, 200)
        self.assertIn("javascript", r.header("content-type"))
        self.assertIn("immutable", r.header("cache-control"))
        etag = r.header("etag")
        r = self.c.get("/assets/app.js", headers={"If-None-Match": etag})
        self.assertEqual(r.status, 304)

    def test_spa_fallback_serves_index(self):
        r = self.c.get("/jobs/some-job")
        self.assertEqual(r.status, 200)
        self.assertIn("<title>Cube</title>", r.body)
        self.assertEqual(self.c.get("/missing.js").status, 404)
        self.assertEqual(self.c.get("/api/v1/unknown").status, 404)

    def test_traversal_is_refused(self):
        for p in ["/../secret.txt", "/%2e%2e/secret.txt", "/assets/..%2f..%2fsecret.txt",
                  "/.hidden"]:
            r = self.c.get(p)
            self.assertNotIn("outside web root", r.body, p)


if __name__ == "__main__":
    unittest.main(verbosity=2)
