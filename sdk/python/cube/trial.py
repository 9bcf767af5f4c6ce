"""The trial API of hyper-parameter search, NNI's, so that NNI trial code
runs unchanged (the ``nni`` module shipped with this SDK is this one)::

    import nni
    params = nni.get_next_parameter()          # {"lr": 0.01, "batch": 64}
    for epoch in range(5):
        nni.report_intermediate_result(acc)    # a number, or {"default": n, ...}
    nni.report_final_result(acc)

Inside a trial, a Job run by Cube (``CUBE_API``, ``CUBE_PROJECT``,
``CUBE_JOB`` and ``CUBE_TOKEN`` set), results go to the Job's metrics
(``POST /api/v1/projects/{p}/jobs/{job}/metrics``):

- parameters come from ``CUBE_TRIAL_PARAMETERS`` (a JSON object);
- the ids from ``CUBE_EXPERIMENT`` (get_experiment_id), ``CUBE_TRIAL_ID``
  (get_trial_id; default the Job's name) and ``CUBE_TRIAL_SEQUENCE``
  (get_sequence_id; default 0);
- an intermediate result is the point ``default`` (a dict: one point per
  numeric key, ``default`` required) at step 1, 2, 3 … (the count of
  intermediate results so far);
- the final result is ``final/default`` (and ``final/<key>`` for the other
  numeric keys of a dict) at the step of the last intermediate result
  (0 when there was none). The hyper-parameter search reads
  ``final/default``; a trial without one is a trial without a result.

Metric names keep letters, digits and ``_ . - / :``; any other character
of a dict key becomes ``_``. Values are finite numbers (a bool, NaN or a
string is a TypeError/ValueError raised in the trial, not a point lost).
Outside a Job it behaves as NNI's standalone mode: get_next_parameter()
returns ``{}`` (or ``CUBE_TRIAL_PARAMETERS`` when set), results are
printed, ids are ``STANDALONE`` and sequence 0. Every result is also printed
(``[nni] Intermediate result: 0.82 (step 3)``), so the Job's log shows it.
"""
from __future__ import annotations

import json
import numbers
import os
import re
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

FINAL_PREFIX = "final/"
DEFAULT = "default"
_BAD_CHARS = re.compile(r"[^A-Za-z0-9_.\-/:]")

_mu = threading.Lock()
_state: Dict[str, Any] = {"params": None, "step": 0, "client": None}


def _env(name: str) -> Optional[str]:
    v = os.environ.get(name)
    return v if v else None


def in_job() -> bool:
    """Whether results go to a Job's metrics (else standalone mode)."""
    return all(_env(v) for v in ("CUBE_API", "CUBE_PROJECT", "CUBE_JOB", "CUBE_TOKEN"))


def get_next_parameter() -> Dict[str, Any]:
    """This trial's hyper-parameters: ``CUBE_TRIAL_PARAMETERS`` (a JSON
    object), else ``{}`` (standalone)."""
    with _mu:
        if _state["params"] is None:
            raw = _env("CUBE_TRIAL_PARAMETERS")
            params: Any = {}
            if raw:
                try:
                    params = json.loads(raw)
                except ValueError as e:
                    raise ValueError(f"CUBE_TRIAL_PARAMETERS is not JSON: {e}") from None
                if not isinstance(params, dict):
                    raise ValueError("CUBE_TRIAL_PARAMETERS must be a JSON object, got "
                                     f"{type(params).__name__}")
            _state["params"] = params
        return dict(_state["params"] or {})


def get_current_parameter(tag: Optional[str] = None) -> Any:
    """The parameters get_next_parameter() returned (one of them with tag)."""
    p = get_next_parameter()
    return p if tag is None else p.get(tag)


def get_experiment_id() -> str:
    return _env("CUBE_EXPERIMENT") or "STANDALONE"


def get_trial_id() -> str:
    return _env("CUBE_TRIAL_ID") or (_env("CUBE_JOB") if in_job() else None) or "STANDALONE"


def get_sequence_id() -> int:
    v = _env("CUBE_TRIAL_SEQUENCE")
    try:
        return int(v) if v else 0
    except ValueError:
        raise ValueError(f"CUBE_TRIAL_SEQUENCE must be an integer, got {v!r}") from None


def _number(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{what} must be a number (or a dict with a 'default' number), got "
                        f"{type(v).__name__} {v!r}")
    f = float(v)
    if f != f or f in (float("inf"), float("-inf")):
        raise ValueError(f"{what} must be finite, got {f}")
    return int(v) if isinstance(v, numbers.Integral) else f


def metric_name(key: str) -> str:
    """A dict key as a metric name (other characters become ``_``)."""
    name = _BAD_CHARS.sub("_", str(key))[:128]
    return name or "_"


def _points(metric: Any, prefix: str) -> List[Tuple[str, float]]:
    if isinstance(metric, dict):
        if DEFAULT not in metric:
            raise ValueError("a dict result needs a 'default' key (the one the search "
                             "optimizes); got keys " + ", ".join(map(str, metric)))
        pts = [(prefix + DEFAULT, _number(metric[DEFAULT], "the result's 'default'"))]
        for k, v in metric.items():
            if k != DEFAULT and isinstance(v, numbers.Real) and not isinstance(v, bool):
                pts.append((prefix + metric_name(k), _number(v, f"the result's {k!r}")))
        return pts
    return [(prefix + DEFAULT, _number(metric, "the result"))]


def _client() -> Any:
    c = _state["client"]
    if c is None:
        from .client import Client
        c = _state["client"] = Client(api=_env("CUBE_API"), token=_env("CUBE_TOKEN"),
                                      project=_env("CUBE_PROJECT"))
    return c


def _send(points: List[Tuple[str, float]], step: int) -> None:
    if not in_job():
        return
    ts = time.time()
    body = {"metrics": [{"name": n, "value": v, "step": step, "ts": ts} for n, v in points]}
    c = _client()
    c.request("POST", c.path("jobs", os.environ["CUBE_JOB"], os.environ["CUBE_PROJECT"],
                             "metrics"), body=body)


def _say(text: str) -> None:
    print(f"[nni] {text}", file=sys.stdout, flush=True)


def report_intermediate_result(metric: Any) -> None:
    """One intermediate result (an epoch's accuracy): a number, or a dict
    with a ``default`` number and more numbers."""
    pts = _points(metric, "")
    with _mu:
        _state["step"] += 1
        step = _state["step"]
    _say(f"Intermediate result: {_show(metric)} (step {step})")
    _send(pts, step)


def report_final_result(metric: Any) -> None:
    """The trial's result, what the search compares trials by."""
    pts = _points(metric, FINAL_PREFIX)
    with _mu:
        step = _state["step"]
    _say(f"Final result: {_show(metric)}")
    _send(pts, step)


def _show(metric: Any) -> str:
    try:
        return json.dumps(metric, default=float)
    except (TypeError, ValueError):
        return repr(metric)


def _reset() -> None:
    """Forgets the parameters, the step count and the client (tests)."""
    with _mu:
        _state.update(params=None, step=0, client=None)
