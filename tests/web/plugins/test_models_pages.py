"""The models plugin's console pages in a real browser: the families list
(live, a family's versions), a family's page (metrics side by side, the
chart), a version's page (digest, files, lineage), promote to production
(the stage badge moves, the previous version is archived), deploy without
the serving plugin (its refusal shown), the register form uploading a file
with progress, and the pages in 中文, through headless Chromium
(models_pages.e2e.mjs) against a cubed with the models plugin.

Skips (exit 77) when Chromium, the built console or the built page is
missing, saying which."""
import os
import pickle
import shutil
import subprocess
import sys
import tempfile

from cubetest import ADMIN_PASSWORD, Cubed

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
WEB_DIR = os.path.abspath(os.environ.get("CUBE_WEB_DIR", "web"))
DIST = os.path.join(WEB_DIR, "dist")
PLUGINS = os.path.abspath(os.environ["CUBE_TEST_PLUGIN_DIR"])
CHROMIUM = os.environ.get("CUBE_CHROMIUM", "/usr/bin/chromium")
PAGE = os.path.join(PLUGINS, "models", "ui", "page.js")
BASE = "/api/v1/projects/public"


def missing_prerequisites():
    missing = []
    if not os.access(CHROMIUM, os.X_OK):
        missing.append(f"Chromium ({CHROMIUM} not found)")
    if not os.path.isfile(os.path.join(DIST, "index.html")):
        missing.append(f"the built console ({DIST}/index.html: scripts/build-web.sh)")
    if not os.path.isfile(PAGE):
        missing.append(f"the models page ({PAGE}: ninja builds it with npm)")
    return missing


def seed(c):
    """Two versions of iris with metrics, v1 in production."""
    a = c.admin()
    data = pickle.dumps({"weights": [1, 2, 3]}, protocol=4)
    for v, acc in ((1, 0.91), (2, 0.96)):
        r = a.request("POST", f"{BASE}/models", {"metadata": {"name": f"iris-v{v}"}, "spec": {
            "name": "iris", "framework": "sklearn", "metrics": {"accuracy": acc, "f1": acc - 0.02},
            "describe": f"iris v{v}", "source": {"kind": "Job", "name": f"train-{v}"}}})
        assert r.status == 201, r.body
        r = a.request("POST", f"{BASE}/models/iris-v{v}/files", data,
                      {"Content-Type": "application/octet-stream"})
        assert r.status == 201, r.body
    r = a.request("POST", f"{BASE}/models/iris-v1/promote", {"stage": "production"})
    assert r.status == 200, r.body


def main():
    missing = missing_prerequisites()
    if missing:
        print("SKIP: the models pages test needs " + "; ".join(missing), flush=True)
        return SKIP
    pdir = tempfile.mkdtemp(prefix="cube-models-pages-plugins-")
    os.symlink(os.path.join(PLUGINS, "models"), os.path.join(pdir, "models"))
    upload = os.path.join(pdir, "net_weights.pkl")
    with open(upload, "wb") as f:
        f.write(pickle.dumps(list(range(200000)), protocol=4))
    rc = 1
    try:
        c = Cubed(plugins={"models": None}, plugin_dir=pdir, cube={"web_root": DIST})
        try:
            seed(c)
            env = dict(os.environ, CUBE_URL=f"http://127.0.0.1:{c.port}",
                       CUBE_ADMIN_PASSWORD=ADMIN_PASSWORD, CUBE_CHROMIUM=CHROMIUM,
                       CUBE_WEB_DIR=WEB_DIR, CUBE_UPLOAD_FILE=upload)
            rc = subprocess.run(["node", os.path.join(HERE, "models_pages.e2e.mjs")], env=env,
                                timeout=300).returncode
            if rc == 0:
                a = c.admin()
                st = a.get(f"{BASE}/models/iris-v2").json()["status"]
                assert st["stage"] == "production", st
                assert a.get(f"{BASE}/models/iris-v1").json()["status"]["stage"] == "archived"
                m = a.get(f"{BASE}/models/net-weights-v1").json()
                assert m["status"]["phase"] == "Ready", m
                assert m["status"]["files"][0]["size"] == os.path.getsize(upload), m
                print("ok   the API agrees with what the pages did", flush=True)
        finally:
            if rc:
                print("cubed log, last lines:\n" + "".join(c.output().splitlines(True)[-30:]))
            c.close()
    finally:
        shutil.rmtree(pdir)
    return rc


if __name__ == "__main__":
    sys.exit(main())
