"""What a lab's hidden test needs to train on the trusted side.

A lab's training loop (course code, ``solutions/``) runs in the grader's own
process with its own weights and optimiser; the student's functions answer its
calls across the boundary (``impl.charged_to(lab)``), with plain data only.

:class:`CrossCheck` stands between the loop and those calls: it forwards each
call, counts the calls and the seconds they take, and compares a deterministic
sample (the first few calls, then every ``every``-th) with the reference on the
same inputs. A *judge* per function compares the two results and, when they
differ, says on what kind of input, in words for the student: the verdict of a
lab stays the return its training earns, and the cross-check explains a failing
run without ever showing an expected number.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from threadpoolctl import threadpool_limits

# judge(args, kwargs, student_result, reference_result) -> None when they agree, else where they
# differ: one phrase, or several (one per kind of input), each completing
# "<function> differs from its definition ...". Phrases are kept apart so that each is said once
# however many calls found it, alone or with others.
Judge = Callable[[tuple, dict, Any, Any], "str | list[str] | None"]
MOST_KINDS = 3  # phrases per finding: enough to see a pattern, short enough to read


@contextlib.contextmanager
def one_blas_thread():
    """Run the block with one BLAS thread: a lab's matrices are small, and extra threads
    cost several times more CPU than they save on them."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@dataclass
class CallStats:
    calls: int = 0
    checked: int = 0
    seconds: float = 0.0  # waiting for the student's function, boundary included
    kinds: list[str] = field(default_factory=list)  # where it differed, in order of discovery


class CrossCheck:
    """The student's functions as a lab's training loop sees them, checked against the reference.

    Parameters
    ----------
    student : object
        Gives the student's functions as attributes (``impl.charged_to(lab)``).
    reference : callable
        ``reference(name)`` is the reference function ``name`` (``course.reference``).
    judges : dict
        One :data:`Judge` per function the loop may call.
    first, every : int
        The sample: calls ``1..first``, then every ``every``-th call.
    """

    def __init__(
        self, student, reference: Callable[[str], Callable], judges: dict[str, Judge], *, first: int = 3, every: int = 5
    ):
        self._student = student
        self._reference = reference
        self._judges = dict(judges)
        self._first, self._every = int(first), int(every)
        self.stats = {name: CallStats() for name in judges}

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self._judges:
            raise AttributeError(name)
        student, stats, judge = getattr(self._student, name), self.stats[name], self._judges[name]

        def call(*args, **kwargs):
            stats.calls += 1
            started = time.perf_counter()
            try:
                result = student(*args, **kwargs)
            finally:
                stats.seconds += time.perf_counter() - started
            if stats.calls <= self._first or stats.calls % self._every == 0:
                stats.checked += 1
                self._compare(name, judge, args, kwargs, result, stats)
            return result

        call.__name__ = name
        return call

    def _compare(self, name, judge, args, kwargs, result, stats) -> None:
        try:
            kind = judge(args, kwargs, result, self._reference(name)(*args, **kwargs))
        except Exception:  # a malformed result: the training loop's own checks name it
            return
        for phrase in [kind] if isinstance(kind, str) else list(kind or ()):
            if phrase and phrase not in stats.kinds:
                stats.kinds.append(phrase)

    def agrees(self, *names: str) -> bool:
        """No sampled call so far (of ``names``, else of any function) differed from the reference."""
        return not any(s.kinds for name, s in self.stats.items() if not names or name in names)

    def findings(self) -> list[str]:
        """One sentence per function that differed: ``"<function> differs from its definition <kind>"``."""
        return [
            f"{name} differs from its definition {' and '.join(s.kinds[:MOST_KINDS])}"
            for name, s in self.stats.items()
            if s.kinds
        ]
