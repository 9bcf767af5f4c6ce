"""hyperparam-search: runs an Experiment of the hpsearch plugin from a
pipeline task and outputs its best parameters.

The Experiment is made in the task's project with the task's own
credentials (CUBE_API, CUBE_PROJECT, CUBE_TOKEN: it belongs to whoever the
run is for, and so do its trials), named after the task's Job, so a retry
of the task follows the same Experiment instead of starting another. Each
trial runs --command with bash -c in the run directory. When the
Experiment ends the outputs are written (CUBE_OUTPUTS):

  best_value, best_trial, best_parameters (JSON), experiment, trials
  best_<name> for each parameter (a nested choice: best_<name> is the
  option's _name, best_<name>_<sub> its parameters)

so the next tasks read {{ tasks.<this task>.outputs.best_lr }}. The task
fails (exit 1) when the Experiment Failed or was stopped; a stopped task
(SIGTERM) stops its Experiment.
"""
import hashlib
import json
import os
import signal
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_lib"))
import cube_task  # noqa: E402

POLL_S = 2.0


def api(method, path, body=None):
    """One API call with the task's token: (status, JSON answer)."""
    url = os.environ["CUBE_API"].rstrip("/") + path
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": "Bearer " + os.environ["CUBE_TOKEN"], "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.load(e)
        except ValueError:
            return e.code, {}


def experiment_name():
    """The task Job's name, cut to the 50 characters an Experiment takes."""
    job = os.environ.get("CUBE_JOB") or "hyperparam-search"
    if len(job) <= 50:
        return job
    return job[:41].rstrip("-") + "-" + hashlib.sha256(job.encode()).hexdigest()[:8]


def spec_of(args, run_dir):
    def obj(value, flag):
        if value in (None, ""):
            return {}
        if not isinstance(value, dict):
            cube_task.fail("argument %s: must be a JSON object" % flag)
        return value
    spec = {
        "searchSpace": obj(args.search_space, "--search_space"),
        "objective": {"metric": args.metric or "default", "direction": args.direction},
        "tuner": {"name": args.tuner, "args": obj(args.tuner_args, "--tuner_args")},
        "trial": {"command": ["/bin/bash", "-c", args.command], "workdir": run_dir,
                  "resources": {"cpu": args.trial_cpu, "memory": args.trial_memory}},
        "trialConcurrency": args.concurrency, "maxTrials": args.max_trials,
        "maxDurationSeconds": args.max_duration,
    }
    if args.assessor and args.assessor != "none":
        spec["assessor"] = {"name": args.assessor,
                            "args": obj(args.assessor_args, "--assessor_args")}
    return spec


def start(project, name, spec):
    status, out = api("POST", "/api/v1/projects/%s/experiments" % project,
                      {"metadata": {"name": name}, "spec": spec})
    if status == 201:
        print("experiment %s started: %d trials, %d at a time, tuner %s"
              % (name, spec["maxTrials"], spec["trialConcurrency"], spec["tuner"]["name"]), flush=True)
    elif status == 409:
        print("experiment %s exists (the task runs again): following it" % name, flush=True)
    else:
        err = out.get("error", {})
        cube_task.fail("the experiment was refused (%d): %s%s" % (
            status, err.get("message", out), " (field %s)" % err["field"] if err.get("field") else ""))


def follow(project, name):
    path = "/api/v1/projects/%s/experiments/%s" % (project, name)
    shown = None
    while True:
        status, out = api("GET", path)
        if status != 200:
            cube_task.fail("the experiment %s cannot be read (%d)" % (name, status))
        st = out.get("status", {})
        counts = st.get("trials", {})
        line = "%s: %s of %s trials ended, best %s" % (
            st.get("phase", "Pending"), counts.get("total", 0) - counts.get("Running", 0) -
            counts.get("Pending", 0), counts.get("total", 0),
            st.get("best", {}).get("value", "none yet"))
        if line != shown:
            print(line, flush=True)
            shown = line
        if st.get("phase") in ("Succeeded", "Failed", "Stopped"):
            return st
        time.sleep(POLL_S)


def text(value):
    """A float in its shortest exact form ("0.3": the pipeline renders a
    float output with every digit); other values as they are."""
    return repr(value) if isinstance(value, float) else value


def outputs_of(name, st):
    best = st.get("best") or {}
    out = {"experiment": name, "best_value": text(best.get("value")), "best_trial": best.get("trial"),
           "best_parameters": json.dumps(best.get("parameters", {}), sort_keys=True),
           "trials": st.get("trials", {}).get("total", 0)}
    for key, value in (best.get("parameters") or {}).items():
        if isinstance(value, dict):   # a nested choice
            out["best_" + key] = value.get("_name")
            for sub, v in value.items():
                if sub != "_name":
                    out["best_%s_%s" % (key, sub)] = text(v)
        else:
            out["best_" + key] = text(value)
    return out


def main(argv=None):
    task = cube_task.start(__file__, argv)
    for var in ("CUBE_API", "CUBE_PROJECT", "CUBE_TOKEN"):
        if not os.environ.get(var):
            cube_task.fail("%s is not set: this template runs as a Cube task" % var)
    project, name = os.environ["CUBE_PROJECT"], experiment_name()

    def stop(signum, frame):
        api("POST", "/api/v1/projects/%s/experiments/%s/stop" % (project, name), {})
        print("task stopped: experiment %s stopped" % name, flush=True)
        sys.exit(128 + signum)
    signal.signal(signal.SIGTERM, stop)
    start(project, name, spec_of(task.args, task.run_dir))
    st = follow(project, name)
    if st.get("phase") != "Succeeded":
        cube_task.fail("experiment %s %s: %s" % (name, st.get("phase"), st.get("message", "")))
    task.output(**outputs_of(name, st))
    print("best trial %s: %s = %s with %s" % (st["best"]["trial"], task.args.metric,
                                            st["best"]["value"], st["best"]["parameters"]))


if __name__ == "__main__":
    main()
