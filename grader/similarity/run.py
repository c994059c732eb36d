"""One run of ``grader similarity``: read the class, analyse each assignment, write the pages, the JSON."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from grader.core.course import Course, load_course
from grader.engine.record import GradeRecord
from grader.engine.store import ResultStore
from grader.errors import GraderError
from grader.lms import Roster, read_download, read_roster
from grader.similarity.analyse import Assignment, analyse
from grader.similarity.page import pair_file, write_pages
from grader.similarity.sources import (
    class_folder,
    is_nbgrader_course,
    lms_submissions,
    nbgrader_submissions,
    read_paths,
    stub_code,
)
from grader.untrusted import shown

RESULTS_DIR = "grader-results"  # an nbgrader course's records (grader autograde's default --out)


@dataclass(frozen=True)
class FromLms:
    """How to read an LMS download: which LMS (or ``auto``), a generic name pattern, the roster CSV."""

    lms: str
    name_regexp: str | None = None
    roster: Path | None = None


def function_assignments(course: Course, wanted: list[str]) -> dict[str, list[str]]:
    """assignment -> its function exercises (code to compare), for ``wanted`` (default: all that have some)."""
    known = {a.id for a in course.assignments}
    unknown = [a for a in wanted if a not in known]
    if unknown:
        raise GraderError(f"not an assignment of this course: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    found = {}
    for assignment in course.assignments:
        if wanted and assignment.id not in wanted:
            continue
        functions = [e.function for e in course.exercises if e.assignment == assignment.id and e.kind == "function"]
        if functions:
            found[assignment.id] = functions
        elif wanted:
            raise GraderError(f"{assignment.id} has no function exercise: no code to compare")
    return found


def load_records(store: ResultStore | None) -> dict[str, GradeRecord]:
    if store is None or not store.results_dir.is_dir():
        return {}
    return {r.student: r for r in store.all_records()}


def similarity(
    submissions: Path,
    *,
    course_dir=None,
    assignments: list[str] = (),
    out: Path | None = None,
    results: Path | None = None,
    top: int = 20,
    console=None,
    download: FromLms | None = None,
) -> dict:
    """Analyse the class at ``submissions`` and write the pages; the JSON report (``{"pairs": [...]}``).

    Raises
    ------
    GraderError
        When ``submissions`` is neither a folder of submissions nor an nbgrader course, or names an
        unknown assignment.
    """
    course = load_course(course_dir)
    say = console.print if console is not None else (lambda *a, **k: None)
    per_assignment = function_assignments(course, list(assignments))
    if download is not None:
        return _from_download(course, submissions, per_assignment, out, results, top, say, download)
    nbgrader = is_nbgrader_course(submissions)
    if out is None:
        out = (
            results / "similarity"
            if results
            else (submissions / RESULTS_DIR / "similarity" if nbgrader else Path("similarity"))
        )
    folder = skipped = None
    if not nbgrader:
        folder, skipped = class_folder(submissions, list(per_assignment))
        for name, reason in skipped.items():
            say(f"[yellow]left out[/] {shown(name)}: {reason}", markup=True)
    started = time.monotonic()
    analysed: list[Assignment] = []
    where: dict = {}
    for assignment, functions in per_assignment.items():
        if nbgrader:
            paths = nbgrader_submissions(submissions, assignment)
            store = ResultStore(results / assignment if results else submissions / RESULTS_DIR / assignment)
        else:
            paths = folder
            store = ResultStore(results) if results else None
        subs = {s: read_paths(course, s, p, functions) for s, p in paths.items()}
        subs = {s: sub for s, sub in subs.items() if sub.code}
        for sub in subs.values():
            where.update({(sub.student, f): w for f, w in sub.where.items()})
        records = load_records(store)
        records = {s: r for s, r in records.items() if s in paths}
        stubs = {f: stub_code(course, f) for f in functions}
        result = analyse(assignment, functions, subs, stubs, records)
        analysed.append(result)
        flagged = sum(p.flagged for p in result.pairs)
        note = "" if records else " (no grade records: wrong replies not compared; give --results DIR)"
        say(
            f"{assignment}: {len(subs)} submissions with code, {len(result.pairs)} pairs with evidence, "
            f"{flagged} flagged (threshold {result.threshold:.1f}){note}"
        )
    shown_per = {r.id: sum(p.flagged for p in r.pairs) + top for r in analysed}
    index = write_pages(Path(out), analysed, where, shown_per)
    say(f"pages: {index} ({time.monotonic() - started:.1f} s)")
    return report_json(analysed, shown_per)


def _from_download(course, path, per_assignment, out, results, top, say, source: FromLms) -> dict:
    """An LMS download (a .zip or its folder), read by the shared collection part (grader.lms)."""
    people = Roster(read_roster(Path(source.roster))) if source.roster else None
    with read_download(
        Path(path),
        source.lms,
        name_regexp=source.name_regexp,
        time_zone=course.time_zone,
        roster=people,
        assignments=list(per_assignment),
    ) as download:
        for left in download.left_out:
            say(f"[yellow]left out[/] {left}", markup=True)
        every = [f for functions in per_assignment.values() for f in functions]
        subs = lms_submissions(course, download, every)
    analysed, where = [], {}
    store = ResultStore(results) if results else None
    records = load_records(store)
    started = time.monotonic()
    for assignment, functions in per_assignment.items():
        mine = {s: sub for s, sub in subs.items() if any(f in sub.code for f in functions)}
        for sub in mine.values():
            where.update({(sub.student, f): w for f, w in sub.where.items()})
        stubs = {f: stub_code(course, f) for f in functions}
        result = analyse(assignment, functions, mine, stubs, {s: r for s, r in records.items() if s in mine})
        analysed.append(result)
        say(f"{assignment}: {len(mine)} submissions with code, {sum(p.flagged for p in result.pairs)} flagged")
    out = out or (results / "similarity" if results else Path("similarity"))
    shown_per = {r.id: sum(p.flagged for p in r.pairs) + top for r in analysed}
    index = write_pages(Path(out), analysed, where, shown_per)
    say(f"pages: {index} ({time.monotonic() - started:.1f} s)")
    return report_json(analysed, shown_per)


def report_json(analysed: list[Assignment], shown_per: dict[str, int]) -> dict:
    """``{"pairs": [{"a", "b", "functions", "score", "flagged", "evidence"}]}``, each assignment's in rank order."""
    pairs = []
    for result in analysed:
        for rank, pair in enumerate(result.pairs[: shown_per.get(result.id, len(result.pairs))], start=1):
            code = {
                f: {
                    "similarity": round(m.similarity, 4),
                    "rare_similarity": round(m.rare_similarity, 4),
                    "shares": [round(s, 4) for s in (m.shares if m.a == pair.a else m.shares[::-1])],
                    "matched": m.matched,
                    "shared": m.shared,
                    "weight": m.weight,
                    "similar": f in pair.similar,
                }
                for f, m in pair.matches.items()
            }
            pairs.append(
                {
                    "a": pair.a,
                    "b": pair.b,
                    "functions": pair.similar,
                    "score": pair.score,
                    "flagged": pair.flagged,
                    "evidence": {
                        "assignment": result.id,
                        "rank": rank,
                        "weight": pair.evidence,
                        "matched": pair.matched,
                        "threshold": round(result.threshold, 3),
                        "code": code,
                        "wrong_replies": pair.replies,
                        "page": pair_file(result.id, rank),
                    },
                }
            )
    return {"pairs": pairs}
