"""The SDK's own PEP 517/660 build backend, standard library only, so that
``pip install sdk/python`` and ``pip install -e sdk/python`` need nothing
from a package index (no setuptools download: they work offline).

It builds a pure-Python wheel of the packages ``cube`` and ``nni``, an
sdist, and for editable installs a wheel holding one ``.pth`` file that
puts this directory on ``sys.path``.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "cube-sdk"
DIST = "cube_sdk"
PACKAGES = ("cube", "nni")
SUMMARY = ("Cube's Python SDK: the resource API of every kind, Jobs, notebooks, "
           "pipelines and the NNI trial API")


def _version() -> str:
    with open(os.path.join(HERE, "cube", "_version.py"), encoding="utf-8") as f:
        m = re.search(r'__version__ = "([^"]+)"', f.read())
    if not m:
        raise RuntimeError("cube/_version.py holds no __version__")
    return m.group(1)


def _metadata() -> str:
    readme = os.path.join(HERE, "README.md")
    body = ""
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\n"
            f"Summary: {SUMMARY}\nLicense: Apache-2.0\nRequires-Python: >=3.9\n"
            "Classifier: Programming Language :: Python :: 3\n"
            "Classifier: Typing :: Typed\n"
            "Description-Content-Type: text/markdown\n\n" + body)


def _files() -> List[Tuple[str, str]]:
    """(path in the archive, path on disk) of the packages' files."""
    out = []
    for pkg in PACKAGES:
        for root, dirs, files in os.walk(os.path.join(HERE, pkg)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for f in sorted(files):
                if f.endswith((".py", ".typed")):
                    disk = os.path.join(root, f)
                    out.append((os.path.relpath(disk, HERE).replace(os.sep, "/"), disk))
    return out


def _hash(data: bytes) -> str:
    d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + d.decode("ascii")


def _wheel(directory: str, entries: List[Tuple[str, bytes]]) -> str:
    ver = _version()
    info = f"{DIST}-{ver}.dist-info"
    entries = entries + [
        (f"{info}/METADATA", _metadata().encode("utf-8")),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: cube_build\n"
                          b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
        (f"{info}/entry_points.txt", b"[console_scripts]\ncube-sdk = cube.__main__:main\n"),
        (f"{info}/top_level.txt", "\n".join(PACKAGES).encode() + b"\n")]
    record = "".join(f"{p},{_hash(d)},{len(d)}\n" for p, d in entries) + f"{info}/RECORD,,\n"
    name = f"{DIST}-{ver}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for p, d in entries + [(f"{info}/RECORD", record.encode("utf-8"))]:
            zi = zipfile.ZipInfo(p, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, d)
    return name


# -- PEP 517 ---------------------------------------------------------------

def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None
                                    ) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    entries = []
    for arc, disk in _files():
        with open(disk, "rb") as f:
            entries.append((arc, f.read()))
    return _wheel(wheel_directory, entries)


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                   metadata_directory: Optional[str] = None) -> str:
    return _wheel(wheel_directory, [(f"{DIST}.pth", (HERE + "\n").encode("utf-8"))])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    base = f"{DIST}-{_version()}"
    name = base + ".tar.gz"
    extra = [(p, os.path.join(HERE, p)) for p in ("pyproject.toml", "cube_build.py",
                                                    "README.md")
             if os.path.exists(os.path.join(HERE, p))]
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for arc, disk in _files() + extra:
            t.add(disk, arcname=f"{base}/{arc}")
        data = _metadata().encode("utf-8")
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    return name
