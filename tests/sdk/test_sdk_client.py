"""Integration: the Python SDK's generic client against a real cubed with
the testkinds plugin — kinds by any name, get, list (selectors, pages),
create, replace, apply (created / configured / unchanged), merge patch,
delete (waiting out a finalizer), events, actions; typed errors for
unknown kinds, bad names, conflicts, invalid fields, a revoked token, an
HTML-answering proxy, a server that never answers; the config file and
contexts cubectl writes; `python3 -m cube version`; pip installs."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

import cube
from cubetest import Cubed, free_port
from sdktest import (PY, SOURCE_ROOT, TOKEN, FakeServer, Test, html_answer, main, url,
                     wait_for)

P = "demo"


def note(name, **spec):
    return {"metadata": {"name": name}, "spec": spec}


class Basics(Test):
    def setUp(self):
        self.c = self.client(project=P)

    def test_version_and_kinds(self):
        v = self.c.version()
        self.assertIn("version", v)
        self.assertIn("abi", v)
        names = {k.plural for k in self.c.kinds()}
        self.assertTrue({"widgets", "notes", "locks", "gadgets", "jobs", "projects"} <= names)
        for n in ("widget", "Widget", "WIDGETS", "widgets"):
            self.assertEqual(self.c.kind(n).kind, "Widget")
        k = self.c.kind("widget")
        self.assertEqual(k.actions.get("poke"), "POST")
        self.assertEqual(self.c.kind("gadget").scope, "cluster")

    def test_create_get_list_patch_delete(self):
        o = self.c.create("notes", note("n1", size=1, color="red"))
        self.assertIsInstance(o, dict)
        self.assertEqual(o.metadata.name, "n1")
        self.assertEqual(o.project, P)
        self.assertEqual(o.spec.size, 1)
        self.assertEqual(o["spec"]["color"], "red")
        self.assertEqual(json.loads(json.dumps(o))["metadata"]["name"], "n1")
        got = self.c.get("note", "n1")
        self.assertEqual(got.resource_version, o.resource_version)
        with self.assertRaises(AttributeError):
            got.spec.nothing
        p = self.c.patch("notes", "n1", {"spec": {"size": 5, "color": None}})
        self.assertEqual(p.spec.size, 5)
        self.assertNotIn("color", p.spec)
        p.spec.size = 6
        r = self.c.replace(p)
        self.assertEqual(r.spec.size, 6)
        with self.assertRaises(cube.Conflict):     # the old version
            self.c.replace(p)
        self.c.delete("notes", "n1")
        with self.assertRaises(cube.NotFound):
            self.c.get("notes", "n1")
        self.c.delete("notes", "n1", missing_ok=True)
        with self.assertRaises(cube.NotFound):
            self.c.delete("notes", "n1")

    def test_create_from_a_document_with_kind(self):
        o = self.c.create({"kind": "Note", "metadata": {"name": "bykind"}, "spec": {}})
        self.assertEqual(o.kind, "Note")
        g = self.c.create({"kind": "Gadget", "metadata": {"name": "g1"}, "spec": {}})
        self.assertIsNone(g.project)               # a cluster kind
        self.assertEqual(self.c.get("gadgets", "g1").name, "g1")
        self.c.delete("gadgets", "g1")

    def test_list_pages_and_selectors(self):
        for i in range(23):
            self.c.create("notes", {"metadata": {"name": f"pg{i:02d}",
                                                 "labels": {"tier": "a" if i % 2 else "b",
                                                            "set": "pages"}},
                                    "spec": {}})
        every = [o.name for o in self.c.list("notes", selector="set=pages", limit=5)]
        self.assertEqual(every, [f"pg{i:02d}" for i in range(23)])
        odd = [o.name for o in self.c.list("notes", selector="set=pages,tier=a", limit=4)]
        self.assertEqual(odd, [f"pg{i:02d}" for i in range(1, 23, 2)])
        items, rv, cont = self.c.list_page("notes", selector="set=pages", limit=10)
        self.assertEqual(len(items), 10)
        self.assertTrue(rv.isdigit())
        self.assertTrue(cont)
        with self.assertRaises(cube.Invalid) as e:
            list(self.c.list("notes", selector="tier in (a"))
        self.assertEqual(e.exception.field, "labelSelector")
        with self.assertRaises(cube.Invalid):
            self.c.list_page("notes", limit=0)

    def test_apply_outcomes(self):
        doc = {"kind": "Widget", "metadata": {"name": "ap1", "labels": {"a": "1"}},
               "spec": {"size": 2}}
        self.assertEqual(self.c.apply(doc).outcome, "created")
        self.assertEqual(self.c.apply(doc).outcome, "unchanged")
        doc["spec"]["size"] = 3
        out = self.c.apply(doc)
        self.assertEqual(out.outcome, "configured")
        self.assertEqual(out.spec.size, 3)
        # a field the server defaults, left out: still unchanged
        self.assertEqual(self.c.apply({"kind": "Widget", "metadata": {"name": "ap2"},
                                       "spec": {}}).outcome, "created")
        self.assertEqual(self.c.apply("widgets", {"metadata": {"name": "ap2"},
                                                  "spec": {}}).outcome, "unchanged")
        with self.assertRaises(cube.Invalid) as e:
            self.c.apply({"kind": "Widget", "metadata": {"name": "ap3", "project": "other"},
                          "spec": {}}, project=P)
        self.assertEqual(e.exception.field, "metadata.project")

    def test_delete_waits_for_finalizers(self):
        self.c.create("locks", note("lk", holdFinalizer=True))
        with self.assertRaises(cube.Timeout):
            self.c.delete("locks", "lk", wait=True, timeout=0.5)
        self.c.patch("locks", "lk", {"spec": {"holdFinalizer": False}})
        self.c.delete("locks", "lk", wait=True, timeout=20, missing_ok=True)
        with self.assertRaises(cube.NotFound):
            self.c.get("locks", "lk")

    def test_actions_and_events(self):
        self.c.create("widgets", note("act"))
        self.assertEqual(self.c.action("widget", "act", "poke"), {"poked": True})
        ev = wait_for(lambda: [e for e in self.c.events("widgets", "act")
                               if e.get("reason") == "Poked"])
        self.assertTrue(ev, self.c.events("widgets", "act"))
        self.assertTrue(self.c.events(limit=5))          # the project's
        with self.assertRaises(cube.Invalid) as e:
            self.c.action("widgets", "act", "explode")
        self.assertIn("poke", str(e.exception))
        with self.assertRaises(cube.NotFound):
            self.c.action("widgets", "nosuch", "poke")

    def test_default_project_from_the_server(self):
        c = self.client()                    # no project: the server's default
        self.assertEqual(c.project, "public")

    def test_raw_request_and_path(self):
        self.assertEqual(self.c.path("jobs", "t", None, "metrics"),
                         f"/api/v1/projects/{P}/jobs/t/metrics")
        self.assertEqual(self.c.request("GET", "/api/v1/auth/me").json()["user"]["name"],
                         "admin")


class Errors(Test):
    def setUp(self):
        self.c = self.client(project=P)

    def test_unknown_kind_names_the_server_and_the_kinds(self):
        with self.assertRaises(cube.UnknownKind) as e:
            self.c.get("wigdets", "a")
        msg = str(e.exception)
        self.assertIn("wigdets", msg)
        self.assertIn("widgets", msg)
        self.assertIn("/api/v1/kinds", msg)
        self.assertIsInstance(e.exception, cube.NotFound)
        self.assertNotIsInstance(e.exception, KeyError)

    def test_bad_names_fail_before_sending(self):
        for bad in ("Bad", "a/b", "../x", "", "x" * 64, None, "-a"):
            with self.assertRaises(cube.Invalid) as e:
                self.c.get("notes", bad)
            self.assertEqual(e.exception.field, "metadata.name", bad)
        with self.assertRaises(cube.Invalid) as e:
            self.c.create("notes", {"metadata": {}, "spec": {}})
        self.assertEqual(e.exception.field, "metadata.name")
        with self.assertRaises(cube.Invalid) as e:
            self.client(project="No Such").get("notes", "a")
        self.assertEqual(e.exception.field, "project")

    def test_server_errors_are_typed_with_the_field(self):
        self.c.create("widgets", note("dup"))
        with self.assertRaises(cube.Conflict) as e:
            self.c.create("widgets", note("dup"))
        self.assertEqual(e.exception.status, 409)
        self.assertIn("POST", str(e.exception))
        with self.assertRaises(cube.Invalid) as e:
            self.c.create("widgets", note("badcolor", color="pink"))
        self.assertEqual(e.exception.status, 422)
        self.assertEqual(e.exception.field, "spec.color")
        with self.assertRaises(cube.Invalid) as e:   # the plugin's own check
            self.c.create("widgets", note("blue13", color="blue", size=13))
        self.assertTrue(e.exception.field.startswith("spec"), e.exception.field)
        with self.assertRaises(cube.NotFound):
            self.client(project="nosuchproject").get("widgets", "a")

    def test_forbidden_and_unauthorized(self):
        a = self.server.admin()
        r = a.request("POST", "/api/v1/users", {"metadata": {"name": "vera"},
                                                "spec": {"role": "user"}})
        self.assertEqual(r.status, 201, r.body)
        a.request("POST", "/api/v1/users/vera/password", {"password": "password-vera-1"})
        r = a.request("POST", f"/api/v1/projects/{P}/members", {"user": "vera", "role": "viewer"})
        self.assertEqual(r.status // 100, 2, r.body)
        v = self.server.login("vera", "password-vera-1")
        r = v.request("POST", "/api/v1/auth/tokens", {"name": "t"})
        tok, tid = r.json()["token"], r.json().get("id")
        vc = self.client(token=tok, project=P)
        self.assertEqual(vc.me().user.name, "vera")
        with self.assertRaises(cube.Forbidden):
            vc.create("notes", note("byviewer"))
        ids = [t for t in v.get("/api/v1/auth/tokens").json().get("items", [])]
        tid = tid or ids[0].get("id")
        self.assertEqual(v.request("DELETE", f"/api/v1/auth/tokens/{tid}").status // 100, 2)
        with self.assertRaises(cube.Unauthorized) as e:
            vc.get("notes", "x")
        msg = str(e.exception)
        self.assertIn("invalid, expired or revoked", msg)
        self.assertIn("cubectl login", msg)

    def test_a_proxy_answering_html(self):
        for status, reason, cls in ((200, "OK", cube.BadResponse),
                                    (502, "Bad Gateway", cube.Unavailable),
                                    (404, "Not Found", cube.NotFound)):
            fake = FakeServer(html_answer(status, reason,
                                          "<html><body><h1>Sign in</h1></body></html>"))
            try:
                c = cube.Client(url(None, fake.port), token="t", project=P,
                                retry_deadline=0.3)
                t0 = time.time()
                with self.assertRaises(cls) as e:
                    c.get("notes", "a")
                self.assertLess(time.time() - t0, 5)
                msg = str(e.exception)
                self.assertIn("text/html", msg)
                self.assertIn("proxy", msg)
                self.assertIn(f"127.0.0.1:{fake.port}", msg)
            finally:
                fake.close()

    def test_a_server_that_never_answers_times_out(self):
        fake = FakeServer(None)
        try:
            c = cube.Client(url(None, fake.port), token="t", project=P, timeout=0.5)
            t0 = time.time()
            with self.assertRaises(cube.Timeout) as e:
                c.version()
            self.assertLess(time.time() - t0, 5)
            self.assertIn("0.5 s", str(e.exception))
            self.assertIsInstance(e.exception, TimeoutError)
        finally:
            fake.close()

    def test_nothing_listening(self):
        c = cube.Client(url(None, free_port()), token="t", retry_deadline=0.5)
        with self.assertRaises(cube.Unavailable) as e:
            c.version()
        self.assertIn("connection refused", str(e.exception))

    def test_no_server_configured(self):
        with self.assertRaises(cube.ConfigError) as e:
            cube.Client()
        self.assertIn("CUBE_API", str(e.exception))
        with self.assertRaises(cube.ConfigError):
            cube.Client("ftp://x")


class Config(Test):
    def write(self, text):
        with open(os.environ["CUBE_CONFIG"], "w") as f:
            f.write(text)

    def tearDown(self):
        for v in ("CUBE_API", "CUBE_TOKEN", "CUBE_PROJECT"):
            os.environ.pop(v, None)
        if os.path.exists(os.environ["CUBE_CONFIG"]):
            os.unlink(os.environ["CUBE_CONFIG"])

    def test_the_file_cubectl_writes(self):
        server = url(self.server)
        self.write(json.dumps({"current-context": "here", "contexts": [
            {"name": "here", "server": server, "token": TOKEN, "project": P},
            {"name": "other", "server": server, "token": "nope", "project": "public"}]}))
        c = cube.Client()
        self.assertEqual(c.server, server)
        self.assertEqual(c.project, P)
        self.assertEqual(c.me().user.name, "admin")
        self.assertEqual(cube.Client(context="other").project, "public")
        with self.assertRaises(cube.ConfigError) as e:
            cube.Client(context="missing")
        self.assertIn('"missing"', str(e.exception))
        self.assertIn(os.environ["CUBE_CONFIG"], str(e.exception))

    def test_yaml_and_older_files(self):
        server = url(self.server)
        self.write(f"# written by hand\ncurrent-context: y\ncontexts:\n"
                   f"  - name: y\n    server: {server}\n    token: '{TOKEN}'\n"
                   f"    project: {P}\n")
        self.assertEqual(cube.Client().project, P)
        self.write(json.dumps({"server": server, "token": TOKEN, "project": "public"}))
        self.assertEqual(cube.Client().me().user.name, "admin")
        self.write("contexts: [\n")
        with self.assertRaises(cube.ConfigError) as e:
            cube.Client()
        self.assertIn(os.environ["CUBE_CONFIG"], str(e.exception))
        # a server and a token from elsewhere (a Job's environment) need no file
        self.assertEqual(cube.Client(server, token=TOKEN).me().user.name, "admin")

    def test_environment_wins_and_the_token_stays_with_its_server(self):
        server = url(self.server)
        self.write(json.dumps({"current-context": "f", "contexts": [
            {"name": "f", "server": "http://127.0.0.1:9", "token": "file-token"}]}))
        os.environ["CUBE_API"] = server
        c = cube.Client()
        self.assertEqual(c.server, server)
        self.assertNotIn("Authorization", c.transport.headers)   # not the file's token
        os.environ["CUBE_TOKEN"] = TOKEN
        os.environ["CUBE_PROJECT"] = P
        c = cube.Client()
        self.assertEqual((c.me().user.name, c.project), ("admin", P))
        self.assertEqual(cube.Client(project="public").project, "public")


class Tls(Test):
    def test_verified_with_a_ca_bundle(self):
        openssl = shutil.which("openssl")
        if not openssl:
            self.skipTest("openssl is not installed")
        with tempfile.TemporaryDirectory() as d:
            key, cert = os.path.join(d, "key.pem"), os.path.join(d, "cert.pem")
            subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                            key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                            "-addext", "subjectAltName=IP:127.0.0.1"], check=True,
                           capture_output=True)
            srv = Cubed(plugins={"testkinds": None}, plugin_dir=self.server.args_plugin_dir,
                        cube={"tls": {"cert": cert, "key": key}},
                        env={"CUBE_ADMIN_TOKEN": TOKEN}, wait=False)
            srv.log = open(srv.log_path, "w")
            srv.proc = subprocess.Popen([os.path.abspath(os.environ.get("CUBED", "")), "-c",
                                         srv.config_path], stdout=srv.log,
                                        stderr=subprocess.STDOUT, cwd=srv.dir, env=srv.env)
            try:
                api = f"https://127.0.0.1:{srv.port}"
                c = cube.Client(api, token=TOKEN, project="public", ca_file=cert)
                self.assertTrue(wait_for(lambda: _up(c), 10), srv.output())
                self.assertIn("version", c.version())
                _, rv, _ = c.list_page("notes")
                c.create("notes", note("over-tls"))
                w = c.watch("notes", resource_version=rv, timeout=5)
                self.assertEqual(next(w).object.name, "over-tls")
                w.close()
                with self.assertRaises(cube.Unavailable) as e:
                    cube.Client(api, token=TOKEN).version()
                self.assertIn("TLS", str(e.exception))
                self.assertIn("ca_file", str(e.exception))
                self.assertIn("version", cube.Client(api, token=TOKEN, verify=False).version())
                os.environ["CUBE_CA_FILE"] = cert
                try:
                    self.assertIn("version", cube.Client(api, token=TOKEN).version())
                finally:
                    del os.environ["CUBE_CA_FILE"]
            finally:
                srv.close()


def _up(c):
    try:
        c.version()
        return True
    except cube.Error:
        return False


class Tools(Test):
    def run_py(self, *args, env=None, **kw):
        e = dict(os.environ, **(env or {}))
        return subprocess.run([PY, *args], capture_output=True, text=True, env=e,
                              timeout=120, **kw)

    def test_module_version(self):
        r = self.run_py("-m", "cube", "version", env={"CUBE_API": url(self.server),
                                                      "CUBE_TOKEN": TOKEN})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"SDK     {cube.__version__}", r.stdout)
        self.assertIn("Server  ", r.stdout)
        self.assertIn("ABI 1.", r.stdout)
        r = self.run_py("-m", "cube", "bogus")
        self.assertEqual(r.returncode, 2)

    def test_pip_installs_without_an_index(self):
        sdk = os.path.join(SOURCE_ROOT, "sdk", "python")
        with tempfile.TemporaryDirectory() as d:
            r = self.run_py("-m", "pip", "wheel", "--no-index", "--no-deps", "-w", d, sdk,
                            cwd=d)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            whl = [f for f in os.listdir(d) if f.endswith(".whl")]
            self.assertEqual(len(whl), 1, os.listdir(d))
            names = zipfile.ZipFile(os.path.join(d, whl[0])).namelist()
            self.assertIn("cube/client.py", names)
            self.assertIn("nni/__init__.py", names)
            target = os.path.join(d, "site")
            r = self.run_py("-m", "pip", "install", "--no-index", "--no-deps", "--target",
                            target, sdk, cwd=d)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            r = self.run_py("-c", "import cube, nni; print(cube.__file__, nni.__file__)",
                            env={"PYTHONPATH": target}, cwd=d)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith(target), r.stdout)
            # the editable wheel is one .pth pointing here
            sys.path.insert(0, sdk)
            import cube_build
            name = cube_build.build_editable(d)
            pth = zipfile.ZipFile(os.path.join(d, name)).read("cube_sdk.pth").decode()
            self.assertEqual(pth.strip(), os.path.abspath(sdk))


def setup(server):
    a = server.admin()
    r = a.request("POST", "/api/v1/projects", {"metadata": {"name": P}, "spec": {}})
    assert r.status == 201, r.body


if __name__ == "__main__":
    sys.exit(main({"testkinds": None}, setup=setup))
