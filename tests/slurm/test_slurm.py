"""Cube Jobs on a real Slurm 22.05 cluster (tests/slurm/cluster.sh: slurmctld
and three slurmd, each in its own network namespace) through executor-slurm
in cube mode: a 1-replica Job with its log, run as the owner's mapped
account; a 2-node torch.distributed all-reduce over gloo across two
namespaces; a gang that waits whole while a node is drained; stop, timeout
and OOM; drain keeping Cube off a node; quotas; and bad input (no mapped
account, an unknown partition, a GRES Slurm does not have, Slurm down)."""
import json
import os
import time
import unittest

import slurmtest
from slurmtest import PREFIX, Api, Cluster, ensure_account, start_cubed

slurmtest.require()

ALLREDUCE = r"""
import os, socket, torch, torch.distributed as dist
dist.init_process_group("gloo", init_method="env://")
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
print("rank", dist.get_rank(), "of", dist.get_world_size(), "sum", int(t.item()),
      "node", os.environ.get("SLURMD_NODENAME"), flush=True)
dist.destroy_process_group()
"""


def have_torch():
    return os.path.exists("/usr/lib/python3/dist-packages/torch")


class Slurm(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.made = [a for a in (PREFIX + "alice", PREFIX + "bob") if ensure_account(a)]
        cls.cl = Cluster(3).start()
        try:
            cls.c = start_cubed(cls.cl, conf={
                "partitions": [{"name": "cube", "pool": "slurm"},
                               {"name": "nosuch", "pool": "ghost"}],
                "projects": {"ml": {"account": "ml-acct"}}})
            a = cls.c.admin()
            cls.alice = cls.c.make_user("alice")
            cls.carol = cls.c.make_user("carol")   # no OS account: not mapped
            r = a.request("POST", "/api/v1/projects", {
                "metadata": {"name": "ml"},
                "spec": {"members": [{"user": "alice", "role": "dev"},
                                     {"user": "carol", "role": "dev"}]}})
            assert r.status == 201, r.body
            cls.api = None
        except Exception:
            cls.cl.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            cls.c.close()
        finally:
            cls.cl.stop()
            for a in cls.made:
                os.system(f"userdel {a} >/dev/null 2>&1")

    def setUp(self):
        self.j = Api(self, self.alice, "ml")

    def status(self):
        r = self.c.admin().get("/api/v1/slurm")
        self.assertEqual(r.status, 200, r.body)
        return r.json()

    def wait_nodes(self, pred, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = self.status()
            if pred({n["slurmName"]: n for n in st["nodes"]}):
                return st
            time.sleep(0.2)
        self.fail("nodes: " + json.dumps(self.status()))

    # -- runs ------------------------------------------------------------

    def test_a_one_replica_with_log_as_mapped_account(self):
        self.j.create("hello", {"command": ["/bin/sh", "-c",
                                            "echo hello from $SLURMD_NODENAME; id -un; "
                                            "echo job $SLURM_JOB_ID; echo err >&2"],
                                "resources": {"cpu": "1", "memory": "64Mi"}})
        job = self.j.wait("hello", cubed=self.c)
        st = job["status"]
        self.assertEqual(st["phase"], "Succeeded", json.dumps(st))
        rep = st["replicas"][0]
        self.assertIn(rep["node"], ("n1", "n2", "n3"))
        self.assertEqual(rep["exitCode"], 0)
        log = self.j.log("hello")
        self.assertIn("hello from " + rep["node"], log)
        self.assertIn(PREFIX + "alice\n", log, "runs as the owner's account, never root")
        self.assertIn("err\n", log)
        sid = [x for x in log.split() if x.isdigit()]
        # Cube reports the end from the exit file, before Slurm's teardown:
        # the Slurm job may still be COMPLETING for a moment
        deadline = time.time() + 20
        while True:
            jobs = {j[0]: j for j in self.cl.jobs()}
            self.assertTrue(sid and sid[0] in jobs, (log, jobs))
            if jobs[sid[0]][1] != "COMPLETING" or time.time() > deadline:
                break
            time.sleep(0.2)
        self.assertEqual(jobs[sid[0]][1], "COMPLETED")
        # the project's Slurm account from the config map
        out = self.cl.cmd("scontrol", "-o", "show", "job", sid[0])
        self.assertIn("Account=ml-acct", out)
        self.assertIn("UserId=" + PREFIX + "alice", out)

    @unittest.skipUnless(have_torch(), "python3-torch is not installed")
    def test_b_torch_allreduce_across_two_nodes(self):
        self.j.create("ddp", {"replicas": 2, "distributed": "pytorch",
                              "command": ["/usr/bin/python3", "-c", ALLREDUCE],
                              "resources": {"cpu": "2", "memory": "700Mi"},
                              "timeoutSeconds": 240})
        job = self.j.wait("ddp", timeout=240, cubed=self.c)
        st = job["status"]
        self.assertEqual(st["phase"], "Succeeded",
                         json.dumps(st) + self.j.log("ddp") + self.j.log("ddp", "replica-1"))
        nodes = {r["node"] for r in st["replicas"]}
        self.assertEqual(len(nodes), 2, "one replica per node (2 CPUs each)")
        logs = [self.j.log("ddp", f"replica-{i}") for i in (0, 1)]
        for i, log in enumerate(logs):
            self.assertIn(f"rank {i} of 2 sum 3 node {st['replicas'][i]['node']}", log)

    def test_c_gang_waits_whole_while_a_node_is_drained(self):
        self.cl.drain("n3", "cube gang test")
        self.wait_nodes(lambda n: not n["n3"]["schedulable"])
        self.j.create("gang", {"replicas": 3, "command": ["/bin/true"],
                               "resources": {"cpu": "2", "memory": "64Mi"}})
        time.sleep(2)
        st = self.j.get("gang")["status"]
        self.assertEqual(st["phase"], "Pending", json.dumps(st))
        self.assertIn("not schedulable", st.get("message", ""), json.dumps(st))
        self.assertIn("n3", st.get("message", ""))
        self.assertFalse([j for j in self.cl.jobs() if j[1] in ("PENDING", "RUNNING")],
                         "nothing reached Slurm: a gang never starts partially")
        self.cl.resume("n3")
        st = self.j.wait("gang", timeout=30, cubed=self.c)["status"]
        self.assertEqual(st["phase"], "Succeeded", json.dumps(st))
        self.assertEqual(sorted(r["node"] for r in st["replicas"]), ["n1", "n2", "n3"])

    def test_d_drain_keeps_new_work_off_the_node(self):
        self.cl.drain("n1", "maintenance")
        self.cl.drain("n2", "maintenance")
        try:
            st = self.wait_nodes(lambda n: not n["n1"]["schedulable"] and
                                 not n["n2"]["schedulable"])
            n1 = [n for n in st["nodes"] if n["slurmName"] == "n1"][0]
            self.assertIn("DRAIN: maintenance", n1["message"])
            for i in range(3):
                self.j.create(f"drain{i}", {"command": ["/bin/true"],
                                            "resources": {"cpu": "500m", "memory": "32Mi"}})
            for i in range(3):
                st = self.j.wait(f"drain{i}", cubed=self.c)["status"]
                self.assertEqual(st["phase"], "Succeeded", json.dumps(st))
                self.assertEqual(st["replicas"][0]["node"], "n3")
        finally:
            self.cl.resume("n1")
            self.cl.resume("n2")
        self.wait_nodes(lambda n: all(x["schedulable"] for x in n.values()))

    def test_e_stop_with_grace(self):
        self.j.create("stopme", {"command": ["/bin/sh", "-c",
                                             "trap 'echo got-term; exit 3' TERM; echo up; "
                                             "while :; do sleep 0.1; done"],
                                 "resources": {"cpu": "1", "memory": "32Mi"}})
        self.j.wait("stopme", until=("Running",), cubed=self.c)
        deadline = time.time() + 10
        while "up" not in self.j.log("stopme") and time.time() < deadline:
            time.sleep(0.1)
        self.assertIn("up", self.j.log("stopme"), "output arrives while it runs")
        t0 = time.time()
        self.j.stop("stopme")
        st = self.j.wait("stopme", timeout=30, cubed=self.c)["status"]
        self.assertEqual(st["phase"], "Cancelled", json.dumps(st))
        self.assertEqual(st["replicas"][0]["reason"], "Stopped")
        self.assertLess(time.time() - t0, 15)
        self.assertIn("got-term", self.j.log("stopme"), "SIGTERM first")

    def test_f_timeout(self):
        self.j.create("slow", {"command": ["/bin/sleep", "60"], "timeoutSeconds": 2,
                               "resources": {"cpu": "1", "memory": "32Mi"}})
        st = self.j.wait("slow", timeout=40, cubed=self.c)["status"]
        self.assertEqual(st["phase"], "Failed", json.dumps(st))
        self.assertEqual(st["replicas"][0]["reason"], "Timeout", json.dumps(st))

    def test_g_oom_with_a_memory_limit(self):
        self.j.create("hog", {"command": ["/usr/bin/python3", "-c",
                                          "b = bytearray(400 * 1024 * 1024); print('alive')"],
                              "resources": {"cpu": "1", "memory": "64Mi"}})
        st = self.j.wait("hog", timeout=40, cubed=self.c)["status"]
        self.assertEqual(st["phase"], "Failed", json.dumps(st))
        self.assertEqual(st["replicas"][0]["reason"], "OOMKilled", json.dumps(st))
        self.assertNotIn("\nalive\n", "\n" + self.j.log("hog"))

    def test_h_quota_holds_in_cube_mode(self):
        a = self.c.admin()
        r = a.request("POST", "/api/v1/projects", {
            "metadata": {"name": "capped"},
            "spec": {"members": [{"user": "alice", "role": "dev"}],
                     "quotas": {"slurm": {"max": {"cpu": "2"}}}}})
        self.assertEqual(r.status, 201, r.body)
        j = Api(self, self.alice, "capped")
        j.create("q1", {"command": ["/bin/sleep", "3"], "resources": {"cpu": "2", "memory": "32Mi"}})
        j.wait("q1", until=("Running",), cubed=self.c)
        j.create("q2", {"command": ["/bin/true"], "resources": {"cpu": "2", "memory": "32Mi"}})
        deadline = time.time() + 5
        st = {}
        while time.time() < deadline and "quota" not in st.get("message", ""):
            time.sleep(0.1)
            st = j.get("q2")["status"]
        self.assertEqual(st["phase"], "Pending", json.dumps(st))
        self.assertIn("quota", st.get("message", ""), json.dumps(st))
        self.assertEqual(j.wait("q1", cubed=self.c)["status"]["phase"], "Succeeded")
        self.assertEqual(j.wait("q2", cubed=self.c)["status"]["phase"], "Succeeded")

    # -- bad input ---------------------------------------------------------

    def test_i_user_without_account(self):
        j = Api(self, self.carol, "ml")
        j.create("nomap", {"command": ["/bin/true"], "resources": {"cpu": "1", "memory": "32Mi"}})
        st = j.wait("nomap", cubed=self.c)["status"]
        self.assertEqual(st["phase"], "Failed", json.dumps(st))
        self.assertEqual(st["replicas"][0]["reason"], "StartError")
        self.assertIn(PREFIX + "carol, which does not exist", st["replicas"][0]["message"])

    def test_j_unknown_partition_and_gres(self):
        st = self.status()
        ghost = [p for p in st["pools"] if p["pool"] == "ghost"][0]
        self.assertEqual(ghost["phase"], "NotReady")
        self.assertIn('partitions[1].name: Slurm has no partition "nosuch"', ghost["message"])
        self.assertIn("executor-slurm", self.c.output())
        slurm = [p for p in st["pools"] if p["pool"] == "slurm"][0]
        self.assertEqual(slurm["phase"], "Ready", json.dumps(st))
        # a pool whose partition Slurm does not have serves no node
        r = self.j.create("ghostjob", {"pool": "ghost", "command": ["/bin/true"]}, status=None)
        self.assertEqual(r.status, 422, r.body)
        self.assertEqual(r.json()["error"]["field"], "spec.pool")
        # a GRES no Slurm node has: refused, or waiting with the reason
        r = self.j.create("gpujob", {"command": ["/bin/true"],
                                     "resources": {"cpu": "1", "nvidia.com/gpu": "1"}},
                          status=None)
        if r.status == 201:
            time.sleep(1)
            st = self.j.get("gpujob")["status"]
            self.assertEqual(st["phase"], "Pending", json.dumps(st))
            self.assertIn("nvidia.com/gpu", st.get("message", ""), json.dumps(st))
        else:
            self.assertEqual(r.status, 422, r.body)
            self.assertIn("nvidia.com/gpu", r.body)

    def test_k_slurm_down_then_back(self):
        self.j.create("across", {"command": ["/bin/sh", "-c",
                                             "echo started; sleep 5; echo survived"],
                                 "resources": {"cpu": "1", "memory": "32Mi"}})
        self.j.wait("across", until=("Running",), cubed=self.c)
        deadline = time.time() + 15   # its step runs (srun needs slurmctld to start one)
        while "started" not in self.j.log("across") and time.time() < deadline:
            time.sleep(0.1)
        self.cl.script("ctld-stop")
        try:
            deadline = time.time() + 15
            while time.time() < deadline and self.status()["reachable"]:
                time.sleep(0.2)
            st = self.status()
            self.assertFalse(st["reachable"])
            self.assertEqual({p["phase"] for p in st["pools"]}, {"NotReady"})
            self.assertIn("Slurm unreachable", st["pools"][0]["message"])
            self.j.create("waiter", {"command": ["/bin/true"],
                                     "resources": {"cpu": "1", "memory": "32Mi"}})
            time.sleep(1.5)
            w = self.j.get("waiter")["status"]
            self.assertEqual(w["phase"], "Pending", json.dumps(w))
            self.assertIn("Slurm unreachable", w.get("message", ""), json.dumps(w))
            self.assertEqual(self.j.get("across")["status"]["phase"], "Running",
                             "a running Job is not lost while Slurm is away")
        finally:
            self.cl.script("ctld-start")
        self.assertEqual(self.j.wait("waiter", timeout=40, cubed=self.c)["status"]["phase"],
                         "Succeeded")
        st = self.j.wait("across", timeout=40, cubed=self.c)["status"]
        self.assertEqual(st["phase"], "Succeeded", json.dumps(st))
        self.assertIn("survived", self.j.log("across"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
