"""Grade many submissions, each on its own list of functions, in one session of the engine's driver.

For the course's own tests (every wrong implementation graded on its function
only, with one pytest collection instead of one per submission)::

    python -m grader.engine.batch < plan.json

``plan.json`` is ``{"submissions": {"<id>": {"path": "...", "only": ["f", ...]}}}``;
the output has one JSON line per submission, ``{"id": ..., "record": {...}}``
(:class:`~grader.engine.record.GradeRecord`), in the order the submissions finish.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from grader.core.course import load_course
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.errors import GraderError


def main() -> int:
    try:
        plan = json.load(sys.stdin)
        entries = plan["submissions"]
        jobs = [(sid, Path(e["path"]), list(e.get("only") or [])) for sid, e in entries.items()]
    except (ValueError, KeyError, TypeError) as exc:
        print(f"grader.engine.batch: bad plan on stdin: {exc}", file=sys.stderr)
        return 2

    out = sys.stdout  # the driver redirects sys.stdout while pytest runs

    def emit(parcel, record):
        print(json.dumps({"id": parcel.student, "record": record.to_json()}), file=out, flush=True)

    try:
        parcels = [Parcel.read(sid, path, label=str(path), only=only) for sid, path, only in jobs]
        grade_here(load_course(plan.get("course")), parcels, on_record=emit)
    except GraderError as exc:
        print(f"grader: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
