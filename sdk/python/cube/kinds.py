"""The kinds a server serves (``GET /api/v1/kinds``), resolved the way
cubectl resolves them: the plural, the singular or the Kind, in any case
(``jobs``, ``job``, ``Job``). A kind a plugin adds is there with no SDK
change::

    k = c.kind("pipelinerun")   # Kind(kind="PipelineRun", plural="pipelineruns", …)
    k.actions                   # {"stop": "POST", "rerun": "POST"}
"""
from __future__ import annotations

import _thread

from .errors import UnknownKind
from .transport import segment

TYPE_CHECKING = False   # typing is not imported at run time: `import cube` stays fast
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List, Optional


class Kind:
    """One kind: ``kind``, ``plural``, ``singular``, ``scope`` ("project"
    or "cluster"), ``group``, ``actions`` (name -> HTTP method) and the
    spec ``schema``."""

    __slots__ = ("kind", "plural", "singular", "scope", "group", "actions", "schema",
                 "description")

    def __init__(self, doc: Dict[str, Any]) -> None:
        self.kind = str(doc.get("kind", ""))
        self.plural = str(doc.get("plural", ""))
        self.singular = str(doc.get("singular", ""))
        self.scope = str(doc.get("scope", "project"))
        self.group = str(doc.get("group", ""))
        self.description = str(doc.get("description", ""))
        self.schema = doc.get("schema")
        acts: Dict[str, str] = {}
        for a in doc.get("actions") or []:
            if isinstance(a, dict) and a.get("name"):
                # a kind may have both a GET view and a POST action of one name
                m = str(a.get("method", "POST")).upper()
                acts[a["name"]] = acts.get(a["name"], m) if m == "GET" else m
        self.actions = acts

    @property
    def cluster(self) -> bool:
        return self.scope == "cluster"

    def collection(self, project: Optional[str]) -> str:
        """The collection's path: /api/v1/[projects/{p}/]{plural}."""
        if self.cluster:
            return f"/api/v1/{self.plural}"
        return f"/api/v1/projects/{segment(project or '')}/{self.plural}"

    def __repr__(self) -> str:
        return f"Kind(kind={self.kind!r}, plural={self.plural!r}, scope={self.scope!r})"


class KindIndex:
    """The server's kinds, fetched once and again when a name is not
    found (a plugin may have been loaded since)."""

    def __init__(self, fetch: Any, where: str) -> None:
        self._fetch, self._where = fetch, where
        self._by: Optional[Dict[str, Kind]] = None
        self._all: List[Kind] = []
        self._mu = _thread.allocate_lock()

    def all(self, refresh: bool = False) -> List[Kind]:
        with self._mu:
            if self._by is None or refresh:
                doc = self._fetch()
                items = doc.get("items") if isinstance(doc, dict) else None
                kinds = [Kind(i) for i in items or [] if isinstance(i, dict)]
                by: Dict[str, Kind] = {}
                for k in kinds:
                    for key in (k.plural, k.singular, k.kind):
                        by.setdefault(key.lower(), k)
                self._all, self._by = kinds, by
            return list(self._all)

    def find(self, name: str) -> Kind:
        if not isinstance(name, str) or not name:
            raise UnknownKind(f"a kind is a non-empty string, got {name!r}", code="UnknownKind")
        self.all()
        assert self._by is not None
        k = self._by.get(name.lower())
        if k is None:
            self.all(refresh=True)
            k = self._by.get(name.lower())
        if k is None:
            known = ", ".join(sorted(x.plural for x in self._all)) or "none"
            raise UnknownKind(f"no kind {name!r} on this server (it serves: {known})",
                              code="UnknownKind", url=self._where)
        return k
