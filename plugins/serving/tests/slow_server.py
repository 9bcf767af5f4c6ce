"""A custom model server for the autoscaling tests: answers the v2 health
routes at once and every POST after --delay seconds, with the Job that
answered ({"model_version": "1", "job": $CUBE_JOB}), so that concurrency
builds up and which replica served is visible. Listens on
127.0.0.1:$CUBE_PORT_HTTP, the port the executor allocated."""
import http.server
import json
import os
import socketserver
import sys
import time

DELAY = float(sys.argv[sys.argv.index("--delay") + 1]) if "--delay" in sys.argv else 0.3


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, doc):
        body = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.send({"ready": True})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        time.sleep(DELAY)
        self.send({"model_version": "1", "job": os.environ.get("CUBE_JOB", ""),
                   "outputs": [{"name": "y", "shape": [1], "datatype": "INT64", "data": [0]}]})


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 128


S(("127.0.0.1", int(os.environ["CUBE_PORT_HTTP"])), H).serve_forever()
