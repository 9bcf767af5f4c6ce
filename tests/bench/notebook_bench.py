"""notebook_bench.py — create-to-ready time of a Jupyter server three ways,
interleaved round by round so that machine noise hits all three alike:

  cube   POST a Notebook to cubed (executor-local, notebook plugin) and time
         until GET /notebook/<p>/<n>/api/status through cubed's proxy
         answers 200 (then it also waits for status.phase Running);
  bare   start `jupyter-notebook` by hand (same flags, a token in the
         environment) and time until its /api/status answers 200;
  hub    Debian's JupyterHub 3 (loopback, DummyAuthenticator, an admin
         service token, LocalProcessSpawner running jupyterhub-singleuser as
         the same OS account Cube uses) spawning through its REST API, timed
         until the Hub reports the server ready and it answers through the
         Hub's proxy.

Then, on one running Cube notebook, the latency of /api/status through
cubed's proxy against the same request straight to Jupyter. Prints every
figure, the medians and the ratios against the bars (Cube <= 1.2x bare,
<= 0.7x JupyterHub). Run by tests/bench/notebook.sh (needs root)."""
import json
import os
import pwd
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
from cubetest import Cubed  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
POLL = 0.02
JUPYTER = "/usr/bin/jupyter-notebook"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status_of(url, headers, timeout=2):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                    timeout=timeout) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0


def wait_200(url, headers, t0, limit=120):
    while time.time() - t0 < limit:
        if status_of(url, headers) == 200:
            return time.time() - t0
        time.sleep(POLL)
    raise RuntimeError(f"{url} did not answer within {limit} s")


# -- Cube ----------------------------------------------------------------

class Cube:
    def __init__(self, plugin_dir):
        self.c = Cubed(plugins={"executor-local": None, "notebook": {"idle_timeout_seconds": 0}},
                       plugin_dir=plugin_dir, cube={"log": {"level": "warn", "access": "off"}})
        self.user = self.c.make_user("bench")
        self.c.make_project("bench", [("bench", "dev")])
        self.auth = {"Authorization": self.user.headers["Authorization"]}
        self.n = 0

    def api(self, method, path, body=None):
        return self.user.request(method, path, body)

    def start(self):
        self.n += 1
        name = f"nb{self.n}"
        base = f"http://127.0.0.1:{self.c.apps_port}/notebook/bench/{name}/api/status"
        t0 = time.time()
        r = self.api("POST", "/api/v1/projects/bench/notebooks", {"metadata": {"name": name}})
        assert r.status == 201, r.body
        ready = wait_200(base, self.auth, t0)
        st = self.api("GET", f"/api/v1/projects/bench/notebooks/{name}").json()["status"]
        while st.get("phase") != "Running" and time.time() - t0 < 60:
            time.sleep(POLL)
            st = self.api("GET", f"/api/v1/projects/bench/notebooks/{name}").json()["status"]
        return name, ready, st

    def stop(self, name):
        self.api("DELETE", f"/api/v1/projects/bench/notebooks/{name}")
        deadline = time.time() + 30
        while time.time() < deadline and \
                self.api("GET", f"/api/v1/projects/bench/jobs/{name}-nb1").status != 404:
            time.sleep(0.05)

    def secret_and_port(self, name):
        with open(os.path.join(self.c.dir, "var", "plugins", "notebook", "servers",
                               f"bench.{name}")) as f:
            fields = f.read().split()
        return fields[5], int(fields[2])

    def close(self):
        self.c.close()


# -- by hand -------------------------------------------------------------

def bare_start(workdir):
    port, token = free_port(), os.urandom(24).hex()
    home = tempfile.mkdtemp(dir=workdir)
    env = dict(os.environ, JUPYTER_TOKEN=token, HOME=home)
    t0 = time.time()
    p = subprocess.Popen([JUPYTER, "--no-browser", "--ip=127.0.0.1", f"--port={port}",
                          "--port-retries=0", "--allow-root", f"--notebook-dir={home}"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        return wait_200(f"http://127.0.0.1:{port}/api/status",
                        {"Authorization": "token " + token}, t0)
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


# -- JupyterHub ------------------------------------------------------------

HUB_CONFIG = """
c.JupyterHub.ip = '127.0.0.1'
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = '127.0.0.1'
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{proxy_api}'
c.JupyterHub.authenticator_class = 'dummy'
c.JupyterHub.spawner_class = 'jupyterhub.spawner.LocalProcessSpawner'
c.JupyterHub.db_url = 'sqlite:///{dir}/jupyterhub.sqlite'
c.JupyterHub.cookie_secret_file = '{dir}/cookie_secret'
c.JupyterHub.pid_file = '{dir}/jupyterhub.pid'
c.JupyterHub.cleanup_servers = True
c.JupyterHub.services = [{{'name': 'bench', 'api_token': '{token}'}}]
c.JupyterHub.load_roles = [{{'name': 'bench', 'services': ['bench'],
    'scopes': ['admin:users', 'admin:servers', 'access:servers']}}]
c.Spawner.cmd = ['/usr/bin/jupyterhub-singleuser']
c.Spawner.notebook_dir = '{home}'
c.Spawner.environment = {{'JUPYTER_RUNTIME_DIR': '{home}/.rt', 'JUPYTER_DATA_DIR': '{home}/.data',
    'JUPYTER_CONFIG_DIR': '{home}/.cfg', 'IPYTHONDIR': '{home}/.ipy'}}
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
"""


class Hub:
    def __init__(self, workdir, user):
        self.dir = tempfile.mkdtemp(prefix="hub-", dir=workdir)
        os.chmod(self.dir, 0o755)
        self.user, self.token = user, os.urandom(24).hex()
        self.port = free_port()
        home = os.path.join(self.dir, "home")
        os.makedirs(home)
        pw = pwd.getpwnam(user)
        os.chown(home, pw.pw_uid, pw.pw_gid)
        with open(os.path.join(self.dir, "jupyterhub_config.py"), "w") as f:
            f.write(HUB_CONFIG.format(port=self.port, hub_port=free_port(), proxy_api=free_port(),
                                      dir=self.dir, token=self.token, home=home))
        self.log = open(os.path.join(self.dir, "hub.log"), "w")
        # Debian's configurable-http-proxy finds its modules in /usr/share/nodejs,
        # which a Node.js from elsewhere (NodeSource) does not search.
        env = dict(os.environ, NODE_PATH="/usr/share/nodejs:/usr/lib/nodejs")
        self.p = subprocess.Popen(["/usr/bin/jupyterhub", "-f", "jupyterhub_config.py"],
                                  cwd=self.dir, stdout=self.log, stderr=subprocess.STDOUT,
                                  env=env)
        self.auth = {"Authorization": "token " + self.token}
        wait_200(f"http://127.0.0.1:{self.port}/hub/api/", {}, time.time(), 60)
        self.call("POST", f"/hub/api/users/{user}")

    def call(self, method, path):
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                     headers=self.auth, data=b"" if method != "GET" else None)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                body = r.read()
                return r.status, json.loads(body) if body else None
        except urllib.error.HTTPError as e:
            return e.code, None

    def server(self):
        return (self.call("GET", f"/hub/api/users/{self.user}")[1] or {}).get("servers", {}).get("")

    def start(self):
        t0 = time.time()
        code, _ = self.call("POST", f"/hub/api/users/{self.user}/server")
        assert code in (201, 202), f"spawn: {code}\n{self.output()}"
        while time.time() - t0 < 120:
            s = self.server()
            if s and s.get("ready"):
                break
            time.sleep(POLL)
        url = f"http://127.0.0.1:{self.port}/user/{self.user}/api/status"
        return wait_200(url, self.auth, t0)

    def stop(self):
        self.call("DELETE", f"/hub/api/users/{self.user}/server")
        deadline = time.time() + 30
        while time.time() < deadline and self.server():
            time.sleep(0.05)

    def output(self):
        with open(os.path.join(self.dir, "hub.log")) as f:
            return f.read()[-3000:]

    def close(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(15)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.log.close()


# -- proxied vs direct ------------------------------------------------------

def latency(url, headers, n=200):
    took = []
    for _ in range(n):
        t0 = time.perf_counter()
        status_of(url, headers)
        took.append(time.perf_counter() - t0)
    return statistics.median(took) * 1000


def main():
    plugin_dir, workdir = sys.argv[1], sys.argv[2]
    cube = Cube(plugin_dir)
    hub = None
    times = {"cube": [], "bare": [], "hub": []}
    try:
        # The OS account Cube's executor made for user "bench" runs the
        # Hub's servers too (created by the first Cube notebook).
        name, ready, st = cube.start()
        cube.stop(name)
        account = next(p.pw_name for p in pwd.getpwall() if p.pw_name.endswith("-bench"))
        hub = Hub(workdir, account)
        for r in range(ROUNDS):
            name, ready, _ = cube.start()
            times["cube"].append(ready)
            cube.stop(name)
            times["bare"].append(bare_start(workdir))
            times["hub"].append(hub.start())
            hub.stop()
            print(f"round {r + 1}: cube {times['cube'][-1]:.2f} s, bare {times['bare'][-1]:.2f} s, "
                  f"jupyterhub {times['hub'][-1]:.2f} s", flush=True)
        name, _, _ = cube.start()
        secret, port = cube.secret_and_port(name)
        proxied = latency(f"http://127.0.0.1:{cube.c.apps_port}/notebook/bench/{name}/api/status",
                          cube.auth)
        direct = latency(f"http://127.0.0.1:{port}/notebook/bench/{name}/api/status",
                         {"Authorization": "token " + secret})
        cube.stop(name)
    finally:
        if hub:
            hub.close()
        cube.close()
    med = {k: statistics.median(v) for k, v in times.items() if v}
    print()
    print(f"create-to-ready, median of {ROUNDS} (min .. max):")
    for k, label in (("cube", "Cube (POST to proxied 200)"), ("bare", "jupyter-notebook by hand"),
                     ("hub", "JupyterHub 3 spawn")):
        print(f"  {label:28s} {med[k]:6.2f} s   ({min(times[k]):.2f} .. {max(times[k]):.2f})")
    r_bare, r_hub = med["cube"] / med["bare"], med["cube"] / med["hub"]
    print(f"  Cube / bare       {r_bare:6.3f}x  (bar <= 1.2x: {'met' if r_bare <= 1.2 else 'NOT met'})")
    print(f"  Cube / JupyterHub {r_hub:6.3f}x  (bar <= 0.7x: {'met' if r_hub <= 0.7 else 'NOT met'})")
    print(f"/api/status latency, median of 200: through cubed {proxied:.2f} ms, "
          f"direct {direct:.2f} ms (+{proxied - direct:.2f} ms)")


if __name__ == "__main__":
    main()
