#!/usr/bin/python3
"""How cubed's start-up and CLI treat broken plugins (the cube-bad-*.so
built from bad_plugin.c).

usage: loader_cli.py CUBED PLUGIN_DIR

  * a required plugin whose init fails: cubed exits non-zero and prints the
    plugin's set_error message;
  * the same plugin with `optional: true`: cubed starts, /readyz is 200;
  * --safe-mode: starts with no plugin even though conf.d lists a broken one;
  * --list-plugins: lists every plugin, the broken ones with the reason;
  * --check-config: exits 1 for a plugin of another ABI major, naming the
    conf.d file and the .so."""
import os
import subprocess
import sys

from cubed_harness import Cubed, TestFailure, expect

INIT_FAILS = "bad-init-fails"
WRONG_MAJOR = "bad-wrong-major"


def confd(name, optional=False):
    return {f"50-{name}.yaml": f"plugin: {name}\n" +
            ("optional: true\n" if optional else "")}


def required_init_failure(cubed, plugin_dir):
    with Cubed(cubed, plugin_dir, confd(INIT_FAILS)) as c:
        c.start()
        try:
            rc = c.wait_exit(20)
        except subprocess.TimeoutExpired:
            raise TestFailure(f"cubed kept running with a failing required plugin:\n"
                              f"{c.output()}")
        out = c.output()
        expect(rc != 0, f"required plugin failed init: expected a non-zero exit, "
               f"found 0:\n{out}")
        expect("boom: database unreachable" in out,
               f"expected the plugin's set_error message in the log:\n{out}")


def optional_init_failure(cubed, plugin_dir):
    with Cubed(cubed, plugin_dir, confd(INIT_FAILS, optional=True)) as c:
        ready = c.start_ready()
        expect(INIT_FAILS not in ready.get("plugins", {}),
               f"/readyz lists the skipped plugin: {ready}")
        out = c.output()
        expect("boom: database unreachable" in out and "skipped" in out,
               f"expected the init error and a 'skipped' warning:\n{out}")
        rc = c.stop()
        expect(rc == 0, f"exit status after SIGTERM: expected 0, found {rc}")


def safe_mode(cubed, plugin_dir):
    entries = {**confd(WRONG_MAJOR), **confd(INIT_FAILS)}
    with Cubed(cubed, plugin_dir, entries) as c:
        ready = c.start_ready("--safe-mode")
        expect(ready.get("plugins") == {}, f"safe mode loaded plugins: {ready}")
        rc = c.stop()
        expect(rc == 0, f"exit status after SIGTERM: expected 0, found {rc}")


def list_plugins(cubed, plugin_dir):
    with Cubed(cubed, plugin_dir, confd(WRONG_MAJOR)) as c:
        p = c.run("--list-plugins")
        out = p.stdout + p.stderr
        expect(p.returncode == 1, f"--list-plugins with broken plugins: expected "
               f"exit 1, found {p.returncode}:\n{out}")
        so = os.path.join(c.plugin_dir, f"cube-{WRONG_MAJOR}.so")
        for line in (f"{WRONG_MAJOR}", "enabled", "BROKEN",
                     f"{so}: ABI major version: expected 1, found 2"):
            expect(line in out, f"--list-plugins: expected {line!r} in:\n{out}")
        for name in ("bad-good", "bad-missing-init", "bad-name-mismatch", INIT_FAILS):
            expect(name in out, f"--list-plugins: expected {name} listed:\n{out}")


def check_config(cubed, plugin_dir):
    with Cubed(cubed, plugin_dir, confd(WRONG_MAJOR)) as c:
        p = c.run("--check-config")
        so = os.path.join(c.plugin_dir, f"cube-{WRONG_MAJOR}.so")
        conf = os.path.join(c.dir, "conf.d", f"50-{WRONG_MAJOR}.yaml")
        expect(p.returncode == 1, f"--check-config: expected exit 1, found "
               f"{p.returncode}:\n{p.stdout}{p.stderr}")
        want = f"{so}: ABI major version: expected 1, found 2"
        expect(want in p.stderr and conf in p.stderr,
               f"--check-config: expected {want!r} and {conf!r} in:\n{p.stderr}")
    with Cubed(cubed, plugin_dir, confd(INIT_FAILS)) as c:
        # init is not run by --check-config, so a plugin that only fails at
        # run time passes.
        p = c.run("--check-config")
        expect(p.returncode == 0, f"--check-config with {INIT_FAILS}: expected 0, "
               f"found {p.returncode}:\n{p.stdout}{p.stderr}")


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    cubed, plugin_dir = argv
    failed = 0
    for case in (required_init_failure, optional_init_failure, safe_mode,
                 list_plugins, check_config):
        try:
            case(cubed, plugin_dir)
            print(f"ok   {case.__name__}")
        except TestFailure as e:
            print(f"FAIL {case.__name__}: {e}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
