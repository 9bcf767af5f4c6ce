"""Job metrics (ABI 1.5) through a running cubed: a Job's replica, on
executor-local with its own CUBE_TOKEN, reports 100 metrics in batches and
the plugin owning the Job (tests/jobs/sweepprobe.c) is reconciled, a few
times rather than once per point, and reads them with the job_metrics slot;
the token is refused (403) for another Job; bad batches get a 4xx naming
the field; viewers read with name and sinceStep filters; the metrics
survive a restart of cubed and go with the Job."""
import json
import os
import tempfile
import time
import unittest

from cubetest import Cubed

PY = "/usr/bin/python3"
BASE = "/api/v1/projects/lab"

# The replica: 100 points in 10 batches with its own token, then a write to
# another Job's metrics and a bad batch; prints what each answered.
REPORTER = r"""
import json, os, urllib.error, urllib.request
api, tok = os.environ["CUBE_API"], os.environ["CUBE_TOKEN"]
base = api + "/api/v1/projects/" + os.environ["CUBE_PROJECT"] + "/jobs/"
def post(job, body):
    req = urllib.request.Request(base + job + "/metrics", data=json.dumps(body).encode(),
                                 method="POST", headers={"Authorization": "Bearer " + tok,
                                                         "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)
out = {"batches": []}
for b in range(10):
    pts = [{"name": "loss" if i % 2 == 0 else "acc", "value": 1.0 / (b * 10 + i + 1),
            "step": b * 10 + i} for i in range(10)]
    out["batches"].append(post(os.environ["CUBE_JOB"], {"metrics": pts})[0])
out["other"] = post("victim", {"metrics": [{"name": "loss", "value": 0}]})
out["bad"] = post(os.environ["CUBE_JOB"], {"metrics": [{"name": "loss", "value": "NaN"}]})
print("RESULT " + json.dumps(out), flush=True)
"""


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-metrics-plugins-")
    for var, name in (("CUBE_LOCAL_PLUGIN_DIR", "cube-executor-local.so"),
                      ("CUBE_PROBE_PLUGIN_DIR", "cube-sweepprobe.so")):
        os.symlink(os.path.join(os.environ[var], name), os.path.join(d, name))
    return d


class JobMetrics(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"executor-local": None, "sweepprobe": None},
                      plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.dev = cls.c.make_user("dana")
        cls.viewer = cls.c.make_user("vic")
        cls.c.make_project("lab", [("dana", "dev"), ("vic", "viewer")])

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def wait_job(self, name, phases=("Succeeded", "Failed", "Cancelled"), timeout=120):
        deadline = time.time() + timeout
        while time.time() < deadline:
            r = self.a.get(f"{BASE}/jobs/{name}")
            st = r.json().get("status", {}) if r.status == 200 else {}
            if st.get("phase") in phases:
                return st
            time.sleep(0.1)
        self.fail(f"{name}: {st}")

    def test_a_replica_reports_and_its_owner_is_reconciled(self):
        r = self.dev.request("POST", f"{BASE}/jobs", {"metadata": {"name": "victim"},
                                                      "spec": {"command": ["true"]}})
        self.assertEqual(r.status, 201, r.body)
        r = self.dev.request("POST", f"{BASE}/sweeps", {"metadata": {"name": "s1"},
                                                        "spec": {"command": [PY, "-c", REPORTER]}})
        self.assertEqual(r.status, 201, r.body)
        st = self.wait_job("s1-trial")
        self.assertEqual(st["phase"], "Succeeded", st)
        log = self.a.get(f"{BASE}/jobs/s1-trial/logs").body
        line = [l for l in log.splitlines() if l.startswith("RESULT ")]
        self.assertTrue(line, log)
        out = json.loads(line[-1][len("RESULT "):])
        self.assertEqual(out["batches"], [201] * 10, out)
        status, body = out["other"]
        self.assertEqual(status, 403, body)
        self.assertIn("its own Job only", body["error"]["message"])
        status, body = out["bad"]
        self.assertEqual(status, 422, body)
        self.assertEqual(body["error"]["field"], "metrics[0].value", body)

        deadline = time.time() + 10
        while time.time() < deadline:
            probe = self.a.get(f"{BASE}/sweepprobe/s1").json()
            if probe["points"] == 100:
                break
            time.sleep(0.1)
        self.assertEqual(probe["points"], 100, probe)   # through the job_metrics slot
        # reconciled after the points came, coalesced: not one per point or batch
        self.assertGreaterEqual(probe["reconciles"], 2, probe)
        self.assertLess(probe["reconciles"], 40, probe)

        got = self.viewer.get(f"{BASE}/jobs/s1-trial/metrics").json()
        self.assertEqual(len(got["metrics"]), 100)
        self.assertEqual(got["metrics"][0]["name"], "acc")
        loss = self.viewer.get(f"{BASE}/jobs/s1-trial/metrics?name=loss&sinceStep=89").json()
        self.assertEqual([p["step"] for p in loss["metrics"]], [90, 92, 94, 96, 98])
        self.assertAlmostEqual(loss["metrics"][0]["value"], 1.0 / 91)
        # the victim got nothing
        self.assertEqual(self.a.get(f"{BASE}/jobs/victim/metrics").json()["metrics"], [])
        # viewers may not write, editors may
        pt = {"metrics": [{"name": "loss", "value": 0.5, "step": 200}]}
        self.assertEqual(self.viewer.request("POST", f"{BASE}/jobs/s1-trial/metrics", pt).status,
                         403)
        self.assertEqual(self.dev.request("POST", f"{BASE}/jobs/s1-trial/metrics", pt).status,
                         201)

    def test_bad_batches_name_the_field(self):
        r = self.dev.request("POST", f"{BASE}/jobs", {"metadata": {"name": "badbatch"},
                                                      "spec": {"command": ["true"]}})
        self.assertEqual(r.status, 201, r.body)
        path = f"{BASE}/jobs/badbatch/metrics"
        for body, field in [
                ({}, "metrics"),
                ({"metrics": []}, "metrics"),
                ({"metrics": [{"name": "x", "value": 1}] * 1001}, "metrics"),
                ({"metrics": [{"name": "ok", "value": 1}, {"name": "a b", "value": 1}]},
                 "metrics[1].name"),
                ({"metrics": [{"name": "loss", "value": True}]}, "metrics[0].value"),
                ({"metrics": [{"name": "loss", "value": 1, "step": -1}]}, "metrics[0].step"),
                ({"metrics": [{"name": "loss", "value": 1, "step": 1.5}]}, "metrics[0].step"),
                ({"metrics": [{"name": "loss", "value": 1, "ts": "now"}]}, "metrics[0].ts"),
                ({"metrics": [{"name": "loss", "value": 1, "extra": 1}]}, "metrics[0].extra")]:
            r = self.dev.request("POST", path, body)
            self.assertEqual(r.status, 422, (body, r.body))
            self.assertEqual(r.json()["error"]["field"], field, r.body)
        r = self.dev.request("POST", path, None, headers={"Content-Type": "application/json"})
        self.assertIn(r.status, (400, 422), r.body)
        self.assertEqual(self.dev.get(f"{BASE}/jobs/badbatch/metrics?sinceStep=x").status, 400)
        self.assertEqual(self.dev.get(f"{BASE}/jobs/nosuch/metrics").status, 404)

    def test_survive_a_restart_and_go_with_the_job(self):
        r = self.dev.request("POST", f"{BASE}/jobs", {"metadata": {"name": "kept"},
                                                      "spec": {"command": ["true"]}})
        self.assertEqual(r.status, 201, r.body)
        pts = {"metrics": [{"name": "loss", "value": 0.25, "step": s} for s in range(5)]}
        self.assertEqual(self.dev.request("POST", f"{BASE}/jobs/kept/metrics", pts).status, 201)
        self.wait_job("kept")
        self.c.stop()
        self.c.start()
        got = self.a.get(f"{BASE}/jobs/kept/metrics").json()
        self.assertEqual([p["value"] for p in got["metrics"]], [0.25] * 5)
        self.assertIn(self.a.request("DELETE", f"{BASE}/jobs/kept").status, (200, 202))
        deadline = time.time() + 10
        while self.a.get(f"{BASE}/jobs/kept").status != 404 and time.time() < deadline:
            time.sleep(0.1)
        r = self.dev.request("POST", f"{BASE}/jobs", {"metadata": {"name": "kept"},
                                                      "spec": {"command": ["true"]}})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(self.a.get(f"{BASE}/jobs/kept/metrics").json()["metrics"], [],
                         "a Job made again under the name starts empty")


if __name__ == "__main__":
    unittest.main(verbosity=2)
