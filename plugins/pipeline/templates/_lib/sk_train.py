"""sk_train — the training step of every sklearn/xgboost template.

Each template (sklearn-lr, sklearn-svm, xgboost-train, ...) owns its args
schema and calls main(__file__, algorithm); this module reads the training
CSV (the "data" group every training template shares), builds the estimator
from the template's hyper-parameters (BUILDERS), fits it and saves a model
bundle (see cube_data).  Outputs: model_path, model_sha256 (what
model-evaluate checks before it loads the model), train_score, n_features,
n_classes (0 for an unlabelled clusterer).
"""
import cube_data
import cube_task
from cube_task import fail


def _depth(value):
    return value or None  # 0 means "unlimited" in the schemas


def _seed(args):
    return args.seed


def _scaled(args, estimator):
    if not getattr(args, "standardize", False):
        return estimator
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    return make_pipeline(StandardScaler(), estimator)


def build_lr(args, n_classes):
    from sklearn.linear_model import LogisticRegression
    penalty = None if args.penalty == "none" else args.penalty
    if penalty == "l1" and args.solver == "lbfgs":
        fail("argument --penalty: l1 needs --solver liblinear or saga")
    return _scaled(args, LogisticRegression(C=args.C, penalty=penalty, solver=args.solver,
                                            max_iter=args.max_iter, random_state=_seed(args)))


def build_random_forest(args, n_classes):
    from sklearn.ensemble import RandomForestClassifier
    features = None if args.max_features == "all" else args.max_features
    return RandomForestClassifier(n_estimators=args.n_estimators, criterion=args.criterion,
                                  max_depth=_depth(args.max_depth), max_features=features,
                                  min_samples_split=args.min_samples_split,
                                  min_samples_leaf=args.min_samples_leaf, random_state=_seed(args))


def build_gbdt(args, n_classes):
    from sklearn.ensemble import GradientBoostingClassifier
    return GradientBoostingClassifier(n_estimators=args.n_estimators, learning_rate=args.learning_rate,
                                      max_depth=args.max_depth, subsample=args.subsample,
                                      min_samples_leaf=args.min_samples_leaf, random_state=_seed(args))


def build_decision_tree(args, n_classes):
    from sklearn.tree import DecisionTreeClassifier
    return DecisionTreeClassifier(criterion=args.criterion, max_depth=_depth(args.max_depth),
                                  min_samples_split=args.min_samples_split,
                                  min_samples_leaf=args.min_samples_leaf, random_state=_seed(args))


def build_knn(args, n_classes):
    from sklearn.neighbors import KNeighborsClassifier
    return _scaled(args, KNeighborsClassifier(n_neighbors=args.n_neighbors, weights=args.weights,
                                              algorithm=args.algorithm, p=args.p))


def build_kmeans(args, n_classes):
    from sklearn.cluster import KMeans
    return _scaled(args, KMeans(n_clusters=args.n_clusters, init=args.init, n_init=args.n_init,
                                max_iter=args.max_iter, random_state=_seed(args)))


def build_adaboost(args, n_classes):
    from sklearn.ensemble import AdaBoostClassifier
    return AdaBoostClassifier(n_estimators=args.n_estimators, learning_rate=args.learning_rate,
                              random_state=_seed(args))


def build_naive_bayes(args, n_classes):
    from sklearn import naive_bayes
    if args.distribution == "gaussian":
        return naive_bayes.GaussianNB(var_smoothing=args.var_smoothing)
    if args.distribution == "multinomial":
        return naive_bayes.MultinomialNB(alpha=args.alpha)
    return naive_bayes.BernoulliNB(alpha=args.alpha)


def build_svm(args, n_classes):
    from sklearn.svm import SVC
    return _scaled(args, SVC(C=args.C, kernel=args.kernel, gamma=args.gamma, degree=args.degree,
                             probability=args.probability, random_state=_seed(args)))


def build_xgboost(args, n_classes):
    from xgboost import XGBClassifier
    objective = "binary:logistic" if n_classes <= 2 else "multi:softprob"
    return XGBClassifier(n_estimators=args.n_estimators, max_depth=args.max_depth,
                         learning_rate=args.learning_rate, subsample=args.subsample,
                         colsample_bytree=args.colsample_bytree, reg_lambda=args.reg_lambda,
                         objective=objective, n_jobs=args.threads, random_state=_seed(args),
                         verbosity=0)


BUILDERS = {
    "lr": build_lr, "random-forest": build_random_forest, "gbdt": build_gbdt,
    "decision-tree": build_decision_tree, "knn": build_knn, "kmeans": build_kmeans,
    "adaboost": build_adaboost, "naive-bayes": build_naive_bayes, "svm": build_svm,
    "xgboost": build_xgboost,
}
CLUSTERERS = ("kmeans",)


def _cluster_classes(model, X, y_idx, n_clusters):
    """The majority class of each cluster on the training data."""
    import numpy as np
    clusters = model.predict(X)
    mapping = []
    for c in range(n_clusters):
        members = y_idx[clusters == c]
        mapping.append(int(np.bincount(members).argmax()) if len(members) else 0)
    return mapping


def train(task, algorithm):
    args = task.args
    frame = cube_data.read_table(task.path(args.train_csv), "training")
    clusterer = algorithm in CLUSTERERS
    X, y, names, label = cube_data.features_and_label(
        frame, args.label_column, cube_data.split_columns(args.feature_columns),
        label_required=not clusterer)
    y_idx, classes = (None, None) if y is None else cube_data.encode_labels(y)
    if not clusterer and len(classes) < 2:
        fail("label column '%s' has a single class; a classifier needs two or more" % label)
    if clusterer and args.n_clusters > len(X):
        fail("argument --n_clusters: %d clusters for %d rows" % (args.n_clusters, len(X)))
    model = BUILDERS[algorithm](args, len(classes or ()))
    try:
        model.fit(X, y_idx) if not clusterer else model.fit(X)
    except ValueError as e:  # e.g. negative features for multinomial NB
        fail("training failed: %s" % e)
    bundle = {"algorithm": algorithm, "model": model, "features": names, "label": label,
              "classes": classes, "params": vars(args)}
    if clusterer:
        score = -float(model.score(X))  # inertia
        if y_idx is not None:
            bundle["cluster_classes"] = _cluster_classes(model, X, y_idx, args.n_clusters)
    else:
        score = float(model.score(X, y_idx))
    model_path = task.path(args.model_path, "models/%s%s" % (
        task.template["name"], cube_data.bundle_extension(algorithm)))
    digest = cube_data.save_bundle(model_path, bundle)
    task.output(model_path=model_path, model_sha256=digest, train_score=round(score, 6),
                n_features=len(names), n_classes=len(classes or ()))
    print("trained %s on %d rows x %d features; %s %.4f; saved %s" % (
        algorithm, len(X), len(names), "inertia" if clusterer else "train accuracy",
        score, model_path))
    return model_path


def main(script_file, algorithm, argv=None):
    task = cube_task.start(script_file, argv)
    return train(task, algorithm)
