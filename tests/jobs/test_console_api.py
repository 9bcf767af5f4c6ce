"""The read and audit APIs the console's infrastructure and admin pages use,
through a running cubed on executor-sim: every node and pool with capacity
and allocation (idle ones too), a pool's queue shown only to members of the
waiting Jobs' projects, a stop over the API recorded as a StopRequested
event naming who asked, the password policy checked without setting a
password, and an administrator's new project made with its creator."""
import os
import tempfile
import time
import unittest

from cubetest import Cubed

GPU = "sim.cube.dev/gpu"
SIM = {"pool": "default", "run_seconds": 120,
       "node_groups": [{"prefix": "n-", "count": 2, "cpu": "16", "memory": "64Gi",
                        "devices": {"resource": GPU, "count": 2}}]}
JOBS = "/api/v1/projects/lab/jobs"


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-console-api-plugins-")
    src = os.environ["CUBE_SIM_PLUGIN_DIR"]
    os.symlink(os.path.join(src, "cube-executor-sim.so"), os.path.join(d, "cube-executor-sim.so"))
    return d


class ConsoleApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"executor-sim": SIM}, plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.dev = cls.c.make_user("dana")
        cls.outsider = cls.c.make_user("otto")
        cls.c.make_project("lab", [("dana", "creator")])
        cls.c.make_project("elsewhere", [("otto", "creator")])

    @classmethod
    def tearDownClass(cls):
        for name in ("big", "queued"):
            cls.a.request("POST", f"{JOBS}/{name}/stop", {"graceSeconds": 0})
        cls.c.close()

    def phase(self, name, phases, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = self.a.get(f"{JOBS}/{name}").json().get("status", {})
            if st.get("phase") in phases:
                return st
            time.sleep(0.05)
        self.fail(f"{name}: still {st}")

    def nodes(self, who):
        r = who.get("/api/v1/nodes")
        self.assertEqual(r.status, 200, r.body)
        return {n["name"]: n for n in r.json()["items"]}

    def test_1_idle_nodes_and_pools_show_capacity(self):
        nodes = self.nodes(self.dev)
        self.assertEqual(sorted(nodes), ["n-0", "n-1"])
        n = nodes["n-0"]
        self.assertEqual(n["pool"], "default")
        self.assertEqual(n["executor"], "sim")
        self.assertEqual(n["capacity"], {"cpu": 16, "memory": 64 * 2**30, GPU: 2})
        self.assertEqual(n["allocated"], {"cpu": 0, "memory": 0})
        self.assertEqual(n["replicas"], 0)
        self.assertEqual([(d["resource"], d["allocated"]) for d in n["devices"]],
                         [(GPU, 0), (GPU, 0)])
        self.assertNotIn("address", n, "only administrators see node addresses")
        self.assertIn("address", self.nodes(self.a)["n-0"])
        one = self.dev.get("/api/v1/nodes/n-1")
        self.assertEqual(one.status, 200, one.body)
        self.assertEqual(one.json()["capacity"]["cpu"], 16)
        self.assertEqual(self.dev.get("/api/v1/nodes/nope").status, 404)
        pools = self.dev.get("/api/v1/pools").json()["items"]
        default = next(p for p in pools if p["name"] == "default")
        self.assertEqual(default["nodes"], 2)
        self.assertEqual(default["capacity"], {"cpu": 32, "memory": 128 * 2**30, GPU: 4})
        self.assertEqual((default["pending"], default["running"]), (0, 0))
        self.assertEqual(self.dev.get("/api/v1/pools/nope").status, 404)
        self.assertEqual(self.c.request("GET", "/api/v1/nodes").status, 401)
        self.assertEqual(self.c.request("GET", "/api/v1/pools/default").status, 401)

    def test_2_allocation_queue_and_stop_audit(self):
        r = self.a.request("PATCH", "/api/v1/projects/lab",
                           {"spec": {"quotas": {"default": {"max": {"cpu": "6"}}}}})
        self.assertEqual(r.status, 200, r.body)
        r = self.dev.request("POST", JOBS, {"metadata": {"name": "big"}, "spec": {
            "command": ["train"], "resources": {"cpu": "4", "memory": "8Gi", GPU: 1}}})
        self.assertEqual(r.status, 201, r.body)
        st = self.phase("big", ("Running",))
        node = st["replicas"][0]["node"]
        n = self.nodes(self.dev)[node]
        self.assertEqual(n["allocated"], {"cpu": 4, "memory": 8 * 2**30, GPU: 1})
        self.assertEqual(n["replicas"], 1)
        self.assertEqual(sum(d["allocated"] for d in n["devices"]), 1)

        r = self.dev.request("POST", JOBS, {"metadata": {"name": "queued"}, "spec": {
            "command": ["train"], "resources": {"cpu": "4"}}})
        self.assertEqual(r.status, 201, r.body)
        deadline = time.time() + 20
        while time.time() < deadline:
            pool = self.dev.get("/api/v1/pools/default").json()
            if pool["queue"] and pool["queue"][0].get("reason"):
                break
            time.sleep(0.05)
        self.assertEqual(pool["allocated"]["cpu"], 4)
        self.assertEqual((pool["pending"], pool["running"]), (1, 1))
        self.assertEqual([(q["project"], q["name"]) for q in pool["queue"]], [("lab", "queued")])
        self.assertIn("quota", pool["queue"][0]["reason"])
        self.assertEqual(pool["hiddenPending"], 0)
        other = self.outsider.get("/api/v1/pools/default").json()
        self.assertEqual(other["queue"], [], "no names of another project's jobs")
        self.assertEqual(other["hiddenPending"], 1)

        r = self.dev.request("POST", f"{JOBS}/big/stop", {"graceSeconds": 0})
        self.assertEqual(r.status, 200, r.body)
        events = self.dev.get("/api/v1/projects/lab/events").json()["items"]
        stops = [e for e in events if e.get("reason") == "StopRequested"]
        self.assertEqual(len(stops), 1, events)
        self.assertEqual(stops[0]["user"], "dana")
        self.assertEqual(stops[0]["involvedObject"]["name"], "big")
        self.assertIn("stop requested by dana", stops[0]["message"])
        self.assertEqual(self.outsider.request("POST", f"{JOBS}/big/stop", {}).status, 404)
        self.assertEqual(self.dev.request("POST", f"{JOBS}/ghost/stop", {}).status, 404)
        events = self.a.get("/api/v1/projects/lab/events").json()["items"]
        self.assertEqual(len([e for e in events if e.get("reason") == "StopRequested"]), 1,
                         "refused stops record nothing")

    def test_password_policy_check(self):
        for pw, field in (("short", "password"), ("aaaaaaaaaa", "password"), (None, "password")):
            r = self.dev.request("POST", "/api/v1/auth/password/check",
                                 {} if pw is None else {"password": pw})
            self.assertEqual(r.status, 422, r.body)
            self.assertEqual(r.json()["error"]["field"], field)
        r = self.dev.request("POST", "/api/v1/auth/password/check", {"password": "long-enough-1"})
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(r.json(), {"ok": True})
        self.assertEqual(self.c.request("POST", "/api/v1/auth/password/check",
                                        {"password": "long-enough-1"}).status, 401)
        self.assertNotIn("long-enough-1", self.c.output())

    def test_admin_project_gets_its_creator(self):
        r = self.a.request("POST", "/api/v1/projects", {"metadata": {"name": "fresh"}})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(r.json()["spec"]["members"], [{"user": "admin", "role": "creator"}])
        r = self.a.request("POST", "/api/v1/projects", {"metadata": {"name": "chosen"},
                                                        "spec": {"members": [
                                                            {"user": "otto", "role": "creator"}]}})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(r.json()["spec"]["members"], [{"user": "otto", "role": "creator"}],
                         "a list the administrator wrote is kept")


if __name__ == "__main__":
    unittest.main(verbosity=2)
