"""The checks of the collection options (``--lms``, ``--name-regexp``) the commands that collect a download share.

Kept out of the package's ``__init__``: only the commands that offer these options import it, so its
messages name options of every command that can raise them.
"""

from __future__ import annotations

import argparse

from grader.errors import GraderError
from grader.lms.shapes import name_pattern


def check_lms_names(args: argparse.Namespace) -> None:
    """``--lms`` and ``--name-regexp`` as the collection part reads them: one way to read the names, and a
    pattern it can read.

    Raises
    ------
    GraderError
        When both name a way to read the names, or the pattern is not one the collection part reads.
    """
    if args.name_regexp and args.lms not in ("auto", "generic"):
        raise GraderError("--name-regexp and --lms name two ways to read the names: give one")
    if args.name_regexp:
        try:
            name_pattern(args.name_regexp)
        except GraderError as exc:
            raise GraderError(f"--name-regexp: {exc}") from None
