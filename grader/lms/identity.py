"""The grader's student id of a submission: from the LMS's own id, through the roster when one is given.

Without a roster, the rule of each LMS (the same on every route: ``grader autograde --zip``,
``grader grade-class``, and any verb that reads a download through :mod:`grader.lms`):

========== ======================================================== ==================
LMS        the LMS's id of the student                              student id
========== ======================================================== ==================
canvas     the user id of every file name (``anon_<id>`` when       ``canvas-2001``
           grading is anonymous)
moodle     the assignment's participant number                      ``moodle-1005``
blackboard the username                                             ``fmiller``
brightspace the user number after the submission's                  ``brightspace-640693``
generic    the name the instructor gave (folder or file)            ``alice``
========== ======================================================== ==================

A name is never an id alone: two LMS ids never become one student, and one LMS id is always the same
student. A name that is not a usable id as it is (``müllerzoë``, ``Jo Lee``) becomes one the same way
everywhere (:func:`name_id`): its letters without accents, and a short digest of the whole name so
that two names never meet (``mullerzoe-d1709390``). Display names keep their Unicode: they are shown,
never used as ids. With a roster (:class:`~grader.lms.roster.Roster`), a submission is filed under the
roster's id; one the roster does not know keeps the LMS's rule, and is named in the download's notes.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from grader.engine.store import SAFE_ID
from grader.lms.roster import Roster

MAX_FOLDED = 80


def name_id(name: str) -> str:
    """A usable student id made from any name: itself when it is one, else its letters without
    accents (``.`` between words) and eight hex digits of the name's digest."""
    name = unicodedata.normalize("NFC", name)
    if SAFE_ID.match(name):
        return name
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    folded = re.sub(r"[^A-Za-z0-9._@+-]+", ".", folded).strip("._@+-")[:MAX_FOLDED].rstrip("._@+-")
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{folded}-{digest}" if folded else f"student-{digest}"


def rule_id(lms: str, lms_id: str) -> str:
    """The student id of an LMS id when no roster says otherwise (the table of the module)."""
    if lms in ("generic", "blackboard"):
        return name_id(lms_id)
    return name_id(f"{lms}-{lms_id}")


def student_ids(subs, roster: Roster | None) -> list[str]:
    """Give each submission of ``subs`` (one per LMS id) its student id; returns what the instructor
    should know (roster misses, names shared). No two submissions get one id: a roster line that
    two LMS ids reach files neither under it."""
    notes: list[str] = []
    chosen: dict[str, list] = {}
    for sub in subs:
        sub.student = rule_id(sub.lms, sub.lms_id)
        if roster and sub.lms != "generic":
            person, why = roster.match(sub.lms, sub.lms_id, sub.display_name)
            if person is not None:
                sub.student = person.id
            elif roster.complete:
                notes.append(f"{sub.who}: {why}; collected as {sub.student} (add them to the roster to file them)")
        chosen.setdefault(sub.student, []).append(sub)
    for student, same in chosen.items():
        if len(same) > 1:  # only a roster line can be reached twice (Moodle's names): file neither under it
            for sub in same:
                sub.student = rule_id(sub.lms, sub.lms_id)
            notes.append(
                f"{' and '.join(s.who for s in same)} both match the roster's {student}: each is collected "
                "under its LMS id instead; fix the roster or their names"
            )
    names: dict[str, list] = {}
    for sub in subs:
        names.setdefault(sub.display_name, []).append(sub)
    for name, same in names.items():
        if len(same) > 1 and same[0].lms != "generic":
            notes.append(
                f"{len(same)} students are named {name} ({', '.join(s.lms_id for s in same)}): "
                f"kept apart as {', '.join(s.student for s in same)}"
            )
    return notes
