"""The serving plugin through a running cubed (executor-local): replicas are
real Jobs running the built-in model server (Debian's scikit-learn, xgboost
and torch under /usr/bin/python3), reached through cubed's apps origin at
/serving/{project}/{name}/.

Bad specs are refused naming the field; a sklearn model answers v2 infer
and V1 :predict the same as sklearn does locally, and a request of the
wrong shape 400; a 90/10 split measured over 2,000 requests; a mirror gets
its share while callers' answers are unchanged; a public service takes its
API key and answers 401 without it. Registered Models (zero code),
rolling upgrades, rollback and autoscaling: test_serving_models.py,
test_serving_rollout.py, test_serving_scale.py."""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servingtest import BASE, BUILD, PY, RES, ServingCase, run_py  # noqa: E402

RUNTIME = os.path.join(BUILD, "serving", "cube-serving-runtime.py")
IRIS_ROWS = [[5.1, 3.5, 1.4, 0.2], [6.7, 3.0, 5.2, 2.3], [5.9, 3.0, 4.2, 1.5]]

TRAIN = r"""
import json, sys, joblib
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
X, y = load_iris(return_X_y=True)
m = LogisticRegression(max_iter=1000, C=float(sys.argv[2])).fit(X, y)
joblib.dump(m, sys.argv[1])
print(json.dumps(m.predict(%r).tolist()))
""" % (IRIS_ROWS,)


def custom(name, path, version="1", **extra):
    """A predictor running the built-in server as a custom command."""
    p = {"name": name, "runtime": "custom", "resources": RES,
         "command": [PY, "-I", os.path.abspath(RUNTIME), "--name", "svc", "--version", version,
                     "--framework", "sklearn", "--path", path]}
    p.update(extra)
    return p


class Serving(ServingCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.expect = {}
        for name, c in (("a", 1.0), ("b", 0.01)):
            path = os.path.join(cls.pdir, "models", f"iris-{name}.joblib")
            cls.expect[name] = run_py(TRAIN, path, str(c))

    def infer(self, svc, rows, headers=None, conn=None, model="svc"):
        """The custom server answers as model "svc"."""
        return super().infer(svc, rows, model=model, headers=headers, conn=conn)

    # -- tests -------------------------------------------------------------

    def requests_counted(self, svc, predictor="main"):
        """cube_serving_requests_total of a predictor, all status classes."""
        head = (f'cube_serving_requests_total{{project="lab",service="{svc}",'
                f'predictor="{predictor}"')
        return sum(float(x.split()[-1]) for x in self.a.get("/metrics").body.splitlines()
                   if x.startswith(head))

    def test_bad_input(self):
        p = custom("main", "models/iris-a.joblib")
        cases = [
            ({"predictors": [p], "traffic": [{"predictor": "main", "percent": 90}]},
             "spec.traffic", "add up to 90"),
            ({"predictors": [p], "traffic": [{"predictor": "nope", "percent": 100}]},
             "spec.traffic[0].predictor", "no predictor"),
            ({"predictors": [p], "mirror": {"predictor": "main", "percent": 10}},
             "spec.mirror.predictor", "mirror itself"),
            ({"predictors": [p, p]}, "spec.predictors[1].name", "twice"),
            ({"predictors": [{"name": "m"}]}, "spec.predictors[0].model", "Model"),
            ({"predictors": [{"name": "m", "runtime": "custom"}]}, "spec.predictors[0].command",
             "command"),
            ({"predictors": [dict(p, replicas={"min": 3, "max": 1})]},
             "spec.predictors[0].replicas.min", "above max"),
            ({"predictors": [dict(p, name="Bad_Name")]}, "spec.predictors[0].name", ""),
        ]
        for spec, field, words in cases:
            r = self.dev.request("POST", f"{BASE}/inferenceservices",
                                 {"metadata": {"name": "bad"}, "spec": spec})
            self.assertEqual(r.status, 422, r.body)
            err = r.json()["error"]
            self.assertEqual(err.get("field"), field, r.body)
            self.assertIn(words, err["message"])
        self.assertEqual(self.viewer.request("POST", f"{BASE}/inferenceservices",
                                             {"metadata": {"name": "v"},
                                              "spec": {"predictors": [p]}}).status, 403)

    def test_custom_server_end_to_end(self):
        """The built-in server as a custom command: v2, V1, metadata, bad shapes,
        permission, and the replica is a Job owned by the service."""
        self.create("plain", {"predictors": [custom("main", "models/iris-a.joblib")]})
        st = self.ready("plain")
        self.assertEqual(st["url"], "/serving/lab/plain/")
        status, out = self.infer("plain", IRIS_ROWS)
        self.assertEqual(status, 200, out)
        self.assertEqual(out["outputs"][0]["data"], self.expect["a"])
        r = self.dev.apps_request("POST", "/serving/lab/plain/v1/models/svc:predict",
                                  {"instances": IRIS_ROWS})
        self.assertEqual((r.status, r.json()["predictions"]), (200, self.expect["a"]), r.body)
        r = self.dev.apps_get("/serving/lab/plain/v2/models/svc")
        self.assertEqual(r.json()["inputs"][0]["shape"], [-1, 4], r.body)
        status, out = self.infer("plain", [[1.0, 2.0]])
        self.assertEqual(status, 400)
        self.assertIn("expected 4 features", out["error"])
        self.assertEqual(self.viewer.apps_get("/serving/lab/plain/v2/health/ready").status, 200)
        self.assertEqual(self.out.apps_get("/serving/lab/plain/v2/health/ready").status, 404)
        self.assertEqual(self.c.apps_get("/serving/lab/plain/v2/health/ready").status, 401)
        jobs = self.a.get(f"{BASE}/jobs?labelSelector=cube.dev/inferenceservice=plain").json()
        self.assertEqual(len(jobs["items"]), 1)
        self.assertEqual(jobs["items"][0]["metadata"]["owner"], "dana")
        before = self.requests_counted("plain")
        r = self.dev.request("POST", f"{BASE}/inferenceservices/plain/test",
                             {"instances": IRIS_ROWS[:1]})
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(self.requests_counted("plain"), before + 1,
                         "a try is counted as its predictor's request")

    def test_traffic_split_and_mirror(self):
        spec = {"predictors": [custom("main", "models/iris-a.joblib", "1"),
                               custom("canary", "models/iris-b.joblib", "2"),
                               # the shadow gets a copy of every other request, each
                               # on a connection of its own, at once: at 100m of CPU
                               # it fell behind under ASan and copies timed out
                               custom("shadow", "models/iris-b.joblib", "3",
                                      resources={"cpu": "1", "memory": "256Mi"})],
                "traffic": [{"predictor": "main", "percent": 90},
                            {"predictor": "canary", "percent": 10}],
                "mirror": {"predictor": "shadow", "percent": 50}}
        self.create("split", spec)
        self.wait("split", lambda st: st.get("phase") == "Ready" and all(
            p.get("ready") == 1 for p in st.get("predictors", [])), what="all ready")
        counts = {}
        c = self.conn()
        for _ in range(2000):
            status, out = self.infer("split", IRIS_ROWS[:1], conn=c)
            self.assertEqual(status, 200, out)
            counts[out["model_version"]] = counts.get(out["model_version"], 0) + 1
        c.close()
        share = counts.get("1", 0) / 2000 * 100
        self.assertLessEqual(abs(share - 90), 3, counts)
        self.assertNotIn("3", counts, "the mirror's answers never reach callers")
        # a copy counts once the mirror answered it: the shadow (cpu 100m,
        # a connection per copy) may still be working through them
        def mirror(m, result):
            key = f'cube_proxy_mirror_total{{prefix="/serving/{{project}}/{{name}}",result="{result}"}}'
            line = [x for x in m.splitlines() if x.startswith(key)]
            return float(line[0].split()[-1]) if line else 0
        deadline = time.time() + 60
        while True:
            m = self.a.get("/metrics").body
            ok, failed, skipped = (mirror(m, r) for r in ("ok", "error", "skipped"))
            if ok + failed + skipped >= 1000 or time.time() > deadline:
                break
            time.sleep(0.5)
        # every other request (percent 50 is a deterministic 1 in 2), each
        # answered by the shadow
        self.assertEqual((ok, failed, skipped), (1000, 0, 0),
                         [x for x in m.splitlines() if x.startswith("cube_proxy_mirror")])
        self.assertIn('cube_serving_requests_total{project="lab",service="split",predictor="main"',
                      m)

    def test_public_api_key(self):
        self.create("pub", {"predictors": [custom("main", "models/iris-a.joblib")],
                            "public": True})
        self.ready("pub")
        status, _ = self.infer("pub", IRIS_ROWS, headers={})
        self.assertEqual(status, 401)
        r = self.viewer.request("POST", f"{BASE}/inferenceservices/pub/apikey")
        self.assertEqual(r.status, 403, r.body)
        r = self.dev.request("POST", f"{BASE}/inferenceservices/pub/apikey")
        self.assertEqual(r.status, 201, r.body)
        key = r.json()["apiKey"]
        status, out = self.infer("pub", IRIS_ROWS, headers={"X-Api-Key": key})
        self.assertEqual((status, out["outputs"][0]["data"]), (200, self.expect["a"]))
        status, out = self.infer("pub", IRIS_ROWS, headers={"Authorization": "Bearer " + key})
        self.assertEqual(status, 200, out)
        wrong = key[:-1] + ("1" if key.endswith("0") else "0")   # never the key itself
        status, _ = self.infer("pub", IRIS_ROWS, headers={"X-Api-Key": wrong})
        self.assertEqual(status, 401)
        self.assertNotIn(key, self.c.output())
        # another service does not take this one's key
        self.create("priv", {"predictors": [custom("main", "models/iris-a.joblib")]})
        self.ready("priv")
        status, _ = self.infer("priv", IRIS_ROWS, headers={"X-Api-Key": key})
        self.assertEqual(status, 401)


if __name__ == "__main__":
    unittest.main(verbosity=2)
