"""What the Python SDK's integration tests share: a real cubed (cubetest)
with the plugins a test file needs and the admin token, a TCP proxy that
can drop its connections (forced disconnects), and small fake servers (an
HTML-answering proxy, a server that never answers). Stdlib only; the SDK
itself comes from sdk/python (PYTHONPATH)."""
import atexit
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
import unittest

from cubetest import PLUGIN_DIR, Cubed

TOKEN = "sdk-test-admin-token"
# The caller's own settings stay out: no CUBE_* from the shell, and a
# config file of the tests' own (absent unless a test writes it).
for _v in ("CUBE_API", "CUBE_TOKEN", "CUBE_PROJECT", "CUBE_CA_FILE"):
    os.environ.pop(_v, None)
CONFIG_DIR = tempfile.mkdtemp(prefix="cube-sdk-config-")
atexit.register(shutil.rmtree, CONFIG_DIR, True)
os.environ["CUBE_CONFIG"] = os.path.join(CONFIG_DIR, "config")
BUILD_ROOT = os.environ.get("CUBE_BUILD_ROOT", "build")
SOURCE_ROOT = os.environ.get("CUBE_SOURCE_ROOT", ".")
PY = "/usr/bin/python3"


def find_plugin(name):
    """The path of cube-<name>.so in the build tree, or None."""
    for d in (PLUGIN_DIR, BUILD_ROOT):
        for root, dirs, files in os.walk(d):
            dirs[:] = [x for x in dirs if not x.endswith(".p")]
            if f"cube-{name}.so" in files:
                return os.path.join(root, f"cube-{name}.so")
    return None


def plugin_dir(names):
    """A temp dir linking the named plugins; skips the test file (77)
    when one is not built."""
    d = tempfile.mkdtemp(prefix="cube-sdk-plugins-")
    os.chmod(d, 0o755)
    atexit.register(shutil.rmtree, d, True)
    for n in names:
        p = find_plugin(n)
        if not p:
            print(f"plugin {n} is not built: skipped")
            sys.exit(77)
        os.symlink(os.path.abspath(p), os.path.join(d, os.path.basename(p)))
    return d


def start(plugins, cube=None, env=None):
    """A cubed with plugins ({name: config}) and the admin token; its
    plugin dir is kept in args_plugin_dir (for a second cubed)."""
    d = plugin_dir(list(plugins))
    c = Cubed(plugins=plugins, plugin_dir=d, cube=cube,
              env=dict({"CUBE_ADMIN_TOKEN": TOKEN}, **(env or {})))
    c.args_plugin_dir = d
    return c


def url(server, port=None):
    return f"http://127.0.0.1:{port or server.port}"


def wait_for(fn, timeout=10.0, pause=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(pause)
    return fn()


class CutProxy:
    """127.0.0.1:port relaying to 127.0.0.1:target. cut() drops every
    connection it relays; hold() makes it drop new ones at once until
    release()."""

    def __init__(self, target):
        self.target = target
        self.ls = socket.socket()
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(64)
        self.port = self.ls.getsockname()[1]
        self.live, self.mu, self.holding, self.accepted = [], threading.Lock(), False, 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.ls.accept()
            except OSError:
                return
            self.accepted += 1
            if self.holding:
                c.close()
                continue
            try:
                u = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                c.close()
                continue
            with self.mu:
                self.live += [c, u]
            for a, b in ((c, u), (u, c)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        with self.mu:
            live, self.live = self.live, []
        for s in live:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def hold(self):
        self.holding = True
        self.cut()

    def release(self):
        self.holding = False

    def close(self):
        self.ls.close()
        self.cut()


class FakeServer:
    """A server answering every request with `answer` (bytes: a whole HTTP
    response), or never answering (answer None)."""

    def __init__(self, answer):
        self.answer = answer
        self.ls = socket.socket()
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(16)
        self.port = self.ls.getsockname()[1]
        self.conns = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                c, _ = self.ls.accept()
            except OSError:
                return
            self.conns.append(c)
            if self.answer is None:
                continue             # keep it open, say nothing
            try:
                c.recv(65536)
                c.sendall(self.answer)
            except OSError:
                pass
            c.close()

    def close(self):
        self.ls.close()
        for c in self.conns:
            c.close()


def html_answer(status, reason, body):
    data = body.encode()
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode() + data


class Test(unittest.TestCase):
    """A test case with the server of its file (set by main) and an admin
    Client of the SDK."""

    server = None

    def client(self, **kw):
        import cube
        kw.setdefault("token", TOKEN)
        return cube.Client(kw.pop("api", url(self.server)), **kw)


def main(plugins, cube=None, setup=None):
    """Starts the file's cubed, runs setup(server) and its tests."""
    server = start(plugins, cube)
    Test.server = server
    try:
        if setup:
            setup(server)
        prog = unittest.main(exit=False, verbosity=2)
        return 0 if prog.result.wasSuccessful() else 1
    finally:
        server.close()
