"""The wire format carries plain data only; nothing is ever unpickled."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import struct

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader.core.submission import Record
from grader.worker import runtime


def roundtrip(value):
    wire = json.loads(json.dumps(runtime.encode(value), allow_nan=False))
    return runtime.decode(wire, Record)


@given(
    hnp.arrays(
        dtype=st.sampled_from([np.float64, np.float32, np.int64, np.bool_]),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
    )
)
def test_arrays_roundtrip_exactly(array):
    back = roundtrip(array)
    assert isinstance(back, np.ndarray) and back.dtype == array.dtype and back.shape == array.shape
    assert np.array_equal(back, array, equal_nan=array.dtype.kind == "f")


def test_scalars_containers_and_non_finite_floats():
    value = {
        "a": (1, 2.5, None, True, "s"),
        "b": [np.float64(1.5), float("nan"), float("-inf")],
        "c": frozenset({1, 2}),
    }
    back = roundtrip(value)
    assert back["a"] == (1, 2.5, None, True, "s")
    assert isinstance(back["b"][0], np.floating) and back["b"][0] == 1.5
    assert math.isnan(back["b"][1]) and back["b"][2] == float("-inf")
    assert back["c"] == frozenset({1, 2})


def test_dataclasses_become_records():
    @dataclasses.dataclass(frozen=True)
    class Diag:
        x: float
        y: np.ndarray

    back = roundtrip(Diag(1.0, np.arange(3)))
    assert back.type_name == "Diag" and back.x == 1.0 and np.array_equal(back.y, np.arange(3))
    with pytest.raises(AttributeError, match="no field"):
        back.z


@pytest.mark.parametrize(
    "value", [object(), np.array([object()], dtype=object), {1: 2}, lambda: 1, type("X", (), {})()]
)
def test_unsupported_values_are_refused(value):
    with pytest.raises(runtime.UnsupportedValue):
        runtime.encode(value)


def test_too_deep_nesting_is_refused():
    value = []
    for _ in range(runtime.MAX_DEPTH + 5):
        value = [value]
    with pytest.raises(runtime.UnsupportedValue, match="nesting"):
        runtime.encode(value)


def test_pickled_arrays_are_never_loaded():
    # An object array saved with pickle must not decode: allow_pickle=False.
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    import base64

    forged = {"__ndarray__": base64.b64encode(buffer.getvalue()).decode(), "scalar": False}
    with pytest.raises(runtime.WireError):
        runtime.decode(forged, Record)


def test_unknown_tags_and_dataclasses_without_factory_are_refused():
    with pytest.raises(runtime.WireError):
        runtime.decode({"__float__": "1e400"})
    with pytest.raises(runtime.WireError):
        runtime.decode({"__evil__": 1})
    with pytest.raises(runtime.WireError):
        runtime.decode({"__dataclass__": "X", "fields": {}})


@pytest.mark.parametrize(
    "array",
    [
        np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        np.array(2.5),
        np.zeros((0, 3)),
        np.array(["ab", "c"]),
        np.arange(4, dtype=">i4"),
    ],
)
def test_fast_header_path_keeps_layout_and_gives_writable_arrays(array):
    back = roundtrip(array)
    assert back.dtype == array.dtype and back.shape == array.shape and np.array_equal(back, array)
    assert back.flags.writeable


def _npy(header: str, data: bytes = b"", version: bytes = b"\x01\x00") -> bytes:
    header += " " * (-(10 + len(header) + 1) % 64) + "\n"
    return b"\x93NUMPY" + version + struct.pack("<H", len(header)) + header.encode() + data


@pytest.mark.parametrize(
    "raw",
    [
        b"not an npy file at all",
        # np.load would allocate the 80 GB this header claims before finding no data.
        _npy("{'descr': '<f8', 'fortran_order': False, 'shape': (10000000000,), }"),
        _npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", b"\0" * 16),  # data too short
        _npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", b"\0" * 16),  # data too long
        _npy("{'descr': '<f8', 'shape': (2,), 'fortran_order': False}", b"\0" * 16),  # not np.save's form
        _npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", b"\0" * 16, b"\x02\x00"),
        _npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", b"\0" * 8),
        _npy("{'descr': '<U0', 'fortran_order': False, 'shape': (100000000000000,), }"),
        _npy("{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }" % ("1, " * 40)),
    ],
)
def test_only_the_wire_npy_format_is_read(raw):
    with pytest.raises(runtime.WireError):
        runtime.load_npy(raw)


def test_structured_arrays_are_refused_both_ways():
    structured = np.zeros(2, dtype=[("a", "<f8"), ("b", "<i4")])
    with pytest.raises(runtime.UnsupportedValue):
        runtime.encode(structured)
    buffer = io.BytesIO()
    np.save(buffer, structured, allow_pickle=False)
    with pytest.raises(runtime.WireError):
        runtime.load_npy(buffer.getvalue())


@pytest.mark.parametrize(
    "forged",
    [
        {"__tuple__": [1], "extra": 2},
        {"__dict__": [1, 2]},
        {"__set__": [[1], [2]]},  # lists are not hashable
        {"__ndarray__": 5, "scalar": False},
        {"__ndarray__": "!!not base64!!", "scalar": False},
        {"__ndarray__": "", "scalar": "yes"},
        {"__dataclass__": "[/bold] not a name", "fields": {}},
        {"__dataclass__": "X" * 500, "fields": {}},
        {"__dataclass__": "X", "fields": [1]},
    ],
)
def test_decode_accepts_only_what_encode_writes(forged):
    with pytest.raises(runtime.WireError):
        runtime.decode(forged, Record)


@given(
    hnp.arrays(
        dtype=st.sampled_from([np.float64, np.float32, np.int64, np.int8, np.bool_, np.complex128]),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    )
)
def test_arrays_are_written_exactly_as_np_save_writes_them(array):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    assert runtime.dump_npy(array) == buffer.getvalue()
