"""Integration: what `make run` starts, as a first-time user gets it.

cubed runs exactly as `make run` runs it: `build/core/cubed -c cube.yaml`
from the repository root (a relative config file, the repository's own
cube.yaml and conf.d, so a relative plugin_dir), with only a temporary data
dir (CUBE_DATA_DIR) and a free port (CUBE_LISTEN) set. A build dir other
than `build/` (e.g. the sanitizer build) is named by a relative
CUBE_PLUGIN_DIR. Then one pipeline runs a task of every built-in job
template, each with a small input: every task must start, load its script
through {{ template_dir }} and succeed.

Needs: custom-command and python-script only /usr/bin/python3; data-import
(sklearn's bundled iris), data-split, the sklearn-* trainers and
model-evaluate need python3-sklearn, python3-pandas and python3-matplotlib;
xgboost-train python3-xgboost; model-register registers the forest in the
models plugin (enabled by default) with the evaluation's metrics. Templates whose packages are missing are
left out, saying so; when none of them can run the test skips.
"""
import json
import os
import socket
import subprocess
import tempfile
import time
import unittest

from cubetest import ADMIN_PASSWORD, Cubed

ROOT = os.path.abspath(os.environ.get("CUBE_SOURCE_ROOT", "."))
BUILD = os.path.abspath(os.environ.get("CUBE_BUILD_ROOT", os.path.join(ROOT, "build")))
CUBED = os.path.abspath(os.environ.get("CUBED", os.path.join(BUILD, "core", "cubed")))
TEMPLATES = os.path.join(ROOT, "plugins", "pipeline", "templates")
PYTHON = "/usr/bin/python3"
P = "/api/v1/projects/public"
DONE = ("Succeeded", "Failed", "Stopped")

TRAINERS = ["sklearn-lr", "sklearn-random-forest", "sklearn-gbdt", "sklearn-decision-tree",
            "sklearn-knn", "sklearn-kmeans", "sklearn-adaboost", "sklearn-naive-bayes",
            "sklearn-svm", "xgboost-train"]


def has_modules(*mods):
    code = "import " + ", ".join(mods)
    return subprocess.run([PYTHON, "-c", code], capture_output=True).returncode == 0


def builtin_names():
    return sorted(d for d in os.listdir(TEMPLATES)
                  if os.path.isfile(os.path.join(TEMPLATES, d, "template.json")))


def tasks_for(names):
    """A task of every template in names, each with a small input, and the
    templates left out (with why)."""
    tasks = [
        {"name": "command", "template": "custom-command",
         "args": {"--command": 'echo greeting=hello >> "$CUBE_OUTPUTS"'}},
        {"name": "script", "template": "python-script",
         "args": {"--code": "import json, os\n"
                            "json.dump({'answer': 42}, open(os.environ['CUBE_OUTPUTS'], 'w'))"}},
    ]
    # hpsearch (enabled by default): a 4-trial grid whose trials import the
    # SDK's nni from the default PYTHONPATH, under make run's command line.
    tasks.append({"name": "search", "template": "hyperparam-search",
                  "args": {"--search_space": {"x": {"_type": "choice", "_value": [1, 2, 3, 4]}},
                           "--command": "python3 -c \"import nni; p = nni.get_next_parameter(); "
                                        "nni.report_final_result(-(p['x'] - 3) ** 2)\"",
                           "--tuner": "grid", "--max_trials": 4, "--concurrency": 2,
                           "--trial_cpu": "100m", "--trial_memory": "128Mi"}})
    left_out = {}
    sk = has_modules("sklearn", "pandas", "matplotlib")
    if not sk:
        for n in ["data-import", "data-split", "model-evaluate"] + TRAINERS:
            left_out[n] = "needs python3-sklearn, python3-pandas, python3-matplotlib"
        return tasks, left_out
    tasks += [
        {"name": "import", "template": "data-import",
         "args": {"--source": "sklearn", "--sklearn_dataset": "iris",
                  "--save_path": "datasets/iris.csv"}},
        {"name": "split", "template": "data-split", "upstream": ["import"],
         "args": {"--input_csv": "{{ tasks.import.outputs.path }}"}},
    ]
    xgb = has_modules("xgboost")
    for t in TRAINERS:
        if t == "xgboost-train" and not xgb:
            left_out[t] = "needs python3-xgboost"
            continue
        tasks.append({"name": t, "template": t, "upstream": ["split"],
                      "args": {"--train_csv": "{{ tasks.split.outputs.train_csv }}",
                               "--label_column": "label",
                               "--model_path": f"models/{t}.joblib"}})
    tasks.append({"name": "evaluate", "template": "model-evaluate",
                  "upstream": ["sklearn-random-forest", "split"],
                  "args": {"--model_path": "{{ tasks.sklearn-random-forest.outputs.model_path }}",
                           "--model_sha256":
                               "{{ tasks.sklearn-random-forest.outputs.model_sha256 }}",
                           "--test_csv": "{{ tasks.split.outputs.test_csv }}"}})
    # models (enabled by default): the forest registered as a Model version
    tasks.append({"name": "register", "template": "model-register",
                  "upstream": ["sklearn-random-forest", "evaluate"],
                  "args": {"--model_name": "iris-forest",
                           "--model_path": "{{ tasks.sklearn-random-forest.outputs.model_path }}",
                           "--model_sha256":
                               "{{ tasks.sklearn-random-forest.outputs.model_sha256 }}",
                           "--metrics_file": "{{ tasks.evaluate.outputs.metrics_path }}",
                           "--framework": "sklearn", "--stage": "staging"}})
    missing = set(names) - {t["template"] for t in tasks} - set(left_out)
    assert not missing, f"built-in templates this test does not run: {sorted(missing)}"
    return tasks, left_out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MakeRun(unittest.TestCase):
    """cubed started like `make run` (cwd: the repository root)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="cube-quickstart-")
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUBE_")}
        env.update({"CUBE_DATA_DIR": os.path.join(self.tmp.name, "var"),
                    "CUBE_LISTEN": f"127.0.0.1:{port}",
                    # cube.yaml leaves apps_listen at port + 1, which another
                    # test may hold: a free one of its own.
                    "CUBE_APPS_LISTEN": f"127.0.0.1:{free_port()}",
                    "CUBE_ADMIN_PASSWORD": ADMIN_PASSWORD})
        if BUILD != os.path.join(ROOT, "build"):
            env["CUBE_PLUGIN_DIR"] = os.path.relpath(os.path.join(BUILD, "plugins"), ROOT)
        # A Cubed that is not started: its request and login helpers, aimed
        # at the port of the cubed started below.
        self.c = Cubed(wait=False)
        self.c.port = port
        self.log_path = os.path.join(self.tmp.name, "cubed.log")
        self.log = open(self.log_path, "w")
        self.argv = [os.path.relpath(CUBED, ROOT), "-c", "cube.yaml"]
        self.proc = subprocess.Popen(self.argv, cwd=ROOT, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while True:
            self.assertIsNone(self.proc.poll(), "cubed exited:\n" + self.output())
            try:
                if self.c.get("/readyz").status == 200:
                    break
            except OSError:
                pass
            self.assertLess(time.time(), deadline, "cubed not ready:\n" + self.output())
            time.sleep(0.1)

    def tearDown(self):
        self.proc.terminate()
        try:
            rc = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.log.close()
        out = self.output()
        self.c.tmp.cleanup()
        self.tmp.cleanup()
        for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"):
            self.assertNotIn(marker, out, out[-4000:])
        self.assertEqual(rc, 0, out[-4000:])

    def output(self):
        with open(self.log_path) as f:
            return f.read()

    def test_every_builtin_template_runs(self):
        a = self.c.admin()
        names = builtin_names()
        self.assertGreater(len(names), 10)
        items = a.get("/api/v1/jobtemplates?labelSelector=builtin%3Dtrue").json()["items"]
        dirs = {i["metadata"]["name"]: i["metadata"]["annotations"]
                ["pipeline.cube.dev/template-dir"] for i in items}
        self.assertEqual(sorted(dirs), names, self.output()[-3000:])
        for n, d in dirs.items():
            self.assertTrue(os.path.isabs(d), f"{n}: template dir {d} is relative")
            self.assertTrue(os.path.isfile(os.path.join(d, "template.json")), d)

        tasks, left_out = tasks_for(names)
        for n, why in sorted(left_out.items()):
            print(f"quickstart: {n} not run: {why}")
        r = a.request("POST", P + "/pipelines", {"metadata": {"name": "quickstart"},
                                                  "spec": {"parallelism": 3, "tasks": tasks}})
        self.assertEqual(r.status, 201, r.body)
        r = a.request("POST", P + "/pipelines/quickstart/run", {})
        self.assertEqual(r.status, 201, r.body)
        run = r.json()["metadata"]["name"]
        deadline = time.time() + 420
        while True:
            st = a.get(f"{P}/pipelineruns/{run}").json().get("status", {})
            if st.get("phase") in DONE:
                break
            self.assertLess(time.time(), deadline, json.dumps(st))
            time.sleep(0.5)
        phases = {t: v.get("phase") for t, v in st.get("tasks", {}).items()}
        failed = {t: a.get(f"{P}/pipelineruns/{run}/tasks/{t}/logs").body[-1200:]
                  for t, ph in phases.items() if ph != "Succeeded"}
        self.assertEqual(failed, {}, json.dumps(st, indent=1))
        self.assertEqual(len(phases), len(tasks))
        t = st["tasks"]
        self.assertEqual(t["command"]["outputs"], {"greeting": "hello"})
        self.assertEqual(t["script"]["outputs"], {"answer": 42})
        self.assertEqual(float(t["search"]["outputs"]["best_x"]), 3)
        if "evaluate" in t:
            self.assertGreater(float(t["evaluate"]["outputs"]["accuracy"]), 0.8)
        if "register" in t:
            models = a.get(P + "/models?labelSelector=model%3Diris-forest").json()["items"]
            self.assertEqual(len(models), 1, models)
            m = models[0]
            self.assertEqual((m["status"].get("phase"), m["status"].get("stage")),
                             ("Ready", "staging"), m["status"])
            self.assertGreater(float(m["spec"]["metrics"]["accuracy"]), 0.8, m["spec"])
            self.assertEqual(m["spec"]["source"]["kind"], "PipelineRun", m["spec"])
        self.rerun_with_relative_snapshot(a, run)

    def wait_done(self, a, run, timeout=120):
        deadline = time.time() + timeout
        while True:
            st = a.get(f"{P}/pipelineruns/{run}").json().get("status", {})
            if st.get("phase") in DONE:
                return st
            self.assertLess(time.time(), deadline, json.dumps(st))
            time.sleep(0.2)

    def rerun_with_relative_snapshot(self, a, run):
        """A run made by a cubed that loaded the pack through the relative
        plugin_dir kept a relative template dir in its snapshot; a rerun
        of it must still find the template's script."""
        for _ in range(10):   # the controller may still write the run's status: get and retry
            obj = a.get(f"{P}/pipelineruns/{run}").json()
            for task in obj["spec"]["tasks"]:
                if task["name"] in ("command", "script"):
                    task["templateDir"] = os.path.relpath(task["templateDir"], ROOT)
                    self.assertFalse(os.path.isabs(task["templateDir"]))
            obj.pop("status", None)
            r = a.request("PUT", f"{P}/pipelineruns/{run}", obj)
            if r.status != 409:
                break
            time.sleep(0.2)
        self.assertEqual(r.status, 200, r.body)
        r = a.request("POST", f"{P}/pipelineruns/{run}/rerun", {"from": "command"})
        self.assertEqual(r.status, 200, r.body)
        st = self.wait_done(a, run)
        cmd = st["tasks"]["command"]
        log = a.get(f"{P}/pipelineruns/{run}/tasks/command/logs").body[-1200:]
        self.assertEqual((cmd["phase"], cmd.get("rerun")), ("Succeeded", 1), log)
        self.assertEqual(cmd["outputs"], {"greeting": "hello"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
