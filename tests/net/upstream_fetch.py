"""upstream_fetch — the local HTTP server the fetch tests reach (stdlib only).
  /hello          "hello" (text/plain)
  /echo           the request body back (POST), with the method in X-Method
  /headers        the request's headers as JSON
  /stream         5 chunks "part-N;" 100 ms apart (chunked)
  /slow           answers after 3 s
  /big?n=N        N bytes of "x"
  /redirect?to=U  302 to U
"""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, body, ctype="text/plain", extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        u = urlsplit(self.path)
        q = parse_qs(u.query)
        if u.path == "/hello":
            return self.send(200, b"hello")
        if u.path == "/headers":
            return self.send(200, json.dumps({k.lower(): v for k, v in self.headers.items()}).encode(),
                             "application/json")
        if u.path == "/stream":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(5):
                part = ("part-%d;" % i).encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                self.wfile.flush()
                time.sleep(0.1)
            self.wfile.write(b"0\r\n\r\n")
            return
        if u.path == "/slow":
            time.sleep(3)
            return self.send(200, b"late")
        if u.path == "/big":
            return self.send(200, b"x" * int(q["n"][0]))
        if u.path == "/redirect":
            return self.send(302, b"", extra=[("Location", q["to"][0])])
        self.send(404, b"no such path")

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        self.send(200, body, "application/json", [("X-Method", self.command)])

    do_PUT = do_POST


class Upstream:
    def __init__(self):
        self.srv = ThreadingHTTPServer(("0.0.0.0", 0), Handler)
        self.srv.daemon_threads = True
        self.port = self.srv.server_address[1]
        self.thread = threading.Thread(target=self.srv.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.srv.shutdown()
        self.srv.server_close()


if __name__ == "__main__":
    up = Upstream()
    print(up.port, flush=True)
    threading.Event().wait()
