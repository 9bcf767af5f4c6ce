"""Streams: watches (server-sent events) and followed logs, both resumed
where they stopped when the connection drops or goes silent.

    w = c.watch("jobs")
    for ev in w:                      # Event(type="MODIFIED", object=Obj)
        if ev.object.status.get("phase") == "Succeeded":
            w.close()
    w.resource_version                # where a later watch may start

A watch keeps the name and resourceVersion of each object it has seen, so
that after ``410 Gone`` (the server no longer has the changes since that
version) it lists again and yields only the difference: ADDED, MODIFIED
for what changed, DELETED for what is gone.
"""
from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, NamedTuple, Optional, Tuple

from .errors import BadResponse, Error, Gone, NotFound, Unavailable
from .obj import Obj

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client
    from .kinds import Kind

RESUME_PAUSE_S = 0.2


class Event(NamedTuple):
    """One change: ``type`` (ADDED, MODIFIED, DELETED) and ``object``."""
    type: str
    object: Obj


def _rv_int(rv: Optional[str]) -> int:
    try:
        return int(rv or 0)
    except ValueError:
        return 0


class Watch:
    """An iterator of :class:`Event`; see :meth:`cube.Client.watch`."""

    def __init__(self, client: "Client", kind: "Kind", project: Optional[str],
                 selector: Optional[str], resource_version: Optional[str], send_initial: bool,
                 idle_timeout: float, timeout: Optional[float]) -> None:
        self.client, self.kind, self.selector = client, kind, selector
        self.project = None if kind.cluster else (project or client.project)
        self.resource_version = resource_version or ""
        self.send_initial, self.idle_timeout = send_initial, idle_timeout
        self.deadline = time.monotonic() + timeout if timeout else None
        self.seen: Dict[str, str] = {}       # name -> resourceVersion
        self.reconnects = 0                  # streams resumed (dropped or silent)
        self.relists = 0                     # lists after 410 Gone
        self._resp: Any = None
        self._closed = False
        self._it = self._run()

    def __iter__(self) -> "Watch":
        return self

    def __next__(self) -> Event:
        return next(self._it)

    def close(self) -> None:
        """Ends the watch (also from another thread)."""
        self._closed = True
        r = self._resp
        if r is not None:
            _close(r)

    def __enter__(self) -> "Watch":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- the loop -----------------------------------------------------------

    def _left(self) -> Optional[float]:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def _relist(self, initial: bool) -> Iterator[Event]:
        """Lists everything and yields how it differs from what was seen."""
        items = []
        cont: Optional[str] = None
        first_rv = ""
        while True:
            page, rv, cont = self.client.list_page(self.kind, project=self.project,
                                                   selector=self.selector, cont=cont)
            first_rv = first_rv or rv
            items.extend(page)
            if not cont:
                break
        now = {}
        for o in items:
            name, rv = o.name, o.resource_version or ""
            if not name:
                continue
            now[name] = rv
            old = self.seen.get(name)
            if old is None:
                if not initial or self.send_initial:
                    yield Event("ADDED", o)
            elif old != rv:
                yield Event("MODIFIED", o)
            self.seen[name] = rv
        for name in [n for n in self.seen if n not in now]:
            del self.seen[name]
            yield Event("DELETED", Obj({"kind": self.kind.kind,
                                        "metadata": {"name": name, "project": self.project}}))
        # the list's version was taken before it was read: a watch from it
        # may repeat a change the list showed, never miss one
        if first_rv:
            self.resource_version = first_rv

    def _run(self) -> Iterator[Event]:
        if not self.resource_version:
            yield from self._relist(initial=True)
        quick = 0
        while not self._closed:
            left = self._left()
            if left is not None and left <= 0:
                return
            t0 = time.monotonic()
            try:
                yield from self._stream(left)
            except Gone:
                self.relists += 1
                yield from self._relist(initial=False)
                continue
            except Exception as e:
                if self._closed:
                    return  # close() from another thread broke the read
                if isinstance(e, Error) or not _broken(e):
                    raise   # e.g. the server cannot be reached even after retries
            finally:
                self._resp = None
            if self._closed:
                return
            self.reconnects += 1
            # a server that keeps ending streams at once is not hammered
            quick = quick + 1 if time.monotonic() - t0 < 1 else 0
            if quick > 1:
                time.sleep(min(RESUME_PAUSE_S * quick, 2.0))

    def _stream(self, left: Optional[float]) -> Iterator[Event]:
        idle = self.idle_timeout if left is None else max(0.05, min(self.idle_timeout, left))
        path = self.kind.collection(self.project)
        r = self._resp = self.client.transport.open_stream(
            path, {"watch": "1", "labelSelector": self.selector,
                   "resourceVersion": self.resource_version or None},
            "text/event-stream", idle)
        try:
            if self._closed:
                return
            for event, data in _sse(r):
                ev = self._event(event, data)
                if ev is not None:
                    yield ev
                if self._closed:
                    return
                left = self._left()
                if left is not None and left <= 0:
                    self._closed = True
                    return
        finally:
            _close(r)

    def _event(self, event: str, data: str) -> Optional[Event]:
        try:
            doc = json.loads(data)
        except ValueError:
            raise BadResponse(f"a watch event is not JSON: {data[:80]!r}",
                              url=self.client.server) from None
        typ = doc.get("type") or event
        obj = doc.get("object")
        if typ == "ERROR":
            body = obj.get("error", obj) if isinstance(obj, dict) else {}
            code = body.get("code")
            if code in (410, "Gone", "Expired"):
                raise Gone(str(body.get("message", "too old resource version")), status=410,
                           code="Gone", url=self.client.server)
            raise Error(f"watch: {body.get('message', 'the server sent an error')}",
                        code=str(code or ""), url=self.client.server)
        if not isinstance(obj, dict):
            return None
        o = Obj(obj)
        rv = o.resource_version
        if rv and _rv_int(rv) >= _rv_int(self.resource_version):
            self.resource_version = rv
        name = o.name
        if typ not in ("ADDED", "MODIFIED", "DELETED") or not name:
            return None
        if typ == "DELETED":
            self.seen.pop(name, None)
        else:
            old = self.seen.get(name)
            if old is not None and old == rv:
                return None             # repeated after a resume or a relist
            self.seen[name] = rv or ""
        return Event(typ, o)


def _broken(e: BaseException) -> bool:
    """A stream that dropped or went silent (resumed), not a bug."""
    import http.client
    return isinstance(e, (OSError, http.client.HTTPException))


def _close(r: Any) -> None:
    try:
        conn = getattr(r, "cube_conn", None)
        if conn is not None and conn.sock is not None:
            import socket
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        r.close()
        if conn is not None:
            conn.close()
    except Exception:   # closing is best effort
        pass


def _sse(r: Any) -> Iterator[Tuple[str, str]]:
    """(event, data) of each server-sent event; comments (pings) skipped."""
    event, data = "", []   # type: str, List[str]
    while True:
        line = r.readline(1 << 24)
        if not line:
            return
        line = line.decode("utf-8", "replace").rstrip("\r\n")
        if not line:
            if data:
                yield event or "message", "\n".join(data)
            event, data = "", []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)


# -- logs --------------------------------------------------------------------

def follow_log(client: "Client", path: str, query: Dict[str, Any], follow: bool,
               offset: int, idle_timeout: float, done: Any) -> Iterator[str]:
    """Lines of a log from byte ``offset``; with ``follow`` resumed at the
    byte reached after a drop or a silence of idle_timeout, until the
    stream ends or ``done()`` (called at each silence) says it is over."""
    pos = offset
    tail = b""
    gave_up = False
    while True:
        q = dict(query, offset=pos or None, follow="1" if follow else None)
        try:
            r = client.transport.open_stream(path, q, "text/plain, application/json",
                                             idle_timeout)
        except NotFound:
            if gave_up:
                break       # the object ended without ever having a log
            raise
        ended = False
        try:
            while True:
                chunk = r.read1(65536)
                if not chunk:
                    ended = True
                    break
                pos += len(chunk)
                tail += chunk
                *lines, tail = tail.split(b"\n")
                for line in lines:
                    yield line.decode("utf-8", "replace")
        except Exception as e:
            if not _broken(e):
                raise
            if not follow:
                raise Unavailable(f"the log stream broke off ({type(e).__name__})",
                                  url=client.server + path) from None
        finally:
            _close(r)
        if ended or not follow:
            break
        if done is not None and done():
            follow, gave_up = False, True   # read what is left once more, then stop
        time.sleep(RESUME_PAUSE_S)
    if tail:
        yield tail.decode("utf-8", "replace")
