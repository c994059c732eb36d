"""What a hidden test's checks raise, and what they read without being passed it.

The course's tests import these from :mod:`grader.testing` (the facade they are written
against); the grading plugin (:mod:`grader.core.plugin`) reads them here, so that the core
never imports that facade.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class Misconception(AssertionError):
    """A check failed; the message is shown to the student as it is."""


class Unspecific(Misconception):
    """A failed check that names no mistake: the answer is wrong, but not in the way the check looks for.

    Raised by the second half of a pair (:func:`grader.testing.expect_right`); the plugin reads such a failure
    of a misconception probe with the properties, after the probes that name a mistake.
    """


class Evidenced(Misconception):
    """A failed check whose message states exactly what the student's own answers show.

    E.g. "two calls with the same seed give different results": the message names no more
    than the observed relation between their answers, so it needs no further evidence.
    Raised by :func:`grader.testing.expect_observed`. A relation that several mistakes break alike (poisoned
    masked positions change the answer: a leak, an ignored mask and an inverted one all do
    that) is no evidence for one of them: compare with :func:`grader.testing.expect_close` instead, and the
    diagnosis will ask the named mistake to answer as the student did.
    """


@dataclass
class CheckContext:
    """What the helpers of grader.testing read without being passed it: the checks of a test call them with
    the student's values only, yet the tolerance and parameters are the exercise's under test.

    The grader's plugin (grader.core.plugin) sets ``course`` when its session starts and
    ``function`` around each test's call; a notebook's visible checks set ``function``
    (grader.notebooks.notebook_runtime).
    """

    course: Any = None
    function: str | None = None
    # Set by a check that accepted an answer other than the reference's (grader.testing.accept_other); the
    # plugin clears it before each test's call.
    accepted_other: bool = False


CONTEXT = CheckContext()
