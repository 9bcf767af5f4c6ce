"""cube_data — tables and model bundles shared by the data and ML templates.

A model bundle is what the training templates save (joblib) and the
evaluation template loads: a dict with
  format    "cube-model/1"
  algorithm the template's algorithm name ("lr", "xgboost", ...)
  model     the fitted estimator; it predicts class indices 0..n-1
  features  the feature columns, in training order
  label     the label column ("" when trained without one)
  classes   the original label values, index i <-> predicted i (or None)
  cluster_classes  for clusterers trained with labels: cluster -> class index
Encoding labels as indices keeps every estimator (xgboost included) on the
same footing and lets string labels through.
"""
import os

from cube_task import ensure_parent, fail

BUNDLE_FORMAT = "cube-model/1"
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


def save_bundle(path, bundle):
    import joblib
    bundle = dict(bundle, format=BUNDLE_FORMAT)
    joblib.dump(bundle, ensure_parent(path))
    return path


def load_bundle(path):
    import joblib
    if not os.path.exists(path):
        fail("model file %s does not exist" % path)
    try:
        bundle = joblib.load(path)
    except Exception as e:  # unpickling raises many types
        fail("model file %s cannot be loaded: %s" % (path, e))
    if not isinstance(bundle, dict) or bundle.get("format") != BUNDLE_FORMAT:
        fail("model file %s was not written by a Cube training template" % path)
    return bundle
