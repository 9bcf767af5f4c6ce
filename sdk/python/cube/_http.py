"""A small HTTP/1.1 client connection for whole answers: one request
written in one send, the answer read with Content-Length or chunked
framing. It does for a call what http.client does at a fraction of the
cost per request (no email-package header parsing, no extra send for the
body; TCP_NODELAY), which a loop of thousands of calls feels. Streams
(watches, followed logs) still use http.client."""
from __future__ import annotations

import socket

TYPE_CHECKING = False   # typing is not imported at run time: `import cube` stays fast
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List, Optional, Tuple

MAX_HEAD = 64 * 1024


class ServerClosed(ConnectionResetError):
    """The server closed the connection before (all of) its answer came."""


class CutOff(ConnectionAbortedError):
    """The connection ended in the middle of an answer (some of it came:
    the request was seen, so it is not sent again unless idempotent)."""


class ProtocolError(OSError):
    """Bytes that are not an HTTP/1.x answer."""


class Conn:
    """One kept-alive connection to host:port (TLS when ssl_ctx)."""

    def __init__(self, host: str, port: int, timeout: float, ssl_ctx: Any = None) -> None:
        self.host, self.port, self.timeout, self.ssl_ctx = host, port, timeout, ssl_ctx
        self.sock: Optional[socket.socket] = None
        self.buf = b""
        self.started = False      # some of the current answer has come

    def connect(self) -> None:
        s = socket.create_connection((self.host, self.port), self.timeout)
        try:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.ssl_ctx is not None:
                s = self.ssl_ctx.wrap_socket(s, server_hostname=self.host)
        except BaseException:
            s.close()
            raise
        self.sock = s

    def settimeout(self, timeout: float) -> None:
        self.timeout = timeout
        if self.sock is not None:
            self.sock.settimeout(timeout)

    def close(self) -> None:
        s, self.sock, self.buf = self.sock, None, b""
        if s is not None:
            s.close()

    def _more(self) -> bytes:
        assert self.sock is not None
        data = self.sock.recv(262144)
        if not data:
            if self.started:
                raise CutOff("the server closed the connection in the middle of its answer")
            raise ServerClosed("the server closed the connection")
        self.started = True
        return data

    def roundtrip(self, head: bytes, body: Optional[bytes],
                  no_body: bool) -> Tuple[int, Dict[str, str], bytes, bool]:
        """Sends head (and body); returns (status, headers with lower-case
        names, body, whether the server will close the connection)."""
        if self.sock is None:
            self.connect()
        assert self.sock is not None
        self.sock.sendall(head + body if body else head)
        buf = self.buf
        self.started = bool(buf)
        while True:
            end = buf.find(b"\r\n\r\n")
            if end >= 0:
                break
            if len(buf) > MAX_HEAD:
                raise ProtocolError("the answer's header is over 64 KiB")
            buf += self._more()
        lines = buf[:end].decode("latin-1").split("\r\n")
        buf = buf[end + 4:]
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise ProtocolError(f"not an HTTP answer: {lines[0][:80]!r}")
        status = int(parts[1])
        headers: Dict[str, str] = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        close = headers.get("connection", "").lower() == "close" or (
            parts[0] == "HTTP/1.0" and headers.get("connection", "").lower() != "keep-alive")
        if no_body or status in (204, 304) or 100 <= status < 200:
            data = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            data, buf = self._chunked(buf)
        elif "content-length" in headers:
            try:
                n = int(headers["content-length"])
            except ValueError:
                raise ProtocolError("a bad Content-Length") from None
            while len(buf) < n:
                buf += self._more()
            data, buf = buf[:n], buf[n:]
        else:                                   # to the end of the connection
            chunks = [buf]
            try:
                while True:
                    chunks.append(self._more())
            except (ServerClosed, CutOff):
                pass
            data, buf, close = b"".join(chunks), b"", True
        self.buf = buf
        if close:
            self.close()
        return status, headers, data, close

    def _chunked(self, buf: bytes) -> Tuple[bytes, bytes]:
        out: List[bytes] = []
        while True:
            while b"\r\n" not in buf:
                buf += self._more()
            line, buf = buf.split(b"\r\n", 1)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise ProtocolError(f"a bad chunk size {line[:20]!r}") from None
            if size == 0:
                while b"\r\n\r\n" not in b"\r\n" + buf:   # trailers, then the blank line
                    buf += self._more()
                i = (b"\r\n" + buf).find(b"\r\n\r\n")
                return b"".join(out), buf[i + 2:]
            while len(buf) < size + 2:
                buf += self._more()
            out.append(buf[:size])
            buf = buf[size + 2:]
