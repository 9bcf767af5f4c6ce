"""Pipelines in Python: a DAG of tasks from job templates (or commands),
outputs passed by reference, a schedule; submit, run, wait, export.

    from cube.pipelines import Pipeline
    with Pipeline("iris", schedule="30 2 * * *", timezone="Asia/Shanghai") as p:
        imp = p.task("import", template="data-import",
                     args={"--source": "sklearn", "--sklearn_dataset": "iris"})
        split = p.task("split", template="data-split",
                       args={"--input_csv": imp.outputs["path"]})   # upstream implied
        p.task("report", command=["sh", "-c", "echo rows for {{ ds }}"]).after(split)
    p.submit()                      # created, or updated by name
    run = p.run()                   # a PipelineRun
    run.wait(timeout=600)           # Succeeded, Failed or Stopped
    print(run.outputs("split"))     # {"train_csv": …}
    open("iris.yaml", "w").write(p.to_yaml())   # what the console imports

A task's spec fields are those of the Pipeline kind (README "Pipelines"):
``template`` + ``args``, or ``command``; ``upstream``, ``workdir``, ``env``,
``resources``, ``nodeSelector``, ``retries``, ``retryBackoffSeconds``,
``timeoutSeconds``, ``skip``, ``label``. ``task.outputs["key"]`` renders
``{{ tasks.<task>.outputs.<key> }}`` and makes the task an upstream of the
one using it.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from . import yaml
from .errors import Invalid
from .handle import Handle, resolve
from .obj import Obj

TASK_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
OUTPUT_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")
OUTPUT_REF = re.compile(r"\{\{\s*tasks\.([a-z0-9-]+)\.outputs\.")
RUN_DONE = ("Succeeded", "Failed", "Stopped")


def _bad(field: str, msg: str) -> Invalid:
    return Invalid(f"{field}: {msg}", code="Invalid", field=field)


class Output(str):
    """``{{ tasks.<task>.outputs.<key> }}``: a str, usable in args, env
    and commands, also inside f-strings."""

    task: str
    key: str

    def __new__(cls, task: str, key: str) -> "Output":
        o = super().__new__(cls, f"{{{{ tasks.{task}.outputs.{key} }}}}")
        o.task, o.key = task, key
        return o


class Outputs:
    """``task.outputs["key"]`` (or ``task.outputs.key``)."""

    def __init__(self, task: str) -> None:
        self._task = task

    def __getitem__(self, key: str) -> Output:
        if not isinstance(key, str) or not OUTPUT_KEY.match(key):
            raise _bad(f"tasks.{self._task}.outputs",
                       f"{key!r} is not an output key (letters, digits, '_' and '-')")
        return Output(self._task, key)

    def __getattr__(self, key: str) -> Output:
        if key.startswith("_"):
            raise AttributeError(key)
        return self[key]


class Task:
    """One task of a :class:`Pipeline`; made by :meth:`Pipeline.task`."""

    def __init__(self, pipeline: "Pipeline", name: str, fields: Dict[str, Any]) -> None:
        self.pipeline, self.name, self.fields = pipeline, name, fields
        self.upstream: List[str] = []
        self.outputs = Outputs(name)

    def after(self, *tasks: Union["Task", str]) -> "Task":
        """Runs this task after those (tasks or their names); returns it."""
        for t in tasks:
            n = t.name if isinstance(t, Task) else t
            if not isinstance(n, str):
                raise TypeError(f"after() takes tasks or task names, got {t!r}")
            if n not in self.upstream:
                self.upstream.append(n)
        return self

    def refs(self) -> List[str]:
        """Tasks whose outputs this one uses (from its strings)."""
        found: List[str] = []

        def walk(v: Any) -> None:
            if isinstance(v, str):
                found.extend(m for m in OUTPUT_REF.findall(v) if m not in found)
            elif isinstance(v, Mapping):
                for x in v.values():
                    walk(x)
            elif isinstance(v, (list, tuple)):
                for x in v:
                    walk(x)
        for key in ("args", "command", "env", "workdir"):
            walk(self.fields.get(key))
        return found

    def to_dict(self) -> Dict[str, Any]:
        """The task as the Pipeline spec holds it."""
        d: Dict[str, Any] = {"name": self.name}
        d.update({k: _plain(v) for k, v in self.fields.items() if v is not None})
        up = list(self.upstream)
        up += [r for r in self.refs() if r != self.name and r not in up and
               r in self.pipeline.tasks]
        if up:
            d["upstream"] = up
        return d


def _plain(v: Any) -> Any:
    """Output references as plain strings (JSON takes either)."""
    if isinstance(v, str):
        return str(v)
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


_TASK_FIELDS = {"label": "label", "workdir": "workdir", "env": "env",
                "resources": "resources", "node_selector": "nodeSelector",
                "retries": "retries", "retry_backoff_seconds": "retryBackoffSeconds",
                "timeout_seconds": "timeoutSeconds", "skip": "skip"}
_SPEC_FIELDS = {"description": "description", "env": "env", "parallelism": "parallelism",
                "paused": "paused", "depends_on_past": "dependsOnPast",
                "max_active_runs": "maxActiveRuns", "expired_limit": "expiredLimit",
                "alerts": "alerts", "alert_users": "alertUsers"}


class Pipeline:
    """A pipeline being built: ``with Pipeline("name") as p: p.task(...)``.
    Keyword arguments are the spec's (``description``, ``env``,
    ``parallelism``, ``schedule``, ``timezone``, ``start_time``, ``paused``,
    ``depends_on_past``, ``max_active_runs``, ``expired_limit``,
    ``alerts``, ``alert_users``) and the object's ``labels``."""

    def __init__(self, name: str, *, schedule: Optional[str] = None,
                 timezone: Optional[str] = None, start_time: Optional[str] = None,
                 labels: Optional[Mapping[str, str]] = None, project: Optional[str] = None,
                 client: Any = None, **spec: Any) -> None:
        from .client import check_name
        self.name = check_name(name)
        unknown = sorted(set(spec) - set(_SPEC_FIELDS))
        if unknown:
            raise TypeError(f"Pipeline() got unknown arguments: {', '.join(unknown)} "
                            f"(spec fields: {', '.join(sorted(_SPEC_FIELDS))})")
        self.settings: Dict[str, Any] = {_SPEC_FIELDS[k]: v for k, v in spec.items()}
        self.labels = dict(labels or {})
        self.project, self.client = project, client
        self.tasks: Dict[str, Task] = {}
        self._sched: Dict[str, Any] = {}
        if schedule is not None or timezone is not None or start_time is not None:
            self.schedule(schedule or "once", timezone=timezone, start_time=start_time)
        self.object: Optional[Obj] = None      # as the server stored it

    def __enter__(self) -> "Pipeline":
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if exc_type is None:
            self.validate()

    def task(self, name: str, template: Optional[str] = None, *,
             args: Optional[Mapping[str, Any]] = None,
             command: Optional[Sequence[str]] = None,
             upstream: Sequence[Union[Task, str]] = (), **fields: Any) -> Task:
        """Adds a task from a job template (``template`` and its ``args``)
        or a ``command``; other keywords: ``label``, ``workdir``, ``env``,
        ``resources``, ``node_selector``, ``retries``,
        ``retry_backoff_seconds``, ``timeout_seconds``, ``skip``.

            t = p.task("train", template="sklearn-lr",
                       args={"--train_csv": split.outputs["train_csv"]}, retries=2)
        """
        field = f"spec.tasks[{len(self.tasks)}]"
        if not isinstance(name, str) or len(name) > 40 or not TASK_NAME.match(name):
            raise _bad(f"{field}.name", f"{name!r}: 1 to 40 lowercase letters, digits or '-', "
                       "starting and ending with a letter or digit")
        if name in self.tasks:
            raise _bad(f"{field}.name", f'"{name}" is used by another task')
        unknown = sorted(set(fields) - set(_TASK_FIELDS))
        if unknown:
            raise TypeError(f"task() got unknown arguments: {', '.join(unknown)} "
                            f"(task fields: {', '.join(sorted(_TASK_FIELDS))})")
        if (template is None) == (command is None):
            raise _bad(f"{field}.template", "a task needs a template or a command (not both)")
        if command is not None and (isinstance(command, str) or not command):
            raise _bad(f"{field}.command", "a non-empty list of strings")
        if command is not None and args:
            raise _bad(f"{field}.args", "args need a template that declares them")
        f: Dict[str, Any] = {"template": template, "args": dict(args) if args else None,
                             "command": list(command) if command is not None else None}
        f.update({_TASK_FIELDS[k]: v for k, v in fields.items()})
        t = Task(self, name, f)
        self.tasks[name] = t
        return t.after(*upstream)

    def schedule(self, cron: str, *, timezone: Optional[str] = None,
                 start_time: Optional[str] = None) -> "Pipeline":
        """Runs on a cron schedule (``"30 2 * * *"``, ``"@daily"``, or
        ``"once"``: only when asked), in ``timezone`` (IANA), from
        ``start_time`` (ISO 8601; a past one backfills)."""
        self._sched = {k: v for k, v in (("schedule", cron), ("timezone", timezone),
                                         ("startTime", start_time)) if v is not None}
        return self

    # -- the document -------------------------------------------------------

    def validate(self) -> None:
        """Checks what the server would refuse about the DAG, naming the
        field as it does: no tasks, an unknown upstream, a task depending on
        itself, a cycle."""
        if not self.tasks:
            raise _bad("spec.tasks", "a pipeline needs at least one task")
        order = list(self.tasks)
        deps = {n: t.to_dict().get("upstream", []) for n, t in self.tasks.items()}
        for i, n in enumerate(order):
            for r in self.tasks[n].refs():
                if r not in self.tasks:
                    raise _bad(f"spec.tasks[{i}]", f'uses the outputs of "{r}", which is '
                               "no task of this pipeline")
            for j, u in enumerate(deps[n]):
                f = f"spec.tasks[{i}].upstream[{j}]"
                if u == n:
                    raise _bad(f, "a task cannot depend on itself")
                if u not in self.tasks:
                    raise _bad(f, f'no task is named "{u}"')
        # Kahn's algorithm, as the server: the first task (in order) left
        # with an upstream not done is named
        indeg = {n: len(deps[n]) for n in order}
        ready = [n for n in order if not indeg[n]]
        while ready:
            done = ready.pop()
            for n in order:
                if done in deps[n]:
                    indeg[n] -= deps[n].count(done)
                    if not indeg[n]:
                        ready.append(n)
        left = [n for n in order if indeg[n] > 0]
        if left:
            raise _bad(f"spec.tasks[{order.index(left[0])}].upstream",
                       f'task "{left[0]}" is on a dependency cycle')

    def spec(self) -> Dict[str, Any]:
        """The Pipeline's ``spec``."""
        s: Dict[str, Any] = {}
        if "description" in self.settings:
            s["description"] = self.settings["description"]
        s["tasks"] = [t.to_dict() for t in self.tasks.values()]
        s.update({k: _plain(v) for k, v in self.settings.items()
                  if k != "description" and v is not None})
        s.update(self._sched)
        return s

    def to_object(self) -> Dict[str, Any]:
        """The document the console exports and imports:
        ``{apiVersion, kind, metadata: {name, labels}, spec}``."""
        meta: Dict[str, Any] = {"name": self.name}
        if self.labels:
            meta["labels"] = dict(self.labels)
        return {"apiVersion": "cube/v1", "kind": "Pipeline", "metadata": meta,
                "spec": self.spec()}

    def to_yaml(self) -> str:
        """:meth:`to_object` as YAML, written as the server's export writes it."""
        self.validate()
        return yaml.dump(self.to_object())

    @classmethod
    def from_object(cls, doc: Mapping[str, Any]) -> "Pipeline":
        """A Pipeline from a stored or exported document (to change it)."""
        meta, spec = doc.get("metadata") or {}, dict(doc.get("spec") or {})
        p = cls(meta.get("name", ""), labels={k: v for k, v in (meta.get("labels") or {})
                                              .items() if not k.startswith("cube.dev/")},
                project=meta.get("project"))
        for key in ("schedule", "timezone", "startTime"):
            if key in spec:
                p._sched[key] = spec.pop(key)
        back = {v: k for k, v in _TASK_FIELDS.items()}
        for t in spec.pop("tasks", []):
            extra = {back[k]: v for k, v in t.items() if k in back}
            task = p.task(t["name"], t.get("template"), args=t.get("args"),
                          command=t.get("command"), **extra)
            task.upstream = list(t.get("upstream") or [])
            if "layout" in t:
                task.fields["layout"] = t["layout"]
        p.settings.update(spec)
        return p

    @classmethod
    def from_yaml(cls, text: str) -> "Pipeline":
        """A Pipeline from exported YAML (or JSON)."""
        doc = yaml.load(text)
        if not isinstance(doc, dict) or doc.get("kind", "Pipeline") != "Pipeline":
            raise _bad("kind", "not a Pipeline document")
        return cls.from_object(doc)

    # -- on the server ------------------------------------------------------

    def submit(self, *, client: Any = None, project: Optional[str] = None) -> Obj:
        """Creates the pipeline, or updates it by name (as ``cubectl
        apply``); returns the stored object (``outcome`` says which)."""
        self.validate()
        c = resolve(client or self.client)
        self.client = c
        doc = self.to_object()
        self.object = c.apply("pipelines", {"metadata": doc["metadata"], "spec": doc["spec"]},
                              project=project or self.project)
        self.project = self.object.project or project or self.project
        return self.object

    def run(self, execution_date: Optional[str] = None, *, client: Any = None,
            project: Optional[str] = None) -> "Run":
        """Starts a run now (submitting the pipeline first if this object
        has not been); ``execution_date`` (ISO) sets ``{{ ds }}``."""
        if self.object is None or client is not None:
            self.submit(client=client, project=project)
        return run(self.name, execution_date, client=self.client, project=self.project)


class Run(Handle):
    """A PipelineRun by name."""

    plural = "pipelineruns"
    done = RUN_DONE

    def tasks(self) -> Dict[str, Any]:
        """``status.tasks``: per task phase, job, attempts, outputs, results."""
        return dict((self.obj or self.get()).status.get("tasks") or {})

    def outputs(self, task: str) -> Dict[str, Any]:
        """What a finished task wrote to ``CUBE_OUTPUTS``."""
        return dict((self.tasks().get(task) or {}).get("outputs") or {})

    def logs(self, task: str, follow: bool = False) -> Iterator[str]:
        """A task's log (its Job's) as lines."""
        from .client import check_name
        path = self.client.path(self.plural, self.name, self.project, "tasks",
                                check_name(task, "task"), "logs")
        return self.client.logs(self.plural, self.name, project=self.project, follow=follow,
                                path=path)

    def stop(self) -> Any:
        """Stops the running tasks; they and what had not started become Stopped."""
        return self.action("stop")

    def rerun(self, from_task: Optional[str] = None) -> Any:
        """The failed tasks again, or ``from_task`` and what is downstream."""
        return self.action("rerun", {"from": from_task} if from_task else {})


def run(name: str, execution_date: Optional[str] = None, *, client: Any = None,
        project: Optional[str] = None) -> Run:
    """Starts a run of the pipeline ``name``.

        r = pipelines.run("etl"); r.wait()
    """
    c = resolve(client)
    body = {"executionDate": execution_date} if execution_date else {}
    obj = c.action("pipelines", name, "run", body, project=project)
    return Run(obj.name, client=c, project=obj.project or project, obj=obj)


def export(name: str, *, fmt: str = "yaml", client: Any = None,
           project: Optional[str] = None) -> str:
    """The server's export of a pipeline (YAML, or JSON with fmt="json")."""
    c = resolve(client)
    r = c.request("GET", c.path("pipelines", name, project, "export"),
                  query={"format": "json" if fmt == "json" else None},
                  headers={"Accept": "application/yaml, application/json"})
    return r.text


def import_(text: str, *, name: Optional[str] = None, client: Any = None,
            project: Optional[str] = None) -> Obj:
    """Creates a pipeline from an exported document (YAML or JSON text);
    ``name`` renames it."""
    c = resolve(client)
    p = c.path("pipelines", None, project) + "/import"
    return Obj(c.request("POST", p, body=text, query={"name": name},
                         headers={"Content-Type": "application/yaml"}).json())


def templates(*, client: Any = None, project: Optional[str] = None) -> List[str]:
    """The template names tasks may use: the project's, then the catalog's."""
    c = resolve(client)
    names = [str(t.name) for t in c.list("projectjobtemplates", project=project)]
    return names + [str(t.name) for t in c.list("jobtemplates") if t.name not in names]
