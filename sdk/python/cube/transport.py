"""HTTP to one Cube server: keep-alive connections (one per thread), a
timeout on every call, retries with back-off and jitter, typed errors.

Retried until the deadline (``retry_deadline``, 30 s by default): a 503 or
429 answer (after ``Retry-After`` when the server sends one), a refused
connection (nothing was sent; for 5 s at most: a restarting server, not a
wrong port), and for idempotent calls (GET, HEAD, PUT,
DELETE) a dropped connection or a 502/504 from a proxy. A kept-alive
connection the server closed while idle is reopened once for any call.
http.client and ssl are imported on the first call, not with the package.
"""
from __future__ import annotations

import json
import _thread
import time

from ._version import __version__
from ._http import Conn, ProtocolError
from .errors import BadResponse, ConfigError, Error, Timeout, Unavailable, from_response

TYPE_CHECKING = False   # typing is not imported at run time: `import cube` stays fast
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List, Mapping, Optional, Tuple

IDEMPOTENT = frozenset(("GET", "HEAD", "PUT", "DELETE", "OPTIONS"))
IDLE_REOPEN_S = 10.0      # a kept-alive connection idle this long is reopened
REFUSED_DEADLINE_S = 5.0  # refused connections are retried this long at most


class Response:
    """A whole answer: ``status``, ``headers`` (lower-case names), ``data``."""

    __slots__ = ("status", "headers", "data", "method", "url")

    def __init__(self, status: int, headers: Dict[str, str], data: bytes, method: str,
                 url: str) -> None:
        self.status, self.headers, self.data = status, headers, data
        self.method, self.url = method, url

    @property
    def ctype(self) -> str:
        return self.headers.get("content-type", "")

    def json(self) -> Any:
        if not self.data:
            return {}
        if "json" not in self.ctype:
            raise from_response(self.method, self.url, 0, self.ctype, self.data) \
                if "html" in self.ctype else BadResponse(
                    f"expected JSON, got {self.ctype or 'no content type'}",
                    method=self.method, url=self.url)
        try:
            return json.loads(self.data)
        except ValueError as e:
            raise BadResponse(f"the answer is not valid JSON ({e})", status=self.status,
                              method=self.method, url=self.url) from None

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def segment(s: str) -> str:
    """s percent-encoded but for RFC 3986's unreserved characters: a path
    segment or a query value (names are checked before; this is a belt)."""
    if all(c in _UNRESERVED for c in s):
        return s
    return "".join(chr(b) if chr(b) in _UNRESERVED else f"%{b:02X}" for b in s.encode("utf-8"))


def split_server(server: str) -> Tuple[str, str, int, str]:
    """(scheme, host, port, path prefix) of an http(s) URL; ConfigError
    for anything else (credentials, a query, a bad port)."""
    bad = ConfigError(f"the server must be an http:// or https:// URL such as "
                      f"https://cube.example.com, got {server!r}")
    scheme, sep, rest = server.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in ("http", "https") or any(c in rest for c in "?# \t\r\n"):
        raise bad
    hostport, slash, path = rest.partition("/")
    if "@" in hostport:
        raise ConfigError("the server URL holds credentials (user@): give a token instead")
    if hostport.startswith("["):
        host, _, after = hostport[1:].partition("]")
        port = after[1:] if after.startswith(":") else ("" if not after else "x")
    else:
        host, _, port = hostport.partition(":")
    if not host or (port and (not port.isdigit() or not 0 < int(port) < 65536)):
        raise bad
    return scheme, host, int(port) if port else (443 if scheme == "https" else 80), \
        ("/" + path).rstrip("/") if slash else ""


class Transport:
    """Requests to one server as one caller (bearer token)."""

    def __init__(self, server: str, token: Optional[str] = None, *, timeout: float = 30.0,
                 retry_deadline: float = 30.0, ca_file: Optional[str] = None,
                 verify: bool = True) -> None:
        self.scheme, self.host, self.port, self.prefix = split_server(server)
        self.server = server.rstrip("/")
        self.token, self.timeout, self.retry_deadline = token, timeout, retry_deadline
        self.ca_file, self.verify = ca_file, verify
        self._ssl: Any = None
        self.retries = 0          # calls sent again (503, 429, dropped connections)
        # thread id -> [connection, last used (monotonic), served a call]
        self._pool: Dict[int, List[Any]] = {}
        if token and (any(c in token for c in "\r\n\0") or token != token.strip()):
            raise ConfigError("the token holds white space or control characters: is it the "
                              "whole token, on one line?")
        host = self.host if ":" not in self.host else f"[{self.host}]"
        self.headers = {"Host": f"{host}:{self.port}",
                        "User-Agent": f"cube-python/{__version__}",
                        "Accept": "application/json"}
        if token:
            self.headers["Authorization"] = "Bearer " + token
        self._fixed = "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())

    # -- connections --------------------------------------------------------

    def _ssl_ctx(self) -> Any:
        if self.scheme == "http":
            return None
        if self._ssl is None:
            import ssl
            ctx = ssl.create_default_context(cafile=self.ca_file)
            if not self.verify:
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
            self._ssl = ctx
        return self._ssl

    def _new_conn(self, timeout: float) -> Any:
        """An http.client connection, for streams."""
        import http.client
        if self.scheme == "http":
            return http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        return http.client.HTTPSConnection(self.host, self.port, timeout=timeout,
                                           context=self._ssl_ctx())

    def _pooled(self, timeout: float) -> Tuple[Any, bool]:
        """This thread's connection and whether it served a call before."""
        slot = self._pool.get(_thread.get_ident())
        if slot is not None and time.monotonic() - slot[1] > IDLE_REOPEN_S:
            slot[0].close()
            slot = None
        if slot is None:
            conn = Conn(self.host, self.port, timeout, self._ssl_ctx())
            slot = self._pool[_thread.get_ident()] = [conn, 0.0, False]
        slot[0].settimeout(timeout)
        return slot[0], slot[2]

    def _used(self) -> None:
        slot = self._pool.get(_thread.get_ident())
        if slot is not None:
            slot[1], slot[2] = time.monotonic(), True

    def _drop(self) -> None:
        slot = self._pool.pop(_thread.get_ident(), None)
        if slot is not None:
            slot[0].close()

    def close(self) -> None:
        """Closes the kept-alive connections (every thread's)."""
        pool, self._pool = self._pool, {}
        for slot in pool.values():
            slot[0].close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:   # at interpreter exit, best effort
            pass

    # -- requests -----------------------------------------------------------

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        return self.server + path + self._query(query)

    @staticmethod
    def _query(query: Optional[Mapping[str, Any]]) -> str:
        if not query:
            return ""
        q = {k: ("true" if v is True else v) for k, v in query.items()
             if v is not None and v is not False and v != ""}
        return "?" + "&".join(f"{segment(str(k))}={segment(str(v))}"
                              for k, v in q.items()) if q else ""

    def _body(self, body: Any, headers: Dict[str, str]) -> Optional[bytes]:
        if body is None:
            return None
        if isinstance(body, bytes):
            return body
        if isinstance(body, str):
            headers.setdefault("Content-Type", "text/plain; charset=utf-8")
            return body.encode("utf-8")
        headers.setdefault("Content-Type", "application/json")
        try:
            return json.dumps(body, separators=(",", ":"), allow_nan=False).encode("utf-8")
        except (TypeError, ValueError) as e:
            raise TypeError(f"the request body cannot be sent as JSON: {e}") from None

    def request(self, method: str, path: str, *, query: Optional[Mapping[str, Any]] = None,
                body: Any = None, headers: Optional[Mapping[str, str]] = None,
                timeout: Optional[float] = None, ok404: bool = False) -> Response:
        """One call; returns the 2xx answer, raises the typed error for
        any other (a 404 is returned as is when ok404)."""
        h = dict(headers) if headers else {}
        data = self._body(body, h)
        q = self._query(query)
        target, url = self.prefix + path + q, self.server + path + q
        for k, v in h.items():
            if any(c in f"{k}{v}" for c in "\r\n\0"):
                raise ValueError(f"header {k!r} holds a line break")
        if any(c in target for c in " \r\n\0"):
            raise ValueError(f"the path {target!r} holds a space or a line break")
        extra = "".join(f"{k}: {v}\r\n" for k, v in h.items() if k not in self.headers)
        over = {k: v for k, v in h.items() if k in self.headers}
        fixed = self._fixed if not over else "".join(
            f"{k}: {over.get(k, v)}\r\n" for k, v in self.headers.items())
        head = (f"{method} {target} HTTP/1.1\r\n{fixed}{extra}"
                f"Content-Length: {len(data) if data is not None else 0}\r\n\r\n"
                if data is not None or method in ("POST", "PUT", "PATCH") else
                f"{method} {target} HTTP/1.1\r\n{fixed}{extra}\r\n").encode("utf-8")
        t = self.timeout if timeout is None else timeout
        t0 = time.monotonic()
        resp: Response = self._retrying(method, url, t,
                                        lambda: self._once(method, head, data, t, url))
        if 200 <= resp.status < 300 or (ok404 and resp.status == 404):
            return resp
        spent = time.monotonic() - t0
        raise from_response(method, url, resp.status, resp.ctype, resp.data,
                            f"retried for {spent:.1f} s" if spent > 0.05 and
                            resp.status in (429, 502, 503, 504) else "")

    def _once(self, method: str, head: bytes, data: Optional[bytes], timeout: float,
              url: str) -> Response:
        conn, reused = self._pooled(timeout)
        try:
            status, hdrs, raw, closed = conn.roundtrip(head, data, method == "HEAD")
        except BaseException as e:
            self._drop()
            e.reused = reused        # type: ignore[attr-defined]
            raise
        if closed:
            self._drop()
        else:
            self._used()
        if hdrs.get("content-encoding") == "gzip":
            import gzip
            raw = gzip.decompress(raw)
        return Response(status, hdrs, raw, method, url)

    def _retrying(self, method: str, url: str, timeout: float, once: Any) -> Any:
        start = time.monotonic()
        attempt = 0
        last_err: Optional[BaseException] = None
        while True:
            attempt += 1
            limit = self.retry_deadline
            try:
                resp = once()
            except Exception as e:          # connection-level failure
                err, retry = self._classify(e, method, url, attempt, timeout)
                last_err = err
                if not retry:
                    raise err from None
                wait = _backoff(attempt)
                if isinstance(e, ConnectionRefusedError):
                    limit = min(limit, REFUSED_DEADLINE_S)   # a restart, not a typo
            else:
                status = getattr(resp, "status", 200)
                retry_status = status in (503, 429) or (
                    status in (502, 504) and method in IDEMPOTENT)
                if not retry_status:
                    return resp
                wait = max(_backoff(attempt), _retry_after(resp))
                last_err = None
                last_resp = resp
            elapsed = time.monotonic() - start
            if elapsed + wait > limit:
                if last_err is not None:
                    raise last_err
                return last_resp
            self.retries += 1
            time.sleep(wait)

    def _classify(self, e: Exception, method: str, url: str, attempt: int,
                  timeout: float) -> Tuple[Error, bool]:
        import http.client
        import socket
        if isinstance(e, Error):
            return e, False
        if isinstance(e, ProtocolError):
            return BadResponse(f"{e} (is this a Cube server, and is the scheme right?)",
                               method=method, url=url), False
        if isinstance(e, (socket.timeout, TimeoutError)) and not isinstance(
                e, ConnectionError):
            return Timeout(f"no answer within {timeout:g} s", method=method,
                           url=url), False
        if isinstance(e, socket.gaierror):
            return Unavailable(f"cannot resolve {self.host}: {e.strerror}", method=method,
                               url=url), False
        stale = getattr(e, "reused", False) and attempt == 1 and isinstance(
            e, (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError))
        if isinstance(e, ConnectionRefusedError):
            return Unavailable(f"cannot connect to {self.host}:{self.port} (connection "
                               "refused): is cubed running there?", method=method,
                               url=url), True
        if isinstance(e, (OSError, http.client.HTTPException)):
            import ssl
            if isinstance(e, ssl.SSLCertVerificationError):
                return Unavailable(f"TLS: {e.verify_message or e} (pass ca_file= or set "
                                   "CUBE_CA_FILE to the server's CA bundle)", method=method,
                                   url=url), False
            what = type(e).__name__ + (f": {e}" if str(e) else "")
            return Unavailable(f"the connection failed ({what})", method=method,
                               url=url), stale or method in IDEMPOTENT
        raise e

    def open_stream(self, path: str, query: Optional[Mapping[str, Any]], accept: str,
                    idle_timeout: float) -> Any:
        """A GET whose answer is read as it comes, on a connection of its
        own whose reads wait at most idle_timeout. Returns the
        http.client response (close it when done); raises the typed error
        for a non-2xx answer."""
        h = dict(self.headers, Accept=accept)
        target = self.prefix + path + self._query(query)
        url = self.server + path + self._query(query)

        def once() -> Any:
            conn = self._new_conn(self.timeout)
            try:
                conn.request("GET", target, headers=h)
                r = conn.getresponse()
            except BaseException:
                conn.close()
                raise
            if r.status // 100 != 2:
                body = r.read()
                conn.close()
                return Response(r.status, {k.lower(): v for k, v in r.getheaders()}, body,
                                "GET", url)
            if conn.sock is not None:
                conn.sock.settimeout(idle_timeout)
            r.cube_conn = conn
            return r

        r = self._retrying("GET", url, self.timeout, once)
        if isinstance(r, Response):
            raise from_response("GET", url, r.status, r.ctype, r.data)
        return r


    def send_file(self, method: str, path: str, query: Optional[Mapping[str, Any]],
                  file: str, progress: Any = None, timeout: Optional[float] = None) -> Response:
        """Sends the bytes of the local file ``file`` as the body (1 MiB at a
        time, never the whole file in memory) on a connection of its own;
        ``progress(sent, total)`` is called as they go. Not retried (the
        body is a stream). Returns the 2xx answer; raises the typed error
        otherwise, also when the server answered (a 413) before the body
        was all sent."""
        import os
        total = os.path.getsize(file)
        q = self._query(query)
        target, url = self.prefix + path + q, self.server + path + q
        conn = self._new_conn(self.timeout if timeout is None else timeout)
        try:
            conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            for k, v in self.headers.items():
                conn.putheader(k, v)
            conn.putheader("Content-Type", "application/octet-stream")
            conn.putheader("Content-Length", str(total))
            conn.endheaders()
            sent = 0
            try:
                with open(file, "rb") as f:
                    while True:
                        block = f.read(1 << 20)
                        if not block:
                            break
                        conn.send(block)
                        sent += len(block)
                        if progress:
                            progress(sent, total)
            except (BrokenPipeError, ConnectionResetError):
                pass   # answered early (413, 403 ...): read what it said
            r = conn.getresponse()
            data = r.read()
            hdrs = {k.lower(): v for k, v in r.getheaders()}
        except OSError as e:
            raise Unavailable(f"the upload failed ({type(e).__name__}: {e})", method=method,
                              url=url) from None
        finally:
            conn.close()
        if 200 <= r.status < 300:
            return Response(r.status, hdrs, data, method, url)
        raise from_response(method, url, r.status, hdrs.get("content-type", ""), data)


def _backoff(attempt: int) -> float:
    """Exponential, capped at 2 s, with jitter (half to all of it)."""
    import random
    cap = min(2.0, 0.05 * (2 ** (attempt - 1)))
    return random.uniform(cap / 2, cap)


def _retry_after(resp: Any) -> float:
    v = getattr(resp, "headers", {}).get("retry-after", "")
    try:
        return min(10.0, max(0.0, float(v)))
    except ValueError:
        return 0.0
