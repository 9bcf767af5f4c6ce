"""Typed errors of the Cube SDK.

Every failure is a :class:`cube.Error` naming the call (method and URL) and
what the server said::

    try:
        c.get("jobs", "train")
    except cube.NotFound as e:
        print(e.status, e.code, e.message)   # 404 NotFound no such object
    except cube.Invalid as e:
        print(e.field)                        # "metadata.name"

The server's error body is ``{"error": {"code", "message", "field"?}}``;
anything else (an HTML page from a proxy, a cut-off body) is
:class:`BadResponse`.
"""
from __future__ import annotations

TYPE_CHECKING = False   # typing is not imported at run time: `import cube` stays fast
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Optional



class Error(Exception):
    """A failed call. ``status`` (HTTP status, 0 when none came), ``code``
    (the server's error code), ``message``, ``field`` (the field at fault,
    when the server named one), ``method`` and ``url`` of the call."""

    def __init__(self, message: str, *, status: int = 0, code: str = "",
                 field: Optional[str] = None, method: str = "", url: str = "",
                 hint: str = "") -> None:
        self.status, self.code, self.message = status, code, message
        self.field, self.method, self.url, self.hint = field, method, url, hint
        super().__init__(self._text())

    def _text(self) -> str:
        where = f"{self.method} {self.url}: " if self.method else (
            f"{self.url}: " if self.url else "")
        head = f"{self.status} {self.code}: " if self.status else ""
        field = f" (field {self.field})" if self.field and self.field not in self.message \
            else ""
        hint = f" — {self.hint}" if self.hint else ""
        return f"{where}{head}{self.message}{field}{hint}"


class NotFound(Error):
    """404: no such object (or no such route, or a project you are not in)."""


class UnknownKind(NotFound):
    """A kind the server does not list at /api/v1/kinds."""


class Conflict(Error):
    """409: the object exists, or changed since it was read."""


class Invalid(Error):
    """400 or 422: the request or object is not valid; ``field`` names the
    culprit when the server did (``spec.tasks[1].upstream[0]``)."""


class Unauthorized(Error):
    """401: no token, or one that is invalid, expired or revoked."""


class Forbidden(Error):
    """403: your role does not allow this."""


class Gone(Error):
    """410: a watch's resourceVersion is too old (watch() relists itself)."""


class Unavailable(Error):
    """503 after retries until the deadline, or a server that cannot be
    reached (connection refused or dropped)."""


class Timeout(Error, TimeoutError):
    """No answer within the call's timeout."""


class BadResponse(Error):
    """The server answered something that is not Cube's JSON: an HTML page
    (a proxy or a login portal in the way), a truncated or garbled body."""


class ConfigError(Error):
    """The config file or the environment is unusable (no server, a bad
    file, a context that does not exist)."""


_BY_STATUS = {400: Invalid, 401: Unauthorized, 403: Forbidden, 404: NotFound,
              409: Conflict, 410: Gone, 422: Invalid, 502: Unavailable,
              503: Unavailable, 504: Unavailable}


def _snippet(data: bytes, n: int = 120) -> str:
    text = data[:n * 2].decode("utf-8", "replace")
    text = " ".join(text.split())
    return repr(text[:n] + ("…" if len(text) > n else ""))


def from_response(method: str, url: str, status: int, ctype: str,
                  data: bytes, note: str = "") -> Error:
    """The typed error for a non-2xx answer (``note`` is appended to the
    message: how long it was retried)."""
    e = _from_response(method, url, status, ctype, data)
    if note:
        e.message += f" ({note})"
        e.args = (e._text(),)
    return e


def _from_response(method: str, url: str, status: int, ctype: str, data: bytes) -> Error:
    cls = _BY_STATUS.get(status, Error)
    err: Any = None
    if "json" in ctype:
        try:
            import json
            err = json.loads(data.decode("utf-8")).get("error")
        except (ValueError, AttributeError, UnicodeDecodeError):
            err = None
    if not isinstance(err, dict):
        what = ctype.split(";")[0] or "no content type"
        msg = f"the server answered {what}, not Cube's JSON: {_snippet(data)}"
        hint = "is a proxy or a login page in the way of the API?" if "html" in ctype else ""
        if status in (502, 503, 504):
            return Unavailable(msg, status=status, code="Unavailable", method=method,
                               url=url, hint=hint)
        return (cls if cls is not Error else BadResponse)(
            msg, status=status, code="BadResponse", method=method, url=url, hint=hint)
    hint = ""
    if cls is Unauthorized:
        hint = ("sign in again (cubectl login) or set CUBE_TOKEN to a valid API token")
    field = err.get("field") if isinstance(err.get("field"), str) else None
    return cls(str(err.get("message", "")), status=status, code=str(err.get("code", "")),
               field=field, method=method, url=url, hint=hint)

