"""End to end: sign-in to a real cubed through a real OpenID Provider.

npm's oidc-provider (installed with npm into a cache dir under the build dir)
runs provider.mjs on a free loopback port; cubed runs with the sso-oidc
plugin. A urllib "browser" with a cookie jar follows the real redirects:
cubed's login route -> the provider's authorize endpoint -> its login and
consent pages (forms submitted as a browser would) -> cubed's callback ->
303 to the console path with the cube_session cookie. Then
/api/v1/auth/me shows the user, the admin role from the groups mapping and
the project roles. Also: a bad state and a replayed callback get 401, a
provider error is reported, a second client signs ES256 ID tokens and
authenticates with client_secret_post, and start-up with an unreachable
issuer fails naming `issuer`.

Skipped (exit 77) only when node or npm is missing or the install fails."""
import html.parser
import http.cookiejar
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

from cubetest import Cubed, free_port

PACKAGE, VERSION = "oidc-provider", "9.13.3"
NODE_DIR = os.environ.get("CUBE_TEST_NODE_DIR") or os.path.join(
    os.environ.get("CUBE_TEST_PLUGIN_DIR", "build/plugins"), "node-oidc")
PROVIDER_JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "provider.mjs")
ADMIN = "oidc-e2e-admin-token"
CALLBACK = "/api/v1/auth/oidc/callback"


def install_provider():
    """None when oidc-provider is ready under NODE_DIR, else the reason."""
    marker = os.path.join(NODE_DIR, "node_modules", PACKAGE, "package.json")
    if os.path.exists(marker):
        return None
    npm, node = shutil.which("npm"), shutil.which("node")
    if not npm or not node:
        return "node or npm is not installed"
    os.makedirs(NODE_DIR, exist_ok=True)
    try:
        r = subprocess.run([npm, "install", "--prefix", NODE_DIR, "--no-audit", "--no-fund",
                            "--loglevel=error", f"{PACKAGE}@{VERSION}"],
                           capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        return "npm install timed out"
    if r.returncode != 0 or not os.path.exists(marker):
        return "npm install failed:\n" + (r.stderr or r.stdout)[-2000:]
    return None


class Provider:
    """provider.mjs under node on a free port, until stop()."""

    def __init__(self, redirect_uris):
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(prefix="oidc-provider-", suffix=".log", delete=False)
        env = dict(os.environ, OIDC_PORT=str(self.port),
                   OIDC_REDIRECT_URIS=json.dumps(redirect_uris))
        self.proc = subprocess.Popen([shutil.which("node"), PROVIDER_JS,
                                      os.path.join(os.path.abspath(NODE_DIR), "node_modules")],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the provider exited:\n" + self.output())
            try:
                with urllib.request.urlopen(self.issuer + "/.well-known/openid-configuration",
                                            timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the provider did not start:\n" + self.output())

    def output(self):
        with open(self.log.name) as f:
            return f.read()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.log.close()
        os.unlink(self.log.name)


class Forms(html.parser.HTMLParser):
    """The forms of a page: [{"action", "method", "fields": {name: value}}]."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a.get("action", ""),
                               "method": a.get("method", "get").lower(), "fields": {}})
        elif tag == "input" and self.forms and a.get("name"):
            self.forms[-1]["fields"][a["name"]] = a.get("value") or ""


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # the browser below follows redirects itself, one by one


class Browser:
    """A cookie jar and urllib, following redirects hop by hop."""

    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                                  NoRedirect)

    def open(self, url, form=None):
        """(status, headers, body) of one request; form: a dict to POST."""
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        try:
            with self.opener.open(url, data=data, timeout=20) as r:
                return r.status, r.headers, r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read().decode("utf-8", "replace")

    def follow(self, url, form=None, stop=None, hops=20):
        """Follows redirects from url until a non-redirect answer, or until
        the next URL satisfies stop(url); returns (url, status, headers, body)."""
        for _ in range(hops):
            status, headers, body = self.open(url, form)
            form = None
            if status not in (301, 302, 303, 307, 308):
                return url, status, headers, body
            nxt = urllib.parse.urljoin(url, headers["Location"])
            if stop and stop(nxt):
                return nxt, status, headers, body
            url = nxt
        raise AssertionError("too many redirects")

    def cookie(self, name):
        return next((c.value for c in self.jar if c.name == name), None)


def submit(browser, page_url, body, fields, stop):
    """Fills the page's only form with fields and submits it."""
    forms = Forms()
    forms.feed(body)
    if len(forms.forms) != 1:
        raise AssertionError(f"expected one form at {page_url}:\n{body[:2000]}")
    f = forms.forms[0]
    data = dict(f["fields"], **fields)
    return browser.follow(urllib.parse.urljoin(page_url, f["action"]), form=data, stop=stop)


# The test IdP is on the loopback: an address rule admits it (a name rule
# never reaches loopback or private addresses).
EGRESS = {"egress": {"allow": ["127.0.0.1:*"]}}


def plugin_config(issuer, **over):
    conf = {"issuer": issuer, "client_id": "cube", "client_secret_env": "OIDC_E2E_SECRET",
            "display_name": "Sign in with the test IdP",
            "scopes": "openid profile email groups", "admin_values": ["cube-admins"],
            "project_roles": [{"group": "vision-devs", "project": "vision", "role": "dev"},
                              {"group": "vision-viewers", "project": "vision", "role": "viewer"},
                              {"group": "nlp-viewers", "project": "nlp", "role": "viewer"}]}
    conf.update(over)
    return {k: v for k, v in conf.items() if v is not None}


class OidcLogin(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        env = {"CUBE_ADMIN_TOKEN": ADMIN, "OIDC_E2E_SECRET": "cube-secret"}
        cls.rs = Cubed(env=env, cube=EGRESS, wait=False)    # RS256, client_secret_basic
        cls.es = Cubed(env=env, cube=EGRESS, wait=False)    # ES256, client_secret_post
        cls.idp = Provider([f"http://127.0.0.1:{c.port}{CALLBACK}" for c in (cls.rs, cls.es)])
        try:
            cls.rs.write_confd("10-sso-oidc.yaml", "sso-oidc", plugin_config(cls.idp.issuer))
            cls.es.write_confd("10-sso-oidc.yaml", "sso-oidc", plugin_config(
                cls.idp.issuer, client_id="cube-es", client_secret="cube-es-secret",
                client_secret_env=None, token_endpoint_auth_method="client_secret_post",
                allowed_algs=["ES256"]))
            for c in (cls.rs, cls.es):
                c.start()
                for p in ("vision", "nlp"):
                    r = c.request("POST", "/api/v1/projects", {"metadata": {"name": p}},
                                  headers={"Authorization": "Bearer " + ADMIN,
                                           "Content-Type": "application/json"})
                    assert r.status in (200, 201), (r.status, r.body)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            cls.idp.stop()
        finally:
            for c in (cls.rs, cls.es):
                c.close()

    def base(self, c):
        return f"http://127.0.0.1:{c.port}"

    def sign_in(self, c, login, next_path="/notebooks", browser=None, stop_at_callback=False):
        """Runs the flow as a browser; returns (browser, url, status, headers,
        body) of the callback's answer (or, with stop_at_callback, the
        callback URL not yet visited)."""
        b = browser or Browser()
        at_callback = (lambda u: urllib.parse.urlsplit(u).path == CALLBACK) if stop_at_callback \
            else (lambda u: urllib.parse.urlsplit(u).netloc == f"127.0.0.1:{c.port}"
                  and urllib.parse.urlsplit(u).path != CALLBACK)
        url, status, headers, body = b.follow(
            f"{self.base(c)}/api/v1/auth/oidc/login?next={urllib.parse.quote(next_path)}",
            stop=at_callback)
        self.assertTrue(url.startswith(self.idp.issuer + "/interaction/"), (url, status, body[:500]))
        self.assertIn('name="login"', body)
        url, status, headers, body = submit(b, url, body, {"login": login, "password": "pw"},
                                            at_callback)
        if url.startswith(self.idp.issuer + "/interaction/"):  # the consent page
            self.assertIn('value="consent"', body)
            url, status, headers, body = submit(b, url, body, {}, at_callback)
        if stop_at_callback:
            self.assertEqual(urllib.parse.urlsplit(url).path, CALLBACK, url)
        return b, url, status, headers, body

    def me(self, c, b):
        status, _, body = b.open(self.base(c) + "/api/v1/auth/me")
        self.assertEqual(status, 200, body)
        return json.loads(body)

    def test_providers_lists_the_login_method(self):
        r = self.rs.get("/api/v1/auth/providers")
        self.assertEqual(r.status, 200, r.body)
        oidc = [p for p in r.json()["providers"] if p["name"] == "oidc"]
        self.assertEqual(oidc, [{"name": "oidc", "displayName": "Sign in with the test IdP",
                                 "kind": "redirect", "loginPath": "/api/v1/auth/oidc/login"}])

    def test_sign_in_rs256(self):
        b, url, status, headers, body = self.sign_in(self.rs, "alice")
        # the callback answered 303 to the console path with a session
        self.assertEqual(status, 303, body)
        self.assertEqual(urllib.parse.urlsplit(url).path, "/notebooks")
        self.assertIn("cube_session=", " ".join(headers.get_all("Set-Cookie") or []))
        self.assertIsNotNone(b.cookie("cube_session"))
        me = self.me(self.rs, b)
        self.assertEqual(me["user"]["name"], "alice")
        self.assertEqual(me["user"]["displayName"], "Alice Liddell")
        self.assertEqual(me["user"]["email"], "alice@example.org")
        self.assertEqual(me["user"]["provider"], "oidc")
        self.assertEqual(me["role"], "admin")
        roles = {p["name"]: p["role"] for p in me["projects"]}
        self.assertEqual(roles.get("vision"), "dev")
        self.assertEqual(roles.get("nlp"), "viewer")
        out = self.rs.output()
        self.assertNotIn("cube-secret", out)
        self.assertIn("alice signed in", out)

    def test_sign_in_es256_client_secret_post(self):
        b, url, status, headers, body = self.sign_in(self.es, "bob", next_path="/models?x=1")
        self.assertEqual(status, 303, body)
        self.assertEqual(url, self.base(self.es) + "/models?x=1")
        me = self.me(self.es, b)
        self.assertEqual(me["user"]["name"], "bob")
        self.assertEqual(me["role"], "user")
        self.assertEqual({p["name"]: p["role"] for p in me["projects"]}.get("vision"), "viewer")
        self.assertNotIn("cube-es-secret", self.es.output())

    def test_replayed_callback_is_refused(self):
        b, url, *_ = self.sign_in(self.rs, "carol", stop_at_callback=True)
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["code"][0]
        status, headers, body = b.open(url)
        self.assertEqual(status, 303, body)
        status, headers, body = b.open(url)
        self.assertEqual(status, 401, body)
        self.assertIn("OIDC login failed: unknown, used or expired state", body)
        self.assertNotIn(code, self.rs.output())  # codes are never logged

    def test_bad_state_is_refused(self):
        b, url, *_ = self.sign_in(self.rs, "dave", stop_at_callback=True)
        parts = urllib.parse.urlsplit(url)
        q = urllib.parse.parse_qs(parts.query)
        q["state"] = ["A" * 43]
        bad = parts._replace(query=urllib.parse.urlencode({k: v[0] for k, v in q.items()}))
        status, _, body = b.open(urllib.parse.urlunsplit(bad))
        self.assertEqual(status, 401, body)
        self.assertEqual(json.loads(body)["error"]["code"], "Unauthorized")
        self.assertIn("unknown, used or expired state", body)
        status, _, body = b.open(self.base(self.rs) + "/api/v1/auth/me")
        self.assertEqual(status, 401, body)  # no session was started

    def test_provider_error_is_reported(self):
        b = Browser()
        url, status, _, body = b.follow(self.base(self.rs) + "/api/v1/auth/oidc/login?next=/",
                                        stop=lambda u: False)
        self.assertTrue(url.startswith(self.idp.issuer + "/interaction/"), url)
        # the user gives up: the provider sends error=access_denied back
        url, status, _, body = b.follow(url + "/abort")
        self.assertEqual(urllib.parse.urlsplit(url).path, CALLBACK)
        self.assertEqual(status, 401, body)
        self.assertIn("OIDC login failed: the identity provider answered access_denied", body)


class UnreachableIssuer(unittest.TestCase):
    def start_fails(self, port, cube):
        c = Cubed(plugins={"sso-oidc": {"issuer": f"http://127.0.0.1:{port}", "client_id": "c",
                                        "client_secret": "s"}}, cube=cube, wait=False)
        try:
            with self.assertRaises(RuntimeError) as e:
                c.start()
            return str(e.exception)
        finally:
            c.log.close()
            c.tmp.cleanup()

    def test_egress_must_allow_the_issuer(self):
        """The plugin's requests are the host's fetches: cube.yaml's egress
        rules decide, and the refusal says where to allow it."""
        msg = self.start_fails(free_port(), None)
        self.assertIn("issuer: cannot fetch discovery document from http://127.0.0.1:", msg)
        self.assertIn("egress", msg)
        self.assertIn("cube.yaml's egress.allow must admit the identity provider", msg)

    def test_start_up_fails_naming_issuer(self):
        port = free_port()  # nothing listens there
        msg = self.start_fails(port, EGRESS)
        self.assertIn("sso-oidc", msg)
        self.assertIn(f"issuer: cannot fetch discovery document from http://127.0.0.1:{port}"
                      "/.well-known/openid-configuration: ", msg)


if __name__ == "__main__":
    reason = install_provider()
    if reason:
        print("SKIP: " + reason)
        sys.exit(77)
    unittest.main(verbosity=2)
