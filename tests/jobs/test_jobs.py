"""Jobs through a running cubed on executor-sim (16 simulated GPUs on two
nodes): the lifecycle and status, bad specs refused naming the field,
exit codes, retries with back-off, reasons such as OOMKilled, stop while
running and while pending, quotas with the reason a job waits, priority
preemption and requeue, and a kill -9 of cubed with running jobs."""
import os
import signal
import tempfile
import time
import unittest

from cubetest import Cubed

SIM = {"pool": "default", "run_seconds": 1,
       "node_groups": [{"prefix": "h200-", "count": 2, "cpu": "64", "memory": "512Gi",
                        "devices": {"resource": "nvidia.com/gpu", "count": 8,
                                    "model": "H200", "memory": "141Gi", "domains": 2}}]}
BASE = "/api/v1/projects/{}/jobs"


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-jobs-plugins-")
    src = os.environ["CUBE_SIM_PLUGIN_DIR"]
    os.symlink(os.path.join(src, "cube-executor-sim.so"), os.path.join(d, "cube-executor-sim.so"))
    return d


def job(name, command=("train",), **spec):
    spec.setdefault("command", list(command))
    return {"metadata": {"name": name}, "spec": spec}


class Jobs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"executor-sim": SIM}, plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.c.make_project("team")

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def create(self, body, project="team", who=None, status=201):
        r = (who or self.a).request("POST", BASE.format(project), body)
        self.assertEqual(r.status, status, r.body)
        if status == 201:   # whatever happens, free the cluster for the next test
            self.addCleanup(self.a.request, "POST",
                            f"{BASE.format(project)}/{body['metadata']['name']}/stop",
                            {"graceSeconds": 0})
        return r.json()

    def get(self, name, project="team"):
        return self.a.get(f"{BASE.format(project)}/{name}").json()

    def wait(self, name, phases, project="team", timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = self.get(name, project).get("status", {})
            if st.get("phase") in phases:
                return st
            time.sleep(0.05)
        log = [l for l in self.c.output().splitlines() if "[access]" not in l][-40:]
        self.fail(f"{name}: still {self.get(name, project).get('status')} after {timeout}s\n"
                  + "\n".join(log))

    def test_lifecycle_and_status(self):
        self.create(job("ddp", replicas=2, distributed="pytorch",
                        resources={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": 4}))
        st = self.wait("ddp", {"Succeeded", "Failed"})
        self.assertEqual(st["phase"], "Succeeded", st)
        for key in ("queued", "admitted", "started", "finished"):
            self.assertIn(key, st)
        self.assertEqual(st["attempts"], 1)
        self.assertEqual([r["exitCode"] for r in st["replicas"]], [0, 0])
        for r in st["replicas"]:
            self.assertEqual(len(r["devices"]), 4)
            self.assertTrue(r["node"].startswith("h200-"))
        log = self.a.get(f"{BASE.format('team')}/ddp/logs?replica=1").body
        self.assertIn("sim: started on", log)
        reasons = [e["reason"] for e in self.a.get(f"{BASE.format('team')}/ddp/events")
                   .json()["items"]]
        self.assertIn("Started", reasons)

    def test_bad_specs_name_the_field(self):
        cases = [({"replicas": 0}, "spec.replicas"),
                 ({"resources": {"cpu": "-1"}}, "spec.resources.cpu"),
                 ({"resources": {"cpu": "2x"}}, "spec.resources.cpu"),
                 ({"resources": {"memory": "4GB"}}, "spec.resources.memory"),
                 ({"resources": {"vendor.com/thing": 1}}, "spec.resources.vendor.com/thing"),
                 ({"resources": {"nvidia.com/gpu": 1.5}}, "spec.resources.nvidia.com/gpu"),
                 ({"resources": {"memory": "8Ti"}}, "spec.resources"),
                 ({"priority": "urgent"}, "spec.priority"),
                 ({"command": []}, "spec.command")]
        for i, (spec, field) in enumerate(cases):
            body = job(f"bad{i}", **spec)
            r = self.a.request("POST", BASE.format("team"), body)
            self.assertEqual(r.status, 422, f"{spec}: {r.body}")
            self.assertEqual(r.json()["error"]["field"], field, spec)
            self.assertEqual(self.a.get(f"{BASE.format('team')}/bad{i}").status, 404)

    def test_exit_code_retries_and_reasons(self):
        self.create(job("flaky", env={"SIM_EXIT_CODE": "3"}, retries={"limit": 1,
                                                                  "backoffSeconds": 0}))
        st = self.wait("flaky", {"Failed", "Succeeded"})
        self.assertEqual((st["phase"], st["reason"], st["attempts"]), ("Failed", "Error", 2))
        self.assertEqual(st["replicas"][0]["exitCode"], 3)
        self.create(job("oom", env={"SIM_EXIT_REASON": "OOMKilled", "SIM_EXIT_CODE": "137"}))
        st = self.wait("oom", {"Failed", "Succeeded"})
        self.assertEqual((st["phase"], st["reason"]), ("Failed", "OOMKilled"))

    def test_stop_running_and_pending(self):
        self.create(job("long", env={"SIM_RUN_SECONDS": "120"},
                        resources={"nvidia.com/gpu": 1}))
        self.wait("long", {"Running"})
        r = self.a.request("POST", f"{BASE.format('team')}/long/stop", {"graceSeconds": 1})
        self.assertEqual(r.status, 200, r.body)
        st = self.wait("long", {"Cancelled", "Failed", "Succeeded"})
        self.assertEqual((st["phase"], st["reason"]), ("Cancelled", "Stopped"))
        self.assertEqual(st["replicas"][0]["reason"], "Stopped")
        r = self.a.request("POST", f"{BASE.format('team')}/long/stop", {"graceSeconds": -1})
        self.assertEqual(r.status, 400)

    def test_stop_requested_through_the_status(self):
        # what a Job's owner (a plugin) does: status.stopRequested on the version read
        self.create(job("owned", env={"SIM_RUN_SECONDS": "120"},
                        resources={"nvidia.com/gpu": 1}))
        self.wait("owned", {"Running"})
        cur = self.get("owned")
        status = dict(cur["status"], stopRequested=True, stopGraceSeconds=1)
        r = self.a.request("PUT", f"{BASE.format('team')}/owned/status",
                           {"metadata": cur["metadata"], "status": status})
        self.assertEqual(r.status, 200, r.body)
        st = self.wait("owned", {"Cancelled", "Failed", "Succeeded"})
        self.assertEqual((st["phase"], st["reason"]), ("Cancelled", "Stopped"), st)
        self.assertEqual(st["replicas"][0]["reason"], "Stopped")
        # a Job stopped so before it ran is Cancelled and never admitted
        self.c.make_project("stopq")
        r = self.a.request("PATCH", "/api/v1/projects/stopq", {"spec": {"quotas": {
            "default": {"max": {"nvidia.com/gpu": 1}}}}})
        self.assertEqual(r.status, 200, r.body)
        long = {"SIM_RUN_SECONDS": "60"}
        self.create(job("holder", env=long, resources={"nvidia.com/gpu": 1}), project="stopq")
        self.wait("holder", {"Running"}, project="stopq")
        self.create(job("blocked", env=long, resources={"nvidia.com/gpu": 1}), project="stopq")
        deadline = time.time() + 10
        while self.get("blocked", "stopq").get("status", {}).get("phase") != "Pending":
            self.assertLess(time.time(), deadline, self.get("blocked", "stopq"))
            time.sleep(0.05)
        cur = self.get("blocked", "stopq")
        r = self.a.request("PUT", f"{BASE.format('stopq')}/blocked/status", {
            "metadata": cur["metadata"], "status": dict(cur["status"], stopRequested=True)})
        self.assertEqual(r.status, 200, r.body)
        st = self.wait("blocked", {"Cancelled", "Failed", "Succeeded"}, project="stopq")
        self.assertEqual((st["phase"], st["reason"], st["message"]),
                         ("Cancelled", "Stopped", "stopped before it ran"), st)

    def test_quota_wait_reason(self):
        self.c.make_project("capped")
        r = self.a.request("PATCH", "/api/v1/projects/capped", {"spec": {"quotas": {
            "default": {"max": {"nvidia.com/gpu": 4}}}}})
        self.assertEqual(r.status, 200, r.body)
        long = {"SIM_RUN_SECONDS": "60"}
        self.create(job("q1", env=long, resources={"nvidia.com/gpu": 4}), project="capped")
        self.wait("q1", {"Running"}, project="capped")
        self.create(job("q2", env=long, resources={"nvidia.com/gpu": 2}), project="capped")
        deadline = time.time() + 10
        while time.time() < deadline and \
                "waiting" not in self.get("q2", "capped").get("status", {}):
            time.sleep(0.1)
        st = self.get("q2", "capped")["status"]
        self.assertEqual(st["phase"], "Pending")
        self.assertIn("quota", st["waiting"])
        self.assertIn("nvidia.com/gpu", st["waiting"])
        self.assertGreaterEqual(st["queuePosition"], 1)
        for n in ("q1", "q2"):
            self.a.request("POST", f"{BASE.format('capped')}/{n}/stop", {"graceSeconds": 0})
        st = self.wait("q2", {"Cancelled"}, project="capped")

    def test_priority_preempts_and_victim_requeues(self):
        self.c.make_project("busy")
        long = {"SIM_RUN_SECONDS": "120"}
        for i in range(4):
            self.create(job(f"low{i}", env=long, priority="low",
                            resources={"nvidia.com/gpu": 4}), project="busy")
        for i in range(4):
            self.wait(f"low{i}", {"Running"}, project="busy")
        self.create(job("urgent", priority="high", resources={"nvidia.com/gpu": 4}),
                    project="busy")
        st = self.wait("urgent", {"Succeeded"}, project="busy", timeout=30)
        self.assertEqual(st["attempts"], 1)
        preempted = []
        for i in range(4):
            events = self.a.get(f"{BASE.format('busy')}/low{i}/events").json()["items"]
            if "Preempted" in [e["reason"] for e in events]:
                preempted.append(f"low{i}")
        self.assertEqual(len(preempted), 1, "exactly one low job made room")
        urgent_events = [e["reason"] for e in self.a.get(f"{BASE.format('busy')}/urgent/events")
                         .json()["items"]]
        self.assertIn("Preempting", urgent_events)
        # the victim went back to the queue and runs again once there is room
        st = self.wait(preempted[0], {"Running"}, project="busy")
        self.assertEqual(st["attempts"], 2)

    def test_roles(self):
        viewer = self.c.make_user("jv")
        dev = self.c.make_user("jd")
        dev2 = self.c.make_user("jd2")
        self.c.make_project("roles", [("jv", "viewer"), ("jd", "dev"), ("jd2", "dev")])
        self.create(job("v", env={"SIM_RUN_SECONDS": "60"}), project="roles", who=viewer,
                    status=403)
        made = self.create(job("mine", env={"SIM_RUN_SECONDS": "60"}), project="roles", who=dev)
        self.assertEqual(made["metadata"]["owner"], "jd")
        self.wait("mine", {"Running"}, project="roles")
        r = dev2.request("POST", f"{BASE.format('roles')}/mine/stop")
        self.assertEqual(r.status, 403, "a dev stops only their own jobs")
        r = dev.request("POST", f"{BASE.format('roles')}/mine/stop", {"graceSeconds": 0})
        self.assertEqual(r.status, 200, r.body)
        self.wait("mine", {"Cancelled"}, project="roles")


class Restart(unittest.TestCase):
    def test_kill_9_keeps_running_jobs(self):
        c = Cubed(plugins={"executor-sim": SIM}, plugin_dir=plugin_dir())
        try:
            a = c.admin()
            for i in range(3):
                r = a.request("POST", BASE.format("public"),
                              job(f"r{i}", env={"SIM_RUN_SECONDS": "4"},
                                  resources={"nvidia.com/gpu": 4}))
                self.assertEqual(r.status, 201, r.body)
            deadline = time.time() + 10
            while time.time() < deadline and any(
                    a.get(f"{BASE.format('public')}/r{i}").json().get("status", {})
                    .get("phase") != "Running" for i in range(3)):
                time.sleep(0.05)
            c.proc.send_signal(signal.SIGKILL)
            c.proc.wait()
            c.log.close()
            c.start()
            a = c.login("admin", c.admin_password)
            phases = [a.get(f"{BASE.format('public')}/r{i}").json()["status"]["phase"]
                      for i in range(3)]
            self.assertEqual(phases, ["Running"] * 3, "adopted after the restart")
            deadline = time.time() + 15
            while time.time() < deadline:
                phases = [a.get(f"{BASE.format('public')}/r{i}").json()["status"]["phase"]
                          for i in range(3)]
                if phases == ["Succeeded"] * 3:
                    break
                time.sleep(0.1)
            self.assertEqual(phases, ["Succeeded"] * 3)
        finally:
            c.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
