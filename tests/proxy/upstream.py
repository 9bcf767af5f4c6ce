"""upstream — a small HTTP/1.1 server for the proxy tests (stdlib only).

Every request is recorded (method, path, headers, body digest); answers:
  /stream      5 chunks 200 ms apart (chunked transfer encoding)
  /close       a body delimited by closing the connection (no length)
  /big?n=N     N bytes of a repeating pattern, with Content-Length
  /ws          a WebSocket that greets ("welcome") and echoes every message
  /hang        never answers (holds the request for a minute)
  /garbage     answers something that is not HTTP
  /hangup      closes the connection without answering
  anything     JSON describing the request it got (?set=cube: it also tries
               to set Cube's own cookies)
"""
import base64
import hashlib
import json
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def read_exact(f, n):
    data = b""
    while len(data) < n:
        chunk = f.read(n - len(data))
        if not chunk:
            raise EOFError("connection closed")
        data += chunk
    return data


def ws_read_frame(f):
    """One frame from the client: (opcode, payload). Client frames are masked."""
    b1, b2 = read_exact(f, 2)
    opcode, n = b1 & 0x0F, b2 & 0x7F
    if n == 126:
        n = struct.unpack("!H", read_exact(f, 2))[0]
    elif n == 127:
        n = struct.unpack("!Q", read_exact(f, 8))[0]
    mask = read_exact(f, 4) if b2 & 0x80 else b"\0\0\0\0"
    data = read_exact(f, n)
    return opcode, bytes(c ^ mask[i % 4] for i, c in enumerate(data))


def ws_frame(opcode, payload):
    """An unmasked server frame."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, n)
    return head + payload


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # as real servers (Tornado) do

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        self.server.connections += 1

    def body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", ""):
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    return data
                data += read_exact(self.rfile, size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length", 0))
        return read_exact(self.rfile, n) if n else b""

    def answer(self, status, body, ctype="application/json", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Set-Cookie", "up1=a; Path=/")
        self.send_header("Set-Cookie", "up2=b; Path=/")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def describe(self):
        try:
            body = self.body()
        except (ValueError, EOFError):  # the proxy cut a refused body short
            self.close_connection = True
            return
        rec = {"method": self.command, "path": self.path,
               "headers": [[k, v] for k, v in self.headers.items()],
               "body_len": len(body), "body_sha256": hashlib.sha256(body).hexdigest()}
        self.server.requests.append(rec)
        planted = [("Set-Cookie", "cube_session=planted; Path=/"),
                   ("Set-Cookie", " cube_app=planted; Path=/")] if "set=cube" in self.path else []
        self.answer(200, json.dumps(rec).encode(), extra=planted)

    def stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i in range(5):
            data = f"tick {i} {time.time():.3f}\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
            time.sleep(0.2)
        self.wfile.write(b"0\r\n\r\n")

    def close_delimited(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(b"until the end" * 1000)
        self.close_connection = True

    def websocket(self):
        key = self.headers.get("Sec-WebSocket-Key", "")
        self.server.requests.append({"method": "WS", "path": self.path,
                                     "headers": [[k, v] for k, v in self.headers.items()]})
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        self.end_headers()
        # the greeting goes out with the 101: the proxy must pass on bytes
        # that arrive together with the answer head
        self.wfile.write(ws_frame(1, b"welcome"))
        self.wfile.flush()
        try:
            while True:
                opcode, data = ws_read_frame(self.rfile)
                if opcode == 8:
                    self.wfile.write(ws_frame(8, data[:2]))
                    break
                if opcode == 9:
                    self.wfile.write(ws_frame(10, data))
                else:
                    self.wfile.write(ws_frame(opcode, data))
                self.wfile.flush()
        except (EOFError, ConnectionError):
            pass
        self.close_connection = True

    def dispatch(self):
        tail = self.path.split("?")[0].rsplit("/", 1)[-1]
        if tail == "stream":
            try:
                return self.stream()
            except ConnectionError:  # the proxy went away (shutdown test)
                self.close_connection = True
                return None
        if tail == "close":
            return self.close_delimited()
        if tail == "ws" and self.headers.get("Upgrade", "").lower() == "websocket":
            return self.websocket()
        if tail in ("garbage", "hangup"):
            if tail == "garbage":
                self.wfile.write(b"SPDY/9 what\r\n\r\n")
            self.close_connection = True
            return None
        if tail == "hang":
            time.sleep(60)
            self.close_connection = True
            return None
        if tail == "big":
            n = int(self.path.split("n=")[1]) if "n=" in self.path else 1 << 20
            return self.answer(200, (b"0123456789abcdef" * (n // 16 + 1))[:n],
                               "application/octet-stream")
        self.describe()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = dispatch


class Upstream:
    """Starts the server on a free loopback port in a thread."""

    def __init__(self):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.requests = []
        self.httpd.connections = 0
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def requests(self):
        return self.httpd.requests

    @property
    def connections(self):
        return self.httpd.connections

    def last(self):
        return self.httpd.requests[-1]

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def dead_port():
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
