"""Integration: GET /api/v1/openapi.json over a real cubed with the testkinds
plugin — the per-kind paths, schemas, parameters and security, checked
here, then the whole document validated by a standard OpenAPI validator
(@apidevtools/swagger-parser, run by node, installed with npm into a cache
dir under the build dir). Without node/npm, or when the install fails, the
structural checks still run and the test then exits 77 (skipped)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from cubetest import Cubed

TOKEN = "openapi-admin-token"
VALIDATOR = "@apidevtools/swagger-parser"
VALIDATOR_VERSION = "10.1.1"
NODE_DIR = os.environ.get("CUBE_TEST_NODE_DIR") or os.path.join(
    os.environ.get("CUBE_TEST_PLUGIN_DIR", "build"), "node-openapi")
PW = "/api/v1/projects/{project}/widgets"
# security of an operation that needs a caller: an API token or a session.
SIGNED_IN = [{"bearer": []}, {"session": []}]
# x-cube-permission values: the CUBE_PERM_* strings, and "self" (a user's
# own User object).
PERMISSIONS = {"public", "user", "admin", "project:view", "project:edit",
               "project:operate", "project:manage", "self"}

VALIDATE_JS = r"""
const [dir, file] = process.argv.slice(1);
const SwaggerParser = require(require('path').join(dir, 'node_modules',
                                                   '@apidevtools/swagger-parser'));
SwaggerParser.validate(file)
  .then(api => { console.log('valid: ' + api.info.title + ' ' + api.info.version); })
  .catch(err => { console.error(err.message); process.exit(1); });
"""

skipped_validator = []


def refs(node):
    """Every $ref value in a JSON tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref":
                yield v
            else:
                yield from refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from refs(v)


def install_validator():
    """The validator's directory, or None with the reason."""
    marker = os.path.join(NODE_DIR, "node_modules", VALIDATOR, "package.json")
    if os.path.exists(marker):
        return None
    npm, node = shutil.which("npm"), shutil.which("node")
    if not npm or not node:
        return "node or npm is not installed"
    os.makedirs(NODE_DIR, exist_ok=True)
    try:
        r = subprocess.run([npm, "install", "--prefix", NODE_DIR, "--no-audit", "--no-fund",
                            "--loglevel=error", f"{VALIDATOR}@{VALIDATOR_VERSION}"],
                           capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        return "npm install timed out"
    if r.returncode != 0 or not os.path.exists(marker):
        return "npm install failed:\n" + (r.stderr or r.stdout)[-2000:]
    return None


class OpenApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Cubed(plugins={"testkinds": None}, env={"CUBE_ADMIN_TOKEN": TOKEN})
        r = cls.c.get("/api/v1/openapi.json")
        cls.status, cls.ctype, cls.text = r.status, r.header("content-type"), r.body
        cls.version = cls.c.get("/api/v1/version").json()["version"]
        cls.doc = json.loads(r.body) if r.status == 200 else None

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def setUp(self):
        self.assertEqual(self.status, 200, self.text[:2000])
        self.paths = self.doc["paths"]
        self.schemas = self.doc["components"]["schemas"]

    def op(self, path, method):
        self.assertIn(path, self.paths, sorted(self.paths))
        self.assertIn(method, self.paths[path], path)
        return self.paths[path][method]

    def test_head(self):
        self.assertTrue(self.ctype.startswith("application/json"))
        d = self.doc
        self.assertEqual(d["openapi"], "3.0.3")
        self.assertEqual(d["info"]["title"], "Cube API")
        self.assertEqual(d["info"]["version"], self.version)
        self.assertEqual(d["servers"], [{"url": "/"}])
        schemes = d["components"]["securitySchemes"]
        self.assertEqual(set(schemes), {"bearer", "session"})
        self.assertEqual(schemes["bearer"],
                         {"type": "http", "scheme": "bearer",
                          "description": "An API token (POST /api/v1/auth/tokens)"})
        session = dict(schemes["session"])
        self.assertIn("X-CSRF-Token", session.pop("description"))
        self.assertEqual(session, {"type": "apiKey", "in": "cookie", "name": "cube_session"})

    def test_core_and_plugin_routes(self):
        for path in ("/healthz", "/readyz", "/metrics", "/api/v1/kinds", "/api/v1/version",
                     "/api/v1/events", "/api/v1/projects/{project}/events",
                     "/api/v1/openapi.json"):
            self.assertEqual(self.op(path, "get")["tags"], ["core"], path)
        op = self.op("/api/v1/testkinds/reconciles", "get")
        self.assertEqual(op["tags"], ["testkinds"])
        self.assertEqual(op["summary"], "Reconcile calls")
        self.assertEqual(op["security"], [])
        self.assertEqual(op["x-cube-permission"], "public")
        kinds = self.op("/api/v1/kinds", "get")["responses"]["200"]
        self.assertEqual(kinds["content"]["application/json"]["schema"],
                         {"$ref": "#/components/schemas/KindList"})
        tags = [t["name"] for t in self.doc["tags"]]
        for t in ("core", "testkinds", "widgets", "gadgets", "locks"):
            self.assertIn(t, tags)
        self.assertEqual(len(tags), len(set(tags)))

    def test_generic_routes_are_concrete_per_kind(self):
        for p in self.paths:
            for word in ("{plural}", "{action}", "*}"):
                self.assertNotIn(word, p)
        self.assertEqual(set(self.paths[PW]), {"get", "post"})
        self.assertEqual(set(self.paths[PW + "/{name}"]), {"get", "put", "patch", "delete"})
        self.op(PW + "/{name}/status", "put")
        self.op(PW + "/{name}/events", "get")
        self.assertEqual(set(self.paths["/api/v1/gadgets"]), {"get", "post"})
        self.op("/api/v1/projects/{project}/locks/{name}", "delete")
        # scope: cluster kinds have no project path and the other way round
        self.assertNotIn("/api/v1/projects/{project}/gadgets", self.paths)
        self.assertNotIn("/api/v1/widgets", self.paths)
        self.assertEqual(self.op(PW, "get")["tags"], ["widgets"])

    def test_action_paths(self):
        op = self.op(PW + "/{name}/poke", "post")
        self.assertEqual(op["summary"], "Poke it (Widget)")
        self.assertEqual(op["security"], SIGNED_IN)
        self.assertEqual(op["x-cube-permission"], "admin")
        names = [p["name"] for p in op["parameters"]]
        self.assertEqual(names, ["project", "name"])
        self.assertNotIn("get", self.paths[PW + "/{name}/poke"])  # only POST registered
        self.assertFalse([p for p in self.paths if p.startswith("/api/v1/gadgets/{name}/")
                          and p.split("/")[-1] not in ("status", "events")])

    def test_parameters_and_security(self):
        lst = self.op(PW, "get")
        q = {p["name"]: p for p in lst["parameters"] if p["in"] == "query"}
        self.assertEqual(set(q), {"labelSelector", "limit", "continue", "watch",
                                  "resourceVersion"})
        path = [p for p in lst["parameters"] if p["in"] == "path"]
        self.assertEqual(path, [{"name": "project", "in": "path", "required": True,
                                 "schema": {"type": "string"}}])
        self.assertEqual(lst["security"], SIGNED_IN)  # reads need a caller too
        ev = self.op(PW + "/{name}/events", "get")
        self.assertEqual({p["name"] for p in ev["parameters"] if p["in"] == "query"},
                         {"limit", "before"})
        create = self.op(PW, "post")
        self.assertEqual(create["security"], SIGNED_IN)
        self.assertEqual(create["requestBody"]["content"]["application/json"]["schema"],
                         {"$ref": "#/components/schemas/Widget"})
        ok = create["responses"]["201"]["content"]["application/json"]["schema"]
        self.assertEqual(ok, {"$ref": "#/components/schemas/Widget"})
        err = create["responses"]["default"]["content"]["application/json"]["schema"]
        self.assertEqual(err, {"$ref": "#/components/schemas/Error"})
        got = lst["responses"]["200"]["content"]["application/json"]["schema"]
        self.assertEqual(got, {"$ref": "#/components/schemas/WidgetList"})
        dele = self.op(PW + "/{name}", "delete")["responses"]
        self.assertIn("202", dele)
        self.assertIn("merge-patch", "".join(
            self.op(PW + "/{name}", "patch")["requestBody"]["content"]))

    def test_every_operation_is_well_formed(self):
        ids = []
        for path, item in self.paths.items():
            declared = set(re.findall(r"\{([^}]+)\}", path))
            for method, op in item.items():
                ids.append(op["operationId"])
                params = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
                self.assertEqual(params, declared, f"{method} {path}")
                self.assertIn("default", op["responses"])
                self.assertTrue(any(c.startswith("2") for c in op["responses"]), path)
                perm = op.get("x-cube-permission")
                self.assertIn(perm, PERMISSIONS, f"{method} {path}")
                # public operations need no credentials, all others one
                self.assertEqual(op["security"], [] if perm == "public" else SIGNED_IN,
                                 f"{method} {path}")
                # the project a project permission applies to is a path parameter
                pp = op.get("x-cube-project-param")
                if perm.startswith("project:"):
                    self.assertIsNotNone(pp, f"{method} {path}")
                if pp is not None:
                    self.assertIn(pp, declared, f"{method} {path}")
                if perm == "self":
                    self.assertIn("name", declared, f"{method} {path}")
        self.assertEqual(len(ids), len(set(ids)))
        # paths that differ only in parameter names are one route: listed once
        shapes = [(m, re.sub(r"\{[^}]+\}", "{}", p)) for p, item in self.paths.items()
                  for m in item]
        self.assertEqual(len(shapes), len(set(shapes)),
                         [x for x in shapes if shapes.count(x) > 1])
        for r in refs(self.doc):
            self.assertTrue(r.startswith("#/components/schemas/"), r)
            self.assertIn(r.split("/")[-1], self.schemas)

    def perm(self, path, method):
        op = self.op(path, method)
        return op["x-cube-permission"], op.get("x-cube-project-param")

    def test_permissions(self):
        view, edit = ("project:view", "project"), ("project:edit", "project")
        operate = ("project:operate", "project")
        # project kinds: members read, devs create, ops (or the owner) change
        self.assertEqual(self.perm(PW, "get"), view)
        self.assertEqual(self.perm(PW, "post"), edit)
        self.assertEqual(self.perm(PW + "/{name}", "get"), view)
        for method in ("put", "patch", "delete"):
            self.assertEqual(self.perm(PW + "/{name}", method), operate, method)
        # a controller owns its kind's status: administrators only
        self.assertEqual(self.perm(PW + "/{name}/status", "put"), ("admin", "project"))
        self.assertEqual(self.perm(PW + "/{name}/events", "get"), view)
        # cluster kinds: signed-in users read, administrators write
        self.assertEqual(self.perm("/api/v1/gadgets", "get"), ("user", None))
        self.assertEqual(self.perm("/api/v1/gadgets", "post"), ("admin", None))
        self.assertEqual(self.perm("/api/v1/gadgets/{name}", "get"), ("user", None))
        for method in ("put", "patch", "delete"):
            self.assertEqual(self.perm("/api/v1/gadgets/{name}", method), ("admin", None))
        # the core's User and Project kinds
        self.assertEqual(self.perm("/api/v1/users", "post"), ("admin", None))
        self.assertEqual(self.perm("/api/v1/users/{name}", "get"), ("self", None))
        self.assertEqual(self.perm("/api/v1/projects", "get"), ("user", None))
        self.assertEqual(self.perm("/api/v1/projects/{name}", "get"),
                         ("project:view", "name"))
        self.assertEqual(self.perm("/api/v1/projects/{name}", "patch"),
                         ("project:manage", "name"))
        # core routes
        for path in ("/healthz", "/readyz", "/metrics", "/api/v1/kinds", "/api/v1/version",
                     "/api/v1/openapi.json"):
            self.assertEqual(self.perm(path, "get"), ("public", None), path)
        self.assertEqual(self.perm("/api/v1/events", "get"), ("admin", None))
        self.assertEqual(self.perm("/api/v1/projects/{project}/events", "get"), view)
        self.assertEqual(self.perm("/api/v1/auth/login", "post"), ("public", None))
        self.assertEqual(self.perm("/api/v1/auth/me", "get"), ("user", None))

    def test_schemas(self):
        for name in ("Widget", "WidgetList", "Gadget", "GadgetList", "Lock", "LockList",
                     "Status", "Error", "Event", "EventList", "KindList"):
            self.assertIn(name, self.schemas)
        w = self.schemas["Widget"]
        self.assertEqual(w["title"], "Widget")
        self.assertEqual(w["description"], "A test widget")
        spec = w["properties"]["spec"]["properties"]
        self.assertEqual(spec["size"], {"type": "integer", "minimum": 0, "default": 1,
                                        "description": "How big"})
        self.assertEqual(spec["color"]["enum"], ["red", "green", "blue"])
        self.assertEqual(spec["tasks"]["items"]["required"], ["name"])
        self.assertEqual(w["properties"]["status"]["properties"]["phase"], {"type": "string"})
        self.assertEqual(self.schemas["WidgetList"]["properties"]["items"]["items"],
                         {"$ref": "#/components/schemas/Widget"})
        err = self.schemas["Error"]["properties"]["error"]["properties"]
        self.assertEqual(set(err), {"code", "message", "field"})
        text = json.dumps(self.schemas)
        for word in ('"$schema"', '"const"', '"examples"', '"null"'):
            self.assertNotIn(word, text)

    def test_validator(self):
        why = install_validator()
        if why:
            skipped_validator.append(why)
            self.skipTest(why)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(self.text)
        try:
            r = subprocess.run(["node", "-e", VALIDATE_JS, os.path.abspath(NODE_DIR), f.name],
                               capture_output=True, text=True, timeout=120)
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 0, f"{VALIDATOR} rejected the document:\n"
                         + r.stderr[-6000:])
        self.assertIn("valid: Cube API", r.stdout)


if __name__ == "__main__":
    prog = unittest.main(exit=False)
    if not prog.result.wasSuccessful():
        sys.exit(1)
    if skipped_validator:
        print("SKIP: OpenAPI validator unavailable: " + skipped_validator[0])
        sys.exit(77)
