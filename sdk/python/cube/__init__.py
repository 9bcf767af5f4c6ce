"""Cube's Python SDK: the resource API of every kind, helpers for Jobs,
notebooks and pipelines, and the NNI trial API. Standard library only.

    import cube
    c = cube.Client()                     # CUBE_API/CUBE_TOKEN, or cubectl's config
    job = cube.jobs.submit(["python3", "train.py"], name="train", client=c)
    job.wait()
    for line in job.logs():
        print(line)

Helpers are modules of this package (``cube.jobs``, ``cube.notebooks``,
``cube.pipelines`` ...), imported on first use: a kind's helper is one
module dropped in here, nothing to register.
"""
from __future__ import annotations

import importlib
import _thread

from ._version import __version__
from .client import Client, check_name
from .errors import (BadResponse, ConfigError, Conflict, Error, Forbidden, Gone, Invalid,
                     NotFound, Timeout, Unauthorized, Unavailable, UnknownKind)
from .obj import AttrDict, Obj

TYPE_CHECKING = False   # typing is not imported at run time: `import cube` stays fast
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Optional

__all__ = ["Client", "Obj", "AttrDict", "Error", "NotFound", "UnknownKind", "Conflict",
           "Invalid", "Unauthorized", "Forbidden", "Gone", "Unavailable", "Timeout",
           "BadResponse", "ConfigError", "check_name", "default_client",
           "set_default_client", "__version__"]

_default: Optional[Client] = None
_default_mu = _thread.allocate_lock()


def default_client() -> Client:
    """The client helpers use when given none: ``Client()`` (the
    environment inside a Job or notebook, else cubectl's config), made on
    first use."""
    global _default
    with _default_mu:
        if _default is None:
            _default = Client()
        return _default


def set_default_client(client: Optional[Client]) -> None:
    """Makes ``client`` the one helpers use by default (None: forget it)."""
    global _default
    with _default_mu:
        _default = client


def __getattr__(name: str) -> Any:
    """``cube.jobs`` and every other helper module, imported when first
    reached."""
    if name.startswith("_") or not name.isidentifier():
        raise AttributeError(name)
    try:
        mod = importlib.import_module("." + name, __name__)
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module 'cube' has no attribute or helper {name!r}") from None
    globals()[name] = mod
    return mod
