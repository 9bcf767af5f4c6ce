"""Jobs on this machine through executor-local and a running cubed: a
replica runs as a non-root account of its own, sees CUBE_TOKEN/CUBE_API and
can call the API as its owner, and a 2-replica torch.distributed job
(gloo, CPU) all-reduces across its replicas with the variables Cube sets."""
import json
import os
import tempfile
import time
import unittest

from cubetest import Cubed

PY = "/usr/bin/python3"
BASE = "/api/v1/projects/public/jobs"

WHOAMI = r"""
import json, os, urllib.request
req = urllib.request.Request(os.environ["CUBE_API"] + "/api/v1/auth/me",
                             headers={"Authorization": "Bearer " + os.environ["CUBE_TOKEN"]})
me = json.load(urllib.request.urlopen(req))
print(json.dumps({"uid": os.getuid(), "user": me["user"]["name"],
                  "project": os.environ["CUBE_PROJECT"], "job": os.environ["CUBE_JOB"],
                  "replica": os.environ["CUBE_REPLICA"]}))
"""

ALLREDUCE = r"""
import os, torch, torch.distributed as dist
dist.init_process_group("gloo", init_method="env://")
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
print("rank", dist.get_rank(), "of", dist.get_world_size(), "sum", int(t.item()), flush=True)
dist.destroy_process_group()
"""


# As ALLREDUCE, with a value of the Job's own (BASE) and the group held a
# few seconds, so that two such Jobs overlap.
ALLREDUCE_OWN = r"""
import os, time, torch, torch.distributed as dist
dist.init_process_group("gloo", init_method="env://")
t = torch.tensor([float(int(os.environ["BASE"]) * (dist.get_rank() + 1))])
dist.all_reduce(t)
print("port", os.environ["MASTER_PORT"], "size", dist.get_world_size(), "sum", int(t.item()),
      flush=True)
time.sleep(3)
dist.barrier()
dist.destroy_process_group()
"""


def have_torch():
    return os.path.exists("/usr/lib/python3/dist-packages/torch")


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-local-plugins-")
    for var, name in (("CUBE_LOCAL_PLUGIN_DIR", "cube-executor-local.so"),
                      ("CUBE_ACCEL_SIM_PLUGIN_DIR", "cube-accel-sim.so")):
        os.symlink(os.path.join(os.environ[var], name), os.path.join(d, name))
    return d


ACCEL = {"resource": "sim.cube.dev/gpu", "visible_env": "SIM_VISIBLE_DEVICES",
         "devices": [{"id": "0", "model": "SimA100", "memory": "80Gi", "domain": "nvl-0",
                      "utilization": 0.5, "memory_used": "20Gi"},
                     {"id": "1", "model": "SimA100", "memory": "80Gi", "domain": "nvl-0"},
                     {"id": "2", "model": "SimA100", "memory": "80Gi", "domain": "nvl-1"}]}


class Local(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # accel-sim first: the local node advertises its devices
        cls.c = Cubed(plugins={"accel-sim": ACCEL, "executor-local": None},
                      plugin_dir=plugin_dir())
        cls.a = cls.c.admin()

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def run_job(self, name, spec, timeout=120):
        r = self.a.request("POST", BASE, {"metadata": {"name": name}, "spec": spec})
        self.assertEqual(r.status, 201, r.body)
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = self.a.get(f"{BASE}/{name}").json().get("status", {})
            if st.get("phase") in ("Succeeded", "Failed", "Cancelled"):
                return st
            time.sleep(0.1)
        self.fail(f"{name} did not finish: {st}")

    def logs(self, name, replica=0):
        return self.a.get(f"{BASE}/{name}/logs?replica={replica}").body

    def test_runs_as_its_owner_not_root_with_a_token(self):
        st = self.run_job("whoami", {"command": [PY, "-c", WHOAMI],
                                     "resources": {"cpu": "500m", "memory": "256Mi"}})
        self.assertEqual(st["phase"], "Succeeded", st)
        out = json.loads(self.logs("whoami").strip().splitlines()[-1])
        self.assertNotEqual(out["uid"], 0, "replicas never run as root")
        self.assertEqual(out["user"], "admin", "CUBE_TOKEN acts as the Job's owner")
        self.assertEqual((out["project"], out["job"], out["replica"]),
                         ("public", "whoami", "0"))
        # its CUBE_TOKEN lists under the Job (by name or uid), never among
        # the owner's own tokens
        uid = self.a.get(f"{BASE}/whoami").json()["metadata"]["uid"]
        own = self.a.get("/api/v1/auth/tokens").json()["items"]
        self.assertEqual([x for x in own if x.get("job") or x["name"] == "job"], [], own)
        for q in ("public/whoami", uid):
            items = self.a.get("/api/v1/auth/tokens?job=" + q).json()["items"]
            self.assertEqual([(x["name"], x["job"], x["project"], x["jobName"]) for x in items],
                             [("job", uid, "public", "whoami")], q)
        self.assertEqual(self.a.get("/api/v1/auth/tokens?job=public/other").json()["items"], [])

    def test_devices_are_pinned_and_measured(self):
        st = self.run_job("pinned", {"command": ["/bin/sh", "-c", "echo dev=$SIM_VISIBLE_DEVICES"],
                                     "resources": {"sim.cube.dev/gpu": 2}})
        self.assertEqual(st["phase"], "Succeeded", st)
        ids = [d["id"] for d in st["replicas"][0]["devices"]]
        self.assertEqual(len(ids), 2)
        self.assertIn("dev=" + ",".join(ids), self.logs("pinned"))
        self.assertIn("dev=", self.a.get(f"{BASE}/pinned/logs").body, "replica 0 by default")
        deadline = time.time() + 5
        while time.time() < deadline:
            m = self.c.get("/metrics").body
            if 'cube_accel_utilization{resource="sim.cube.dev/gpu",device="0"} 0.5' in m:
                break
            time.sleep(0.2)
        self.assertIn('cube_accel_utilization{resource="sim.cube.dev/gpu",device="0"} 0.5', m)
        self.assertIn('cube_sched_jobs{state="running"}', m)

    def test_torch_distributed_all_reduce(self):
        try:
            import importlib.util
            have = importlib.util.find_spec("torch") is not None
        except ImportError:
            have = False
        if not have and not os.path.exists("/usr/lib/python3/dist-packages/torch"):
            self.skipTest("python3-torch is not installed (scripts/install-deps.sh test)")
        st = self.run_job("ddp", {"command": [PY, "-c", ALLREDUCE], "replicas": 2,
                                  "distributed": "pytorch",
                                  "resources": {"cpu": "500m", "memory": "1Gi"}}, timeout=300)
        self.assertEqual(st["phase"], "Succeeded",
                         f"{st}\n{self.logs('ddp', 0)}\n{self.logs('ddp', 1)}")
        for r in (0, 1):
            self.assertIn(f"rank {r} of 2 sum 3", self.logs("ddp", r))

    def test_concurrent_distributed_jobs_of_two_users_do_not_cross(self):
        if not have_torch():
            self.skipTest("python3-torch is not installed (scripts/install-deps.sh test)")
        users = {"ddp-ann": 10, "ddp-ben": 100}
        for user, base in users.items():
            c = self.c.make_user(user)
            r = c.request("POST", BASE, {"metadata": {"name": user}, "spec": {
                "command": [PY, "-c", ALLREDUCE_OWN], "replicas": 2, "distributed": "pytorch",
                "env": {"BASE": str(base)}, "resources": {"cpu": "250m", "memory": "1Gi"}}})
            self.assertEqual(r.status, 201, r.body)
        ports = set()
        for user, base in users.items():
            deadline, st = time.time() + 300, {}
            while time.time() < deadline and st.get("phase") not in ("Succeeded", "Failed"):
                time.sleep(0.2)
                st = self.a.get(f"{BASE}/{user}").json().get("status", {})
            self.assertEqual(st.get("phase"), "Succeeded",
                             f"{st}\n{self.logs(user, 0)}\n{self.logs(user, 1)}")
            for r in (0, 1):
                self.assertIn(f"size 2 sum {base * 3}", self.logs(user, r))
            ports.add(st["ports"]["master"])
        self.assertEqual(len(ports), 2, "each Job gets a MASTER_PORT of its own")


if __name__ == "__main__":
    unittest.main(verbosity=2)
