"""hpsearch_load.py — the overhead part of tests/bench/hpsearch.sh: N Jobs
running `true`, CONCURRENCY at a time, two ways against one cubed:

    hpsearch_load.py experiment --port P --token T --trials N --concurrency C --cpu Q
        one Experiment (random tuner) of N trials of `true`, trialConcurrency C;
        timed from its POST to its end (status.phase), polled every 10 ms
    hpsearch_load.py jobs --port P --token T --trials N --concurrency C --cpu Q
        the same N Jobs submitted directly, all at once, each asking cpu Q
        (Q = the node's cpu / C, so the scheduler runs C at a time, as the
        experiment does); timed from the first POST to the last Job's end
        (polled every 10 ms)

--round R names this run's objects apart (overhead-R, direct-R-<i>), so
rounds of both modes can alternate on one cubed. Prints {"wall_s": ...,
"jobs": N, ...}. Stdlib only.
"""
import argparse
import http.client
import json
import sys
import time

PROJECT = "bench"


class Api:
    def __init__(self, port, token):
        self.port, self.token = port, token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        for attempt in range(3):
            try:
                self.conn.request(method, path, body=data, headers={
                    "Authorization": "Bearer " + self.token, "Content-Type": "application/json"})
                r = self.conn.getresponse()
                text = r.read()
                return r.status, json.loads(text) if text else {}
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        raise RuntimeError(f"{method} {path}: no answer")


def job_spec(cpu):
    return {"command": ["true"], "resources": {"cpu": cpu, "memory": "32Mi"}}


def experiment(api, n, conc, cpu, rnd):
    name = f"overhead-{rnd}"
    body = {"metadata": {"name": name},
            "spec": {"searchSpace": {"x": {"_type": "uniform", "_value": [0, 1]}},
                     "tuner": {"name": "random"}, "trial": job_spec(cpu),
                     "trialConcurrency": conc, "maxTrials": n}}
    t0 = time.time()
    status, out = api.call("POST", f"/api/v1/projects/{PROJECT}/experiments", body)
    if status != 201:
        raise RuntimeError(f"experiment: {status} {out}")
    while True:
        _, e = api.call("GET", f"/api/v1/projects/{PROJECT}/experiments/{name}")
        st = e.get("status", {})
        if st.get("phase") in ("Succeeded", "Failed", "Stopped"):
            break
        time.sleep(0.01)
    wall = time.time() - t0
    trials = st.get("trials", {})
    if trials.get("total") != n or trials.get("Pending") or trials.get("Running"):
        raise RuntimeError(f"the experiment ended with {trials}")
    return {"wall_s": round(wall, 3), "jobs": n, "trials": trials}


def jobs(api, n, conc, cpu, rnd):
    t0 = time.time()
    for i in range(n):
        body = {"metadata": {"name": f"direct-{rnd}-{i + 1}", "labels": {"bench": "direct"}},
                "spec": job_spec(cpu)}
        status, out = api.call("POST", f"/api/v1/projects/{PROJECT}/jobs", body)
        if status != 201:
            raise RuntimeError(f"job {i + 1}: {status} {out}")
    submitted = time.time() - t0
    left = set(range(1, n + 1))
    while left:   # the Jobs still unfinished, the latest first (they end about in order)
        for i in sorted(left, reverse=True):
            _, j = api.call("GET", f"/api/v1/projects/{PROJECT}/jobs/direct-{rnd}-{i}")
            if j.get("status", {}).get("phase") not in ("Succeeded", "Failed", "Cancelled"):
                break
            left.discard(i)
        if left:
            time.sleep(0.01)
    return {"wall_s": round(time.time() - t0, 3), "jobs": n, "submit_s": round(submitted, 3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("experiment", "jobs"))
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--trials", type=int, default=500)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--cpu", default="250m")
    ap.add_argument("--round", type=int, default=1)
    a = ap.parse_args()
    api = Api(a.port, a.token)
    run = experiment if a.mode == "experiment" else jobs
    print(json.dumps(run(api, a.trials, a.concurrency, a.cpu, a.round)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
