"""Objects are plain dicts, with attribute access.

An :class:`Obj` is a ``dict`` (``json.dumps`` takes it, ``obj["spec"]``
works) whose keys can also be read as attributes, nested dicts included::

    job = c.get("jobs", "train")
    job.metadata.name            # "train"
    job.status.get("phase")      # "Running"
    job["spec"]["command"]       # the same dicts

``metadata``, ``spec`` and ``status`` are always there (an empty dict when
the object has none). A key that is also a dict method (``items``,
``keys``, ``get`` ...) is reached with ``obj["items"]``.
"""
from __future__ import annotations

TYPE_CHECKING = False   # typing is not imported at run time: `import cube` stays fast
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, Optional
    _DictBase = Dict[str, Any]
else:
    _DictBase = dict



class AttrDict(_DictBase):
    """A dict whose keys read as attributes; nested dicts become AttrDicts
    (in place) the first time they are reached that way."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            v = self[name]
        except KeyError:
            raise AttributeError(
                f"no key {name!r} (keys: {', '.join(map(str, self)) or 'none'})") from None
        if type(v) is dict:
            v = self[name] = AttrDict(v)
        return v

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __delattr__(self, name: str) -> None:
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None


class Obj(AttrDict):
    """A Cube object: ``{"apiVersion", "kind", "metadata", "spec",
    "status"}``. ``name``, ``project`` and ``resource_version`` read
    metadata; ``outcome`` is what :meth:`Client.apply` did
    (``created``, ``configured``, ``unchanged``), else None."""

    __slots__ = ("_outcome",)

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        object.__setattr__(self, "_outcome", None)

    def _part(self, key: str) -> AttrDict:
        v = self.get(key)
        if type(v) is dict:
            v = self[key] = AttrDict(v)
        return v if isinstance(v, AttrDict) else AttrDict()

    @property
    def metadata(self) -> AttrDict:
        return self._part("metadata")

    @property
    def spec(self) -> AttrDict:
        return self._part("spec")

    @property
    def status(self) -> AttrDict:
        return self._part("status")

    def _meta(self, key: str) -> Optional[str]:
        v = self._part("metadata").get(key)
        return v if isinstance(v, str) else None

    @property
    def name(self) -> Optional[str]:
        return self._meta("name")

    @property
    def project(self) -> Optional[str]:
        return self._meta("project")

    @property
    def resource_version(self) -> Optional[str]:
        return self._meta("resourceVersion")

    @property
    def outcome(self) -> Optional[str]:
        out: Optional[str] = self._outcome
        return out

