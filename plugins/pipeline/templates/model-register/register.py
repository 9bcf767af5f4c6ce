"""model-register: registers what a training task saved as the next version
of a model family in the registry (the models plugin), from a pipeline
task, with the task's own credentials (CUBE_API, CUBE_PROJECT, CUBE_TOKEN:
the version belongs to whoever the run is for).

The file or directory is registered where it is (the run directory is in
the project's files): cubed reads it, hashes it and checks it is of the
framework, never loading it. With --model_sha256 the registered digest
must be the one the training task recorded (its model_sha256 output);
otherwise the version is deleted again and the task fails, so a file
another member swapped in between is never registered. The version's
source is the pipeline run and task; a task that runs again (a retry, a
rerun) finds the version it registered before by that source and the
digest, and registers nothing twice. Metrics come from --model_metric and
--metrics_file (model-evaluate's metrics.json). Outputs:

  model (the Model object's name), model_name, model_version,
  model_sha256, stage
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_lib"))
import cube_task  # noqa: E402
from cube_task import fail  # noqa: E402


def scalar_metrics(doc, what):
    if not isinstance(doc, dict):
        fail("%s: must be a JSON object of metrics" % what)
    return {k: v for k, v in doc.items() if isinstance(v, (int, float, str, bool))}


def metrics_of(task):
    args = task.args
    metrics = scalar_metrics(args.model_metric, "--model_metric") if args.model_metric else {}
    if args.metrics_file:
        path = task.path(args.metrics_file)
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            fail("--metrics_file %s: %s" % (args.metrics_file, e))
        for key, value in scalar_metrics(doc, "--metrics_file").items():
            metrics.setdefault(key, value)
    return metrics


def source():
    src = {"kind": "PipelineRun", "name": os.environ.get("CUBE_PIPELINE_RUN", "")}
    if os.environ.get("CUBE_PIPELINE"):
        src["pipeline"] = os.environ["CUBE_PIPELINE"]
    if os.environ.get("CUBE_TASK"):
        src["task"] = os.environ["CUBE_TASK"]
    if os.environ.get("CUBE_JOB"):
        src["job"] = os.environ["CUBE_JOB"]
    return src if src["name"] else None


def registered_before(cube, name, src, expected):
    """The version this task registered on an earlier attempt, if any."""
    if not src:
        return None
    for m in cube.models.versions(name):
        s = m.obj.spec.get("source") or {}
        if s.get("name") == src["name"] and s.get("task") == src.get("task") and \
                (not expected or m.obj.status.get("sha256") == expected):
            return m
    return None


def main(argv=None):
    task = cube_task.start(__file__, argv)
    args = task.args
    for var in ("CUBE_API", "CUBE_PROJECT", "CUBE_TOKEN"):
        if not os.environ.get(var):
            fail("%s is not set: this template runs as a Cube task" % var)
    try:
        import cube
    except ImportError:
        fail("Cube's Python SDK is not on PYTHONPATH (cubed puts it there for tasks)")
    path = task.path(args.model_path)
    if not os.path.exists(path):
        fail("--model_path %s: no such file or directory" % args.model_path)
    expected = (args.model_sha256 or "").strip().lower()
    if expected and not cube_task.SHA256_RE.match(expected):
        fail("--model_sha256: must be 64 hex digits")
    inference = {"exampleRequest": args.inference_example} if args.inference_example else None
    if inference and not isinstance(args.inference_example, (dict, list)):
        fail("--inference_example: must be a JSON object or array")
    params = args.params or None
    if params is not None and not isinstance(params, dict):
        fail("--params: must be a JSON object")
    pytorch = None
    if args.framework == "pytorch":
        pytorch = {"format": args.pytorch_format or "torchscript"}
        if args.pytorch_class:
            pytorch["class"] = args.pytorch_class
    src = source()
    try:
        m = registered_before(cube, args.model_name, src, expected)
        if m is not None:
            print("%s was registered by this task before: kept" % m.name)
        else:
            m = cube.models.register(path, framework=args.framework, name=args.model_name,
                                     version=args.model_version or None,
                                     metrics=metrics_of(task), params=params,
                                     describe=args.describe or None, inference=inference,
                                     pytorch=pytorch, source=src)
    except cube.Error as e:
        fail("the model was refused: %s" % e)
    st = m.get().status
    if expected and st.get("sha256") != expected:
        m.delete()
        fail("%s is not the file the training task wrote: its sha256 is %s, --model_sha256 "
             "says %s (it changed after training); nothing is registered"
             % (args.model_path, st.get("sha256"), expected))
    if args.stage and args.stage != "none" and st.get("stage") != args.stage:
        try:
            st = m.promote(args.stage).status
        except cube.Error as e:
            fail("%s is registered but cannot go to %s: %s" % (m.name, args.stage, e))
    task.output(model=m.name, model_name=args.model_name, model_version=m.version,
                model_sha256=st.get("sha256"), stage=st.get("stage"))
    print("registered %s: %s version %d (%s, %d bytes, sha256 %s), stage %s" % (
        m.name, args.model_name, m.version, args.framework, st.get("size", 0),
        st.get("sha256"), st.get("stage")))


if __name__ == "__main__":
    main()
