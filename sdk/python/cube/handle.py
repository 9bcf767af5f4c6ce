"""The base of a kind's helper: a handle on one object by name.

A helper for a new kind is a module with a subclass naming its plural and
its phases, plus the functions that build its spec::

    class Service(Handle):
        plural = "services"
        done = ("Ready", "Failed")

    def create(name, model, *, client=None, project=None) -> Service:
        c = client or cube.default_client()
        c.create("services", {"metadata": {"name": name}, "spec": {"model": model}},
                 project=project)
        return Service(name, client=c, project=project)

``get()``, ``wait()``, ``events()``, ``delete()`` and ``action()`` come
with it.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Tuple

from .errors import Timeout
from .obj import Obj

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client


def resolve(client: "Optional[Client]") -> "Client":
    """``client``, else :func:`cube.default_client`."""
    if client is not None:
        return client
    import cube
    return cube.default_client()


class Handle:
    """One object of ``plural`` by name. ``obj`` is the last copy read."""

    plural = ""
    done: Tuple[str, ...] = ()   # the phases wait() stops at by default

    def __init__(self, name: str, *, client: "Optional[Client]" = None,
                 project: Optional[str] = None, obj: Optional[Obj] = None) -> None:
        from .client import check_name
        self.name = check_name(name)
        self.client = resolve(client)
        self.project = project or (obj.project if obj is not None else None) or \
            (None if self.client.kind(self.plural).cluster else self.client.project)
        self.obj = obj

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.project}/{self.name}>"

    def get(self) -> Obj:
        """Reads the object again (and keeps it in ``obj``)."""
        self.obj = self.client.get(self.plural, self.name, project=self.project)
        return self.obj

    @property
    def phase(self) -> Optional[str]:
        """``status.phase`` as last read (reads once when never read)."""
        return (self.obj or self.get()).status.get("phase")

    def wait(self, timeout: Optional[float] = None,
             until: Optional[Iterable[str]] = None,
             condition: Optional[Callable[[Obj], bool]] = None) -> Obj:
        """Polls until ``status.phase`` is one of ``until`` (default: the
        kind's final phases) or ``condition(obj)`` holds; returns the
        object. :class:`cube.Timeout` after ``timeout`` s (None: no limit).

            h.wait(timeout=600)
        """
        want = tuple(until or self.done)
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = 0.05
        while True:
            o = self.get()
            if (condition(o) if condition else o.status.get("phase") in want):
                return o
            if deadline is not None and time.monotonic() + pause > deadline:
                raise Timeout(f"{self.plural}/{self.name} is {o.status.get('phase')!r} after "
                              f"{timeout:g} s (waited for {', '.join(want) or 'a condition'})",
                              url=self.client.server + self.client.path(
                                  self.plural, self.name, self.project))
            time.sleep(pause)
            pause = min(0.5, pause * 1.5)

    def events(self) -> List[Obj]:
        """The object's events, newest first."""
        return self.client.events(self.plural, self.name, project=self.project)

    def action(self, action: str, body: Optional[Dict[str, Any]] = None) -> Any:
        """One of the kind's actions."""
        return self.client.action(self.plural, self.name, action, body, project=self.project)

    def delete(self, wait: bool = False, timeout: float = 60.0) -> None:
        """Deletes the object (``wait``: until it is gone)."""
        self.client.delete(self.plural, self.name, project=self.project, wait=wait,
                           timeout=timeout)
