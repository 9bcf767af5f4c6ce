"""Hostile tests of accounts and memberships: a creator who empties their
project's members by writing the Project itself (not the members routes),
a sign-in oracle for disabled users, API tokens that outlive disabling or a
password reset, and break-glass admin-token requests that leave no trace."""
import time
import unittest

from cubetest import Cubed

ADMIN_TOKEN = "break-glass-token-for-tests"
# Many failed sign-ins from one address on purpose: no lockout here.
CUBE = {"auth": {"throttle": {"free_failures": 1000}}}


def error(r):
    return r.json().get("error", {})


class Hardening(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(cube=CUBE, env={"CUBE_ADMIN_TOKEN": ADMIN_TOKEN})
        cls.a = cls.c.admin()

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    # -- item: the last creator, on every path that changes membership -------

    def test_project_writes_keep_a_creator(self):
        cr = self.c.make_user("keeper")
        self.c.make_user("helper")
        self.c.make_project("kept", [("keeper", "creator"), ("helper", "dev")])
        base = "/api/v1/projects/kept"
        only_dev = [{"user": "helper", "role": "dev"}]
        attempts = [
            ("PATCH", {"spec": {"members": []}}),
            ("PATCH", {"spec": {"members": only_dev}}),
            ("PATCH", {"spec": {"members": [{"user": "keeper", "role": "ops"},
                                            {"user": "helper", "role": "dev"}]}}),
            # PUT is what `cubectl apply` sends for an existing object
            ("PUT", {"metadata": {"name": "kept"}, "spec": {"members": only_dev}}),
            ("PUT", {"metadata": {"name": "kept"}, "spec": {}}),
        ]
        for who, caller in (("creator", cr), ("admin", self.a)):
            for method, body in attempts:
                r = caller.request(method, base, body)
                self.assertEqual(r.status, 409, f"{who} {method} {body}: {r.body}")
                self.assertEqual(error(r).get("field"), "spec.members", r.body)
        members = self.a.get(base).json()["spec"]["members"]
        self.assertIn({"user": "keeper", "role": "creator"}, members)
        # the members route says the same
        r = cr.request("DELETE", base + "/members/keeper")
        self.assertEqual(r.status, 409, r.body)
        # handing over is fine: a second creator first, then the first goes
        r = cr.request("PATCH", base, {"spec": {"members": [
            {"user": "keeper", "role": "creator"}, {"user": "helper", "role": "creator"}]}})
        self.assertEqual(r.status, 200, r.body)
        r = cr.request("PATCH", base, {"spec": {"members": [
            {"user": "helper", "role": "creator"}]}})
        self.assertEqual(r.status, 200, r.body)

    # -- item: disabled users and the sign-in answer ---------------------------

    def login(self, user, password):
        t0 = time.monotonic()
        r = self.c.request("POST", "/api/v1/auth/login",
                           {"username": user, "password": password})
        return r, time.monotonic() - t0

    def test_disabled_login_answers_as_a_wrong_password(self):
        self.c.make_user("dora", password="dora-password-1")
        r = self.a.request("PATCH", "/api/v1/users/dora", {"spec": {"disabled": True}})
        self.assertEqual(r.status, 200, r.body)
        right, t_right = self.login("dora", "dora-password-1")
        wrong, t_wrong = self.login("dora", "not-doras-password")
        self.assertEqual(right.status, 401, right.body)
        self.assertEqual((right.status, right.body), (wrong.status, wrong.body),
                         "the right password of a disabled user must not be told apart")
        self.assertNotIn("disabled", right.body)
        # the same work behind both (scrypt): neither answers in a flash
        self.assertLess(max(t_right, t_wrong) / max(min(t_right, t_wrong), 1e-3), 5,
                        f"right {t_right:.3f}s, wrong {t_wrong:.3f}s")

    # -- item: tokens end with disabling and with a password reset ------------

    def test_disabling_revokes_tokens_for_good(self):
        tok = self.c.make_user("tess", password="tess-password-1")
        sess = self.c.login("tess", "tess-password-1")
        self.assertEqual(tok.get("/api/v1/auth/me").status, 200)
        for disabled in (True, False):
            r = self.a.request("PATCH", "/api/v1/users/tess", {"spec": {"disabled": disabled}})
            self.assertEqual(r.status, 200, r.body)
        self.assertEqual(tok.get("/api/v1/auth/me").status, 401, "a token outlived disabling")
        self.assertEqual(sess.get("/api/v1/auth/me").status, 401)
        fresh = self.c.login("tess", "tess-password-1")
        self.assertEqual(fresh.get("/api/v1/auth/tokens").json()["items"], [])

    def test_password_reset_revokes_tokens_unless_asked_not_to(self):
        tok = self.c.make_user("rita", password="rita-password-1")
        r = self.a.request("POST", "/api/v1/users/rita/password",
                           {"password": "rita-password-2", "revokeTokens": "no"})
        self.assertEqual((r.status, error(r).get("field")), (422, "revokeTokens"), r.body)
        self.assertEqual(tok.get("/api/v1/auth/me").status, 200, "a refused reset changed nothing")
        r = self.a.request("POST", "/api/v1/users/rita/password", {"password": "rita-password-2"})
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(tok.get("/api/v1/auth/me").status, 401, "a token outlived the reset")
        sess = self.c.login("rita", "rita-password-2")
        r = sess.request("POST", "/api/v1/auth/tokens", {"name": "keep"})
        kept = self.c.bearer(r.json()["token"])
        r = self.a.request("POST", "/api/v1/users/rita/password",
                           {"password": "rita-password-3", "revokeTokens": False})
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(kept.get("/api/v1/auth/me").status, 200)
        self.assertEqual(sess.get("/api/v1/auth/me").status, 401, "sessions end either way")

    # -- item: acting as another identity is audited -----------------------------

    def admin_token_events(self):
        r = self.a.get("/api/v1/users/admin/events?limit=1000")
        self.assertEqual(r.status, 200, r.body)
        return [e for e in r.json()["items"] if e.get("reason") == "AdminToken"]

    def test_every_admin_token_request_is_audited(self):
        glass = self.c.bearer(ADMIN_TOKEN)
        before = len(self.admin_token_events())
        self.assertEqual(glass.get("/api/v1/projects").status, 200)
        r = glass.request("POST", "/api/v1/projects", {"metadata": {"name": "glassy"}})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(glass.get("/api/v1/users/nobody").status, 404)
        self.assertEqual(self.a.get("/api/v1/projects").status, 200)   # a session: no event
        deadline = time.time() + 10
        while time.time() < deadline and len(self.admin_token_events()) < before + 3:
            time.sleep(0.05)
        events = self.admin_token_events()
        self.assertEqual(len(events), before + 3, events)
        said = " | ".join(e["message"] for e in events)
        for line in ("GET /api/v1/projects answered 200", "POST /api/v1/projects answered 201",
                     "GET /api/v1/users/nobody answered 404"):
            self.assertIn(line, said)
        for e in events:
            self.assertEqual((e["type"], e["user"], e["verb"]), ("Warning", "admin",
                                                                  "admin-token"), e)
        self.assertNotIn(ADMIN_TOKEN, said)


if __name__ == "__main__":
    unittest.main(verbosity=2)
