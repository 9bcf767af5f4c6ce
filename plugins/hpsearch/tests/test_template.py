"""The built-in job template hyperparam-search (plugins/pipeline/templates)
as a pipeline task, through a running cubed with the pipeline, hpsearch and
executor-local plugins: the task runs an Experiment with its run owner's
credentials, waits for it and outputs the best parameters, which the next
task reads as {{ tasks.search.outputs.best_x }}; a search space the
Experiment refuses fails the task with the field named."""
import json
import os
import tempfile
import time
import unittest

from cubetest import Cubed

P = "/api/v1/projects/lab"
DONE = ("Succeeded", "Failed", "Stopped")
TRIAL = ("python3 -c \"import nni; p = nni.get_next_parameter(); "
         "nni.report_final_result(-(p['x'] - 0.3) ** 2 - (0 if p['k'] == 'b' else 1))\"")


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-hpsearch-template-plugins-")
    for name in ("executor-local", "pipeline", "hpsearch"):
        os.symlink(os.path.join(os.environ["CUBE_BUILD_PLUGINS"], name), os.path.join(d, name))
    return d


class HyperparamSearchTemplate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"executor-local": None, "pipeline": None, "hpsearch": None},
                      plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.dev = cls.c.make_user("dana")
        cls.c.make_project("lab", [("dana", "dev")])
        deadline = time.time() + 20   # the pack is loaded after start
        while time.time() < deadline and cls.a.get(
                "/api/v1/jobtemplates/hyperparam-search").status != 200:
            time.sleep(0.1)

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def run_pipeline(self, name, search_args):
        r = self.dev.request("POST", P + "/pipelines", {"metadata": {"name": name}, "spec": {
            "parallelism": 2, "tasks": [
                {"name": "search", "template": "hyperparam-search", "args": search_args},
                {"name": "use", "upstream": ["search"], "command": [
                    "bash", "-c", "echo got={{ tasks.search.outputs.best_x }}/"
                    "{{ tasks.search.outputs.best_k }} >> \"$CUBE_OUTPUTS\""]}]}})
        self.assertEqual(r.status, 201, r.body)
        r = self.dev.request("POST", f"{P}/pipelines/{name}/run", {})
        self.assertEqual(r.status, 201, r.body)
        run = r.json()["metadata"]["name"]
        deadline = time.time() + 120
        while time.time() < deadline:
            st = self.a.get(f"{P}/pipelineruns/{run}").json().get("status", {})
            if st.get("phase") in DONE:
                return run, st
            time.sleep(0.3)
        self.fail(f"run {run}: {json.dumps(st)}\n{self.c.output()[-3000:]}")

    def log(self, run, task):
        return self.a.get(f"{P}/pipelineruns/{run}/tasks/{task}/logs").body

    def test_a_task_searches_and_hands_on_the_best(self):
        space = {"x": {"_type": "quniform", "_value": [0, 1, 0.1]},
                 "k": {"_type": "choice", "_value": ["a", "b"]}}
        run, st = self.run_pipeline("tuned", {
            "--search_space": space, "--command": TRIAL, "--tuner": "grid",
            "--max_trials": 100, "--concurrency": 4, "--trial_cpu": "100m",
            "--trial_memory": "128Mi"})
        self.assertEqual(st["phase"], "Succeeded", json.dumps(st) + self.log(run, "search"))
        out = st["tasks"]["search"]["outputs"]
        self.assertEqual(out["trials"], 22)   # the grid: 11 values of x, 2 of k
        self.assertAlmostEqual(float(out["best_x"]), 0.3)
        self.assertEqual(out["best_k"], "b")
        self.assertAlmostEqual(float(out["best_value"]), 0)
        self.assertEqual(json.loads(out["best_parameters"]), {"k": "b", "x": 0.3})
        self.assertEqual(st["tasks"]["use"]["outputs"], {"got": "0.3/b"})
        # the Experiment is the run owner's, named after the task's Job
        exp = self.a.get(f"{P}/experiments/{out['experiment']}").json()
        self.assertEqual(exp["metadata"]["owner"], "dana")
        self.assertEqual(exp["status"]["phase"], "Succeeded")

    def test_a_refused_search_space_fails_the_task(self):
        run, st = self.run_pipeline("refused", {
            "--search_space": {"x": {"_type": "uniform", "_value": [1, 0]}}, "--command": TRIAL})
        self.assertEqual(st["phase"], "Failed", st)
        self.assertEqual(st["tasks"]["search"]["phase"], "Failed")
        log = self.log(run, "search")
        self.assertIn("spec.searchSpace.x._value", log)


if __name__ == "__main__":
    unittest.main(verbosity=2)
