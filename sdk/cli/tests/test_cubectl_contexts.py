#!/usr/bin/python3
"""Integration: cubectl's contexts and default project, and the caller's
own account: config get-contexts/use-context/set-context/current-context/
delete-context, --context, an older flat config file, the project asked
of the server (auth/me) when none is set, create token, passwd, members.

Exits 77 (skipped) while the testkinds plugin is not built."""
import json
import os
import sys

from cubectl_harness import TOKEN, CubectlTest, main

PASSWORD = "bob-password-1"


def setup(server):
    server.make_user("bob", password=PASSWORD)
    server.make_user("dana", password="dana-password-1")
    server.make_project("lab", [("bob", "dev"), ("dana", "dev")])
    # dana is in "lab" only: the default project is not hers
    r = server.bearer(TOKEN).request("DELETE", "/api/v1/projects/public/members/dana")
    assert r.status == 200, r.body


class Helpers(CubectlTest):
    def user_token(self, user, password):
        c = self.server.login(user, password)
        r = c.request("POST", "/api/v1/auth/tokens", {"name": "t"})
        self.assertEqual(r.status, 201, r.body)
        return r.json()["token"]

    def project_of(self, *args, **kw):
        """The project a `get widgets` acts in, read from -v's log."""
        r = self.ok("-v", "get", "widgets", *args, **kw)
        line = next(l for l in r.err.splitlines() if "/widgets" in l and l.startswith(">"))
        return line.split("/api/v1/projects/")[1].split("/")[0]


class DefaultProject(Helpers):
    def test_first_get_after_login_acts_in_the_servers_default_project(self):
        self.ok("login", self.url, "--token", TOKEN, auth=False)
        self.apply(self.widget("dp-a", 1), auth=False)
        r = self.ok("get", "widgets", "-o", "name", auth=False)
        self.assertIn("widget/dp-a", r.out.splitlines())
        self.assertEqual(self.project_of(auth=False), "public")

    def test_without_a_project_the_server_is_asked(self):
        env = {"CUBE_API": self.url, "CUBE_TOKEN": TOKEN}
        self.assertEqual(self.project_of(auth=False, env=env), "public")
        # a user outside the default project acts in one of their own
        dana = self.user_token("dana", "dana-password-1")
        self.assertEqual(self.project_of(auth=False, env=dict(env, CUBE_TOKEN=dana)), "lab")
        # -p and CUBE_PROJECT still win
        self.assertEqual(self.project_of("-p", "lab", auth=False, env=env), "lab")
        self.assertEqual(self.project_of(auth=False, env=dict(env, CUBE_PROJECT="lab")), "lab")

    def test_login_keeps_a_contexts_project_and_takes_p(self):
        self.ok("login", self.url, "--token", TOKEN, "-p", "lab", auth=False)
        self.assertEqual(self.read_config()["contexts"][0]["project"], "lab")
        self.ok("login", self.url, "--token", TOKEN, auth=False)   # again: kept
        cfg = self.read_config()
        self.assertEqual(len(cfg["contexts"]), 1)
        self.assertEqual(cfg["contexts"][0]["project"], "lab")


class Contexts(Helpers):
    def test_get_use_set_current_and_delete(self):
        self.ok("login", self.url, "--token", TOKEN, auth=False)
        admin_ctx = self.read_config()["current-context"]
        bob = self.user_token("bob", PASSWORD)
        r = self.ok("config", "set-context", "bob", "--server", self.url, "--token", bob,
                    "--project", "lab", auth=False)
        self.assertEqual(r.out.strip(), 'Context "bob" created.')
        rows = [l.split() for l in self.ok("config", "get-contexts", auth=False).out.splitlines()]
        self.assertEqual(rows[0], ["CURRENT", "NAME", "SERVER", "PROJECT"])
        self.assertIn(["*", admin_ctx, self.url, "public"], rows)
        self.assertIn(["bob", self.url, "lab"], rows)
        r = self.ok("config", "use-context", "bob", auth=False)
        self.assertEqual(r.out.strip(), 'Switched to context "bob".')
        self.assertEqual(self.ok("config", "current-context", auth=False).out, "bob\n")
        self.assertEqual(self.project_of(auth=False), "lab")
        # --context picks another one for a single command
        self.assertEqual(self.project_of("--context", admin_ctx, auth=False), "public")
        r = self.ok("config", "set-context", "--current", "-p", "public", auth=False)
        self.assertEqual(r.out.strip(), 'Context "bob" modified.')
        self.assertEqual(self.project_of(auth=False), "public")
        self.ok("config", "set-context", "--current", "-p", "", auth=False)   # unset
        self.assertNotIn("project", self.read_config()["contexts"][1])
        self.assertEqual(self.project_of(auth=False), "public")   # the server's, again
        r = self.ok("config", "get-contexts", "-o", "name", auth=False)
        self.assertEqual(r.out.splitlines(), [admin_ctx, "bob"])
        self.ok("config", "delete-context", "bob", auth=False)
        self.fails(1, "config", "current-context", auth=False)
        self.ok("config", "use-context", admin_ctx, auth=False)

    def test_errors(self):
        self.ok("login", self.url, "--token", TOKEN, "--context", "mine", auth=False)
        self.assertEqual(self.read_config()["current-context"], "mine")
        r = self.fails(1, "config", "use-context", "nope", auth=False)
        self.assertIn('"nope"', r.err)
        r = self.fails(1, "--context", "nope", "get", "widgets", auth=False)
        self.assertIn('no context named "nope"', r.err)
        self.fails(2, "config", "set-context", "mine", "--current", auth=False)
        self.fails(2, "config", "set-context", "-p", "x", auth=False)
        self.fails(2, "config", "set-context", "x", "--server", "ftp://h", auth=False)
        self.fails(2, "config", "frob", auth=False)
        self.fails(2, "config", auth=False)
        self.fails(1, "config", "get-contexts", "nope", auth=False)

    def test_an_older_flat_config_still_reads_and_is_upgraded(self):
        os.makedirs(os.path.dirname(self.config), mode=0o700)
        with open(self.config, "w") as f:
            json.dump({"server": self.url, "token": TOKEN, "project": "lab", "extra": 1}, f)
        os.chmod(self.config, 0o600)
        self.assertEqual(self.project_of(auth=False), "lab")
        rows = self.ok("config", "get-contexts", auth=False).out.splitlines()
        self.assertEqual(rows[1].split(), ["*", "default", self.url, "lab"])
        self.ok("config", "set-context", "--current", "-p", "public", auth=False)
        self.assertEqual(self.read_config(), {
            "extra": 1, "current-context": "default",
            "contexts": [{"name": "default", "server": self.url, "token": TOKEN,
                          "project": "public"}]})
        self.assertEqual(self.project_of(auth=False), "public")


class Account(Helpers):
    def test_create_token_prints_the_secret_once(self):
        r = self.ok("create", "token", "ci", "--duration", "1h")
        token = r.out.strip()
        self.assertEqual(r.out.count("\n"), 1)
        self.assertTrue(token.startswith("cube_"), r)
        self.assertIn("shown only this once", r.err)
        self.ok("get", "widgets", token=token)
        r = self.server.bearer(TOKEN).get("/api/v1/auth/tokens").json()
        self.assertIn("ci", [t["name"] for t in r["items"]])
        self.fails(2, "create", "token", "ci", "--duration", "soon")
        self.fails(2, "create", "token")
        r = self.fails(1, "create", "token", "x" * 200)
        self.assertIn("name", r.err)

    def test_passwd_changes_ones_own_and_admin_sets_anothers(self):
        self.server.make_user("erin", password="erin-password-1")
        token = self.user_token("erin", "erin-password-1")
        r = self.fails(1, "passwd", token=token, stdin="wrong-password\nerin-password-2\n")
        self.assertIn("current", r.err)
        r = self.ok("passwd", token=token, stdin="erin-password-1\nerin-password-2\n")
        self.assertEqual(r.out.strip(), "password changed")
        self.server.login("erin", "erin-password-2")
        r = self.fails(1, "passwd", token=token, stdin="erin-password-2\nshort\n")
        self.assertIn("password", r.err)
        r = self.ok("passwd", "erin", stdin="erin-password-3\n")   # as admin
        self.assertEqual(r.out.strip(), "password set")
        self.server.login("erin", "erin-password-3")
        self.server.login("erin", "erin-password-2", expect=401)

    def test_members(self):
        self.server.make_project("crew")
        r = self.ok("-p", "crew", "members", "add", "bob", "--role", "dev")
        self.assertEqual(r.out.strip(), "user bob added to project crew (dev)")
        rows = [l.split() for l in self.ok("-p", "crew", "members").out.splitlines()]
        self.assertEqual(rows[0], ["USER", "ROLE"])
        self.assertIn(["bob", "dev"], rows)
        self.ok("-p", "crew", "members", "set", "bob", "--role", "ops")
        self.assertIn(["bob", "ops"], [l.split() for l in
                                       self.ok("-p", "crew", "members", "list").out.splitlines()])
        r = self.ok("-p", "crew", "members", "remove", "bob")
        self.assertEqual(r.out.strip(), "user bob removed from project crew")
        self.assertNotIn("bob", self.ok("-p", "crew", "members").out.split())
        r = self.fails(1, "-p", "crew", "members", "add", "nobody", "--role", "dev")
        self.assertIn("user", r.err)
        r = self.fails(1, "-p", "crew", "members", "add", "bob", "--role", "boss")
        self.assertIn("role", r.err)
        self.fails(2, "-p", "crew", "members", "add", "bob")
        self.fails(2, "-p", "crew", "members", "drop", "bob")


if __name__ == "__main__":
    sys.exit(main({"testkinds": None}, kinds=("Widget",), setup=setup))
