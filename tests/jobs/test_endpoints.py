"""Replica endpoints (ABI 1.5, G1) through a running cubed: a Job with
spec.ports on executor-local gets CUBE_PORT_HTTP, listens there, its
endpoint shows in its status and a plugin's proxy (endpointprobe) relays to
it; executor-sim replicas report endpoints on an address apart from their
nodes', and replica 0's reaches the later replicas' MASTER_ADDR (the env
the sim records in the log) and a proxy upstream; a notebook whose server
would run on another machine fails (allow_remote is off); bad spec.ports
are 422 naming the field; a port another process on this machine listens
on is never handed out."""
import os
import socket
import tempfile
import time
import unittest

from cubetest import Cubed

PY = "/usr/bin/python3"
JOBS = "/api/v1/projects/{}/jobs"
SIM = {"pool": "sim", "run_seconds": 300,
       "node_groups": [{"prefix": "a-", "count": 2, "cpu": "16", "memory": "64Gi",
                        "address": "10.77.0.1", "endpoint_address": "10.88.0.1",
                        "labels": {"net": "pod"}},
                       {"prefix": "lo-", "count": 1, "cpu": "1", "memory": "4Gi",
                        "labels": {"net": "lo"}}]}

SERVER = r"""
import http.server, os
port = int(os.environ["CUBE_PORT_HTTP"])
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("hello from %d %s" % (port, self.path)).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
print("listening on", port, flush=True)
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
"""


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-endpoints-plugins-")
    for var, name in (("CUBE_LOCAL_PLUGIN_DIR", "cube-executor-local.so"),
                      ("CUBE_SIM_PLUGIN_DIR", "cube-executor-sim.so"),
                      ("CUBE_NOTEBOOK_PLUGIN_DIR", "cube-notebook.so"),
                      ("CUBE_PROBE_PLUGIN_DIR", "cube-endpointprobe.so")):
        os.symlink(os.path.join(os.environ[var], name), os.path.join(d, name))
    return d


class Endpoints(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"executor-local": None, "executor-sim": SIM,
                               "notebook": {"pool": "sim"}, "endpointprobe": None},
                      plugin_dir=plugin_dir())
        cls.a = cls.c.admin()
        cls.c.make_project("lab")

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def submit(self, project, name, spec, status=201):
        r = self.a.request("POST", JOBS.format(project), {"metadata": {"name": name},
                                                          "spec": spec})
        self.assertEqual(r.status, status, r.body)
        return r

    def wait(self, project, name, cond, timeout=60):
        deadline, st = time.time() + timeout, {}
        while time.time() < deadline:
            st = self.a.get(f"{JOBS.format(project)}/{name}").json().get("status", {})
            if cond(st):
                return st
            time.sleep(0.1)
        self.fail(f"{name}: {st}\n{self.c.output()[-2000:]}")

    def logs(self, project, name, replica):
        return self.a.get(f"{JOBS.format(project)}/{name}/logs?replica={replica}").body

    def stop_web(self):
        """Replicas outlive cubed: the server must not keep its port."""
        self.a.request("POST", f"{JOBS.format('public')}/web/stop", {"graceSeconds": 1})
        self.wait("public", "web", lambda s: s.get("phase") in ("Cancelled", "Failed",
                                                                "Succeeded"))

    def test_local_job_port_env_endpoint_and_proxy(self):
        self.submit("public", "web", {"command": [PY, "-c", SERVER],
                                      "ports": [{"name": "http", "protocol": "http"}],
                                      "resources": {"cpu": "500m", "memory": "256Mi"}})
        self.addCleanup(self.stop_web)
        st = self.wait("public", "web", lambda s: s.get("phase") == "Running" and
                       "endpoints" in s.get("replicas", [{}])[0])
        rep = st["replicas"][0]
        port = rep["ports"]["http"]
        self.assertTrue(29500 <= port <= 30999, rep)
        self.assertEqual(rep["endpoints"], {"http": f"127.0.0.1:{port}"}, rep)
        self.assertNotIn("ports", st, "no distributed mode: no master port")
        app = self.a.open_app("/ep/public/web/")   # the apps origin's hand-over
        deadline, r = time.time() + 30, None
        while time.time() < deadline:
            r = app.apps_get("/ep/public/web/x?y=1")
            if r.status == 200:
                break
            time.sleep(0.2)
        self.assertEqual((r.status, r.body), (200, f"hello from {port} /ep/public/web/x?y=1"))
        # A running replica's output reaches its log on executor-local's
        # next poll tick, not when the server answers: wait for it.
        deadline, log = time.time() + 20, ""
        while time.time() < deadline and f"listening on {port}" not in log:
            log = self.logs("public", "web", 0)
            time.sleep(0.1)
        self.assertIn(f"listening on {port}", log, "CUBE_PORT_HTTP is the allocated port")

    def test_sim_endpoints_reach_master_addr_and_a_proxy_upstream(self):
        self.submit("lab", "ddp", {"command": ["train"], "replicas": 2, "distributed": "pytorch",
                                   "ports": [{"name": "http"}], "pool": "sim",
                                   "nodeSelector": {"net": "pod"}})
        st = self.wait("lab", "ddp", lambda s: s.get("phase") == "Running" and all(
            "endpoints" in r for r in s.get("replicas", [])))
        r0, r1 = st["replicas"]
        host0, port0 = r0["endpoints"]["http"].rsplit(":", 1)
        self.assertTrue(host0.startswith("10.88.0."), r0)
        self.assertEqual(int(port0), r0["ports"]["http"])
        node0 = "10.77.0.%d" % (int(r0["node"][2:]) + 1)   # a-0: 10.77.0.1, a-1: .2
        master = st["ports"]["master"]
        log0, log1 = self.logs("lab", "ddp", 0), self.logs("lab", "ddp", 1)
        self.assertIn(f"env MASTER_ADDR={node0} MASTER_PORT={master} RANK=0", log0,
                      "replica 0 starts before it reports: its node's address")
        self.assertIn(f"env MASTER_ADDR={host0} MASTER_PORT={master} RANK=1", log1,
                      "replica 1: replica 0's reported endpoint")
        self.assertIn(f"CUBE_PORT_HTTP={r1['ports']['http']}", log1)
        self.assertNotIn("CUBE_TOKEN", log0 + log1)
        up = self.a.get("/api/v1/projects/lab/endpointprobe/ddp")
        self.assertEqual(up.status, 200, up.body)
        self.assertEqual(up.json(), {"host": host0, "port": int(port0)})
        self.a.request("DELETE", f"{JOBS.format('lab')}/ddp")

    def test_notebook_elsewhere_needs_allow_remote(self):
        r = self.a.request("POST", "/api/v1/projects/lab/notebooks",
                           {"metadata": {"name": "far"},
                            "spec": {"resources": {"cpu": "4", "memory": "1Gi"}}})
        self.assertEqual(r.status, 201, r.body)
        deadline, st = time.time() + 30, {}
        while time.time() < deadline and st.get("phase") != "Failed":
            time.sleep(0.1)
            st = self.a.get("/api/v1/projects/lab/notebooks/far").json().get("status", {})
        self.assertEqual((st.get("phase"), st.get("reason")), ("Failed", "RemoteEndpoint"), st)
        self.assertIn("10.88.0.", st["message"])
        self.assertIn("allow_remote", st["message"])

    def test_bad_ports_are_422_naming_the_field(self):
        cases = (([{"name": "HTTP"}], "spec.ports[0].name"),
                 ([{"name": "http"}, {"name": "http"}], "spec.ports[1].name"),
                 ([{"name": "http", "protocol": "udp"}], "spec.ports[0].protocol"),
                 ([{"protocol": "tcp"}], "spec.ports[0]"),
                 ([{"name": "a", "port": 80}], "spec.ports[0].port"),
                 ([{"name": "p%d" % i} for i in range(17)], "spec.ports"),
                 ({"name": "http"}, "spec.ports"))
        for ports, field in cases:
            r = self.submit("lab", "bad", {"command": ["x"], "ports": ports, "pool": "sim"},
                            status=422)
            self.assertIn(field, r.body, ports)
        r = self.submit("lab", "bad", {"command": ["x"], "pool": "sim",
                                       "env": {"CUBE_PORT_HTTP": "1"}}, status=422)
        self.assertIn("spec.env.CUBE_PORT_HTTP", r.body)
        self.assertEqual(self.a.get(f"{JOBS.format('lab')}/bad").status, 404, "nothing written")



def busy_range(n):
    """n consecutive free ports, all but the last held by listeners here."""
    for base in range(31500, 40000, 7):
        socks = []
        try:
            for p in range(base, base + n):
                s = socket.socket()
                s.bind(("0.0.0.0", p))
                socks.append(s)
        except OSError:
            for s in socks:
                s.close()
            continue
        socks.pop().close()
        for s in socks:
            s.listen(1)
        return base, socks
    raise RuntimeError("no free port range")


class BusyPorts(unittest.TestCase):
    """A port some other process listens on is skipped, whatever the
    allocator's starting place: of 4 ports in the range 3 are held by this
    test, so only the last can be handed out."""

    def test_ports_in_use_here_are_skipped(self):
        base, socks = busy_range(4)
        self.addCleanup(lambda: [s.close() for s in socks])
        c = Cubed(plugins={"executor-local": {"job_port_min": base, "job_port_max": base + 3}},
                  plugin_dir=plugin_dir())
        self.addCleanup(c.close)
        a = c.admin()
        for i in range(3):
            name = f"p{i}"
            r = a.request("POST", JOBS.format("public"), {"metadata": {"name": name}, "spec": {
                "command": ["/bin/true"], "ports": [{"name": "http"}],
                "resources": {"cpu": "100m", "memory": "64Mi"}}})
            self.assertEqual(r.status, 201, r.body)
            deadline, st = time.time() + 30, {}
            while time.time() < deadline:
                st = a.get(f"{JOBS.format('public')}/{name}").json().get("status", {})
                if st.get("phase") in ("Succeeded", "Failed"):
                    break
                time.sleep(0.1)
            self.assertEqual(st.get("phase"), "Succeeded", st)
            self.assertEqual(st["replicas"][0]["ports"]["http"], base + 3, st)


if __name__ == "__main__":
    unittest.main(verbosity=2)
