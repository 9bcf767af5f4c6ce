"""Console entries of plugins through a real cubed: GET /api/v1/ui/menu
(who sees what), the plugins' assets under /ui/plugins/<plugin>/ (MIME
types, ETag, 404, no listing, no escapes), and descriptors that
register_ui refuses, each logged with the field at fault.

Plugins: hello (its page.js beside build/plugins/hello/cube-hello.so) and
the uitest plugin of this folder, both reached through symlinks so the
assets are found beside the real .so files."""
import os
import shutil
import tempfile
import unittest

from cubetest import Cubed

UITEST_DIR = os.path.abspath(os.environ["CUBE_UITEST_DIR"])
HELLO_DIR = os.path.abspath(os.environ["CUBE_HELLO_DIR"])


def plugin_dir():
    d = tempfile.mkdtemp(prefix="cube-ui-plugins-")
    os.symlink(os.path.join(UITEST_DIR, "cube-uitest.so"), os.path.join(d, "cube-uitest.so"))
    os.symlink(HELLO_DIR, os.path.join(d, "hello"))
    return d


class ConsoleEntries(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pdir = plugin_dir()
        cls.c = Cubed(plugins={"hello": None, "uitest": None}, plugin_dir=cls.pdir)
        cls.admin = cls.c.admin()
        cls.user = cls.c.make_user("ursula")

    @classmethod
    def tearDownClass(cls):
        try:
            cls.c.close()
        finally:
            shutil.rmtree(cls.pdir)

    def menu(self, client):
        r = client.get("/api/v1/ui/menu")
        self.assertEqual(r.status, 200, r.body)
        return {(e["plugin"], e["id"]): e for e in r.json()["items"]}

    # -- the menu ------------------------------------------------------------

    def test_menu_as_admin_lists_every_entry(self):
        m = self.menu(self.admin)
        self.assertEqual(set(m), {("hello", "hello"), ("uitest", "tool"),
                                  ("uitest", "admin-tool"), ("uitest", "docs")})
        self.assertEqual(m[("uitest", "tool")], {
            "plugin": "uitest", "id": "tool", "group": "Tools", "label": "Tool",
            "label_zh": "Tool", "order": 20, "path": "/x/uitest/tool",
            "module_url": "/ui/plugins/uitest/tool.js"})
        self.assertEqual(m[("uitest", "admin-tool")]["label_zh"], "管理工具")
        self.assertEqual(m[("uitest", "docs")], {
            "plugin": "uitest", "id": "docs", "group": "Help", "label": "Job docs",
            "label_zh": "Job docs", "order": 5, "path": "/kinds/jobs"})
        hello = m[("hello", "hello")]
        self.assertEqual((hello["label_zh"], hello["path"], hello["module_url"]),
                         ("你好", "/x/hello/hello", "/ui/plugins/hello/page.js"))

    def test_menu_order_is_group_then_order(self):
        items = self.admin.get("/api/v1/ui/menu").json()["items"]
        keys = [(e["group"], e["order"]) for e in items]
        self.assertEqual(keys, sorted(keys))

    def test_admin_only_entry_hidden_from_users(self):
        m = self.menu(self.user)
        self.assertNotIn(("uitest", "admin-tool"), m)
        self.assertIn(("uitest", "tool"), m)
        self.assertIn(("uitest", "docs"), m)
        self.assertIn(("hello", "hello"), m)

    def test_menu_needs_a_user(self):
        self.assertEqual(self.c.get("/api/v1/ui/menu").status, 401)

    def test_openapi_declares_the_routes(self):
        paths = self.c.get("/api/v1/openapi.json").json()["paths"]
        self.assertEqual(paths["/api/v1/ui/menu"]["get"]["x-cube-permission"], "user")
        self.assertEqual(paths["/ui/plugins/{plugin}/{file}"]["get"]["x-cube-permission"],
                         "public")

    # -- assets --------------------------------------------------------------

    def test_assets_with_mime_types(self):
        for path, ctype, needle in [
                ("/ui/plugins/uitest/tool.js", "text/javascript", "export function mount"),
                ("/ui/plugins/uitest/style.css", "text/css", "color"),
                ("/ui/plugins/uitest/sub/data.json", "application/json", '"inner"'),
                ("/ui/plugins/hello/page.js", "text/javascript", "export function mount")]:
            r = self.c.get(path)  # anonymous: assets are public
            self.assertEqual(r.status, 200, f"{path}: {r.body}")
            self.assertTrue(r.header("content-type").startswith(ctype),
                            f"{path}: {r.header('content-type')}")
            self.assertIn(needle, r.body, path)
            self.assertEqual(r.header("x-content-type-options"), "nosniff")

    def test_etag_gives_304(self):
        r = self.c.get("/ui/plugins/hello/page.js")
        etag = r.header("etag")
        self.assertTrue(etag, "no ETag")
        r2 = self.c.get("/ui/plugins/hello/page.js", headers={"If-None-Match": etag})
        self.assertEqual(r2.status, 304)
        self.assertEqual(r2.body, "")

    def test_head(self):
        r = self.c.request("HEAD", "/ui/plugins/uitest/tool.js")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.body, "")

    def test_missing_files_and_plugins_are_404(self):
        for path in ("/ui/plugins/uitest/nope.js", "/ui/plugins/nobody/tool.js",
                     "/ui/plugins/uitest/sub", "/ui/plugins/uitest/sub/",
                     "/ui/plugins/uitest/sub/nope.json"):
            r = self.c.get(path)
            self.assertEqual(r.status, 404, f"{path}: {r.status} {r.body}")
            self.assertEqual(r.json()["error"]["code"], "NotFound", path)

    def test_no_listing(self):
        for path in ("/ui/plugins/uitest/", "/ui/plugins/uitest", "/ui/plugins/"):
            r = self.c.get(path)
            self.assertNotIn("tool.js", r.body, path)
            self.assertIn(r.status, (404, 400), f"{path}: {r.status}")

    def test_traversal_refused(self):
        for path in ("/ui/plugins/uitest/../cube-uitest.so",
                     "/ui/plugins/uitest/sub/../../cube-uitest.so",
                     "/ui/plugins/uitest/%2e%2e/cube-uitest.so",
                     "/ui/plugins/uitest/..%2fcube-uitest.so",
                     "/ui/plugins/uitest/%2E%2E%2Fcube-uitest.so",
                     "/ui/plugins/uitest/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
                     "/ui/plugins/uitest/sub%2f..%2f..%2fcube-uitest.so",
                     "/ui/plugins/uitest/./tool.js",
                     "/ui/plugins/uitest/sub//data.json",
                     "/ui/plugins/uitest/.hidden.js",
                     "/ui/plugins/uitest/..\\cube-uitest.so",
                     "/ui/plugins/uitest/%00tool.js"):
            r = self.c.get(path)
            self.assertIn(r.status, (400, 404), f"{path}: {r.status}")
            self.assertNotIn("root:", r.body, path)
            self.assertNotIn("ELF", r.body, path)
            self.assertNotIn("secret", r.body, path)

    # -- refused registrations -------------------------------------------------

    def test_bad_descriptors_logged_with_their_field(self):
        log = self.c.output()
        self.assertIn("bad entries refused: 10 of 10", log)
        for field in ("id: ", "label: required", "group: required", "permission: ",
                      "module: '../uitest.c'", "module: ", "asset_dir: /nonexistent-ui-dir",
                      "link: '//evil.example/'", "id: 'tool' is already registered",
                      "size: 8"):
            self.assertIn("register_ui: " + field, log, field)
        self.assertIn("register_ui: only allowed during init", log)
        self.assertIn("register_ui after init returned", log)
        # None of the refused entries made it into the menu.
        ids = {e["id"] for e in self.admin.get("/api/v1/ui/menu").json()["items"]}
        self.assertEqual(ids, {"hello", "tool", "admin-tool", "docs"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
