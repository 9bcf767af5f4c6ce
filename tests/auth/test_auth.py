"""Authentication against a running cubed: first start, local login,
sessions and CSRF, API tokens, password changes, disabled users, login
throttling, trusted proxy headers, login methods from plugins (the ABI's
auth providers, through the authprobe test plugin), project members, and
that no secret ever shows in API output or logs."""
import hashlib
import http.client
import json
import os
import sqlite3
import stat
import sys
import time
import unittest

from cubetest import ADMIN_PASSWORD, Cubed

PLUGIN_DIR = os.environ["CUBE_TEST_PLUGIN_DIR"]
GENERIC = "invalid user name or password"


def cubed(**kw):
    kw.setdefault("plugins", {"authprobe": None})
    return Cubed(plugin_dir=PLUGIN_DIR, **kw)


def cookie_of(r):
    return r.header("set-cookie").split(";")[0]


class FirstStart(unittest.TestCase):
    def test_generated_password_is_written_once_0600(self):
        with cubed(env={"CUBE_ADMIN_PASSWORD": ""}, plugins={}) as c:
            path = os.path.join(c.dir, "var", "initial-admin-password")
            mode = stat.S_IMODE(os.stat(path).st_mode)
            self.assertEqual(mode, 0o600, "initial-admin-password must be 0600")
            pw = open(path).read().strip()
            self.assertGreaterEqual(len(pw), 24)
            self.assertEqual(c.output().count(pw), 1, "the password is logged exactly once")
            c.login("admin", pw)
            c.stop()
            c.start()  # a restart neither regenerates nor logs it again
            self.assertEqual(c.output().count(pw), 0)
            c.login("admin", pw)

    def test_admin_and_public_project(self):
        with cubed(plugins={}) as c:
            me = c.admin().get("/api/v1/auth/me").json()
            self.assertEqual(me["role"], "admin")
            self.assertEqual(me["via"], "session")
            self.assertIn({"name": "public", "role": "creator"}, me["projects"])
            self.assertEqual(me["defaultProject"], "public")   # clients act in it

    def test_bad_admin_password_stops_start(self):
        c = cubed(env={"CUBE_ADMIN_PASSWORD": "short"}, plugins={}, wait=False)
        try:
            with self.assertRaises(RuntimeError) as cm:
                c.start()
            self.assertIn("CUBE_ADMIN_PASSWORD", str(cm.exception))
        finally:
            c.tmp.cleanup()


class Sessions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = cubed()
        cls.bob = cls.c.make_user("bob", password="bob-password-1")

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def test_login_cookie_and_body(self):
        r = self.c.request("POST", "/api/v1/auth/login",
                           {"username": "bob", "password": "bob-password-1"})
        self.assertEqual(r.status, 200, r.body)
        sc = r.header("set-cookie")
        for attr in ("HttpOnly", "SameSite=Lax", "Path=/", "Max-Age="):
            self.assertIn(attr, sc)
        self.assertNotIn("Secure", sc, "no Secure flag without TLS")
        body = r.json()
        self.assertEqual(body["user"]["name"], "bob")
        self.assertEqual(len(body["csrf"]), 64)
        self.assertNotIn("password", r.body)

    def test_login_for_a_token(self):
        r = self.c.request("POST", "/api/v1/auth/login",
                           {"username": "bob", "password": "bob-password-1",
                            "token": {"name": "cubectl", "expires_in": 3600}})
        self.assertEqual(r.status, 200, r.body)
        self.assertIsNone(r.header("set-cookie"), "a token login starts no session")
        t = r.json()["token"]
        self.assertEqual(t["name"], "cubectl")
        me = self.c.bearer(t["token"]).get("/api/v1/auth/me").json()
        self.assertEqual(me["user"]["name"], "bob")
        r = self.c.request("POST", "/api/v1/auth/login",
                           {"username": "bob", "password": "bob-password-1",
                            "token": {"name": "", "expires_in": 1}})
        self.assertEqual(r.status, 422)

    def test_failures_are_generic(self):
        wrong = self.c.request("POST", "/api/v1/auth/login",
                               {"username": "bob", "password": "nope-nope-nope"})
        unknown = self.c.request("POST", "/api/v1/auth/login",
                                 {"username": "nobody-here", "password": "nope-nope-nope"})
        self.assertEqual((wrong.status, unknown.status), (401, 401))
        self.assertEqual(wrong.json()["error"]["message"], GENERIC)
        self.assertEqual(unknown.json()["error"]["message"], GENERIC)

    def test_malformed_login(self):
        for body in ("{", "[]", {"username": "bob"}, {"username": 1, "password": "x"},
                     {"username": "bob", "password": "x" * 2000}):
            r = self.c.request("POST", "/api/v1/auth/login", body)
            self.assertIn(r.status, (400, 422), f"{body!r}: {r.status} {r.body}")

    def test_csrf_required_for_cookie_writes(self):
        s = self.c.login("bob", "bob-password-1")
        cookie_only = {"Cookie": s.headers["Cookie"]}
        r = self.c.request("POST", "/api/v1/auth/tokens", {"name": "x"}, headers=cookie_only)
        self.assertEqual(r.status, 403)
        self.assertIn("X-CSRF-Token", r.json()["error"]["message"])
        r = self.c.request("POST", "/api/v1/auth/tokens", {"name": "x"},
                           headers=dict(cookie_only, **{"X-CSRF-Token": "0" * 64}))
        self.assertEqual(r.status, 403)
        self.assertEqual(self.c.get("/api/v1/auth/me", headers=cookie_only).status, 200,
                         "reads need no CSRF token")
        self.assertEqual(s.request("POST", "/api/v1/auth/tokens", {"name": "x"}).status, 201)

    def test_logout_ends_the_session(self):
        s = self.c.login("bob", "bob-password-1")
        self.assertEqual(s.get("/api/v1/auth/me").status, 200)
        r = s.request("POST", "/api/v1/auth/logout")
        self.assertEqual(r.status, 200)
        self.assertIn("Max-Age=0", r.header("set-cookie"))
        self.assertEqual(s.get("/api/v1/auth/me").status, 401)

    def test_anonymous_and_bad_credentials(self):
        self.assertEqual(self.c.get("/api/v1/auth/me").status, 401)
        r = self.c.get("/api/v1/auth/me", headers={"Authorization": "Bearer cube_" + "0" * 64})
        self.assertEqual(r.status, 401)
        self.assertIn("WWW-Authenticate".lower(), r.headers)
        r = self.c.get("/api/v1/auth/me", headers={"Authorization": "Basic Ym9iOng="})
        self.assertEqual(r.status, 401)
        r = self.c.get("/api/v1/auth/me", headers={"Cookie": "cube_session=" + "a" * 64})
        self.assertEqual(r.status, 401)

    def test_providers(self):
        p = self.c.get("/api/v1/auth/providers").json()["providers"]
        names = {x["name"]: x for x in p}
        self.assertEqual(names["local"]["kind"], "password")
        self.assertEqual(names["probe"]["kind"], "password")
        self.assertEqual(names["probe-sso"]["kind"], "redirect")
        self.assertEqual(names["probe-sso"]["loginPath"], "/api/v1/auth/probe-sso/login")


class Expiry(unittest.TestCase):
    """Expired sessions and tokens, as stored: edited in the database, then
    read back after a restart (the in-memory cache is gone)."""

    def test_idle_and_absolute_expiry_and_token_expiry(self):
        with cubed(plugins={}) as c:
            c.make_user("eve", password="eve-password-1")
            idle = c.login("eve", "eve-password-1")
            absolute = c.login("eve", "eve-password-1")
            r = absolute.request("POST", "/api/v1/auth/tokens", {"name": "t", "expires_in": 60})
            tok = c.bearer(r.json()["token"])
            c.stop()
            key = lambda secret: hashlib.sha256(secret.encode()).hexdigest()
            idle_key = key(idle.headers["Cookie"].split("=", 1)[1])
            abs_key = key(absolute.headers["Cookie"].split("=", 1)[1])
            tok_key = key(tok.headers["Authorization"].split()[1])
            db = sqlite3.connect(os.path.join(c.dir, "var", "cube.db"))
            past = int(time.time()) - 1
            for sql, args in (("UPDATE secrets SET doc='{\"lastSeen\":1000}' WHERE key=?",
                               (idle_key,)),
                              ("UPDATE secrets SET expires=? WHERE key=?", (past, abs_key)),
                              ("UPDATE secrets SET expires=? WHERE key=?", (past, tok_key))):
                self.assertEqual(db.execute(sql, args).rowcount, 1, sql)
            db.commit()
            db.close()
            c.start()
            self.assertEqual(idle.get("/api/v1/auth/me").status, 401)
            self.assertEqual(absolute.get("/api/v1/auth/me").status, 401)
            self.assertEqual(tok.get("/api/v1/auth/me").status, 401)


class Tokens(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = cubed(plugins={})
        cls.c.make_user("tina", password="tina-password-1")
        cls.s = cls.c.login("tina", "tina-password-1")

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def test_lifecycle(self):
        r = self.s.request("POST", "/api/v1/auth/tokens", {"name": "ci", "expires_in": 3600})
        self.assertEqual(r.status, 201, r.body)
        t = r.json()
        self.assertTrue(t["token"].startswith("cube_"))
        b = self.c.bearer(t["token"])
        me = b.get("/api/v1/auth/me").json()
        self.assertEqual((me["user"]["name"], me["via"]), ("tina", "token"))
        listed = self.s.get("/api/v1/auth/tokens").json()["items"]
        self.assertIn(t["id"], [x["id"] for x in listed])
        self.assertNotIn(t["token"], json.dumps(listed), "the secret is shown once only")
        self.assertEqual(self.s.request("DELETE", f"/api/v1/auth/tokens/{t['id']}").status, 200)
        self.assertEqual(b.get("/api/v1/auth/me").status, 401, "revoked at once")
        self.assertEqual(self.s.request("DELETE", f"/api/v1/auth/tokens/{t['id']}").status, 404)

    def test_bad_requests(self):
        for body in ({}, {"name": ""}, {"name": "x", "expires_in": 5},
                     {"name": "x", "expires_in": 10 ** 12}, {"name": "x", "expires_in": "1d"}):
            r = self.s.request("POST", "/api/v1/auth/tokens", body)
            self.assertEqual(r.status, 422, f"{body}: {r.body}")

    def test_cannot_revoke_anothers_token(self):
        self.c.make_user("other", password="other-password-1")
        o = self.c.login("other", "other-password-1")
        t = o.request("POST", "/api/v1/auth/tokens", {"name": "mine"}).json()
        self.assertEqual(self.s.request("DELETE", f"/api/v1/auth/tokens/{t['id']}").status, 404)
        self.assertEqual(self.c.bearer(t["token"]).get("/api/v1/auth/me").status, 200)


class Passwords(unittest.TestCase):
    def test_change_reset_and_disable(self):
        with cubed(plugins={}) as c:
            tok = c.make_user("pat", password="pat-password-1")
            s = c.login("pat", "pat-password-1")
            r = s.request("POST", "/api/v1/auth/password",
                          {"current": "wrong-password", "password": "pat-password-2"})
            self.assertEqual(r.status, 403)
            r = s.request("POST", "/api/v1/auth/password",
                          {"current": "pat-password-1", "password": "short"})
            self.assertEqual(r.status, 422)
            r = s.request("POST", "/api/v1/auth/password",
                          {"current": "pat-password-1", "password": "pat-password-2"})
            self.assertEqual(r.status, 200, r.body)
            c.login("pat", "pat-password-1", expect=401)
            c.login("pat", "pat-password-2")
            # an admin resets it: the old sessions end (tokens stay only when
            # the reset says revokeTokens: false)
            r = c.admin().request("POST", "/api/v1/users/pat/password",
                                  {"password": "pat-password-3", "revokeTokens": False})
            self.assertEqual(r.status, 200)
            self.assertEqual(s.get("/api/v1/auth/me").status, 401)
            s = c.login("pat", "pat-password-3")
            self.assertEqual(tok.get("/api/v1/auth/me").status, 200, "revokeTokens: false")
            # disabling stops sessions and tokens at once
            r = c.admin().request("PATCH", "/api/v1/users/pat", {"spec": {"disabled": True}})
            self.assertEqual(r.status, 200, r.body)
            self.assertEqual(s.get("/api/v1/auth/me").status, 401)
            self.assertEqual(tok.get("/api/v1/auth/me").status, 401)
            r = c.request("POST", "/api/v1/auth/login",
                          {"username": "pat", "password": "pat-password-3"})
            self.assertEqual(r.status, 401)
            r = c.admin().request("PATCH", "/api/v1/users/pat", {"spec": {"disabled": False}})
            self.assertEqual(tok.get("/api/v1/auth/me").status, 401,
                             "re-enabling brings no token back")
            self.assertEqual(s.get("/api/v1/auth/me").status, 401, "sessions stay ended")

    def test_users_only_see_themselves(self):
        with cubed(plugins={}) as c:
            a = c.make_user("amy", password="amy-password-1")
            c.make_user("ben", password="ben-password-1")
            self.assertEqual(a.get("/api/v1/users/amy").status, 200)
            self.assertEqual(a.get("/api/v1/users/ben").status, 404)
            names = [u["metadata"]["name"] for u in a.get("/api/v1/users").json()["items"]]
            self.assertEqual(names, ["amy"])
            self.assertEqual(a.request("PATCH", "/api/v1/users/amy",
                                       {"spec": {"role": "admin"}}).status, 403)
            self.assertEqual(a.request("POST", "/api/v1/users/ben/password",
                                       {"password": "taken-over-1"}).status, 403)


class Throttling(unittest.TestCase):
    def test_lockout_then_retry_after(self):
        conf = {"auth": {"throttle": {"free_failures": 2, "base_ms": 3000, "max_ms": 60000}}}
        with cubed(plugins={}, cube=conf) as c:
            c.make_user("tom", password="tom-password-1")
            statuses = []
            for _ in range(4):
                r = c.request("POST", "/api/v1/auth/login",
                              {"username": "tom", "password": "guess-guess"})
                statuses.append(r.status)
            self.assertEqual(statuses[:3], [401, 401, 401])
            self.assertEqual(statuses[3], 429)
            self.assertGreaterEqual(int(r.header("retry-after")), 1)
            r = c.request("POST", "/api/v1/auth/login",
                          {"username": "tom", "password": "tom-password-1"})
            self.assertEqual(r.status, 429, "even the right password waits out the lock")
            # the address is locked too: another user name from it waits
            r = c.request("POST", "/api/v1/auth/login",
                          {"username": "admin", "password": ADMIN_PASSWORD})
            self.assertEqual(r.status, 429)
            time.sleep(3.2)
            c.login("tom", "tom-password-1")


class TrustedHeader(unittest.TestCase):
    def request_from(self, c, source, headers):
        conn = http.client.HTTPConnection("127.0.0.1", c.port, timeout=10,
                                          source_address=(source, 0))
        conn.request("GET", "/api/v1/auth/me", headers=headers)
        r = conn.getresponse()
        body = r.read().decode()
        conn.close()
        return r.status, body

    def test_only_from_configured_proxies(self):
        conf = {"auth": {"trusted_header": {"header": "X-Forwarded-User",
                                            "proxies": ["127.0.0.1"]}}}
        with cubed(plugins={}, cube=conf) as c:
            st, body = self.request_from(c, "127.0.0.1", {"X-Forwarded-User": "Carol.Smith"})
            self.assertEqual(st, 200, body)
            me = json.loads(body)
            self.assertEqual((me["user"]["name"], me["via"]), ("carol-smith", "header"))
            self.assertEqual(me["user"]["provider"], "header")
            st, body = self.request_from(c, "127.0.0.2", {"X-Forwarded-User": "carol-smith"})
            self.assertEqual(st, 401, "a header from elsewhere is ignored")
            st, body = self.request_from(c, "127.0.0.1", {"X-Forwarded-User": "!!!"})
            self.assertEqual(st, 401)
            self.assertTrue(c.get("/api/v1/auth/providers").json()["trustedHeader"])


class Providers(unittest.TestCase):
    """Login methods registered by a plugin through the ABI."""

    @classmethod
    def setUpClass(cls):
        cls.c = cubed()
        cls.c.make_project("mapped")

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def test_password_provider_provisions_and_maps(self):
        s = self.c.login("Probe-Alice", "probe-pass")
        me = s.get("/api/v1/auth/me").json()
        self.assertEqual(me["csrf"], s.headers["X-CSRF-Token"], "/me tells a session its token")
        self.assertEqual(me["user"]["name"], "probe-alice")
        self.assertEqual(me["user"]["provider"], "probe")
        self.assertEqual(me["user"]["email"], "Probe-Alice@probe.test")
        roles = {p["name"]: p["role"] for p in me["projects"]}
        self.assertEqual(roles.get("mapped"), "dev")
        self.assertEqual(roles.get("public"), "dev", "new users join the default project")
        admin = self.c.login("probe-admin", "probe-pass").get("/api/v1/auth/me").json()
        self.assertEqual(admin["role"], "admin")
        self.c.login("probe-alice", "wrong-pass", expect=401)
        r = self.c.request("POST", "/api/v1/auth/login",
                           {"username": "probe-down", "password": "probe-pass"})
        self.assertEqual(r.status, 503)

    def test_a_provider_cannot_take_over_a_local_account(self):
        self.c.make_user("probe-local", password="local-password-1")
        r = self.c.request("POST", "/api/v1/auth/login",
                           {"username": "probe-local", "password": "probe-pass",
                            "provider": "probe"})
        self.assertEqual(r.status, 401, "the directory's probe-local is not the local one")
        r = self.c.get("/api/v1/auth/probe-sso/login?user=probe-local")
        self.assertEqual(r.status, 403)
        self.assertIsNone(r.header("set-cookie"))
        r = self.c.get("/api/v1/auth/probe-sso/login?user=admin")
        self.assertEqual(r.status, 403, "nor the local admin")

    def test_nul_in_names_is_refused(self):
        for body in ('{"username":"admin\\u0000x","password":"%s"}' % ADMIN_PASSWORD,
                     '{"username":"admin","password":"x\\u0000y"}'):
            r = self.c.request("POST", "/api/v1/auth/login", body)
            self.assertEqual(r.status, 400, body)

    def test_named_provider_only(self):
        r = self.c.request("POST", "/api/v1/auth/login",
                           {"username": "admin", "password": ADMIN_PASSWORD,
                            "provider": "probe"})
        self.assertEqual(r.status, 401, "the local password is not tried for provider=probe")

    def test_redirect_provider(self):
        r = self.c.get("/api/v1/auth/probe-sso/login?user=sso-sam&next=/notebooks")
        self.assertEqual(r.status, 303, r.body)
        self.assertEqual(r.header("location"), "/notebooks")
        cookie = cookie_of(r)
        me = self.c.get("/api/v1/auth/me", headers={"Cookie": cookie}).json()
        self.assertEqual((me["user"]["name"], me["user"]["provider"]), ("sso-sam", "probe-sso"))
        r = self.c.get("/api/v1/auth/probe-sso/login?user=sso-sam&next=//evil.example/x")
        self.assertEqual(r.header("location"), "/", "open redirects are refused")
        r = self.c.get("/api/v1/auth/probe-sso/login?user=bad-identity")
        self.assertEqual(r.status, 401)

    def test_plugin_sees_user_role_and_issues_job_tokens(self):
        t = self.c.make_user("jo", password="jo-password-1")
        r = t.get("/api/v1/authprobe/public/whoami")
        self.assertEqual(r.json(), {"user": "jo", "role": "dev"})
        self.assertEqual(t.get("/api/v1/authprobe/mapped/whoami").status, 404)
        r = t.request("POST", "/api/v1/authprobe/job-token")
        job = self.c.bearer(r.json()["token"])
        me = job.get("/api/v1/auth/me").json()
        self.assertEqual(me["user"]["name"], "jo")
        # the user's own list holds only what they made; a plugin's work
        # tokens are listed apart (?plugin=), and revocable there
        own = t.get("/api/v1/auth/tokens").json()["items"]
        self.assertNotIn("authprobe: probe job", [x["name"] for x in own])
        self.assertEqual([x for x in own if "plugin" in x or "job" in x], [], own)
        work = t.get("/api/v1/auth/tokens?plugin=authprobe").json()["items"]
        self.assertEqual([(x["name"], x["plugin"]) for x in work],
                         [("authprobe: probe job", "authprobe")])
        self.assertEqual(t.get("/api/v1/auth/tokens?plugin=other").json()["items"], [])
        for q in ("plugin=", "job=", "job=a/b&plugin=c", "job=" + "p" * 80 + "/j"):
            r = t.get("/api/v1/auth/tokens?" + q)
            self.assertEqual(r.status, 400, f"{q}: {r.body}")


class ErrorChannelProviders(unittest.TestCase):
    """ABI 1.5's password_check (its own server: the failed sign-ins here
    must not count against the other classes' address)."""

    @classmethod
    def setUpClass(cls):
        cls.c = cubed()

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def test_declined_goes_on_and_a_15_refusal_is_final(self):
        """probe2 (ABI 1.5's password_check) comes first: it declines
        probe-* users, so probe signs them in; its own users' wrong
        password is final, with its reason in the log."""
        me = self.c.login("p2-bob", "p2-pass").get("/api/v1/auth/me").json()
        self.assertEqual((me["user"]["name"], me["user"]["provider"]), ("p2-bob", "probe2"))
        me = self.c.login("probe-carol", "probe-pass").get("/api/v1/auth/me").json()
        self.assertEqual(me["user"]["provider"], "probe")
        self.c.login("p2-bob", "probe-pass", expect=401)
        self.assertIn("probe2: wrong password for p2-bob", self.c.output())
        # probe-final is probe2's too: its refusal stands though probe
        # would take "probe-pass".
        self.c.login("probe-final", "probe-pass", expect=401)
        self.c.login("probe-final", "p2-pass")
        self.assertNotIn("probe-pass", self.c.output())
        self.c.login("nobody-at-all", "x" * 12, expect=401)


class Members(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = c = cubed(plugins={})
        cls.cr = c.make_user("cora", password="cora-password-1")
        cls.dv = c.make_user("dev1", password="dev1-password-1")
        cls.out = c.make_user("olly", password="olly-password-1")
        c.make_project("vision", [("cora", "creator"), ("dev1", "dev")])

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def test_creator_manages_members(self):
        base = "/api/v1/projects/vision/members"
        self.assertEqual(self.dv.get(base).status, 200)
        self.assertEqual(self.out.get(base).status, 404, "non-members do not see it")
        r = self.dv.request("POST", base, {"user": "olly", "role": "viewer"})
        self.assertEqual(r.status, 403)
        r = self.cr.request("POST", base, {"user": "olly", "role": "viewer"})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(self.out.get("/api/v1/projects/vision").status, 200)
        self.assertEqual(self.cr.request("POST", base, {"user": "olly", "role": "dev"}).status,
                         409)
        self.assertEqual(self.cr.request("POST", base, {"user": "ghost", "role": "dev"}).status,
                         422)
        self.assertEqual(self.cr.request("POST", base, {"user": "olly", "role": "boss"}).status,
                         422)
        r = self.cr.request("PUT", base + "/olly", {"role": "ops"})
        self.assertEqual(r.status, 200)
        r = self.cr.request("DELETE", base + "/cora")
        self.assertEqual(r.status, 409, "the last creator stays")
        self.assertEqual(self.cr.request("DELETE", base + "/olly").status, 200)
        self.assertEqual(self.out.get("/api/v1/projects/vision").status, 404)

    def test_quotas_are_for_admins(self):
        r = self.cr.request("PATCH", "/api/v1/projects/vision",
                            {"spec": {"quotas": {"default": {"max": {"cpu": 64}}}}})
        self.assertEqual(r.status, 403, r.body)
        r = self.cr.request("PATCH", "/api/v1/projects/vision",
                            {"spec": {"description": "Vision models"}})
        self.assertEqual(r.status, 200, r.body)
        r = self.c.admin().request("PATCH", "/api/v1/projects/vision",
                                   {"spec": {"quotas": {"default": {"max": {"cpu": 64,
                                                                           "memory": "256Gi"}}}}})
        self.assertEqual(r.status, 200, r.body)

    def test_deleted_user_leaves_every_project(self):
        c = self.c
        old = c.make_user("gone", password="gone-password-1")
        base = "/api/v1/projects/vision/members"
        self.assertEqual(self.cr.request("POST", base, {"user": "gone", "role": "ops"}).status, 201)
        self.assertEqual(c.admin().request("DELETE", "/api/v1/users/gone").status, 200)
        for _ in range(100):
            users = [m["user"] for m in self.cr.get(base).json()["items"]]
            if "gone" not in users:
                break
            time.sleep(0.05)
        self.assertNotIn("gone", users)
        self.assertEqual(old.get("/api/v1/auth/me").status, 401)
        r = c.admin().request("POST", "/api/v1/users", {"metadata": {"name": "gone"}})
        self.assertEqual(r.status, 201)
        self.assertEqual(old.get("/api/v1/auth/me").status, 401,
                         "the old token does not open the new account")
        c.login("gone", "gone-password-1", expect=401)
        again = c.make_user("gone2", password="gone-password-2")
        self.assertEqual(c.admin().request("POST", "/api/v1/users/gone/password",
                                           {"password": "gone-password-3"}).status, 200)
        self.assertEqual(c.login("gone", "gone-password-3").get(
            "/api/v1/projects/vision").status, 404, "a new user of the same name inherits nothing")
        self.assertEqual(again.get("/api/v1/auth/me").status, 200)

    def test_project_lists_are_filtered(self):
        names = [p["metadata"]["name"] for p in self.out.get("/api/v1/projects").json()["items"]]
        self.assertNotIn("vision", names)
        self.assertIn("public", names)
        self.assertEqual(self.out.get("/api/v1/projects?watch=1").status, 403)


class NoSecretsLeak(unittest.TestCase):
    def test_hashes_and_tokens_never_shown(self):
        with cubed(plugins={}) as c:
            t = c.make_user("sam", password="sam-password-1")
            s = c.login("sam", "sam-password-1")
            token = t.headers["Authorization"].split()[1]
            cookie = s.headers["Cookie"].split("=", 1)[1]
            outputs = [c.admin().get(p).body for p in
                       ("/api/v1/users/sam", "/api/v1/users", "/api/v1/events",
                        "/api/v1/users/sam/events", "/api/v1/auth/tokens")]
            outputs.append(t.get("/api/v1/auth/tokens").body)
            c.stop()
            db = sqlite3.connect(os.path.join(c.dir, "var", "cube.db"))
            stored = [r[0] for r in db.execute("SELECT doc FROM secrets WHERE ns='password'")]
            keys = [r[0] for r in db.execute("SELECT key FROM secrets")]
            db.close()
            self.assertTrue(stored and all("$scrypt$ln=15,r=8,p=1$" in d for d in stored))
            self.assertNotIn(token, keys, "tokens are stored hashed")
            self.assertNotIn(cookie, keys, "sessions are stored hashed")
            log = c.output()
            for secret in [token, cookie, "sam-password-1", "$scrypt$"] + stored:
                for text in outputs + [log]:
                    self.assertNotIn(secret, text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
