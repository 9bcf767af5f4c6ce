"""From a pipeline to a served model with zero code: the built-in templates'
import -> split -> train -> evaluate chain on iris, ending in
model-register (scikit-learn's logistic regression, and XGBoost beside it),
runs on a real cubed (pipeline, models, serving, executor-local); the
registered Model's deploy action makes an InferenceService, which becomes
Ready; a v2 infer of the split's held-out rows answers what the trained
file itself predicts, loaded here with the same libraries (the label
values, not the estimator's class indices), and those answers are the
dataset's labels for most rows."""
import csv
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servingtest import BASE, RES, ServingCase, run_py  # noqa: E402

DONE = ("Succeeded", "Failed", "Stopped")

# What the file a training task wrote predicts for the rows, loaded as the
# evaluation template loads it: the bundle's model predicts class indices,
# its classes are the label values.
PREDICT = r"""
import json, sys, joblib, numpy as np
path, rows = sys.argv[1], np.array(json.loads(sys.argv[2]), dtype="float64")
if path.endswith(".json"):
    import xgboost
    doc = json.load(open(path))
    model = xgboost.XGBClassifier()
    model.load_model(bytearray(json.dumps(doc["model"]).encode()))
    bundle = doc
else:
    bundle = joblib.load(path)
    model = bundle["model"]
print(json.dumps({"predicted": [bundle["classes"][int(i)] for i in model.predict(rows)],
                  "features": bundle["features"], "label": bundle["label"]}))
"""


def chain():
    def register(name, train, framework):
        return {"name": f"register-{name}", "template": "model-register",
                "upstream": [train, "evaluate"] if train == "train" else [train],
                "args": dict({"--model_name": name,
                              "--model_path": f"{{{{ tasks.{train}.outputs.model_path }}}}",
                              "--model_sha256": f"{{{{ tasks.{train}.outputs.model_sha256 }}}}",
                              "--framework": framework},
                             **({"--metrics_file": "{{ tasks.evaluate.outputs.metrics_path }}"}
                                if train == "train" else {}))}
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
        {"name": "train-xgb", "template": "xgboost-train", "upstream": ["split"],
         "args": {"--train_csv": "{{ tasks.split.outputs.train_csv }}", "--label_column": "label",
                  "--n_estimators": 10, "--max_depth": 2, "--threads": 1}},
        {"name": "evaluate", "template": "model-evaluate", "upstream": ["train", "split"],
         "args": {"--model_path": "{{ tasks.train.outputs.model_path }}",
                  "--model_sha256": "{{ tasks.train.outputs.model_sha256 }}",
                  "--test_csv": "{{ tasks.split.outputs.test_csv }}"}},
        register("iris-lr", "train", "sklearn"),
        register("iris-xgb", "train-xgb", "xgboost"),
    ]


class PipelineToService(ServingCase):
    EXTRA_PLUGINS = {"pipeline": None}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        deadline = time.time() + 20   # the template pack is loaded after start
        while time.time() < deadline and cls.a.get(
                "/api/v1/jobtemplates/model-register").status != 200:
            time.sleep(0.1)

    def run_pipeline(self, name, tasks):
        r = self.dev.request("POST", f"{BASE}/pipelines", {"metadata": {"name": name}, "spec": {
            "parallelism": 2, "tasks": tasks}})
        self.assertEqual(r.status, 201, r.body)
        r = self.dev.request("POST", f"{BASE}/pipelines/{name}/run", {})
        self.assertEqual(r.status, 201, r.body)
        run = r.json()["metadata"]["name"]
        deadline = time.time() + 300
        st = {}
        while time.time() < deadline:
            st = self.a.get(f"{BASE}/pipelineruns/{run}").json().get("status", {})
            if st.get("phase") in DONE:
                break
            time.sleep(0.3)
        logs = "".join(self.a.get(f"{BASE}/pipelineruns/{run}/tasks/{t['name']}/logs").body[-800:]
                       for t in tasks if st.get("tasks", {}).get(t["name"], {}).get("phase")
                       != "Succeeded")
        self.assertEqual(st.get("phase"), "Succeeded", json.dumps(st) + "\n" + logs)
        return run, st

    def held_out(self, st):
        """The split's test rows (features, labels), read from its CSV."""
        path = st["tasks"]["split"]["outputs"]["test_csv"]
        if not os.path.isabs(path):
            path = os.path.join(self.pdir, path)
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        return rows

    def test_trained_registered_deployed_answers(self):
        run, st = self.run_pipeline("iris", chain())
        table = self.held_out(st)
        self.assertGreaterEqual(len(table), 40)
        for name, framework in (("iris-lr", "sklearn"), ("iris-xgb", "xgboost")):
            with self.subTest(framework):
                out = st["tasks"][f"register-{name}"]["outputs"]
                model = self.a.get(f"{BASE}/models/{out['model']}").json()
                self.assertEqual((model["status"]["phase"], model["spec"]["framework"]),
                                 ("Ready", framework), model)
                self.assertEqual(model["spec"]["source"]["name"], run)
                path = os.path.join(self.pdir, model["spec"]["path"])
                local = run_py(PREDICT, path, "[[0, 0, 0, 0]]")
                features, label = local["features"], local["label"]
                rows = [[float(r[c]) for c in features] for r in table]
                want = run_py(PREDICT, path, json.dumps(rows))["predicted"]

                # zero code: the Model's deploy action, nothing else
                made = self.deploy(out["model"], {"service": name, "resources": RES},
                                   status=(201,))
                self.assertTrue(made["created"], made)
                pred = made["service"]["spec"]["predictors"][0]
                self.assertEqual((pred["model"], pred["runtime"]),
                                 ({"name": out["model"]}, framework))
                now = self.wait(name, lambda st: st.get("phase") == "Ready" or any(
                    p.get("reason") == "PredictorFailed" for p in st.get("predictors", [])),
                    timeout=120, what="Ready or PredictorFailed")
                self.assertEqual(now["phase"], "Ready", now.get("message"))
                status, answer = self.infer(name, rows)
                self.assertEqual(status, 200, answer)
                got = answer["outputs"][0]
                self.assertEqual(got["shape"], [len(rows)])
                self.assertEqual(got["data"], want)
                truth = [type(want[0])(r[label]) for r in table]
                right = sum(a == b for a, b in zip(got["data"], truth))
                self.assertGreater(right / len(rows), 0.8, (got["data"], truth))
                # the model's metadata names the label values' type
                r = self.dev.apps_get(f"/serving/lab/{name}/v2/models/{name}")
                self.assertEqual(r.status, 200, r.body)
                self.assertEqual(r.json()["outputs"][0]["datatype"], got["datatype"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
