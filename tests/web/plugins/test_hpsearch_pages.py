"""The hpsearch plugin's console pages in a real browser: the experiments
list (live), the create form (search-space rows and JSON mode, a refused
row, a created experiment), an experiment's page (trials table, the three
charts, a trial's log) and the pages in 中文, through headless Chromium
(hpsearch_pages.e2e.mjs) against a cubed with executor-local and hpsearch.

Skips (exit 77) when Chromium, the built console or the built page is
missing, saying which."""
import json
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
PLUGINS = os.path.abspath(os.environ["CUBE_TEST_PLUGIN_DIR"])
CHROMIUM = os.environ.get("CUBE_CHROMIUM", "/usr/bin/chromium")
PAGE = os.path.join(PLUGINS, "hpsearch", "ui", "page.js")
TRIAL = ("import nni; p = nni.get_next_parameter(); "
         "[nni.report_intermediate_result(-(p['x'] - 0.3) ** 2 * s) for s in (3, 2, 1)]; "
         "nni.report_final_result(-(p['x'] - 0.3) ** 2)")


def missing_prerequisites():
    missing = []
    if not os.access(CHROMIUM, os.X_OK):
        missing.append(f"Chromium ({CHROMIUM} not found)")
    if not os.path.isfile(os.path.join(DIST, "index.html")):
        missing.append(f"the built console ({DIST}/index.html: scripts/build-web.sh)")
    if not os.path.isfile(PAGE):
        missing.append(f"the hpsearch page ({PAGE}: ninja builds it with npm)")
    return missing


def seed_experiment(c):
    """A finished experiment for the page to show."""
    a = c.admin()
    spec = {"searchSpace": {"x": {"_type": "uniform", "_value": [0, 1]},
                            "k": {"_type": "choice", "_value": ["a", "b"]}},
            "tuner": {"name": "random", "args": {"seed": 3}},
            "trial": {"command": ["/usr/bin/python3", "-c", TRIAL],
                      "resources": {"cpu": "100m", "memory": "128Mi"}},
            "trialConcurrency": 3, "maxTrials": 6}
    r = a.request("POST", "/api/v1/projects/public/experiments",
                  {"metadata": {"name": "seeded"}, "spec": spec})
    if r.status != 201:
        raise RuntimeError(r.body)
    deadline = time.time() + 60
    while time.time() < deadline:
        st = a.get("/api/v1/projects/public/experiments/seeded").json().get("status", {})
        if st.get("phase") in ("Succeeded", "Failed"):
            return st
        time.sleep(0.2)
    raise RuntimeError("the seeded experiment did not end: " + json.dumps(st))


def main():
    missing = missing_prerequisites()
    if missing:
        print("SKIP: the hpsearch pages test needs " + "; ".join(missing), flush=True)
        return SKIP
    pdir = tempfile.mkdtemp(prefix="cube-hpsearch-pages-plugins-")
    for name in ("executor-local", "hpsearch"):
        os.symlink(os.path.join(PLUGINS, name), os.path.join(pdir, name))
    rc = 1
    try:
        c = Cubed(plugins={"executor-local": None, "hpsearch": None}, plugin_dir=pdir,
                  cube={"web_root": DIST})
        try:
            st = seed_experiment(c)
            print(f"seeded: {st['phase']}, best {st.get('best', {}).get('value')}", flush=True)
            env = dict(os.environ, CUBE_URL=f"http://127.0.0.1:{c.port}",
                       CUBE_ADMIN_PASSWORD=ADMIN_PASSWORD, CUBE_CHROMIUM=CHROMIUM,
                       CUBE_WEB_DIR=WEB_DIR, CUBE_TRIAL_CODE=TRIAL)
            rc = subprocess.run(["node", os.path.join(HERE, "hpsearch_pages.e2e.mjs")], env=env,
                                timeout=300).returncode
        finally:
            if rc:
                print("cubed log, last lines:\n" + "".join(c.output().splitlines(True)[-30:]))
            c.close()
    finally:
        shutil.rmtree(pdir)
    return rc


if __name__ == "__main__":
    sys.exit(main())
