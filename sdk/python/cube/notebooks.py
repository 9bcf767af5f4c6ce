"""Notebooks: Jupyter or VS Code servers, run as Jobs, opened in a browser.

    from cube import notebooks
    nb = notebooks.create("lab", resources={"cpu": "2", "memory": "8Gi"},
                          env={"SEED": "1"}, idle_timeout_seconds=3600)
    nb.wait()                      # until Running (or Failed, Stopped)
    print(nb.url)                  # https://cube.example.com/notebook/demo/lab/
    nb.stop(); nb.restart(); nb.renew()
    nb.delete(wait=True)
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from .handle import Handle, resolve
from .obj import Obj
from .transport import segment

DONE = ("Running", "Stopped", "Failed")


class Notebook(Handle):
    """A Notebook by name; :func:`create` returns one."""

    plural = "notebooks"
    done = DONE

    @property
    def path(self) -> str:
        """Where the server is reached: ``/notebook/{project}/{name}/``
        (``/vscode/…`` for VS Code), what ``status.url`` says."""
        ide = (self.obj or self.get()).spec.get("ide", "jupyter")
        root = "vscode" if ide == "vscode" else "notebook"
        return f"/{root}/{segment(self.project or '')}/{segment(self.name)}/"

    @property
    def url(self) -> str:
        """The notebook's address on the console origin: open it in a
        browser (the console hands the browser over to the apps origin)."""
        return self.client.server + self.path

    def stop(self) -> Any:
        """Stops the server; the home directory is kept."""
        return self.action("stop")

    def restart(self) -> Any:
        """Starts it again as a new Job (``status.generation`` + 1)."""
        return self.action("restart")

    def renew(self) -> Any:
        """Pushes the expiry out by ``spec.expiresAfterSeconds``."""
        return self.action("renew")


def create(name: str, *, ide: str = "jupyter", resources: Optional[Mapping[str, Any]] = None,
           accelerator: Optional[Mapping[str, Any]] = None,
           env: Optional[Mapping[str, str]] = None, image: Optional[str] = None,
           pool: Optional[str] = None, idle_timeout_seconds: Optional[int] = None,
           expires_after_seconds: Optional[int] = None,
           labels: Optional[Mapping[str, str]] = None, project: Optional[str] = None,
           client: Any = None, wait: bool = False, timeout: float = 300.0) -> Notebook:
    """Creates a notebook (``wait``: until it runs, or fails).

        nb = notebooks.create("lab", wait=True); print(nb.url)
    """
    c = resolve(client)
    spec: Dict[str, Any] = {"ide": ide}
    for key, val in (("resources", resources), ("accelerator", accelerator), ("env", env),
                     ("image", image), ("pool", pool),
                     ("idleTimeoutSeconds", idle_timeout_seconds),
                     ("expiresAfterSeconds", expires_after_seconds)):
        if val is not None:
            spec[key] = dict(val) if isinstance(val, Mapping) else val
    meta: Dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = dict(labels)
    obj: Obj = c.create("notebooks", {"metadata": meta, "spec": spec}, project=project)
    nb = Notebook(name, client=c, project=obj.project or project, obj=obj)
    if wait:
        nb.wait(timeout)
    return nb


def get(name: str, *, project: Optional[str] = None, client: Any = None) -> Notebook:
    """A handle on an existing notebook (read once: NotFound when missing)."""
    nb = Notebook(name, client=client, project=project)
    nb.get()
    return nb


def url(name: str, *, project: Optional[str] = None, client: Any = None) -> str:
    """The browser address of a notebook by name."""
    return get(name, project=project, client=client).url
