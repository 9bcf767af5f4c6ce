"""A cubed with every console page's plugin and a real object of each kind
for the browser tests that walk the console (test_console_shell.py,
test_console_walk.py): executor-sim nodes (two nodes, 16 cpu, two
simulated GPUs each), the notebook, pipeline, hpsearch and models plugins,
a user alice (creator of project "demo", with one token of her own), a
running Job of hers (which holds a CUBE_TOKEN of its own), a pipeline with a
02:30 Asia/Shanghai schedule and one run, a notebook, an experiment and a
model version."""
import os
import tempfile
import time

from cubetest import Cubed

PLUGINS = os.path.abspath(os.environ.get("CUBE_TEST_PLUGIN_DIR", "build/plugins"))
PAGES = ("notebook", "pipeline", "hpsearch", "models")
SIM = {"pool": "default", "run_seconds": 600,
       "node_groups": [{"prefix": "n-", "count": 2, "cpu": "16", "memory": "64Gi",
                        "devices": {"resource": "sim.cube.dev/gpu", "count": 2}}]}
ALICE_PASSWORD = "alice-password-123"
P = "/api/v1/projects/demo"


def missing_pages():
    return [n for n in PAGES if not os.path.isfile(os.path.join(PLUGINS, n, "ui", "page.js"))]


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-walk-plugins-")
    os.symlink(os.path.join(PLUGINS, "executor-sim", "cube-executor-sim.so"),
               os.path.join(d, "cube-executor-sim.so"))
    for name in PAGES:
        os.symlink(os.path.join(PLUGINS, name), os.path.join(d, name))
    return d


def start(web_root):
    """A started Cubed (use it as a context manager)."""
    return Cubed(plugins={"executor-sim": SIM, "notebook": {"jupyter_command": "/bin/true"},
                          "pipeline": None, "hpsearch": None, "models": None},
                 plugin_dir=plugin_dir(), cube={"web_root": web_root})


def ok(r, *want):
    if r.status not in (want or (200, 201)):
        raise AssertionError(f"{r.status} {r.body[:500]}")
    return r.json()


def wait(who, path, done, timeout=30):
    deadline = time.time() + timeout
    while True:
        obj = who.get(path).json()
        if done(obj):
            return obj
        if time.time() > deadline:
            raise AssertionError(f"{path}: still {obj.get('status')}")
        time.sleep(0.1)


def seed(c):
    """The objects every page is shown with; returns their names."""
    a = c.admin()
    c.make_user("alice", password=ALICE_PASSWORD)  # with a token "test" of her own
    c.make_project("demo", [("alice", "creator")])
    alice = c.login("alice", ALICE_PASSWORD)
    ok(alice.request("POST", f"{P}/jobs", {"metadata": {"name": "trainer"},
                                           "spec": {"command": ["train"], "resources": {"cpu": "1"}}}))
    wait(a, f"{P}/jobs/trainer", lambda o: o.get("status", {}).get("phase") == "Running")
    tokens = ok(alice.get("/api/v1/auth/tokens?job=demo/trainer"))["items"]
    if not tokens:
        raise AssertionError("the running job holds no token")
    ok(a.request("POST", f"{P}/pipelines", {"metadata": {"name": "etl"}, "spec": {
        "schedule": "30 2 * * *", "timezone": "Asia/Shanghai",
        "tasks": [{"name": "hello", "template": "python-script", "args": {"--code": "print('hi')"}}]}}))
    run = ok(a.request("POST", f"{P}/pipelines/etl/run", {}))["metadata"]["name"]
    wait(a, f"{P}/pipelines/etl", lambda o: o.get("status", {}).get("lastRun"))
    ok(a.request("POST", f"{P}/notebooks", {"metadata": {"name": "nb"}, "spec": {}}))
    ok(a.request("POST", f"{P}/experiments", {"metadata": {"name": "search"}, "spec": {
        "searchSpace": {"x": {"_type": "uniform", "_value": [0, 1]}},
        "tuner": {"name": "random", "args": {"seed": 3}},
        "trial": {"command": ["train"], "resources": {"cpu": "100m", "memory": "128Mi"}},
        "trialConcurrency": 1, "maxTrials": 2}}))
    ok(a.request("POST", f"{P}/models", {"metadata": {"name": "iris-v1"}, "spec": {
        "name": "iris", "framework": "sklearn", "metrics": {"accuracy": 0.9}, "describe": "iris"}}))
    return {"job": "trainer", "pipeline": "etl", "run": run, "notebook": "nb",
            "experiment": "search", "model": "iris-v1", "family": "iris",
            "alicePassword": ALICE_PASSWORD}
