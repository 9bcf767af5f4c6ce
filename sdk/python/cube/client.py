"""cube.Client: every kind the server lists, with no SDK change when a
plugin adds one.

    c = cube.Client()                                   # config file or CUBE_* env
    c.create("widgets", {"metadata": {"name": "a"}, "spec": {"size": 1}})
    for w in c.list("widgets", selector="app=web"):     # pages as an iterator
        print(w.metadata.name, w.status.get("phase"))
    c.patch("widgets", "a", {"spec": {"size": 3}})      # merge patch
    c.delete("widgets", "a", wait=True)
"""
from __future__ import annotations

import re
import time
from collections.abc import Mapping

from . import config
from .errors import ConfigError, Conflict, Error, Invalid, NotFound, Timeout
from .kinds import Kind, KindIndex
from .obj import Obj
from .transport import Response, Transport, segment

TYPE_CHECKING = False   # typing is not imported at run time: `import cube` stays fast
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

    Body = Mapping[str, Any]

_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")


def check_name(name: Any, field: str = "metadata.name") -> str:
    """``name`` when it is a valid object name (a DNS label: 1 to 63 of
    a-z, 0-9 and '-', starting and ending with a letter or digit); else
    :class:`Invalid` naming ``field``, before anything is sent."""
    if not isinstance(name, str) or not name:
        raise Invalid(f"{field}: required, a non-empty string (got {name!r})",
                      code="Invalid", field=field)
    if len(name) > 63 or not _NAME.match(name):
        raise Invalid(f"{field}: {name!r} is not a valid name: 1 to 63 lowercase letters, "
                      "digits or '-', starting and ending with a letter or digit",
                      code="Invalid", field=field)
    return name


def _obj(doc: Any) -> Obj:
    return Obj(doc) if isinstance(doc, dict) else Obj()


def _same(a: Any, b: Any) -> bool:
    """Equal, a missing member counting as an empty object (as cubectl)."""
    if a is None or b is None:
        other = b if a is None else a
        return other is None or other == {}
    return bool(a == b)


class Client:
    """A caller of one Cube server.

    ``api``, ``token`` and ``project`` override the config file and the
    environment (see :mod:`cube.config`); ``context`` picks another
    context of the file. ``timeout`` (seconds) bounds every call;
    ``retry_deadline`` how long 503s and dropped connections are retried.
    ``ca_file`` is a CA bundle for https; ``verify=False`` turns TLS
    verification off (for tests only).

        c = cube.Client("https://cube.example.com", token=t, project="demo")
    """

    def __init__(self, api: Optional[str] = None, token: Optional[str] = None,
                 project: Optional[str] = None, *, context: Optional[str] = None,
                 ca_file: Optional[str] = None, verify: bool = True,
                 timeout: float = 30.0, retry_deadline: float = 30.0) -> None:
        s = config.load(api, token, project, context, ca_file)
        if not s.server:
            raise ConfigError("no Cube server configured: pass Client(api=URL), set "
                              "CUBE_API, or run 'cubectl login URL'")
        self.settings = s
        self.transport = Transport(s.server, s.token, timeout=timeout,
                                   retry_deadline=retry_deadline, ca_file=s.ca_file,
                                   verify=verify)
        self.server = self.transport.server
        self._project = s.project
        t = self.transport      # not self: no cycle, a dropped Client closes at once
        self._kinds = KindIndex(lambda: t.request("GET", "/api/v1/kinds").json(),
                                self.server + "/api/v1/kinds")

    def __repr__(self) -> str:
        return f"<cube.Client {self.server} project={self._project!r}>"

    def close(self) -> None:
        """Closes this thread's kept-alive connection."""
        self.transport.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- plumbing -----------------------------------------------------------

    def request(self, method: str, path: str, *, query: Optional[Mapping[str, Any]] = None,
                body: Any = None, headers: Optional[Mapping[str, str]] = None,
                timeout: Optional[float] = None) -> Response:
        """A raw call to ``path`` (``/api/v1/...``); the typed error for a
        non-2xx answer. ``resp.json()`` reads the body."""
        return self.transport.request(method, path, query=query, body=body, headers=headers,
                                      timeout=timeout)

    def version(self) -> Dict[str, Any]:
        """The server's ``{"version", "abi", "store"}``."""
        return dict(self.request("GET", "/api/v1/version").json())

    def me(self) -> Obj:
        """Who the token is: ``{"user": {...}, "role", "projects", "defaultProject"}``."""
        return _obj(self.request("GET", "/api/v1/auth/me").json())

    @property
    def project(self) -> str:
        """The project calls act in: the one given (argument, CUBE_PROJECT,
        the context's), else the server's default project for this caller
        (asked once), else ``default``."""
        if not self._project:
            self._project = self._default_project()
        return self._project

    def _default_project(self) -> str:
        try:
            me = self.me()
        except Error:
            return "default"
        dp = me.get("defaultProject") or ""
        names = [p.get("name") for p in me.get("projects") or [] if isinstance(p, dict)]
        if dp and (me.get("role") == "admin" or dp in names):
            return str(dp)
        return str(names[0]) if names and names[0] else (dp or "default")

    def kinds(self, refresh: bool = False) -> List[Kind]:
        """Every kind the server serves (cached; ``refresh`` asks again)."""
        return self._kinds.all(refresh)

    def kind(self, name: str) -> Kind:
        """The kind named by its plural, singular or Kind, any case;
        :class:`cube.UnknownKind` (listing the known ones) otherwise."""
        return self._kinds.find(name)

    def _target(self, kind: Union[str, Kind], project: Optional[str]) -> Tuple[Kind, str]:
        k = kind if isinstance(kind, Kind) else self.kind(kind)
        if k.cluster:
            return k, k.collection(None)
        p = check_name(project or self.project, "project")
        return k, k.collection(p)

    def path(self, kind: Union[str, Kind], name: Optional[str] = None,
             project: Optional[str] = None, *rest: str) -> str:
        """The URL path of a kind's collection, or of one object and a
        sub-path (``c.path("jobs", "train", None, "metrics")``)."""
        k, coll = self._target(kind, project)
        if name is None:
            return coll
        parts = [coll, segment(check_name(name))] + [segment(r) for r in rest]
        return "/".join(parts)

    # -- reading ------------------------------------------------------------

    def get(self, kind: Union[str, Kind], name: str, *, project: Optional[str] = None) -> Obj:
        """One object; :class:`cube.NotFound` when there is none.

            job = c.get("jobs", "train")
        """
        return _obj(self.request("GET", self.path(kind, check_name(name), project)).json())

    def list_page(self, kind: Union[str, Kind], *, project: Optional[str] = None,
                  selector: Optional[str] = None, limit: Optional[int] = None,
                  cont: Optional[str] = None) -> Tuple[List[Obj], str, Optional[str]]:
        """One page: (items, the list's resourceVersion, the continue token
        or None on the last page)."""
        if limit is not None and (not isinstance(limit, int) or not 0 < limit <= 5000):
            raise Invalid(f"limit: a page size from 1 to 5000, got {limit!r}", code="Invalid",
                          field="limit")
        doc = self.request("GET", self.path(kind, None, project),
                           query={"labelSelector": selector, "limit": limit,
                                  "continue": cont}).json()
        meta = doc.get("metadata") or {}
        items = doc.get("items") or []
        return [Obj(i) for i in items], str(meta.get("resourceVersion", "")), \
            meta.get("continue") or None

    def list(self, kind: Union[str, Kind], *, project: Optional[str] = None,
             selector: Optional[str] = None, limit: Optional[int] = None) -> Iterator[Obj]:
        """Every object of a kind (in a project), following the pages
        (``limit`` objects each, the server's 500 by default). ``selector``
        is a label selector: ``app=web,tier!=db``, ``env in (a,b)``, ``gpu``.

            names = [j.name for j in c.list("jobs", selector="team=vision")]
        """
        cont: Optional[str] = None
        k = kind if isinstance(kind, Kind) else self.kind(kind)
        while True:
            items, _, cont = self.list_page(k, project=project, selector=selector,
                                            limit=limit, cont=cont)
            yield from items
            if not cont:
                return

    def events(self, kind: Optional[Union[str, Kind]] = None, name: Optional[str] = None, *,
               project: Optional[str] = None, limit: Optional[int] = None) -> List[Obj]:
        """Events, newest first: of one object (kind and name), or of the
        project (no kind).

            for e in c.events("jobs", "train"):
                print(e.get("reason"), e.get("message"))
        """
        q = {"limit": limit}
        if kind is None:
            p = check_name(project or self.project, "project")
            path = f"/api/v1/projects/{p}/events"
        else:
            path = self.path(kind, check_name(name), project, "events")
        return [_obj(e) for e in self.request("GET", path, query=q).json().get("items") or []]

    # -- writing ------------------------------------------------------------

    def _doc(self, kind_or_obj: Union[str, Kind, Body], obj: Optional[Body],
             project: Optional[str]) -> Tuple[Kind, Dict[str, Any], Optional[str]]:
        """(kind, body, project) of a create/apply call: create(obj) with
        obj["kind"], or create(kind, obj)."""
        if obj is None:
            if not isinstance(kind_or_obj, Mapping):
                raise TypeError("create/apply take an object with a 'kind', or (kind, object)")
            obj, kname = kind_or_obj, kind_or_obj.get("kind")
            if not kname:
                raise Invalid("kind: the object has no 'kind' (or call create(kind, obj))",
                              code="Invalid", field="kind")
            k = self.kind(str(kname))
        else:
            k = kind_or_obj if isinstance(kind_or_obj, Kind) else self.kind(str(kind_or_obj))
        if not isinstance(obj, Mapping):
            raise TypeError(f"the object must be a dict, got {type(obj).__name__}")
        body = dict(obj)
        meta = dict(body.get("metadata") or {})
        check_name(meta.get("name"))
        mp = meta.get("project")
        if mp and project and mp != project and not k.cluster:
            raise Invalid(f"metadata.project {mp!r} disagrees with project={project!r}",
                          code="Invalid", field="metadata.project")
        body["metadata"] = meta
        return k, body, (mp or project) if not k.cluster else None

    def create(self, kind_or_obj: Union[str, Kind, Body], obj: Optional[Body] = None, *,
               project: Optional[str] = None) -> Obj:
        """Creates an object and returns it as stored (defaults filled);
        :class:`cube.Conflict` when it exists.

            c.create({"kind": "Job", "metadata": {"name": "t"}, "spec": {"command": ["true"]}})
            c.create("jobs", {"metadata": {"name": "t"}, "spec": {"command": ["true"]}})
        """
        k, body, p = self._doc(kind_or_obj, obj, project)
        return _obj(self.request("POST", self.path(k, None, p), body=body).json())

    def replace(self, kind_or_obj: Union[str, Kind, Body], obj: Optional[Body] = None, *,
                project: Optional[str] = None) -> Obj:
        """PUT: replaces an object's spec, labels and annotations; with
        ``metadata.resourceVersion`` only if it has not changed since
        (else :class:`cube.Conflict`)."""
        k, body, p = self._doc(kind_or_obj, obj, project)
        return _obj(self.request("PUT", self.path(k, body["metadata"]["name"], p),
                                 body=body).json())

    def apply(self, kind_or_obj: Union[str, Kind, Body], obj: Optional[Body] = None, *,
              project: Optional[str] = None) -> Obj:
        """Creates the object, or updates it by name when it exists, as
        ``cubectl apply`` does; the result's ``outcome`` says which:
        ``created``, ``configured`` or ``unchanged`` (the spec, labels and
        the annotations given already match).

            p = c.apply(pipeline_doc); print(p.outcome)
        """
        k, body, p = self._doc(kind_or_obj, obj, project)
        path = self.path(k, body["metadata"]["name"], p)
        for attempt in range(3):
            live = self.transport.request("GET", path, ok404=True)
            if live.status == 404:
                try:
                    out = _obj(self.request("POST", self.path(k, None, p), body=body).json())
                except Conflict:
                    continue            # made by someone else since our GET
                return _set_outcome(out, "created")
            cur = _obj(live.json())
            if _unchanged(body, cur):
                return _set_outcome(cur, "unchanged")
            put = dict(body, metadata=dict(body["metadata"],
                                           resourceVersion=cur.resource_version))
            try:
                out = _obj(self.request("PUT", path, body=put).json())
            except Conflict:
                if attempt == 2:
                    raise
                continue                # written in between: read again
            return _set_outcome(out, "unchanged" if _unchanged(out, cur) else "configured")
        raise Conflict("kept changing while being applied", code="Conflict", url=path)

    def patch(self, kind: Union[str, Kind], name: str, patch: Body, *,
              project: Optional[str] = None) -> Obj:
        """A JSON merge patch (RFC 7386): keys given replace, ``None``
        removes, nested objects merge.

            c.patch("jobs", "train", {"metadata": {"labels": {"keep": "yes"}}})
        """
        if not isinstance(patch, Mapping):
            raise TypeError("a merge patch is a dict")
        return _obj(self.request("PATCH", self.path(kind, check_name(name), project),
                                 body=dict(patch),
                                 headers={"Content-Type": "application/merge-patch+json"}
                                 ).json())

    def delete(self, kind: Union[str, Kind], name: str, *, project: Optional[str] = None,
               wait: bool = False, timeout: float = 60.0, missing_ok: bool = False) -> None:
        """Deletes an object. With ``wait`` returns once it is gone
        (finalizers done), :class:`cube.Timeout` after ``timeout`` s;
        ``missing_ok`` makes a missing object no error.

            c.delete("notebooks", "lab", wait=True)
        """
        path = self.path(kind, check_name(name), project)
        try:
            self.request("DELETE", path)
        except NotFound:
            if not missing_ok:
                raise
            return
        if wait:
            deadline = time.monotonic() + timeout
            pause = 0.05
            while self.transport.request("GET", path, ok404=True).status != 404:
                if time.monotonic() > deadline:
                    raise Timeout(f"still there after {timeout:g} s", method="DELETE",
                                  url=self.server + path)
                time.sleep(pause)
                pause = min(1.0, pause * 2)

    def action(self, kind: Union[str, Kind], name: str, action: str,
               body: Optional[Body] = None, *, project: Optional[str] = None,
               method: Optional[str] = None) -> Any:
        """Runs one of the kind's actions (``GET /api/v1/kinds`` lists them)
        and returns its answer (an Obj for JSON objects, text otherwise).

            c.action("pipelineruns", "r1", "rerun", {"from": "train"})
        """
        k = kind if isinstance(kind, Kind) else self.kind(kind)
        if action not in k.actions:
            raise Invalid(f"{k.plural} have no action {action!r} (they have: "
                          f"{', '.join(sorted(k.actions)) or 'none'})", code="Invalid",
                          field="action")
        m = (method or k.actions[action]).upper()
        r = self.request(m, self.path(k, check_name(name), project, action),
                         body=None if m == "GET" else dict(body or {}))
        if "json" in r.ctype:
            doc = r.json()
            return _obj(doc) if isinstance(doc, dict) else doc
        return r.text

    def run(self, kind: Union[str, Kind], name: str, *, project: Optional[str] = None,
            **body: Any) -> Any:
        """The ``run`` action (``c.run("pipelines", "etl", executionDate=…)``)."""
        return self.action(kind, name, "run", body, project=project)

    def stop(self, kind: Union[str, Kind], name: str, *, project: Optional[str] = None,
             **body: Any) -> Any:
        """The ``stop`` action (``c.stop("jobs", "train", graceSeconds=5)``)."""
        return self.action(kind, name, "stop", body, project=project)

    # -- streams ------------------------------------------------------------

    def watch(self, kind: Union[str, Kind], *, project: Optional[str] = None,
              selector: Optional[str] = None, resource_version: Optional[str] = None,
              send_initial: bool = False, idle_timeout: float = 60.0,
              timeout: Optional[float] = None) -> Any:
        """Changes to a kind's objects as :class:`cube.watch.Event`
        ``(type, object)``: ADDED, MODIFIED, DELETED. Lists first (with
        ``send_initial`` those objects come as ADDED) unless
        ``resource_version`` says where to start; resumes after a dropped
        or silent stream from the last version seen, and relists on 410,
        yielding what changed meanwhile. Ends after ``timeout`` s (None:
        never).

            for ev in c.watch("jobs", selector="team=nlp"):
                print(ev.type, ev.object.name, ev.object.status.get("phase"))
        """
        from .watch import Watch
        return Watch(self, kind if isinstance(kind, Kind) else self.kind(kind), project,
                     selector, resource_version, send_initial, idle_timeout, timeout)

    def logs(self, kind: Union[str, Kind], name: str, *, project: Optional[str] = None,
             follow: bool = False, replica: Optional[int] = None,
             stream: Optional[str] = None, offset: int = 0, idle_timeout: float = 60.0,
             path: Optional[str] = None, done: Any = None) -> Iterator[str]:
        """An object's log as lines (without their newline). ``follow``
        keeps reading until the log ends (the Job finished); a dropped
        stream is resumed at the byte it reached.

            for line in c.logs("jobs", "train", follow=True):
                print(line)
        """
        from .watch import follow_log
        p = path or self.path(kind, check_name(name), project, "logs")
        q: Dict[str, Any] = {"replica": replica, "stream": stream}
        return follow_log(self, p, q, follow, offset, idle_timeout, done)


def _unchanged(want: Mapping[str, Any], live: Mapping[str, Any]) -> bool:
    wm, lm = want.get("metadata") or {}, live.get("metadata") or {}
    if not _same(want.get("spec"), live.get("spec")) or \
            not _same(wm.get("labels"), lm.get("labels")):
        return False
    la = lm.get("annotations") or {}
    return all(la.get(k) == v for k, v in (wm.get("annotations") or {}).items())


def _set_outcome(o: Obj, what: str) -> Obj:
    object.__setattr__(o, "_outcome", what)
    return o
