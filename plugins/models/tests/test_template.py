"""The built-in job template model-register (plugins/pipeline/templates) as
a pipeline task, through a running cubed with the pipeline, models and
executor-local plugins: the pack's import -> split -> train -> evaluate
chain on iris, then model-register with the training task's model_path
and model_sha256 and the evaluation's metrics.json: the version is the run
owner's, Ready, hashed as the training task recorded, its metrics the
evaluation's, its source the run and task, staged; a second run is the
next version; a sha256 that is not the file's fails the task and leaves
nothing registered."""
import json
import os
import tempfile
import time
import unittest

from cubetest import Cubed

P = "/api/v1/projects/lab"
DONE = ("Succeeded", "Failed", "Stopped")


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-models-template-plugins-")
    for name in ("executor-local", "pipeline", "models"):
        os.symlink(os.path.join(os.environ["CUBE_BUILD_PLUGINS"], name), os.path.join(d, name))
    return d


def chain(register_args):
    return [
        {"name": "import", "template": "data-import",
         "args": {"--source": "sklearn", "--sklearn_dataset": "iris",
                  "--save_path": "datasets/iris.csv"}},
        {"name": "split", "template": "data-split", "upstream": ["import"],
         "args": {"--input_csv": "{{ tasks.import.outputs.path }}", "--label_column": "label",
                  "--test_size": 0.3, "--stratify": True, "--seed": 7}},
        {"name": "train", "template": "sklearn-lr", "upstream": ["split"],
         "args": {"--train_csv": "{{ tasks.split.outputs.train_csv }}", "--label_column": "label",
                  "--max_iter": 500, "--standardize": True}},
        {"name": "evaluate", "template": "model-evaluate", "upstream": ["train", "split"],
         "args": {"--model_path": "{{ tasks.train.outputs.model_path }}",
                  "--model_sha256": "{{ tasks.train.outputs.model_sha256 }}",
                  "--test_csv": "{{ tasks.split.outputs.test_csv }}"}},
        {"name": "register", "template": "model-register", "upstream": ["train", "evaluate"],
         "args": register_args},
    ]


class ModelRegisterTemplate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"executor-local": None, "pipeline": None, "models": None},
                      plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.dev = cls.c.make_user("dana")
        cls.c.make_project("lab", [("dana", "ops")])
        deadline = time.time() + 20   # the pack is loaded after start
        while time.time() < deadline and cls.a.get(
                "/api/v1/jobtemplates/model-register").status != 200:
            time.sleep(0.1)

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def run_pipeline(self, name, tasks):
        r = self.dev.request("POST", P + "/pipelines", {"metadata": {"name": name}, "spec": {
            "parallelism": 2, "tasks": tasks}})
        self.assertEqual(r.status, 201, r.body)
        r = self.dev.request("POST", f"{P}/pipelines/{name}/run", {})
        self.assertEqual(r.status, 201, r.body)
        run = r.json()["metadata"]["name"]
        deadline = time.time() + 240
        while time.time() < deadline:
            st = self.a.get(f"{P}/pipelineruns/{run}").json().get("status", {})
            if st.get("phase") in DONE:
                return run, st
            time.sleep(0.3)
        self.fail(f"run {run}: {json.dumps(st)}\n{self.c.output()[-3000:]}")

    def log(self, run, task):
        return self.a.get(f"{P}/pipelineruns/{run}/tasks/{task}/logs").body

    def test_a_trained_model_is_registered(self):
        args = {"--model_name": "iris", "--model_path": "{{ tasks.train.outputs.model_path }}",
                "--model_sha256": "{{ tasks.train.outputs.model_sha256 }}",
                "--framework": "sklearn",
                "--metrics_file": "{{ tasks.evaluate.outputs.metrics_path }}",
                "--model_metric": {"dataset": "iris"}, "--describe": "iris, logistic regression",
                "--stage": "staging"}
        run, st = self.run_pipeline("iris", chain(args))
        self.assertEqual(st["phase"], "Succeeded", json.dumps(st) + self.log(run, "register"))
        out = st["tasks"]["register"]["outputs"]
        train = st["tasks"]["train"]["outputs"]
        self.assertEqual((out["model_name"], int(out["model_version"]), out["stage"]),
                         ("iris", 1, "staging"))
        self.assertEqual(out["model_sha256"], train["model_sha256"])
        m = self.a.get(f"{P}/models/{out['model']}").json()
        self.assertEqual(m["metadata"]["owner"], "dana")
        self.assertEqual(m["status"]["phase"], "Ready")
        self.assertEqual(m["status"]["stage"], "staging")
        self.assertEqual(m["status"]["sha256"], train["model_sha256"])
        self.assertTrue(m["spec"]["path"].startswith("pipeline-runs/"), m["spec"])
        self.assertEqual(m["spec"]["source"]["kind"], "PipelineRun")
        self.assertEqual((m["spec"]["source"]["name"], m["spec"]["source"]["task"]),
                         (run, "register"))
        ev = st["tasks"]["evaluate"]["outputs"]
        self.assertAlmostEqual(m["spec"]["metrics"]["accuracy"], float(ev["accuracy"]))
        self.assertGreater(m["spec"]["metrics"]["accuracy"], 0.8)
        self.assertEqual(m["spec"]["metrics"]["dataset"], "iris")
        # the next run: the next version
        run, st = self.run_pipeline("iris-again", chain(dict(args, **{"--stage": "none"})))
        self.assertEqual(st["phase"], "Succeeded", self.log(run, "register"))
        self.assertEqual(int(st["tasks"]["register"]["outputs"]["model_version"]), 2)

    def test_a_changed_file_is_not_registered(self):
        args = {"--model_name": "swapped", "--model_path": "{{ tasks.train.outputs.model_path }}",
                "--model_sha256": "0" * 64, "--framework": "sklearn"}
        run, st = self.run_pipeline("swapped", chain(args))
        self.assertEqual(st["phase"], "Failed", st)
        self.assertEqual(st["tasks"]["register"]["phase"], "Failed")
        self.assertIn("not the file the training task wrote", self.log(run, "register"))
        deadline = time.time() + 10
        while time.time() < deadline:
            items = self.a.get(f"{P}/models?labelSelector=model%3Dswapped").json()["items"]
            if not items:
                break
            time.sleep(0.2)
        self.assertEqual(items, [])
        # a framework the file is not: the registry's reason, in the task's log
        args = {"--model_name": "wrong", "--model_path": "{{ tasks.train.outputs.model_path }}",
                "--framework": "onnx"}
        run, st = self.run_pipeline("wrong", chain(args))
        self.assertEqual(st["phase"], "Failed", st)
        self.assertIn("not an ONNX model", self.log(run, "register"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
