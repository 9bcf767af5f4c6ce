"""The web console in a real Chromium against a real cubed: sign-in (and the
server's wrong-password message), the sidebar built from /api/v1/kinds,
language switching, project members, API tokens, sign-out. The browser side
is web/e2e/smoke.mjs (playwright-core); this side starts cubed, prepares the
data and checks through the API what the console did."""
import json
import os
import shutil
import subprocess
import unittest

from cubetest import Cubed

ROOT = os.path.abspath(os.environ.get("CUBE_SOURCE_ROOT", "."))
WEB = os.path.join(ROOT, "web")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def build_console():
    """Builds web/dist (skipped when it is up to date); returns why not, or None."""
    if not shutil.which("npm") or not shutil.which("node"):
        return "npm/node not installed"
    if not CHROMIUM:
        return "chromium not installed"
    p = subprocess.run([os.path.join(ROOT, "scripts", "build-web.sh")],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise AssertionError("console build failed:\n" + p.stdout[-3000:] + p.stderr[-3000:])
    return None


class Console(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = build_console()
        if why:
            raise unittest.SkipTest(why)

    def test_console_smoke(self):
        dist = os.path.abspath(os.path.join(WEB, "dist"))
        with Cubed(cube={"web_root": dist}) as c:
            c.make_user("alice", password="alice-password-123")
            c.make_user("bob")
            c.make_project("demo", members=[("alice", "creator")])
            r = c.admin().request("PATCH", "/api/v1/projects/demo",
                                  {"spec": {"quotas": {"default": {"max": {"cpu": "4"}}}}})
            self.assertEqual(r.status, 200, r.body)
            wrong = c.request("POST", "/api/v1/auth/login",
                              {"username": "alice", "password": "nope"})
            self.assertEqual(wrong.status, 401, wrong.body)
            env = dict(os.environ, CUBE_URL=f"http://127.0.0.1:{c.port}", CUBE_USER="alice",
                       CUBE_PASSWORD="alice-password-123", CHROMIUM=CHROMIUM,
                       CUBE_ADMIN_PASSWORD=c.admin_password,
                       CUBE_WRONG_MESSAGE=wrong.json()["error"]["message"])
            p = subprocess.run(["node", os.path.join(WEB, "e2e", "smoke.mjs")], cwd=WEB,
                               env=env, capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr + p.stdout[-2000:])
            seen = json.loads(p.stdout.strip().splitlines()[-1])

            # the sidebar: fixed entries and the core kinds, no admin pages
            self.assertIn("Jobs", seen["menu"])
            self.assertIn("Projects", seen["menu"])
            self.assertNotIn("Users", seen["menu"])
            # the member the console added, with the default role
            r = c.admin().get("/api/v1/projects/demo/members")
            self.assertIn({"user": "bob", "role": "dev"}, r.json()["items"])
            # the token the console showed works, and is alice's
            me = c.bearer(seen["token"]).get("/api/v1/auth/me")
            self.assertEqual(me.status, 200, me.body)
            self.assertEqual(me.json()["user"]["name"], "alice")
            # the password alice set in the console
            c.login("alice", "alice-password-123-new")
            c.login("alice", "alice-password-123", expect=401)
            # what the administrator did: a user who can sign in, a disabled
            # user, a project
            c.login("carol", "carol-password-123")
            bob = c.admin().get("/api/v1/users/bob").json()
            self.assertTrue(bob["spec"]["disabled"], bob)
            self.assertEqual(c.admin().get("/api/v1/projects/made-in-console").status, 200)


if __name__ == "__main__":
    unittest.main(verbosity=2)
