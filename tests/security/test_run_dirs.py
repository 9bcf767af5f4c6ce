"""Hostile: one dev of a project against another dev's pipeline runs, on
executor-local (each dev's tasks run as an OS account of their own).

Dev A runs import -> train (joblib model) -> evaluate. Dev B, through Jobs
of B's own (B's OS account, in the same project group), then tries to
replace, change, remove or rename A's model, outputs and directories, and
to add files to them: every attempt fails, and everything in A's run
directory is A's account's and writable by it alone. B also makes
directories first under the names of A's next two (scheduled, so
predictable) runs, one a real directory open to everyone and one a link
to a directory of A's: A's tasks refuse to run in either. Last, A's model
file is replaced behind A's back (as root here: more than any member can)
with a pickle that would create a file when loaded, and A's evaluate task
is run again: it refuses to load the model (its sha256 is not the one the
training task recorded) and the pickle never runs."""
import grp
import json
import os
import pickle
import pwd
import stat
import subprocess
import tempfile
import time
import unittest

from cubetest import Cubed

PY = "/usr/bin/python3"
T = "/api/v1/projects/rdirs"
DONE = ("Succeeded", "Failed", "Stopped")
DEV_A, DEV_B = "rdira", "rdirb"
ACCOUNT = "cube-"   # executor-local's default user_prefix

# What B tries against A's run: each attempt's outcome ("denied" or what it
# managed to do) as one JSON line. argv: run dir, model, outputs file.
ATTACK = r"""
import json, os, sys
run, model, outputs = sys.argv[1:4]
runs = os.path.dirname(run)
mine = os.path.join(os.path.dirname(runs), "evil-" + str(os.getpid()))
with open(mine, "wb") as f:
    f.write(b"not a model")
tries = {
    "write the model": lambda: open(model, "r+b").write(b"x"),
    "replace the model": lambda: os.replace(mine, model),
    "remove the model": lambda: os.unlink(model),
    "chmod the model": lambda: os.chmod(model, 0o666),
    "add a file to work": lambda: open(os.path.join(run, "work", "b-was-here"), "w"),
    "add a model": lambda: open(os.path.join(os.path.dirname(model), "b.joblib"), "w"),
    "write the outputs": lambda: open(outputs, "a").write("model_sha256=0\n"),
    "rename the run": lambda: os.rename(run, run + "-moved"),
    "rename pipeline-runs": lambda: os.rename(runs, runs + "-moved"),
    "rename work": lambda: os.rename(os.path.join(run, "work"), os.path.join(run, "w2")),
}
out = {"uid": os.getuid()}
for name, attempt in tries.items():
    try:
        attempt()
        out[name] = "DONE"
    except PermissionError:
        out[name] = "denied"
    except OSError as e:
        out[name] = "error %s" % e
if os.path.exists(mine):
    os.unlink(mine)
print(json.dumps(out))
"""

# B's directories under the names of A's next runs.
SQUAT = r"""
import os, sys
runs, first, second, a_run = sys.argv[1:5]
for sub in ("work", "results/t", "outputs"):
    os.makedirs(os.path.join(runs, first, sub))
for dirpath, dirs, files in os.walk(os.path.join(runs, first)):
    os.chmod(dirpath, 0o777)
os.symlink(a_run, os.path.join(runs, second))
print("squatted")
"""


class Evil:
    """Unpickling it creates `marker`: code that the model file runs."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def plugin_dir():
    built = os.environ["CUBE_TEST_PLUGIN_DIR"]
    d = tempfile.mkdtemp(prefix="cube-rundirs-plugins-")
    for sub, name in (("executor-local", "cube-executor-local.so"),
                      ("pipeline", "cube-pipeline.so")):
        os.symlink(os.path.join(built, sub, name), os.path.join(d, name))
    return d


@unittest.skipUnless(os.geteuid() == 0, "per-user accounts need cubed to run as root")
class RunDirs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        pack = os.path.join(os.environ["CUBE_TEST_PLUGIN_DIR"], "pipeline", "templates")
        cls.c = Cubed(plugins={"executor-local": {"poll_ms": 10},
                               "pipeline": {"templates_dir": pack}},
                      plugin_dir=plugin_dir())
        cls.a = cls.c.make_user(DEV_A)
        cls.b = cls.c.make_user(DEV_B)
        cls.c.make_project("rdirs", [(DEV_A, "dev"), (DEV_B, "dev")])
        cls.files = os.path.join(cls.c.dir, "var", "projects", "rdirs")

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        for user in (DEV_A, DEV_B):
            subprocess.run(["userdel", ACCOUNT + user], capture_output=True)
        subprocess.run(["groupdel", ACCOUNT + "p-rdirs"], capture_output=True)

    def wait(self, client, path, timeout=240):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = client.get(path).json().get("status", {})
            if st.get("phase") in DONE + ("Cancelled",):
                return st
            time.sleep(0.2)
        self.fail(f"{path} did not finish: {st}\n" + self.c.output()[-3000:])

    def b_job(self, name, script, *args):
        """Runs a Job of B's; its log."""
        r = self.b.request("POST", T + "/jobs", {"metadata": {"name": name}, "spec": {
            "command": [PY, "-c", script, *args],
            "resources": {"cpu": "500m", "memory": "256Mi"}}})
        self.assertEqual(r.status, 201, r.body)
        st = self.wait(self.b, f"{T}/jobs/{name}")
        log = self.b.get(f"{T}/jobs/{name}/logs").body
        self.assertEqual(st["phase"], "Succeeded", f"{st}\n{log}")
        return log

    def task_log(self, run, task):
        return self.a.get(f"{T}/pipelineruns/{run}/tasks/{task}/logs").body

    def assert_private(self, top, uid):
        """Everything under top is uid's and writable by nobody else."""
        for dirpath, dirs, files in os.walk(top):
            for path in [dirpath] + [os.path.join(dirpath, f) for f in files]:
                st = os.lstat(path)
                self.assertEqual(st.st_uid, uid, f"{path} is the run account's")
                self.assertFalse(st.st_mode & 0o022, f"{path}: {stat.filemode(st.st_mode)}")

    def test_another_dev_cannot_change_a_run_nor_get_a_pickle_loaded(self):
        r = self.a.request("POST", T + "/pipelines", {"metadata": {"name": "ml"}, "spec": {
            "tasks": [
                {"name": "load", "template": "data-import",
                 "args": {"--source": "sklearn", "--sklearn_dataset": "iris"}},
                {"name": "train", "template": "sklearn-lr", "upstream": ["load"],
                 "args": {"--train_csv": "{{ tasks.load.outputs.path }}"}},
                {"name": "evaluate", "template": "model-evaluate", "upstream": ["train"],
                 "args": {"--model_path": "{{ tasks.train.outputs.model_path }}",
                          "--model_sha256": "{{ tasks.train.outputs.model_sha256 }}",
                          "--test_csv": "{{ tasks.load.outputs.path }}"}}]}})
        self.assertEqual(r.status, 201, r.body)
        r = self.a.request("POST", T + "/pipelines/ml/run", {})
        self.assertEqual(r.status, 201, r.body)
        run = r.json()["metadata"]["name"]
        st = self.wait(self.a, f"{T}/pipelineruns/{run}")
        self.assertEqual(st["phase"], "Succeeded",
                         json.dumps(st) + "".join(self.task_log(run, t) for t in st["tasks"]))
        trained = st["tasks"]["train"]["outputs"]
        model = trained["model_path"]
        with open(model, "rb") as f:
            before = f.read()
        # the directories: pipeline-runs root's and sticky, the run A's alone
        a_uid = pwd.getpwnam(ACCOUNT + DEV_A).pw_uid
        runs = os.path.join(self.files, "pipeline-runs")
        rs = os.lstat(runs)
        self.assertEqual((rs.st_uid, bool(rs.st_mode & stat.S_ISVTX)), (0, True),
                         stat.filemode(rs.st_mode))
        self.assertTrue(os.lstat(self.files).st_mode & stat.S_ISVTX, "the project dir is sticky")
        run_dir = os.path.join(runs, run)
        self.assertTrue(model.startswith(run_dir + "/"), model)
        self.assert_private(run_dir, a_uid)

        # B, as B's own account, against A's run
        log = self.b_job("peek", ATTACK, run_dir, model, os.path.join(run_dir, "outputs", "train"))
        out = json.loads(log.strip().splitlines()[-1])
        self.assertEqual(out.pop("uid"), pwd.getpwnam(ACCOUNT + DEV_B).pw_uid)
        self.assertIn(pwd.getpwnam(ACCOUNT + DEV_B).pw_name,
                      grp.getgrnam(ACCOUNT + "p-rdirs").gr_mem, "B is in the project group")
        self.assertEqual(out, {k: "denied" for k in out}, log)
        with open(model, "rb") as f:
            self.assertEqual(f.read(), before, "A's model is as A's task wrote it")
        self.assert_private(run_dir, a_uid)

        # B's directories first under the names of A's next runs
        r = self.a.request("POST", T + "/pipelines", {"metadata": {"name": "nightly"}, "spec": {
            "schedule": "0 0 * * *", "paused": True, "tasks": [
                {"name": "t", "command": ["/bin/sh", "-c", 'echo a-secret > "$CUBE_RUN_DIR/from-a"; '
                                          'echo ok=1 > "$CUBE_OUTPUTS"']}]}})
        self.assertEqual(r.status, 201, r.body)
        first, second = "nightly-202601010000", "nightly-202601020000"
        self.assertIn("squatted", self.b_job("squat", SQUAT, runs, first, second, run_dir))
        r = self.a.request("POST", T + "/pipelines/nightly/backfill",
                           {"start": "2026-01-01", "end": "2026-01-02"})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(sorted(r.json()["created"]), [first, second], r.body)
        for _ in range(10):   # unpause (the controller writes meanwhile: 409, retry)
            obj = self.a.get(T + "/pipelines/nightly").json()
            obj["spec"]["paused"] = False
            if self.a.request("PUT", T + "/pipelines/nightly", obj).status == 200:
                break
        for name in (first, second):
            st = self.wait(self.a, f"{T}/pipelineruns/{name}")
            self.assertEqual(st["phase"], "Failed", json.dumps(st))
            self.assertIn("is not a directory of this task's account", self.task_log(name, "t"))
            self.assertNotIn("outputs", st["tasks"]["t"])
        for where in (os.path.join(runs, first, "work"), os.path.join(run_dir, "work")):
            self.assertFalse(os.path.exists(os.path.join(where, "from-a")),
                             f"A's task wrote nothing in {where}")

        # A's model replaced behind A's back: its evaluate refuses to load it
        marker = os.path.join(run_dir, "work", "pwned")
        with open(model, "wb") as f:
            pickle.dump(Evil(marker), f)
        r = self.a.request("POST", f"{T}/pipelineruns/{run}/rerun", {"from": "evaluate"})
        self.assertEqual(r.status, 200, r.body)
        st = self.wait(self.a, f"{T}/pipelineruns/{run}")
        self.assertEqual(st["tasks"]["evaluate"]["phase"], "Failed", json.dumps(st))
        log = self.task_log(run, "evaluate")
        self.assertIn("refusing to load it", log)
        self.assertIn(trained["model_sha256"], log)
        self.assertFalse(os.path.exists(marker), "the pickle never ran")


if __name__ == "__main__":
    unittest.main()
