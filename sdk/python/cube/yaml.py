"""YAML out (as Cube's server writes it) and a small YAML reader.

:func:`dump` writes exactly what ``GET …/pipelines/{name}/export`` answers
for the same document: block mappings and sequences, strings and other
scalars as JSON (valid YAML), empty collections as ``{}`` and ``[]``::

    text = cube.yaml.dump({"kind": "Pipeline", "spec": {"tasks": []}})

:func:`load` reads JSON, and the block YAML that :func:`dump` and people
write for config files: mappings, sequences, ``- key: value`` items,
comments, plain, single- and double-quoted scalars (YAML 1.2 core schema:
``yes`` is a string) and flow collections written as JSON. Anchors, tags,
block scalars (``|``, ``>``) and multi-line plain scalars are refused with
the line, not misread.
"""
from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Tuple

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-./]*\Z")


def _number(v: float) -> str:
    """A number as cJSON prints it (the server's writer)."""
    if v != v or v in (float("inf"), float("-inf")):
        return "null"
    if -2 ** 31 <= v <= 2 ** 31 - 1 and v == int(v):
        return "%d" % int(v)
    s = "%1.15g" % v
    return s if float(s) == v else "%1.17g" % v


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return _number(float(v)) if isinstance(v, float) or abs(v) >= 2 ** 31 else str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict) and not v:
        return "{}"
    if isinstance(v, (list, tuple)) and not v:
        return "[]"
    raise TypeError(f"cannot write {type(v).__name__} as YAML")


def _key(k: str) -> str:
    return k if _PLAIN_KEY.match(k) else json.dumps(k, ensure_ascii=False)


def _block(v: Any) -> bool:
    return isinstance(v, (dict, list, tuple)) and len(v) > 0


def _value(out: List[str], v: Any, ind: int) -> None:
    if not _block(v):
        out.append(" " + _scalar(v) + "\n")
    else:
        out.append("\n")
        _node(out, v, ind)


def _node(out: List[str], v: Any, ind: int) -> None:
    pad = " " * ind
    if isinstance(v, dict):
        for k, c in v.items():
            out.append(pad + _key(str(k)) + ":")
            _value(out, c, ind + 2)
        return
    for c in v:
        if isinstance(c, dict) and c:
            first = True
            for k, m in c.items():
                out.append((pad + "- " if first else pad + "  ") + _key(str(k)) + ":")
                _value(out, m, ind + 4)
                first = False
        else:
            out.append(pad + "-")
            _value(out, c, ind + 2)


def dump(doc: Any) -> str:
    """``doc`` (dicts, lists, scalars) as YAML text, byte for byte as the
    server's pipeline export writes it."""
    out: List[str] = []
    if _block(doc):
        _node(out, doc, 0)
    else:
        _value(out, doc, 0)
    return "".join(out)


# -- reader -----------------------------------------------------------------

class YAMLError(ValueError):
    """Text :func:`load` cannot read; the message starts with ``line N:``."""


_INT = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")


def _plain(s: str, line: int) -> Any:
    if s in ("", "~", "null", "Null", "NULL"):
        return None
    if s in ("true", "True", "TRUE"):
        return True
    if s in ("false", "False", "FALSE"):
        return False
    if _INT.match(s):
        return int(s)
    if _FLOAT.match(s):
        return float(s)
    if s[0] in "&*!|>%@`":
        raise YAMLError(f"line {line}: {s[0]!r} (anchors, tags, block scalars) is not "
                        "supported here: write the file as JSON")
    return s


def _strip_comment(s: str) -> str:
    """s without a trailing ' # comment' outside quotes."""
    q = None
    for i, ch in enumerate(s):
        if q:
            if ch == q and (q == "'" or s[i - 1] != "\\"):
                q = None
        elif ch in "'\"" and (i == 0 or s[i - 1] in " :-[{,"):
            q = ch
        elif ch == "#" and (i == 0 or s[i - 1] in " \t"):
            return s[:i].rstrip()
    return s.rstrip()


def _scalar_in(s: str, line: int) -> Any:
    s = s.strip()
    if not s:
        return None
    if s[0] == '"' or s[0] in "[{":
        try:
            return json.loads(s)
        except ValueError:
            raise YAMLError(f"line {line}: cannot read {s!r} (flow collections and "
                            "double-quoted strings are read as JSON)") from None
    if s[0] == "'":
        if len(s) < 2 or s[-1] != "'":
            raise YAMLError(f"line {line}: unterminated single-quoted string")
        return s[1:-1].replace("''", "'")
    return _plain(s, line)


def _split_key(s: str, line: int) -> Optional[Tuple[str, str]]:
    """(key, rest) when s is "key: rest" or "key:", else None."""
    if s[:1] in "\"'":
        q = s[0]
        end = s.find(q, 1)
        while q == '"' and end > 0 and s[end - 1] == "\\":
            end = s.find(q, end + 1)
        if end < 0 or s[end + 1:end + 2] != ":":
            return None
        key = _scalar_in(s[:end + 1], line)
        return str(key), s[end + 2:]
    m = re.match(r"([^:#]*[^:\s#])\s*:(\s|\Z)", s)
    if not m or s[:1] in "[{":
        return None
    return m.group(1), s[m.end():]


class _Reader:
    def __init__(self, text: str) -> None:
        self.lines: List[Tuple[int, int, str]] = []   # (line number, indent, text)
        for n, raw in enumerate(text.splitlines(), 1):
            if "\t" in raw[:len(raw) - len(raw.lstrip())]:
                raise YAMLError(f"line {n}: a tab in the indentation")
            body = _strip_comment(raw)
            if body.strip() in ("", "---", "..."):
                continue
            self.lines.append((n, len(body) - len(body.lstrip()), body.strip()))
        self.i = 0

    def parse(self, ind: int) -> Any:
        n, got, text = self.lines[self.i]
        if text.startswith("- ") or text == "-":
            return self.seq(got)
        return self.map(got)

    def item_value(self, rest: str, line: int, ind: int) -> Any:
        if rest.strip():
            return _scalar_in(rest, line)
        if self.i < len(self.lines) and self.lines[self.i][1] > ind:
            return self.parse(self.lines[self.i][1])
        if self.i < len(self.lines) and self.lines[self.i][1] == ind and \
                self.lines[self.i][2].startswith("-"):
            return self.seq(ind)     # "key:" then "- x" at the same indent
        return None

    def map(self, ind: int) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        while self.i < len(self.lines):
            n, got, text = self.lines[self.i]
            if got < ind:
                break
            if got > ind:
                raise YAMLError(f"line {n}: unexpected indentation")
            kv = _split_key(text, n)
            if kv is None:
                raise YAMLError(f"line {n}: expected 'key: value', got {text!r}")
            if kv[0] in out:
                raise YAMLError(f"line {n}: duplicate key {kv[0]!r}")
            self.i += 1
            out[kv[0]] = self.item_value(kv[1], n, ind)
        return out

    def seq(self, ind: int) -> List[Any]:
        out: List[Any] = []
        while self.i < len(self.lines):
            n, got, text = self.lines[self.i]
            if got < ind or not (text.startswith("- ") or text == "-"):
                if got > ind:
                    raise YAMLError(f"line {n}: unexpected indentation")
                break
            rest = text[1:].lstrip()
            inner = ind + (len(text) - len(rest))
            if rest and _split_key(rest, n) is not None:
                self.lines[self.i] = (n, inner, rest)   # "- k: v": a mapping here
                out.append(self.map(inner))
                continue
            self.i += 1
            out.append(self.item_value(rest, n, ind))
        return out


def load(text: str) -> Any:
    """A JSON or YAML document (the subset described above) as Python
    values; raises :class:`YAMLError` naming the line."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    r = _Reader(text)
    if not r.lines:
        return None
    n, ind, first = r.lines[0]
    if _split_key(first, n) is None and not first.startswith("-"):
        if len(r.lines) > 1:
            raise YAMLError(f"line {r.lines[1][0]}: a second value after a scalar document")
        return _scalar_in(first, n)
    doc = r.parse(ind)
    if r.i < len(r.lines):
        raise YAMLError(f"line {r.lines[r.i][0]}: unexpected indentation")
    return doc
