"""Hostile Job and Project specs: a member who names the variables Cube
sets itself (CUBE_TOKEN, MASTER_ADDR ...), who sends environment names no
shell can hold ("", "A=B", a NUL), or a mount whose name climbs out
("../../etc"). Each is refused with 422 naming the field, and nothing is
stored. Runs on executor-sim."""
import os
import tempfile
import unittest

from cubetest import Cubed

SIM = {"pool": "default", "run_seconds": 1,
       "node_groups": [{"prefix": "n-", "count": 1, "cpu": "16", "memory": "64Gi"}]}
JOBS = "/api/v1/projects/lab/jobs"
# Every variable job_env.c sets for a replica or a distributed mode.
RESERVED = ["CUBE_API", "CUBE_PROJECT", "CUBE_JOB", "CUBE_REPLICA", "CUBE_REPLICAS",
            "CUBE_TOKEN", "CUBE_HOSTFILE", "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK",
            "NODE_RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "NPROC_PER_NODE", "TF_CONFIG",
            "OMPI_MCA_orte_default_hostfile", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"]


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-sec-jobs-")
    src = os.path.join(os.environ["CUBE_TEST_PLUGIN_DIR"], "executor-sim", "cube-executor-sim.so")
    os.symlink(src, os.path.join(d, "cube-executor-sim.so"))
    return d


def job(name, **spec):
    spec.setdefault("command", ["train"])
    return {"metadata": {"name": name}, "spec": spec}


class Admission(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"executor-sim": SIM}, plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.dev = cls.c.make_user("mallory")
        cls.c.make_project("lab", [("mallory", "dev")])

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def refused(self, r, field, name=None, path=JOBS):
        self.assertEqual(r.status, 422, r.body)
        self.assertEqual(r.json()["error"]["field"], field, r.body)
        if name:
            self.assertEqual(self.a.get(f"{path}/{name}").status, 404, f"{name} was stored")

    def test_reserved_environment_names(self):
        for i, var in enumerate(RESERVED):
            r = self.dev.request("POST", JOBS, job(f"env{i}", env={"SEED": "1", var: "x"}))
            self.refused(r, f"spec.env.{var}", f"env{i}")
            self.assertIn("reserved", r.json()["error"]["message"])
        r = self.dev.request("POST", JOBS, job("plain", env={"SEED": "1", "_A1": "",
                                                             "CUBE_MINE": "ok"}))
        self.assertEqual(r.status, 201, r.body)

    def test_environment_names_a_shell_can_hold(self):
        for i, (var, field) in enumerate([("", "spec.env."), ("A=B", "spec.env.A=B"),
                                          ("1ST", "spec.env.1ST"), ("A-B", "spec.env.A-B"),
                                          ("A B", "spec.env.A B"), ("É", "spec.env.É"),
                                          ("X" * 200, "spec.env." + "X" * 128)]):
            r = self.dev.request("POST", JOBS, job(f"name{i}", env={var: "v"}))
            self.refused(r, field, f"name{i}")
        # an escaped NUL would be cut by every C string: "A\u0000B" acting as "A";
        # the HTTP layer refuses it in any body with 400 naming where it is
        for name, env, field in (("nul", '{"A\\u0000B":"v"}', "spec.env"),
                                 ("nul2", '{"A":"v\\u0000w"}', "spec.env.A")):
            body = ('{"metadata":{"name":"%s"},"spec":{"command":["x"],"env":%s}}'
                    % (name, env))
            r = self.dev.request("POST", JOBS, body,
                                 headers={"Content-Type": "application/json"})
            self.assertEqual(r.status, 400, r.body)
            self.assertEqual(r.json()["error"]["field"], field, r.body)
            self.assertEqual(self.dev.get(f"{JOBS}/{name}").status, 404)
        # an escaped backslash before "u0000" is no NUL
        body = '{"metadata":{"name":"slash"},"spec":{"command":["printf","\\\\u0000"]}}'
        r = self.dev.request("POST", JOBS, body)
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(r.json()["spec"]["command"], ["printf", "\\u0000"])

    def test_mount_names_and_paths(self):
        cases = [({"name": "../../etc", "path": "/etc"}, "spec.mounts[0].name"),
                 ({"name": "data/x", "path": "/data"}, "spec.mounts[0].name"),
                 ({"name": "data", "path": "/data/../etc"}, "spec.mounts[0].path"),
                 ({"name": "data", "path": "/data/./x"}, "spec.mounts[0].path"),
                 ({"name": "data", "path": "relative"}, "spec.mounts[0].path")]
        for i, (m, field) in enumerate(cases):
            r = self.dev.request("POST", JOBS, job(f"mnt{i}", mounts=[m]))
            self.refused(r, field, f"mnt{i}")

    def test_project_defaults_follow_the_same_rules(self):
        base = "/api/v1/projects/lab"
        for env, field in (({"CUBE_TOKEN": "x"}, "spec.env.CUBE_TOKEN"),
                           ({"MASTER_PORT": "1"}, "spec.env.MASTER_PORT"),
                           ({"A=B": "x"}, "spec.env.A=B"), ({"": "x"}, "spec.env.")):
            r = self.a.request("PATCH", base, {"spec": {"env": env}})
            self.refused(r, field)
        for m, field in (({"name": "../../etc", "path": "/etc"}, "spec.mounts[0].name"),
                         ({"name": "data", "path": "/a/../b"}, "spec.mounts[0].path")):
            r = self.a.request("PATCH", base, {"spec": {"mounts": [m]}})
            self.refused(r, field)
        spec = self.a.get(base).json()["spec"]
        self.assertNotIn("env", spec)
        self.assertNotIn("mounts", spec)
        r = self.a.request("PATCH", base, {"spec": {"env": {"HF_HOME": "/cache"}}})
        self.assertEqual(r.status, 200, r.body)


if __name__ == "__main__":
    unittest.main(verbosity=2)
