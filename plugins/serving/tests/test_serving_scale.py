"""Autoscaling on the concurrency metric with real replicas (a custom
server that answers after 0.3 s, so requests pile up): from 1 to 3
replicas under load, all three serving, and back to 1 only once
scaleDownDelaySeconds passed without the load; scale to zero when idle,
and from zero with the first request held until a replica is ready."""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servingtest import BASE, PY, RES, Load, ServingCase  # noqa: E402

SLOW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "slow_server.py")
ROW = [[1.0, 2.0]]


def slow(name="main", delay="0.3", **extra):
    p = {"name": name, "runtime": "custom", "resources": RES,
         "command": [PY, "-I", SLOW, "--delay", delay]}
    p.update(extra)
    return p


class Scale(ServingCase):
    def desired(self, st):
        return (st.get("predictors") or [{}])[0].get("desired")

    def ready_n(self, st):
        return (st.get("predictors") or [{}])[0].get("ready")

    def test_autoscale_up_and_down(self):
        self.create("auto", {"predictors": [slow(replicas={"min": 1, "max": 3})],
                             "autoscale": {"metric": "concurrency", "target": 2,
                                           "scaleDownDelaySeconds": 3}})
        self.ready("auto")
        self.assertEqual(self.desired(self.status("auto")), 1)
        load = Load(self, "auto", ROW, threads=8)
        try:
            st = self.wait("auto", lambda st: self.ready_n(st) == 3, timeout=60,
                           what="3 ready replicas")
            self.assertEqual(self.desired(st), 3, "never above replicas.max")
            time.sleep(1.5)
            with load.lock:
                load.by = {}
            time.sleep(2)
            with load.lock:
                served = dict(load.by)
        finally:
            stopped = time.time()   # demand drops from here on, not before
            load.stop()
        self.assertEqual(load.failed, [])
        self.assertEqual(len(served), 3, f"least-outstanding spreads over all three: {served}")
        self.assertIn("ScaledUp", self.reasons("auto"))
        jobs = self.a.get(f"{BASE}/jobs?labelSelector=cube.dev/inferenceservice=auto").json()
        self.assertEqual(len(jobs["items"]), 3)
        # down only after scaleDownDelaySeconds without the load
        time.sleep(max(0, stopped + 2 - time.time()))
        self.assertEqual(self.desired(self.status("auto")), 3, "not before the delay")
        st = self.wait("auto", lambda st: self.desired(st) == 1 and self.ready_n(st) == 1,
                       timeout=30, what="back to 1")
        self.assertGreaterEqual(time.time() - stopped, 3)
        self.assertIn("ScaledDown", self.reasons("auto"))
        self.assertIn("predictor main: 3 -> 1 replicas", self.events("auto"))
        deadline = time.time() + 30
        while time.time() < deadline:
            jobs = self.a.get(f"{BASE}/jobs?labelSelector=cube.dev/inferenceservice=auto").json()
            if len(jobs["items"]) == 1:
                break
            time.sleep(0.2)
        self.assertEqual(len(jobs["items"]), 1, jobs)
        status, out = self.infer("auto", ROW)
        self.assertEqual(status, 200, out)
        m = self.a.get("/metrics").body
        self.assertIn('cube_serving_replicas{project="lab",service="auto",predictor="main"', m)

    def test_scale_from_zero(self):
        self.create("zero", {"predictors": [slow(delay="0", replicas={"min": 0, "max": 2})],
                             "autoscale": {"metric": "concurrency", "target": 4,
                                           "minReplicas": 0, "scaleDownDelaySeconds": 2}})
        # starts with one replica, goes to zero once idle for the delay
        st = self.wait("zero", lambda st: self.desired(st) == 0 and self.ready_n(st) == 0,
                       timeout=60, what="scaled to zero")
        self.assertEqual(st["phase"], "Idle")
        deadline = time.time() + 30
        while time.time() < deadline:
            jobs = self.a.get(f"{BASE}/jobs?labelSelector=cube.dev/inferenceservice=zero").json()
            if not jobs["items"]:
                break
            time.sleep(0.2)
        self.assertEqual(jobs["items"], [], "no replica runs at zero")
        self.assertIn("ScaledToZero", self.reasons("zero"))
        # the first request is held until a replica is ready, then answered
        t0 = time.time()
        status, out = self.infer("zero", ROW)
        held = time.time() - t0
        self.assertEqual(status, 200, out)
        self.assertTrue(out["job"].startswith("zero-main-"), out)
        self.assertGreater(held, 0.2, "a replica had to start")
        st = self.status("zero")
        self.assertEqual((self.desired(st), self.ready_n(st)), (1, 1), st)
        self.assertIn("predictor main: 0 -> 1 replicas", self.events("zero"))
        # and several requests at once while at zero again are all answered
        self.wait("zero", lambda st: self.desired(st) == 0 and self.ready_n(st) == 0,
                  timeout=60, what="scaled to zero again")
        load = Load(self, "zero", ROW, threads=4)
        try:
            load.latest(8)
        finally:
            load.stop()
        self.assertEqual(load.failed, [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
