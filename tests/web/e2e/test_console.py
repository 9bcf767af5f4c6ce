"""End-to-end test of the web console in a real browser.

Starts a real cubed (temp data dir, free port, web_root = the built
web/dist, the hello plugin and executor-local so jobs run), then drives
headless Chromium through console.e2e.mjs (playwright-core from
web/node_modules). Screenshots of the main pages go to CUBE_E2E_OUT,
printed at the end; a failing step leaves failure-<step>.png there too.

Skips (exit 77) only when Chromium or the built console (web/dist) is
missing, saying which and how to get it."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

from cubetest import ADMIN_PASSWORD, Cubed

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
WEB_DIR = os.path.abspath(os.environ.get("CUBE_WEB_DIR", "web"))
DIST = os.path.join(WEB_DIR, "dist")
CHROMIUM = os.environ.get("CUBE_CHROMIUM", "/usr/bin/chromium")
OUT = os.path.abspath(os.environ.get("CUBE_E2E_OUT", "e2e-out"))
# A whole scenario, including a job on the local executor, normally
# takes well under a minute; ASan builds are slower.
SCENARIO_TIMEOUT = int(os.environ.get("CUBE_E2E_TIMEOUT", "420"))


def missing_prerequisites():
    missing = []
    if not os.access(CHROMIUM, os.X_OK):
        missing.append(f"Chromium ({CHROMIUM} not found: apt-get install chromium)")
    if not os.path.isfile(os.path.join(DIST, "index.html")):
        missing.append(f"the built console ({DIST}/index.html not found: "
                       "npm --prefix web ci && npm --prefix web run build)")
    return missing


def plugin_dir():
    """hello (its page.js beside the .so), executor-local and testkinds
    (a kind with no page of its own: the generic pages), side by side."""
    d = tempfile.mkdtemp(prefix="cube-e2e-plugins-")
    os.symlink(os.path.abspath(os.environ["CUBE_HELLO_DIR"]), os.path.join(d, "hello"))
    for var, so in (("CUBE_LOCAL_DIR", "cube-executor-local.so"),
                    ("CUBE_TESTKINDS_DIR", "cube-testkinds.so")):
        os.symlink(os.path.join(os.path.abspath(os.environ[var]), so), os.path.join(d, so))
    return d


SLEEPER = "/api/v1/projects/public/jobs/e2e-sleeper"


def seed(c):
    """What the scenario expects to exist: a user to add as a member, a
    widget (a kind shown by the generic pages) in the public project, and a
    running job (the nodes page shows the nodes running jobs use; the
    scenario stops it). Its timeout bounds it if the scenario cannot."""
    a = c.admin()
    for path, body in (
            ("/api/v1/projects/public/jobs", {
                "metadata": {"name": "e2e-sleeper"},
                "spec": {"command": ["/bin/sleep", "600"], "timeoutSeconds": 300}}),
            ("/api/v1/users", {"metadata": {"name": "bob"},
                               "spec": {"role": "user", "displayName": "Bob Builder"}}),
            ("/api/v1/projects/public/widgets", {"metadata": {"name": "sprocket"},
                                                 "spec": {"size": 3}})):
        r = a.request("POST", path, body)
        if r.status != 201:
            raise AssertionError(f"seed {path}: {r.status} {r.body}")


def stop_sleeper(c):
    """Replicas outlive cubed (they are adopted at the next start): end the
    running job before stopping cubed, whatever the scenario did."""
    a = c.admin()
    a.request("POST", SLEEPER + "/stop", {"graceSeconds": 1})
    deadline = time.time() + 30
    while time.time() < deadline:
        phase = a.get(SLEEPER).json().get("status", {}).get("phase")
        if phase in ("Succeeded", "Failed", "Cancelled"):
            return
        time.sleep(0.1)
    raise AssertionError(f"e2e-sleeper did not stop: {phase}")


def run_scenario(c):
    env = dict(os.environ, CUBE_URL=f"http://127.0.0.1:{c.port}",
               CUBE_ADMIN_PASSWORD=ADMIN_PASSWORD, CUBE_E2E_OUT=OUT,
               CUBE_CHROMIUM=CHROMIUM, CUBE_WEB_DIR=WEB_DIR)
    try:
        return subprocess.run(["node", os.path.join(HERE, "console.e2e.mjs")], env=env,
                              timeout=SCENARIO_TIMEOUT).returncode
    except subprocess.TimeoutExpired:
        print(f"FAIL: the browser scenario ran past {SCENARIO_TIMEOUT}s", flush=True)
        return 1


def main():
    missing = missing_prerequisites()
    if missing:
        print("SKIP: the console e2e test needs " + "; ".join(missing), flush=True)
        return SKIP
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    pdir = plugin_dir()
    rc = 1
    try:
        c = Cubed(plugins={"hello": None, "executor-local": None, "testkinds": None},
                  plugin_dir=pdir,
                  cube={"web_root": DIST})
        try:
            seed(c)
            rc = run_scenario(c)
        finally:
            stop_sleeper(c)
            shutil.copy(c.log_path, os.path.join(OUT, "cubed.log"))
            if rc:
                print("cubed log, last lines:\n" + "".join(c.output().splitlines(True)[-30:]))
            try:
                c.close()
            except AssertionError as e:
                print(f"FAIL: {e}", flush=True)
                rc = rc or 1
    finally:
        shutil.rmtree(pdir)
    print(f"screenshots: {OUT}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
