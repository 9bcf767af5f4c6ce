"""jobs_load.py — submit N short jobs with bounded concurrency and time them,
for tests/bench/local_vs_slurm.sh. Stdlib only (run with /usr/bin/python3).

  jobs_load.py cube --port P --token T [--project bench] [--cpu 100m] [--memory 16Mi]
  jobs_load.py slurm --jobcomp FILE [--sbatch-arg ARG]... [--wrap CMD]
  both: [--jobs 1000] [--threads 16] [--prefix bench-] [--timeout 900] [--stall 60]

cube: THREADS threads POST Jobs named PREFIX0.. (spec.command ["true"], 1
replica, resources {cpu: CPU, memory: MEMORY}) to /api/v1/projects/PROJECT/jobs
over keep-alive connections of their own, as a bearer of TOKEN. Completions are
seen on one watch of the project's jobs (GET ...?watch=1, Server-Sent
Events) opened before the first submit: a job is done when an event shows
it in a terminal phase (Succeeded, Failed, Cancelled); the time is when the
bytes that hold the event were received. Should the watch end early, the
list is polled instead (every 50 ms). At the end the list is read once for
the server's own timestamps (status.queued/admitted/started/finished) and
the phases of the jobs not seen to end.

slurm: THREADS threads run `sbatch --parsable -o /dev/null -J PREFIXi [ARG...]
--wrap CMD` (CMD `true` unless --wrap; SLURM_CONF from the environment). Completions are seen in the
JobCompType=jobcomp/filetxt file that slurmctld appends one line to per
finished job, read every 5 ms: a job is done when its line appears. Slurm's
own SubmitTime/EndTime (whole seconds) are read from those lines.

Both: a job's latency is from just before its submit request went out to
when its completion was seen, on one clock (this process). Throughput is
N / (first submit to last completion). Prints one JSON line: jobs,
submitted, completed, failed (ended other than successfully), errors
(submits refused or failed, first few messages), wall_s, submit_s (first to
last submit answered), jobs_per_s, latency p50/p90/p99/max in ms, submit
round trip p50/p99 in ms, the server-side submit-to-finish p50 in ms, and
missing (submitted but not seen to end before --timeout, or before no job
had ended for --stall seconds).
"""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

TERMINAL = {"Succeeded", "Failed", "Cancelled"}


def pct(vals, p):
    if not vals:
        return None
    s = sorted(vals)
    return s[min(len(s) - 1, int(round(p * (len(s) - 1))))]


def ms(v):
    return None if v is None else round(v * 1000, 1)


class Submitter:
    """Runs submit(i) for i in 0..n-1 from `threads` threads."""

    def __init__(self, n, threads, submit):
        self.n, self.next, self.lock = n, 0, threading.Lock()
        self.submit = submit
        self.sent = [None] * n      # time just before the request
        self.acked = [None] * n     # time the answer came
        self.ok = [False] * n
        self.errors = []
        self.threads = [threading.Thread(target=self.run, daemon=True) for _ in range(threads)]

    def take(self):
        with self.lock:
            if self.next >= self.n:
                return None
            i = self.next
            self.next += 1
            return i

    def run(self):
        state = {}
        while True:
            i = self.take()
            if i is None:
                break
            self.sent[i] = time.time()
            try:
                self.ok[i] = self.submit(i, state)
            except Exception as e:  # noqa: BLE001 - counted and reported
                self.ok[i] = False
                self.errors.append(f"{i}: {e}")
                state.clear()
            self.acked[i] = time.time()

    def start(self):
        for t in self.threads:
            t.start()

    def join(self):
        for t in self.threads:
            t.join()


# --- Cube ---------------------------------------------------------------------


class Watch(threading.Thread):
    """One SSE watch; done[name] = (receive time, phase) for terminal phases."""

    def __init__(self, port, path, token, done, lock):
        super().__init__(daemon=True)
        self.done, self.lock = done, lock
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Authorization: Bearer {token}\r\n"
                          "Accept: text/event-stream\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            data = self.sock.recv(65536)
            if not data:
                raise OSError("watch closed before its response head")
            head += data
        head, self.rest = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if int(lines[0].split()[1]) != 200:
            raise OSError(f"watch answered {lines[0]}")
        self.chunked = any(ln.lower().startswith("transfer-encoding:") and "chunked" in ln.lower()
                           for ln in lines[1:])
        self.sock.settimeout(None)
        self.ended = False
        self.stop = False

    def run(self):
        raw, body, left, state = b"", b"", 0, "size"
        data, stamp = self.rest, time.time()
        try:
            while not self.stop:
                if data:
                    if self.chunked:   # de-chunk
                        raw += data
                        out = []
                        while raw:
                            if state == "data":
                                take = raw[:left]
                                out.append(take)
                                raw = raw[len(take):]
                                left -= len(take)
                                if left == 0:
                                    state = "crlf"
                            elif state == "crlf":
                                if len(raw) < 2:
                                    break
                                raw, state = raw[2:], "size"
                            else:
                                nl = raw.find(b"\r\n")
                                if nl < 0:
                                    break
                                left = int(raw[:nl].split(b";")[0], 16)
                                raw = raw[nl + 2:]
                                if left == 0:
                                    self.ended = True
                                    return
                                state = "data"
                        data = b"".join(out)
                    body += data
                    while b"\n\n" in body:
                        ev, body = body.split(b"\n\n", 1)
                        self.event(ev, stamp)
                data = self.sock.recv(1 << 20)
                stamp = time.time()
                if not data:
                    break
        except OSError:
            pass
        self.ended = True

    def event(self, ev, stamp):
        for line in ev.split(b"\n"):
            if line.startswith(b"data:"):
                try:
                    obj = json.loads(line[5:]).get("object") or {}
                except ValueError:
                    continue
                phase = (obj.get("status") or {}).get("phase")
                if phase in TERMINAL:
                    name = obj.get("metadata", {}).get("name")
                    with self.lock:
                        self.done.setdefault(name, (stamp, phase))


class Cube:
    def __init__(self, port, token, project):
        self.port, self.token, self.project = port, token, project
        self.path = f"/api/v1/projects/{project}/jobs"
        self.headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}

    def request(self, conn, method, path, body=None):
        conn.request(method, path, body=body, headers=self.headers)
        r = conn.getresponse()
        return r.status, r.read()

    def list_all(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        items, cont = [], ""
        try:
            while True:
                q = f"{self.path}?limit=500" + (f"&continue={cont}" if cont else "")
                st, body = self.request(conn, "GET", q)
                if st != 200:
                    raise OSError(f"list answered {st}: {body[:200]!r}")
                doc = json.loads(body)
                items += doc.get("items", [])
                cont = (doc.get("metadata") or {}).get("continue") or ""
                if not cont:
                    return items
        finally:
            conn.close()


def parse_ts(s):
    """RFC 3339 UTC with optional fraction -> epoch seconds (float)."""
    m = re.match(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z$", s or "")
    if not m:
        return None
    import calendar
    t = calendar.timegm(tuple(int(m.group(k)) for k in range(1, 7)) + (0, 0, 0))
    return t + (float(m.group(7)) if m.group(7) else 0.0)


def run_cube(port, token, project, n, threads, prefix, cpu, memory, timeout, stall):
    c = Cube(port, token, project)
    done, lock = {}, threading.Lock()
    watch = Watch(port, c.path + "?watch=1", token, done, lock)
    watch.start()

    def submit(i, state):
        conn = state.get("conn")
        if conn is None:
            conn = state["conn"] = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        body = json.dumps({"metadata": {"name": f"{prefix}{i}"},
                           "spec": {"command": ["true"],
                                    "resources": {"cpu": cpu, "memory": memory}}})
        st, resp = c.request(conn, "POST", c.path, body)
        if st != 201:
            raise OSError(f"POST answered {st}: {resp[:200]!r}")
        return True

    sub = Submitter(n, threads, submit)
    sub.start()
    sub.join()
    want = {f"{prefix}{i}" for i in range(n) if sub.ok[i]}
    polled = False
    for _ in waiting(sub, want, done, lock, timeout, stall):
        if watch.ended:   # the watch stopped: poll the list instead
            polled = True
            for it in c.list_all():
                ph = (it.get("status") or {}).get("phase")
                if ph in TERMINAL:
                    with lock:
                        done.setdefault(it["metadata"]["name"], (time.time(), ph))
            time.sleep(0.05)
        else:
            time.sleep(0.01)
    watch.stop = True
    server, steps, stuck = [], {"admit": [], "start": [], "end": []}, {}
    for it in c.list_all():
        name = it["metadata"]["name"]
        st = it.get("status") or {}
        if name not in want:
            continue
        t = {k: parse_ts(st.get(k)) for k in ("queued", "admitted", "started", "finished")}
        if t["queued"] is not None and t["finished"] is not None:
            server.append(t["finished"] - t["queued"])
        for step, a, b in (("admit", "queued", "admitted"), ("start", "admitted", "started"),
                           ("end", "started", "finished")):
            if t[a] is not None and t[b] is not None:
                steps[step].append(t[b] - t[a])
        if name not in done:
            ph = st.get("phase") or "none"
            stuck[ph] = stuck.get(ph, 0) + 1
    res = summary(n, sub, lambda i: f"{prefix}{i}", done, want, timeout, "Succeeded")
    res["server_p50_ms"] = ms(pct(server, 0.5))
    # the server's timestamps, step by step (medians): queued -> admitted
    # (scheduler), admitted -> started (executor start), started -> finished
    res["steps_p50_ms"] = {k: ms(pct(v, 0.5)) for k, v in steps.items()}
    res["missing_phases"] = stuck   # phase of the jobs not seen to end
    res["server_note"] = "status.finished - status.queued (ms resolution)"
    res["watch_fell_back_to_polling"] = polled
    return res


# --- Slurm --------------------------------------------------------------------

COMP_RE = re.compile(r"JobId=(\d+) .*?JobState=(\S+)")
FIELD_RE = re.compile(r"\b(SubmitTime|EndTime)=(\S+)")


class CompTail(threading.Thread):
    """Reads the jobcomp/filetxt file every 5 ms; done[jobid] = (time, state)."""

    def __init__(self, path, done, lock):
        super().__init__(daemon=True)
        self.path, self.done, self.lock = path, done, lock
        self.server = {}
        self.stop = False

    def run(self):
        f, buf = None, b""
        while not self.stop:
            if f is None:
                try:
                    f = open(self.path, "rb")
                except OSError:
                    time.sleep(0.005)
                    continue
            data = f.read()
            stamp = time.time()
            if data:
                buf += data
                *lines, buf = buf.split(b"\n")
                for raw in lines:
                    line = raw.decode("utf-8", "replace")
                    m = COMP_RE.search(line)
                    if not m:
                        continue
                    f2 = dict(FIELD_RE.findall(line))
                    with self.lock:
                        self.done.setdefault(m.group(1), (stamp, m.group(2)))
                        self.server[m.group(1)] = f2
            else:
                time.sleep(0.005)


def slurm_ts(s):
    try:
        return time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))
    except (ValueError, TypeError):
        return None


def run_slurm(jobcomp, n, threads, prefix, timeout, stall, extra=(), wrap="true"):
    done, lock = {}, threading.Lock()
    tail = CompTail(jobcomp, done, lock)
    tail.start()
    ids = [None] * n

    def submit(i, state):
        p = subprocess.run(["sbatch", "--parsable", "-o", "/dev/null", "-e", "/dev/null",
                            "-J", f"{prefix}{i}", *extra, "--wrap", wrap],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise OSError(f"sbatch exit {p.returncode}: {p.stderr.strip()[:200]}")
        ids[i] = p.stdout.strip().split(";")[0]
        return True

    sub = Submitter(n, threads, submit)
    sub.start()
    sub.join()
    want = {ids[i] for i in range(n) if sub.ok[i]}
    for _ in waiting(sub, want, done, lock, timeout, stall):
        time.sleep(0.01)
    tail.stop = True
    server = []
    with lock:
        for j in want:
            f = tail.server.get(j)
            if f:
                a, b = slurm_ts(f.get("SubmitTime")), slurm_ts(f.get("EndTime"))
                if a is not None and b is not None:
                    server.append(b - a)
    res = summary(n, sub, lambda i: ids[i], done, want, timeout, "COMPLETED")
    res["server_p50_ms"] = ms(pct(server, 0.5))
    res["server_note"] = "EndTime - SubmitTime of jobcomp (whole seconds)"
    return res


# --- both -----------------------------------------------------------------------


def waiting(sub, want, done, lock, timeout, stall):
    """Yields until every job in want is done, timeout seconds have passed
    since the first submit, or no job has ended for stall seconds."""
    deadline = min(sub.sent) + timeout
    seen, last = -1, time.time()
    while True:
        now = time.time()
        with lock:
            got = len(want & done.keys())
        if got == len(want) or now >= deadline:
            return
        if got != seen:
            seen, last = got, now
        elif now - last >= stall:
            return
        yield


def summary(n, sub, key, done, want, timeout, success):
    lat, fin, failed = [], [], 0
    for i in range(n):
        k = key(i)
        if not sub.ok[i] or k not in done:
            continue
        t, state = done[k]
        lat.append(t - sub.sent[i])
        fin.append(t)
        if state != success:
            failed += 1
    rtt = [sub.acked[i] - sub.sent[i] for i in range(n) if sub.ok[i]]
    first = min(sub.sent)
    wall = (max(fin) - first) if fin else None
    return {
        "jobs": n, "submitted": sum(sub.ok), "completed": len(lat), "failed": failed,
        "errors": len(sub.errors), "error_samples": sub.errors[:3],
        "missing": len(want) - len(lat),   # submitted, never seen to end
        "wall_s": None if wall is None else round(wall, 3),
        "submit_s": round(max(sub.acked) - first, 3),
        # over the jobs seen to end; the script calls it a figure only when
        # every job was submitted and ended
        "jobs_per_s": round(len(lat) / wall, 2) if wall else None,
        "p50_ms": ms(pct(lat, 0.5)), "p90_ms": ms(pct(lat, 0.9)),
        "p99_ms": ms(pct(lat, 0.99)), "max_ms": ms(max(lat) if lat else None),
        "submit_p50_ms": ms(pct(rtt, 0.5)), "submit_p99_ms": ms(pct(rtt, 0.99)),
    }


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="Submit N short jobs and time them.")
    ap.add_argument("target", choices=["cube", "slurm"])
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--prefix", default="bench-")
    ap.add_argument("--timeout", type=float, default=900,
                    help="give up this many seconds after the first submit")
    ap.add_argument("--stall", type=float, default=60,
                    help="give up when no job has ended for this many seconds")
    ap.add_argument("--port", type=int, help="cube: cubed's loopback port")
    ap.add_argument("--token", help="cube: API token")
    ap.add_argument("--project", default="bench", help="cube: project")
    ap.add_argument("--cpu", default="100m", help="cube: spec.resources.cpu")
    ap.add_argument("--memory", default="16Mi", help="cube: spec.resources.memory")
    ap.add_argument("--jobcomp", help="slurm: the jobcomp/filetxt file")
    ap.add_argument("--sbatch-arg", action="append", default=[],
                    help="slurm: one more sbatch argument (repeatable), before --wrap")
    ap.add_argument("--wrap", default="true", help="slurm: the --wrap command")
    o = ap.parse_args(argv[1:])
    if o.target == "cube":
        if not o.port or not o.token:
            ap.error("cube needs --port and --token")
        res = run_cube(o.port, o.token, o.project, o.jobs, o.threads, o.prefix, o.cpu,
                       o.memory, o.timeout, o.stall)
    else:
        if not o.jobcomp:
            ap.error("slurm needs --jobcomp")
        res = run_slurm(o.jobcomp, o.jobs, o.threads, o.prefix, o.timeout, o.stall,
                        o.sbatch_arg, o.wrap)
    print(json.dumps(res))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    os._exit(main(sys.argv))  # daemon threads may still sit in recv()
