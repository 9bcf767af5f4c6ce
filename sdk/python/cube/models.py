"""Models: register trained models as versions of a family, read them,
promote one to production, deploy it as an inference service.

    import cube
    m = cube.models.register("out/iris.pkl", framework="sklearn",
                             metrics={"accuracy": 0.97}, name="iris")
    print(m.version, m.status.sha256)      # 3, the file's SHA-256
    m.promote("production")                # the family's previous one is archived
    m.deploy()                             # an InferenceService "iris"
    cube.models.production("iris")         # the Model in production, or None
    for v in cube.models.versions("iris"):
        print(v.version, v.stage, v.metrics)

A file or directory inside the project's files (``$CUBE_PROJECT_DIR`` in a
Job, a pipeline task or a notebook) is registered where it is (cubed reads
and hashes it there); anything else is uploaded (streamed, a file at a
time). Inside a Job, ``source`` is filled from the environment: the
pipeline run and task, or the experiment trial, or the Job itself.
"""
from __future__ import annotations

import os
import re
from typing import Any, Callable, Dict, List, Mapping, Optional

from .errors import Conflict, Error, Invalid
from .handle import Handle, resolve
from .obj import Obj
from .transport import segment

FRAMEWORKS = ("sklearn", "xgboost", "pytorch", "onnx", "custom")
STAGES = ("none", "staging", "production", "archived")
FAMILY = re.compile(r"[a-z0-9]([a-z0-9-]{0,52}[a-z0-9])?\Z")


class Model(Handle):
    """One registered version (a Model object) by name."""

    plural = "models"
    done = ("Ready", "Failed")

    @property
    def family(self) -> str:
        return str((self.obj or self.get()).spec.get("name"))

    @property
    def version(self) -> int:
        return int((self.obj or self.get()).spec.get("version") or 0)

    @property
    def stage(self) -> str:
        return str((self.obj or self.get()).status.get("stage", "none"))

    @property
    def metrics(self) -> Dict[str, Any]:
        return dict((self.obj or self.get()).spec.get("metrics") or {})

    @property
    def status(self) -> Any:
        return (self.obj or self.get()).status

    def _files_path(self, rel: Optional[str] = None) -> str:
        p = self.client.path("models", self.name, self.project, "files")
        return p + ("/" + "/".join(segment(s) for s in rel.split("/")) if rel else "")

    def files(self) -> List[Dict[str, Any]]:
        """``[{"path", "size", "sha256", "md5"}]`` of the version's files."""
        return list(self.client.request("GET", self._files_path()).json().get("files", []))

    def upload(self, local: str, path: Optional[str] = None,
               progress: Optional[Callable[[int, int], None]] = None) -> Obj:
        """Uploads one local file as ``path`` (default: its base name) of
        this version; returns the Model as it is then."""
        r = self.client.transport.send_file("POST", self._files_path(),
                                            {"path": path or os.path.basename(local)}, local,
                                            progress)
        self.obj = Obj(r.json())
        return self.obj

    def download(self, path: str, dest: str) -> str:
        """Writes the version's file ``path`` to ``dest`` (a file, or a
        directory to put it in) and checks its SHA-256; returns where."""
        import hashlib
        if os.path.isdir(dest):
            dest = os.path.join(dest, os.path.basename(path))
        want = {f["path"]: f.get("sha256") for f in self.files()}.get(path)
        r = self.client.request("GET", self._files_path(path), headers={"Accept": "*/*"},
                                timeout=max(self.client.transport.timeout, 600))
        if want and hashlib.sha256(r.data).hexdigest() != want:
            raise Error(f"{path}: the bytes downloaded are not the version's (sha256 "
                        f"{want[:12]}…)", code="DigestMismatch")
        with open(dest, "wb") as f:
            f.write(r.data)
        return dest

    def promote(self, stage: str = "production") -> Obj:
        """Moves the version to ``stage`` (none, staging, production,
        archived). Production archives the family's previous one."""
        if stage not in STAGES:
            raise Invalid(f"stage must be one of {', '.join(STAGES)}", code="Invalid",
                          field="stage")
        self.obj = Obj(self.action("promote", {"stage": stage}))
        return self.obj

    def deploy(self, service: Optional[str] = None, *, replicas: Optional[Mapping[str, int]] = None,
               resources: Optional[Mapping[str, Any]] = None) -> Obj:
        """Creates (or points at this version) the InferenceService
        ``service`` (default: the family's name); returns it."""
        body: Dict[str, Any] = {}
        for k, v in (("service", service), ("replicas", replicas), ("resources", resources)):
            if v is not None:
                body[k] = dict(v) if isinstance(v, Mapping) else v
        out = self.action("deploy", body)
        return Obj(out.get("service", out) if isinstance(out, Mapping) else {})


def source_from_env(env: Optional[Mapping[str, str]] = None) -> Optional[Dict[str, Any]]:
    """What produced a model, from a Job's environment: the pipeline run
    and task, the experiment and trial, or the Job; None outside one."""
    e = os.environ if env is None else env
    job = e.get("CUBE_JOB")
    if e.get("CUBE_PIPELINE_RUN"):
        src: Dict[str, Any] = {"kind": "PipelineRun", "name": e["CUBE_PIPELINE_RUN"]}
        if e.get("CUBE_PIPELINE"):
            src["pipeline"] = e["CUBE_PIPELINE"]
        if e.get("CUBE_TASK"):
            src["task"] = e["CUBE_TASK"]
    elif e.get("CUBE_EXPERIMENT"):
        src = {"kind": "Experiment", "name": e["CUBE_EXPERIMENT"]}
        m = re.search(r"-(\d+)\Z", e.get("CUBE_TRIAL_ID", ""))
        if m:
            src["trial"] = int(m.group(1))
    elif job:
        return {"kind": "Job", "name": job}
    else:
        return None
    if job:
        src["job"] = job
    return src


def family_of(path: str) -> str:
    """A family name from a file name: "out/Iris_LR.pkl" gives "iris-lr"."""
    base = os.path.basename(os.path.normpath(path)).split(".")[0].lower()
    name = re.sub(r"[^a-z0-9]+", "-", base).strip("-")[:54].strip("-")
    return name or "model"


def _in_project(path: str, project: str, c: Any) -> Optional[str]:
    """path relative to the project's files when it lies inside them (a
    Job of that project), else None."""
    root = os.environ.get("CUBE_PROJECT_DIR")
    if not root or os.environ.get("CUBE_PROJECT", project) != project:
        return None
    root, full = os.path.realpath(root), os.path.realpath(path)
    if full == root or not full.startswith(root + os.sep):
        return None
    return os.path.relpath(full, root).replace(os.sep, "/")


def _local_files(path: str) -> List[str]:
    if os.path.isfile(path):
        return [path]
    out = []
    for d, dirs, files in os.walk(path):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        out += [os.path.join(d, f) for f in sorted(files) if not f.startswith(".")]
    return out


def register(path: str, *, framework: str, name: Optional[str] = None,
             version: Optional[int] = None, metrics: Optional[Mapping[str, Any]] = None,
             params: Optional[Mapping[str, Any]] = None, describe: Optional[str] = None,
             inference: Optional[Mapping[str, Any]] = None,
             source: Optional[Mapping[str, Any]] = None,
             pytorch: Optional[Mapping[str, Any]] = None, upload: Optional[bool] = None,
             project: Optional[str] = None, client: Any = None, wait: bool = True,
             timeout: float = 600.0,
             progress: Optional[Callable[[str, int, int], None]] = None) -> Model:
    """Registers the model file or directory ``path`` as the next version
    of family ``name`` (default: from the file name) and returns it,
    Ready (``wait``; a version whose files are not of the framework raises
    :class:`cube.Invalid` naming the file). ``upload`` None: in place when
    the path is inside the project's files, uploaded otherwise.

        m = cube.models.register("model.onnx", framework="onnx",
                                 metrics={"top1": 0.76}, name="resnet")
    """
    if framework not in FRAMEWORKS:
        raise Invalid(f"framework must be one of {', '.join(FRAMEWORKS)}", code="Invalid",
                      field="framework")
    if not os.path.exists(path):
        raise Invalid(f"{path}: no such file or directory", code="Invalid", field="path")
    c = resolve(client)
    proj = project or c.project
    family = name or family_of(path)
    if not FAMILY.match(family):
        raise Invalid("name: lower-case letters, digits and '-', at most 54", code="Invalid",
                      field="name")
    rel = None if upload else _in_project(path, proj, c)
    if upload is False and rel is None:
        raise Invalid(f"{path} is not inside the project's files ($CUBE_PROJECT_DIR): it must "
                      f"be uploaded", code="Invalid", field="path")
    spec: Dict[str, Any] = {"name": family, "framework": framework}
    for key, val in (("metrics", metrics), ("params", params), ("describe", describe),
                     ("inference", inference), ("pytorch", pytorch),
                     ("source", source if source is not None else source_from_env())):
        if val is not None:
            spec[key] = dict(val) if isinstance(val, Mapping) else val
    if rel is not None:
        spec["path"] = rel
    m = _create(c, proj, family, version, spec)
    if rel is None:
        base = path if os.path.isdir(path) else os.path.dirname(path) or "."
        for f in _local_files(path):
            name_in = os.path.relpath(f, base).replace(os.sep, "/")
            m.upload(f, name_in, _progress_of(progress, name_in))
    if not wait:
        return m
    o = m.wait(timeout, until=("Ready", "Failed", "AwaitingUpload"))
    if o.status.get("phase") != "Ready":
        raise Invalid(f"models/{m.name}: {o.status.get('phase')}: {o.status.get('message', '')}",
                      code="Invalid", field=o.status.get("field") or "path")
    return m


def _progress_of(progress: Optional[Callable[[str, int, int], None]],
                 name: str) -> Optional[Callable[[int, int], None]]:
    if progress is None:
        return None
    cb = progress
    return lambda sent, total: cb(name, sent, total)


def _version_of(m: Model) -> int:
    return int((m.obj or m.get()).spec.get("version") or 0)


def _create(c: Any, project: str, family: str, version: Optional[int],
            spec: Dict[str, Any]) -> Model:
    """The new Model "<family>-v<n>", n the next free version (or version)."""
    taken = {_version_of(v) for v in versions(family, project=project, client=c)}
    n = version or (max(taken) + 1 if taken else 1)
    for _ in range(50):
        body = {"metadata": {"name": f"{family}-v{n}"}, "spec": dict(spec, version=n)}
        try:
            obj = c.create("models", body, project=project)
            return Model(obj.metadata.name, client=c, project=project, obj=obj)
        except Conflict:
            if version:
                raise
            n += 1
    raise Conflict(f"no free version of {family} near {n}", code="Conflict")


def get(name: str, *, project: Optional[str] = None, client: Any = None) -> Model:
    """The Model object ``name`` (a version: "iris-v3")."""
    m = Model(name, client=client, project=project)
    m.get()
    return m


def versions(family: str, *, project: Optional[str] = None, client: Any = None) -> List[Model]:
    """Every version of the family, lowest first."""
    c = resolve(client)
    items = c.list("models", project=project, selector=f"model={family}")
    out = [Model(o.metadata.name, client=c, project=o.project or project, obj=o) for o in items]
    return sorted(out, key=_version_of)


def production(family: str, *, project: Optional[str] = None,
               client: Any = None) -> Optional[Model]:
    """The family's production version, or None."""
    for m in versions(family, project=project, client=client):
        if m.stage == "production":
            return m
    return None
