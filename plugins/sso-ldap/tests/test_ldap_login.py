"""End to end: cubed with the sso-ldap plugin against a real slapd (started
by with_slapd.sh): POST /api/v1/auth/login, /auth/me with the session
cookie, /auth/providers, generic failures, an unreachable directory, and
bad configurations stopping start-up with the setting named.

Exits 77 (skipped) when CUBE_TEST_LDAP_URL is not set."""
import json
import os
import sys
import unittest

from cubetest import Cubed, free_port

LDAP_URL = os.environ.get("CUBE_TEST_LDAP_URL")
LDAP_CA = os.environ.get("CUBE_TEST_LDAP_CA")
ADMIN_TOKEN = "sso-ldap-test-admin-token"
GROUPS = "ou=groups,dc=example,dc=org"


def ldap_config(**over):
    """The plugin's config for the test directory (see slapd.sh)."""
    cfg = {
        "url": LDAP_URL, "starttls": True, "tls_ca_file": LDAP_CA, "timeout_s": 3,
        "base_dn": "ou=people,dc=example,dc=org", "group_base_dn": GROUPS,
        "bind_dn": "cn=reader,dc=example,dc=org", "bind_password_env": "LDAP_READER_PW",
        "display_name": "Example directory",
        "admin_groups": [f"cn=admins,{GROUPS}"],
        "project_roles": [
            {"group": f"cn=ml,{GROUPS}", "project": "ml", "role": "dev"},
            {"group": f"CN=ML-Leads,{GROUPS}", "project": "ml", "role": "creator"},
            {"group": f"cn=ml,{GROUPS}", "project": "vision", "role": "viewer"},
        ],
    }
    cfg.update(over)
    return cfg


def make_cubed(config, wait=True):
    """A Cubed with sso-ldap enabled (conf.d written as JSON, which is YAML)."""
    c = Cubed(wait=False, env={"CUBE_ADMIN_TOKEN": ADMIN_TOKEN, "LDAP_READER_PW": "reader-pw"},
              cube={"auth": {"throttle": {"free_failures": 1000}}})
    doc = {"plugin": "sso-ldap", "enabled": True, "config": config}
    with open(os.path.join(c.dir, "conf.d", "10-sso-ldap.yaml"), "w") as f:
        f.write(json.dumps(doc, indent=1) + "\n")
    if wait:
        c.start()
    return c


def login(c, user, password, **extra):
    return c.request("POST", "/api/v1/auth/login",
                     body=dict({"username": user, "password": password}, **extra),
                     headers={"Content-Type": "application/json"})


def session_cookie(r):
    """The cube_session=... pair of a login response's Set-Cookie."""
    sc = r.header("Set-Cookie") or ""
    first = sc.split(";")[0].strip()
    return first if first.startswith("cube_session=") and len(first) > 13 else None


class LdapLogin(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = make_cubed(ldap_config())
        auth = {"Authorization": f"Bearer {ADMIN_TOKEN}", "Content-Type": "application/json"}
        for p in ("ml", "vision"):
            r = cls.c.request("POST", "/api/v1/projects", headers=auth,
                              body={"metadata": {"name": p}, "spec": {}})
            assert r.status in (200, 201), f"create project {p}: {r.status} {r.body}"

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def me(self, cookie):
        r = self.c.get("/api/v1/auth/me", headers={"Cookie": cookie})
        self.assertEqual(r.status, 200, r.body)
        return r.json()

    def test_admin_login_maps_groups(self):
        r = login(self.c, "alice", "alice-pw")
        self.assertEqual(r.status, 200, r.body + self.c.output()[-2000:])
        cookie = session_cookie(r)
        self.assertIsNotNone(cookie, r.headers)
        body = r.json()
        self.assertEqual(body["user"]["name"], "alice")
        self.assertIsInstance(body["csrf"], str)
        self.assertTrue(body["csrf"])
        me = self.me(cookie)
        self.assertEqual(me["role"], "admin")
        self.assertEqual(me["user"]["displayName"], "Alice Liddell")
        self.assertEqual(me["user"]["email"], "alice@example.org")
        self.assertEqual(me["user"]["provider"], "ldap")
        roles = {p["name"]: p["role"] for p in me["projects"]}
        self.assertEqual(roles.get("ml"), "creator")  # highest of dev and creator
        self.assertEqual(roles.get("vision"), "viewer")

    def test_user_login_maps_groups(self):
        r = login(self.c, "bob", "bob-pw")
        self.assertEqual(r.status, 200, r.body)
        me = self.me(session_cookie(r))
        self.assertEqual(me["role"], "user")
        roles = {p["name"]: p["role"] for p in me["projects"]}
        self.assertEqual(roles.get("ml"), "dev")
        self.assertEqual(roles.get("vision"), "viewer")

    def test_provider_can_be_named(self):
        r = login(self.c, "bob", "bob-pw", provider="ldap")
        self.assertEqual(r.status, 200, r.body)
        self.assertIsNotNone(session_cookie(r))

    def test_failures_are_generic(self):
        answers = [login(self.c, "alice", "wrong-pw"), login(self.c, "mallory", "x"),
                   login(self.c, "*)(uid=*", "alice-pw"), login(self.c, "*", "bob-pw")]
        for r in answers:
            self.assertEqual(r.status, 401, r.body)
            self.assertIsNone(session_cookie(r))
        messages = {r.json()["error"]["message"] for r in answers}
        self.assertEqual(len(messages), 1, messages)  # wrong password == unknown user
        msg = messages.pop()
        self.assertNotIn("password is wrong", msg)
        self.assertNotIn("unknown", msg)

    def test_providers_lists_ldap(self):
        r = self.c.get("/api/v1/auth/providers")
        self.assertEqual(r.status, 200, r.body)
        ldap = [p for p in r.json()["providers"] if p["name"] == "ldap"]
        self.assertEqual(len(ldap), 1, r.body)
        self.assertEqual(ldap[0]["kind"], "password")
        self.assertEqual(ldap[0]["displayName"], "Example directory")

    def test_zz_log_has_no_password(self):
        login(self.c, "carol", "carol-pw")
        login(self.c, "carol", "not-carols-pw")
        out = self.c.output()
        for secret in ("alice-pw", "bob-pw", "carol-pw", "not-carols-pw", "reader-pw"):
            self.assertNotIn(secret, out)
        self.assertIn("wrong password", out)  # the reason is logged, for operators


class LdapUnavailable(unittest.TestCase):
    def test_unreachable_directory_is_503(self):
        with make_cubed(ldap_config(url=f"ldap://127.0.0.1:{free_port()}")) as c:
            r = login(c, "alice", "alice-pw")
            self.assertEqual(r.status, 503, r.body)
            self.assertIsNone(session_cookie(r))


class LdapBadConfig(unittest.TestCase):
    def assert_refused(self, config, setting, check_config=True):
        with make_cubed(config, wait=False) as c:
            p = c.run()
            self.assertNotEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn(setting, p.stdout + p.stderr)
            if check_config:
                p = c.run("--check-config")
                self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
                self.assertRegex(p.stderr, r"10-sso-ldap\.yaml:\d+:\d+: .*config\.url")

    def test_url_scheme_is_checked_by_schema(self):
        self.assert_refused(ldap_config(url="http://ldap.example.org"), "url")

    def test_unparseable_url_stops_start_up(self):
        self.assert_refused(ldap_config(url="ldap://[::1"), "config.url")
        # Past the schema's pattern, init's own parse names the setting.
        self.assert_refused(ldap_config(url="ldap://h:99999"), "sso-ldap: url: cannot parse",
                            check_config=False)

    def test_clear_text_stops_start_up(self):
        cfg = ldap_config(starttls=False)
        self.assert_refused(cfg, "sso-ldap: url: ldap:// without starttls", check_config=False)

    def test_shipped_example_is_valid(self):
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "..", "sso-ldap.yaml.example")) as f:
            example = f.read()
        with make_cubed(ldap_config(), wait=False) as c:
            with open(os.path.join(c.dir, "conf.d", "10-sso-ldap.yaml"), "w") as f:
                f.write(example)
            p = c.run("--check-config")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_bad_role_names_the_setting(self):
        cfg = ldap_config(project_roles=[{"group": f"cn=ml,{GROUPS}", "project": "ml",
                                          "role": "boss"}])
        with make_cubed(cfg, wait=False) as c:
            p = c.run("--check-config")
            self.assertEqual(p.returncode, 1)
            self.assertIn("project_roles", p.stderr)


if __name__ == "__main__":
    if not LDAP_URL or not LDAP_CA:
        print("SKIP: no slapd (CUBE_TEST_LDAP_URL unset; with_slapd.sh says why)")
        sys.exit(77)
    unittest.main(verbosity=2)
