"""Notebooks through a running cubed with executor-local and Debian's
Jupyter: a created notebook runs as its owner's Job and answers; through
cubed's apps origin the tree page answers 200, a kernel executes 1+1 over
a proxied WebSocket, another dev gets 403, project ops pass (ops_access:
true here; an audit event says so) and an anonymous browser is redirected
to login; a stopped notebook's address says how to start it; a notebook with half a (simulated) GPU gets
it pinned and sees CUBE_API/CUBE_TOKEN/CUBE_PROJECT and CUBE_PORT_HTTP, the
port its Job's endpoint reports (ABI 1.5); stop and restart; idle
culling stops a notebook with an event, but not while a browser is
connected; a hard expiry warns, is renewed and then stops it; a restart of
cubed keeps a running notebook reachable; bad specs are 422 naming the
field, bad plugin config names file:line."""
import atexit
import json
import os
import shutil
import tempfile
import time
import unittest
import uuid

from cubetest import Cubed

BASE = "/api/v1/projects/lab/notebooks"


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-nb-plugins-")
    atexit.register(shutil.rmtree, d, True)
    for var, name in (("CUBE_LOCAL_PLUGIN_DIR", "cube-executor-local.so"),
                      ("CUBE_ACCEL_SIM_PLUGIN_DIR", "cube-accel-sim.so"),
                      ("CUBE_NOTEBOOK_PLUGIN_DIR", "cube-notebook.so")):
        os.symlink(os.path.join(os.environ[var], name), os.path.join(d, name))
    return d


# Two simulated GPUs (accel-sim): the local node offers them, Jobs get them pinned.
ACCEL = {"resource": "sim.cube.dev/gpu", "visible_env": "SIM_VISIBLE_DEVICES",
         "devices": [{"id": "0", "model": "SimA100", "memory": "80Gi", "domain": "nvl-0"},
                     {"id": "1", "model": "SimA100", "memory": "80Gi", "domain": "nvl-0"}]}


def have_jupyter():
    return os.path.exists("/usr/bin/jupyter-notebook") or os.path.exists("/usr/bin/jupyter-lab")


class Notebooks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not have_jupyter():
            raise unittest.SkipTest("Jupyter is not installed (apt-get install jupyter-notebook)")
        cls.c = Cubed(plugins={"accel-sim": ACCEL, "executor-local": None,
                               "notebook": {"cull_interval_seconds": 1,
                                            "ops_access": True,
                                            "idle_timeout_seconds": 3600,
                                            "expiry_warning_seconds": 4}},
                      plugin_dir=plugin_dir())
        cls.alice = cls.c.make_user("alice")
        cls.bob = cls.c.make_user("bob")
        cls.olga = cls.c.make_user("olga")
        cls.c.make_project("lab", [("alice", "dev"), ("bob", "dev"), ("olga", "ops")])

    @classmethod
    def tearDownClass(cls):
        for n in ("nb", "idle", "keep", "cycle", "gpu", "frac", "conn"):
            cls.c.admin().request("DELETE", f"{BASE}/{n}")
        time.sleep(0.5)
        cls.c.close()

    def create(self, name, spec=None, who=None, status=201):
        r = (who or self.alice).request("POST", BASE, {"metadata": {"name": name},
                                                       "spec": spec or {}})
        self.assertEqual(r.status, status, r.body)
        return r.json()

    def wait(self, name, phases, timeout=60):
        deadline = time.time() + timeout
        st = {}
        while time.time() < deadline:
            st = self.alice.get(f"{BASE}/{name}").json().get("status", {})
            if st.get("phase") in phases:
                return st
            time.sleep(0.1)
        self.fail(f"{name} did not reach {phases}: {st}\n{self.server_log(st)}"
                  f"\n{self.c.output()[-3000:]}")

    def server_log(self, st):
        """The tail of the server Job's log, for a failure's message."""
        if not st.get("job"):
            return ""
        r = self.c.admin().get(f"/api/v1/projects/lab/jobs/{st['job']}/logs")
        return f"server log ({r.status}):\n{r.body[-2000:]}"

    def job(self, name):
        return self.c.admin().get(f"/api/v1/projects/lab/jobs/{name}").json()

    def job_gone(self, name, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.c.admin().get(f"/api/v1/projects/lab/jobs/{name}").status == 404:
                return
            time.sleep(0.1)
        self.fail(f"Job {name} was not deleted")

    def port_of(self, st):
        """The server's port: its Job's reported endpoint (ABI 1.5), on
        loopback, the port the host allocated for spec.ports "http"."""
        rep = self.job(st["job"])["status"]["replicas"][0]
        host, port = rep["endpoints"]["http"].rsplit(":", 1)
        self.assertEqual(host, "127.0.0.1", rep)
        self.assertEqual(int(port), rep["ports"]["http"], rep)
        return int(port)

    def direct(self, port, path):
        import http.client
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        conn.close()
        return r.status

    def test_1_runs_answers_and_keeps_its_secret(self):
        self.create("nb", {"resources": {"cpu": "1", "memory": "1Gi"}})
        st = self.wait("nb", ("Running", "Failed"))
        self.assertEqual(st["phase"], "Running", f"{st}\n{self.server_log(st)}")
        self.assertEqual(st["url"], "/notebook/lab/nb/")
        self.assertTrue(st.get("started") and st.get("lastActivity"), st)
        job = self.job(st["job"])
        self.assertEqual(job["metadata"]["ownerReferences"][0]["kind"], "Notebook")
        self.assertEqual(job["status"]["phase"], "Running")
        # The server's secret lives only in cubed's private file (0600).
        path = os.path.join(self.c.dir, "var", "plugins", "notebook", "servers", "lab.nb")
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        with open(path) as f:
            secret = f.read().split()[5]
        self.assertGreaterEqual(len(secret), 32)
        text = json.dumps(job) + json.dumps(self.alice.get(f"{BASE}/nb").json()) + \
            self.alice.get(f"/api/v1/projects/lab/jobs/{st['job']}/logs").body + \
            self.alice.get(f"{BASE}/nb/events").body
        self.assertNotIn(secret, text)
        port = self.port_of(st)
        # Jupyter answers on loopback and refuses callers without the secret.
        self.assertEqual(self.direct(port, "/notebook/lab/nb/api/status"), 403)
        r = self.alice.get(f"{BASE}/nb/open")
        self.assertEqual((r.status, r.header("location")), (302, "/notebook/lab/nb/"))

    def test_2_proxy_tree_kernel_and_access(self):
        self.assertNotIn("refused the proxy prefix", self.c.output())
        self.wait("nb", ("Running",))
        r = self.alice.apps_get("/notebook/lab/nb/tree")
        self.assertEqual(r.status, 200, r.body[:500])
        self.assertIn("Jupyter", r.body)
        r = self.alice.apps_get("/notebook/lab/nb/api/status",
                                headers={"Host": "apps.example.org"})
        self.assertEqual(r.status, 200, "the apps origin's host name reaches Jupyter: " +
                         r.body[:300])
        self.assertEqual(self.bob.apps_get("/notebook/lab/nb/tree").status, 403)
        for _ in range(2):
            self.assertEqual(self.olga.apps_get("/notebook/lab/nb/api/status").status, 200,
                             "project ops pass (ops_access: true)")
        opened = [e for e in self.alice.get(f"{BASE}/nb/events").json()["items"]
                  if e.get("reason") == "OpenedByOther"]
        self.assertEqual([e["user"] for e in opened], ["olga"], "audited once")
        app = self.c.admin().open_app("/notebook/lab/nb/")
        self.assertEqual(app.apps_get("/notebook/lab/nb/api/status").status, 200,
                         "the hand-over's cookie works as well as a bearer token")
        self.assertEqual(self.c.admin().get("/notebook/lab/nb/api/status").status, 302,
                         "the console origin hands over, never serves the notebook")
        r = self.c.get("/notebook/lab/nb/tree", headers={"Accept": "text/html"})
        self.assertEqual(r.status, 302, r.body[:300])
        self.assertIn("next=", r.header("location"))
        self.assertEqual(self.execute("nb", "1+1"), "2")

    def test_8_fractional_device_and_cube_variables(self):
        self.create("frac", {"resources": {"cpu": "500m", "memory": "1Gi", "sim.cube.dev/gpu": 0.5}})
        st = self.wait("frac", ("Running", "Failed"))
        self.assertEqual(st["phase"], "Running", st)
        nb = self.alice.get(f"{BASE}/frac").json()
        self.assertEqual(nb["spec"]["expiresAfterSeconds"], 259200, "GPU notebooks expire by default")
        self.assertIn("expires", st)
        job = self.job(st["job"])
        self.assertEqual(job["spec"]["resources"]["sim.cube.dev/gpu"], 0.5)
        devices = job["status"]["replicas"][0]["devices"]
        self.assertEqual(len(devices), 1, job["status"])
        code = ("import os; ','.join(os.environ.get(k, '-') for k in ('CUBE_PROJECT', "
                "'SIM_VISIBLE_DEVICES', 'CUBE_NOTEBOOK')) + ' ' + str(len(os.environ.get('CUBE_TOKEN', '')) > 0) "
                "+ ' ' + os.environ.get('CUBE_API', '-')[:7] + ' ' + os.environ.get('CUBE_PORT_HTTP', '-')")
        out = self.execute("frac", code)
        self.assertEqual(out, repr(f"lab,{devices[0]['id']},frac True http:// {self.port_of(st)}"),
                         out)

    def execute(self, name, code):
        import websocket
        r = self.alice.apps_request("POST", f"/notebook/lab/{name}/api/kernels",
                                    {"name": "python3"})
        self.assertEqual(r.status, 201, r.body)
        kid = r.json()["id"]
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{self.c.apps_port}/notebook/lab/{name}/api/kernels/{kid}/channels",
            header=[f"Authorization: {self.alice.headers['Authorization']}"], timeout=30)
        msg_id = uuid.uuid4().hex
        ws.send(json.dumps({
            "header": {"msg_id": msg_id, "username": "alice", "session": uuid.uuid4().hex,
                       "msg_type": "execute_request", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": False,
                        "user_expressions": {}, "allow_stdin": False}}))
        deadline = time.time() + 30
        try:
            while time.time() < deadline:
                m = json.loads(ws.recv())
                if m.get("parent_header", {}).get("msg_id") == msg_id and \
                        m["msg_type"] == "execute_result":
                    return m["content"]["data"]["text/plain"]
        finally:
            ws.close()
        self.fail("no execute_result")

    def test_3_stop_and_restart(self):
        self.create("cycle")
        st = self.wait("cycle", ("Running", "Failed"))
        self.assertEqual(st["phase"], "Running", st)
        first_job = st["job"]
        r = self.alice.request("POST", f"{BASE}/cycle/stop", {})
        self.assertEqual(r.status, 200, r.body)
        st = self.wait("cycle", ("Stopped",))
        self.assertEqual(st["reason"], "Stopped")
        self.assertNotIn("url", st)
        r = self.alice.apps_get("/notebook/lab/cycle/lab")
        self.assertEqual(r.status, 503, r.body)
        self.assertIn("not running (phase Stopped", r.body)
        self.assertIn("/api/v1/projects/lab/notebooks/cycle/restart", r.body)
        r = self.alice.request("POST", f"{BASE}/cycle/restart", {})
        self.assertEqual(r.status, 200, r.body)
        st = self.wait("cycle", ("Running", "Failed"))
        self.assertEqual((st["phase"], st["generation"]), ("Running", 2), st)
        self.assertNotEqual(st["job"], first_job)
        self.job_gone(first_job)
        self.assertEqual(self.bob.request("POST", f"{BASE}/cycle/stop", {}).status, 403)

    def test_4_idle_notebook_is_culled(self):
        self.create("idle", {"idleTimeoutSeconds": 3})
        st = self.wait("idle", ("Running", "Failed"))
        self.assertEqual(st["phase"], "Running", st)
        st = self.wait("idle", ("Stopped",), timeout=30)
        self.assertEqual(st["reason"], "Idle", st)
        ev = self.alice.get(f"{BASE}/idle/events").body
        self.assertIn("Idle", ev)
        self.job_gone(st["job"])

    def test_7_expiry_warns_renews_and_stops(self):
        self.create("gpu", {"expiresAfterSeconds": 6})
        st = self.wait("gpu", ("Running", "Failed"))
        self.assertEqual(st["phase"], "Running", st)
        first = st["expires"]
        deadline = time.time() + 10
        while time.time() < deadline and "ExpiresSoon" not in self.alice.get(f"{BASE}/gpu/events").body:
            time.sleep(0.2)
        self.assertIn("ExpiresSoon", self.alice.get(f"{BASE}/gpu/events").body)
        time.sleep(1.1)
        r = self.alice.request("POST", f"{BASE}/gpu/renew", {})
        self.assertEqual(r.status, 200, r.body)
        self.assertGreater(r.json()["status"]["expires"], first)
        st = self.wait("gpu", ("Stopped",), timeout=20)
        self.assertEqual(st["reason"], "Expired", st)
        r = self.alice.request("POST", f"{BASE}/gpu/renew", {})
        self.assertEqual(r.status, 409, r.body)

    def test_9_open_connections_spare_an_idle_notebook(self):
        import websocket
        # Long enough that a loaded machine still opens the kernel's
        # connection before the notebook would count as idle.
        self.create("conn", {"idleTimeoutSeconds": 8})
        st = self.wait("conn", ("Running", "Failed"))
        self.assertEqual(st["phase"], "Running", st)
        r = self.alice.apps_request("POST", "/notebook/lab/conn/api/kernels", {"name": "python3"})
        self.assertEqual(r.status, 201, r.body)
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{self.c.apps_port}/notebook/lab/conn/api/kernels/{r.json()['id']}"
            "/channels",
            header=[f"Authorization: {self.alice.headers['Authorization']}"], timeout=30)
        try:
            time.sleep(16)   # twice the timeout, many culling rounds
            st = self.alice.get(f"{BASE}/conn").json()["status"]
            self.assertEqual(st["phase"], "Running", f"a browser is connected: {st}")
        finally:
            ws.close()
        st = self.wait("conn", ("Stopped",), timeout=30)
        self.assertEqual(st["reason"], "Idle", st)

    def test_5_bad_specs_name_the_field(self):
        for spec, field in (({"ide": "emacs"}, "spec.ide"),
                            ({"ide": "vscode"}, "spec.ide"),
                            ({"resources": {"cpu": "-2"}}, "spec.resources.cpu"),
                            ({"resources": {"nvidia.com/gpu": 1.5}}, "spec.resources.nvidia.com/gpu"),
                            ({"env": {"CUBE_TOKEN": "x"}}, "spec.env.CUBE_TOKEN"),
                            ({"idleTimeoutSeconds": -1}, "spec.idleTimeoutSeconds"),
                            ({"colour": "red"}, "spec.colour")):
            r = self.alice.request("POST", BASE, {"metadata": {"name": "bad"}, "spec": spec})
            self.assertTrue(400 <= r.status < 500, (spec, r.status, r.body))
            self.assertIn(field, r.body, spec)
            self.assertNotIn(f"{field}: {field}", r.body, "the field is named once")

    def test_6_restart_of_cubed_keeps_it_reachable(self):
        self.create("keep")
        st = self.wait("keep", ("Running", "Failed"))
        self.assertEqual(st["phase"], "Running", st)
        port = self.port_of(st)
        self.c.stop()
        self.c.start()
        type(self).alice = self.c.bearer(self.alice.headers["Authorization"][7:])
        self.c._admin = None
        st2 = self.wait("keep", ("Running",))
        self.assertEqual((st2["job"], st2["started"]), (st["job"], st["started"]))
        self.assertEqual(self.port_of(st2), port)
        deadline = time.time() + 10
        while time.time() < deadline:
            r = self.alice.apps_get("/notebook/lab/keep/api/status")
            if r.status == 200:
                break
            time.sleep(0.1)
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(self.direct(port, "/notebook/lab/keep/api/status"), 403)


class Config(unittest.TestCase):
    """Bad plugin config is refused before start, naming file:line and key."""

    def test_bad_config_names_file_line_and_key(self):
        for conf, key in (({"idle_timeout_seconds": -5}, "config.idle_timeout_seconds"),
                          ({"python": "python3"}, "config.python"),
                          ({"vscode": {"enabld": True}}, "config.vscode.enabld")):
            c = Cubed(plugins={"notebook": conf}, plugin_dir=plugin_dir(), wait=False)
            try:
                r = c.run("--check-config")
            finally:
                c.tmp.cleanup()
            out = r.stdout + r.stderr
            self.assertNotEqual(r.returncode, 0, out)
            self.assertRegex(out, r"10-notebook\.yaml:\d+:\d+: " + key.replace(".", r"\."), out)


def code_server():
    """code-server's path: CUBE_TEST_CODE_SERVER, else on PATH, else None."""
    p = os.environ.get("CUBE_TEST_CODE_SERVER") or shutil.which("code-server")
    return p if p and os.access(p, os.X_OK) else None


class VSCode(unittest.TestCase):
    """ide: vscode through npm's code-server, when it is installed (its npm
    install fetches dependencies from github.com)."""

    def test_vscode_opens_through_cubed(self):
        exe = code_server()
        if not exe:
            self.skipTest("code-server is not installed (npm install -g code-server@4.96.4)")
        c = Cubed(plugins={"executor-local": None,
                           "notebook": {"vscode": {"enabled": True, "command": exe}}},
                  plugin_dir=plugin_dir())
        try:
            alice = c.make_user("alice")
            c.make_project("lab", [("alice", "dev")])
            r = alice.request("POST", BASE, {"metadata": {"name": "code"}, "spec": {"ide": "vscode"}})
            self.assertEqual(r.status, 201, r.body)
            deadline, st = time.time() + 120, {}
            while time.time() < deadline and st.get("phase") not in ("Running", "Failed"):
                time.sleep(0.2)
                st = alice.get(f"{BASE}/code").json().get("status", {})
            self.assertEqual((st.get("phase"), st.get("url")), ("Running", "/vscode/lab/code/"), st)
            r = alice.apps_get("/vscode/lab/code/")
            self.assertIn(r.status, (200, 302), r.body[:300])
            self.assertNotIn("login", r.header("location") or "", "the proxy's cookie signs in")
            alice.request("DELETE", f"{BASE}/code")
            time.sleep(0.5)
        finally:
            c.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
