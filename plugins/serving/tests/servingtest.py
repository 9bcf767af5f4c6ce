"""Shared set-up of the serving tests: a running cubed with executor-local,
serving and models, users dana (dev), vic (viewer), olga (no member), the
project lab, and helpers to create services, wait on them, read their
events and send v2 requests through cubed's apps origin."""
import http.client
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import unittest

from cubetest import Cubed

PY = "/usr/bin/python3"
BASE = "/api/v1/projects/lab"
RES = {"cpu": "100m", "memory": "256Mi"}
HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("CUBE_BUILD_PLUGINS", "build/plugins")
SOURCE = os.environ.get("CUBE_SOURCE_ROOT", os.path.join(HERE, "..", "..", ".."))
OCTET = {"Content-Type": "application/octet-stream"}


def plugin_dir(names=("executor-local", "serving", "models")):
    d = tempfile.mkdtemp(prefix="cube-serving-plugins-")
    for name in names:
        os.symlink(os.path.abspath(os.path.join(BUILD, name)), os.path.join(d, name))
    return d


def tensor(rows):
    return {"inputs": [{"name": "x", "shape": [len(rows), len(rows[0])], "datatype": "FP64",
                        "data": sum(rows, [])}]}


class Load:
    """Clients sending v2 requests to a service until stopped; every answer
    is recorded (status, model_version or the error)."""

    def __init__(self, case, svc, rows, threads=1, model=None, auth=None):
        self.case, self.svc, self.rows, self.model = case, svc, rows, model or svc
        self.auth = auth or case.dev_auth()
        self.stop_ev = threading.Event()
        self.lock = threading.Lock()
        self.ok, self.failed, self.versions, self.by = 0, [], {}, {}
        self.threads = [threading.Thread(target=self.loop, daemon=True) for _ in range(threads)]
        for t in self.threads:
            t.start()

    def loop(self):
        body = json.dumps(tensor(self.rows))
        h = {"Content-Type": "application/json"}
        h.update(self.auth)
        conn = None
        while not self.stop_ev.is_set():
            try:
                conn = conn or http.client.HTTPConnection("127.0.0.1", self.case.c.apps_port,
                                                          timeout=60)
                conn.request("POST", f"/serving/lab/{self.svc}/v2/models/{self.model}/infer",
                             body, h)
                r = conn.getresponse()
                data = r.read()
                if r.status != 200:
                    with self.lock:
                        self.failed.append((time.time(), r.status, data[:300]))
                    continue
                doc = json.loads(data)
                with self.lock:
                    self.ok += 1
                    v = doc.get("model_version")
                    self.versions[v] = self.versions.get(v, 0) + 1
                    who = doc.get("job") or v
                    self.by[who] = self.by.get(who, 0) + 1
            except (OSError, http.client.HTTPException, ValueError) as e:
                with self.lock:
                    self.failed.append((time.time(), "error", repr(e)))
                if conn:
                    conn.close()
                conn = None
        if conn:
            conn.close()

    def latest(self, n=20):
        """Clears the per-version counts and returns them after n more answers."""
        with self.lock:
            self.versions, start = {}, self.ok
        deadline = time.time() + 60
        while time.time() < deadline:
            with self.lock:
                if self.ok - start >= n:
                    return dict(self.versions)
            time.sleep(0.05)
        self.case.fail(f"no answers: {self.failed[-3:]}")

    def stop(self):
        self.stop_ev.set()
        for t in self.threads:
            t.join(60)
        return self


class ServingCase(unittest.TestCase):
    """EXTRA_PLUGINS: plugins cubed loads besides executor-local, serving
    and models (name -> conf); CUBE: keys of cube.yaml
    (e.g. web_root for a browser test)."""
    SERVING_CONF = {"autoscale_interval_ms": 200}
    EXTRA_PLUGINS = {}
    CUBE = None

    @classmethod
    def setUpClass(cls):
        plugins = {"executor-local": None, "serving": cls.SERVING_CONF, "models": None}
        plugins.update(cls.EXTRA_PLUGINS)
        cls.plugin_links = plugin_dir(tuple(plugins))
        cls.c = Cubed(plugins=plugins, plugin_dir=cls.plugin_links, cube=cls.CUBE)
        cls.a = cls.c.admin()
        cls.dev = cls.c.make_user("dana")
        cls.viewer = cls.c.make_user("vic")
        cls.out = cls.c.make_user("olga")
        cls.c.make_project("lab", [("dana", "dev"), ("vic", "viewer")])
        cls.pdir = os.path.join(cls.c.dir, "var", "projects", "lab")
        os.makedirs(os.path.join(cls.pdir, "models"), exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        try:
            stop_replicas(cls.c)
        finally:
            cls.c.close()
            shutil.rmtree(cls.plugin_links, ignore_errors=True)

    def create(self, name, spec, who=None, status=201):
        r = (who or self.dev).request("POST", f"{BASE}/inferenceservices",
                                      {"metadata": {"name": name}, "spec": spec})
        self.assertEqual(r.status, status, r.body)
        return r.json()

    def status(self, name):
        return self.a.get(f"{BASE}/inferenceservices/{name}").json().get("status", {})

    def wait(self, name, cond, timeout=90, what="condition"):
        deadline = time.time() + timeout
        st = {}
        while time.time() < deadline:
            st = self.status(name)
            if cond(st):
                return st
            time.sleep(0.1)
        self.fail(f"{name}: {what} not reached: {json.dumps(st)}\n"
                  f"{self.events(name)[-3000:]}\n{self.c.output()[-3000:]}")

    def ready(self, name, timeout=90):
        return self.wait(name, lambda st: st.get("phase") == "Ready", timeout, "Ready")

    def event_list(self, name, kind="InferenceService"):
        r = self.a.get(f"{BASE}/events?limit=1000")
        return [e for e in r.json().get("items", [])
                if e.get("involvedObject", {}).get("kind") == kind
                and e.get("involvedObject", {}).get("name") == name]

    def events(self, name, kind="InferenceService"):
        return "\n".join(f"{e.get('reason')}: {e.get('message')}"
                         for e in self.event_list(name, kind))

    def reasons(self, name):
        return [e.get("reason") for e in self.event_list(name)]

    def dev_auth(self):
        return {"Authorization": self.dev.headers["Authorization"]}

    def conn(self, timeout=60):
        """A connection to cubed's apps origin (for requests in a row)."""
        return http.client.HTTPConnection("127.0.0.1", self.c.apps_port, timeout=timeout)

    def infer(self, svc, rows, model=None, headers=None, timeout=60, conn=None):
        """A v2 infer as dana (or with `headers`); (status, JSON or bytes).
        `conn` (self.conn()) is used and left open, else one is made."""
        h = {"Content-Type": "application/json"}
        h.update(self.dev_auth() if headers is None else headers)
        c = conn or self.conn(timeout)
        try:
            c.request("POST", f"/serving/lab/{svc}/v2/models/{model or svc}/infer",
                      json.dumps(tensor(rows)), h)
            r = c.getresponse()
            data = r.read()
        finally:
            if not conn:
                c.close()
        return r.status, (json.loads(data) if data.startswith(b"{") else data)

    # -- models ----------------------------------------------------------------

    def register(self, name, spec, timeout=60):
        r = self.dev.request("POST", f"{BASE}/models", {"metadata": {"name": name}, "spec": spec})
        self.assertEqual(r.status, 201, r.body)
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = self.a.get(f"{BASE}/models/{name}").json().get("status", {})
            if st.get("phase") in ("Ready", "Failed"):
                self.assertEqual(st["phase"], "Ready", st)
                return st
            time.sleep(0.1)
        self.fail(f"model {name} never Ready")

    def deploy(self, model, body, status=(200, 201), who=None):
        r = (who or self.dev).request("POST", f"{BASE}/models/{model}/deploy", body)
        self.assertIn(r.status, status, r.body)
        return r.json()


def stop_replicas(c, project="lab", timeout=60):
    """Deletes the project's services and Jobs and waits until the Jobs are
    gone: executor-local's replicas outlive cubed (a restarted cubed adopts
    them), so a test that just stopped cubed would leave them running."""
    a = c.admin()
    for plural in ("inferenceservices", "jobs"):
        for o in a.get(f"/api/v1/projects/{project}/{plural}").json().get("items", []):
            a.request("DELETE", f"/api/v1/projects/{project}/{plural}/{o['metadata']['name']}")
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not a.get(f"/api/v1/projects/{project}/jobs").json().get("items"):
            return
        time.sleep(0.2)
    raise AssertionError("replica Jobs still there after deleting them")


def run_py(code, *args):
    """Runs code under /usr/bin/python3; its stdout parsed as JSON."""
    out = subprocess.run([PY, "-c", code, *args], capture_output=True, text=True, check=True,
                         timeout=300, env=dict(os.environ, OMP_NUM_THREADS="1"))
    return json.loads(out.stdout.strip().splitlines()[-1])
