#!/usr/bin/python3
"""Loads one plugin into a real cubed and checks one of its GET routes.

usage: load_plugin.py CUBED PLUGIN_DIR NAME ROUTE [KEY=VALUE ...] [--config YAML]

Writes conf.d `plugin: NAME` (plus the optional `config:` YAML), starts
cubed, waits for /readyz (which must list NAME as started), GETs ROUTE,
checks every KEY=VALUE against the JSON answer (dotted keys reach into
objects; "{host_version}" stands for the version cubed --version prints),
then stops cubed with SIGTERM and requires exit status 0."""
import json
import subprocess
import sys

from cubed_harness import Cubed, TestFailure, clean_env, expect


def host_version(cubed):
    """"cubed 0.1.0 (plugin ABI 1.0)" -> "0.1.0"."""
    out = subprocess.run([cubed, "--version"], capture_output=True, text=True,
                         env=clean_env(), check=True).stdout
    return out.split()[1]


def lookup(doc, dotted):
    for part in dotted.split("."):
        if not isinstance(doc, dict) or part not in doc:
            return None
        doc = doc[part]
    return doc


def check_plugin(cubed, plugin_dir, name, route, expects, config=None):
    """Runs the whole check; raises TestFailure. Returns the route's JSON."""
    confd = f"plugin: {name}\n" + (f"config:\n{config}\n" if config else "")
    version = host_version(cubed)
    with Cubed(cubed, plugin_dir, {f"50-{name}.yaml": confd}) as c:
        ready = c.start_ready()
        expect(ready.get("plugins", {}).get(name) == "started",
               f"/readyz: expected plugin {name} started, found {ready}")
        doc = c.get_json(route)
        for key, want in expects:
            want = want.replace("{host_version}", version)
            got = lookup(doc, key)
            # Non-strings compare as JSON text: true, 3, null.
            text = got if isinstance(got, str) else json.dumps(got)
            expect(text == want,
                   f"GET {route}: {key}: expected {want!r}, found {text!r} in {doc}")
        rc = c.stop()
        expect(rc == 0, f"cubed exit status after SIGTERM: expected 0, found {rc}:\n"
               f"{c.output()}")
        return doc


def main(argv):
    config = None
    if "--config" in argv:
        i = argv.index("--config")
        config = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) < 4:
        sys.exit(__doc__)
    cubed, plugin_dir, name, route = argv[:4]
    expects = [a.split("=", 1) for a in argv[4:]]
    try:
        doc = check_plugin(cubed, plugin_dir, name, route, expects, config)
    except TestFailure as e:
        print(f"FAIL: {e}")
        return 1
    print(f"{name}: GET {route} -> {doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
