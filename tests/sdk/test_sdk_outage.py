"""Integration: the SDK rides out a database outage. A cubed on a
throwaway PostgreSQL answers 503 while the database is stopped; SDK calls
made meanwhile (a read, a create) are retried with back-off and succeed
once PostgreSQL is back, and a call whose retry deadline passes first
raises cube.Unavailable saying how long it tried. Uses CUBE_TEST_PG_URL
and CUBE_TEST_PG_DIR (tests/pg/with_pg.sh) when set, else starts its own
server with tests/pg/pg.sh; skips (77) when none can be started."""
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import cube
from sdktest import SOURCE_ROOT, TOKEN, start, url

PG_SH = os.path.join(SOURCE_ROOT, "tests", "pg", "pg.sh")
P = "outage"


def pg(cmd, d):
    subprocess.run([PG_SH, cmd, d], check=True, capture_output=True, timeout=120)


class Outage(unittest.TestCase):
    pg_dir = pg_url = own = None

    @classmethod
    def setUpClass(cls):
        cls.pg_url = os.environ.get("CUBE_TEST_PG_URL")
        cls.pg_dir = os.environ.get("CUBE_TEST_PG_DIR")
        if not (cls.pg_url and cls.pg_dir):
            cls.own = tempfile.mkdtemp(prefix="cube-sdk-pg-")
            os.chmod(cls.own, 0o755)
            cls.pg_dir = os.path.join(cls.own, "pg")
            r = subprocess.run([PG_SH, "start", cls.pg_dir], capture_output=True, text=True,
                               timeout=300)
            if r.returncode != 0:
                shutil.rmtree(cls.own, True)
                print(f"no PostgreSQL for this test: {r.stderr.strip()[-300:]}")
                sys.exit(77)
            cls.pg_url = r.stdout.strip()
        cls.server = start({"testkinds": None}, cube={"database": cls.pg_url})
        cls.c = cube.Client(url(cls.server), token=TOKEN, project=P, retry_deadline=60)
        try:
            cls.c.create("projects", {"metadata": {"name": P}, "spec": {}})
        except cube.Conflict:
            pass                        # the database outlives a run

    @classmethod
    def tearDownClass(cls):
        cls.server.close()
        if cls.own:
            subprocess.run([PG_SH, "stop", cls.pg_dir], capture_output=True, timeout=120)
            shutil.rmtree(cls.own, True)

    def test_calls_during_an_outage_are_retried_until_it_ends(self):
        self.c.apply({"kind": "Note", "metadata": {"name": "before"}, "spec": {"size": 1}})
        pg("stop", self.pg_dir)
        raw = self.server.get(f"/api/v1/projects/{P}/notes/before",
                              headers={"Authorization": "Bearer " + TOKEN})
        try:
            self.assertEqual(raw.status, 503, raw.body)   # what the SDK rides out
            got = {}

            def read():
                try:
                    got["read"] = self.c.get("notes", "before")
                    got["made"] = self.c.apply({"kind": "Note", "metadata": {"name": "during"},
                                                "spec": {"size": 2}})
                except BaseException as e:   # reported below
                    got["error"] = e
            t = threading.Thread(target=read)
            t0 = time.time()
            t.start()
            time.sleep(2.0)
            self.assertTrue(t.is_alive(), got)           # still retrying, not failed
        finally:
            pg("start", self.pg_dir)
        t.join(90)
        self.assertNotIn("error", got, got.get("error"))
        self.assertEqual(got["read"].spec.size, 1)
        self.assertEqual(got["made"].spec.size, 2)
        self.assertGreater(self.c.transport.retries, 3)
        self.assertGreater(time.time() - t0, 2.0)
        self.assertEqual(self.c.get("notes", "during").spec.size, 2)

    def test_the_retry_deadline_ends_it(self):
        short = cube.Client(url(self.server), token=TOKEN, project=P, retry_deadline=1.0)
        short.version()
        pg("stop", self.pg_dir)
        try:
            t0 = time.time()
            with self.assertRaises(cube.Unavailable) as e:
                list(short.list("notes"))
            spent = time.time() - t0
        finally:
            pg("start", self.pg_dir)
        # it retried, and gave up before a sleep would pass the deadline: the
        # time spent is the backoffs that fit in 1 s (jittered), never more
        self.assertGreater(short.transport.retries, 1)
        self.assertGreater(spent, 0.2)
        self.assertLess(spent, 5)
        self.assertEqual(e.exception.status, 503)
        self.assertIn("retried for", str(e.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
