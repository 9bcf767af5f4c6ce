"""Cube's built-in model server: one model, KServe's Open Inference Protocol
v2 and the V1 :predict form, over HTTP/1.1 on 127.0.0.1:$CUBE_PORT_HTTP.

An InferenceService predictor's replica Job runs this file (installed beside
the serving plugin) as the service's owner, inside the replica's sandbox; the
model's files are loaded here and never in cubed. Arguments:

  --name NAME          the model's name in the URLs (/v2/models/NAME)
  --version V          its version, reported in answers
  --framework F        sklearn | xgboost | pytorch | onnx
  --path P             the model file or directory (relative: under
                       $CUBE_PROJECT_DIR, the project's data)
  --sha256 HEX         refuse to load a file whose SHA-256 differs (the
                       digest the registry recorded); "" skips the check
  --batch-max N        batching: up to N rows of concurrent requests are
                       predicted in one call (1: no batching)
  --batch-wait-ms MS   how long the first request of a batch waits for more
  --service P/N        the InferenceService: the server makes a secret, reports
                       it to cubed with the Job's CUBE_TOKEN (POST .../register,
                       accepted once per Job) and answers only requests that
                       carry it (X-Cube-Serving-Token, which cubed's proxy adds);
                       without it (a bare run) every request is answered

Routes: GET /v2/health/live, /v2/health/ready, /v2, /v2/models/NAME,
/v2/models/NAME/ready; POST /v2/models/NAME/infer ({"inputs": [{"name",
"shape", "datatype", "data"}]}) and POST /v1/models/NAME:predict
({"instances": [...]}). A request of the wrong shape or type is answered 400
with {"error": "..."} naming what is wrong. A model that does not load
ends the process with status 2 and one line on stderr saying why (the
controller shows it in the service's events)."""
import argparse
import hashlib
import hmac
import secrets
import http.server
import json
import os
import queue
import socketserver
import sys
import threading
import time
import uuid


class BadRequest(Exception):
    pass


def fail(msg):
    sys.stderr.write("cube-serving: " + msg + "\n")
    sys.stderr.flush()
    sys.exit(2)


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def model_file(path, framework):
    """The file to load: path itself, or the one model file in a directory."""
    if not os.path.isdir(path):
        return path
    exts = {"sklearn": (".joblib", ".pkl", ".pickle"), "xgboost": (".json", ".ubj", ".bin", ".model", ".pkl", ".joblib"),
            "pytorch": (".pt", ".pth", ".torchscript"), "onnx": (".onnx",)}[framework]
    found = sorted(f for f in os.listdir(path) if f.endswith(exts))
    if not found:
        fail(f"no {framework} model file ({', '.join(exts)}) in directory {path}")
    return os.path.join(path, found[0])


# The model bundles of the pipeline plugin's training templates
# (plugins/pipeline/templates/_lib/cube_data.py).
BUNDLE_FORMAT = "cube-model/1"            # joblib: scikit-learn estimators
BUNDLE_JSON_FORMAT = "cube-model-json/1"   # JSON: XGBoost's model inside


class Model:
    """A loaded model: predict(rows) -> list of outputs, n_features or None."""

    def __init__(self, framework, path):
        import numpy
        self.np = numpy
        self.framework = framework
        self.n_features = None
        self.out_type = "FP64"
        loader = getattr(self, "_load_" + framework, None)
        if loader is None:
            fail(f"framework {framework!r} has no built-in runtime")
        try:
            loader(path)
        except SystemExit:
            raise
        except Exception as e:  # any failure to load is the model's fault
            fail(f"model {path} does not load as {framework}: {type(e).__name__}: {e}")

    def _load_sklearn(self, path):
        import joblib
        self.m = joblib.load(path)
        if isinstance(self.m, dict) and self.m.get("format") == BUNDLE_FORMAT:
            return self._bundle(self.m, self.m.get("model"))
        if not hasattr(self.m, "predict"):
            raise TypeError(f"{type(self.m).__name__} has no predict()")
        self.n_features = getattr(self.m, "n_features_in_", None)
        self.run = self.m.predict

    def _bundle(self, bundle, model):
        """What a pipeline's training template saved (a dict: the fitted
        `model`, which predicts class indices 0..n-1; `features`, the
        columns in training order; `classes`, the label values, index i <->
        predicted i; `cluster_classes`, a clusterer's cluster -> class
        index): answers are the label values, as the evaluation template
        reports them."""
        if not hasattr(model, "predict"):
            raise TypeError(f"the bundle's model ({type(model).__name__}) has no predict()")
        np = self.np
        features = bundle.get("features")
        self.n_features = len(features) if features else getattr(model, "n_features_in_", None)
        clusters = bundle.get("cluster_classes")
        classes = bundle.get("classes")
        clusters = np.asarray(clusters) if clusters is not None else None
        classes = np.asarray(classes) if classes else None

        def run(x):
            y = np.asarray(model.predict(x))
            if clusters is not None:
                y = clusters[y.astype("int64")]
            if classes is not None:
                y = classes[y.astype("int64")]
            return y
        self.run = run
        if classes is not None:
            self.out_type = datatype_of(classes)

    def _load_xgboost(self, path):
        import xgboost
        doc = None
        if path.endswith(".json"):      # XGBoost's own JSON, or a template's bundle
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        if isinstance(doc, dict) and doc.get("format") == BUNDLE_JSON_FORMAT:
            m = xgboost.XGBClassifier()
            m.load_model(bytearray(json.dumps(doc["model"]).encode("utf-8")))
            return self._bundle(doc, m)
        if path.endswith((".json", ".ubj", ".bin", ".model")):
            b = xgboost.Booster()
            b.load_model(path)
            self.n_features = b.num_features() or None
            self.run = lambda x: b.predict(xgboost.DMatrix(x))
        else:
            import joblib
            self.m = joblib.load(path)
            self.n_features = getattr(self.m, "n_features_in_", None)
            self.run = self.m.predict

    def _load_pytorch(self, path):
        import torch
        torch.set_num_threads(1)
        m = torch.jit.load(path, map_location="cpu")
        m.eval()

        def run(x):
            with torch.no_grad():
                y = m(torch.as_tensor(x, dtype=torch.float32))
            return y.numpy()
        self.run = run

    def _load_onnx(self, path):
        import onnxruntime
        s = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        name = s.get_inputs()[0].name
        shape = s.get_inputs()[0].shape
        self.n_features = shape[1] if len(shape) == 2 and isinstance(shape[1], int) else None
        self.run = lambda x: s.run(None, {name: x.astype("float32")})[0]

    def rows(self, data, shape):
        """The request's rows as a 2-D float array; BadRequest naming the problem."""
        np = self.np
        try:
            x = np.asarray(data, dtype="float64")
        except (TypeError, ValueError) as e:
            raise BadRequest(f"data is not numeric: {e}")
        if shape is not None:
            if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
                raise BadRequest("shape must be a list of non-negative integers")
            if int(np.prod(shape)) != x.size:
                raise BadRequest(f"shape {shape} holds {int(np.prod(shape))} values, data has {x.size}")
            x = x.reshape(shape)
        if x.ndim == 1:
            x = x.reshape(1, -1)
        if x.ndim != 2:
            raise BadRequest(f"expected rows of features (2 dimensions), got {x.ndim}")
        if self.n_features is not None and x.shape[1] != self.n_features:
            raise BadRequest(f"expected {self.n_features} features per row, got {x.shape[1]}")
        return x

    def predict(self, x):
        y = self.np.asarray(self.run(x))
        return y


class Batcher:
    """Gathers the rows of concurrent requests into one predict call."""

    def __init__(self, model, max_rows, wait_s):
        self.model, self.max_rows, self.wait_s = model, max_rows, wait_s
        self.q = queue.Queue()
        threading.Thread(target=self.loop, daemon=True).start()

    def predict(self, x):
        item = [x, threading.Event(), None, None]
        self.q.put(item)
        item[1].wait()
        if item[3] is not None:
            raise item[3]
        return item[2]

    def loop(self):
        np = self.model.np
        while True:
            batch = [self.q.get()]
            rows = len(batch[0][0])
            deadline = time.monotonic() + self.wait_s
            while rows < self.max_rows:
                left = deadline - time.monotonic()
                try:
                    item = self.q.get(timeout=left) if left > 0 else self.q.get_nowait()
                except queue.Empty:
                    break
                batch.append(item)
                rows += len(item[0])
            try:
                y = self.model.predict(np.vstack([b[0] for b in batch]))
                at = 0
                for b in batch:
                    b[2] = y[at:at + len(b[0])]
                    at += len(b[0])
            except Exception as e:
                for b in batch:
                    b[3] = e
            for b in batch:
                b[1].set()


def datatype_of(y):
    k = y.dtype.kind
    return {"i": "INT64", "u": "UINT64", "b": "BOOL", "f": "FP64"}.get(k, "BYTES")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "cube-serving/1"
    # The head and the body leave in one send (written to a buffer that
    # answer() flushes), and with TCP_NODELAY: written apart without it,
    # the body's segment waited for the caller's delayed ACK of the head's
    # (40 ms on Linux), which capped a connection at ~25 answers a second.
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):  # the proxy keeps the access log
        pass

    def allowed(self):
        tok = self.server.token
        if tok is None or hmac.compare_digest(self.headers.get("X-Cube-Serving-Token", ""), tok):
            return True
        self.answer(403, {"error": "only cubed's proxy may call this server"})
        return False

    def answer(self, status, doc):
        body = json.dumps(doc, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()      # now: a refusal goes out before its body is read

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n > self.server.max_body:
            raise BadRequest(f"body of {n} bytes is larger than {self.server.max_body}")
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError as e:
            raise BadRequest(f"body is not JSON: {e}")

    def do_GET(self):
        s = self.server
        if not self.allowed():
            return
        path = self.path.split("?", 1)[0].rstrip("/")
        base = "/v2/models/" + s.name
        if path in ("/v2/health/live", "/v2/health/ready", base + "/ready", "/v1/models/" + s.name):
            self.answer(200, {"live": True} if path.endswith("live") else {"ready": True, "name": s.name})
        elif path in ("/v2", ""):
            self.answer(200, {"name": "cube-serving", "version": "1", "extensions": []})
        elif path == base or path == base + "/versions/" + s.version:
            nf = s.model.n_features
            self.answer(200, {"name": s.name, "versions": [s.version], "platform": s.platform,
                              "inputs": [{"name": "input-0", "datatype": "FP64", "shape": [-1, nf if nf else -1]}],
                              "outputs": [{"name": "predict", "datatype": s.model.out_type, "shape": [-1]}]})
        else:
            self.answer(404, {"error": f"no route {path}; the model is {s.name}"})

    def do_POST(self):
        s = self.server
        if not self.allowed():
            n = int(self.headers.get("Content-Length") or 0)
            if n <= s.max_body:
                self.rfile.read(n)
            return
        path = self.path.split("?", 1)[0]
        try:
            if path in ("/v2/models/%s/infer" % s.name, "/v2/models/%s/versions/%s/infer" % (s.name, s.version)):
                self.v2(self.body())
            elif path == "/v1/models/%s:predict" % s.name:
                self.v1(self.body())
            else:
                self.answer(404, {"error": f"no route {path}; the model is {s.name}"})
        except BadRequest as e:
            self.answer(400, {"error": str(e)})
        except Exception as e:
            self.answer(500, {"error": f"predict failed: {type(e).__name__}: {e}"})

    def predict(self, x):
        s = self.server
        return s.batcher.predict(x) if s.batcher else s.model.predict(x)

    def v2(self, doc):
        inputs = doc.get("inputs") if isinstance(doc, dict) else None
        if not isinstance(inputs, list) or len(inputs) != 1 or not isinstance(inputs[0], dict):
            raise BadRequest("inputs: expected a list of one tensor {name, shape, datatype, data}")
        t = inputs[0]
        if t.get("datatype", "FP64") not in ("FP64", "FP32", "FP16", "INT64", "INT32", "INT16", "INT8",
                                             "UINT64", "UINT32", "UINT16", "UINT8", "BOOL"):
            raise BadRequest(f"inputs[0].datatype: {t.get('datatype')!r} is not a numeric type")
        if "data" not in t:
            raise BadRequest("inputs[0].data: missing")
        x = self.server.model.rows(t["data"], t.get("shape"))
        y = self.predict(x)
        out = {"name": "predict", "shape": list(y.shape), "datatype": datatype_of(y),
               "data": y.reshape(-1).tolist()}
        self.answer(200, {"model_name": self.server.name, "model_version": self.server.version,
                          "id": doc.get("id") or str(uuid.uuid4()), "outputs": [out]})

    def v1(self, doc):
        inst = doc.get("instances") if isinstance(doc, dict) else None
        if not isinstance(inst, list) or not inst:
            raise BadRequest("instances: expected a non-empty list of rows")
        y = self.predict(self.server.model.rows(inst, None))
        self.answer(200, {"predictions": y.tolist()})


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 256
    allow_reuse_address = True


def register(service):
    """Reports the server's secret to cubed; the secret (or exits)."""
    import urllib.request
    tok = secrets.token_hex(32)
    project, name = service.split("/", 1)
    api = os.environ.get("CUBE_API", "").rstrip("/")
    if not api or not os.environ.get("CUBE_TOKEN") or not os.environ.get("CUBE_JOB"):
        fail("--service needs CUBE_API, CUBE_TOKEN and CUBE_JOB (run as a Job of the service)")
    if not api.endswith("/api/v1"):
        api += "/api/v1"
    body = json.dumps({"job": os.environ["CUBE_JOB"], "token": tok}).encode()
    req = urllib.request.Request(f"{api}/projects/{project}/inferenceservices/{name}/register",
                                 data=body, method="POST",
                                 headers={"Content-Type": "application/json",
                                          "Authorization": "Bearer " + os.environ["CUBE_TOKEN"]})
    try:
        with urllib.request.urlopen(req, timeout=30):
            pass
    except Exception as e:
        fail(f"cubed refused this replica's secret: {e}")
    return tok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--name", required=True)
    ap.add_argument("--version", default="1")
    ap.add_argument("--framework", required=True)
    ap.add_argument("--path", required=True)
    ap.add_argument("--sha256", default="")
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=int(os.environ.get("CUBE_PORT_HTTP") or 0))
    ap.add_argument("--batch-max", type=int, default=1)
    ap.add_argument("--batch-wait-ms", type=float, default=2.0)
    ap.add_argument("--max-body", type=int, default=64 << 20)
    ap.add_argument("--service", default="")
    a = ap.parse_args()
    if not a.port:
        fail("no port: --port or CUBE_PORT_HTTP")
    path = a.path
    if not os.path.isabs(path):
        path = os.path.join(os.environ.get("CUBE_PROJECT_DIR") or ".", path)
    if not os.path.exists(path):
        fail(f"model path {a.path} does not exist (looked at {path})")
    path = model_file(path, a.framework) if a.framework in ("sklearn", "xgboost", "pytorch", "onnx") else path
    if a.sha256 and not os.path.isdir(path):
        got = sha256_of(path)
        if got != a.sha256.lower():
            fail(f"model file {a.path} has SHA-256 {got}, the registry recorded {a.sha256}: not loaded")
    model = Model(a.framework, path)
    srv = Server((a.bind, a.port), Handler)
    srv.name, srv.version, srv.model, srv.max_body = a.name, a.version, model, a.max_body
    srv.platform = {"sklearn": "sklearn", "xgboost": "xgboost", "pytorch": "pytorch_torchscript",
                    "onnx": "onnxruntime_onnx"}[a.framework]
    srv.token = register(a.service) if a.service else None
    srv.batcher = Batcher(model, a.batch_max, a.batch_wait_ms / 1000.0) if a.batch_max > 1 else None
    print(f"cube-serving: {a.framework} model {a.name} v{a.version} on {a.bind}:{a.port}"
          f"{' batching up to %d rows' % a.batch_max if srv.batcher else ''}", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
