"""Zero-code serving of registered Models (the models plugin's deploy):
real scikit-learn, xgboost and TorchScript files (Debian's packages under
/usr/bin/python3) answer v2 infer as the libraries do locally; the
built-in runtime runs as the service owner's OS account, not root, and no
spec field moves that; the runtime's port is the one the executor
allocated."""
import json
import os
import pwd
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servingtest import BASE, RES, ServingCase, run_py  # noqa: E402

# The model files (iris.joblib, xgb.json, net.pt) and what each library
# answers for the probe rows locally.
MAKE = r"""
import json, sys, joblib, numpy as np, torch, xgboost
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
d, rows = sys.argv[1], json.loads(sys.argv[2])
X, y = load_iris(return_X_y=True)
x = np.array(rows, dtype="float64")
lr = LogisticRegression(max_iter=500).fit(X, y)
joblib.dump(lr, d + "/iris.joblib", compress=3)
b = xgboost.XGBClassifier(n_estimators=5, max_depth=2).fit(X, y).get_booster()
b.save_model(d + "/xgb.json")
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3)).eval()
torch.jit.save(torch.jit.script(net), d + "/net.pt")
with torch.no_grad():
    t = net(torch.as_tensor(x, dtype=torch.float32)).numpy()
print(json.dumps({"sklearn": lr.predict(x).tolist(),
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
        cls.expect = run_py(MAKE, d, json.dumps(ROWS))

    def test_sklearn_xgboost_torchscript(self):
        """Three families deployed at once (iris with two replicas), each
        answering as its library does; the replicas run as dana's OS account
        on the ports the executor allocated them."""
        fams = (("iris", "sklearn", "iris.joblib", 2), ("boost", "xgboost", "xgb.json", 1),
                ("net", "pytorch", "net.pt", 1))
        for family, fw, path, _ in fams:
            self.register(f"{family}-1", {"name": family, "framework": fw,
                                          "path": f"models/{path}"})
        for family, fw, path, n in fams:
            self.deploy(f"{family}-1", {"service": family, "resources": RES,
                                        "replicas": {"min": n, "max": n}}, status=(201,))
        for family, fw, path, n in fams:
            st = self.wait(family, lambda st: st.get("phase") == "Ready" and
                           st["predictors"][0].get("ready") == n, timeout=120, what="Ready")
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
        # a request of the wrong shape or type is the caller's fault, named
        status, out = self.infer("iris", [[1.0, 2.0]])
        self.assertEqual(status, 400, out)
        self.assertIn("expected 4 features", out["error"])
        r = self.dev.apps_request("POST", "/serving/lab/iris/v2/models/iris/infer",
                                  {"inputs": [{"name": "x", "shape": [1, 4], "datatype": "BYTES",
                                               "data": ["a", "b", "c", "d"]}]})
        self.assertEqual(r.status, 400, r.body)
        self.assertIn("datatype", r.json()["error"])
        for _ in range(4):      # both replicas of iris answer
            status, out = self.infer("iris", ROWS)
            self.assertEqual((status, out["outputs"][0]["data"]), (200, self.expect["sklearn"]))
        self.check_owner_and_ports("iris", 2)

    def check_owner_and_ports(self, service, n):
        """The built-in runtime runs as dana's OS account (not root), each
        replica on the port the executor allocated it, no two alike, and no
        port of its own (the runtime's source names none)."""
        src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "cube-serving-runtime.py")).read()
        for fixed in ("29500", "8080", "8000", "5000"):
            self.assertNotIn(fixed, src)
        jobs = self.a.get(f"{BASE}/jobs?labelSelector=cube.dev/inferenceservice={service}"
                          ).json()["items"]
        self.assertEqual(len(jobs), n)
        eps = {j["status"]["replicas"][0]["endpoints"]["http"] for j in jobs}
        self.assertEqual(len(eps), n, eps)
        self.assertEqual({j["metadata"]["owner"] for j in jobs}, {"dana"})
        if os.geteuid() != 0:
            return      # executor-local runs replicas as other accounts only as root
        procs = replica_processes(service)
        self.assertEqual(len(procs), n, procs)
        ports = set()
        for pid, uid, argv in procs:
            self.assertNotEqual(uid, 0, argv)
            self.assertEqual(pwd.getpwuid(uid).pw_name, "cube-dana")
            self.assertNotIn("--port", argv)
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(kv.split("=", 1) for kv in f.read().decode().split("\0") if "=" in kv)
            ports.add(env["CUBE_PORT_HTTP"])
        self.assertEqual({e.rsplit(":", 1)[1] for e in eps}, ports)

    def test_no_spec_field_picks_the_account(self):
        """No field of the spec chooses whom replicas run as; an owner in
        the metadata is the caller's, not the one written."""
        for field in ({"user": "root"}, {"runAs": "root"}, {"securityContext": {"runAsUser": 0}}):
            r = self.dev.request("POST", f"{BASE}/inferenceservices", {
                "metadata": {"name": "as-root"},
                "spec": {"predictors": [dict({"name": "m", "model": "x"}, **field)]}})
            self.assertEqual(r.status, 422, r.body)
        r = self.dev.request("POST", f"{BASE}/inferenceservices", {
            "metadata": {"name": "as-root", "owner": "admin"},
            "spec": {"predictors": [{"name": "m", "model": "x", "resources": RES}]}})
        if r.status == 201:
            self.assertEqual(r.json()["metadata"]["owner"], "dana", r.body)
            self.assertEqual(self.dev.request(
                "DELETE", f"{BASE}/inferenceservices/as-root").status, 200)
        else:
            self.assertIn(r.status, (400, 403, 422), r.body)


if __name__ == "__main__":
    unittest.main(verbosity=2)
