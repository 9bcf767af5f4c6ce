"""serving_baseline.py — the peer of serving.sh's built-in runtime: the
least a Python model server does, a stdlib ThreadingHTTPServer answering
POST /v2/models/NAME/infer with the same predict on the same pickle, in
the same v2 JSON form (model_name, model_version, id, outputs), with no
checks beyond what the predict itself needs. Like the runtime it writes
each answer in one send with TCP_NODELAY (two attributes of the stdlib
handler).

    python3 serving_baseline.py --path model.joblib --port N [--name NAME]

Prints "ready" on stdout once it listens. Not a pass/fail test."""
import argparse
import http.server
import json
import socketserver
import uuid

import joblib
import numpy


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # as the runtime: the answer in one send, TCP_NODELAY (stdlib settings;
    # without them each answer waits for the client's delayed ACK)
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):
        pass

    def send(self, status, doc):
        body = json.dumps(doc, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def do_GET(self):
        self.send(200, {"ready": True})

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        doc = json.loads(self.rfile.read(n) or b"{}")
        t = doc["inputs"][0]
        x = numpy.asarray(t["data"], dtype="float64").reshape(t["shape"])
        y = numpy.asarray(self.server.model.predict(x))
        self.send(200, {"model_name": self.server.name, "model_version": "1",
                        "id": doc.get("id") or str(uuid.uuid4()),
                        "outputs": [{"name": "predict", "shape": list(y.shape),
                                     "datatype": "INT64" if y.dtype.kind == "i" else "FP64",
                                     "data": y.reshape(-1).tolist()}]})


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 256
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--path", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--name", default="model")
    a = ap.parse_args()
    srv = Server(("127.0.0.1", a.port), Handler)
    srv.model, srv.name = joblib.load(a.path), a.name
    print("ready", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
