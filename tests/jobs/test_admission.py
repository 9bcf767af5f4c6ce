"""What a first-time user meets when a Job is admitted, on executor-sim:
nothing is accepted and then ignored (an unknown pool, a pool the project
may not use, mounts, an image), a Job's spec cannot change once admitted
(labels can), the scheduler never places a Job in a pool its project lost,
the reason a Job waits is its status message, members watch their
project's Jobs, and deleting a Job that does not exist says 404."""
import http.client
import os
import socket
import tempfile
import threading
import time
import unittest

from cubetest import Cubed

SIM = {"pool": "default", "run_seconds": 1,
       "node_groups": [{"prefix": "n-", "count": 1, "cpu": "16", "memory": "64Gi"}]}
BASE = "/api/v1/projects/{}/jobs"


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-admission-plugins-")
    src = os.environ["CUBE_SIM_PLUGIN_DIR"]
    os.symlink(os.path.join(src, "cube-executor-sim.so"), os.path.join(d, "cube-executor-sim.so"))
    return d


def job(name, **spec):
    spec.setdefault("command", ["train"])
    return {"metadata": {"name": name}, "spec": spec}


class Admission(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"executor-sim": SIM}, plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.dev = cls.c.make_user("dana")
        cls.viewer = cls.c.make_user("vic")
        cls.outsider = cls.c.make_user("otto")
        cls.c.make_project("lab", [("dana", "dev"), ("vic", "viewer")])
        cls.c.make_project("elsewhere", [("otto", "creator")])

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def get(self, name, project="lab"):
        return self.a.get(f"{BASE.format(project)}/{name}").json()

    def wait(self, name, phases, project="lab", timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = self.get(name, project).get("status", {})
            if st.get("phase") in phases:
                return st
            time.sleep(0.05)
        self.fail(f"{name}: still {self.get(name, project).get('status')}")

    def refused(self, r, field):
        self.assertEqual(r.status, 422, r.body)
        self.assertEqual(r.json()["error"]["field"], field, r.body)

    def test_nothing_is_accepted_and_ignored(self):
        for i, (spec, field, says) in enumerate([
                ({"pool": "nope"}, "spec.pool", "no node serves pool"),
                ({"image": "python:3.12"}, "spec.image", "not supported"),
                ({"mounts": [{"name": "data", "path": "/data"}]}, "spec.mounts",
                 "not supported")]):
            r = self.dev.request("POST", BASE.format("lab"), job(f"ignored{i}", **spec))
            self.refused(r, field)
            self.assertIn(says, r.json()["error"]["message"])
            self.assertEqual(self.a.get(f"{BASE.format('lab')}/ignored{i}").status, 404)
        r = self.a.request("PATCH", "/api/v1/projects/lab", {"spec": {"mounts": [
            {"name": "data", "path": "/data", "source": "/srv/data"}]}})
        self.refused(r, "spec.mounts")

    def test_project_pools_are_enforced(self):
        self.c.make_project("pooled")
        r = self.a.request("PATCH", "/api/v1/projects/pooled", {"spec": {"pools": ["gpu"]}})
        self.assertEqual(r.status, 200, r.body)
        r = self.a.request("POST", BASE.format("pooled"), job("p1"))
        self.refused(r, "spec.pool")
        self.assertIn("may not use pool", r.json()["error"]["message"])
        r = self.a.request("PATCH", "/api/v1/projects/pooled", {"spec": {"pools": ["default"]}})
        self.assertEqual(r.status, 200, r.body)
        r = self.a.request("POST", BASE.format("pooled"), job("p1"))
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(self.wait("p1", {"Succeeded", "Failed"}, "pooled")["phase"], "Succeeded")

    def test_a_waiting_job_never_runs_in_a_pool_its_project_lost(self):
        self.c.make_project("narrow")
        r = self.a.request("PATCH", "/api/v1/projects/narrow", {"spec": {"quotas": {
            "default": {"max": {"cpu": "1"}}}}})
        self.assertEqual(r.status, 200, r.body)
        r = self.a.request("POST", BASE.format("narrow"), job("big", resources={"cpu": "2"}))
        self.assertEqual(r.status, 201, r.body)
        deadline = time.time() + 10
        while "waiting" not in self.get("big", "narrow").get("status", {}):
            self.assertLess(time.time(), deadline, self.get("big", "narrow"))
            time.sleep(0.05)
        st = self.get("big", "narrow")["status"]
        self.assertEqual(st["phase"], "Pending")
        self.assertIn("quota", st["waiting"])
        self.assertEqual(st["message"], st["waiting"], "the reason it waits is its message")
        columns = [k for k in self.a.get("/api/v1/kinds").json()["items"] if k["kind"] == "Job"]
        self.assertIn(".status.message", [c["jsonPath"] for c in columns[0]["printerColumns"]])
        # the quota goes (it would fit now) and so does the pool
        r = self.a.request("PATCH", "/api/v1/projects/narrow",
                           {"spec": {"quotas": None, "pools": ["other"]}})
        self.assertEqual(r.status, 200, r.body)
        st = self.wait("big", {"Failed", "Admitted", "Running", "Succeeded"}, "narrow")
        self.assertEqual((st["phase"], st["reason"]), ("Failed", "PoolNotAllowed"), st)
        self.assertNotIn("admitted", st)

    def test_spec_is_immutable_once_admitted(self):
        made = self.dev.request("POST", BASE.format("lab"), job("done")).json()
        self.wait("done", {"Succeeded"})
        url = f"{BASE.format('lab')}/done"
        cur = self.get("done")
        changed = {"metadata": {"name": "done"}, "spec": dict(cur["spec"], command=["other"])}
        r = self.dev.request("PUT", url, changed)
        self.refused(r, "spec.command")
        r = self.dev.request("PATCH", url, {"spec": {"replicas": 2}})
        self.refused(r, "spec.replicas")
        r = self.dev.request("PATCH", url, {"spec": {"env": {"SEED": "2"}}})
        self.refused(r, "spec.env")
        r = self.dev.request("PATCH", url, {"metadata": {"labels": {"kept": "yes"},
                                                         "annotations": {"note": "fine"}}})
        self.assertEqual(r.status, 200, r.body)
        r = self.dev.request("PUT", url, {"metadata": {"name": "done", "labels": {"k": "v"}},
                                          "spec": cur["spec"]})
        self.assertEqual(r.status, 200, r.body)
        now = self.get("done")
        self.assertEqual(now["metadata"]["labels"], {"k": "v"})
        self.assertEqual(now["metadata"]["generation"], made["metadata"]["generation"])
        self.assertEqual(now["spec"], cur["spec"])

    def watch_lines(self, client, project, until, timeout=5):
        """Reads a watch of project's Jobs until a line contains `until`."""
        conn = http.client.HTTPConnection("127.0.0.1", self.c.port, timeout=timeout)
        conn.request("GET", BASE.format(project) + "?watch=1", headers=client.headers)
        r = conn.getresponse()
        if r.status != 200:
            body = r.read().decode()
            conn.close()
            return r.status, body
        seen, deadline = [], time.time() + timeout
        try:
            while time.time() < deadline:
                line = r.fp.readline().decode()
                seen.append(line)
                if until in line:
                    break
        except socket.timeout:
            pass
        finally:
            conn.close()
        return 200, "".join(seen)

    def test_members_watch_their_project_kinds(self):
        out = {}
        t = threading.Thread(target=lambda: out.update(
            res=self.watch_lines(self.viewer, "lab", '"name":"watched"')))
        t.start()
        time.sleep(0.5)
        r = self.a.request("POST", BASE.format("elsewhere"), job("unseen"))
        self.assertEqual(r.status, 201, r.body)
        r = self.dev.request("POST", BASE.format("lab"), job("watched"))
        self.assertEqual(r.status, 201, r.body)
        t.join(10)
        status, text = out["res"]
        self.assertEqual(status, 200, text)
        self.assertIn('"name":"watched"', text)
        self.assertNotIn('"name":"unseen"', text, "a watch shows its own project only")
        status, text = self.watch_lines(self.outsider, "lab", "", timeout=2)
        self.assertEqual(status, 404, text)
        r = self.dev.get("/api/v1/projects?watch=1")
        self.assertEqual(r.status, 403, "Projects are listed item by item: no watch")

    def test_deleting_what_does_not_exist_is_404(self):
        for who in (self.dev, self.viewer):
            r = who.request("DELETE", f"{BASE.format('lab')}/ghost")
            self.assertEqual(r.status, 404, r.body)
            self.assertIn("jobs/ghost", r.json()["error"]["message"])
            r = who.request("PATCH", f"{BASE.format('lab')}/ghost", {"metadata": {}})
            self.assertEqual(r.status, 404, r.body)
        r = self.outsider.request("DELETE", f"{BASE.format('lab')}/ghost")
        self.assertEqual(r.status, 404)
        self.assertTrue(r.json()["error"]["message"].startswith('project "'), r.body)
        # someone else's Job that does exist: still 403 for a dev, and for a viewer
        r = self.a.request("POST", BASE.format("lab"), job("admins"))
        self.assertEqual(r.status, 201, r.body)
        for who in (self.dev, self.viewer):
            self.assertEqual(who.request("DELETE", f"{BASE.format('lab')}/admins").status, 403)


if __name__ == "__main__":
    unittest.main(verbosity=2)
