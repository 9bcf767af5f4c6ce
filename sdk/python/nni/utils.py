"""``nni.utils.merge_parameter``, as NNI's examples use it::

    args = merge_parameter(parser.parse_args(), nni.get_next_parameter())
"""
from __future__ import annotations

from typing import Any, Mapping


def merge_parameter(base_params: Any, override_params: Mapping[str, Any]) -> Any:
    """Overrides the values of ``base_params`` (an argparse Namespace or a
    dict) with those of ``override_params``, each converted to the type of
    the value it replaces (when that is not None); a key that base_params
    lacks is a ValueError, as in NNI."""
    if override_params is None:
        return base_params
    is_dict = isinstance(base_params, dict)
    for k, v in override_params.items():
        has = k in base_params if is_dict else hasattr(base_params, k)
        if not has:
            raise ValueError(f"key {k!r} is not found in the parameters")
        old = base_params[k] if is_dict else getattr(base_params, k)
        if old is not None and v is not None and type(old) is not type(v):
            try:
                v = type(old)(v)
            except (TypeError, ValueError):
                raise TypeError(f"{k}: expected {type(old).__name__}, got "
                                f"{type(v).__name__} {v!r}") from None
        if is_dict:
            base_params[k] = v
        else:
            setattr(base_params, k, v)
    return base_params
