"""Trivial answers: bodies that do no work, tried on every function exercise.

Each must score exactly 0 (``tests/course/test_trivial.py``). A body is one statement; it may use
``FIRST`` (the function's first argument) and ``shaped(fill)``: the shape of the right
answer (arrays, tuples, dicts, dataclasses) with every number replaced by ``fill``, or
``fill`` alone where the function rejects its input. ``tests/helpers.py`` (``trivial_bodies``)
turns each into a submission.
"""

import dataclasses

import numpy as np

BODIES = {
    "raises_value_error": "raise ValueError('not done yet')",
    "not_implemented": "raise NotImplementedError",
    "zeros": "return shaped(0.0)",
    "ones": "return shaped(1.0)",
    "nan": "return shaped(float('nan'))",
    "none": "return None",
    "first_argument": "return FIRST",
}


def shaped_like(value, fill):
    """``value`` with every number replaced by ``fill`` (arrays keep their shape, as floats)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return np.full(np.shape(value), fill, dtype=float)
    if isinstance(value, (bool, str)) or value is None:
        return value
    if isinstance(value, (int, float)):
        return fill
    if isinstance(value, (list, tuple)):
        return type(value)(shaped_like(v, fill) for v in value)
    if isinstance(value, dict):
        return {k: shaped_like(v, fill) for k, v in value.items()}
    if dataclasses.is_dataclass(value):
        return dataclasses.replace(value, **{f.name: shaped_like(getattr(value, f.name), fill)
                                             for f in dataclasses.fields(value)})
    return fill
