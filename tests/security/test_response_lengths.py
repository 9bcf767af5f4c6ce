"""A strict client reads the core's fixed answers: each body is exactly the
JSON it should be, with a Content-Length that counts no terminating NUL
(the logout answer used to end with one, counted in its length)."""
import http.client
import json
import unittest

from cubetest import Cubed


class FixedAnswers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed()

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def raw(self, client, method, path, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.c.port, timeout=10)
        try:
            headers = dict(client.headers) if client else {}
            if body is not None:
                body = json.dumps(body)
                headers["Content-Type"] = "application/json"
            conn.request(method, path, body=body, headers=headers)
            r = conn.getresponse()
            data = r.read()
            self.assertEqual(int(r.getheader("Content-Length")), len(data))
            self.assertNotIn(b"\0", data, f"{method} {path}")
            return r.status, data
        finally:
            conn.close()

    def test_fixed_answers_are_exact(self):
        self.assertEqual(self.raw(None, "GET", "/healthz"), (200, b'{"status":"ok"}'))
        user = self.c.login("admin", self.c.admin_password)
        status, data = self.raw(user, "POST", "/api/v1/auth/tokens", {"name": "t"})
        self.assertEqual(status, 201, data)
        tid = json.loads(data)["id"]
        self.assertEqual(self.raw(user, "DELETE", f"/api/v1/auth/tokens/{tid}"),
                         (200, b'{"status":"revoked"}'))
        self.assertEqual(self.raw(user, "POST", "/api/v1/auth/logout"),
                         (200, b'{"status":"signed out"}'))


if __name__ == "__main__":
    unittest.main()
