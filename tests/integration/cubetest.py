"""cubetest — start a real cubed for a test and talk to it over HTTP.

Stdlib only. A Cubed instance gets a temp dir (data dir, cube.yaml, conf.d),
a free loopback port, another for the apps listener (proxied servers), and
is stopped (SIGTERM) when the test ends.
"""
import gzip
import http.client
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse

CUBED = os.environ.get("CUBED", "build/core/cubed")
PLUGIN_DIR = os.environ.get("CUBE_TEST_PLUGIN_DIR", "build/plugins")
SOURCE_ROOT = os.environ.get("CUBE_SOURCE_ROOT", ".")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    return json.dumps(v)  # a JSON string is a valid YAML double-quoted scalar


def to_yaml(obj, indent=0):
    """Tiny YAML writer for nested dicts/lists of scalars (test configs)."""
    pad = "  " * indent
    lines = []
    for k, v in obj.items():
        if isinstance(v, dict):
            lines.append(f"{pad}{k}:" + (" {}" if not v else ""))
            if v:
                lines.append(to_yaml(v, indent + 1))
        elif isinstance(v, list):
            lines.append(f"{pad}{k}: [{', '.join(yaml_scalar(x) for x in v)}]")
        else:
            lines.append(f"{pad}{k}: {yaml_scalar(v)}")
    return "\n".join(lines)


class Response:
    def __init__(self, status, headers, body, raw=b""):
        self.status, self.headers, self.body = status, headers, body
        self.raw = raw  # the body's bytes (decompressed), for binary answers

    def json(self):
        return json.loads(self.body)

    def header(self, name):
        return self.headers.get(name.lower())


# Tests sign in as admin with this password (CUBE_ADMIN_PASSWORD at first start).
ADMIN_PASSWORD = "admin-password-for-tests"


class Client:
    """Requests to a Cubed as one caller: headers added to every request."""

    def __init__(self, cubed, headers):
        self.cubed = cubed
        self.headers = headers

    def request(self, method, path, body=None, headers=None, timeout=10):
        h = dict(self.headers)
        h.update(headers or {})
        return self.cubed.request(method, path, body, h, timeout)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def apps_request(self, method, path, body=None, headers=None, timeout=10):
        """The same on the apps listener (proxied servers)."""
        h = dict(self.headers)
        h.update(headers or {})
        return self.cubed.apps_request(method, path, body, h, timeout)

    def apps_get(self, path, **kw):
        return self.apps_request("GET", path, **kw)

    def open_app(self, path):
        """A Client holding the apps origin's cookie for the proxied object
        at path, got through the console's hand-over as a browser does."""
        return Client(self.cubed, {"Cookie": self.cubed.hand_over(self.headers, path)})


class Cubed:
    """A running cubed. `plugins` maps name -> config dict (or None)."""

    def __init__(self, plugins=None, cube=None, env=None, args=(), wait=True,
                 plugin_dir=PLUGIN_DIR):
        self.tmp = tempfile.TemporaryDirectory(prefix="cube-test-")
        self.dir = self.tmp.name
        self.port = free_port()
        self.apps_port = free_port()
        os.makedirs(os.path.join(self.dir, "conf.d"))
        cfg = {"listen": f"127.0.0.1:{self.port}", "apps_listen": f"127.0.0.1:{self.apps_port}",
               "data_dir": "var",
               "plugin_dir": os.path.abspath(plugin_dir), "conf_dir": "conf.d",
               "web_root": "web", "log": {"level": "info", "access": "text"}}
        cfg.update(cube or {})
        self.config_path = os.path.join(self.dir, "cube.yaml")
        with open(self.config_path, "w") as f:
            f.write(to_yaml(cfg) + "\n")
        for i, (name, conf) in enumerate((plugins or {}).items()):
            self.write_confd(f"{10 + i}-{name}.yaml", name, conf)
        # CUBE_* variables of the caller's shell would override the config.
        base = {k: v for k, v in os.environ.items() if not k.startswith("CUBE_")}
        base["CUBE_ADMIN_PASSWORD"] = ADMIN_PASSWORD
        self.env = dict(base, **(env or {}))
        self.admin_password = self.env.get("CUBE_ADMIN_PASSWORD")
        self._admin = None
        self.args = list(args)
        self.proc = None
        self.log_path = os.path.join(self.dir, "cubed.log")
        if wait:
            self.start()

    def write_confd(self, fname, name, conf, enabled=True, optional=False):
        doc = {"plugin": name, "enabled": enabled}
        if optional:
            doc["optional"] = True
        if conf:
            doc["config"] = conf
        with open(os.path.join(self.dir, "conf.d", fname), "w") as f:
            f.write(to_yaml(doc) + "\n")

    def run(self, *extra, timeout=30):
        """Runs cubed with extra args to completion (e.g. --check-config)."""
        return subprocess.run([os.path.abspath(CUBED), "-c", self.config_path, *extra],
                              capture_output=True, text=True, env=self.env,
                              timeout=timeout, cwd=self.dir)

    def start(self, timeout=10):
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([os.path.abspath(CUBED), "-c", self.config_path,
                                      *self.args], stdout=self.log,
                                     stderr=subprocess.STDOUT, env=self.env, cwd=self.dir)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"cubed exited {self.proc.returncode}:\n{self.output()}")
            try:
                # /readyz, not /healthz: the main listener answers before
                # the apps listener and the "ready" line exist.
                if self.get("/readyz").status == 200:
                    return
                time.sleep(0.02)
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("cubed did not become ready:\n" + self.output())

    def output(self):
        with open(self.log_path) as f:
            return f.read()

    def request(self, method, path, body=None, headers=None, timeout=10, port=None):
        conn = http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=timeout)
        try:
            if isinstance(body, (dict, list)):
                body = json.dumps(body)
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            data = r.read()
            hdrs = {k.lower(): v for k, v in r.getheaders()}
            if hdrs.get("content-encoding") == "gzip":
                data = gzip.decompress(data)
            return Response(r.status, hdrs, data.decode("utf-8", "replace"), data)
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def apps_request(self, method, path, body=None, headers=None, timeout=10):
        """A request to the apps listener, where proxied servers answer."""
        return self.request(method, path, body, headers, timeout, port=self.apps_port)

    def apps_get(self, path, **kw):
        return self.apps_request("GET", path, **kw)

    def hand_over(self, headers, path):
        """Follows the console's hand-over for a proxied path as a browser
        would (a GET at the console origin, then the apps origin's
        callback) and returns the "cube_app=..." cookie it set."""
        r = self.request("GET", path, headers=headers)
        if r.status != 302 or "/_cube/apps/callback?" not in (r.header("location") or ""):
            raise AssertionError(f"hand-over of {path}: {r.status} {r.header('location')} "
                                 f"{r.body}")
        u = urllib.parse.urlsplit(r.header("location"))
        r = self.apps_request("GET", f"{u.path}?{u.query}")
        if r.status != 303 or not r.header("set-cookie"):
            raise AssertionError(f"hand-over callback of {path}: {r.status} {r.body}")
        return r.header("set-cookie").split(";")[0]

    def stop(self, sig=signal.SIGTERM, timeout=15):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise RuntimeError("cubed did not stop within %ss" % timeout)
        rc = self.proc.returncode if self.proc else None
        if self.proc:
            self.log.close()
        return rc

    def close(self):
        """Stops cubed; fails if it did not exit cleanly or a sanitizer
        reported anything (leaks, overflows, undefined behaviour)."""
        try:
            rc = self.stop()
            out = self.output() if self.proc else ""
            for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                           "runtime error:"):
                if marker in out:
                    raise AssertionError("cubed: sanitizer report:\n" + out[-4000:])
            if rc not in (None, 0):
                raise AssertionError(f"cubed exited {rc}:\n" + out[-4000:])
        finally:
            self.tmp.cleanup()

    # -- callers ---------------------------------------------------------

    def login(self, username, password, expect=200):
        """Signs in with a password; returns a Client carrying the session
        cookie and the CSRF token (None when the status is not 200)."""
        r = self.request("POST", "/api/v1/auth/login",
                         {"username": username, "password": password})
        if r.status != expect:
            raise AssertionError(f"login {username}: {r.status} {r.body}")
        if r.status != 200:
            return None
        cookie = r.header("set-cookie").split(";")[0]
        return Client(self, {"Cookie": cookie, "X-CSRF-Token": r.json()["csrf"]})

    def admin(self):
        """A Client signed in as the first admin (cached)."""
        if not self._admin:
            self._admin = self.login("admin", self.admin_password)
        return self._admin

    def bearer(self, token):
        return Client(self, {"Authorization": "Bearer " + token})

    def make_user(self, name, password="password-" + "x" * 8, role="user"):
        """Creates a user with a password (as admin); returns a token Client."""
        a = self.admin()
        r = a.request("POST", "/api/v1/users",
                      {"metadata": {"name": name}, "spec": {"role": role}})
        assert r.status == 201, r.body
        r = a.request("POST", f"/api/v1/users/{name}/password", {"password": password})
        assert r.status == 200, r.body
        u = self.login(name, password)
        r = u.request("POST", "/api/v1/auth/tokens", {"name": "test"})
        assert r.status == 201, r.body
        return self.bearer(r.json()["token"])

    def make_project(self, name, members=()):
        """Creates a project (as admin) with [(user, role), ...] members."""
        r = self.admin().request("POST", "/api/v1/projects", {
            "metadata": {"name": name},
            "spec": {"members": [{"user": u, "role": ro} for u, ro in members]}})
        assert r.status == 201, r.body
        return r.json()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
