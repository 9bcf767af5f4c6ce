"""The RBAC matrix: every operation of the running server's OpenAPI
document (core routes, the generic resource API of every registered kind,
and the plugins' routes) is called as every kind of caller, and the outcome
must match the operation's declared x-cube-permission. New routes and kinds
are covered without editing this file; an operation without a declared
permission, or with one this file does not know, fails the test.

Callers: anonymous, viewer, dev (owns the object), dev (does not),
ops, creator, a member of another project only, a platform admin user.

"Allowed" means the request got past authorisation: any status but 401 and
403, and not the 404 that hides a project from non-members. Requests are
built so that an allowed call changes nothing lasting (malformed bodies,
objects that do not exist), except DELETE of a project kind's object,
which is recreated before each such call."""
import os
import re
import tempfile
import time
import unittest

from cubetest import Cubed

PROJECT, OTHER, OBJ, GHOST = "alpha", "other", "obj", "ghost-object"
ROLES = ["anonymous", "viewer", "dev-owner", "dev-other", "ops", "creator", "outsider",
         "admin"]
MEMBERS = {"viewer": "viewer", "dev-owner": "dev", "dev-other": "dev", "ops": "ops",
           "creator": "creator"}
KNOWN = {"public", "user", "admin", "self", "project:view", "project:edit",
         "project:operate", "project:manage"}


# A node in pool "default", so that Jobs (whose pool must be served) can be
# created; its replicas run for a moment.
SIM = {"pool": "default", "run_seconds": 1,
       "node_groups": [{"prefix": "n-", "count": 1, "cpu": "64", "memory": "64Gi"}]}


def plugin_dir():
    """A directory with the test plugins side by side."""
    d = tempfile.mkdtemp(prefix="cube-rbac-plugins-")
    for src in (os.environ["CUBE_TEST_PLUGIN_DIR"], os.environ["CUBE_TESTKINDS_DIR"],
                os.environ["CUBE_SIM_PLUGIN_DIR"]):
        for f in os.listdir(src):
            if f.startswith("cube-") and f.endswith(".so"):
                os.symlink(os.path.join(src, f), os.path.join(d, f))
    # hpsearch (enabled by default): its Experiment kind, actions and trial
    # routes join the matrix; its folder holds the .so and its pages.
    os.symlink(os.environ["CUBE_HPSEARCH_DIR"], os.path.join(d, "hpsearch"))
    # models and serving (enabled by default): the Model and
    # InferenceService kinds, promote/deploy/rollback, model files, and the
    # /serving/{project}/{name} prefix on the apps origin.
    for name in ("models", "serving"):
        os.symlink(os.path.join(os.environ["CUBE_PLUGINS_DIR"], name), os.path.join(d, name))
    return d


# Kinds whose semantic checks a schema-minimal spec does not pass.
SPECS = {"experiments": {"searchSpace": {"x": {"_type": "uniform", "_value": [0, 1]}},
                         "trial": {"command": ["true"]}, "maxTrials": 1},
         # a custom server that never gets ready (executor-sim reports no
         # endpoint): the proxy answers 503 once its first start failed
         "inferenceservices": {"predictors": [{"name": "main", "runtime": "custom",
                                               "command": ["true"]}]},
         "models": {"name": "fam", "framework": "sklearn"}}


def sample(schema):
    """A minimal instance of a (structural) JSON schema: required members,
    first enum value, minimums."""
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for alt in ("oneOf", "anyOf"):
        if alt in schema:
            return sample(schema[alt][0])
    t = schema.get("type", "object")
    if t == "object":
        props = schema.get("properties", {})
        return {k: sample(props.get(k, {})) for k in schema.get("required", [])}
    if t == "array":
        return [sample(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if t in ("integer", "number"):
        return schema.get("minimum", 1)
    if t == "boolean":
        return False
    return "x" * max(1, schema.get("minLength", 1))


def expected(perm, role, names_object):
    """Whether role may call an operation with this permission."""
    if perm == "public":
        return True
    if role == "anonymous":
        return False
    if role == "admin" or perm == "user":
        return True
    if perm == "self":
        return role == "dev-owner"          # {name} is dev-owner's own User
    if perm == "admin" or role == "outsider":
        return False
    need = {"project:view": "viewer", "project:edit": "dev", "project:operate": "ops",
            "project:manage": "creator"}[perm]
    order = ["viewer", "dev", "ops", "creator"]
    have = MEMBERS[role]
    if perm == "project:operate" and role == "dev-owner" and names_object:
        return True
    return order.index(have) >= order.index(need)


def denied(r):
    if r.status in (401, 403):
        return True
    if r.status == 404:
        msg = r.json().get("error", {}).get("message", "")
        return msg.startswith('project "') or msg == "no such user"
    return False


class Matrix(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = c = Cubed(plugins={"testkinds": None, "authprobe": None, "executor-sim": SIM,
                                   "hpsearch": None, "models": None,
                                   "serving": {"park_timeout_seconds": 1}},
                          plugin_dir=plugin_dir())
        cls.callers = {"anonymous": c, "admin": c.make_user("root", role="admin")}
        for role in MEMBERS:
            cls.callers[role] = c.make_user(role)
        cls.callers["outsider"] = c.make_user("outsider")
        c.make_project(PROJECT, list(MEMBERS.items()))
        c.make_project(OTHER, [("outsider", "creator")])
        cls.kinds = {k["plural"]: k for k in c.admin().get("/api/v1/kinds").json()["items"]}
        for plural, k in cls.kinds.items():
            cls.ensure(plural)

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    @classmethod
    def ensure(cls, plural):
        """Makes sure OBJ of a kind exists, created by its rightful owner."""
        k = cls.kinds[plural]
        if k["kind"] in ("User", "Project"):
            return
        project = k["scope"] == "project"
        base = f"/api/v1/projects/{PROJECT}/{plural}" if project else f"/api/v1/{plural}"
        who = cls.callers["dev-owner"] if project else cls.callers["admin"]
        spec = SPECS.get(plural) or sample(k.get("schema", {}))
        body = {"metadata": {"name": OBJ}, "spec": spec}
        for _ in range(400):
            r = cls.c.admin().get(f"{base}/{OBJ}")
            if r.status == 200 and "deletionTimestamp" not in r.json()["metadata"]:
                return
            if r.status == 404:
                r = who.request("POST", base, body)
                if r.status == 201:
                    return
                if r.status != 409:
                    raise AssertionError(f"cannot create {plural}/{OBJ}: {r.status} {r.body}")
            time.sleep(0.02)
        raise AssertionError(f"{plural}/{OBJ} is stuck being deleted")

    def concrete(self, path, method, perm):
        """Fills the path's parameters; says whether it names OBJ of a
        project kind (so owning it counts) and of which kind (recreated
        before each call, as an allowed DELETE removes it)."""
        m = re.match(r"^/api/v1/projects/\{project\}/([a-z0-9-]+)/\{name\}", path)
        kind_obj = m.group(1) if m and m.group(1) in self.kinds else None
        name = OBJ
        if path.startswith("/api/v1/users/"):
            name = GHOST if method == "DELETE" else "dev-owner"
        elif path.startswith("/api/v1/projects/{name}"):
            name = PROJECT if perm != "admin" else GHOST
        elif method == "DELETE" and not kind_obj:
            name = GHOST
        values = {"project": PROJECT, "name": name, "user": "nobody", "id": "ghost"}
        filled = re.sub(r"\{(\w+)\*?\}", lambda g: values.get(g.group(1), "x"), path)
        return filled, kind_obj is not None, kind_obj

    def test_every_operation_as_every_caller(self):
        doc = self.c.get("/api/v1/openapi.json").json()
        checked, failures = 0, []
        for path, ops in sorted(doc["paths"].items()):
            for method, op in ops.items():
                perm = op.get("x-cube-permission")
                if perm not in KNOWN:
                    failures.append(f"{method.upper()} {path}: permission {perm!r}")
                    continue
                if path.endswith("/stream") or "watch" in path:
                    continue
                filled, names_obj, recreate = self.concrete(path, method.upper(), perm)
                for role in ROLES:
                    if recreate:
                        self.ensure(recreate)
                    body = "{" if method in ("post", "put", "patch") else None
                    r = self.callers[role].request(method.upper(), filled, body)
                    if r.status >= 500:
                        failures.append(f"{role}: {method.upper()} {filled}: {r.status} {r.body}")
                        continue
                    want = expected(perm, role, names_obj)
                    if want == denied(r):
                        failures.append(f"{role}: {method.upper()} {filled} [{perm}]: expected "
                                        f"{'allow' if want else 'deny'}, got {r.status} "
                                        f"{r.body[:160]}")
                    elif not want and role == "anonymous" and r.status != 401:
                        failures.append(f"anonymous: {method.upper()} {filled}: {r.status}, "
                                        "not 401")
                    checked += 1
        self.assertFalse(failures, "\n" + "\n".join(failures))
        self.assertGreater(checked, 400, "the matrix must cover the whole API")
        covered = {p for p in doc["paths"]}
        for must in ("/api/v1/projects/{project}/widgets/{name}/poke",
                     "/api/v1/authprobe/{project}/whoami", "/api/v1/auth/me",
                     "/api/v1/projects/{project}/members",
                     "/api/v1/projects/{project}/experiments/{name}/trials",
                     "/api/v1/projects/{project}/models/{name}/promote",
                     "/api/v1/projects/{project}/models/{name}/deploy",
                     "/api/v1/projects/{project}/models/{name}/files",
                     "/api/v1/projects/{project}/models/{name}/files/{path}",
                     "/api/v1/projects/{project}/inferenceservices/{name}/rollback",
                     "/api/v1/projects/{project}/inferenceservices/{name}/apikey"):
            self.assertIn(must, covered)

    def test_serving_prefix(self):
        """/serving/{project}/{name}/ on the apps origin: members who may view
        the project reach the service (here 503: its one replica never gets
        ready), others are denied, and anonymous callers get 401 on a
        service that is not public, also one that does not exist."""
        for name in ("obj", "ghost"):
            for role in ROLES:
                path = f"/serving/{PROJECT}/{name}/v2/health/ready"
                r = self.callers[role].apps_request("GET", path, timeout=30)
                want = expected("project:view", role, False)
                if role == "anonymous":
                    self.assertEqual(r.status, 401, f"{path}: {r.status} {r.body}")
                elif not want:
                    self.assertIn(r.status, (403, 404), f"{role} {path}: {r.body}")
                elif name == "obj":
                    self.assertNotIn(r.status, (401, 403, 404), f"{role} {path}: {r.body}")
                else:
                    self.assertEqual(r.status, 404, f"{role} {path}: {r.body}")
                r = self.callers[role].apps_request("POST", path.replace(
                    "health/ready", "models/obj/infer"), {"inputs": []}, timeout=30)
                if not want:
                    self.assertIn(r.status, (401, 403, 404), f"{role} POST: {r.body}")

    def test_model_files(self):
        """Upload and download of a version's files: devs and up may upload
        (the version's owner, or ops), members may download, others not."""
        blob = b"\x80\x04\x95" + b"x" * 32 + b"."
        up = f"/api/v1/projects/{PROJECT}/models/{OBJ}/files?path=model.pkl"
        octet = {"Content-Type": "application/octet-stream"}
        for role in ("anonymous", "outsider", "viewer", "dev-other"):
            r = self.callers[role].request("POST", up, blob, octet)
            self.assertTrue(denied(r), f"{role} upload: {r.status} {r.body}")
            if role == "anonymous":
                self.assertEqual(r.status, 401)
        r = self.callers["dev-owner"].request("POST", up, blob, octet)
        self.assertNotIn(r.status, (401, 403, 404), r.body)
        down = f"/api/v1/projects/{PROJECT}/models/{OBJ}/files"
        for role in ROLES:
            r = self.callers[role].request("GET", down)
            want = expected("project:view", role, False)
            self.assertEqual(not denied(r), want, f"{role} download: {r.status} {r.body}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
