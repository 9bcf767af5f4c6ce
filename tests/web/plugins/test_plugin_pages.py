"""The notebook and pipeline plugins' console pages in a real browser.

Each page is an ES module of its plugin (plugins/<name>/ui, built into
page.js beside the .so) that imports React, Ant Design and the console's
SDK from the console (the import map of web/dist/index.html) instead of
bundling them. This test checks that promise on the built files (the
modules import "@cube/console-sdk" and "react", and hold no copy of React)
and then drives headless Chromium (plugin_pages.e2e.mjs) through both
pages at the paths they had when they were part of the console.

Skips (exit 77) when Chromium, the built console or a built page is
missing, saying which."""
import os
import re
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
PAGES = {name: os.path.join(PLUGINS, name, "ui", "page.js") for name in ("pipeline", "notebook")}
# What a bundled copy of React or ReactDOM carries (both production builds).
REACT_INSIDE = (re.compile(rb'Symbol\.for\(\s*["\']react\.element["\']\s*\)'),
                re.compile(rb"Minified React error"),
                re.compile(rb"__SECRET_INTERNALS_DO_NOT_USE_OR_YOU_WILL_BE_FIRED"))


def missing_prerequisites():
    missing = []
    if not os.access(CHROMIUM, os.X_OK):
        missing.append(f"Chromium ({CHROMIUM} not found)")
    if not os.path.isfile(os.path.join(DIST, "index.html")):
        missing.append(f"the built console ({DIST}/index.html: scripts/build-web.sh)")
    for name, page in PAGES.items():
        if not os.path.isfile(page):
            missing.append(f"the {name} page ({page}: ninja builds it with npm)")
    return missing


def check_modules():
    """Each page imports the shared modules and bundles no React."""
    for name, page in PAGES.items():
        with open(page, "rb") as f:
            code = f.read()
        for spec in (b"@cube/console-sdk", b"react", b"react/jsx-runtime"):
            if not re.search(rb'from\s*"' + re.escape(spec) + rb'"', code):
                raise AssertionError(f"{page}: does not import {spec.decode()}")
        for pat in REACT_INSIDE:
            if pat.search(code):
                raise AssertionError(f"{page}: holds a copy of React ({pat.pattern.decode()})")
        print(f"{name}: page.js {len(code) // 1024} KiB, imports the SDK, no React inside",
              flush=True)


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-pages-plugins-")
    for name in PAGES:
        os.symlink(os.path.join(PLUGINS, name), os.path.join(d, name))
    return d


def main():
    missing = missing_prerequisites()
    if missing:
        print("SKIP: the plugin pages test needs " + "; ".join(missing), flush=True)
        return SKIP
    check_modules()
    pdir = plugin_dir()
    rc = 1
    try:
        c = Cubed(plugins={"pipeline": None, "notebook": {"jupyter_command": "/bin/true"}},
                  plugin_dir=pdir, cube={"web_root": DIST})
        try:
            env = dict(os.environ, CUBE_URL=f"http://127.0.0.1:{c.port}",
                       CUBE_ADMIN_PASSWORD=ADMIN_PASSWORD, CUBE_CHROMIUM=CHROMIUM,
                       CUBE_WEB_DIR=WEB_DIR)
            rc = subprocess.run(["node", os.path.join(HERE, "plugin_pages.e2e.mjs")], env=env,
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
