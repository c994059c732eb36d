"""Grade many submissions, each on its own list of functions, in one session.

For the course's own tests (every wrong implementation graded on its function
only, with one pytest collection instead of one per submission)::

    python -m grader.grade.batch < plan.json

``plan.json`` is ``{"submissions": {"<id>": {"path": "...", "only": ["f", ...]}}}``;
the output has one JSON line per submission: ``{"id": ..., "result": {...}}``, in
the order the submissions finish.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from grader.course import load_course
from grader.errors import GraderError


def main() -> int:
    try:
        plan = json.load(sys.stdin)
        entries = plan["submissions"]
        paths = {sid: Path(e["path"]) for sid, e in entries.items()}
        only_for = {sid: list(e["only"]) for sid, e in entries.items() if e.get("only")}
    except (ValueError, KeyError, TypeError) as exc:
        print(f"grader.grade.batch: bad plan on stdin: {exc}", file=sys.stderr)
        return 2
    from grader.grade.runner import run_tests

    out = sys.stdout  # the runner redirects sys.stdout while pytest runs

    def emit(sid, result):
        print(json.dumps({"id": sid, "result": result.to_json()}), file=out, flush=True)

    try:
        run_tests(load_course(plan.get("course")), paths, only_for=only_for, on_result=emit)
    except GraderError as exc:
        print(f"grader: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
