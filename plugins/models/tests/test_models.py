"""The models plugin through a running cubed, with real model files
(make_models.py: scikit-learn, xgboost, TorchScript, state dicts, ONNX):
versions numbered per family and unique (409, also when creates race);
bad specs refused naming the field (a path outside the project's files,
a link, a missing file, framework options); uploads streamed, hashed and
judged (a non-pickle, a cut pickle, junk ONNX, a state dict where
TorchScript is declared: 422, nothing published), 413 past the limits,
403 for other devs and viewers; downloads with ranges and the registered
SHA-256; versions registered from the project's files (files and
directories, every framework) turn Ready or Failed naming the file;
promote keeps one production version per family, also under racing
promotes and across a restart; deploy writes the InferenceService the
serving plugin reads (a stand-in kind here), updates it for the next
version, and without the serving plugin answers 409 naming it; deleting
an uploaded version deletes its files."""
import hashlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from cubetest import Cubed

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = "/api/v1/projects/lab"
OCTET = {"Content-Type": "application/octet-stream"}


def plugin_dir(stub):
    d = tempfile.mkdtemp(prefix="cube-models-plugins-")
    os.symlink(os.path.join(os.environ["CUBE_BUILD_PLUGINS"], "models"), os.path.join(d, "models"))
    if stub:
        os.symlink(os.environ["CUBE_ISVC_STUB"], os.path.join(d, "cube-isvc-stub.so"))
    return d


def declared_only(port, path, headers, length, chunks=()):
    """POSTs with Content-Length `length` (or chunked `chunks`) without
    sending a byte of a declared body; the status and body of the answer."""
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    try:
        head = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        head.append("Transfer-Encoding: chunked" if chunks else f"Content-Length: {length}")
        s.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        try:
            for c in chunks:
                s.sendall(b"%x\r\n%s\r\n" % (len(c), c))
            if chunks:
                s.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        while True:
            try:
                got = s.recv(65536)
            except ConnectionResetError:
                break
            if not got:
                break
            data += got
    finally:
        s.close()
    status = int(data.split(b" ", 2)[1])
    return status, data.split(b"\r\n\r\n", 1)[-1].decode("utf-8", "replace")


def make_files():
    out = tempfile.mkdtemp(prefix="cube-models-files-")
    r = subprocess.run([sys.executable, os.path.join(HERE, "make_models.py"), out],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        raise RuntimeError(r.stderr)
    files = {}
    for name in os.listdir(out):
        if not name.endswith(".pyc") and os.path.isfile(os.path.join(out, name)):
            with open(os.path.join(out, name), "rb") as f:
                files[name] = f.read()
    return files


class Models(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.files = make_files()
        cls.c = Cubed(plugins={"models": {"max_upload_bytes": 1 << 20,
                                          "max_model_bytes": 3 << 19}, "isvc-stub": None},
                      plugin_dir=plugin_dir(True))
        cls.a = cls.c.admin()
        cls.dev = cls.c.make_user("dana")
        cls.dev2 = cls.c.make_user("eve")
        cls.ops = cls.c.make_user("olga")
        cls.viewer = cls.c.make_user("vic")
        cls.c.make_project("lab", [("dana", "dev"), ("eve", "dev"), ("olga", "ops"),
                                   ("vic", "viewer")])

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    # -- helpers ------------------------------------------------------------

    def create(self, name, spec, who=None, status=201):
        r = (who or self.dev).request("POST", f"{BASE}/models",
                                      {"metadata": {"name": name}, "spec": spec})
        self.assertEqual(r.status, status, r.body)
        return r.json()

    def upload(self, name, data, path=None, who=None, status=201):
        q = f"?path={path}" if path else ""
        r = (who or self.dev).request("POST", f"{BASE}/models/{name}/files{q}", data, OCTET,
                                      timeout=60)
        self.assertEqual(r.status, status, r.body)
        return r.json()

    def put_file(self, path, data):
        r = self.dev.request("PUT", f"{BASE}/files/{path}", data, OCTET)
        self.assertIn(r.status, (200, 201, 204), r.body)

    def get(self, name):
        return self.a.get(f"{BASE}/models/{name}").json()

    def wait(self, name, phases=("Ready", "Failed"), timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st = self.get(name).get("status", {})
            if st.get("phase") in phases:
                return st
            time.sleep(0.1)
        self.fail(f"{name}: {self.get(name)}\n{self.c.output()[-2000:]}")

    def promote(self, name, stage="production", who=None, status=200):
        r = (who or self.ops).request("POST", f"{BASE}/models/{name}/promote", {"stage": stage})
        self.assertEqual(r.status, status, r.body)
        return r.json()

    def stages(self, family):
        items = self.a.get(f"{BASE}/models?labelSelector=model%3D{family}").json()["items"]
        return {o["metadata"]["name"]: o.get("status", {}).get("stage") for o in items}

    # -- versions -------------------------------------------------------------

    def test_versions_are_numbered_and_unique(self):
        a = self.create("ver-a", {"name": "ver", "framework": "sklearn"})
        b = self.create("ver-b", {"name": "ver", "framework": "sklearn"})
        self.assertEqual((a["spec"]["version"], b["spec"]["version"]), (1, 2))
        self.assertEqual(a["metadata"]["labels"], {"model": "ver", "model-version": "1"})
        r = self.dev.request("POST", f"{BASE}/models", {"metadata": {"name": "ver-c"},
                                                        "spec": {"name": "ver", "version": 2,
                                                                 "framework": "sklearn"}})
        self.assertEqual(r.status, 409, r.body)
        self.assertEqual(r.json()["error"]["field"], "spec.version")
        self.assertIn("ver-b", r.json()["error"]["message"])
        self.create("ver-ten", {"name": "ver", "version": 10, "framework": "sklearn"})
        self.assertEqual(self.create("ver-d", {"name": "ver", "framework": "sklearn"})
                         ["spec"]["version"], 11)
        # an update keeps the version (and may not change it)
        cur = self.get("ver-a")
        cur["spec"]["metrics"] = {"accuracy": 0.9}
        del cur["spec"]["version"]
        r = self.dev.request("PUT", f"{BASE}/models/ver-a", cur)
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(r.json()["spec"]["version"], 1)
        cur = r.json()
        cur["spec"]["version"] = 5
        r = self.dev.request("PUT", f"{BASE}/models/ver-a", cur)
        self.assertEqual(r.status, 422, r.body)
        self.assertEqual(r.json()["error"]["field"], "spec.version")

    def test_racing_creates_get_distinct_versions(self):
        got, lock = [], threading.Lock()

        def make(i):
            r = self.dev.request("POST", f"{BASE}/models", {"metadata": {"name": f"race-{i}"},
                                                            "spec": {"name": "race",
                                                                     "framework": "custom"}})
            with lock:
                got.append((r.status, r.json().get("spec", {}).get("version")))

        ts = [threading.Thread(target=make, args=(i,)) for i in range(12)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertTrue(all(s == 201 for s, _ in got), got)
        self.assertEqual(sorted(v for _, v in got), list(range(1, 13)))

    # -- bad specs ------------------------------------------------------------

    def test_bad_specs_name_the_field(self):
        self.put_file("bad/real.pkl", self.files["iris.pkl"])
        proj = os.path.join(self.c.dir, "var", "projects", "lab")
        os.symlink("/etc/passwd", os.path.join(proj, "bad", "link.pkl"))
        cases = [
            ({"name": "x", "framework": "tensorflow"}, "spec.framework"),
            ({"name": "Bad_Name", "framework": "sklearn"}, "spec.name"),
            ({"framework": "sklearn"}, "spec.name"),
            ({"name": "x", "framework": "sklearn", "path": "../../etc/passwd"}, "spec.path"),
            ({"name": "x", "framework": "sklearn", "path": "/etc/passwd"}, "spec.path"),
            ({"name": "x", "framework": "sklearn", "path": "bad/.hidden"}, "spec.path"),
            ({"name": "x", "framework": "sklearn", "path": "bad/missing.pkl"}, "spec.path"),
            ({"name": "x", "framework": "sklearn", "path": "bad/link.pkl"}, "spec.path"),
            ({"name": "x", "framework": "pytorch", "pytorch": {"format": "state_dict"}},
             "spec.pytorch.class"),
            ({"name": "x", "framework": "sklearn", "pytorch": {"format": "torchscript"}},
             "spec.pytorch"),
            ({"name": "x", "framework": "sklearn", "metrics": {"acc": [1]}}, "spec.metrics.acc"),
            ({"name": "x", "framework": "sklearn", "source": {"kind": "Job"}}, "spec.source"),
        ]
        for spec, field in cases:
            r = self.dev.request("POST", f"{BASE}/models", {"metadata": {"name": "bad"},
                                                            "spec": spec})
            self.assertEqual(r.status, 422, (spec, r.body))
            self.assertTrue(r.json()["error"].get("field", "").startswith(field),
                            (spec, r.body))
        r = self.viewer.request("POST", f"{BASE}/models", {"metadata": {"name": "v"},
                                                           "spec": {"name": "v",
                                                                    "framework": "sklearn"}})
        self.assertEqual(r.status, 403, r.body)
        self.create("fixed", {"name": "fixed", "framework": "sklearn"})
        cur = self.get("fixed")
        cur["spec"]["framework"] = "onnx"
        r = self.dev.request("PUT", f"{BASE}/models/fixed", cur)
        self.assertEqual((r.status, r.json()["error"]["field"]), (422, "spec.framework"))

    # -- uploads and downloads ----------------------------------------------------

    def test_upload_sklearn_and_download(self):
        data = self.files["iris.pkl"]
        m = self.create("iris-1", {"name": "iris", "framework": "sklearn",
                                   "metrics": {"accuracy": 0.97}, "describe": "iris LR"})
        self.assertEqual(self.wait("iris-1", ("AwaitingUpload",))["stage"], "none")
        out = self.upload("iris-1", data)
        st = out["status"]
        self.assertEqual(st["phase"], "Ready", st)
        self.assertEqual(st["root"], "models/iris-1")
        self.assertEqual(st["entry"], "model.pkl")
        self.assertEqual(st["format"], "pickle")
        self.assertEqual(st["sha256"], hashlib.sha256(data).hexdigest())
        self.assertEqual(st["md5"], hashlib.md5(data).hexdigest())
        self.assertEqual(st["size"], len(data))
        self.assertEqual(st["registered"], m["metadata"]["created"])
        # where a Job finds it: the project's files
        with open(os.path.join(self.c.dir, "var", "projects", "lab", "models", "iris-1",
                               "model.pkl"), "rb") as f:
            self.assertEqual(f.read(), data)
        r = self.viewer.get(f"{BASE}/models/iris-1/files/model.pkl")
        self.assertEqual((r.status, r.raw), (200, data))
        self.assertEqual(r.header("x-checksum-sha256"), st["sha256"])
        self.assertIn("attachment", r.header("content-disposition"))
        r = self.viewer.get(f"{BASE}/models/iris-1/files/model.pkl",
                            headers={"Range": "bytes=2-9"})
        self.assertEqual((r.status, r.raw), (206, data[2:10]))
        lst = self.viewer.get(f"{BASE}/models/iris-1/files").json()
        self.assertEqual([f["path"] for f in lst["files"]], ["model.pkl"])
        self.assertEqual(self.viewer.get(f"{BASE}/models/iris-1/files/other.pkl").status, 404)
        # a directory model: several files, the manifest digest
        self.create("iris-dir", {"name": "iris", "framework": "sklearn"})
        self.upload("iris-dir", b"# iris\n", "README.md")
        st = self.get("iris-dir")["status"]
        self.assertEqual(st["phase"], "AwaitingUpload", st)
        st = self.upload("iris-dir", self.files["iris.joblib"], "sub/iris.joblib")["status"]
        self.assertEqual((st["phase"], st["entry"], st["format"]),
                         ("Ready", "sub/iris.joblib", "joblib"))
        lines = "".join(f"{f['sha256']}  {f['path']}\n" for f in
                        sorted(st["files"], key=lambda f: f["path"]))
        self.assertEqual(st["sha256"], hashlib.sha256(lines.encode()).hexdigest())
        r = self.dev.request("DELETE", f"{BASE}/models/iris-dir/files/README.md")
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual([f["path"] for f in r.json()["status"]["files"]], ["sub/iris.joblib"])

    def test_bad_uploads_publish_nothing(self):
        self.create("junk-sk", {"name": "junk", "framework": "sklearn"})
        good = self.files["iris.pkl"]
        for data, words in ((b"just some text", "not a pickle"),
                            (good[:-10], "STOP"),
                            (b"\x80", "too short")):
            r = self.dev.request("POST", f"{BASE}/models/junk-sk/files", data, OCTET)
            self.assertEqual(r.status, 422, r.body)
            self.assertIn(words, r.json()["error"]["message"])
            self.assertIn("model.pkl", r.json()["error"]["message"])
        self.assertEqual(self.get("junk-sk")["status"]["files"], [])
        self.assertFalse(os.path.exists(os.path.join(self.c.dir, "var", "projects", "lab",
                                                     "models", "junk-sk", "model.pkl")))
        self.create("junk-onnx", {"name": "junk", "framework": "onnx"})
        r = self.dev.request("POST", f"{BASE}/models/junk-onnx/files", good, OCTET)
        self.assertEqual(r.status, 422, r.body)
        self.assertIn("not an ONNX model", r.json()["error"]["message"])
        self.create("junk-pt", {"name": "junk", "framework": "pytorch"})
        r = self.dev.request("POST", f"{BASE}/models/junk-pt/files",
                             self.files["net_state.pt"], OCTET)
        self.assertEqual(r.status, 422, r.body)
        self.assertIn("not TorchScript", r.json()["error"]["message"])
        self.create("junk-xgb", {"name": "junk", "framework": "xgboost"})
        r = self.dev.request("POST", f"{BASE}/models/junk-xgb/files", b'{"a": 1}', OCTET)
        self.assertEqual(r.status, 422, r.body)
        # limits: one request, and the version's files together
        self.create("big", {"name": "big", "framework": "custom"})
        hdr = dict(self.dev.headers, **OCTET)
        status, body = declared_only(self.c.port, f"{BASE}/models/big/files?path=w.bin", hdr,
                                     2 << 20)
        self.assertEqual(status, 413, body)
        self.upload("big", b"x" * (1000 << 10), "a.bin")
        status, body = declared_only(self.c.port, f"{BASE}/models/big/files?path=b.bin", hdr,
                                     800 << 10)
        self.assertEqual(status, 413, body)
        self.assertIn("max_model_bytes", body)
        # chunked (no length told): stopped when the bytes pass the limit
        status, body = declared_only(self.c.port, f"{BASE}/models/big/files?path=b.bin", hdr, 0,
                                     [b"y" * (100 << 10)] * 8)
        self.assertEqual(status, 413, body)
        self.assertEqual([f["path"] for f in self.get("big")["status"]["files"]], ["a.bin"])
        # paths, owners, roles
        r = self.dev.request("POST", f"{BASE}/models/big/files?path=../x", b"x", OCTET)
        self.assertEqual(r.status, 422, r.body)
        r = self.dev.request("POST", f"{BASE}/models/big/files", b"x", OCTET)
        self.assertEqual(r.status, 422, r.body)   # custom: ?path= needed
        self.assertEqual(self.dev2.request("POST", f"{BASE}/models/big/files?path=c", b"x",
                                           OCTET).status, 403)
        self.assertEqual(self.viewer.request("POST", f"{BASE}/models/big/files?path=c", b"x",
                                             OCTET).status, 403)
        self.assertEqual(self.ops.request("POST", f"{BASE}/models/big/files?path=c", b"x",
                                          OCTET).status, 201)
        self.assertEqual(self.dev.request("POST", f"{BASE}/models/nosuch/files", b"x",
                                          OCTET).status, 404)

    # -- versions from the project's files ----------------------------------------

    def test_path_registration_every_framework(self):
        f = self.files
        self.put_file("runs/r1/model.pkl", f["iris.pkl"])
        self.put_file("runs/r1/README.md", b"trained by run r1")
        self.put_file("runs/xgb/model.json", f["xgb.json"])
        self.put_file("runs/xgb.ubj", f["xgb.ubj"])
        self.put_file("runs/xgb-sk.pkl", f["xgb.pkl"])
        self.put_file("runs/ts/net.pt", f["net.pt"])
        self.put_file("runs/sd/net.pt", f["net_state.pt"])
        self.put_file("runs/sd/net.py", f["net.py"])
        self.put_file("runs/legacy.pt", f["net_legacy.pt"])
        self.put_file("runs/onnx/net.onnx", f["net.onnx"])
        self.put_file("runs/notonnx.onnx", f["iris.pkl"])
        self.put_file("runs/empty/README.md", b"nothing here")
        ok = [("p-sk", {"framework": "sklearn", "path": "runs/r1"}, "model.pkl", "pickle"),
              ("p-xgb", {"framework": "xgboost", "path": "runs/xgb"}, "model.json",
               "xgboost-json"),
              ("p-ubj", {"framework": "xgboost", "path": "runs/xgb.ubj"}, "xgb.ubj",
               "xgboost-ubj"),
              ("p-xgbsk", {"framework": "xgboost", "path": "runs/xgb-sk.pkl"}, "xgb-sk.pkl",
               "pickle"),
              ("p-ts", {"framework": "pytorch", "path": "runs/ts"}, "net.pt", "torchscript"),
              ("p-sd", {"framework": "pytorch", "path": "runs/sd",
                        "pytorch": {"format": "state_dict", "class": "net:Net",
                                    "init": {"hidden": 8}}}, "net.pt", "torch-state-dict"),
              ("p-legacy", {"framework": "pytorch", "path": "runs/legacy.pt",
                            "pytorch": {"format": "state_dict", "class": "net:Net"}},
               "legacy.pt", "torch-state-dict"),
              ("p-onnx", {"framework": "onnx", "path": "runs/onnx"}, "net.onnx", "onnx")]
        for name, spec, entry, fmt in ok:
            self.create(name, dict(spec, name="paths"))
        for name, spec, entry, fmt in ok:
            st = self.wait(name)
            self.assertEqual((st["phase"], st["entry"], st["format"]), ("Ready", entry, fmt),
                             (name, st))
            for fl in st["files"]:
                full = os.path.join(self.c.dir, "var", "projects", "lab", st["root"], fl["path"])
                with open(full, "rb") as fh:
                    self.assertEqual(fl["sha256"], hashlib.sha256(fh.read()).hexdigest())
        st = self.wait("p-sk")
        self.assertEqual(st["root"], "runs/r1")
        self.assertEqual(sorted(x["path"] for x in st["files"]), ["README.md", "model.pkl"])
        self.assertEqual(self.wait("p-ubj")["root"], "runs")
        self.assertEqual([x["path"] for x in self.wait("p-ubj")["files"]], ["xgb.ubj"])
        bad = [("f-onnx", {"framework": "onnx", "path": "runs/notonnx.onnx"}, "not an ONNX"),
               ("f-ts", {"framework": "pytorch", "path": "runs/sd"}, "not TorchScript"),
               ("f-empty", {"framework": "sklearn", "path": "runs/empty"}, "no sklearn model"),
               ("f-sk", {"framework": "sklearn", "path": "runs/onnx/net.onnx"}, "not a pickle")]
        for name, spec, words in bad:
            self.create(name, dict(spec, name="paths"))
        for name, spec, words in bad:
            st = self.wait(name)
            self.assertEqual((st["phase"], st.get("field")), ("Failed", "spec.path"), st)
            self.assertIn(words, st["message"])
            self.assertIn(spec["path"], st["message"])
        # a path version takes no uploads
        r = self.dev.request("POST", f"{BASE}/models/p-sk/files", b"x", OCTET)
        self.assertEqual(r.status, 409, r.body)

    # -- promote ---------------------------------------------------------------

    def test_promote_one_production_per_family(self):
        for i in (1, 2, 3):
            self.create(f"fam-{i}", {"name": "fam", "framework": "sklearn"})
            self.upload(f"fam-{i}", self.files["iris.pkl"])
        self.create("fam-empty", {"name": "fam", "framework": "sklearn"})
        self.promote("fam-empty", status=409)
        self.promote("fam-1", who=self.dev, status=403)       # a dev: not production
        self.promote("fam-1", who=self.viewer, status=403)
        self.promote("fam-1", stage="bogus", status=422)
        self.promote("fam-1", "staging", who=self.dev)        # own version: staging is fine
        self.promote("fam-2", "staging", who=self.dev2, status=403)   # not eve's
        out = self.promote("fam-1")
        self.assertEqual(out["status"]["stage"], "production")
        self.assertEqual([h["from"] for h in out["status"]["stageHistory"]], ["none", "staging"])
        out = self.promote("fam-2")
        self.assertEqual(out["demoted"], ["fam-1"])
        self.assertEqual(self.stages("fam"), {"fam-1": "archived", "fam-2": "production",
                                              "fam-3": "none", "fam-empty": "none"})
        # a staged version's files are fixed
        r = self.dev.request("POST", f"{BASE}/models/fam-1/files", self.files["iris.pkl"], OCTET)
        self.assertEqual(r.status, 409, r.body)
        # racing promotes: a reader never sees two production versions
        seen, stop = [], threading.Event()

        def read():
            while not stop.is_set():
                seen.append(list(self.stages("fam").values()).count("production"))

        reader = threading.Thread(target=read)
        reader.start()
        ts = [threading.Thread(target=self.promote, args=(f"fam-{1 + i % 3}",))
              for i in range(9)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        stop.set()
        reader.join()
        self.assertLessEqual(max(seen), 1, seen)
        self.assertEqual(list(self.stages("fam").values()).count("production"), 1)
        # and after a restart of cubed
        self.c.stop()
        self.c.start()
        time.sleep(0.5)
        self.assertEqual(list(self.stages("fam").values()).count("production"), 1)
        self.promote("fam-3", "none")
        out = self.promote("fam-3")
        self.assertEqual(out["status"]["stage"], "production")
        self.assertEqual(list(self.stages("fam").values()).count("production"), 1)

    # -- deploy -----------------------------------------------------------------

    def test_deploy_writes_the_service(self):
        self.create("svc-1", {"name": "svc", "framework": "sklearn"})
        self.create("svc-2", {"name": "svc", "framework": "sklearn"})
        r = self.dev.request("POST", f"{BASE}/models/svc-1/deploy", {})
        self.assertEqual(r.status, 409, r.body)   # not Ready
        self.upload("svc-1", self.files["iris.pkl"])
        self.upload("svc-2", self.files["iris.pkl"])
        r = self.dev.request("POST", f"{BASE}/models/svc-1/deploy", {})
        self.assertEqual(r.status, 201, r.body)
        svc = r.json()["service"]
        self.assertEqual(svc["metadata"]["owner"], "dana")
        self.assertEqual(svc["metadata"]["labels"], {"model": "svc"})
        self.assertEqual(svc["spec"], {
            "predictors": [{"name": "default", "model": {"name": "svc-1"}, "runtime": "sklearn",
                            "replicas": {"min": 1, "max": 1}}],
            "traffic": [{"predictor": "default", "percent": 100}]})
        self.assertEqual(self.get("svc-1")["status"]["deployments"], ["svc"])
        r = self.dev2.request("POST", f"{BASE}/models/svc-2/deploy", {})
        self.assertEqual(r.status, 403, r.body)   # dana's service
        r = self.dev.request("POST", f"{BASE}/models/svc-2/deploy",
                             {"replicas": {"min": 1, "max": 2}})
        self.assertEqual(r.status, 200, r.body)
        p = r.json()["service"]["spec"]["predictors"][0]
        self.assertEqual((p["model"]["name"], p["replicas"]), ("svc-2", {"min": 1, "max": 2}))
        r = self.dev2.request("POST", f"{BASE}/models/svc-2/deploy", {"service": "eve-svc"})
        self.assertEqual(r.status, 201, r.body)
        self.assertEqual(r.json()["service"]["metadata"]["owner"], "eve")
        for body, status in (({"service": "Bad Name"}, 422), ({"predictor": "canary"}, 422),
                             ({"replicas": {"min": 3, "max": 1}}, 422), ([1], 400)):
            r = self.dev.request("POST", f"{BASE}/models/svc-2/deploy", body)
            self.assertEqual(r.status, status, (body, r.body))
        self.assertEqual(self.viewer.request("POST", f"{BASE}/models/svc-2/deploy", {}).status,
                         403)
        self.create("svc-custom", {"name": "svcc", "framework": "custom"})
        self.upload("svc-custom", b"#!/bin/sh\n", "serve.sh")
        r = self.dev.request("POST", f"{BASE}/models/svc-custom/deploy", {})
        self.assertEqual(r.status, 422, r.body)

    def test_deploy_without_serving(self):
        c = Cubed(plugins={"models": None}, plugin_dir=plugin_dir(False))
        try:
            a = c.admin()
            c.make_project("lab")
            a.request("POST", f"{BASE}/models", {"metadata": {"name": "m"},
                                                 "spec": {"name": "m", "framework": "sklearn"}})
            r = a.request("POST", f"{BASE}/models/m/files", self.files["iris.pkl"], OCTET)
            self.assertEqual(r.status, 201, r.body)
            r = a.request("POST", f"{BASE}/models/m/deploy", {})
            self.assertEqual(r.status, 409, r.body)
            self.assertEqual(r.json()["error"]["code"], "ServingNotLoaded")
            self.assertIn("serving plugin", r.json()["error"]["message"])
        finally:
            c.close()

    # -- delete -------------------------------------------------------------------

    def test_delete_removes_uploaded_files(self):
        self.create("gone", {"name": "gone", "framework": "sklearn"})
        self.upload("gone", self.files["iris.pkl"])
        path = os.path.join(self.c.dir, "var", "projects", "lab", "models", "gone", "model.pkl")
        self.assertTrue(os.path.exists(path))
        self.assertEqual(self.dev2.request("DELETE", f"{BASE}/models/gone").status, 403)
        r = self.dev.request("DELETE", f"{BASE}/models/gone")
        self.assertIn(r.status, (200, 202), r.body)
        deadline = time.time() + 10
        while time.time() < deadline and os.path.exists(path):
            time.sleep(0.1)
        self.assertFalse(os.path.exists(path))
        while time.time() < deadline and self.a.get(f"{BASE}/models/gone").status != 404:
            time.sleep(0.1)
        # a deleted version's number is free again
        self.assertEqual(self.create("gone-2", {"name": "gone", "framework": "sklearn"})
                         ["spec"]["version"], 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
