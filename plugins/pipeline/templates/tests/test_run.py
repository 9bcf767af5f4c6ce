"""The built-in templates run: every example as a pipeline task would run it,
chains data-import -> data-split -> train (every algorithm) -> evaluate on
three sklearn datasets with sane metrics, errors that name their cause, and
handed files checked by their sha256 before code-bearing ones are loaded."""
import concurrent.futures
import functools
import http.server
import json
import os
import shutil
import tempfile
import threading
import unittest

import harness

ALGORITHMS = ["sklearn-lr", "sklearn-random-forest", "sklearn-gbdt", "sklearn-decision-tree",
              "sklearn-knn", "sklearn-kmeans", "sklearn-adaboost", "sklearn-naive-bayes",
              "sklearn-svm", "xgboost-train"]
# Examples run stage by stage in one run directory, as a pipeline would run
# them: each stage reads what the previous ones wrote (datasets/iris.csv,
# datasets/iris-train.csv, models/...); tasks of a stage run at once.
EXAMPLE_STAGES = [["data-import", "custom-command", "python-script"], ["data-split"], ALGORITHMS,
                  ["model-evaluate"]]
# Templates that need a running cubed (they make objects through the API),
# run as pipeline tasks by their plugin's tests instead:
# hyperparam-search in plugins/hpsearch/tests/test_template.py, model-register
# in plugins/models/tests/test_template.py.
NEEDS_CUBED = ["hyperparam-search", "model-register"]

# Least test accuracy per dataset; where an algorithm is weaker by nature the
# override says so.  Small models: these are regression guards, not benchmarks.
MIN_ACCURACY = {"iris": 0.8, "breast_cancer": 0.85, "digits": 0.8}
OVERRIDES = {
    ("digits", "sklearn-adaboost"): 0.5,   # stumps on 10 classes: weak by nature
    ("digits", "sklearn-kmeans"): 0.6,      # clusters named by majority class
    ("digits", "sklearn-naive-bayes"): 0.7,  # pixels are far from Gaussian
    ("digits", "sklearn-decision-tree"): 0.7,
    ("iris", "sklearn-kmeans"): 0.7,
}
# Hyper-parameters that keep the chains fast (and kmeans' cluster count right).
CHAIN_ARGS = {
    "sklearn-random-forest": {"--n_estimators": 20},
    "sklearn-gbdt": {"--n_estimators": 20, "--max_depth": 2},
    "sklearn-adaboost": {"--n_estimators": 20},
    "xgboost-train": {"--n_estimators": 20, "--max_depth": 3},
    "sklearn-lr": {"--standardize": True},
    "sklearn-knn": {"--standardize": True},
    "sklearn-svm": {"--standardize": True, "--probability": True},
}
N_CLASSES = {"iris": 3, "breast_cancer": 2, "digits": 10}


class TempRunDir(unittest.TestCase):
    def setUp(self):
        self.run_dir = tempfile.mkdtemp(prefix="cube-templates-")
        self.addCleanup(shutil.rmtree, self.run_dir, True)


class ExamplesTest(TempRunDir):
    def test_every_template_is_in_an_example_stage(self):
        self.assertEqual(sorted(sum(EXAMPLE_STAGES, []) + NEEDS_CUBED), harness.template_names())

    def test_examples_run_as_tasks(self):
        results = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            for stage in EXAMPLE_STAGES:
                runs = pool.map(lambda n: harness.run(self.run_dir, n, harness.load(n)["example"]), stage)
                for name, (r, proc) in zip(stage, runs):
                    self.assertEqual(proc.returncode, 0, "%s failed:\n%s%s" % (name, proc.stdout, proc.stderr))
                    results[name] = r
        out = {name: r.outputs() for name, r in results.items()}
        self.assertEqual(out["data-import"]["rows"], 150)
        self.assertEqual((out["data-split"]["train_rows"], out["data-split"]["test_rows"]), (105, 45))
        for name in ALGORITHMS:
            self.assertTrue(os.path.isfile(out[name]["model_path"]), name)
        self.assertGreater(out["model-evaluate"]["accuracy"], 0.8)
        evaluate = results["model-evaluate"]
        self.assertTrue(harness.is_png(evaluate.result("confusion_matrix.png")))
        with open(evaluate.result("confusion_matrix.echarts.json")) as f:
            self.assertEqual(json.load(f)["series"][0]["type"], "heatmap")
        self.assertTrue(os.path.isfile(evaluate.result("predictions.csv")))
        self.assertEqual(out["custom-command"], {"greeting": "hello"})
        self.assertTrue(os.path.isfile(results["custom-command"].result("hello.md")))
        self.assertEqual(out["python-script"], {"answer": 42})


class ChainTest(TempRunDir):
    """import -> split -> train (each algorithm) -> evaluate, in this process."""

    def chain(self, dataset):
        r, status, err = harness.call(self.run_dir, "data-import",
                                      {"--source": "sklearn", "--sklearn_dataset": dataset})
        self.assertEqual(status, 0, err)
        r, status, err = harness.call(self.run_dir, "data-split",
                                      {"--input_csv": r.outputs()["path"], "--stratify": True})
        self.assertEqual(status, 0, err)
        split = r.outputs()
        for name in ALGORITHMS:
            with self.subTest(dataset=dataset, template=name):
                self.train_and_evaluate(dataset, name, split)

    def train_and_evaluate(self, dataset, name, split):
        args = {"--train_csv": split["train_csv"], **CHAIN_ARGS.get(name, {})}
        if name == "sklearn-kmeans":
            args.update({"--n_clusters": N_CLASSES[dataset], "--standardize": True})
        r, status, err = harness.call(self.run_dir, name, args, task="train-" + name)
        self.assertEqual(status, 0, err)
        r, status, err = harness.call(self.run_dir, "model-evaluate",
                                      {"--model_path": r.outputs()["model_path"],
                                       "--model_sha256": r.outputs()["model_sha256"],
                                       "--test_csv": split["test_csv"]}, task="eval-" + name)
        self.assertEqual(status, 0, err)
        metrics = r.outputs()
        least = OVERRIDES.get((dataset, name), MIN_ACCURACY[dataset])
        self.assertGreater(metrics["accuracy"], least, metrics)
        for key in ("precision_macro", "recall_macro", "f1_macro"):
            self.assertTrue(0 <= metrics[key] <= 1, (key, metrics))
        if N_CLASSES[dataset] == 2 and name != "sklearn-kmeans":
            self.assertGreater(metrics["roc_auc"], 0.9, metrics)
        else:
            self.assertNotIn("roc_auc", metrics)
        self.assertTrue(harness.is_png(r.result("confusion_matrix.png")))
        with open(r.result("metrics.json")) as f:
            self.assertEqual(json.load(f)["test_rows"], split["test_rows"])

    def test_iris(self):
        self.chain("iris")

    def test_breast_cancer(self):
        self.chain("breast_cancer")

    def test_digits(self):
        self.chain("digits")

    def test_string_labels_and_positive_label(self):
        """Class names (not numbers) go through xgboost and the evaluation."""
        r, status, err = harness.call(self.run_dir, "data-import", {
            "--source": "sklearn", "--sklearn_dataset": "breast_cancer", "--label_names": True})
        self.assertEqual(status, 0, err)
        r, status, err = harness.call(self.run_dir, "data-split", {"--input_csv": r.outputs()["path"]})
        split = r.outputs()
        r, status, err = harness.call(self.run_dir, "xgboost-train", {
            "--train_csv": split["train_csv"], "--n_estimators": 10})
        self.assertEqual(status, 0, err)
        model = r.outputs()["model_path"]
        aucs = {}
        for positive in ("malignant", "benign"):
            r, status, err = harness.call(self.run_dir, "model-evaluate", {
                "--model_path": model, "--test_csv": split["test_csv"], "--positive_label": positive})
            self.assertEqual(status, 0, err)
            aucs[positive] = r.outputs()["roc_auc"]
        self.assertGreater(min(aucs.values()), 0.9, aucs)
        self.assertAlmostEqual(aucs["malignant"], aucs["benign"], places=6)
        with open(r.result("confusion_matrix.echarts.json")) as f:
            self.assertEqual(json.load(f)["xAxis"]["data"], ["benign", "malignant"])


class ErrorTest(TempRunDir):
    """Bad input stops the task with a message naming its cause."""

    def iris(self):
        r, status, err = harness.call(self.run_dir, "data-import", {"--source": "sklearn"})
        return r.outputs()["path"]

    def assertFails(self, name, values, fragment, status=1):
        _, got, err = harness.call(self.run_dir, name, values)
        self.assertEqual(got, status, err)
        self.assertIn(fragment, err)

    def test_bad_input_is_named(self):
        path = self.iris()
        self.assertFails("data-split", {"--input_csv": path, "--test_size": 1.5}, "--test_size", 2)
        self.assertFails("data-split", {"--input_csv": path, "--label_column": "species", "--stratify": True},
                         "'species'")
        self.assertFails("data-split", {"--input_csv": "nope.csv"}, "nope.csv does not exist")
        self.assertFails("sklearn-lr", {"--train_csv": path, "--label_column": "species"}, "'species'")
        self.assertFails("sklearn-lr", {"--train_csv": path, "--feature_columns": "a,b"}, "['a', 'b']")
        self.assertFails("sklearn-lr", {"--train_csv": path, "--penalty": "l1"}, "--solver liblinear")
        self.assertFails("sklearn-svm", {"--train_csv": path, "--kernel": "cubic"}, "--kernel", 2)
        self.assertFails("model-evaluate", {"--model_path": path, "--test_csv": path,
                                            "--model_sha256": harness.sha256(path)}, "cannot be loaded")
        self.assertFails("model-evaluate", {"--model_path": path, "--test_csv": path,
                                            "--model_sha256": "x" * 64}, "not a sha256")
        r, status, err = harness.call(self.run_dir, "sklearn-lr", {"--train_csv": path})
        self.assertEqual(status, 0, err)
        self.assertFails("model-evaluate", {"--model_path": "models/sklearn-lr.joblib", "--test_csv": path,
                                            "--model_sha256": r.outputs()["model_sha256"],
                                            "--positive_label": "x"}, "--positive_label")
        self.assertFails("data-import", {"--source": "url"}, "--url is required")
        self.assertFails("data-import", {"--source": "url", "--url": "ftp://x/y.csv"}, "scheme 'ftp'")
        self.assertFails("python-script", {}, "exactly one of --code and --file")


class Evil:
    """Unpickling it creates the file `marker`: code a pickle runs."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


class HandedFilesTest(TempRunDir):
    """Files handed from task to task carry their sha256, and code-bearing
    ones (joblib models, scripts) are loaded only after it was checked."""

    def chain(self, trainer="sklearn-lr"):
        r, status, err = harness.call(self.run_dir, "data-import", {"--source": "sklearn"})
        self.assertEqual(status, 0, err)
        imported = r.outputs()
        r, status, err = harness.call(self.run_dir, "data-split", {"--input_csv": imported["path"]})
        self.assertEqual(status, 0, err)
        split = r.outputs()
        r, status, err = harness.call(self.run_dir, trainer, {"--train_csv": split["train_csv"],
                                                              "--n_estimators": 5} if trainer == "xgboost-train"
                                      else {"--train_csv": split["train_csv"]})
        self.assertEqual(status, 0, err)
        return imported, split, r.outputs()

    def evaluate(self, model, split, **extra):
        values = {"--model_path": model, "--test_csv": split["test_csv"]}
        values.update({"--" + k: v for k, v in extra.items()})
        return harness.call(self.run_dir, "model-evaluate", values)

    def test_outputs_carry_the_sha256_of_their_files(self):
        imported, split, trained = self.chain()
        self.assertEqual(imported["path_sha256"], harness.sha256(imported["path"]))
        for key in ("train_csv", "test_csv"):
            self.assertEqual(split[key + "_sha256"], harness.sha256(split[key]))
        self.assertEqual(trained["model_sha256"], harness.sha256(trained["model_path"]))
        r, status, err = self.evaluate(trained["model_path"], split, model_sha256=trained["model_sha256"])
        self.assertEqual(status, 0, err)
        self.assertEqual(r.outputs()["metrics_sha256"], harness.sha256(r.outputs()["metrics_path"]))

    def test_a_replaced_joblib_model_is_refused_not_loaded(self):
        import pickle
        _, split, trained = self.chain()
        marker = os.path.join(self.run_dir, "pwned")
        with open(trained["model_path"], "wb") as f:   # what another member would write
            pickle.dump(Evil(marker), f)
        _, status, err = self.evaluate(trained["model_path"], split, model_sha256=trained["model_sha256"])
        self.assertEqual(status, 1, err)
        self.assertIn("changed since; refusing to load it", err)
        _, status, err = self.evaluate(trained["model_path"], split)
        self.assertEqual(status, 1, err)
        self.assertIn("give --model_sha256", err)
        self.assertFalse(os.path.exists(marker), "the pickle was never loaded")

    def test_xgboost_models_are_json_and_need_no_sha256(self):
        _, split, trained = self.chain("xgboost-train")
        self.assertTrue(trained["model_path"].endswith(".json"), trained)
        with open(trained["model_path"]) as f:
            self.assertEqual(json.load(f)["format"], "cube-model-json/1")
        r, status, err = self.evaluate(trained["model_path"], split)
        self.assertEqual(status, 0, err)
        self.assertGreater(r.outputs()["accuracy"], 0.8)
        _, status, err = self.evaluate(trained["model_path"], split, model_sha256="0" * 64)
        self.assertEqual(status, 1, err)
        self.assertIn("refusing to load it", err)

    def test_a_script_others_can_change_runs_only_checked(self):
        shared = os.path.join(self.run_dir, "shared")
        os.makedirs(shared)
        os.chmod(shared, 0o777)   # not sticky: anybody may replace what is in it
        script = os.path.join(shared, "s.py")
        with open(script, "w") as f:
            f.write("import os, sys\nopen(os.environ['CUBE_OUTPUTS'], 'w').write("
                    "'{\"file\": \"%s\", \"argv\": \"%s\"}' % (__file__, sys.argv[1:]))\n")
        values = {"--file": script, "--script_args": "a b"}
        r, proc = harness.run(self.run_dir, "python-script", values)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("give --file_sha256", proc.stderr)
        r, proc = harness.run(self.run_dir, "python-script", dict(values, **{"--file_sha256": "1" * 64}))
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("refusing to load it", proc.stderr)
        r, proc = harness.run(self.run_dir, "python-script",
                              dict(values, **{"--file_sha256": harness.sha256(script)}))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(r.outputs(), {"file": script, "argv": "['a', 'b']"}, "run as the script itself")
        os.chmod(shared, 0o755)   # only this account's: runs as it is
        r, proc = harness.run(self.run_dir, "python-script", values)
        self.assertEqual(proc.returncode, 0, proc.stderr)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class ImportTest(TempRunDir):
    """data-import fetches over HTTP and file:// and copies paths."""

    def setUp(self):
        super().setUp()
        self.served = tempfile.mkdtemp(prefix="cube-served-")
        self.addCleanup(shutil.rmtree, self.served, True)
        with open(os.path.join(self.served, "tiny.csv"), "w") as f:
            f.write("x,y,label\n1,2,a\n3,4,b\n5,6,a\n")
        handler = functools.partial(QuietHandler, directory=self.served)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        self.base = "http://127.0.0.1:%d/" % self.server.server_address[1]

    def imported(self, values):
        r, status, err = harness.call(self.run_dir, "data-import", values)
        self.assertEqual(status, 0, err)
        out = r.outputs()
        with open(out["path"]) as f:
            self.assertEqual(f.read(), "x,y,label\n1,2,a\n3,4,b\n5,6,a\n")
        return out

    def test_http_file_url_and_path(self):
        out = self.imported({"--source": "url", "--url": self.base + "tiny.csv"})
        self.assertEqual(out["path"], os.path.join(self.run_dir, "datasets", "tiny.csv"))
        self.assertEqual((out["rows"], out["columns"], out["label_column"]), (3, 3, "label"))
        source = os.path.join(self.served, "tiny.csv")
        out = self.imported({"--source": "url", "--url": "file://" + source, "--save_path": "a/b.csv"})
        self.assertEqual(out["path"], os.path.join(self.run_dir, "a", "b.csv"))
        self.imported({"--source": "path", "--path": source, "--save_path": "c.csv"})

    def test_http_error_leaves_nothing(self):
        _, status, err = harness.call(self.run_dir, "data-import",
                                      {"--source": "url", "--url": self.base + "missing.csv"})
        self.assertEqual(status, 1)
        self.assertIn("HTTP 404", err)
        self.assertEqual(os.listdir(os.path.join(self.run_dir, "datasets")), [])


if __name__ == "__main__":
    unittest.main()
