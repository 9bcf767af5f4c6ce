"""Where a Client finds its server, token and project.

The same settings, in the same order, as cubectl (each overriding the one
before):

1. the config file ``cubectl login`` writes: ``$CUBE_CONFIG``, else
   ``~/.config/cube/config``; JSON (as cubectl writes it) or YAML::

       {"current-context": "cube.example.com",
        "contexts": [{"name": "cube.example.com", "server": "https://…",
                      "token": "…", "project": "demo"}]}

   its current context (or the one named by ``context=``); an older file
   with top-level ``server``/``token``/``project`` still reads. The
   file's token goes only to the file's server: when the environment or
   an argument names another server, it is not sent there;
2. the environment: ``CUBE_API``, ``CUBE_TOKEN``, ``CUBE_PROJECT`` (set
   inside Jobs and notebooks), and ``CUBE_CA_FILE`` (a CA bundle);
3. the arguments of :class:`cube.Client`.

    settings = cube.config.load()          # Settings(server=…, token=…, …)
"""
from __future__ import annotations

import os

from .errors import ConfigError

TYPE_CHECKING = False   # typing is not imported at run time: `import cube` stays fast
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, Optional


class Settings:
    """The effective settings: ``server``, ``token``, ``project``,
    ``context``, ``ca_file`` and ``source`` (where server came from)."""

    __slots__ = ("server", "token", "project", "context", "ca_file", "source")

    def __init__(self, server: Optional[str], token: Optional[str], project: Optional[str],
                 context: Optional[str], ca_file: Optional[str], source: str) -> None:
        self.server, self.token, self.project = server, token, project
        self.context, self.ca_file, self.source = context, ca_file, source

    def __repr__(self) -> str:
        return (f"Settings(server={self.server!r}, project={self.project!r}, "
                f"context={self.context!r}, token={'set' if self.token else None})")


def path() -> Optional[str]:
    """The config file's path: ``$CUBE_CONFIG``, else
    ``$HOME/.config/cube/config`` (None when neither is set)."""
    env = os.environ.get("CUBE_CONFIG")
    if env:
        return env
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".config", "cube", "config") if home and home != "~" else None


def _read(p: str) -> Dict[str, Any]:
    try:
        with open(p, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ConfigError(f"cannot read the config file: {e.strerror}", url=p) from None
    from . import yaml
    try:
        doc = yaml.load(text)
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise ConfigError(f"not valid JSON or YAML: {e}", url=p) from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ConfigError("expected a mapping (contexts, current-context)", url=p)
    return doc


def _pick(doc: Dict[str, Any], use: Optional[str], p: str) -> Dict[str, Any]:
    name = use or doc.get("current-context")
    if not name:
        return doc                       # an older file: top-level settings
    for c in doc.get("contexts") or []:
        if isinstance(c, dict) and c.get("name") == name:
            return c
    raise ConfigError(f'no context named "{name}" (see \'cubectl config get-contexts\')',
                      url=p)


def _same(a: Optional[str], b: Optional[str]) -> bool:
    return bool(a and b and a.rstrip("/") == b.rstrip("/"))


def load(server: Optional[str] = None, token: Optional[str] = None,
         project: Optional[str] = None, context: Optional[str] = None,
         ca_file: Optional[str] = None) -> Settings:
    """The effective settings: file, then environment, then these
    arguments. A missing file is no error; a broken one is."""
    p = path()
    got: Dict[str, Any] = {}
    file_server = file_token = None
    source = "nowhere"
    # with a server and a token from elsewhere (a Job's environment), a
    # broken file in the home directory does not stop the SDK
    elsewhere = bool((server or os.environ.get("CUBE_API")) and
                     (token or os.environ.get("CUBE_TOKEN")) and not context)
    if p:
        try:
            doc = _read(p)
            ctx = _pick(doc, context, p) if doc else {}
        except ConfigError:
            if not elsewhere:
                raise
            doc = ctx = {}
        if doc:
            got = {k: ctx.get(k) for k in ("server", "project")
                   if isinstance(ctx.get(k), str) and ctx.get(k)}
            file_server = got.get("server")
            tok = ctx.get("token")
            file_token = tok if isinstance(tok, str) and tok else None
            context = context or doc.get("current-context")
            if "server" in got:
                source = p
    elif context:
        raise ConfigError(f"context {context!r} asked for, but there is no config file "
                          "(set HOME or CUBE_CONFIG)")
    for key, var in (("server", "CUBE_API"), ("token", "CUBE_TOKEN"),
                     ("project", "CUBE_PROJECT")):
        if os.environ.get(var):
            got[key] = os.environ[var]
            if key == "server":
                source = "$CUBE_API"
    for key, val in (("server", server), ("token", token), ("project", project)):
        if val:
            got[key] = val
            if key == "server":
                source = "the Client's api argument"
    # The file's token is for the file's server only, never sent elsewhere.
    if file_token and not token and not os.environ.get("CUBE_TOKEN") and \
            _same(got.get("server"), file_server):
        got["token"] = file_token
    return Settings(got.get("server"), got.get("token"), got.get("project"), context,
                    ca_file or os.environ.get("CUBE_CA_FILE") or None, source)
