"""End to end: a hyper-parameter search of a scikit-learn model (gradient
boosting on load_digits, 3-fold cross-validated accuracy) with 12 trials,
3 at a time, through a running cubed on executor-local, with cubed
restarted in the middle. The trial script is NNI's own style, unchanged
(argparse defaults, nni.utils.merge_parameter, get_next_parameter,
report_intermediate_result per fold, report_final_result): it imports the
nni module of Cube's SDK, which every Job gets on its PYTHONPATH. The
experiment must reach Succeeded with its best trial, lose no trial to the
restart and number its trials 1..12 once each."""
import json
import os
import stat
import subprocess
import tempfile
import time
import unittest

from cubetest import Cubed

PY = "/usr/bin/python3"
BASE = "/api/v1/projects/lab"
SDK = os.environ.get("CUBE_TEST_SDK_PATH")

# An NNI trial, as NNI's examples write them (examples/trials/sklearn).
TRIAL = '''\
import argparse
import logging

import nni
from nni.utils import merge_parameter
from sklearn.datasets import load_digits
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold

LOG = logging.getLogger('sklearn_gbdt')


def get_params():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_estimators", type=int, default=6)
    parser.add_argument("--learning_rate", type=float, default=0.1)
    parser.add_argument("--max_depth", type=int, default=3)
    parser.add_argument("--subsample", type=float, default=1.0)
    args, _ = parser.parse_known_args()
    return args


def main(args):
    X, y = load_digits(return_X_y=True)
    scores = []
    for train, test in StratifiedKFold(n_splits=3, shuffle=True, random_state=0).split(X, y):
        model = GradientBoostingClassifier(n_estimators=args.n_estimators,
                                           learning_rate=args.learning_rate,
                                           max_depth=args.max_depth, subsample=args.subsample,
                                           random_state=0)
        model.fit(X[train], y[train])
        scores.append(model.score(X[test], y[test]))
        nni.report_intermediate_result(sum(scores) / len(scores))
    LOG.debug('accuracy %s', scores)
    nni.report_final_result(sum(scores) / len(scores))


if __name__ == '__main__':
    try:
        tuner_params = nni.get_next_parameter()
        LOG.debug(tuner_params)
        params = merge_parameter(get_params(), tuner_params)
        main(params)
    except Exception as exception:
        LOG.exception(exception)
        raise
'''

SPACE = {"learning_rate": {"_type": "loguniform", "_value": [0.02, 0.6]},
         "max_depth": {"_type": "choice", "_value": [2, 3, 4]},
         "subsample": {"_type": "quniform", "_value": [0.5, 1.0, 0.1]}}


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-hpsearch-e2e-plugins-")
    for name in ("executor-local", "hpsearch"):
        os.symlink(os.path.join(os.environ["CUBE_BUILD_PLUGINS"], name), os.path.join(d, name))
    return d


def have_sklearn():
    return subprocess.run([PY, "-c", "import sklearn"], capture_output=True).returncode == 0


@unittest.skipUnless(have_sklearn(), "scikit-learn is not installed for /usr/bin/python3 "
                     "(Debian's python3-sklearn)")
class SklearnSearch(unittest.TestCase):
    def setUp(self):
        self.c = Cubed(plugins={"executor-local": None, "hpsearch": None},
                       plugin_dir=plugin_dir())
        self.a = self.c.admin()
        self.dev = self.c.make_user("dana")
        self.c.make_project("lab", [("dana", "dev")])
        # the trial script, readable by the trial's account
        self.dir = tempfile.mkdtemp(prefix="cube-hpsearch-trial-")
        os.chmod(self.dir, 0o755)
        self.script = os.path.join(self.dir, "sklearn_gbdt.py")
        with open(self.script, "w") as f:
            f.write(TRIAL)
        os.chmod(self.script, stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH)

    def tearDown(self):
        self.c.close()

    def status(self):
        return self.a.get(f"{BASE}/experiments/digits").json().get("status", {})

    def wait_for(self, pred, timeout, what):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = self.status()
            if pred(st):
                return st
            time.sleep(0.3)
        self.fail(f"{what}: {json.dumps(st)}\n{self.c.output()[-3000:]}")

    def test_search_survives_a_restart(self):
        trial = {"command": [PY, self.script], "resources": {"cpu": "500m", "memory": "512Mi"},
                 "env": {"OMP_NUM_THREADS": "1"}}
        if SDK:
            trial["env"]["PYTHONPATH"] = SDK
        spec = {"searchSpace": SPACE, "objective": {"metric": "default", "direction": "maximize"},
                "tuner": {"name": "tpe", "args": {"seed": 11, "n_startup_trials": 4}},
                "trial": trial, "trialConcurrency": 3, "maxTrials": 12}
        r = self.dev.request("POST", f"{BASE}/experiments", {"metadata": {"name": "digits"},
                                                             "spec": spec})
        self.assertEqual(r.status, 201, r.body)
        t0 = time.time()
        # a few trials in, with some running: restart cubed
        self.wait_for(lambda st: st.get("trials", {}).get("Succeeded", 0) >= 4 and
                      st.get("trials", {}).get("Running", 0) >= 1, 90, "four trials done")
        before = self.status()["trials"]["total"]
        self.c.stop()
        self.c.start()
        st = self.wait_for(lambda st: st.get("phase") in ("Succeeded", "Failed", "Stopped"), 150,
                           "the experiment's end")
        took = time.time() - t0
        self.assertEqual(st["phase"], "Succeeded", st)
        self.assertEqual(st["trials"]["total"], 12, st)
        self.assertEqual(st["trials"]["Succeeded"], 12, st)
        items = self.a.get(f"{BASE}/experiments/digits/trials").json()["items"]
        self.assertEqual([t["trial"] for t in items], list(range(1, 13)))
        self.assertGreater(len(items), before)   # trials were made after the restart
        for t in items:
            p = t["parameters"]
            self.assertTrue(0.02 <= p["learning_rate"] <= 0.6, p)
            self.assertIn(p["max_depth"], (2, 3, 4))
            self.assertTrue(0.5 <= p["subsample"] <= 1.0, p)
            self.assertEqual(len(t["intermediate"]), 3, t)   # one per fold
            self.assertTrue(0 < t["value"] <= 1, t)
        best = max(items, key=lambda t: t["value"])
        self.assertEqual(st["best"]["trial"], best["trial"])
        self.assertGreater(st["best"]["value"], 0.75)
        log = self.a.get(f"{BASE}/jobs/digits-{best['trial']}/logs").body
        self.assertIn("[nni] Final result", log)
        print(f"\n12 trials in {took:.1f} s, best trial {best['trial']}: accuracy "
              f"{best['value']:.4f} with {best['parameters']}", flush=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
