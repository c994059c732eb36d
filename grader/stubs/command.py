"""grader stubs: regenerate exercises/ from solutions/."""

from __future__ import annotations

import argparse

from grader.core.course import load_course
from grader.core.stubs import stale_files, write_stubs


def register(sub, common) -> None:
    parser = sub.add_parser(
        "stubs",
        parents=[common],
        help="write exercises/ from solutions/ (or check it is up to date)",
        description="Write the student files of exercises/ from the reference code in solutions/: every "
        "solution region becomes a NotImplementedError naming its function. With --check, "
        "write nothing and fail if exercises/ is out of date.",
    )
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if exercises/ is stale")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    course = load_course(args.course, check_tests=False)
    if args.check:
        problems = stale_files(course)
        for p in problems:
            print(p)
        if problems:
            print("exercises/ is out of date: run `grader stubs`")
            return 1
        print("exercises/ is up to date")
        return 0
    written = write_stubs(course)
    print(f"exercises/: {len(written)} file(s) written" if written else "exercises/ was already up to date")
    return 0
