"""What the console's browser tests share on the Python side: building
web/dist, finding Chromium, the folder screenshots are kept in (a test
artefact: $CUBE_SHOTS, set by tests/web/meson.build to a folder of the build
tree) and running one of web/e2e/*.mjs against a running cubed. The browser
side's helpers (sizes, console errors, assertFitsViewport) are in
web/e2e/lib.mjs."""
import json
import os
import shutil
import subprocess

ROOT = os.path.abspath(os.environ.get("CUBE_SOURCE_ROOT", "."))
WEB = os.path.join(ROOT, "web")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def build_console():
    """Builds web/dist (skipped when it is up to date); returns why not, or None."""
    if not shutil.which("npm") or not shutil.which("node"):
        return "npm/node not installed"
    if not CHROMIUM:
        return "chromium not installed"
    p = subprocess.run([os.path.join(ROOT, "scripts", "build-web.sh")],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise AssertionError("console build failed:\n" + p.stdout[-3000:] + p.stderr[-3000:])
    return None


def dist():
    return os.path.abspath(os.path.join(WEB, "dist"))


def shots_dir(name):
    """A fresh folder for one test's screenshots, or None when $CUBE_SHOTS is
    not set."""
    base = os.environ.get("CUBE_SHOTS")
    if not base:
        return None
    d = os.path.join(base, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d, exist_ok=True)
    return d


def run_script(testcase, script, cubed, shots=None, timeout=480, **env):
    """Runs web/e2e/<script> against `cubed` (a cubetest.Cubed); env values
    are passed as CUBE_<KEY>. Fails `testcase` with the script's output when
    it exits non-zero; returns the JSON of its last stdout line ({} if none)."""
    e = dict(os.environ, CUBE_URL=f"http://127.0.0.1:{cubed.port}", CHROMIUM=CHROMIUM,
             CUBE_ADMIN_PASSWORD=cubed.admin_password)
    if shots:
        e["CUBE_SHOTS"] = shots
    else:
        e.pop("CUBE_SHOTS", None)
    for k, v in env.items():
        e["CUBE_" + k.upper()] = v if isinstance(v, str) else json.dumps(v)
    p = subprocess.run(["node", os.path.join(WEB, "e2e", script)], cwd=WEB, env=e,
                       capture_output=True, text=True, timeout=timeout)
    testcase.assertEqual(p.returncode, 0, p.stderr[-6000:] + p.stdout[-2000:])
    lines = p.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else {}
