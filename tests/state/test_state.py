"""Integration: the ABI 1.5 plugin state slots through a real cubed, with
the statekv and statedep test plugins — a plugin's key-value store and
secrets survive a restart (SQLite, and PostgreSQL when CUBE_TEST_PG_URL is
set), secrets are never plaintext in the database or the log, each
plugin sees only its own keys, `dependencies` orders loading and refuses a
missing or too-old plugin (start-up and --check-config), an exported API
reaches the plugin that requires its exporter, and log_stat/log_append_at
let an executor resume a log stream."""
import glob
import os
import stat
import unittest

from cubetest import Cubed

PLUGIN_DIR = os.environ["CUBE_TEST_PLUGIN_DIR"]
PG_URL = os.environ.get("CUBE_TEST_PG_URL")
TOKEN = "state-admin-token"
ADMIN = {"Authorization": "Bearer " + TOKEN}
SECRET = "plaintext-canary-7f3a9c1e"


def cubed(plugins, database=None, **kw):
    cube = {"database": database} if database else {}
    return Cubed(plugins=plugins, plugin_dir=PLUGIN_DIR, cube=cube,
                 env={"CUBE_ADMIN_TOKEN": TOKEN}, **kw)


def db_bytes(c):
    """Every byte of the SQLite database (main file, WAL, journal)."""
    out = b""
    for path in glob.glob(os.path.join(c.dir, "var", "cube.db*")):
        with open(path, "rb") as f:
            out += f.read()
    return out


class StateSurvivesRestart:
    """Mixed into one TestCase per database."""
    database = None

    def req(self, c, method, path, body=None):
        return c.request(method, path, body=body, headers=ADMIN)

    def test_kv_and_secrets_survive_restart(self):
        tag = str(os.getpid())
        with cubed({"statekv": None, "statedep": None}, self.database) as c:
            self.assertEqual(self.req(c, "PUT", f"/api/v1/statekv/kv/a{tag}", "one").status, 200)
            self.assertEqual(self.req(c, "PUT", f"/api/v1/statekv/kv/b{tag}", "two").status, 200)
            r = self.req(c, "PUT", f"/api/v1/statekv/secret/pw{tag}", SECRET)
            self.assertEqual(r.status, 200, r.body)
            c.stop()
            c.start()
            self.assertEqual(self.req(c, "GET", f"/api/v1/statekv/kv/a{tag}").body, "one")
            r = self.req(c, "GET", f"/api/v1/statekv/kv?prefix=b{tag}")
            self.assertEqual(r.json(), [f"b{tag}"])
            r = self.req(c, "GET", f"/api/v1/statekv/secret/pw{tag}")
            self.assertEqual((r.status, r.body), (200, SECRET))
            self.assertIn(f"pw{tag}", self.req(c, "GET", "/api/v1/statekv/secret").json())
            # namespaced: statedep has keys of its own, none of statekv's
            r = self.req(c, "GET", f"/api/v1/statedep/kv/a{tag}")
            self.assertEqual(r.status, 404, r.body)
            # delete, and it stays deleted after a restart
            self.assertEqual(self.req(c, "DELETE", f"/api/v1/statekv/kv/a{tag}").status, 200)
            self.assertEqual(self.req(c, "DELETE", f"/api/v1/statekv/kv/a{tag}").status, 404)
            c.stop()
            c.start()
            self.assertEqual(self.req(c, "GET", f"/api/v1/statekv/kv/a{tag}").status, 404)
            self.assertNotIn(SECRET, c.output())


class Sqlite(StateSurvivesRestart, unittest.TestCase):
    def test_secrets_not_plaintext_on_disk(self):
        with cubed({"statekv": None}) as c:
            r = self.req(c, "PUT", "/api/v1/statekv/secret/canary", SECRET)
            self.assertEqual(r.status, 200, r.body)
            self.req(c, "PUT", "/api/v1/statekv/kv/plain", "visible-kv-value")
            c.stop()
            data = db_bytes(c)
            self.assertGreater(len(data), 0)
            self.assertNotIn(SECRET.encode(), data)
            self.assertNotIn(SECRET.encode(), open(c.log_path, "rb").read())
            key = os.path.join(c.dir, "var", "secret.key")
            self.assertEqual(stat.S_IMODE(os.stat(key).st_mode), 0o600)
            self.assertNotIn(open(key, "rb").read().strip(), data)
            # another platform key: the secret does not open (CUBE_EIO)
            os.rename(key, key + ".old")
            c.start()
            r = self.req(c, "GET", "/api/v1/statekv/secret/canary")
            self.assertEqual(r.status, 400, r.body)
            self.assertEqual(r.json()["rc"], -6)
            self.assertIn("does not open with this platform key", c.output())
            self.assertNotIn(SECRET, c.output())
            c.stop()
            os.replace(key + ".old", key)
            c.start()
            self.assertEqual(self.req(c, "GET", "/api/v1/statekv/secret/canary").body, SECRET)

    def test_key_file_with_loose_mode_is_refused(self):
        c = cubed({"statekv": None}, wait=False)
        try:
            os.makedirs(os.path.join(c.dir, "var"), exist_ok=True)
            key = os.path.join(c.dir, "var", "secret.key")
            with open(key, "w") as f:
                f.write("ab" * 32 + "\n")
            os.chmod(key, 0o644)
            with self.assertRaises(RuntimeError) as cm:
                c.start()
            self.assertIn("secret_key_file", str(cm.exception))
            self.assertIn("chmod 600", str(cm.exception))
        finally:
            c.tmp.cleanup()

    def test_configured_key_file(self):
        c = cubed({"statekv": None}, wait=False)
        with c:
            path = os.path.join(c.dir, "platform.key")
            c.env["CUBE_SECRET_KEY_FILE"] = path
            c.start()
            self.assertEqual(self.req(c, "PUT", "/api/v1/statekv/secret/x", "v").status, 200)
            self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
            self.assertFalse(os.path.exists(os.path.join(c.dir, "var", "secret.key")))

    def test_limits(self):
        with cubed({"statekv": None}) as c:
            r = self.req(c, "PUT", "/api/v1/statekv/kv/big", "x" * 49153)
            self.assertEqual(r.json()["rc"], -10)   # CUBE_ETOOBIG
            r = self.req(c, "PUT", "/api/v1/statekv/kv/big", "x" * 49152)
            self.assertEqual(r.status, 200, r.body)
            self.assertEqual(len(self.req(c, "GET", "/api/v1/statekv/kv/big").raw), 49152)
            r = self.req(c, "PUT", "/api/v1/statekv/secret/big", "x" * 8193)
            self.assertEqual(r.json()["rc"], -10)


@unittest.skipUnless(PG_URL, "no PostgreSQL for this run (tests/pg/with_pg.sh)")
class Postgres(StateSurvivesRestart, unittest.TestCase):
    database = PG_URL


class Requires(unittest.TestCase):
    def test_order_follows_requires_and_api_is_shared(self):
        # statedep comes first in conf.d but is initialised after statekv
        with cubed({"statedep": None, "statekv": None}) as c:
            r = c.request("GET", "/api/v1/statedep/hello", headers=ADMIN).json()
            self.assertEqual(r["rc"], 0)
            self.assertEqual(r["version"], 2)
            self.assertEqual(r["greet"], "hello from statekv")
            out = c.output()
            self.assertLess(out.index("plugin statekv 1.4.0"), out.index("plugin statedep 0.1.0"))
            c.stop()
            self.assertIn("plugin statedep", c.output())

    def test_missing_requirement_is_named(self):
        c = cubed({"stateneedy": None}, wait=False)
        try:
            with self.assertRaises(RuntimeError) as cm:
                c.start()
            self.assertIn("plugin stateneedy requires plugin absent-plugin, which is not "
                          "enabled", str(cm.exception))
            r = c.run("--check-config")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("requires plugin absent-plugin", r.stdout + r.stderr)
        finally:
            c.tmp.cleanup()

    def test_too_old_requirement_is_named(self):
        c = cubed({"statekv": None, "stateold": None}, wait=False)
        try:
            with self.assertRaises(RuntimeError) as cm:
                c.start()
            self.assertIn("plugin stateold requires statekv>=9.1, found statekv 1.4.0",
                          str(cm.exception))
            r = c.run("--check-config")
            self.assertIn("statekv>=9.1", r.stdout + r.stderr)
        finally:
            c.tmp.cleanup()

    def test_optional_dependant_is_skipped(self):
        c = cubed({}, wait=False)
        with c:
            c.write_confd("10-stateneedy.yaml", "stateneedy", None, optional=True)
            c.write_confd("11-statekv.yaml", "statekv", None)
            c.start()
            self.assertIn("optional plugin stateneedy skipped", c.output())
            self.assertEqual(c.request("GET", "/api/v1/statekv/kv", headers=ADMIN).status, 200)

    def test_api_needs_requires(self):
        with cubed({"statekv": None, "stateloose": None}) as c:
            r = c.request("GET", "/api/v1/stateloose/hello", headers=ADMIN).json()
            self.assertEqual(r["rc"], -5)   # CUBE_EPERM
            self.assertIn("in the descriptor's dependencies", c.output())


class LogResume(unittest.TestCase):
    def test_stat_and_append_at_across_restart(self):
        with cubed({"statekv": None}) as c:
            def post(path, body=""):
                return c.request("POST", path, body=body, headers=ADMIN)
            self.assertEqual(c.get("/api/v1/statekv/logstat/r1", headers=ADMIN).status, 404)
            self.assertEqual(post("/api/v1/statekv/log/r1?offset=0", "line one\n").status, 200)
            st = c.get("/api/v1/statekv/logstat/r1", headers=ADMIN).json()
            self.assertEqual((st["size"], st["closed"]), (9, 0))
            c.stop()
            c.start()
            # a re-adopting executor ships from where it believes it was
            self.assertEqual(post("/api/v1/statekv/log/r1?offset=5", "one\nline two\n").status,
                             200)
            self.assertEqual(post("/api/v1/statekv/log/r1?offset=99", "gap").json()["rc"], -12)
            st = c.get("/api/v1/statekv/logstat/r1", headers=ADMIN).json()
            self.assertEqual((st["size"], st["closed"]), (18, 0))
            self.assertEqual(post("/api/v1/statekv/logclose/r1").status, 200)
            c.stop()
            c.start()
            st = c.get("/api/v1/statekv/logstat/r1", headers=ADMIN).json()
            self.assertEqual((st["size"], st["closed"]), (18, 1))
            self.assertEqual(post("/api/v1/statekv/log/r1?offset=18", "late").json()["rc"], -7)
            self.assertEqual(post("/api/v1/statekv/log/r1?offset=9", "line two\n").status, 200)
            r = c.get("/api/v1/projects/public/jobs/r1/logs/out", headers=ADMIN)
            if r.status == 200:
                self.assertEqual(r.body, "line one\nline two\n")
            # closed without a byte
            self.assertEqual(post("/api/v1/statekv/logclose/empty").status, 200)
            st = c.get("/api/v1/statekv/logstat/empty", headers=ADMIN).json()
            self.assertEqual((st["rc"], st["size"], st["closed"]), (0, 0, 1))


if __name__ == "__main__":
    unittest.main()
