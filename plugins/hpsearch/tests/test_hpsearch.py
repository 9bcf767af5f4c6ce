"""The hpsearch plugin through a running cubed (executor-local): bad
experiments are refused naming the field; trials are Jobs that read their
parameters with the SDK's nni module and report through the Job metrics
route; the best trial, the trials list, user-chosen trials, stop and
resume; results that are NaN, strings or missing are recorded as such; an
assessor stops a bad trial early; grid, batch and hyperband run their
schedules; {{ params.x }} reaches the command line."""
import json
import os
import tempfile
import time
import unittest

from cubetest import Cubed

PY = "/usr/bin/python3"
BASE = "/api/v1/projects/lab"
RES = {"cpu": "100m", "memory": "128Mi"}
SDK = os.environ.get("CUBE_TEST_SDK_PATH")   # else Jobs get the SDK from cubed (sdk_pythonpath)

# x near 0.3 and y == "b" are best; three intermediate results, then the final.
QUADRATIC = r"""
import nni
p = nni.get_next_parameter()
v = -(p["x"] - 0.3) ** 2 - (0 if p["y"] == "b" else 0.1)
for i in range(3):
    nni.report_intermediate_result(v * (3 - i))
nni.report_final_result(v)
"""


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-hpsearch-plugins-")
    for name in ("executor-local", "hpsearch"):
        os.symlink(os.path.join(os.environ["CUBE_BUILD_PLUGINS"], name), os.path.join(d, name))
    return d


def trial(code, **extra):
    t = {"command": [PY, "-c", code], "resources": RES}
    if SDK:
        t["env"] = {"PYTHONPATH": SDK}
    t.update(extra)
    return t


SPACE = {"x": {"_type": "uniform", "_value": [0, 1]}, "y": {"_type": "choice", "_value": ["a", "b"]}}


class Hpsearch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"executor-local": None, "hpsearch": None}, plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.dev = cls.c.make_user("dana")
        cls.viewer = cls.c.make_user("vic")
        cls.c.make_project("lab", [("dana", "dev"), ("vic", "viewer")])

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def create(self, name, spec, who=None, status=201):
        r = (who or self.dev).request("POST", f"{BASE}/experiments",
                                      {"metadata": {"name": name}, "spec": spec})
        self.assertEqual(r.status, status, r.body)
        return r

    def wait(self, name, phases=("Succeeded", "Failed", "Stopped"), timeout=90):
        deadline = time.time() + timeout
        st = {}
        while time.time() < deadline:
            st = self.a.get(f"{BASE}/experiments/{name}").json().get("status", {})
            if st.get("phase") in phases:
                return st
            time.sleep(0.2)
        self.fail(f"{name}: {json.dumps(st)}\n{self.c.output()[-3000:]}")

    def trials(self, name, **q):
        path = f"{BASE}/experiments/{name}/trials" + ("?curves=0" if q.get("nocurves") else "")
        r = self.a.get(path)
        self.assertEqual(r.status, 200, r.body)
        return r.json()["items"]

    def test_bad_experiments_name_the_field(self):
        ok = trial("pass")
        cases = [
            ({"searchSpace": {"lr": {"_type": "uniform", "_value": [1]}}, "trial": ok},
             "spec.searchSpace.lr._value"),
            ({"searchSpace": {"lr": {"_type": "uniform", "_value": [0.5, 0.1]}}, "trial": ok},
             "spec.searchSpace.lr._value"),
            ({"searchSpace": {"lr": {"_type": "loguniform", "_value": [0, 1]}}, "trial": ok},
             "spec.searchSpace.lr._value"),
            ({"searchSpace": {"lr": {"_type": "gaussian", "_value": [0, 1]}}, "trial": ok},
             "spec.searchSpace.lr._type"),
            ({"searchSpace": {"m": {"_type": "choice", "_value": [
                {"_name": "a", "c": {"_type": "randint", "_value": [5, 1]}}]}}, "trial": ok},
             "spec.searchSpace.m._value[0].c._value"),
            ({"searchSpace": SPACE, "tuner": {"name": "smac"}, "trial": ok}, "spec.tuner.name"),
            ({"searchSpace": SPACE, "tuner": {"name": "tpe", "args": {"gamma": 2}}, "trial": ok},
             "spec.tuner.args.gamma"),
            ({"searchSpace": SPACE, "tuner": {"name": "tpe", "args": {"optimize_mode": "minimize"}},
              "trial": ok}, "spec.tuner.args.optimize_mode"),
            ({"searchSpace": SPACE, "tuner": {"name": "grid"}, "trial": ok},
             "spec.searchSpace.x._type"),
            ({"searchSpace": SPACE, "assessor": {"name": "curvefitting"}, "trial": ok},
             "spec.assessor.args.epoch_num"),
            ({"searchSpace": SPACE, "assessor": {"name": "nope"}, "trial": ok},
             "spec.assessor.name"),
            ({"searchSpace": SPACE, "trial": trial("pass", args=["--lr", "{{ params.lr }}"])},
             "spec.trial.args[1]"),
            ({"searchSpace": SPACE, "trial": trial("pass", env={"CUBE_TRIAL_ID": "x"})},
             "spec.trial.env.CUBE_TRIAL_ID"),
            ({"searchSpace": SPACE, "trial": ok, "maxTrials": 0}, "spec.maxTrials"),
        ]
        for spec, field in cases:
            r = self.dev.request("POST", f"{BASE}/experiments", {"metadata": {"name": "bad"},
                                                                 "spec": spec})
            self.assertEqual(r.status, 422, (spec, r.body))
            self.assertEqual(r.json()["error"]["field"], field, r.body)
        r = self.dev.request("POST", f"{BASE}/experiments",
                             {"metadata": {"name": "x" * 51}, "spec": {"searchSpace": SPACE,
                                                                      "trial": ok}})
        self.assertEqual(r.status, 422, r.body)
        # what the trials were drawn with cannot change
        self.create("frozen", {"searchSpace": SPACE, "trial": ok, "maxTrials": 1})
        e = self.dev.get(f"{BASE}/experiments/frozen").json()
        e["spec"]["searchSpace"]["x"]["_value"] = [0, 2]
        r = self.dev.request("PUT", f"{BASE}/experiments/frozen", e)
        self.assertEqual(r.status, 422, r.body)
        self.assertEqual(r.json()["error"]["field"], "spec.searchSpace")
        self.wait("frozen")

    def test_a_search_finds_the_best_and_lists_its_trials(self):
        self.create("quad", {"searchSpace": SPACE, "objective": {"direction": "maximize"},
                             "tuner": {"name": "tpe", "args": {"seed": 7, "n_startup_trials": 4}},
                             "trial": trial(QUADRATIC), "trialConcurrency": 3, "maxTrials": 9})
        st = self.wait("quad")
        self.assertEqual(st["phase"], "Succeeded", st)
        self.assertEqual(st["trials"]["total"], 9)
        self.assertEqual(st["trials"]["Succeeded"], 9)
        items = self.trials("quad")
        self.assertEqual([t["trial"] for t in items], list(range(1, 10)))
        best = max(items, key=lambda t: t["value"])
        self.assertEqual(st["best"]["trial"], best["trial"])
        self.assertAlmostEqual(st["best"]["value"], best["value"])
        self.assertEqual(st["best"]["parameters"], best["parameters"])
        for t in items:
            self.assertEqual(len(t["intermediate"]), 3, t)
            self.assertEqual([p[0] for p in t["intermediate"]], [1, 2, 3])
            self.assertAlmostEqual(t["intermediate"][2][1], t["value"])
            self.assertIn(t["parameters"]["y"], ("a", "b"))
            self.assertTrue(0 <= t["parameters"]["x"] <= 1)
            self.assertGreaterEqual(t["durationSeconds"], 0)
        # the Jobs: owned, labelled, with the nni environment, running as the owner
        job = self.a.get(f"{BASE}/jobs/quad-4").json()
        self.assertEqual(job["metadata"]["labels"], {"experiment": "quad", "trial": "4"})
        self.assertEqual(job["metadata"]["owner"], "dana")
        env = job["spec"]["env"]
        self.assertEqual(json.loads(env["CUBE_TRIAL_PARAMETERS"]), items[3]["parameters"])
        self.assertEqual((env["CUBE_EXPERIMENT"], env["CUBE_TRIAL_ID"], env["CUBE_TRIAL_SEQUENCE"]),
                         ("quad", "quad-4", "3"))
        self.assertNotIn("intermediate", self.trials("quad", nocurves=True)[0])
        self.assertEqual(self.a.get(f"{BASE}/experiments/nosuch/trials").status, 404)

    def test_params_in_the_command_and_nested_choices(self):
        code = ("import sys, nni; p = nni.get_next_parameter(); "
                "v = float(sys.argv[1]) + (1 if sys.argv[2] == 'svm' else 0); "
                "nni.report_final_result({'default': v, 'other': 2})")
        space = {"lr": {"_type": "quniform", "_value": [0, 1, 0.25]},
                 "model": {"_type": "choice", "_value": [
                     {"_name": "svm", "C": {"_type": "choice", "_value": [1, 10]}},
                     {"_name": "tree"}]}}
        self.create("render", {"searchSpace": space, "tuner": {"name": "grid"},
                               "trial": trial(code, args=["{{ params.lr }}",
                                                          "{{ params.model._name }}"]),
                               "trialConcurrency": 4, "maxTrials": 100})
        st = self.wait("render")
        self.assertEqual(st["phase"], "Succeeded", st)
        self.assertEqual(st["trials"]["total"], 5 * 3)   # the grid, once each
        items = self.trials("render")
        seen = {json.dumps(t["parameters"], sort_keys=True) for t in items}
        self.assertEqual(len(seen), 15)
        for t in items:
            p = t["parameters"]
            self.assertAlmostEqual(t["value"], p["lr"] + (1 if p["model"]["_name"] == "svm" else 0))
            self.assertEqual("C" in p["model"], p["model"]["_name"] == "svm")
        self.assertEqual(st["best"]["value"], 2)

    def test_missing_nan_and_string_results_are_recorded(self):
        code = ("import nni, sys; p = nni.get_next_parameter(); k = p['k']\n"
                "if k == 0: nni.report_final_result(float('nan'))\n"
                "elif k == 1: nni.report_final_result('high')\n"
                "elif k == 2: pass\n"
                "else: nni.report_final_result({'default': 0.5})\n")
        self.create("odd", {"searchSpace": {"k": {"_type": "choice", "_value": [0, 1, 2, 3]}},
                            "tuner": {"name": "grid"}, "trial": trial(code),
                            "trialConcurrency": 4, "maxTrials": 4})
        st = self.wait("odd")
        self.assertEqual(st["phase"], "Succeeded", st)
        by_k = {t["parameters"]["k"]: t for t in self.trials("odd")}
        self.assertEqual(by_k[0]["phase"], "Failed")      # the SDK refuses NaN in the trial
        self.assertEqual(by_k[1]["phase"], "Failed")      # and a string
        self.assertEqual(by_k[2]["phase"], "Succeeded")   # nothing reported: no value
        self.assertIsNone(by_k[2]["value"])
        self.assertIn("reported no final/default", by_k[2]["message"])
        self.assertEqual(by_k[3]["value"], 0.5)
        self.assertEqual(st["best"]["trial"], by_k[3]["trial"])
        # a metric no trial reports: a clear message, the experiment Failed
        self.create("nometric", {"searchSpace": SPACE, "objective": {"metric": "accuracy"},
                                 "trial": trial(QUADRATIC), "trialConcurrency": 2, "maxTrials": 2})
        st = self.wait("nometric")
        self.assertEqual(st["phase"], "Failed", st)
        self.assertIn("no trial reported final/accuracy", st["message"])
        self.assertIn("final/default", st["message"])

    def test_a_refused_trial_job_says_why(self):
        # the host refuses the trial's Job (no executor runs images): the
        # experiment fails with the reason cubed gave (ABI 1.5 obj_error)
        self.create("refused", {"searchSpace": SPACE, "trial": trial(QUADRATIC, image="busybox"),
                                "maxTrials": 2})
        st = self.wait("refused")
        self.assertEqual(st["phase"], "Failed", st)
        self.assertRegex(st["message"], r"the Job of trial \d+ was refused: spec\.image: not supported")

    def test_medianstop_stops_a_bad_trial_early(self):
        # trials 1-3 (the first, a batch) complete with good curves; trial 4's
        # curve is far below: stopped at step start_step.
        code = ("import nni, time; p = nni.get_next_parameter()\n"
                "for s in range(1, 9):\n"
                "    nni.report_intermediate_result(p['q'] * s)\n"
                "    time.sleep(0.3 if p['q'] < 0.5 else 0)\n"
                "nni.report_final_result(p['q'] * 8)\n")
        space = {"combine_params": {"_type": "choice", "_value": [
            {"q": 1.0}, {"q": 0.9}, {"q": 0.95}, {"q": 0.01}]}}
        self.create("median", {"searchSpace": space, "tuner": {"name": "batch"},
                               "assessor": {"name": "medianstop", "args": {"start_step": 2}},
                               "trial": trial(code), "trialConcurrency": 3, "maxTrials": 4})
        st = self.wait("median", timeout=60)
        self.assertEqual(st["phase"], "Succeeded", st)
        by_q = {t["parameters"]["q"]: t for t in self.trials("median")}
        self.assertEqual(by_q[0.01]["phase"], "EarlyStopped", by_q[0.01])
        self.assertIn("medianstop", by_q[0.01]["message"])
        self.assertLess(by_q[0.01]["lastStep"], 8)
        for q in (1.0, 0.9, 0.95):
            self.assertEqual(by_q[q]["phase"], "Succeeded")
        self.assertEqual(st["trials"]["EarlyStopped"], 1)
        events = self.a.get(f"{BASE}/experiments/median/events").json()
        self.assertTrue(any(e.get("reason") == "EarlyStopped" for e in events.get("items", [])),
                        events)

    def test_stop_and_resume(self):
        slow = "import nni, time; nni.get_next_parameter(); time.sleep(30); nni.report_final_result(1)"
        self.create("stopme", {"searchSpace": SPACE, "tuner": {"name": "random"},
                               "trial": trial(slow), "trialConcurrency": 2, "maxTrials": 4})
        running = lambda: self.a.get(f"{BASE}/experiments/stopme").json().get(
            "status", {}).get("trials", {}).get("Running", 0)
        deadline = time.time() + 30
        while time.time() < deadline and running() < 2:
            time.sleep(0.2)
        r = self.dev.request("POST", f"{BASE}/experiments/stopme/stop", {})
        self.assertEqual(r.status, 202, r.body)
        st = self.wait("stopme", timeout=40)
        self.assertEqual(st["phase"], "Stopped", st)
        self.assertEqual(st["trials"]["Stopped"], 2, st)
        self.assertEqual(self.dev.request("POST", f"{BASE}/experiments/stopme/stop", {}).status,
                         409)
        bad = self.dev.request("POST", f"{BASE}/experiments/stopme/trials",
                               {"parameters": {"x": 0.5, "y": "a"}})
        self.assertEqual(bad.status, 409, bad.body)   # stopped: resume first
        r = self.dev.request("POST", f"{BASE}/experiments/stopme/resume", {})
        self.assertEqual(r.status, 202, r.body)
        self.assertEqual(self.dev.request("POST", f"{BASE}/experiments/stopme/resume", {}).status,
                         409)   # running
        deadline = time.time() + 30
        while time.time() < deadline and running() < 2:
            time.sleep(0.2)
        self.assertEqual(running(), 2)   # it goes on to maxTrials: trials 3 and 4
        self.dev.request("POST", f"{BASE}/experiments/stopme/stop", {})
        st = self.wait("stopme", timeout=40)
        self.assertEqual((st["phase"], st["trials"]["Stopped"], st["lastTrial"]), ("Stopped", 4, 4))
        r = self.dev.request("POST", f"{BASE}/experiments/stopme/resume", {})
        self.assertEqual(r.status, 409, r.body)   # nothing left: maxTrials made
        self.assertIn("maxTrials", r.json()["error"]["message"])

    def test_a_chosen_trial(self):
        self.create("chosen", {"searchSpace": SPACE, "trial": trial(QUADRATIC), "maxTrials": 2,
                               "trialConcurrency": 2})
        self.assertEqual(self.wait("chosen")["phase"], "Succeeded")
        for params, words in (({"x": 3, "y": "a"}, "parameters.x"),
                              ({"x": 0.5, "y": "c"}, "parameters.y"),
                              ({"x": 0.5}, "parameters.y"),
                              ({"x": 0.5, "y": "a", "z": 1}, "parameters.z")):
            bad = self.dev.request("POST", f"{BASE}/experiments/chosen/trials",
                                   {"parameters": params})
            self.assertEqual(bad.status, 422, bad.body)
            self.assertIn(words, bad.json()["error"]["message"])
        self.assertEqual(self.dev.request("POST", f"{BASE}/experiments/chosen/trials",
                                          {"x": 1}).status, 422)
        r = self.dev.request("POST", f"{BASE}/experiments/chosen/trials",
                             {"parameters": {"x": 0.3, "y": "b"}})
        self.assertEqual(r.status, 202, r.body)
        time.sleep(0.5)
        st = self.wait("chosen")
        self.assertEqual(st["phase"], "Succeeded", st)
        items = self.trials("chosen", nocurves=True)
        self.assertEqual(len(items), 3)
        self.assertEqual((items[2]["source"], items[2]["parameters"]), ("user", {"x": 0.3, "y": "b"}))
        self.assertEqual(st["best"]["trial"], 3)   # the optimum itself
        self.assertNotIn("requests", st)
        # viewers may list, not add
        self.assertEqual(self.viewer.get(f"{BASE}/experiments/chosen/trials").status, 200)
        self.assertEqual(self.viewer.request("POST", f"{BASE}/experiments/chosen/trials",
                                             {"parameters": {"x": 0.1, "y": "b"}}).status, 403)

    def test_hyperband_passes_the_budget(self):
        code = ("import nni; p = nni.get_next_parameter(); "
                "nni.report_final_result(-(p['x'] - 0.5) ** 2 + p['TRIAL_BUDGET'] / 100)")
        self.create("hb", {"searchSpace": {"x": {"_type": "uniform", "_value": [0, 1]}},
                           "tuner": {"name": "hyperband", "args": {"R": 9, "eta": 3}},
                           "trial": trial(code), "trialConcurrency": 4, "maxTrials": 100})
        st = self.wait("hb")
        self.assertEqual(st["phase"], "Succeeded", st)
        items = self.trials("hb", nocurves=True)
        self.assertEqual(len(items), 9 + 3 + 1 + 5 + 1 + 3)   # brackets of R = 9, eta = 3
        for t in items:
            self.assertEqual(t["parameters"]["TRIAL_BUDGET"], t["budget"])
            if t.get("parent"):
                parent = items[t["parent"] - 1]
                self.assertEqual(parent["parameters"]["x"], t["parameters"]["x"])
                self.assertGreater(t["budget"], parent["budget"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
