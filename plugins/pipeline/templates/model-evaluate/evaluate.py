"""model-evaluate: metrics, confusion matrix and report of a model bundle on a test CSV.

Results (in CUBE_OUTPUT_DIR): metrics.json, confusion_matrix.png,
confusion_matrix.echarts.json, report.md and, with --save_predictions,
predictions.csv.  Outputs: accuracy, precision_macro, recall_macro,
f1_macro, roc_auc (binary only), metrics_path and metrics_sha256; for
clusterers also adjusted_rand and nmi.  A clusterer trained with labels is
scored through the majority class of each cluster.

A joblib model is a pickle, which runs code when it is loaded: it is
loaded only from bytes whose sha256 is --model_sha256 (the training task's
model_sha256 output), so that a file replaced in the project's shared
directory is refused rather than run.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_lib"))
import cube_charts  # noqa: E402
import cube_data  # noqa: E402
import cube_task  # noqa: E402
from cube_task import fail  # noqa: E402


def _true_indices(y, classes):
    index = {c: i for i, c in enumerate(classes)}
    values = y.tolist()
    unknown = sorted({str(v) for v in values if v not in index})
    if unknown:
        fail("test labels %s were not seen in training (classes %s)" % (unknown[:10], classes))
    return [index[v] for v in values]


def _scores(model, X):
    """Positive-class scores for ROC-AUC, or None when the model has none."""
    if hasattr(model, "predict_proba"):
        try:
            return model.predict_proba(X)[:, 1]
        except AttributeError:  # e.g. SVC fitted without probability
            pass
    if hasattr(model, "decision_function"):
        return model.decision_function(X)
    return None


def _positive_index(args, classes):
    if not args.positive_label:
        return 1
    names = [str(c) for c in classes]
    if args.positive_label not in names:
        fail("argument --positive_label: '%s' is not one of the classes %s" % (args.positive_label, names))
    return names.index(args.positive_label)


def classification_metrics(args, bundle, X, y_true, y_pred, clusterer):
    from sklearn import metrics
    classes = bundle["classes"]
    result = {
        "accuracy": metrics.accuracy_score(y_true, y_pred),
        "precision_macro": metrics.precision_score(y_true, y_pred, average="macro", zero_division=0),
        "recall_macro": metrics.recall_score(y_true, y_pred, average="macro", zero_division=0),
        "f1_macro": metrics.f1_score(y_true, y_pred, average="macro", zero_division=0),
    }
    positive = _positive_index(args, classes)  # checked even where unused
    if len(classes) == 2 and not clusterer and len(set(y_true)) == 2:
        scores = _scores(bundle["model"], X)
        if scores is not None:
            truth = [1 if t == positive else 0 for t in y_true]
            result["roc_auc"] = metrics.roc_auc_score(truth, scores if positive == 1 else -scores)
    return {k: round(float(v), 6) for k, v in result.items()}


def _predict(bundle, X):
    """(predicted class indices, cluster ids or None)."""
    import numpy as np
    predicted = bundle["model"].predict(X)
    if "cluster_classes" in bundle:
        return np.asarray(bundle["cluster_classes"])[predicted], predicted
    return predicted, None


def _write_results(task, bundle, y_true, y_pred, result):
    from sklearn.metrics import confusion_matrix
    classes = bundle["classes"]
    matrix = confusion_matrix(y_true, y_pred, labels=list(range(len(classes))))
    title = "%s: confusion matrix" % bundle["algorithm"]
    cube_charts.confusion_png(task.output_path("confusion_matrix.png"), matrix, classes, title)
    task.write_result("confusion_matrix.echarts.json", cube_charts.confusion_echarts(matrix, classes, title))
    metrics_path = task.write_result("metrics.json", result)
    report = "# Evaluation of %s\n\n" % bundle["algorithm"]
    report += cube_charts.markdown_table(sorted(result.items()), ["metric", "value"])
    report += "\nTest rows: %d. Classes: %s.\n" % (len(y_true), ", ".join(str(c) for c in classes))
    task.write_result("report.md", report)
    if task.args.save_predictions:
        import pandas as pd
        frame = pd.DataFrame({"label": [classes[i] for i in y_true],
                              "predicted": [classes[i] for i in y_pred]})
        frame.to_csv(task.output_path("predictions.csv"), index=False)
    return metrics_path


def main(argv=None):
    from sklearn import metrics
    task = cube_task.start(__file__, argv)
    args = task.args
    bundle = cube_data.load_bundle(task.path(args.model_path), args.model_sha256)
    label = args.label_column or bundle["label"]
    if not label or not bundle.get("classes"):
        fail("the model was trained without labels; there is nothing to evaluate against")
    frame = cube_data.read_table(task.path(args.test_csv), "test")
    X, y, _, _ = cube_data.features_and_label(frame, label, bundle["features"])
    clusterer = "cluster_classes" in bundle
    y_true = _true_indices(y, bundle["classes"])
    y_pred, clusters = _predict(bundle, X)
    result = classification_metrics(args, bundle, X, y_true, y_pred, clusterer)
    if clusterer:
        result["adjusted_rand"] = round(float(metrics.adjusted_rand_score(y_true, clusters)), 6)
        result["nmi"] = round(float(metrics.normalized_mutual_info_score(y_true, clusters)), 6)
    result["test_rows"] = len(y_true)
    metrics_path = _write_results(task, bundle, y_true, list(y_pred), result)
    task.output_file("metrics_path", metrics_path)
    task.output(**{k: v for k, v in result.items() if k != "test_rows"})
    print("evaluated %s on %d rows: %s" % (bundle["algorithm"], len(y_true), result))


if __name__ == "__main__":
    main()
