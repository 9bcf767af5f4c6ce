"""The console's forms and infrastructure pages in a real Chromium against
a real cubed (executor-sim nodes with simulated devices, the notebook
plugin and its page), at 1440x900 and 390x844: users (the password policy
checked before a user is made), projects (the creator as first member,
members picked from users, quotas in a form), the Job form, nodes, pools
and a pool's queue, notebooks (actions by phase, Delete, only enabled
IDEs). The browser side is web/e2e/forms.mjs; screenshots are kept in
$CUBE_SHOTS/forms."""
import os
import tempfile
import time
import unittest

from consoleweb import build_console, dist, run_script, shots_dir
from cubetest import Cubed

PLUGINS = os.path.abspath(os.environ.get("CUBE_TEST_PLUGIN_DIR", "build/plugins"))
GPU = "sim.cube.dev/gpu"
SIM = {"pool": "default", "run_seconds": 600,
       "node_groups": [{"prefix": "n-", "count": 2, "cpu": "16", "memory": "64Gi",
                        "devices": {"resource": GPU, "count": 2}}]}


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-forms-plugins-")
    os.symlink(os.path.join(PLUGINS, "executor-sim", "cube-executor-sim.so"),
               os.path.join(d, "cube-executor-sim.so"))
    os.symlink(os.path.join(PLUGINS, "notebook"), os.path.join(d, "notebook"))
    return d


class ConsoleForms(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = build_console()
        if why:
            raise unittest.SkipTest(why)
        if not os.path.isfile(os.path.join(PLUGINS, "notebook", "ui", "page.js")):
            raise unittest.SkipTest("the notebook page is not built (ninja builds it with npm)")

    def wait(self, who, path, phases, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = who.get(path).json().get("status", {})
            if st.get("phase") in phases:
                return st
            time.sleep(0.1)
        self.fail(f"{path}: still {st}")

    def seed(self, c):
        a = c.admin()
        r = a.request("POST", "/api/v1/users", {"metadata": {"name": "bob"},
                                                "spec": {"displayName": "Bob Builder"}})
        self.assertEqual(r.status, 201, r.body)
        # a pool queue: "holder" takes the project's one cpu, "waiting" waits
        c.make_project("queue", [("bob", "creator")])
        r = a.request("PATCH", "/api/v1/projects/queue",
                      {"spec": {"quotas": {"default": {"max": {"cpu": "1"}}}}})
        self.assertEqual(r.status, 200, r.body)
        for name in ("holder", "waiting"):
            r = a.request("POST", "/api/v1/projects/queue/jobs", {
                "metadata": {"name": name},
                "spec": {"command": ["train"], "resources": {"cpu": "1"}}})
            self.assertEqual(r.status, 201, r.body)
            if name == "holder":
                self.wait(a, "/api/v1/projects/queue/jobs/holder", ("Running",))
        # a stopped notebook per size
        nbs = {"d": "nb-desk", "p": "nb-phone"}
        for name in nbs.values():
            base = "/api/v1/projects/public/notebooks"
            r = a.request("POST", base, {"metadata": {"name": name}, "spec": {}})
            self.assertEqual(r.status, 201, r.body)
            self.assertEqual(a.request("POST", f"{base}/{name}/stop", {}).status, 200)
            self.wait(a, f"{base}/{name}", ("Stopped",))
        return nbs

    def test_forms_at_both_sizes(self):
        with Cubed(plugins={"executor-sim": SIM, "notebook": {"jupyter_command": "/bin/true"}},
                   plugin_dir=plugin_dir(), cube={"web_root": dist()}) as c:
            nbs = self.seed(c)
            run_script(self, "forms.mjs", c, shots=shots_dir("forms"), timeout=540,
                       notebooks=nbs)
            # what the browser did, seen by the server
            a = c.admin()
            for sfx in ("d", "p"):
                c.login(f"carl-{sfx}", "long-enough-password-1")
                events = a.get(f"/api/v1/projects/forms-{sfx}/events").json()["items"]
                self.assertTrue(any(e.get("reason") == "StopRequested" and e.get("user") == "admin"
                                    for e in events), events)
            for name in nbs.values():
                self.assertEqual(a.get(f"/api/v1/projects/public/notebooks/{name}").status, 404)
            a.request("POST", "/api/v1/projects/queue/jobs/holder/stop", {"graceSeconds": 0})


if __name__ == "__main__":
    unittest.main(verbosity=2)
