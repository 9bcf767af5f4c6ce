"""The serving plugin's console pages in a real browser, against a cubed
with executor-local, serving and models and a real scikit-learn model
(iris, two registered versions, each with an example request): the
services list, a service created from a model version with the zero-code
form and seen reaching Ready, "try it" sending the model's example request
and showing the model's answer, a two-predictor service (created through
the API) whose traffic is moved with the sliders, its revisions and
Rollback, events, the charts, the pages in 中文; then every page again at
390x844, where nothing may lie outside the viewport. No console error
anywhere. serving_pages.e2e.mjs drives Chromium (as dana, a developer of
the project) at 1440x900 and 390x844; screenshots go to
$CUBE_SHOTS/serving (a test artefact). Afterwards the API must agree with
what the pages did.

Skips (exit 77) when Chromium, node, the built console or the built page is
missing, saying which."""
import json
import os
import shutil
import subprocess
import sys
import unittest

import consoleweb
from servingtest import BASE, RES, ServingCase, run_py

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
WEB_DIR = os.path.abspath(os.environ.get("CUBE_WEB_DIR", "web"))
DIST = os.path.join(WEB_DIR, "dist")
PLUGINS = os.path.abspath(os.environ["CUBE_BUILD_PLUGINS"])
CHROMIUM = os.environ.get("CUBE_CHROMIUM", consoleweb.CHROMIUM or "/usr/bin/chromium")
PAGE = os.path.join(PLUGINS, "serving", "ui", "page.js")
PASSWORD = "password-" + "x" * 8      # cubetest's make_user default

# Two versions of iris (logistic regression, then a decision tree) and what
# each answers for the example rows.
MAKE = r"""
import json, sys, joblib, numpy as np
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
d, rows = sys.argv[1], np.array(json.loads(sys.argv[2]), dtype="float64")
X, y = load_iris(return_X_y=True)
lr = LogisticRegression(max_iter=500).fit(X, y)
tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
joblib.dump(lr, d + "/iris-lr.joblib", compress=3)
joblib.dump(tree, d + "/iris-tree.joblib", compress=3)
print(json.dumps({"iris-1": lr.predict(rows).tolist(), "iris-2": tree.predict(rows).tolist()}))
"""
ROWS = [[5.1, 3.5, 1.4, 0.2], [6.7, 3.0, 5.2, 2.3], [5.9, 3.0, 4.2, 1.5]]
EXAMPLE = {"inputs": [{"name": "x", "shape": [3, 4], "datatype": "FP64", "data": sum(ROWS, [])}]}


def missing_prerequisites():
    missing = []
    if not shutil.which("node"):
        missing.append("node")
    if not os.access(CHROMIUM, os.X_OK):
        missing.append(f"Chromium ({CHROMIUM} not found)")
    if not os.path.isfile(os.path.join(DIST, "index.html")):
        missing.append(f"the built console ({DIST}/index.html: scripts/build-web.sh)")
    if not os.path.isfile(PAGE):
        missing.append(f"the serving page ({PAGE}: ninja builds it with npm)")
    if subprocess.run(["/usr/bin/python3", "-c", "import sklearn, joblib"],
                      capture_output=True).returncode:
        missing.append("scikit-learn under /usr/bin/python3")
    return missing


class ServingPages(ServingCase):
    CUBE = {"web_root": DIST}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.expect = run_py(MAKE, os.path.join(cls.pdir, "models"), json.dumps(ROWS))

    def test_pages(self):
        for v, path in ((1, "iris-lr.joblib"), (2, "iris-tree.joblib")):
            self.register(f"iris-{v}", {"name": "iris", "framework": "sklearn",
                                        "path": f"models/{path}",
                                        "inference": {"exampleRequest": EXAMPLE}})
        # two predictors, all traffic on a: the sliders move it
        pred = lambda n, m: {"name": n, "model": {"name": m}, "runtime": "sklearn",
                             "resources": RES, "replicas": {"min": 1, "max": 1}}
        self.create("split", {"predictors": [pred("a", "iris-1"), pred("b", "iris-2")],
                              "traffic": [{"predictor": "a", "percent": 100},
                                          {"predictor": "b", "percent": 0}]})
        self.ready("split", timeout=120)
        shots = consoleweb.shots_dir("serving")
        env = dict(os.environ, CUBE_URL=f"http://127.0.0.1:{self.c.port}", CHROMIUM=CHROMIUM,
                   CUBE_USER="dana", CUBE_PASSWORD=PASSWORD, CUBE_WEB_DIR=WEB_DIR,
                   CUBE_EXPECT=json.dumps(self.expect))
        env.pop("CUBE_SHOTS", None)
        if shots:
            env["CUBE_SHOTS"] = shots
        p = subprocess.run(["node", os.path.join(HERE, "serving_pages.e2e.mjs")], env=env,
                           capture_output=True, text=True, timeout=480)
        print(p.stdout, end="", flush=True)
        self.assertEqual(p.returncode, 0, p.stderr[-6000:] + "\n" + self.c.output()[-3000:])
        done = json.loads(p.stdout.strip().splitlines()[-1])

        # the API agrees with what the pages did
        svc = self.a.get(f"{BASE}/inferenceservices/iris-web").json()
        self.assertEqual(svc["metadata"]["owner"], "dana")
        self.assertEqual(svc["spec"]["predictors"][0]["model"], {"name": "iris-2"})
        self.assertEqual(svc["spec"]["predictors"][0]["resources"], RES)
        self.assertEqual(svc["status"]["phase"], "Ready")
        status, out = self.infer("iris-web", ROWS)
        self.assertEqual((status, out["outputs"][0]["data"]), (200, self.expect["iris-2"]))
        moved = {s["predictor"]: s["percent"] for s in done["moved"]}
        self.assertNotEqual(moved["a"], 100)
        self.assertEqual(moved["a"] + moved["b"], 100)
        st = self.status("split")
        revs = {r["revision"]: r["spec"].get("traffic") for r in st["revisions"]}
        self.assertEqual(revs[2], done["moved"], revs)
        # rolled back to revision 1: its split again, as a revision of its own
        split = self.a.get(f"{BASE}/inferenceservices/split").json()
        self.assertEqual(split["spec"]["traffic"], [{"predictor": "a", "percent": 100},
                                                    {"predictor": "b", "percent": 0}])
        self.assertIn("RolledBack", self.reasons("split"))


if __name__ == "__main__":
    missing = missing_prerequisites()
    if missing:
        print("SKIP: the serving pages test needs " + "; ".join(missing), flush=True)
        sys.exit(SKIP)
    unittest.main(verbosity=2)
