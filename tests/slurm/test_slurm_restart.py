"""executor-slurm across restarts and with other plugins, on a real Slurm
cluster (tests/slurm/cluster.sh, two slurmd in their own namespaces):
cubed killed with SIGKILL mid-job re-adopts the Slurm job by the id it
stored (kv) and its log goes on exactly where it stopped; a job Slurm lost
while cubed was down ends with reason Lost; and a pipeline's tasks run on
the Slurm pool (the default pool here), passing outputs along. And `slurm`
mode: Cube hands whole Jobs to Slurm's queue (no --nodelist; capacity
overcommitted so the excess waits in Slurm, Pending with Slurm's reason)
and mirrors their state, while Cube's quotas still hold at admission."""
import json
import os
import pwd
import re
import signal
import time
import unittest

import slurmtest
from slurmtest import PREFIX, Api, Cluster, ensure_account, start_cubed

slurmtest.require()


class Restart(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.made = [a for a in (PREFIX + "alice",) if ensure_account(a)]
        cls.cl = Cluster(2).start()

    @classmethod
    def tearDownClass(cls):
        cls.cl.stop()
        for a in cls.made:
            os.system(f"userdel {a} >/dev/null 2>&1")

    def cubed(self, **kw):
        c = start_cubed(self.cl, **kw)
        self.addCleanup(c.close)
        alice = c.make_user("alice")
        r = c.admin().request("POST", "/api/v1/projects", {
            "metadata": {"name": "ml"}, "spec": {"members": [{"user": "alice", "role": "dev"}]}})
        self.assertEqual(r.status, 201, r.body)
        return c, alice

    def wait_log(self, j, name, text, timeout=20):
        deadline = time.time() + timeout
        while text not in j.log(name) and time.time() < deadline:
            time.sleep(0.1)
        self.assertIn(text, j.log(name))

    def test_kill_9_then_readopt_and_lost(self):
        c, alice = self.cubed()
        j = Api(self, alice, "ml")
        j.create("long", {"command": ["/bin/sh", "-c",
                                      "for i in 1 2 3; do echo line$i; sleep 1; done; "
                                      "sleep 2; echo after; exit 7"],
                          "resources": {"cpu": "1", "memory": "32Mi"}})
        self.wait_log(j, "long", "line1")
        before = j.get("long")["status"]["replicas"][0]["engineId"]
        self.assertEqual(c.stop(sig=signal.SIGKILL), -signal.SIGKILL)
        time.sleep(1)
        c.start()
        st = j.wait("long", timeout=40, cubed=c)["status"]
        rep = st["replicas"][0]
        self.assertEqual(rep["engineId"], before, "the same Slurm job, re-adopted")
        self.assertEqual(st["phase"], "Failed", json.dumps(st))
        self.assertEqual(rep["exitCode"], 7, json.dumps(st))
        self.assertEqual(rep["reason"], "Completed")
        self.assertEqual(j.log("long"), "line1\nline2\nline3\nafter\n",
                         "output resumes where the stream ended: nothing lost or twice")
        self.assertIn("re-adopted", c.output())
        # a job Slurm forgets while cubed is down (slurmctld restarted with
        # its state cleared) is Lost
        j.create("doomed", {"command": ["/bin/sh", "-c", "echo doomed-up; sleep 60"],
                            "resources": {"cpu": "1", "memory": "32Mi"}})
        self.wait_log(j, "doomed", "doomed-up")
        self.assertEqual(c.stop(sig=signal.SIGKILL), -signal.SIGKILL)
        self.cl.script("ctld-stop")
        self.cl.script("ctld-start", "clean")
        self.assertEqual(self.cl.jobs(), [], "Slurm forgot every job")
        c.start()
        # the host requeues a Job whose replica was lost: a new attempt, a
        # new Slurm job
        deadline = time.time() + 40
        while time.time() < deadline and j.get("doomed")["status"].get("attempts", 1) < 2:
            time.sleep(0.2)
        st = j.get("doomed")["status"]
        self.assertEqual(st.get("attempts"), 2, json.dumps(st))
        self.assertIn("Slurm has no job", c.output(), "reported Lost, with the reason")
        self.assertRegex(c.output(), r"(Lost|NodeLost)")
        j.stop("doomed")
        self.assertEqual(j.wait("doomed", timeout=30, cubed=c)["status"]["phase"], "Cancelled")

    def test_pipeline_on_the_slurm_pool(self):
        if not os.environ.get("CUBE_PIPELINE_PLUGIN_DIR"):
            self.skipTest("CUBE_PIPELINE_PLUGIN_DIR not set")
        c, alice = self.cubed(plugins={"pipeline": None},
                              conf={"partitions": [{"name": "cube", "pool": "default"}]})
        # The project's files must be on a file system the nodes mount,
        # writable by the project's accounts (README: the site sets that up,
        # as it sets up home directories); here the test's temp dirs.
        os.chmod(c.dir, 0o711)
        os.chmod(os.path.join(c.dir, "var"), 0o711)
        proj = os.path.join(c.dir, "var", "projects", "ml")
        os.makedirs(proj, exist_ok=True)
        os.chown(proj, pwd.getpwnam(PREFIX + "alice").pw_uid, -1)
        p = "/api/v1/projects/ml"
        r = alice.request("POST", p + "/pipelines", {"metadata": {"name": "etl"}, "spec": {
            "tasks": [
                {"name": "a", "command": ["/bin/sh", "-c",
                                          "echo rows=42 > $CUBE_OUTPUTS; echo on $SLURMD_NODENAME"]},
                {"name": "b", "upstream": ["a"],
                 "command": ["/bin/sh", "-c", "echo got $1 on $SLURMD_NODENAME", "b",
                             "{{ tasks.a.outputs.rows }}"]}]}})
        self.assertEqual(r.status, 201, r.body)
        r = alice.request("POST", p + "/pipelines/etl/run", {})
        self.assertEqual(r.status, 201, r.body)
        run = r.json()["metadata"]["name"]
        deadline = time.time() + 60
        st = {}
        while time.time() < deadline:
            st = alice.get(f"{p}/pipelineruns/{run}").json().get("status", {})
            if st.get("phase") in ("Succeeded", "Failed"):
                break
            time.sleep(0.2)
        self.assertEqual(st.get("phase"), "Succeeded", json.dumps(st) +
                         alice.get(f"{p}/pipelineruns/{run}/tasks/a/logs").body)
        self.assertEqual(st["tasks"]["a"]["outputs"], {"rows": "42"})
        log = alice.get(f"{p}/pipelineruns/{run}/tasks/b/logs").body
        self.assertRegex(log, r"got 42 on n[12]")
        jobs = alice.get(f"{p}/jobs?labelSelector=pipelinerun%3D{run}").json()["items"]
        self.assertEqual(len(jobs), 2)
        for jb in jobs:
            self.assertIn("Slurm job", jb["status"]["replicas"][0]["message"])

    def test_slurm_mode_queue_and_quota(self):
        c, alice = self.cubed(conf={"mode": "slurm", "overcommit": 2})
        r = c.admin().request("POST", "/api/v1/projects", {
            "metadata": {"name": "sq"},
            "spec": {"members": [{"user": "alice", "role": "dev"}],
                     "quotas": {"slurm": {"max": {"cpu": "4"}}}}})
        self.assertEqual(r.status, 201, r.body)
        sq, ml = Api(self, alice, "sq"), Api(self, alice, "ml")
        busy = {"command": ["/bin/sh", "-c", "sleep 3; echo on $SLURMD_NODENAME"],
                "resources": {"cpu": "2", "memory": "64Mi"}}
        sq.create("s1", dict(busy))
        sq.create("s2", dict(busy))
        for n in ("s1", "s2"):
            sq.wait(n, until=("Running",), timeout=30, cubed=c)
        # both 2-CPU nodes are full: Cube (capacity x2) admits q1 and it
        # waits in Slurm's own queue, with Slurm's reason
        ml.create("q1", dict(busy))
        waiting = re.compile(r"Slurm job (\d+) PENDING: (Resources|Priority)")
        deadline, rep, st = time.time() + 10, {}, {}
        while time.time() < deadline and not waiting.search(rep.get("message", "")):
            time.sleep(0.1)
            st = ml.get("q1")["status"]
            rep = (st.get("replicas") or [{}])[0]
        self.assertEqual(st.get("phase"), "Admitted", json.dumps(st))
        self.assertEqual(rep.get("phase"), "Pending", json.dumps(st))
        self.assertRegex(rep.get("message", ""), waiting)
        sid = waiting.search(rep["message"]).group(1)
        # the quota of sq (4 CPUs, all in use) keeps s3 in Cube's queue: it
        # never reaches Slurm
        sq.create("s3", dict(busy))
        deadline, st3 = time.time() + 5, {}
        while time.time() < deadline and "quota" not in st3.get("message", ""):
            time.sleep(0.1)
            st3 = sq.get("s3")["status"]
        self.assertEqual(st3["phase"], "Pending", json.dumps(st3))
        self.assertIn("quota", st3.get("message", ""), json.dumps(st3))
        self.assertEqual(len([j for j in self.cl.jobs() if j[3].startswith("cube:")
                              and j[1] in ("PENDING", "RUNNING")]), 3, self.cl.jobs())
        for a, n in ((sq, "s1"), (sq, "s2"), (ml, "q1"), (sq, "s3")):
            st = a.wait(n, timeout=40, cubed=c)["status"]
            self.assertEqual(st["phase"], "Succeeded", json.dumps(st))
            node = st["replicas"][0]["node"]
            self.assertIn(node, ("n1", "n2"), "the node Slurm chose is mirrored")
            self.assertIn("on " + node, a.log(n))
        # Slurm placed them: no --nodelist in slurm mode
        self.assertIn("ReqNodeList=(null)", self.cl.cmd("scontrol", "-o", "show", "job", sid))


if __name__ == "__main__":
    unittest.main(verbosity=2)
