"""A real Jupyter Notebook server behind cubed's reverse proxy: the
proxyprobe plugin resolves /probe/p1/jup to it and adds Jupyter's own token
(Authorization: token ...) in place of the caller's Cube credential; the
server runs with base_url=/probe/p1/jup/ (the path is forwarded as is).
Checks the REST API (contents round trip, kernel start), a kernel's
WebSocket channel executing code, and the HTML tree page for a signed-in
browser, handed over from the console origin to the apps listener, whose
cookie-authenticated writes send no X-CSRF-Token."""
import json
import os
import subprocess
import tempfile
import time
import unittest
import uuid

import websocket  # python3-websocket

from cubetest import Cubed, free_port

JUPYTER = "/usr/bin/jupyter-notebook"
BASE = "/probe/p1/jup"


@unittest.skipUnless(os.path.exists(JUPYTER), "jupyter-notebook is not installed "
                     "(scripts/install-deps.sh installs it)")
class Jupyter(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="cube-jupyter-")
        port = free_port()
        cls.log = open(os.path.join(cls.tmp.name, "jupyter.log"), "w")
        cls.jupyter = subprocess.Popen(
            [JUPYTER, "--no-browser", "--allow-root", f"--port={port}", "--ip=127.0.0.1",
             f"--NotebookApp.base_url={BASE}/", "--NotebookApp.token=jupyter-secret",
             f"--notebook-dir={cls.tmp.name}"],
            stdout=cls.log, stderr=subprocess.STDOUT,
            env=dict(os.environ, HOME=cls.tmp.name, JUPYTER_RUNTIME_DIR=cls.tmp.name))
        cls.c = Cubed(plugins={"proxyprobe": {"port": port, "down_port": 1,
                                              "token": "jupyter-secret"}},
                      plugin_dir=os.environ["CUBE_PROXY_PLUGIN_DIR"])
        cls.u = cls.c.make_user("nbuser")
        cls.c.make_project("p1", [("nbuser", "ops")])
        deadline = time.time() + 30
        while time.time() < deadline:
            r = cls.u.apps_get(f"{BASE}/api")
            if r.status == 200:
                return
            time.sleep(0.1)
        raise AssertionError(f"Jupyter not reachable through the proxy: {r.status} {r.body}")

    @classmethod
    def tearDownClass(cls):
        try:
            cls.c.close()
        finally:
            cls.jupyter.terminate()
            cls.jupyter.wait(20)
            cls.log.close()
            cls.tmp.cleanup()

    def test_contents_round_trip(self):
        nb = {"type": "file", "format": "text", "content": "x = 1\n" * 5000}
        r = self.u.apps_request("PUT", f"{BASE}/api/contents/big.py", nb)
        self.assertIn(r.status, (200, 201), r.body)
        r = self.u.apps_get(f"{BASE}/api/contents/big.py?content=1")
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(r.json()["content"], nb["content"])

    def test_kernel_executes_code_over_its_websocket(self):
        r = self.u.apps_request("POST", f"{BASE}/api/kernels", {"name": "python3"})
        self.assertEqual(r.status, 201, r.body)
        kid = r.json()["id"]
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{self.c.apps_port}{BASE}/api/kernels/{kid}/channels",
            header=[f"Authorization: {self.u.headers['Authorization']}"], timeout=30)
        session = uuid.uuid4().hex
        ws.send(json.dumps({
            "header": {"msg_id": uuid.uuid4().hex, "username": "t", "session": session,
                       "msg_type": "execute_request", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": "print(6 * 7)", "silent": False}}))
        out = None
        for _ in range(50):
            m = json.loads(ws.recv())
            if m["msg_type"] == "stream":
                out = m["content"]["text"]
                break
        ws.close()
        self.assertEqual(out, "42\n")
        r = self.u.apps_request("DELETE", f"{BASE}/api/kernels/{kid}")
        self.assertEqual(r.status, 204, r.body)

    def test_browser_session_gets_the_tree_page(self):
        s = self.c.login("admin", self.c.admin_password)
        app = s.open_app(f"{BASE}/tree")
        r = app.apps_get(f"{BASE}/tree", headers={"Accept": "text/html"})
        self.assertEqual(r.status, 200, r.body[:300])
        self.assertIn("<html", r.body)
        # a cookie-authenticated write without Cube's X-CSRF-Token passes
        r = app.apps_request("POST", f"{BASE}/api/contents", {"type": "notebook"})
        self.assertEqual(r.status, 201, r.body)
        r = self.c.get(f"{BASE}/tree", headers={"Accept": "text/html"})
        self.assertEqual((r.status, r.header("location")),
                         (302, "/login?next=%2Fprobe%2Fp1%2Fjup%2Ftree"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
