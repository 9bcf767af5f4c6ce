#!/usr/bin/python3
"""Builds abi/examples/vendor-hello the way a vendor would and loads it.

usage: out_of_tree.py MESON BUILD_ROOT SOURCE_ROOT CUBED NM

1. `meson install --destdir` the headers and cube-plugin.pc (install tag
   "devel") into a temporary root;
2. copies the example into a temporary directory and runs its Makefile with
   only that pkg-config file visible (PKG_CONFIG_LIBDIR) and
   PKG_CONFIG_SYSROOT_DIR pointing at the temporary root;
3. checks the .so exports only its entry, loads it into cubed and GETs
   /api/v1/vendor-hello (load_plugin.check_plugin); then its ABI 1.5
   welcome notices: a watch, a fetch to a local webhook, kv and a secret
   across a restart (check_notices);
4. builds its console page (`make page`, tsc) as a vendor would after
   `npm install`: with only the installed SDK declaration
   (<datadir>/cube/console-sdk) and TypeScript and React's types linked
   into ui/node_modules; the page must import the SDK and React rather
   than bundle them, and cubed must serve it at
   /ui/plugins/vendor-hello/page.js. Without the console's node_modules
   (no npm) this part is skipped and says so."""
import glob
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import check_symbols
from cubed_harness import Cubed, TestFailure, expect
from load_plugin import check_plugin

SKIP = 77  # meson's "skipped" exit status


def install_sdk(meson, build_root, root):
    """Returns the directory holding the installed cube-plugin.pc."""
    subprocess.run([meson, "install", "-C", build_root, "--no-rebuild", "--quiet",
                    "--tags", "devel", "--destdir", root],
                   check=True, capture_output=True, text=True)
    found = glob.glob(os.path.join(root, "**", "pkgconfig", "cube-plugin.pc"),
                      recursive=True)
    expect(len(found) == 1, f"expected one cube-plugin.pc under {root}, found {found}")
    expect(glob.glob(os.path.join(root, "**", "include", "cube", "cube.h"),
                     recursive=True), f"cube/cube.h not installed under {root}")
    return os.path.dirname(found[0])


def build_example(source_root, work, root, pc_dir):
    src = os.path.join(work, "vendor-hello")
    shutil.copytree(os.path.join(source_root, "abi", "examples", "vendor-hello"), src)
    env = dict(os.environ, PKG_CONFIG_LIBDIR=pc_dir, PKG_CONFIG_SYSROOT_DIR=root)
    env.pop("PKG_CONFIG_PATH", None)  # only the freshly installed .pc counts
    make = ["make", "-C", src]
    sanitize = os.environ.get("CUBE_TEST_SANITIZE", "none")
    if sanitize not in ("", "none"):
        make.append(f"CFLAGS=-O2 -g -fsanitize={sanitize}")
    proc = subprocess.run(make, env=env, capture_output=True, text=True)
    expect(proc.returncode == 0, f"make failed ({proc.returncode}):\n{proc.stdout}"
           f"{proc.stderr}")
    expect("warning" not in proc.stderr, f"make printed warnings:\n{proc.stderr}")
    so = os.path.join(src, "cube-vendor-hello.so")
    expect(os.path.isfile(so), f"make did not produce {so}")
    return src, so


def build_page(source_root, src, root, pc_dir):
    """`make page` with the installed SDK; returns page.js's bytes, or None
    when TypeScript is not at hand."""
    web_modules = os.path.join(source_root, "web", "node_modules")
    tsc = os.path.join(web_modules, "typescript", "bin", "tsc")
    if not os.path.isfile(tsc) or not shutil.which("node"):
        print("vendor-hello page: no TypeScript in web/node_modules (npm ci): not built")
        return None
    sdk = glob.glob(os.path.join(root, "**", "cube", "console-sdk", "index.d.ts"), recursive=True)
    expect(len(sdk) == 1, f"expected one installed console-sdk/index.d.ts under {root}, found {sdk}")
    modules = os.path.join(src, "ui", "node_modules")
    os.makedirs(os.path.join(modules, "@cube"))
    os.makedirs(os.path.join(modules, "@types"))
    os.symlink(os.path.dirname(sdk[0]), os.path.join(modules, "@cube", "console-sdk"))
    os.symlink(os.path.join(web_modules, "@types", "react"), os.path.join(modules, "@types", "react"))
    env = dict(os.environ, PKG_CONFIG_LIBDIR=pc_dir, PKG_CONFIG_SYSROOT_DIR=root)
    env.pop("PKG_CONFIG_PATH", None)
    proc = subprocess.run(["make", "-C", src, "page", f"TSC=node {tsc}"],
                          env=env, capture_output=True, text=True)
    expect(proc.returncode == 0, f"make page failed ({proc.returncode}):\n{proc.stdout}"
           f"{proc.stderr}")
    with open(os.path.join(src, "ui", "page.js"), "rb") as f:
        code = f.read()
    for spec in (b"@cube/console-sdk", b"react/jsx-runtime"):
        expect(re.search(rb"""from\s*["']""" + re.escape(spec) + rb"""["']""", code),
               f"page.js does not import {spec.decode()}")
    expect(b"react.element" not in code and len(code) < 8192,
           f"page.js ({len(code)} bytes) holds more than its own code")
    return code


def check_page(cubed, plugin_dir, code):
    """cubed registers the page and serves the built module."""
    with Cubed(cubed, plugin_dir, {"50-vendor-hello.yaml": "plugin: vendor-hello\n"}) as c:
        c.start_ready()
        status, body = c.get("/ui/plugins/vendor-hello/page.js")[:2]
        expect(status == 200 and body == code.decode(),
               f"GET /ui/plugins/vendor-hello/page.js: {status}, {len(body)} bytes")
        expect("console page not registered" not in c.output(),
               f"register_ui refused the page:\n{c.output()}")
        expect(c.stop() == 0, f"cubed exit status after SIGTERM:\n{c.output()}")


class Hook(http.server.BaseHTTPRequestHandler):
    """The webhook vendor-hello notifies: records each POST."""
    got = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Hook.got.append((self.path, self.headers.get("Authorization"), json.loads(body)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def wait_until(fn, what, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if fn():
            return
        time.sleep(0.05)
    raise TestFailure(f"timed out waiting for {what}")


def check_notices(cubed, plugin_dir):
    """ABI 1.5 in a vendor's plugin: a watch on Projects, an outbound fetch
    to a webhook the egress rules allow, the key-value store (greeted
    projects survive a restart) and a secret (the webhook's token, not in
    the database file in plain text)."""
    hook = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    port, token, admin = hook.server_address[1], "tok-" + os.urandom(8).hex(), "adm-" + os.urandom(8).hex()
    confd = {"50-vendor-hello.yaml": "plugin: vendor-hello\nconfig:\n"
             f"  notify_url: http://127.0.0.1:{port}/hook\n"}
    auth = {"Authorization": f"Bearer {admin}"}
    project = lambda c, n: c.request("POST", "/api/v1/projects", {"metadata": {"name": n}},
                                     dict(auth, **{"Content-Type": "application/json"}))[0]
    try:
        with Cubed(cubed, plugin_dir, confd, extra_yaml=f'egress: {{allow: ["127.0.0.1:{port}"]}}\n',
                   env={"CUBE_ADMIN_TOKEN": admin}) as c:
            c.start_ready()
            status, body = c.request("POST", "/api/v1/vendor-hello/token", token)
            expect(status == 401, f"token route without credentials: {status} {body}")
            status, body = c.request("POST", "/api/v1/vendor-hello/token", token, auth)
            expect(status == 200, f"POST /api/v1/vendor-hello/token: {status} {body}")
            expect(project(c, "acme") == 201, "project acme not created")
            wait_until(lambda: Hook.got, "the webhook's notice")
            expect(Hook.got[0] == ("/hook", f"Bearer {token}",
                                   {"project": "acme", "greeting": "Hello from a vendor"}),
                   f"notice: {Hook.got[0]}")
            wait_until(lambda: c.get_json("/api/v1/vendor-hello")["last_notify"] ==
                       "acme: HTTP 204", "last_notify")
            expect(c.stop() == 0, f"cubed exit status after SIGTERM:\n{c.output()}")
            with open(os.path.join(c.dir, "var", "cube.db"), "rb") as f:
                expect(token.encode() not in f.read(), "the token is in cube.db in plain text")
            expect(token not in c.output(), "the token is in the log")
            c.start_ready()
            expect(project(c, "beta") == 201, "project beta not created")
            wait_until(lambda: len(Hook.got) == 2, "the second notice")
            doc = c.get_json("/api/v1/vendor-hello")
            expect(doc["greeted"] == ["acme", "beta"], f"greeted after a restart: {doc}")
            expect([g[2]["project"] for g in Hook.got] == ["acme", "beta"], f"{Hook.got}")
            expect(c.stop() == 0, f"cubed exit status after SIGTERM:\n{c.output()}")
            print(f"vendor-hello greeted {doc['greeted']} across a restart, "
                  f"last notice {doc['last_notify']!r}")
    finally:
        hook.shutdown()


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    meson, build_root, source_root, cubed, nm = argv
    if not shutil.which("make"):
        print("make not found: skipping")
        return SKIP
    try:
        with tempfile.TemporaryDirectory(prefix="cube-oot-") as work:
            root = os.path.join(work, "root")
            pc_dir = install_sdk(meson, build_root, root)
            plugin_dir, so = build_example(source_root, work, root, pc_dir)
            errors = check_symbols.check_plugin(nm, so)
            expect(not errors, "; ".join(errors))
            doc = check_plugin(cubed, plugin_dir, "vendor-hello", "/api/v1/vendor-hello",
                               [("plugin", "vendor-hello"),
                                ("host_version", "{host_version}"),
                                ("greeting", "Hello from a vendor")])
            check_notices(cubed, plugin_dir)
            code = build_page(source_root, plugin_dir, root, pc_dir)
            if code is not None:
                check_page(cubed, plugin_dir, code)
    except (TestFailure, subprocess.CalledProcessError) as e:
        detail = getattr(e, "stderr", "") or ""
        print(f"FAIL: {e}\n{detail}")
        return 1
    print(f"vendor-hello built with pkg-config only and served {doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
