"""A notebook owner attacks whoever opens their notebook.

The owner controls every byte their proxied server answers (a planted
~/.jupyter/custom/custom.js did it for real). Here a small upstream behind
the proxyprobe plugin (tests/proxy) plays that server: its page runs a
hostile script that, in the browser of an administrator who opens it,
tries to read the visitor's identity and CSRF token from /api/v1/auth/me,
to write through the API (create an administrator, mint a token), to sign
the visitor's browser in as the attacker, to read the console in a frame
and to read cookies. It must get nothing: proxied servers live on the apps
origin (a second listener), the API is elsewhere and refuses cross-origin
writes, and the apps origin's cookie is worth nothing to the API.

The browser is Debian's headless Chromium driven over the DevTools
protocol on a pipe (stdlib only). HTTP-level checks follow: the apps
listener serves no API, the API takes no apps cookie, the hand-over code
is single-use and bound to its object (and, with per-object origins, to
its host), logout ends the apps cookie, the console origin never relays,
owners cannot write a controller's status (status.url feeds redirects),
and non-owners' sessions are audited once per session."""
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

from cubetest import Cubed

sys.path.insert(0, os.path.join(os.environ.get("CUBE_SOURCE_ROOT", "."), "tests", "proxy"))
from upstream import Handler, Upstream, dead_port  # noqa: E402

CHROMIUM = os.environ.get("CUBE_CHROMIUM", "/usr/lib/chromium/chromium")
PASSWORD = "password-" + "x" * 8

# What the notebook owner's server answers at .../page. %MAIN% is the
# console's origin (an attacker knows it); %PASSWORD% the attacker's own.
HOSTILE = r"""<!doctype html><html><head><title>innocent notebook</title></head><body>
<p>Loading your notebook...</p>
<script>
window.__attack = (async () => {
  const MAIN = "%MAIN%", r = {origin: location.origin, cookies: document.cookie};
  const body = t => t.then(x => x.text().then(b => ({status: x.status, body: b})),
                           e => ({error: String(e)}));
  // 1. who is visiting, and their CSRF token (the attack that worked when
  //    this page shared the API's origin)
  r.me_console = await body(fetch(MAIN + "/api/v1/auth/me", {credentials: "include"}));
  r.me_here = await body(fetch("/api/v1/auth/me", {credentials: "include"}));
  let csrf = null;
  for (const k of ["me_console", "me_here"])
    try { csrf = JSON.parse(r[k].body).csrf || csrf; } catch (e) {}
  r.csrf = csrf;
  // 2. writes as the visitor: a new administrator, an API token
  const admin = JSON.stringify({metadata: {name: "pwned"}, spec: {role: "admin"}});
  const headers = csrf ? {"Content-Type": "application/json", "X-CSRF-Token": csrf}
                       : {"Content-Type": "text/plain"};
  for (const base of [MAIN, ""]) {
    r["user_" + (base ? "console" : "here")] = await body(fetch(base + "/api/v1/users",
      {method: "POST", credentials: "include", headers, body: admin}));
    await fetch(base + "/api/v1/auth/tokens", {method: "POST", credentials: "include",
      mode: "no-cors", headers: {"Content-Type": "text/plain"},
      body: JSON.stringify({name: "stolen"})}).catch(() => null);
  }
  // 3. sign the visitor's browser in as the attacker (a no-cors POST needs
  //    no CSRF token)
  await fetch(MAIN + "/api/v1/auth/login", {method: "POST", credentials: "include",
    mode: "no-cors", headers: {"Content-Type": "text/plain"},
    body: JSON.stringify({username: "mallory", password: "%PASSWORD%"})}).catch(() => null);
  // 4. read the console's answer in a frame
  r.frame = await new Promise(done => {
    const f = document.createElement("iframe");
    f.src = MAIN + "/api/v1/auth/me";
    f.onload = () => { try { done(f.contentDocument.body.innerText); }
                       catch (e) { done("blocked: " + e.name); } };
    document.body.appendChild(f);
    setTimeout(() => done("timeout"), 5000);
  });
  // 5. the proxied server itself keeps working: its own WebSocket
  r.ws = await new Promise(done => {
    const ws = new WebSocket("ws://" + location.host + location.pathname.replace(/page$/, "ws"));
    ws.onmessage = m => { if (m.data === "welcome") ws.send("hello"); else { done(m.data); ws.close(); } };
    ws.onerror = () => done("error");
    setTimeout(() => done("timeout"), 5000);
  });
  return r;
})();
</script></body></html>"""


class HostileHandler(Handler):
    def dispatch(self):
        if self.path.split("?")[0].endswith("/page"):
            page = HOSTILE.replace("%MAIN%", self.server.main).replace("%PASSWORD%", PASSWORD)
            return self.answer(200, page.encode(), "text/html; charset=utf-8")
        return super().dispatch()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = dispatch


class HostileUpstream(Upstream):
    def __init__(self):
        super().__init__()
        self.httpd.RequestHandlerClass = HostileHandler
        self.httpd.main = ""


def plugin_dir():
    """proxyprobe (the proxied upstream) and notebook (a kind whose
    controller owns its status), side by side."""
    d = tempfile.mkdtemp(prefix="cube-sec-apps-")
    os.symlink(os.path.abspath(os.path.join(os.environ["CUBE_PROXY_PLUGIN_DIR"],
                                            "cube-proxyprobe.so")),
               os.path.join(d, "cube-proxyprobe.so"))
    os.symlink(os.path.abspath(os.path.join(os.environ["CUBE_TEST_PLUGIN_DIR"], "notebook",
                                            "cube-notebook.so")),
               os.path.join(d, "cube-notebook.so"))
    return d


class Browser:
    """Headless Chromium over the DevTools protocol on fds 3 and 4."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="cube-sec-chromium-")
        to_r, self.w = os.pipe()
        self.r, from_w = os.pipe()

        def fds():  # the protocol's pipes must be fds 3 and 4 exactly
            a, b = fcntl.fcntl(to_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.log = open(os.path.join(self.dir, "chromium.log"), "w")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
             "--remote-debugging-pipe", f"--user-data-dir={self.dir}", "about:blank"],
            preexec_fn=fds, close_fds=False, stdout=self.log, stderr=subprocess.STDOUT)
        os.close(to_r)
        os.close(from_w)
        self.buf, self.next_id = b"", 0
        page = [t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page"]
        self.session = self.call("Target.attachToTarget", targetId=page[0]["targetId"],
                                 flatten=True)["sessionId"]

    def call(self, method, session=None, timeout=20, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                m = json.loads(raw)
                if m.get("id") == self.next_id:
                    if "error" in m:
                        raise AssertionError(f"{method}: {m['error']}")
                    return m["result"]
            ready, _, _ = select.select([self.r], [], [], max(0, deadline - time.time()))
            if not ready:
                raise AssertionError(f"{method}: no answer from Chromium in {timeout}s")
            chunk = os.read(self.r, 1 << 16)
            if not chunk:
                raise AssertionError("Chromium went away")
            self.buf += chunk

    def eval(self, expression, timeout=20):
        """The value of a JavaScript expression (promises awaited) in the page."""
        r = self.call("Runtime.evaluate", session=self.session, timeout=timeout,
                      expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in r:
            raise AssertionError(f"{expression[:60]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def goto(self, url, until, timeout=20):
        """Navigates and waits until the JavaScript condition `until` holds."""
        self.call("Page.navigate", session=self.session, url=url)
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if self.eval(until, timeout=5):
                    return self.eval("location.href")
            except AssertionError:
                pass  # between documents
            time.sleep(0.05)
        raise AssertionError(f"{url}: {until} never held (at {self.eval('location.href')})")

    def close(self):
        self.proc.kill()
        self.proc.wait()
        os.close(self.w)
        os.close(self.r)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class AppsOrigin(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.up = HostileUpstream()
        cls.pdir = plugin_dir()
        cls.c = Cubed(plugins={"proxyprobe": {"port": cls.up.port, "down_port": dead_port()},
                               "notebook": {"jupyter_command": "/bin/true"}},
                      plugin_dir=cls.pdir)
        c = cls.c
        cls.up.httpd.main = f"http://127.0.0.1:{c.port}"
        cls.apps = f"http://127.0.0.1:{c.apps_port}"
        cls.mallory = c.make_user("mallory", PASSWORD)
        cls.ops = c.make_user("ops1")
        cls.dev = c.make_user("dev1")
        c.make_project("p1", [("mallory", "dev"), ("ops1", "ops"), ("dev1", "dev")])
        for who, name in ((cls.dev, "devapp"), (cls.ops, "opsapp")):
            r = who.request("POST", "/api/v1/projects/p1/probeapps",
                            {"metadata": {"name": name}, "spec": {}})
            assert r.status == 201, r.body

    @classmethod
    def tearDownClass(cls):
        try:
            cls.c.close()
        finally:
            cls.up.stop()
            shutil.rmtree(cls.pdir, ignore_errors=True)

    def admin_tokens(self):
        return len(self.c.admin().get("/api/v1/auth/tokens").json()["items"])

    # -- the attack, in a browser ------------------------------------------------

    def test_hostile_page_gets_nothing_from_the_visiting_admin(self):
        if not os.access(CHROMIUM, os.X_OK):
            self.skipTest(f"Chromium is not installed ({CHROMIUM}: apt-get install chromium)")
        main = f"http://127.0.0.1:{self.c.port}"
        tokens = self.admin_tokens()
        b = Browser()
        try:
            # the admin signs in at the console origin, as the console does
            b.goto(main + "/healthz", "document.readyState === 'complete'")
            login = b.eval("fetch('/api/v1/auth/login', {method: 'POST', headers: "
                           "{'Content-Type': 'application/json'}, body: JSON.stringify("
                           f"{{username: 'admin', password: '{self.c.admin_password}'}})}})"
                           ".then(r => r.json())")
            self.assertEqual(login["user"]["name"], "admin", login)
            # the console's own writes still pass the same-origin check
            status = b.eval("fetch('/api/v1/auth/tokens', {method: 'POST', headers: "
                            "{'Content-Type': 'application/json', 'X-CSRF-Token': "
                            f"'{login['csrf']}'}}, body: JSON.stringify({{name: 'mine'}})}})"
                            ".then(r => r.status)")
            self.assertEqual(status, 201)
            # ... then opens mallory's notebook from its console link
            where = b.goto(main + "/probe/p1/evil/page", "window.__attack !== undefined")
            self.assertTrue(where.startswith(self.apps + "/probe/p1/evil/page"), where)
            got = b.eval("window.__attack", timeout=30)
            self.assert_nothing_gained(got)
            # a link straight to the apps origin goes through the console too
            where = b.goto(self.apps + "/probe/p1/evil2/page", "window.__attack !== undefined")
            self.assertTrue(where.startswith(self.apps + "/probe/p1/evil2/page"), where)
            self.assert_nothing_gained(b.eval("window.__attack", timeout=30))
            # the admin is still the admin at the console
            b.goto(main + "/healthz", "document.readyState === 'complete'")
            me = b.eval("fetch('/api/v1/auth/me').then(r => r.json())")
            self.assertEqual(me["user"]["name"], "admin", "the page signed the visitor in as "
                             f"someone else: {me}")
        finally:
            b.close()
        self.assertEqual(self.c.admin().get("/api/v1/users/pwned").status, 404,
                         "the page created an administrator")
        self.assertEqual(self.admin_tokens(), tokens + 1, "the page minted a token")

    def assert_nothing_gained(self, got):
        self.assertEqual(got["origin"], self.apps, got)
        self.assertNotIn("cube_", got["cookies"], "Cube's cookies are readable by the page")
        self.assertIn("error", got["me_console"], f"read the console's answer: {got}")
        self.assertEqual(got["me_here"]["status"], 404, got)
        self.assertIsNone(got["csrf"], got)
        self.assertIn("error", got["user_console"], got)   # no CORS: nothing readable
        self.assertEqual(got["user_here"]["status"], 404, got)
        self.assertTrue(got["frame"].startswith("blocked") or got["frame"] == "timeout",
                        got["frame"])
        self.assertEqual(got["ws"], "hello", "the proxied WebSocket works")

    # -- HTTP-level ------------------------------------------------------------------

    def test_apps_listener_serves_no_api_console_or_files(self):
        s = self.c.login("admin", self.c.admin_password)
        for path in ("/api/v1/auth/me", "/api/v1/users", "/", "/index.html", "/login",
                     "/healthz", "/metrics", "/api/v1/openapi.json", "/ui/x.js"):
            for h in (s.headers, {"Authorization": "Bearer " + self.ops.headers[
                    "Authorization"][7:]}):
                r = self.c.apps_get(path, headers=h)
                self.assertEqual(r.status, 404, f"{path}: {r.status} {r.body[:200]}")
        r = self.c.apps_request("POST", "/api/v1/users", {"metadata": {"name": "x"}},
                                headers=s.headers)
        self.assertEqual(r.status, 404, r.body)

    def test_console_session_is_no_credential_on_the_apps_listener(self):
        s = self.c.login("ops1", PASSWORD)
        r = self.c.apps_get("/probe/p1/app/x", headers=s.headers)
        self.assertEqual(r.status, 401, r.body)
        r = self.c.apps_get("/probe/p1/app/x", headers=dict(s.headers, Accept="text/html"))
        self.assertEqual((r.status, r.header("location")),
                         (302, f"http://127.0.0.1:{self.c.port}/probe/p1/app/x"))

    def test_api_refuses_the_apps_cookie(self):
        s = self.c.login("admin", self.c.admin_password)
        app = self.c.hand_over(s.headers, "/probe/p1/app/")
        r = self.c.get("/api/v1/auth/me", headers={"Cookie": app})
        self.assertEqual(r.status, 401, r.body)
        r = self.c.request("POST", "/api/v1/auth/tokens", {"name": "x"},
                           headers={"Cookie": app})
        self.assertEqual(r.status, 401, r.body)
        self.assertEqual(self.c.apps_get("/probe/p1/app/x", headers={"Cookie": app}).status,
                         200)

    def test_api_refuses_cross_origin_writes(self):
        s = self.c.login("admin", self.c.admin_password)
        body = {"name": "x"}
        for extra in ({"Origin": self.apps}, {"Origin": "null"},
                      {"Sec-Fetch-Site": "same-site"}, {"Sec-Fetch-Site": "cross-site"},
                      {"Origin": self.apps, "Sec-Fetch-Site": "same-site"}):
            r = self.c.request("POST", "/api/v1/auth/tokens", body,
                               headers=dict(s.headers, **extra))
            self.assertEqual(r.status, 403, f"{extra}: {r.body}")
            self.assertIn("cross-origin", r.json()["error"]["message"])
        # even the public login: a page cannot sign a visitor in as someone else
        r = self.c.request("POST", "/api/v1/auth/login", {"username": "mallory",
                                                           "password": PASSWORD},
                           headers={"Origin": self.apps})
        self.assertEqual(r.status, 403, r.body)
        for extra in ({}, {"Origin": f"http://127.0.0.1:{self.c.port}"},
                      {"Sec-Fetch-Site": "same-origin"}, {"Sec-Fetch-Site": "none"}):
            r = self.c.request("POST", "/api/v1/auth/tokens", body,
                               headers=dict(s.headers, **extra))
            self.assertEqual(r.status, 201, f"{extra}: {r.body}")
        # reads are not writes
        r = self.c.get("/api/v1/auth/me", headers=dict(s.headers, Origin=self.apps))
        self.assertEqual(r.status, 200, r.body)

    def callback_of(self, headers, path):
        r = self.c.get(path, headers=headers)
        self.assertEqual(r.status, 302, r.body)
        u = urllib.parse.urlsplit(r.header("location"))
        self.assertEqual(f"{u.scheme}://{u.netloc}", self.apps)
        return f"{u.path}?{u.query}"

    def test_hand_over_code_is_single_use_and_bound_to_its_object(self):
        s = self.c.login("admin", self.c.admin_password)
        cb = self.callback_of(s.headers, "/probe/p1/one/lab?x=1")
        r = self.c.apps_get(cb)
        self.assertEqual((r.status, r.header("location")), (303, "/probe/p1/one/lab?x=1"))
        cookie = r.header("set-cookie")
        for attr in ("HttpOnly", "SameSite=Lax", "Path=/probe/p1/one"):
            self.assertIn(attr, cookie)
        self.assertNotIn("Secure", cookie)  # plain http here
        app = cookie.split(";")[0]
        again = self.c.apps_get(cb)
        self.assertEqual(again.status, 400, "a code is used once")
        self.assertIsNone(again.header("set-cookie"))
        self.assertEqual(self.c.apps_get("/probe/p1/one/x", headers={"Cookie": app}).status, 200)
        # the cookie opens its own object only, whatever path it is sent to
        for other in ("/probe/p1/two/x", "/probeop/p1/opsapp/x"):
            r = self.c.apps_get(other, headers={"Cookie": app})
            self.assertEqual(r.status, 401, f"{other}: {r.body}")
        self.assertEqual(self.c.apps_get(APPS_CALLBACK + "?code=" + "0" * 64).status, 400)
        self.assertEqual(self.c.apps_get(APPS_CALLBACK).status, 400)

    def test_hand_over_checks_who_may_open_the_object(self):
        # a dev may not operate another's app: no code is minted
        r = self.dev.get("/probeop/p1/opsapp/")
        self.assertEqual(r.status, 403, r.body)
        outsider = self.c.make_user("outsider1")
        self.assertEqual(outsider.get("/probe/p1/app/").status, 404)
        # only top-level navigations are handed over
        r = self.ops.get("/probe/p1/app/", headers={"Sec-Fetch-Dest": "iframe"})
        self.assertEqual(r.status, 403, r.body)
        # the console origin never relays: nothing reaches the upstream
        before = len(self.up.requests)
        for method in ("POST", "PUT", "DELETE"):
            self.assertEqual(self.ops.request(method, "/probe/p1/app/x", body="x").status, 421)
        self.assertEqual(len(self.up.requests), before)

    def test_logout_ends_the_apps_cookie(self):
        s = self.c.login("ops1", PASSWORD)
        app = self.c.hand_over(s.headers, "/probe/p1/app/")
        self.assertEqual(self.c.apps_get("/probe/p1/app/x", headers={"Cookie": app}).status, 200)
        r = self.c.request("POST", "/api/v1/auth/logout", headers=s.headers)
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(self.c.apps_get("/probe/p1/app/x", headers={"Cookie": app}).status, 401)

    def test_owners_cannot_write_a_controllers_status(self):
        r = self.mallory.request("POST", "/api/v1/projects/p1/notebooks",
                                 {"metadata": {"name": "nb"}, "spec": {}})
        self.assertEqual(r.status, 201, r.body)
        cur = self.mallory.get("/api/v1/projects/p1/notebooks/nb").json()
        evil = {"phase": "Running", "url": "https://evil.example/login"}
        r = self.mallory.request("PUT", "/api/v1/projects/p1/notebooks/nb/status",
                                 {"metadata": cur["metadata"], "status": evil})
        self.assertEqual(r.status, 403, r.body)
        # as for the other writes: 404 for what does not exist, and to non-members
        r = self.mallory.request("PUT", "/api/v1/projects/p1/notebooks/nosuch/status",
                                 {"status": evil})
        self.assertEqual(r.status, 404, r.body)
        outsider = self.c.make_user("outsider2")
        r = outsider.request("PUT", "/api/v1/projects/p1/notebooks/nb/status", {"status": evil})
        self.assertEqual(r.status, 404, r.body)
        r = self.mallory.request("PATCH", "/api/v1/projects/p1/notebooks/nb",
                                 {"status": evil})
        self.assertIn(r.status, (200, 422), r.body)
        st = self.mallory.get("/api/v1/projects/p1/notebooks/nb").json().get("status", {})
        self.assertNotEqual(st.get("url"), evil["url"], st)
        self.assertEqual(self.mallory.get("/api/v1/projects/p1/notebooks/nb/open").status, 409)
        self.mallory.request("DELETE", "/api/v1/projects/p1/notebooks/nb")

    def events(self, name):
        r = self.c.admin().get(f"/api/v1/projects/p1/probeapps/{name}/events")
        return [e for e in r.json()["items"] if e.get("reason") == "OpenedByOther"]

    def test_non_owners_sessions_are_audited_once_each(self):
        ops = self.c.login("ops1", PASSWORD)
        app = ops.open_app("/probeop/p1/devapp/")
        for i in range(5):
            self.assertEqual(app.apps_get(f"/probeop/p1/devapp/r{i}").status, 200)
        evs = self.events("devapp")
        self.assertEqual(len(evs), 1, evs)
        self.assertEqual(evs[0]["user"], "ops1")
        self.assertIn("dev1", evs[0]["message"])
        app2 = ops.open_app("/probeop/p1/devapp/")         # a new session
        self.assertEqual(app2.apps_get("/probeop/p1/devapp/x").status, 200)
        self.assertEqual(self.ops.apps_get("/probeop/p1/devapp/y").status, 200)  # a token
        self.assertEqual(self.ops.apps_get("/probeop/p1/devapp/z").status, 200)
        self.assertEqual(len(self.events("devapp")), 3)
        # the owner's own sessions are not
        mine = self.c.login("dev1", PASSWORD).open_app("/probeop/p1/devapp/")
        self.assertEqual(mine.apps_get("/probeop/p1/devapp/x").status, 200)
        self.assertEqual(len(self.events("devapp")), 3)


APPS_CALLBACK = "/_cube/apps/callback"


class PerObjectOrigin(unittest.TestCase):
    """apps_origin with {name}--{project}: each object has a host of its
    own, its hand-over code works on that host only, and another object's
    pages are not served there."""

    def test_codes_and_pages_are_bound_to_the_objects_host(self):
        up = Upstream()
        c = Cubed(plugins={"proxyprobe": {"port": up.port, "down_port": dead_port()}},
                  cube={"apps_origin": "http://{name}--{project}.apps.test:8443",
                        "console_origin": "http://cube.test:8080"},
                  plugin_dir=os.environ["CUBE_PROXY_PLUGIN_DIR"])
        try:
            s = c.login("admin", c.admin_password)
            r = c.get("/probe/p1/one/x", headers=s.headers)
            loc = urllib.parse.urlsplit(r.header("location"))
            self.assertEqual((r.status, loc.netloc), (302, "one--p1.apps.test:8443"))
            cb = f"{loc.path}?{loc.query}"
            r = c.apps_get(cb, headers={"Host": "two--p1.apps.test:8443"})
            self.assertEqual(r.status, 400, "a code works on its own host only")
            r = c.get("/probe/p1/one/x", headers=s.headers)
            loc = urllib.parse.urlsplit(r.header("location"))
            r = c.apps_get(f"{loc.path}?{loc.query}", headers={"Host": "one--p1.apps.test:8443"})
            self.assertEqual(r.status, 303, r.body)
            app = r.header("set-cookie").split(";")[0]
            here = {"Host": "one--p1.apps.test:8443", "Cookie": app}
            self.assertEqual(c.apps_get("/probe/p1/one/x", headers=here).status, 200)
            # another object's pages are not served on this object's host
            r = c.apps_get("/probe/p1/two/x", headers=here)
            self.assertEqual(r.status, 421, r.body)
            # names that would blur two hosts are not served
            r = c.get("/probe/p1/a--b/x", headers=s.headers)
            self.assertEqual(r.status, 400, r.body)
            # an anonymous browser is sent to the configured console origin
            r = c.apps_get("/probe/p1/one/x", headers={"Host": "one--p1.apps.test:8443",
                                                       "Accept": "text/html"})
            self.assertEqual(r.header("location"), "http://cube.test:8080/probe/p1/one/x")
            # and the API compares Origin with console_origin
            r = c.request("POST", "/api/v1/auth/tokens", {"name": "t"},
                          headers=dict(s.headers, Origin="http://one--p1.apps.test:8443"))
            self.assertEqual(r.status, 403, r.body)
            r = c.request("POST", "/api/v1/auth/tokens", {"name": "t"},
                          headers=dict(s.headers, Origin="http://cube.test:8080"))
            self.assertEqual(r.status, 201, r.body)
        finally:
            c.close()
            up.stop()

    def test_bad_origins_are_refused_naming_the_key(self):
        for key, value in (("apps_origin", "apps.test"), ("apps_origin", "https://a.test/x"),
                           ("apps_origin", "https://u@a.test"), ("console_origin",
                                                                 "https://{name}.test"),
                           ("apps_listen", "nowhere")):
            c = Cubed(cube={key: value}, wait=False)
            try:
                r = c.run("--check-config")
            finally:
                c.tmp.cleanup()
            self.assertNotEqual(r.returncode, 0, (key, value))
            self.assertIn(key, r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
