"""Runs a real cubed for the abi tests: a throw-away cube.yaml, conf.d and
data dir in a temporary directory, a free port, and helpers to wait for
/readyz, send GETs and stop it with SIGTERM. Standard library only."""
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

# Ignore any proxy settings: the server is always on the loopback.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class TestFailure(Exception):
    """A failed check; the message says what was expected and found."""


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_env():
    """The environment minus CUBE_* overrides that would change the config."""
    return {k: v for k, v in os.environ.items() if not k.startswith("CUBE_")}


class Cubed:
    """One cubed configuration in its own temporary directory.

    confd maps a conf.d file name ("10-x.yaml") to its YAML text."""

    def __init__(self, cubed, plugin_dir, confd, extra_yaml="", env=None):
        self.extra_yaml = extra_yaml
        self.env = env or {}
        self.cubed = os.path.abspath(cubed)
        self.tmp = tempfile.TemporaryDirectory(prefix="cube-abi-")
        self.dir = self.tmp.name
        self.plugin_dir = os.path.abspath(plugin_dir)
        self.port = None
        self.proc = None
        os.mkdir(os.path.join(self.dir, "conf.d"))
        for name, text in confd.items():
            with open(os.path.join(self.dir, "conf.d", name), "w") as f:
                f.write(text)
        self.config = os.path.join(self.dir, "cube.yaml")
        self._write_config(free_port())

    def _write_config(self, port):
        self.port = port
        with open(self.config, "w") as f:
            f.write(f'listen: "127.0.0.1:{port}"\n'
                    f'data_dir: "{self.dir}/var"\n'
                    f'plugin_dir: "{self.plugin_dir}"\n'
                    f'conf_dir: "{self.dir}/conf.d"\n'
                    'web_root: ""\n'
                    'log: {level: info, format: text, access: "off"}\n' + self.extra_yaml)

    def run(self, *args, timeout=30):
        """Runs cubed to completion (--check-config, --list-plugins)."""
        return subprocess.run([self.cubed, "-c", self.config, *args],
                              capture_output=True, text=True, timeout=timeout,
                              env=dict(clean_env(), **self.env), cwd=self.dir)

    def start(self, *args):
        self.stderr_path = os.path.join(self.dir, "stderr.log")
        self._stderr = open(self.stderr_path, "w")
        self.proc = subprocess.Popen([self.cubed, "-c", self.config, *args],
                                     stdout=self._stderr, stderr=subprocess.STDOUT,
                                     env=dict(clean_env(), **self.env), cwd=self.dir)

    def output(self):
        with open(self.stderr_path) as f:
            return f.read()

    def get(self, path, timeout=5):
        """Returns (status, body text)."""
        url = f"http://127.0.0.1:{self.port}{path}"
        try:
            with _OPENER.open(url, timeout=timeout) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def request(self, method, path, body=None, headers=None, timeout=5):
        """Returns (status, body text); a dict body is sent as JSON."""
        if isinstance(body, dict):
            body = json.dumps(body)
        data = body.encode() if isinstance(body, str) else body
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data,
                                     method=method, headers=headers or {})
        try:
            with _OPENER.open(req, timeout=timeout) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def get_json(self, path):
        status, body = self.get(path)
        if status != 200:
            raise TestFailure(f"GET {path}: expected 200, found {status}: {body}")
        return json.loads(body)

    def wait_exit(self, timeout=15):
        try:
            return self.proc.wait(timeout)
        finally:
            self._stderr.close()

    def wait_ready(self, timeout=15):
        """Polls /readyz until 200; returns its JSON. Raises when cubed exits."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise TestFailure(f"cubed exited with {self.proc.returncode} before "
                                  f"it was ready:\n{self.output()}")
            try:
                status, body = self.get("/readyz", timeout=1)
                if status == 200:
                    return json.loads(body)
            except (OSError, urllib.error.URLError):
                pass  # not listening yet
            time.sleep(0.05)
        raise TestFailure(f"cubed not ready after {timeout}s:\n{self.output()}")

    def start_ready(self, *args, attempts=3):
        """start + wait_ready, retrying on another port if ours was taken
        between free_port() and cubed's bind."""
        for attempt in range(attempts):
            self.start(*args)
            try:
                return self.wait_ready()
            except TestFailure:
                in_use = self.proc.poll() is not None and "in use" in self.output()
                if not in_use or attempt == attempts - 1:
                    raise
                self._stderr.close()
                self._write_config(free_port())

    def stop(self):
        """SIGTERM; returns the exit status (killing cubed if it hangs)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.wait_exit(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise TestFailure(f"cubed ignored SIGTERM for 20s:\n{self.output()}")

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def expect(cond, message):
    if not cond:
        raise TestFailure(message)
