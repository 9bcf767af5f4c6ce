"""Zero-code serving of registered Models (the models plugin's deploy):
real scikit-learn, xgboost and TorchScript files (Debian's packages under
/usr/bin/python3) answer v2 infer as the libraries do locally; the
built-in runtime runs as the service owner's OS account, not root, and no
spec field moves that; the runtime's port is the one the executor
allocated."""
import os
import pwd
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servingtest import BASE, PY, RES, SOURCE, ServingCase, run_py  # noqa: E402

MAKE = os.path.join(SOURCE, "plugins", "models", "tests", "make_models.py")

# What each library answers locally for the probe rows.
EXPECT = r"""
import json, sys, numpy as np, joblib, torch, xgboost
d, rows = sys.argv[1], json.loads(sys.argv[2])
x = np.array(rows, dtype="float64")
b = xgboost.Booster(); b.load_model(d + "/xgb.json")
net = torch.jit.load(d + "/net.pt")
with torch.no_grad():
    t = net(torch.as_tensor(x, dtype=torch.float32)).numpy()
print(json.dumps({"sklearn": joblib.load(d + "/iris.joblib").predict(x).tolist(),
                  "xgboost": b.predict(xgboost.DMatrix(x)).reshape(-1).tolist(),
                  "pytorch": t.reshape(-1).tolist(), "shape": list(t.shape)}))
"""

ROWS = [[5.1, 3.5, 1.4, 0.2], [6.7, 3.0, 5.2, 2.3], [5.9, 3.0, 4.2, 1.5]]


def replica_processes(service):
    """(pid, uid, argv) of the built-in runtimes serving lab/service."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
            uid = os.stat(f"/proc/{pid}").st_uid
        except OSError:
            continue
        if any(a.endswith("cube-serving-runtime.py") for a in argv) and \
                f"lab/{service}" in argv:
            out.append((int(pid), uid, argv))
    return out


class ZeroCode(ServingCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        d = os.path.join(cls.pdir, "models")
        run_py(open(MAKE).read() + "\n", d)
        cls.expect = run_py(EXPECT, d, __import__("json").dumps(ROWS))

    def deploy_version(self, family, framework, path):
        self.register(f"{family}-1", {"name": family, "framework": framework,
                                      "path": f"models/{path}"})
        self.deploy(f"{family}-1", {"service": family, "resources": RES})
        return self.ready(family, timeout=120)

    def test_sklearn_xgboost_torchscript(self):
        for family, fw, path in (("iris", "sklearn", "iris.joblib"),
                                 ("boost", "xgboost", "xgb.json"),
                                 ("net", "pytorch", "net.pt")):
            st = self.deploy_version(family, fw, path)
            self.assertEqual(st["url"], f"/serving/lab/{family}/")
            status, out = self.infer(family, ROWS)
            self.assertEqual(status, 200, out)
            got = out["outputs"][0]
            self.assertEqual(out["model_name"], family)
            if fw == "sklearn":
                self.assertEqual(got["data"], self.expect["sklearn"])
            else:
                want = self.expect[fw]
                self.assertEqual(len(got["data"]), len(want), got)
                for a, b in zip(got["data"], want):
                    self.assertAlmostEqual(a, b, places=4)
            if fw == "pytorch":
                self.assertEqual(got["shape"], self.expect["shape"])
            r = self.dev.apps_get(f"/serving/lab/{family}/v2/models/{family}")
            self.assertEqual(r.status, 200, r.body)
        # a request of the wrong shape is the caller's fault, named
        status, out = self.infer("iris", [[1.0, 2.0]])
        self.assertEqual(status, 400, out)
        self.assertIn("expected 4 features", out["error"])
        r = self.dev.apps_request("POST", "/serving/lab/iris/v2/models/iris/infer",
                                  {"inputs": [{"name": "x", "shape": [1, 4], "datatype": "BYTES",
                                               "data": ["a", "b", "c", "d"]}]})
        self.assertEqual(r.status, 400, r.body)
        self.assertIn("datatype", r.json()["error"])

    def test_replicas_run_as_the_owner(self):
        """The built-in runtime runs as dana's OS account, with the port the
        executor allocated (no fixed port); a spec field naming an account
        is refused."""
        if os.geteuid() != 0:
            self.skipTest("executor-local runs replicas as other accounts only as root")
        st = self.deploy_version("owner", "sklearn", "iris.pkl")
        procs = replica_processes("owner")
        self.assertEqual(len(procs), 1, procs)
        pid, uid, argv = procs[0]
        self.assertNotEqual(uid, 0, argv)
        self.assertEqual(pwd.getpwuid(uid).pw_name, "cube-dana")
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = dict(kv.split("=", 1) for kv in f.read().decode().split("\0") if "=" in kv)
        port = int(env["CUBE_PORT_HTTP"])
        self.assertNotIn("--port", argv)
        jobs = self.a.get(f"{BASE}/jobs?labelSelector=cube.dev/inferenceservice=owner").json()
        ep = jobs["items"][0]["status"]["replicas"][0]["endpoints"]["http"]
        self.assertTrue(ep.endswith(f":{port}"), (ep, port))
        self.assertEqual(jobs["items"][0]["metadata"]["owner"], "dana")
        self.assertEqual(st["predictors"][0]["ready"], 1)
        # no field of the spec chooses the account
        for field in ({"user": "root"}, {"runAs": "root"}, {"securityContext": {"runAsUser": 0}}):
            r = self.dev.request("POST", f"{BASE}/inferenceservices", {
                "metadata": {"name": "as-root"},
                "spec": {"predictors": [dict({"name": "m", "model": "owner-1"}, **field)]}})
            self.assertEqual(r.status, 422, r.body)
        r = self.dev.request("POST", f"{BASE}/inferenceservices", {
            "metadata": {"name": "as-root", "owner": "admin"},
            "spec": {"predictors": [{"name": "m", "model": "owner-1", "resources": RES}]}})
        if r.status == 201:
            self.assertEqual(r.json()["metadata"]["owner"], "dana", r.body)
            self.ready("as-root", timeout=120)
            procs = replica_processes("as-root")
            self.assertEqual([pwd.getpwuid(u).pw_name for _, u, _ in procs], ["cube-dana"])
            self.assertEqual(self.dev.request(
                "DELETE", f"{BASE}/inferenceservices/as-root").status, 200)
        else:
            self.assertIn(r.status, (400, 403, 422), r.body)

    def test_no_fixed_port(self):
        """Two replicas of one predictor side by side get different ports,
        both from the allocation; the runtime has no port of its own."""
        src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "cube-serving-runtime.py")).read()
        for fixed in ("29500", "8080", "8000", "5000"):
            self.assertNotIn(fixed, src)
        self.register("pair-1", {"name": "pair", "framework": "sklearn",
                                 "path": "models/iris.pkl"})
        self.deploy("pair-1", {"service": "pair", "resources": RES,
                               "replicas": {"min": 2, "max": 2}})
        self.wait("pair", lambda st: st.get("predictors", [{}])[0].get("ready") == 2,
                  timeout=120, what="2 ready")
        jobs = self.a.get(f"{BASE}/jobs?labelSelector=cube.dev/inferenceservice=pair").json()
        eps = sorted(j["status"]["replicas"][0]["endpoints"]["http"] for j in jobs["items"])
        self.assertEqual(len(set(eps)), 2, eps)
        for _ in range(6):
            status, out = self.infer("pair", ROWS)
            self.assertEqual(status, 200, out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
