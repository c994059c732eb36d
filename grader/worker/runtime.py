"""The student side of the trusted boundary: imports a submission and answers calls.

This file is deliberately standalone (standard library and numpy only): it runs
as ``python -I runtime.py`` in a separate process, possibly inside a sandbox where
nothing of the grader is visible. The trusted grader imports it too, for the
wire format alone.

Wire format: each message is an 8-byte big-endian length followed by UTF-8 JSON.
Values are plain data only: None, bool, int, float, str, lists, tuples, dicts
with str keys, numpy arrays and scalars (the ``.npy`` bytes ``np.save`` writes,
format 1.0, plain dtypes only) and dataclass instances (sent as their type name
and fields). Nothing is ever pickled, so the trusted side never runs code chosen
by the submission. Requests: ``import``, ``call`` (one call), ``map`` (many calls of
one function, inputs and results stacked along a first axis: one crossing for a
chunk of a lab's calls, see :meth:`Worker.map`), ``get``, ``ping``, and ``batch``
(several ``call``/``map``/``get`` requests answered in order in one crossing, see
:meth:`Worker.batch`), and ``batches`` (several batches sent at once, each answered by a reply
of its own as soon as it is done: the grader sends one exercise's at a time, and the next only
once the last is answered); every other reply is one ordinary reply.

The student's code shares the worker's process and can replace anything here
(``send`` included): the trusted side bounds every reply itself before decoding
it (``grader/worker/replies.py``), and :func:`decode` accepts exactly what
:func:`encode` writes.
"""

import base64
import copy
import dataclasses
import importlib
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
# An error's message as feedback shows it: what a student needs to read their own error, no more (a
# message is the one text a submission writes into its feedback; issue 30). grader/worker/replies.py
# cuts every reply to it, whatever this file sent.
MAX_TEXT = 300
MAX_NAME = 100  # a dataclass's type name
MAX_DIMS = 32  # numpy's own limit is 64
MAX_SIDE = 2**31  # one dimension of an array (its data is bounded by the reply's size)


BATCHED = ("call", "map", "get")  # what a batch may hold


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
        return {
            "__ndarray__": base64.b64encode(dump_npy(array)).decode("ascii"),
            "scalar": isinstance(value, np.generic),
        }
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


def encode_stacked(values, depth=0):
    """:func:`encode` of many results of one structure, each leaf stacked along a new first axis.

    ``[(a0, b0), (a1, b1)]`` is sent as ``(stack([a0, a1]), stack([b0, b1]))``: one
    array per leaf instead of one per call, so a batch of calls costs about what one
    call costs. Leaves (numbers, numpy arrays and scalars) are stacked with
    ``np.stack``; tuples, lists, dicts and dataclasses must agree in length, keys and
    type across ``values``; anything else raises :class:`UnsupportedValue`.
    """
    if depth > MAX_DEPTH:
        raise UnsupportedValue("nesting deeper than %d levels" % MAX_DEPTH)
    if not values:
        raise UnsupportedValue("no results to stack")
    first = values[0]
    if all(isinstance(v, (np.ndarray, np.generic, bool, int, float)) for v in values):
        try:
            return encode(np.stack([np.asarray(v) for v in values]))
        except ValueError:
            raise UnsupportedValue("results of different shapes") from None
    if isinstance(first, (tuple, list)) and not hasattr(first, "_fields"):
        if not all(type(v) is type(first) and len(v) == len(first) for v in values):
            raise UnsupportedValue("results of different structures")
        items = [encode_stacked([v[k] for v in values], depth + 1) for k in range(len(first))]
        return {"__tuple__": items} if isinstance(first, tuple) else items
    if isinstance(first, dict):
        if not all(
            isinstance(v, dict) and list(v) == list(first) and all(isinstance(k, str) for k in v) for v in values
        ):
            raise UnsupportedValue("results of different structures")
        return {"__dict__": {k: encode_stacked([v[k] for v in values], depth + 1) for k in first}}
    if dataclasses.is_dataclass(first) and not isinstance(first, type):
        if not all(type(v) is type(first) for v in values):
            raise UnsupportedValue("results of different structures")
        fields = {
            f.name: encode_stacked([getattr(v, f.name) for v in values], depth + 1) for f in dataclasses.fields(first)
        }
        return {"__dataclass__": type(first).__name__, "fields": fields}
    raise UnsupportedValue("results of type %s cannot be stacked" % type(first).__name__)


def decode(obj, record=None, readonly=False):
    """Inverse of :func:`encode`. ``record(type_name, fields)`` rebuilds dataclasses.

    Only what :func:`encode` writes is accepted; anything else raises :class:`WireError`.
    ``readonly``: arrays are views of immutable bytes, which numpy never makes writeable again
    (so a write into them raises where it happens).
    """
    return _decode(obj, record, bool(readonly))


def _decode(obj, record, readonly):
    if isinstance(obj, list):
        return [_decode(v, record, readonly) for v in obj]
    if not isinstance(obj, dict):
        return obj
    if "__ndarray__" in obj:
        data, scalar = obj["__ndarray__"], obj.get("scalar", False)
        if not isinstance(data, str) or not isinstance(scalar, bool) or set(obj) - {"__ndarray__", "scalar"}:
            raise WireError("a malformed array")
        try:
            raw = base64.b64decode(data, validate=True)
        except ValueError:
            raise WireError("an array that is not base64") from None
        array = load_npy(raw, readonly)
        return array[()] if scalar else array
    if len(obj) == 1 and "__float__" in obj:
        text = obj["__float__"]
        if text not in ("nan", "inf", "-inf"):
            raise WireError("bad float %r" % str(text)[:20])
        return float(text)
    if len(obj) == 1 and isinstance(obj.get("__tuple__"), list):
        return tuple(_decode(v, record, readonly) for v in obj["__tuple__"])
    if len(obj) == 1 and isinstance(obj.get("__set__"), list):
        try:
            return frozenset(_decode(v, record, readonly) for v in obj["__set__"])
        except TypeError:
            raise WireError("a set of unhashable values") from None
    if len(obj) == 1 and isinstance(obj.get("__dict__"), dict):
        return {k: _decode(v, record, readonly) for k, v in obj["__dict__"].items()}
    if "__dataclass__" in obj:
        name, fields = obj["__dataclass__"], obj.get("fields")
        if (
            set(obj) != {"__dataclass__", "fields"}
            or not isinstance(fields, dict)
            or not isinstance(name, str)
            or not name.isidentifier()
            or len(name) > MAX_NAME
        ):
            raise WireError("a malformed dataclass")
        if record is None:
            raise WireError("dataclass values are not accepted here")
        return record(name, {k: _decode(v, record, readonly) for k, v in fields.items()})
    raise WireError("unknown value tag")


# The header np.save writes for plain arrays (and dump_npy builds).
_NPY_HEADER = re.compile(
    rb"\{'descr': '([<>|=]?[biufcUS]\d+)', 'fortran_order': (True|False), 'shape': \(((?:\d+, ?)*\d*)\), \}\s*$"
)


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


def load_npy(raw, readonly=False):
    """Read the bytes :func:`dump_npy` writes, and nothing else.

    Format 1.0, a plain dtype, a header of exactly ``np.save``'s form, and exactly as
    many data bytes as the header announces. Anything else raises :class:`WireError`
    and is never handed to ``np.load``, whose reader allocates the array a header
    claims before it reads a byte of data. ``readonly``: a view of the (immutable) bytes,
    not a writable copy.
    """
    raw = bytes(raw)
    if raw[:8] != b"\x93NUMPY\x01\x00" or len(raw) < 10:
        raise WireError("an array not in the .npy format the wire uses")
    (length,) = struct.unpack("<H", raw[8:10])
    header = raw[10 : 10 + length]
    dtype, shape, order, count = _HEADERS.get(header) or _read_header(header)
    start = 10 + length
    if count * dtype.itemsize != len(raw) - start:
        raise WireError("an array whose data does not match its header")
    flat = np.frombuffer(raw, dtype=dtype, count=count, offset=start)
    if readonly:
        return flat.reshape(shape, order=order)  # over bytes: its WRITEABLE flag cannot be set again
    return flat.reshape(shape, order=order).copy()  # a writable array of its own


# Headers already read (a test sends the same shapes again and again): reading one is most of
# the cost of a small array. Only valid headers of at most HEADER_BYTES are kept (dump_npy's are
# 54 to 182 bytes; a valid one may be padded to 64 KiB), and the last HEADER_CACHE of them: 1 MiB.
_HEADERS = {}
HEADER_CACHE = 4096
HEADER_BYTES = 256


def _read_header(header):
    """(dtype, shape, order, element count) of a valid ``.npy`` header; WireError otherwise."""
    match = _NPY_HEADER.match(header)
    if not match:
        raise WireError("an array header the wire does not use")
    try:
        dtype = np.dtype(match.group(1).decode("ascii"))
        shape = tuple(int(n) for n in match.group(3).split(b",") if n.strip())
    except (TypeError, ValueError):
        raise WireError("an array header the wire does not use") from None
    if dtype.itemsize == 0 or len(shape) > MAX_DIMS or any(n > MAX_SIDE for n in shape):
        raise WireError("an array of shape %s and dtype %s" % (str(shape)[:80], dtype))
    count = 1
    for n in shape:
        count *= n
    found = (dtype, shape, "F" if match.group(2) == b"True" else "C", count)
    if len(header) <= HEADER_BYTES:
        if len(_HEADERS) >= HEADER_CACHE:  # the oldest goes: no submission keeps the cache from the next
            _HEADERS.pop(next(iter(_HEADERS)))
        _HEADERS[bytes(header)] = found
    return found


# -- messages --------------------------------------------------------------------
def frame(message, limit=MAX_MESSAGE_BYTES):
    """The bytes of one message (header and JSON); UnsupportedValue if over ``limit``."""
    data = json.dumps(message, allow_nan=False, separators=(",", ":")).encode("utf-8")
    if len(data) > limit:
        raise UnsupportedValue(
            "a value of %.1f MiB, more than the grader accepts (%.1f MiB)" % (len(data) / 2**20, limit / 2**20)
        )
    return HEADER.pack(len(data)) + data


def write_all(fd, payload):
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view) :]


def send(fd, message, limit=MAX_MESSAGE_BYTES):
    write_all(fd, frame(message, limit))


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
    """The innermost line of the submission the error passed through ("file.py, line N, in f"): its
    own file and line, what feedback names (never grader internals)."""
    frames = [
        f for f in traceback.extract_tb(exc.__traceback__) if os.path.abspath(f.filename).startswith(submission_root)
    ]
    if isinstance(exc, SyntaxError) and exc.filename:
        return ["%s, line %s" % (os.path.basename(exc.filename), exc.lineno)]
    return ["%s, line %s, in %s" % (os.path.basename(f.filename), f.lineno, f.name) for f in frames[-1:]]


def _describe(exc, submission_root):
    builtin_bases = [
        # (a class made by type() where globals hold no __name__ has no __module__)
        c.__name__
        for c in type(exc).__mro__
        if getattr(c, "__module__", None) == "builtins" and issubclass(c, BaseException)
    ]
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

    def cell_problem(self, module, name):
        """The error of the notebook cell that defines ``name``, when that cell failed as it ran
        (a module extracted from a notebook keeps them in ``__cell_errors__``), else None."""
        errors = vars(module).get("__cell_errors__")
        exc = errors.get(name) if isinstance(errors, dict) else None
        if not isinstance(exc, BaseException):
            return None
        return dict(_describe(exc, self.root), ok=False, kind="cell")

    def function(self, request):
        """(the callable ``request`` names, None) or (None, the reply that says why not): the module did
        not import, the notebook cell that defines it failed, or it is missing or not callable. One
        lookup for every request that runs student code."""
        module, problem = self.module(request["module"])
        if module is None:
            return None, dict(problem, ok=False, kind="import")
        problem = self.cell_problem(module, request["function"])
        if problem is not None:
            return None, problem
        function = getattr(module, request["function"], None)
        if function is None or not callable(function):
            return None, {"ok": False, "kind": "missing"}
        return function, None

    def call(self, request):
        function, problem = self.function(request)
        if function is None:
            return problem
        # Read-only inputs (asked for by the check that inputs stay unchanged): an in-place write raises in
        # the student's code, and the grader reads that from the call's outcome. The worker reports nothing
        # about the inputs afterwards: it runs in the student's process, so such a report could be theirs.
        readonly = request.get("readonly_args") is True
        args = decode(request.get("args", []), readonly=readonly)
        kwargs = decode(request.get("kwargs", {}), readonly=readonly)
        try:
            value = function(*args, **kwargs)
        except BaseException as exc:  # a student's sys.exit() is just a failed call
            return dict(_describe(exc, self.root), ok=False, kind="raised")
        reply = {"ok": True}
        try:
            reply["value"] = encode(value)
        except UnsupportedValue as exc:
            return {"ok": False, "kind": "unsupported", "message": _short(exc)}
        return reply

    def map(self, request):
        """One function over many rows: ``count`` calls in a row, in order, answered at once.

        Positional arguments listed in ``rows`` are stacked (row ``i`` is call ``i``'s);
        the others and ``kwargs`` are the same for every call (each call gets its own
        copy). The results, which must all have one structure and one shape per leaf,
        come back stacked the same way (:func:`encode_stacked`). The first call that
        raises ends the batch with that call's error; nothing says which call it was:
        the grader calls again, one at a time, to find out.
        """
        function, problem = self.function(request)
        if function is None:
            return problem
        args = decode(request.get("args", []))
        kwargs = decode(request.get("kwargs", {}))
        rows, count = set(request.get("rows", [])), int(request.get("count", 0))
        results = []
        for i in range(count):
            call_args = [np.array(a[i]) if j in rows else copy.deepcopy(a) for j, a in enumerate(args)]
            try:
                results.append(function(*call_args, **copy.deepcopy(kwargs)))
            except BaseException as exc:  # as in call()
                return dict(_describe(exc, self.root), ok=False, kind="raised")
        try:
            return {"ok": True, "value": encode_stacked(results)}
        except UnsupportedValue as exc:
            return {"ok": False, "kind": "unsupported", "message": _short(exc)}

    def get(self, request):
        """The value of a module-level name (answers to concept checks, constants)."""
        module, problem = self.module(request["module"])
        if module is None:
            return dict(problem, ok=False, kind="import")
        problem = self.cell_problem(module, request["name"])
        if problem is not None:
            return problem
        if not hasattr(module, request["name"]):
            return {"ok": False, "kind": "missing"}
        try:
            return {"ok": True, "value": encode(getattr(module, request["name"]))}
        except UnsupportedValue as exc:
            return {"ok": False, "kind": "unsupported", "message": _short(exc)}

    def batch(self, request):
        """Several requests in a row, each answered as if sent alone: ``{"ok": True, "replies": [...]}``.

        Only ``call``, ``map`` and ``get``; each runs whatever the others answered (the grader
        compares the answers, on its side, with what it expects), but for the requests of one
        test (``"test"``: its number) after one that raised NotImplementedError: a test of a
        function not written yet asks nothing more, and those are answered ``skipped``.
        """
        requests = request.get("requests")
        if not isinstance(requests, list):
            return {"ok": False, "kind": "protocol", "message": "a batch without requests"}
        replies, stubbed = [], set()
        for one in requests:
            if not isinstance(one, dict) or one.get("op") not in BATCHED:
                return {"ok": False, "kind": "protocol", "message": "a batch may hold call, map and get only"}
            test = one.get("test")
            if test is not None and test in stubbed:
                replies.append({"ok": False, "kind": "skipped"})
                continue
            reply = self.handle(one)
            if test is not None and reply.get("error_type") == "NotImplementedError":
                stubbed.add(test)
            replies.append(reply)
        return {"ok": True, "replies": replies}

    def handle(self, request):
        op = request.get("op")
        if op == "batch":
            return self.batch(request)
        if op == "call":
            return self.call(request)
        if op == "map":
            return self.map(request)
        if op == "import":
            module, problem = self.module(request["module"])
            return {"ok": True} if module is not None else dict(problem, ok=False, kind="import")
        if op == "get":
            return self.get(request)
        if op == "ping":
            return {"ok": True}
        return {"ok": False, "kind": "protocol", "message": "unknown op %r" % op}


def serve(submission, request_fd, response_fd, reply_limit=MAX_MESSAGE_BYTES):
    """Answer requests until the stream ends. ``reply_limit``: the largest reply the
    grader accepts; a bigger value becomes an "unsupported" answer, so an honest
    submission loses that call only (the grader enforces the limit anyway)."""
    worker = Worker(submission)
    owner = os.getpid()
    send(response_fd, {"ok": True, "ready": True, "pid": owner})
    while _answer(worker, receive(request_fd), response_fd, reply_limit, owner):
        pass


def _answer(worker, request, response_fd, reply_limit, owner):
    """Answer one request (False at the end of the stream). A function of its own, so that while
    student code runs, the stack holds this request and nothing of the ones before it."""
    if request is None:
        return False
    # ``batches``: several batches in one request (one exercise's, as the grader sends them), each
    # answered by a reply of its own as soon as it is done (the grader times each as it arrives);
    # anything else, one reply.
    parts = request.get("batches") if request.get("op") == "batches" else None
    for part in parts if isinstance(parts, list) else [request]:
        reply = worker.batch(part) if parts is not None and isinstance(part, dict) else worker.handle(part)
        if os.getpid() != owner:
            # A process the student forked came back out of their code: answering
            # (or reading the next request) would garble the real worker's replies.
            os._exit(0)
        try:
            payload = frame(reply, reply_limit)
        except UnsupportedValue as exc:
            payload = frame({"ok": False, "kind": "too large", "message": _short(exc)})
        write_all(response_fd, payload)
    return True


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (3, 4):
        sys.stderr.write("usage: runtime.py SUBMISSION REQUEST_FD RESPONSE_FD [REPLY_LIMIT_BYTES]\n")
        return 2
    submission, request_fd, response_fd = argv[0], int(argv[1]), int(argv[2])
    reply_limit = int(argv[3]) if len(argv) == 4 else MAX_MESSAGE_BYTES
    # Keep the protocol descriptors out of the student's way: stdin is closed, and
    # their prints go to stdout/stderr, which the grader captures separately.
    serve(submission, request_fd, response_fd, reply_limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
