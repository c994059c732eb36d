"""What the trusted side accepts from a worker: every reply bounded before it is decoded.

The worker runs the student's code in its own process, and that code can replace
the worker's ``send`` and write any bytes to the response pipe. Nothing the
worker-side code does is relied on. Every reply is checked here, in the grader's
process, in an order where each step costs little whatever the bytes are:

1. its length, from the 8-byte header, against the reply limit (course.yaml
   ``sandbox.reply_kb``), before a byte of it is read (:class:`ReplyTooLarge`,
   raised by the client);
2. its structure, by a linear scan that builds no object (:func:`check_structure`):
   nesting depth, number of lists and objects, number of values, digits of a number;
3. ``json.loads`` (CPython's C parser: one pass, linear in the text), then only the protocol's fields, of the right types, with every
   text truncated and its control characters made visible (:func:`parse_reply`).

The value (``value``) is decoded afterwards by
``runtime.decode``, which accepts only the wire's own tags and ``.npy`` bytes.
A reply that breaks a bound costs the function it answers, never the grader.
"""

from __future__ import annotations

import json
import re

from grader.display import visible
from grader.worker import runtime

DEFAULT_REPLY_KB = 1024
# encode() refuses values nested deeper than MAX_DEPTH; each level can take two JSON
# levels (a tag object and its list), plus the reply itself and an array's tag.
MAX_JSON_DEPTH = 2 * (runtime.MAX_DEPTH + 1) + 2
MAX_CONTAINERS = 10_000  # lists and objects in one reply
MAX_VALUES = 200_000  # values of any kind in one reply
MAX_DIGITS = 400  # a JSON number longer than this is no plain-data value
# Student text, as feedback shows it (after control characters are made visible): what a student needs
# to read their own error, the type, a message cut to runtime.MAX_TEXT characters, their own file and
# line; no more, since an error is the one text a submission writes into its feedback (a function that
# read other exercises' hidden inputs carried them out in a 2,000-character message; issue 30).
MAX_ERROR_TYPE = 60  # one line; Python's builtin names are at most 25 characters
MAX_WHERE_LINES = 1  # the innermost line of the submission: "toy.py, line 3, in double"
MAX_WHERE = 120  # one line
MAX_BASES = 20

_PLAIN_ANSWER = {"ok", "value"}
KINDS = ("import", "cell", "missing", "raised", "unsupported", "too large", "protocol", "skipped")
# A worker reports nothing but its outcome: no field describes the inputs after a call (issue 22, item 3).
VALUE_FIELDS = ("value",)

# Run on text without escapes only (see check_structure): no alternation, no nested
# repetition, so each byte is looked at a bounded number of times whatever the text.
_PLAIN_STRING = re.compile(rb'"[^"]*"')
# Digits to "0", everything else to " ": a long number is then a substring search
# (linear; a regex for a run of N digits retries up to N bytes from every digit).
_DIGITS_ONLY = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_NUMBER = b"0" * (MAX_DIGITS + 1)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_OPENING = frozenset(b"[{")


# JSON's only way to a lone surrogate (raw UTF-8 cannot encode one; json.loads refuses such
# bytes): a \\uD800-\\uDFFF escape. Fixed length, so the search is linear; a match (also an
# escaped backslash followed by "ud8..", or a valid pair) only costs a walk of the reply.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _valid_unicode(value):
    """``value`` with every string (keys too) valid Unicode: lone surrogates as ``\\udxxx`` text.

    A student's string is made valid here, once, at the boundary: everything after it
    (records, reports, feedback, the console) may write it strictly as UTF-8.
    """
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [_valid_unicode(v) for v in value]
    if isinstance(value, dict):
        return {_valid_unicode(k): _valid_unicode(v) for k, v in value.items()}
    return value


class ReplyRejected(Exception):
    """A reply that breaks a bound or the protocol; ``str()`` says what, for the student."""


class ReplyTooLarge(ReplyRejected):
    """A reply longer than the limit: the stream cannot be trusted past its header."""

    def __init__(self, size: int, limit: int):
        super().__init__(
            f"a reply of {_size(size)}, more than the {_size(limit)} the grader accepts (course.yaml sandbox.reply_kb)"
        )
        self.size = size
        self.limit = limit


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 1024:.0f} KiB"


def check_structure(data: bytes) -> None:
    """Refuse JSON text that would cost far more to decode than its size.

    Builds no object and runs in time linear in ``len(data)`` whatever the bytes
    (a scan for escaped strings by backtracking was quadratic on a run of ``\\"``).
    In JSON a backslash only occurs inside a string, where it escapes the next
    character; removing the escaped backslashes, then the escaped quotes, left to
    right, leaves quotes that are exactly the strings' delimiters. The strings are
    then blanked and only counts and the bracket sequence are looked at. Text that
    is not JSON may be judged wrongly after its first stray backslash, but
    ``json.loads`` stops at that backslash and builds nothing past it.
    """
    unescaped = data.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    skeleton = _PLAIN_STRING.sub(b'""', unescaped)
    del unescaped
    containers = skeleton.count(b"[") + skeleton.count(b"{")
    if containers > MAX_CONTAINERS:
        raise ReplyRejected(f"a value with more than {MAX_CONTAINERS:,} lists, tuples and dicts")
    if skeleton.count(b",") + containers > MAX_VALUES:
        raise ReplyRejected(f"a value with more than {MAX_VALUES:,} elements")
    if _LONG_NUMBER in skeleton.translate(_DIGITS_ONLY):
        raise ReplyRejected(f"a number with more than {MAX_DIGITS} digits")
    depth = 0
    for byte in skeleton.translate(None, _NOT_BRACKETS):  # at most 2 * MAX_CONTAINERS
        depth += 1 if byte in _OPENING else -1
        if depth > MAX_JSON_DEPTH:
            raise ReplyRejected(f"a value nested more than {runtime.MAX_DEPTH} levels deep")


def bounded(text: str, limit: int, *, one_line: bool = False) -> str:
    """``text`` with its control characters made visible, then cut to ``limit`` characters (and " ...").

    Cut after the escapes too: a message of control characters would otherwise show four times its
    bound (``\x1b`` for each).
    """
    shown = visible(text[: limit + 1], one_line=one_line)
    return shown if len(shown) <= limit else shown[:limit] + " ..."


def _text(reply: dict, key: str, limit: int, one_line: bool = False) -> str | None:
    value = reply.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ReplyRejected(f"a reply whose {key} is not text")
    return bounded(value, limit, one_line=one_line)


def _lines(reply: dict, key: str) -> list[str]:
    value = reply.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReplyRejected(f"a reply whose {key} is not a list of text")
    return value


def parse_reply(data: bytes) -> dict:
    """The reply in ``data`` (its JSON text), reduced to the protocol's fields.

    A batch's reply (``replies``: one reply per request of the batch) has each of its
    replies reduced the same way; the bounds of :func:`check_structure` hold for the whole.

    Raises
    ------
    ReplyRejected
        with what was wrong, in words for the student.
    """
    check_structure(data)
    try:
        reply = json.loads(data)
    except (ValueError, RecursionError):
        raise ReplyRejected("a reply that is not valid JSON") from None
    if _SURROGATE_ESCAPE.search(data):
        reply = _valid_unicode(reply)
    clean = _clean(reply)
    if "replies" in reply:
        replies = reply["replies"]
        if not isinstance(replies, list):
            raise ReplyRejected("a batch reply whose replies are not a list")
        clean["replies"] = [_clean(one, batched=True) for one in replies]
    return clean


def _clean(reply, batched: bool = False) -> dict:
    """One reply's protocol fields, of the right types, every text bounded."""
    if type(reply) is dict and reply.keys() == _PLAIN_ANSWER and reply["ok"] is True:
        # The usual reply (a batch holds hundreds): what the general path below makes of it.
        return {"ok": True, "value": reply["value"], "where": [], "builtin_bases": []}
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        raise ReplyRejected("a reply that is not a protocol message")
    clean: dict = {"ok": reply["ok"]}
    if not batched:
        if reply.get("ready") is True:
            clean["ready"] = True
        if isinstance(reply.get("pid"), int):
            clean["pid"] = reply["pid"]
    for key in VALUE_FIELDS:
        if key in reply:
            clean[key] = reply[key]
    kind = reply.get("kind")
    if kind is not None:
        clean["kind"] = kind if kind in KINDS else "protocol"
    for key, limit, one_line in (("error_type", MAX_ERROR_TYPE, True), ("message", runtime.MAX_TEXT, False)):
        text = _text(reply, key, limit, one_line)
        if text is not None:
            clean[key] = text
    # The innermost line of a traceback; the most specific builtin bases first.
    clean["where"] = [bounded(w, MAX_WHERE, one_line=True) for w in _lines(reply, "where")[-MAX_WHERE_LINES:]]
    clean["builtin_bases"] = [
        b for b in _lines(reply, "builtin_bases")[:MAX_BASES] if b.isidentifier() and len(b) <= 40
    ]
    return clean
