"""pipeline_load.py — one layered DAG of `true` tasks, for tests/bench/pipeline.sh.
Stdlib only (run with /usr/bin/python3).

  pipeline_load.py graph --layers L --width W --deps D    prints the edges as JSON
  pipeline_load.py make --dir DIR ...                     writes DIR/Makefile
  pipeline_load.py slurm --out FILE ...                   submits with afterok, times
  pipeline_load.py cube --port P --token T ...            one PipelineRun, times

The graph: task l<i>-<j> (layer i, column j) depends, for i > 0, on D tasks
of layer i-1: columns j, j+1, ... (mod W); D = W means every task of the
layer before (a barrier between layers).

cube: creates pipeline `bench` in project PROJECT (spec.parallelism PAR),
POSTs its run action and follows the run through a watch until it ends. The
wall time is from just before the run request to when its end was seen. Then it
reads the run's Jobs for the server's timestamps and splits the time per
task: `dispatch` (the last upstream's Job finished -> this task's Job
created: the pipeline controller), `queue` (Job created -> started: the
core scheduler and executor start), `run` (started -> finished: the process
and its end being collected).

slurm: sbatch --parsable --wrap true per task, in layer order, with
--dependency=afterok:<ids of its upstreams>; done when the jobcomp file
(JobCompType=jobcomp/filetxt) has a line per task. Wall: first submit to
the last line seen.

Prints one JSON line of figures.
"""
import argparse
import http.client
import json
import os
import subprocess
import sys
import time
from datetime import datetime


def name(i, j):
    return f"l{i}-{j}"


def upstreams(i, j, width, deps):
    if i == 0:
        return []
    return [name(i - 1, (j + k) % width) for k in range(min(deps, width))]


def tasks(layers, width, deps):
    return [(name(i, j), upstreams(i, j, width, deps)) for i in range(layers)
            for j in range(width)]


def write_makefile(args):
    lines = [".PHONY: all", "all: " + " ".join(n for n, _ in tasks(args.layers, args.width,
                                                                     args.deps)), ""]
    for n, ups in tasks(args.layers, args.width, args.deps):
        lines += [f"{n}: {' '.join(ups)}", "\t@true", ""]
    with open(os.path.join(args.dir, "Makefile"), "w") as f:
        f.write("\n".join(lines))
    # the targets are phony-like names without files: make runs each once


def run_slurm(args):
    ids, t0 = {}, time.time()
    for n, ups in tasks(args.layers, args.width, args.deps):
        cmd = ["sbatch", "--parsable", "-o", "/dev/null", "-J", n, "--wrap", "true"]
        if ups:
            cmd.insert(1, "--dependency=afterok:" + ":".join(ids[u] for u in ups))
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            print(json.dumps({"error": out.stderr.strip()[:300]}))
            return 1
        ids[n] = out.stdout.strip().split(";")[0]
    submitted = time.time()
    total = len(ids)
    deadline = time.time() + args.timeout
    done = 0
    while time.time() < deadline:
        with open(args.jobcomp) as f:
            done = sum(1 for line in f if " Name=l" in line)
        if done >= total:
            break
        time.sleep(0.005)
    end = time.time()
    with open(args.jobcomp) as f:
        failed = sum(1 for line in f if " Name=l" in line and "JobState=COMPLETED" not in line)
    print(json.dumps({"tasks": total, "completed": done, "failed": failed,
                      "wall_s": round(end - t0, 3), "submit_s": round(submitted - t0, 3)}))
    return 0


class Api:
    def __init__(self, port, token):
        self.port, self.token = port, token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method, path, body=None):
        h = {"Authorization": "Bearer " + self.token, "Content-Type": "application/json"}
        self.conn.request(method, path, body=json.dumps(body) if body is not None else None,
                          headers=h)
        r = self.conn.getresponse()
        data = r.read()
        return r.status, json.loads(data) if data else {}


def ts(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() if s else None


def breakdown(api, project, run, spec_tasks):
    st, jobs = api.call("GET", f"/api/v1/projects/{project}/jobs?labelSelector=pipelinerun%3D{run}"
                        "&limit=5000")
    by_task = {}
    for j in jobs.get("items", []):
        s = j.get("status", {})
        by_task[j["metadata"]["labels"]["task"]] = {
            "created": ts(j["metadata"].get("created")), "started": ts(s.get("started")),
            "finished": ts(s.get("finished"))}
        if s.get("queued") and s.get("admitted"):
            by_task[j["metadata"]["labels"]["task"]]["_steps"] = (
                ts(s["queued"]), ts(s["admitted"]))
    disp, queue, runs, steps = [], [], [], []
    for n, ups in spec_tasks:
        t = by_task.get(n)
        if not t or None in t.values():
            continue
        if "_steps" in t:   # created -> queued -> admitted -> started
            q, a = t["_steps"]
            steps.append((q - t["created"], a - q, t["started"] - a))
        queue.append(t["started"] - t["created"])
        runs.append(t["finished"] - t["started"])
        ends = [by_task[u]["finished"] for u in ups if u in by_task and by_task[u]["finished"]]
        if ends:
            disp.append(t["created"] - max(ends))
    mean = lambda v: round(sum(v) / len(v) * 1000, 2) if v else None
    return {"jobs": len(by_task), "dispatch_ms_mean": mean(disp), "queue_ms_mean": mean(queue),
            "run_ms_mean": mean(runs),
            "queue_split_ms_mean": [mean([x[i] for x in steps]) for i in range(3)]}


def controller_seconds(api):
    """{kind: (passes, seconds)} of cube_pipeline_reconcile_seconds at /metrics."""
    api.conn.request("GET", "/metrics", headers={"Authorization": "Bearer " + api.token})
    r = api.conn.getresponse()
    text = r.read().decode()
    out = {}
    for line in text.splitlines():
        for kind in ("PipelineRun", "Pipeline"):
            for part in ("sum", "count"):
                key = f'cube_pipeline_reconcile_seconds_{part}{{kind="{kind}"}}'
                if line.startswith(key + " "):
                    out.setdefault(kind, {})[part] = float(line.split()[-1])
    return out


def wait_run_end(args, run, rv, t0):
    """Follows the run through a watch (Server-Sent Events from the run's
    version) until its phase is final: (phase, status). The watch selects
    runs labelled finished=true, which the runner sets when a run ends, so
    this process reads and parses no event before then: every status write
    of a running run (a few hundred KB for 1,000 tasks) would otherwise cost
    the machine being measured a parse here. Polling would cost it more."""
    conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=args.timeout)
    conn.request("GET", f"/api/v1/projects/{args.project}/pipelineruns?watch=1"
                 f"&labelSelector=pipeline%3Dbench%2Cfinished%3Dtrue&resourceVersion={rv}",
                 headers={"Authorization": "Bearer " + args.token})
    r = conn.getresponse()
    if r.status != 200:
        raise SystemExit(f"watch: {r.status} {r.read()[:300]}")
    phase, status = None, {}
    while time.time() < t0 + args.timeout:
        line = r.readline()
        if not line:
            break
        if not line.startswith(b"data: "):
            continue
        ev = json.loads(line[6:])
        obj = ev.get("object", {})
        if obj.get("metadata", {}).get("name") != run:
            continue
        status = obj.get("status", {})
        phase = status.get("phase")
        if phase in ("Succeeded", "Failed", "Stopped"):
            break
    conn.close()
    return phase, status


def run_cube(args):
    api = Api(args.port, args.token)
    spec_tasks = tasks(args.layers, args.width, args.deps)
    spec = {"parallelism": args.parallelism, "tasks": [
        {"name": n, "command": ["true"], "upstream": ups,
         "resources": {"cpu": args.cpu, "memory": args.memory}} for n, ups in spec_tasks]}
    st, body = api.call("POST", f"/api/v1/projects/{args.project}/pipelines",
                        {"metadata": {"name": "bench"}, "spec": spec})
    if st != 201:
        print(json.dumps({"error": f"create: {st} {str(body)[:300]}"}))
        return 1
    t0 = time.time()
    st, body = api.call("POST", f"/api/v1/projects/{args.project}/pipelines/bench/run", {})
    if st != 201:
        print(json.dumps({"error": f"run: {st} {str(body)[:300]}"}))
        return 1
    run = body["metadata"]["name"]
    phase, status = wait_run_end(args, run, body["metadata"]["resourceVersion"], t0)
    end = time.time()
    out = {"tasks": len(spec_tasks), "phase": phase, "progress": status.get("progress"),
           "wall_s": round(end - t0, 3)}
    out.update(breakdown(api, args.project, run, spec_tasks))
    for kind, v in controller_seconds(api).items():
        out[f"{kind}_passes"] = int(v.get("count", 0))
        out[f"{kind}_s"] = round(v.get("sum", 0), 3)
    print(json.dumps(out))
    return 0 if phase == "Succeeded" else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["make", "slurm", "cube"])
    ap.add_argument("--layers", type=int, default=20)
    ap.add_argument("--width", type=int, default=50)
    ap.add_argument("--deps", type=int, default=2)
    ap.add_argument("--dir")
    ap.add_argument("--jobcomp")
    ap.add_argument("--port", type=int)
    ap.add_argument("--token")
    ap.add_argument("--project", default="bench")
    ap.add_argument("--parallelism", type=int, default=50)
    ap.add_argument("--cpu", default="10m")
    ap.add_argument("--memory", default="16Mi")
    ap.add_argument("--timeout", type=float, default=900)
    args = ap.parse_args()
    if args.mode == "make":
        write_makefile(args)
        return 0
    return run_slurm(args) if args.mode == "slurm" else run_cube(args)


if __name__ == "__main__":
    sys.exit(main())
