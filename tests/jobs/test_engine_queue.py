"""Executors that place and queue work themselves (ABI 1.5,
CUBE_EXECUTOR_ENGINE_QUEUE and the replica_status slot), through a running
cubed on executor-sim with engine_queue: a started replica is Pending,
with the engine's message, until the executor reports it Running; the Job
is Admitted (reason EngineQueued) meanwhile and Running only once every
replica runs; a replica stopped while it waits ends the Job Cancelled."""
import os
import tempfile
import time
import unittest

from cubetest import Cubed

SIM = {"pool": "default", "run_seconds": 1, "engine_queue": True, "held_ms": 0,
       "node_groups": [{"prefix": "n-", "count": 2, "cpu": "16", "memory": "64Gi"}]}
BASE = "/api/v1/projects/lab/jobs"


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-queue-plugins-")
    src = os.environ["CUBE_SIM_PLUGIN_DIR"]
    os.symlink(os.path.join(src, "cube-executor-sim.so"), os.path.join(d, "cube-executor-sim.so"))
    return d


class EngineQueue(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"executor-sim": SIM}, plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.c.make_project("lab")

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def status(self, name):
        return self.a.get(f"{BASE}/{name}").json().get("status", {})

    def wait(self, name, cond, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = self.status(name)
            if cond(st):
                return st
            time.sleep(0.05)
        self.fail(f"{name}: {self.status(name)}")

    def submit(self, name, replicas=1):
        r = self.a.request("POST", BASE, {"metadata": {"name": name},
                                          "spec": {"command": ["train"], "replicas": replicas}})
        self.assertEqual(r.status, 201, r.body)

    def test_pending_until_the_engine_says_running(self):
        self.submit("held", replicas=2)
        st = self.wait("held", lambda s: len(s.get("replicas", [])) == 2 and all(
            r.get("engineId") for r in s["replicas"]))
        # Held for good: the replicas stay Pending and the Job Admitted.
        time.sleep(0.5)
        st = self.status("held")
        self.assertEqual(st["phase"], "Admitted", st)
        self.assertEqual(st["reason"], "EngineQueued", st)
        self.assertNotIn("started", st)
        for r in st["replicas"]:
            self.assertEqual(r["phase"], "Pending", r)
            self.assertIn("held in the simulated queue", r["message"])
            self.assertTrue(r["node"].startswith("n-"), r)
        self.assertIn("waits in the engine's queue", st["message"])
        r = self.a.request("POST", "/api/v1/sim/release", {})
        self.assertEqual(r.status, 200, r.body)
        st = self.wait("held", lambda s: s.get("phase") in ("Running", "Succeeded"))
        self.assertIn("started", st)
        st = self.wait("held", lambda s: s.get("phase") == "Succeeded")
        for r in st["replicas"]:
            self.assertEqual(r["phase"], "Succeeded", r)

    def test_stopped_while_it_waits(self):
        self.submit("waiting")
        self.wait("waiting", lambda s: any(r.get("phase") == "Pending"
                                           for r in s.get("replicas", [])))
        r = self.a.request("POST", f"{BASE}/waiting/stop", {})
        self.assertIn(r.status, (200, 202), r.body)
        st = self.wait("waiting", lambda s: s.get("phase") == "Cancelled")
        self.assertEqual(st["reason"], "Stopped", st)


if __name__ == "__main__":
    unittest.main(verbosity=2)
