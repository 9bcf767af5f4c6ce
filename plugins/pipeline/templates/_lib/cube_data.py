"""cube_data — tables and model bundles shared by the data and ML templates.

A model bundle is what the training templates save and the evaluation
template loads: a dict with
  format    "cube-model/1" (joblib) or "cube-model-json/1" (JSON)
  algorithm the template's algorithm name ("lr", "xgboost", ...)
  model     the fitted estimator; it predicts class indices 0..n-1
  features  the feature columns, in training order
  label     the label column ("" when trained without one)
  classes   the original label values, index i <-> predicted i (or None)
  cluster_classes  for clusterers trained with labels: cluster -> class index
Encoding labels as indices keeps every estimator (xgboost included) on the
same footing and lets string labels through.

scikit-learn estimators are saved with joblib, a pickle: loading one runs
whatever code the file names, so load_bundle loads it only from bytes whose
sha256 is the one the training task recorded (its model_sha256 output).
XGBoost models are saved as JSON instead (the bundle's members with the
model in XGBoost's own JSON format), which loads no code.
"""
import io
import json
import os

import cube_task
from cube_task import ensure_parent, fail

BUNDLE_FORMAT = "cube-model/1"
JSON_FORMAT = "cube-model-json/1"
JSON_ALGORITHMS = ("xgboost",)
SKLEARN_DATASETS = ("iris", "digits", "breast_cancer", "wine")


def read_table(path, what="input"):
    import pandas as pd
    if not os.path.exists(path):
        fail("%s file %s does not exist" % (what, path))
    try:
        frame = pd.read_csv(path)
    except Exception as e:  # pandas raises many types for bad files
        fail("%s file %s is not a readable CSV: %s" % (what, path, e))
    if frame.empty:
        fail("%s file %s has no rows" % (what, path))
    return frame


def write_table(frame, path):
    frame.to_csv(ensure_parent(path), index=False)
    return path


def split_columns(columns_arg):
    """The comma-separated --feature_columns value as a list ([] = all)."""
    return [c.strip() for c in (columns_arg or "").split(",") if c.strip()]


def features_and_label(frame, label, feature_columns, label_required=True):
    """(X, y or None, feature names); a missing column names itself."""
    if label and label not in frame.columns:
        if label_required:
            fail("label column '%s' is not among the CSV columns %s" % (label, list(frame.columns)))
        label = ""
    names = feature_columns or [c for c in frame.columns if c != label]
    missing = [c for c in names if c not in frame.columns]
    if missing:
        fail("feature columns %s are not among the CSV columns %s" % (missing, list(frame.columns)))
    X = frame[names]
    non_numeric = [c for c in names if not _is_numeric(X[c])]
    if non_numeric:
        fail("feature columns %s are not numeric; encode them first" % non_numeric)
    if X.isnull().values.any():
        fail("feature columns contain empty values; fill or drop them first")
    y = frame[label] if label else None
    return X.to_numpy(dtype=float), y, list(names), label


def _is_numeric(series):
    import pandas as pd
    return pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)


def encode_labels(y):
    """(indices, classes): the labels as 0..n-1 and the sorted label values."""
    import numpy as np
    classes, indices = np.unique(y.to_numpy(), return_inverse=True)
    return indices, classes.tolist()


def sklearn_dataset(name, label_names=False):
    """One of sklearn's built-in datasets as a frame with a 'label' column."""
    from sklearn import datasets
    if name not in SKLEARN_DATASETS:
        fail("unknown sklearn dataset '%s' (one of %s)" % (name, ", ".join(SKLEARN_DATASETS)))
    data = getattr(datasets, "load_" + name)(as_frame=True)
    frame = data.frame.rename(columns={"target": "label"})
    if label_names:
        frame["label"] = [str(data.target_names[i]) for i in frame["label"]]
    return frame


def bundle_extension(algorithm):
    return ".json" if algorithm in JSON_ALGORITHMS else ".joblib"


def _xgboost_json(model):
    """XGBoost's own JSON of a fitted XGBClassifier (as a JSON value)."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="cube-xgb-") as d:
        path = os.path.join(d, "model.json")
        model.save_model(path)
        with open(path, encoding="utf-8") as f:
            return json.load(f)


def _bundle_bytes(bundle):
    if bundle["algorithm"] in JSON_ALGORITHMS:
        doc = dict(bundle, format=JSON_FORMAT, model=_xgboost_json(bundle["model"]))
        return json.dumps(doc, default=cube_task._jsonable).encode("utf-8")
    import joblib
    buffer = io.BytesIO()
    joblib.dump(dict(bundle, format=BUNDLE_FORMAT), buffer)
    return buffer.getvalue()


def save_bundle(path, bundle):
    """Writes the bundle (JSON for XGBoost, else joblib); its bytes' sha256."""
    data = _bundle_bytes(bundle)
    with open(ensure_parent(path), "wb") as f:
        f.write(data)
    return cube_task.sha256_of(data)


def _json_bundle(path, data):
    try:
        doc = json.loads(data.decode("utf-8"))
    except ValueError as e:
        fail("model file %s is not a readable model: %s" % (path, e))
    if not isinstance(doc, dict) or doc.get("format") != JSON_FORMAT or \
            doc.get("algorithm") not in JSON_ALGORITHMS:
        fail("model file %s was not written by a Cube training template" % path)
    from xgboost import XGBClassifier
    model = XGBClassifier()
    try:
        model.load_model(bytearray(json.dumps(doc["model"]).encode("utf-8")))
    except Exception as e:  # xgboost raises its own error types
        fail("model file %s cannot be loaded: %s" % (path, e))
    return dict(doc, model=model)


def load_bundle(path, sha256=None, flag="--model_sha256"):
    """The bundle in path: JSON ones as they are (their sha256 checked when
    given), joblib ones only when sha256 is given and matches."""
    if not os.path.exists(path):
        fail("model file %s does not exist" % path)
    if sha256:
        data = cube_task.read_verified(path, sha256, flag, "model file")
    else:
        with open(path, "rb") as f:
            data = f.read()
    if data.lstrip()[:1] == b"{":
        return _json_bundle(path, data)
    if not sha256:
        fail("model file %s is a joblib (pickle) bundle, which runs code when it is loaded, "
             "and the project's files are writable by every member: give %s, the sha256 the "
             "training task recorded ({{ tasks.<train>.outputs.model_sha256 }}), so that it "
             "is checked first" % (path, flag))
    import joblib
    try:
        bundle = joblib.load(io.BytesIO(data))
    except Exception as e:  # unpickling raises many types
        fail("model file %s cannot be loaded: %s" % (path, e))
    if not isinstance(bundle, dict) or bundle.get("format") != BUNDLE_FORMAT:
        fail("model file %s was not written by a Cube training template" % path)
    return bundle
