"""Rolling upgrade, rollback and a broken version, with a client sending
requests the whole time: a registered Model's next version is deployed
onto a running service (new replicas start beside the old, traffic moves
once they are ready, then the old stop), not one request fails, and every
step is an event; rollback to an earlier revision rolls the old version
out again the same way; a version whose pickle is corrupt fails its
upgrade, naming the cause in the status and an event, while the old
revision keeps serving."""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servingtest import BASE, RES, Load, ServingCase, run_py  # noqa: E402

ROWS = [[5.1, 3.5, 1.4, 0.2], [6.7, 3.0, 5.2, 2.3], [5.9, 3.0, 4.2, 1.5]]

TRAIN = r"""
import json, sys, joblib
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
X, y = load_iris(return_X_y=True)
rows = json.loads(sys.argv[3])
m = LogisticRegression(max_iter=1000, C=float(sys.argv[2])).fit(X, y)
joblib.dump(m, sys.argv[1])
print(json.dumps(m.predict(rows).tolist()))
"""


class Rollout(ServingCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        d = os.path.join(cls.pdir, "models")
        cls.expect = {}
        for v, c in (("1", 1.0), ("2", 0.01)):
            cls.expect[v] = run_py(TRAIN, os.path.join(d, f"iris-{v}.joblib"), str(c),
                                   json.dumps(ROWS))
        # passes the registry's sniffing (a protocol 4 pickle ending in STOP)
        # but does not unpickle
        with open(os.path.join(d, "broken.pkl"), "wb") as f:
            f.write(b"\x80\x04\x95" + os.urandom(64).replace(b".", b"x") + b".")

    def pred_status(self, name):
        return (self.status(name).get("predictors") or [{}])[0]

    def wait_version(self, load, version, what):
        """Waits until the client's answers all come from version."""
        deadline = time.time() + 120
        seen = {}
        while time.time() < deadline:
            seen = load.latest(20)
            if set(seen) == {version}:
                return
        self.fail(f"{what}: answers still {seen}\n{self.events('roll')}")

    def test_upgrade_rollback_and_broken_version(self):
        for v in ("1", "2"):
            self.register(f"roll-{v}", {"name": "roll", "framework": "sklearn", "version": int(v),
                                        "path": f"models/iris-{v}.joblib"})
        self.deploy("roll-1", {"service": "roll", "resources": RES}, status=(201,))
        self.ready("roll", timeout=120)
        first = self.pred_status("roll")["template"]
        status, out = self.infer("roll", ROWS)
        self.assertEqual((status, out["outputs"][0]["data"]), (200, self.expect["1"]), out)

        load = Load(self, "roll", ROWS, threads=2)
        try:
            self.assertEqual(set(load.latest(20)), {"1"})
            # -- rolling upgrade: version 2 beside 1, traffic moves, 1 stops
            self.deploy("roll-2", {"service": "roll"}, status=(200,))
            self.wait_version(load, "2", "upgrade")
            st = self.wait("roll", lambda st: not st["predictors"][0].get("next") and
                           st["predictors"][0]["template"] != first, what="upgraded")
            second = st["predictors"][0]["template"]
            self.wait_jobs("roll", {second})
            self.assertEqual(set(load.latest(20)), {"2"})
            self.assertEqual(load.failed, [], "no request fails during the upgrade")
            reasons = self.reasons("roll")
            for step in ("Revision", "UpgradeStarted", "ReplicaStarted", "ReplicaReady",
                         "TrafficMoved", "ReplicaStopped"):
                self.assertIn(step, reasons, self.events("roll"))
            ev = self.events("roll")
            self.assertIn(f"template {second} beside {first}", ev)
            self.assertIn(f"traffic moved to template {second}", ev)

            # -- rollback to revision 1 (version 1), rolled out the same way
            revs = self.status("roll")["revisions"]
            rev1 = [r["revision"] for r in revs
                    if r["spec"]["predictors"][0]["model"]["name"] == "roll-1"]
            self.assertTrue(rev1, revs)
            r = self.viewer.request("POST", f"{BASE}/inferenceservices/roll/rollback",
                                    {"revision": rev1[0]})
            self.assertEqual(r.status, 403, r.body)
            r = self.dev.request("POST", f"{BASE}/inferenceservices/roll/rollback",
                                 {"revision": 9999})
            self.assertEqual(r.status, 422, r.body)
            self.assertIn("revision", r.json()["error"]["message"])
            r = self.dev.request("POST", f"{BASE}/inferenceservices/roll/rollback",
                                 {"revision": rev1[0]})
            self.assertEqual(r.status, 200, r.body)
            self.assertEqual(r.json()["spec"]["predictors"][0]["model"]["name"], "roll-1")
            self.wait_version(load, "1", "rollback")
            st = self.wait("roll", lambda st: not st["predictors"][0].get("next") and
                           st["predictors"][0]["template"] == first, what="rolled back")
            self.wait_jobs("roll", {first})
            self.assertIn("RolledBack", self.reasons("roll"))
            self.assertGreater(st["revision"], rev1[0])
            self.assertEqual(load.failed, [], "no request fails during the rollback")

            # -- a broken version: the upgrade fails, version 1 serves on
            self.register("roll-3", {"name": "roll", "framework": "sklearn", "version": 3,
                                     "path": "models/broken.pkl"})
            self.deploy("roll-3", {"service": "roll"}, status=(200,))
            st = self.wait("roll", lambda st: st["predictors"][0].get("reason") == "UpgradeFailed",
                           timeout=120, what="UpgradeFailed")
            p = st["predictors"][0]
            self.assertEqual(p["template"], first)
            self.assertIn("does not load as sklearn", p["message"])
            self.assertIn("keeps serving", p["message"])
            self.assertEqual(st["phase"], "Ready")
            self.assertIn("UpgradeFailed", self.reasons("roll"))
            self.assertIn("does not load as sklearn", self.events("roll"))
            self.wait_jobs("roll", {first})
            self.assertEqual(set(load.latest(20)), {"1"})
            time.sleep(1)      # the failed template is not retried
            self.assertEqual(self.pred_status("roll")["template"], first)
            self.assertEqual(set(load.latest(10)), {"1"})
        finally:
            load.stop()
        self.assertEqual(load.failed, [], "no request fails")
        self.assertGreater(load.ok, 100)
        status, out = self.infer("roll", ROWS)
        self.assertEqual((status, out["outputs"][0]["data"]), (200, self.expect["1"]), out)

    def wait_jobs(self, name, templates, timeout=60):
        """Waits until the service's Jobs are only those of templates."""
        deadline = time.time() + timeout
        have = set()
        while time.time() < deadline:
            items = self.a.get(f"{BASE}/jobs?labelSelector=cube.dev/inferenceservice={name}"
                               ).json()["items"]
            have = {j["metadata"]["labels"]["cube.dev/template"] for j in items}
            if have == templates:
                return
            time.sleep(0.2)
        self.fail(f"{name}: jobs of {have}, want {templates}\n{self.events(name)}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
