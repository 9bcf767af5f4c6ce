"""Jobs: submit, wait, logs and metrics.

    from cube import jobs
    job = jobs.submit(["python3", "train.py", "--epochs", "3"], name="train",
                      resources={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": 1},
                      env={"SEED": "1"}, timeout_seconds=3600)
    for line in job.logs(follow=True):     # until the Job ends
        print(line)
    final = job.wait()                     # the Job as it ended
    print(final.status.phase)              # Succeeded, Failed or Cancelled
    print(job.metrics(name="loss"))        # [{"name", "step", "value", "ts"}]
"""
from __future__ import annotations

import os
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from .errors import Error, Invalid
from .handle import Handle, resolve
from .obj import Obj

DONE = ("Succeeded", "Failed", "Cancelled")


class JobFailed(Error):
    """wait(check=True) on a Job that did not succeed."""


class Job(Handle):
    """A Job by name; :func:`submit` returns one."""

    plural = "jobs"
    done = DONE

    def wait(self, timeout: Optional[float] = None, until: Any = None,
             condition: Any = None, check: bool = False) -> Obj:
        """Until the Job ends (Succeeded, Failed, Cancelled); with
        ``check`` a Job that did not succeed raises :class:`JobFailed`."""
        o = super().wait(timeout, until, condition)
        if check and o.status.get("phase") != "Succeeded":
            st = o.status
            raise JobFailed(f"job {self.name} {st.get('phase')}: {st.get('reason', '')} "
                            f"{st.get('message', '')}".strip(), code=str(st.get("phase")),
                            url=self.client.server + self.client.path("jobs", self.name,
                                                                      self.project))
        return o

    def logs(self, follow: bool = False, replica: Optional[int] = None) -> Iterator[str]:
        """The output of a replica (the first by default) as lines; with
        ``follow`` until the Job ends."""
        def ended() -> bool:
            try:
                return self.get().status.get("phase") in DONE
            except Error:
                return False
        return self.client.logs("jobs", self.name, project=self.project, follow=follow,
                                replica=replica, done=ended if follow else None)

    def metrics(self, name: Optional[str] = None,
                since_step: Optional[int] = None) -> List[Dict[str, Any]]:
        """The points the Job reported, by name, then step:
        ``[{"name": "loss", "step": 10, "value": 0.3, "ts": …}]``."""
        r = self.client.request("GET", self.client.path("jobs", self.name, self.project,
                                                        "metrics"),
                                query={"name": name, "sinceStep": since_step})
        return list(r.json().get("metrics") or [])

    def report(self, name: str, value: float, step: Optional[int] = None,
               ts: Optional[float] = None) -> None:
        """Adds one point to the Job's metrics (see :func:`report`)."""
        report([{"name": name, "value": value, "step": step, "ts": ts}], job=self.name,
               project=self.project, client=self.client)

    def stop(self, grace_seconds: Optional[int] = None) -> Any:
        """SIGTERM, then SIGKILL after ``grace_seconds``; the Job ends
        Cancelled (one that had not started is Cancelled at once)."""
        body = {} if grace_seconds is None else {"graceSeconds": grace_seconds}
        return self.action("stop", body)


def _command(command: Union[str, Sequence[str]]) -> List[str]:
    if isinstance(command, str):
        return ["/bin/sh", "-c", command]
    cmd = list(command)
    if not cmd or not all(isinstance(a, str) for a in cmd):
        raise Invalid("spec.command: a non-empty list of strings (or one shell line)",
                      code="Invalid", field="spec.command")
    return cmd


def spec(command: Union[str, Sequence[str]], *, args: Optional[Sequence[str]] = None,
         env: Optional[Mapping[str, str]] = None,
         resources: Optional[Mapping[str, Any]] = None, replicas: Optional[int] = None,
         workdir: Optional[str] = None, pool: Optional[str] = None,
         priority: Optional[str] = None, timeout_seconds: Optional[int] = None,
         retries: Optional[int] = None, backoff_seconds: Optional[int] = None,
         distributed: Optional[str] = None, accelerator: Optional[Mapping[str, Any]] = None,
         node_selector: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    """A Job's ``spec`` from keyword arguments (None: the server's
    default). A string command runs with ``/bin/sh -c``."""
    s: Dict[str, Any] = {"command": _command(command)}
    if env is not None:
        bad = [k for k, v in env.items() if not isinstance(v, str)]
        if bad:
            raise Invalid(f"spec.env.{bad[0]}: values are strings", code="Invalid",
                          field=f"spec.env.{bad[0]}")
    opt = {"args": list(args) if args is not None else None,
           "env": dict(env) if env is not None else None,
           "resources": dict(resources) if resources is not None else None,
           "replicas": replicas, "workdir": workdir, "pool": pool, "priority": priority,
           "timeoutSeconds": timeout_seconds, "distributed": distributed,
           "accelerator": dict(accelerator) if accelerator is not None else None,
           "nodeSelector": dict(node_selector) if node_selector is not None else None}
    s.update({k: v for k, v in opt.items() if v is not None})
    if retries is not None or backoff_seconds is not None:
        s["retries"] = {k: v for k, v in (("limit", retries),
                                          ("backoffSeconds", backoff_seconds))
                        if v is not None}
    return s


def submit(command: Union[str, Sequence[str]], name: Optional[str] = None, *,
           labels: Optional[Mapping[str, str]] = None,
           annotations: Optional[Mapping[str, str]] = None,
           project: Optional[str] = None, client: Any = None, **kw: Any) -> Job:
    """Creates a Job and returns its handle. ``name`` defaults to
    ``job-<random>``; the other keywords are those of :func:`spec`
    (``args``, ``env``, ``resources``, ``replicas``, ``workdir``, ``pool``,
    ``priority``, ``timeout_seconds``, ``retries``, ``backoff_seconds``,
    ``distributed``, ``accelerator``, ``node_selector``).

        job = jobs.submit("echo hello", name="hi")
    """
    c = resolve(client)
    name = name or "job-" + os.urandom(4).hex()
    meta: Dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = dict(labels)
    if annotations:
        meta["annotations"] = dict(annotations)
    obj = c.create("jobs", {"metadata": meta, "spec": spec(command, **kw)}, project=project)
    return Job(name, client=c, project=obj.project or project, obj=obj)


def get(name: str, *, project: Optional[str] = None, client: Any = None) -> Job:
    """A handle on an existing Job (read once: NotFound when missing)."""
    j = Job(name, client=client, project=project)
    j.get()
    return j


def wait(name: str, timeout: Optional[float] = None, *, project: Optional[str] = None,
         client: Any = None, check: bool = False) -> Obj:
    """Waits for a Job by name to end; see :meth:`Job.wait`."""
    return Job(name, client=client, project=project).wait(timeout, check=check)


def logs(name: str, follow: bool = False, *, replica: Optional[int] = None,
         project: Optional[str] = None, client: Any = None) -> Iterator[str]:
    """A Job's output by name; see :meth:`Job.logs`."""
    return Job(name, client=client, project=project).logs(follow, replica)


def metrics(name: str, *, metric: Optional[str] = None, since_step: Optional[int] = None,
            project: Optional[str] = None, client: Any = None) -> List[Dict[str, Any]]:
    """A Job's metrics by name; see :meth:`Job.metrics`."""
    return Job(name, client=client, project=project).metrics(metric, since_step)


def report(points: Sequence[Mapping[str, Any]], *, job: Optional[str] = None,
           project: Optional[str] = None, client: Any = None) -> None:
    """Posts metric points to a Job (default: this replica's own,
    ``CUBE_JOB``), 1000 a request: ``{"name", "value", "step"?, "ts"?}``
    each; names are 1 to 128 of letters, digits and ``_ . - / :``, values
    finite numbers.

        jobs.report([{"name": "loss", "value": 0.31, "step": 10}])
    """
    c = resolve(client)
    job = job or os.environ.get("CUBE_JOB")
    if not job:
        raise Invalid("no Job to report to: pass job= (CUBE_JOB is set only inside a Job)",
                      code="Invalid", field="job")
    pts = []
    for i, p in enumerate(points):
        v = p.get("value")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or \
                v in (float("inf"), float("-inf")):
            raise Invalid(f"metrics[{i}].value: a finite number, got {v!r}", code="Invalid",
                          field=f"metrics[{i}].value")
        pt = {"name": p.get("name"), "value": v}
        for k in ("step", "ts"):
            if p.get(k) is not None:
                pt[k] = p[k]
        pts.append(pt)
    path = c.path("jobs", job, project, "metrics")
    for at in range(0, len(pts), 1000):
        c.request("POST", path, body={"metrics": pts[at:at + 1000]})


def list_jobs(selector: Optional[str] = None, *, project: Optional[str] = None,
              client: Any = None) -> Iterator[Obj]:
    """The project's Jobs (a label selector narrows them)."""
    return resolve(client).list("jobs", project=project, selector=selector)

