"""Concept checks: auto-graded answers to written questions.

A student answers by assigning module-level constants in an answer sheet (e.g.
``concept_checks.py``); course.yaml lists each constant as an exercise of
``kind: answer``. A hidden test reads the student's constant across the trusted
boundary (``impl.value(NAME)``) and the key from ``solutions/`` in the trusted
process. The explanation of each part lives in the hidden test and is the
failure message of that part, so the feedback after grading explains exactly
what was missed, and nothing of it is released before.

Formats (each question is split into parts; every part is one test of equal
weight, so the item's points are shared among its parts):

``TrueFalse``
    a tuple of booleans, one per statement; one part per statement.
``MultiSelect``
    a set of option numbers. Credit is ``max(0, right picks - wrong picks) / |key|``,
    given as ``|key|`` parts where part ``j`` passes when the net count reaches ``j``:
    a wrong pick cancels a right one, and ticking everything earns nothing.
``Choice``
    one label (a string) from a fixed list, or a tuple of labels, one per item; an item whose
    question leaves two labels defensible may accept both (``also``).
``Flags``
    a dict with fixed keys and boolean values; one part per key.
``Numeric``
    a number, or a tuple (of tuples) of numbers of a fixed shape; one part per
    leading entry, compared within the exercise's tolerance from course.yaml.

A malformed answer (still ``None``, the wrong type or length, an unknown option
or label) fails every part of its item with a message that states the expected
format; it never stops the grading. The same reading, without the key, is the
visible check of each answer (:meth:`Question.check_format`, in
``autograder-tests/visible/``): its question's structure (statements, options,
labels, keys, shape) with empty explanations, so ``grader check`` and the
notebook's check cells report format problems before submission.
"""

from __future__ import annotations

from numbers import Integral, Real
from types import SimpleNamespace
from typing import Any, Mapping, Sequence

import numpy as np

from grader import testing
from grader.core.submission import UnsupportedReturn
from grader.testing import Misconception


def answer_key(name: str) -> Any:
    """The reference answer of ``name``: its value in ``solutions/`` (trusted process only)."""
    course = testing._course()
    return getattr(course.reference_module(course.exercise(name).module), name)


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1)


def _quote(labels: Sequence[str]) -> str:
    return ", ".join(repr(label) for label in labels)


class Question:
    """One concept check; subclasses define the format, its parts and how to read an answer."""

    name: str

    @property
    def format(self) -> str:
        """How the answer is written (shown in the stub and in format messages)."""
        raise NotImplementedError

    def parts(self) -> list[str]:
        """Part ids, in order (the ids of the item's parametrized test)."""
        raise NotImplementedError

    def read(self, value: Any) -> Any:
        """The normalised answer; ``ValueError`` with a short reason when malformed."""
        raise NotImplementedError

    def correct(self, answer: Any, key: Any, part: str) -> bool:
        raise NotImplementedError

    def explain(self, answer: Any, key: Any, part: str) -> str:
        raise NotImplementedError

    # -- shared machinery ---------------------------------------------------------
    def key(self) -> Any:
        try:
            return self.read(answer_key(self.name))
        except ValueError as exc:  # a course bug: say so loudly, never blame the student
            raise RuntimeError(f"the key of {self.name} in solutions/ is malformed: {exc}") from None

    def student_answer(self, impl) -> Any:
        """The student's answer, read and checked; a Misconception when it cannot be graded."""
        try:
            value = impl.value(self.name)
        except UnsupportedReturn:
            raise Misconception(f"{self.name} holds a value that cannot be graded; write {self.format}") from None
        if value is None:
            raise Misconception(f"{self.name} is not answered yet: replace None with {self.format}")
        try:
            return self.read(value)
        except ValueError as exc:
            raise Misconception(f"{self.name}: {exc}; write {self.format}") from None

    def check_format(self, impl) -> None:
        """Pass when the answer is given and written in the question's format (type, length, allowed
        values); else a Misconception that says what is wrong. Never reads the key: a visible check."""
        self.student_answer(impl)

    def check(self, impl, part: str) -> None:
        """Pass, or raise a Misconception whose message explains the missed part."""
        answer = self.student_answer(impl)
        key = self.key()
        if not self.correct(answer, key, part):
            raise Misconception(self.explain(answer, key, part))


class _PerPart(Question):
    """Answers with one judgement per part, each explained on its own."""

    def __init__(self, name: str, explanations: Mapping[str, str], labels: Mapping[str, str] | None = None):
        self.name = name
        self.explanations = dict(explanations)
        self.labels = dict(labels or {})

    def parts(self) -> list[str]:
        return list(self.explanations)

    def label(self, part: str) -> str:
        return self.labels.get(part, part)

    def explain(self, answer, key, part):
        return f"{self.label(part)}: {self.explanations[part]}"


class TrueFalse(_PerPart):
    """True or false for each of ``len(explanations)`` statements, in order."""

    def __init__(self, name: str, explanations: Sequence[str]):
        parts = {f"statement_{i}": text for i, text in enumerate(explanations, start=1)}
        super().__init__(name, parts, {p: p.replace("_", " ") for p in parts})

    @property
    def format(self) -> str:
        n = len(self.explanations)
        return f"a tuple of {n} booleans (True or False), statement 1 first"

    def read(self, value):
        n = len(self.explanations)
        if not _is_sequence(value):
            raise ValueError(f"expected a tuple of booleans, got {type(value).__name__}")
        if len(value) != n:
            raise ValueError(f"there are {n} statements but the answer has {len(value)} entries")
        bad = [i for i, v in enumerate(value, start=1) if not _is_bool(v)]
        if bad:
            raise ValueError(f"entry {bad[0]} is {value[bad[0] - 1]!r}, not True or False")
        return tuple(bool(v) for v in value)

    def correct(self, answer, key, part):
        i = self.parts().index(part)
        return answer[i] == key[i]


class Flags(_PerPart):
    """A dict with the keys of ``explanations``, each mapped to True or False."""

    @property
    def format(self) -> str:
        return f"a dict with the keys {_quote(list(self.explanations))}, each True or False"

    def read(self, value):
        if not isinstance(value, dict):
            raise ValueError(f"expected a dict, got {type(value).__name__}")
        missing = [k for k in self.explanations if k not in value]
        extra = sorted(str(k) for k in value if k not in self.explanations)
        if missing:
            raise ValueError(f"the key {missing[0]!r} is missing")
        if extra:
            raise ValueError(f"{extra[0]!r} is not one of the keys")
        bad = [k for k in self.explanations if not _is_bool(value[k])]
        if bad:
            raise ValueError(f"{bad[0]!r} is {value[bad[0]]!r}, not True or False")
        return {k: bool(value[k]) for k in self.explanations}

    def correct(self, answer, key, part):
        return answer[part] == key[part]


class Choice(_PerPart):
    """One label per item, each from ``choices``; a single item is answered by a bare string.

    ``also`` maps an item's number (1 for the first; 1 for a single item too) to labels accepted
    beside the key's, where the module's text leaves more than one answer defensible.
    """

    def __init__(
        self,
        name: str,
        choices: Sequence[str],
        explanations: Sequence[str] | str,
        also: Mapping[int, Sequence[str]] | None = None,
    ):
        self.choices = tuple(c.lower() for c in choices)
        self.also = {int(i): frozenset(label.lower() for label in labels) for i, labels in (also or {}).items()}
        unknown = sorted(label for labels in self.also.values() for label in labels if label not in self.choices)
        if unknown:
            raise ValueError(f"{name}: {unknown[0]!r} accepted but not one of the choices")
        self.single = isinstance(explanations, str)
        if self.single:
            super().__init__(name, {"answer": explanations}, {"answer": name})
        else:
            parts = {f"item_{i}": text for i, text in enumerate(explanations, start=1)}
            super().__init__(name, parts, {p: p.replace("_", " ") for p in parts})

    @property
    def format(self) -> str:
        if self.single:
            return f"one of the strings {_quote(self.choices)}"
        n = len(self.explanations)
        return f"a tuple of {n} strings, item 1 first, each one of {_quote(self.choices)}"

    def _label(self, value, where: str) -> str:
        if not isinstance(value, (str, np.str_)):
            raise ValueError(f"{where} is {value!r}, not a string")
        label = str(value).strip().lower()
        if label not in self.choices:
            raise ValueError(f"{where} is {str(value)!r}, which is not one of the choices")
        return label

    def read(self, value):
        if self.single:
            return (self._label(value, "the answer"),)
        n = len(self.explanations)
        if not _is_sequence(value):
            raise ValueError(f"expected a tuple of strings, got {type(value).__name__}")
        if len(value) != n:
            raise ValueError(f"there are {n} items but the answer has {len(value)} entries")
        return tuple(self._label(v, f"entry {i}") for i, v in enumerate(value, start=1))

    def correct(self, answer, key, part):
        i = self.parts().index(part)
        return answer[i] == key[i] or answer[i] in self.also.get(i + 1, ())


class Numeric(_PerPart):
    """Numbers of a fixed ``shape``; one part per leading entry (one part for a scalar).

    Closeness comes from the exercise's ``tolerance`` in course.yaml, so the
    tolerance the question states and the one applied have a single source.
    """

    def __init__(
        self,
        name: str,
        shape: tuple[int, ...],
        explanations: Mapping[str, str],
        tolerance: Mapping[str, float] | None = None,
    ):
        self.shape = tuple(shape)
        if len(explanations) != (self.shape[0] if self.shape else 1):
            raise ValueError(f"{name}: one explanation per leading entry of shape {self.shape}")
        super().__init__(name, explanations)
        # A visible format check states its tolerance (a notebook has no course.yaml to read it from).
        self._tolerance = SimpleNamespace(**tolerance) if tolerance is not None else None

    @property
    def tolerance(self):
        return self._tolerance if self._tolerance is not None else testing.tolerance(self.name)

    @property
    def format(self) -> str:
        tol = self.tolerance
        within = f"within {tol.atol:g}" + (f" or {tol.rtol:g} relative" if tol.rtol else "")
        if not self.shape:
            what = "a number"
        elif len(self.shape) == 1:
            what = f"a tuple of {self.shape[0]} numbers ({', '.join(self.explanations)})"
        else:
            inner = " x ".join(str(n) for n in self.shape[1:])
            what = f"a tuple of {self.shape[0]} rows ({', '.join(self.explanations)}), each of {inner} numbers"
        return f"{what}, graded {within}"

    def read(self, value):
        def plain(v) -> bool:  # numbers only: no booleans, strings or containers of them
            if _is_sequence(v) and not isinstance(v, np.ndarray):
                return all(plain(x) for x in v)
            if isinstance(v, np.ndarray):
                return v.dtype.kind in "iuf"
            return isinstance(v, (Integral, Real, np.integer, np.floating)) and not _is_bool(v)

        if not plain(value):
            raise ValueError(f"expected numbers, got {_describe(value)}")
        try:
            array = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"expected numbers, got {_describe(value)}") from None
        if array.shape != self.shape:
            raise ValueError(f"the answer has shape {array.shape}, the question asks for {self.shape}")
        return array

    def correct(self, answer, key, part):
        tol = self.tolerance
        i = self.parts().index(part)
        got, want = (answer, key) if not self.shape else (answer[i], key[i])
        return bool(np.all(np.isclose(got, want, rtol=tol.rtol, atol=tol.atol)))


class MultiSelect(Question):
    """Select every option that applies; ``explanations`` maps each option number to why it does or not."""

    def __init__(self, name: str, explanations: Mapping[int, str]):
        self.name = name
        self.explanations = dict(explanations)

    @property
    def options(self) -> list[int]:
        return sorted(self.explanations)

    @property
    def format(self) -> str:
        return (
            f"a set of the option numbers ({self.options[0]} to {self.options[-1]}) that apply, "
            "written {a, b, ...}, or set() for none"
        )

    def parts(self) -> list[str]:
        # One part per option of the key (read in the trusted process at collection).
        return [f"credit_{j}_of_{len(self.key())}" for j in range(1, len(self.key()) + 1)]

    def read(self, value):
        if isinstance(value, np.ndarray) and value.ndim == 1:
            value = value.tolist()
        if not isinstance(value, (set, frozenset, list, tuple)):
            raise ValueError(f"expected a set of option numbers, got {type(value).__name__}")
        picked = set()
        for v in value:
            if _is_bool(v) or not isinstance(v, (Integral, np.integer)):
                raise ValueError(f"{v!r} is not an option number")
            if int(v) not in self.explanations:
                raise ValueError(f"{int(v)} is not one of the options")
            picked.add(int(v))
        return frozenset(picked)

    @staticmethod
    def net(answer: frozenset, key: frozenset) -> int:
        return len(answer & key) - len(answer - key)

    def correct(self, answer, key, part):
        level = int(part.split("_")[1])
        return self.net(answer, key) >= level

    def explain(self, answer, key, part):
        wrong = sorted(answer ^ key)  # missed options and wrong picks alike
        return "; ".join(f"option {o}: {self.explanations[o]}" for o in wrong)


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype}"
    if isinstance(value, (list, tuple)):
        kinds = sorted({type(v).__name__ for v in value})
        return f"a {type(value).__name__} holding {', '.join(kinds) or 'nothing'}"
    return type(value).__name__
