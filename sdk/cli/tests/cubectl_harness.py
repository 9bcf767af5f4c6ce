"""What cubectl's integration tests share: a real cubed (cubetest) with the
plugins a test file needs, and a cubectl runner with its own HOME and
config file per test. Stdlib only."""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from cubetest import PLUGIN_DIR, Cubed

CUBECTL = os.path.abspath(os.environ.get("CUBECTL", "build/sdk/cli/cubectl"))
BUILD_ROOT = os.environ.get("CUBE_BUILD_ROOT", "build")
TOKEN = "cubectl-test-token"
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def find_plugin(name):
    """The path of cube-<name>.so in the build tree, or None."""
    for d in (PLUGIN_DIR, BUILD_ROOT):
        for root, _, files in os.walk(d):
            if f"cube-{name}.so" in files:
                return os.path.join(root, f"cube-{name}.so")
    return None


def plugin_dir(names):
    """A temp dir linking the named plugins, or None when one is not built."""
    paths = [find_plugin(n) for n in names]
    if None in paths:
        return None
    d = tempfile.mkdtemp(prefix="cubectl-plugins-")
    atexit.register(shutil.rmtree, d, True)
    for p in paths:
        os.symlink(os.path.abspath(p), os.path.join(d, os.path.basename(p)))
    return d


class Run:
    def __init__(self, p):
        self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr

    def __repr__(self):
        return f"rc={self.rc}\nstdout:\n{self.out}\nstderr:\n{self.err}"


class CubectlTest(unittest.TestCase):
    server = None   # the Cubed every test talks to (set by main)

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="cubectl-test-")
        self.config = os.path.join(self.tmp.name, "cfg", "config")
        base = {k: v for k, v in os.environ.items() if not k.startswith("CUBE_")}
        self.env = dict(base, HOME=self.tmp.name, CUBE_CONFIG=self.config)
        self.url = f"http://127.0.0.1:{self.server.port}"

    def tearDown(self):
        self.tmp.cleanup()

    def cubectl(self, *args, stdin=None, env=None, auth=True, token=TOKEN, timeout=30):
        argv = [CUBECTL]
        if auth:
            argv += ["-s", self.url, "--token", token]
        p = subprocess.run(argv + list(args), input=stdin, capture_output=True,
                           text=True, env=dict(self.env, **(env or {})), timeout=timeout)
        for marker in SANITIZER_MARKERS:   # a sanitizer build of cubectl
            self.assertNotIn(marker, p.stderr, p.stderr)
        return Run(p)

    def ok(self, *args, **kw):
        r = self.cubectl(*args, **kw)
        self.assertEqual(r.rc, 0, r)
        return r

    def fails(self, rc, *args, **kw):
        r = self.cubectl(*args, **kw)
        self.assertEqual(r.rc, rc, r)
        return r

    def apply(self, text, *extra, **kw):
        return self.ok("apply", "-f", "-", *extra, stdin=text, **kw)

    def read_config(self):
        with open(self.config) as f:
            return json.load(f)

    @staticmethod
    def widget(name, size=None, labels=None, extra=""):
        lines = ["kind: Widget", "metadata:", f"  name: {name}"]
        if labels:
            lines.append("  labels: " + json.dumps(labels))
        lines.append("spec:" + ("" if size is not None or extra else " {}"))
        if size is not None:
            lines.append(f"  size: {size}")
        return "\n".join(lines) + "\n" + extra


def main(plugins, kinds=(), setup=None):
    """Starts cubed with plugins ({name: config}), checks it serves kinds,
    runs setup(server) and the tests. Exits 77 (skipped) when a plugin is
    not built or the server lacks the kinds."""
    d = plugin_dir(plugins)
    if not d:
        print(f"plugins {sorted(plugins)} not all built: skipped")
        return 77
    server = Cubed(plugins=plugins, plugin_dir=d, env={"CUBE_ADMIN_TOKEN": TOKEN})
    CubectlTest.server = server
    try:
        r = server.get("/api/v1/kinds", headers={"Authorization": "Bearer " + TOKEN})
        have = {k.get("kind") for k in r.json().get("items", [])} if r.status == 200 else set()
        if not set(kinds) <= have:
            print(f"kinds {sorted(set(kinds) - have)} missing: skipped")
            return 77
        if setup:
            setup(server)
        prog = unittest.main(exit=False, verbosity=2)
        return 0 if prog.result.wasSuccessful() else 1
    finally:
        server.close()


if __name__ == "__main__":
    sys.exit("a module for the cubectl tests, not a test itself")
