"""The student side of the trusted boundary: imports a submission and answers calls.

This file is deliberately standalone (standard library and numpy only): it runs
as ``python -I runtime.py`` in a separate process, possibly inside a sandbox where
nothing of the grader is visible. The trusted grader imports it too, for the
wire format alone.

Wire format: each message is an 8-byte big-endian length followed by UTF-8 JSON.
Values are plain data only: None, bool, int, float, str, lists, tuples, dicts
with str keys, numpy arrays and scalars (``np.save`` bytes, ``allow_pickle=False``)
and dataclass instances (sent as their type name and fields). Nothing is ever
pickled, so the trusted side never runs code chosen by the submission.
"""

import base64
import dataclasses
import importlib
import io
import json
import math
import os
import re
import struct
import sys
import traceback

import numpy as np

HEADER = struct.Struct(">Q")
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
MAX_DEPTH = 32
MAX_TEXT = 2000


class UnsupportedValue(TypeError):
    """A value that cannot cross the boundary as plain data."""


class WireError(Exception):
    """A malformed message."""


# -- values --------------------------------------------------------------------
def encode(value, depth=0):
    """Turn plain data into JSON-compatible objects; raise UnsupportedValue otherwise."""
    if depth > MAX_DEPTH:
        raise UnsupportedValue("nesting deeper than %d levels" % MAX_DEPTH)
    if value is None or isinstance(value, (bool, str)):
        return value
    # numpy scalars first: np.float64 is also a Python float, but keeps its type here.
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.hasobject or array.dtype.kind not in "biufcUS":
            raise UnsupportedValue("a numpy array of dtype %s" % array.dtype)
        return {"__ndarray__": base64.b64encode(dump_npy(array)).decode("ascii"),
                "scalar": isinstance(value, np.generic)}
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"__float__": repr(value)}
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return {"__tuple__": [encode(v, depth + 1) for v in value]}
    if isinstance(value, list):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return {"__set__": [encode(v, depth + 1) for v in value]}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise UnsupportedValue("a dict with non-string keys")
        return {"__dict__": {k: encode(v, depth + 1) for k, v in value.items()}}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
        return {"__dataclass__": type(value).__name__, "fields": fields}
    raise UnsupportedValue(type(value).__name__)


def decode(obj, record=None):
    """Inverse of :func:`encode`. ``record(type_name, fields)`` rebuilds dataclasses."""
    if isinstance(obj, list):
        return [decode(v, record) for v in obj]
    if not isinstance(obj, dict):
        return obj
    if "__ndarray__" in obj:
        array = load_npy(base64.b64decode(obj["__ndarray__"]))
        return array[()] if obj.get("scalar") else array
    if "__float__" in obj:
        text = obj["__float__"]
        if text not in ("nan", "inf", "-inf"):
            raise WireError("bad float %r" % text)
        return float(text)
    if "__tuple__" in obj:
        return tuple(decode(v, record) for v in obj["__tuple__"])
    if "__set__" in obj:
        return frozenset(decode(v, record) for v in obj["__set__"])
    if "__dict__" in obj:
        return {k: decode(v, record) for k, v in obj["__dict__"].items()}
    if "__dataclass__" in obj:
        fields = {k: decode(v, record) for k, v in obj["fields"].items()}
        if record is None:
            raise WireError("dataclass values are not accepted here")
        return record(str(obj["__dataclass__"]), fields)
    raise WireError("unknown value tag")


# What np.save writes for plain arrays; anything else goes through np.load.
_NPY_HEADER = re.compile(
    rb"\{'descr': '([<>|=]?[biufcUS]\d+)', 'fortran_order': (True|False), 'shape': \(((?:\d+, ?)*\d*)\), \}\s*$")


def dump_npy(array):
    """The bytes ``np.save(..., allow_pickle=False)`` writes, built directly for plain arrays.

    ``np.save``'s header writer is most of the cost of a small array; for the
    usual case (a plain dtype, C order) the same format-1.0 bytes are assembled here.
    """
    if array.dtype.kind not in "biufcUS" or array.dtype.fields is not None:
        raise UnsupportedValue("a numpy array of dtype %s" % array.dtype)
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    header = "{'descr': %r, 'fortran_order': False, 'shape': %r, }" % (array.dtype.str, array.shape)
    # Magic (6) + version (2) + length (2) + header + newline, padded to 64 bytes as numpy does.
    pad = -(10 + len(header) + 1) % 64
    header = (header + " " * pad + "\n").encode("latin1")
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + array.tobytes()


def load_npy(raw):
    """Read ``np.save`` bytes without pickle, parsing the usual header directly.

    ``np.load`` parses the header with a safe literal evaluator, which is most of
    the cost of a small array; the common header is parsed here with a pattern.
    Unusual headers fall back to ``np.load(..., allow_pickle=False)``.
    """
    if raw[:6] == b"\x93NUMPY" and len(raw) >= 10:
        major = raw[6]
        if major == 1:
            (length,), start = struct.unpack("<H", raw[8:10]), 10
        else:
            (length,), start = struct.unpack("<I", raw[8:12]), 12
        match = _NPY_HEADER.match(raw[start:start + length])
        if match:
            dtype = np.dtype(match.group(1).decode("ascii"))
            shape = tuple(int(n) for n in match.group(3).split(b",") if n.strip())
            count = 1
            for n in shape:
                count *= n
            flat = np.frombuffer(raw, dtype=dtype, count=count, offset=start + length)
            order = "F" if match.group(2) == b"True" else "C"
            return flat.reshape(shape, order=order).copy()  # a writable array of its own
    return np.load(io.BytesIO(raw), allow_pickle=False)


# -- messages --------------------------------------------------------------------
def send(fd, message):
    data = json.dumps(message, allow_nan=False, separators=(",", ":")).encode("utf-8")
    if len(data) > MAX_MESSAGE_BYTES:
        raise UnsupportedValue("a value of %d MB, more than the limit" % (len(data) >> 20))
    payload = HEADER.pack(len(data)) + data
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_exact(fd, n):
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def receive(fd):
    """Next message, or None at end of stream."""
    header = _read_exact(fd, HEADER.size)
    if header is None:
        return None
    (length,) = HEADER.unpack(header)
    if length > MAX_MESSAGE_BYTES:
        raise WireError("message too long")
    data = _read_exact(fd, length)
    if data is None:
        return None
    return json.loads(data.decode("utf-8"))


# -- the worker ------------------------------------------------------------------
def _short(text):
    text = str(text)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + " ..."


def _student_traceback(exc, submission_root):
    """Traceback lines that point into the submission only (no grader internals)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if os.path.abspath(f.filename).startswith(submission_root)]
    if isinstance(exc, SyntaxError) and exc.filename:
        return ["%s, line %s" % (os.path.basename(exc.filename), exc.lineno)]
    return ["%s, line %s, in %s" % (os.path.basename(f.filename), f.lineno, f.name) for f in frames[-5:]]


def _describe(exc, submission_root):
    builtin_bases = [c.__name__ for c in type(exc).__mro__
                     if c.__module__ == "builtins" and issubclass(c, BaseException)]
    return {
        "error_type": type(exc).__name__,
        "builtin_bases": builtin_bases,
        "message": _short(exc),
        "where": _student_traceback(exc, submission_root),
    }


class Worker:
    """Imports the submission's modules on demand and runs the calls it is sent."""

    def __init__(self, submission):
        # The grader stages every submission as a directory of modules.
        self.root = os.path.abspath(submission)
        sys.path.insert(0, self.root)
        self.modules = {}
        self.broken = {}

    def module(self, name):
        if name in self.broken:
            return None, self.broken[name]
        if name not in self.modules:
            try:
                if not os.path.isfile(os.path.join(self.root, name + ".py")):
                    raise ModuleNotFoundError("the submission has no file %s.py" % name)
                module = importlib.import_module(name)
            except BaseException as exc:  # SystemExit and KeyboardInterrupt included
                self.broken[name] = _describe(exc, self.root)
                return None, self.broken[name]
            self.modules[name] = module
        return self.modules[name], None

    def call(self, request):
        module, problem = self.module(request["module"])
        if module is None:
            return dict(problem, ok=False, kind="import")
        function = getattr(module, request["function"], None)
        if function is None or not callable(function):
            return {"ok": False, "kind": "missing"}
        args = decode(request.get("args", []))
        kwargs = decode(request.get("kwargs", {}))
        try:
            value = function(*args, **kwargs)
        except BaseException as exc:  # a student's sys.exit() is just a failed call
            return dict(_describe(exc, self.root), ok=False, kind="raised")
        reply = {"ok": True}
        try:
            reply["value"] = encode(value)
        except UnsupportedValue as exc:
            return {"ok": False, "kind": "unsupported", "message": _short(exc)}
        if request.get("return_args"):
            try:
                reply["args_after"] = encode(args)
                reply["kwargs_after"] = encode(kwargs)
            except UnsupportedValue:
                pass
        return reply

    def get(self, request):
        """The value of a module-level name (answers to concept checks, constants)."""
        module, problem = self.module(request["module"])
        if module is None:
            return dict(problem, ok=False, kind="import")
        if not hasattr(module, request["name"]):
            return {"ok": False, "kind": "missing"}
        try:
            return {"ok": True, "value": encode(getattr(module, request["name"]))}
        except UnsupportedValue as exc:
            return {"ok": False, "kind": "unsupported", "message": _short(exc)}

    def handle(self, request):
        op = request.get("op")
        if op == "call":
            return self.call(request)
        if op == "import":
            module, problem = self.module(request["module"])
            return {"ok": True} if module is not None else dict(problem, ok=False, kind="import")
        if op == "get":
            return self.get(request)
        if op == "ping":
            return {"ok": True}
        return {"ok": False, "kind": "protocol", "message": "unknown op %r" % op}


def serve(submission, request_fd, response_fd):
    worker = Worker(submission)
    owner = os.getpid()
    send(response_fd, {"ok": True, "ready": True, "pid": owner})
    while True:
        request = receive(request_fd)
        if request is None:
            return
        reply = worker.handle(request)
        if os.getpid() != owner:
            # A process the student forked came back out of their code: answering
            # (or reading the next request) would garble the real worker's replies.
            os._exit(0)
        send(response_fd, reply)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 3:
        sys.stderr.write("usage: runtime.py SUBMISSION REQUEST_FD RESPONSE_FD\n")
        return 2
    submission, request_fd, response_fd = argv[0], int(argv[1]), int(argv[2])
    # Keep the protocol descriptors out of the student's way: stdin is closed, and
    # their prints go to stdout/stderr, which the grader captures separately.
    serve(submission, request_fd, response_fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
