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
roster's id of the line that holds the LMS's id (``lms_id``; Moodle's participant number in
``moodle_participants``), never by a name: the name an LMS writes is one a student may edit (Moodle's
full name by default, Canvas's and Blackboard's where the institution allows it), never the id the LMS
gives her (Blackboard's username is the institution's login, set when the account is made). One the
roster has no id for keeps the LMS's rule, named in a note, with one more note naming the cell to fill.

=========== ============================================================================================
LMS         the roster's cell that files a submission under its line
=========== ============================================================================================
canvas      ``lms_id``: the user ``ID`` (People, or the gradebook export's ``ID`` column)
moodle      ``moodle_participants``: the assignment's participant number (the grading worksheet's
            ``Participant 1006``), one per assignment
blackboard  ``lms_id``: the username
brightspace ``lms_id``: the user number (after the dash of ``39786-640693``)
generic     none: the instructor named the files
=========== ============================================================================================
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from grader.engine.store import SAFE_ID
from grader.lms.roster import WORKSHEET, Roster
from grader.untrusted import shown

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


FILL = {
    "canvas": "put each one's Canvas user ID in their line's lms_id cell (Canvas's People page, or the ID column "
    "of its gradebook export)",
    "brightspace": "put each one's Brightspace user number (640693 of 39786-640693) in their line's lms_id cell",
    "blackboard": "put each one's Blackboard username in their line's lms_id cell",
    "moodle": "add each one's participant number to their line's moodle_participants cell (Moodle numbers "
    "participants per assignment; " + WORKSHEET + ")",
}


def _anonymous(sub) -> bool:
    return sub.lms == "canvas" and sub.lms_id.startswith("anon_")


def student_ids(subs, roster: Roster | None) -> list[str]:
    """Give each submission of ``subs`` (one per LMS id) its student id; returns what the instructor
    should know (roster misses and how to fill them, names shared). A roster files a submission by the
    LMS's id only, never by its name; no two submissions get one id: a roster line that two LMS ids
    reach files neither under it."""
    notes: list[str] = []
    chosen: dict[str, list] = {}
    unfiled = []
    for sub in subs:
        sub.student = rule_id(sub.lms, sub.lms_id)
        if roster and sub.lms != "generic":
            person, why = roster.match(sub.lms, sub.lms_id)
            if person is not None:
                sub.student = person.id
            elif _anonymous(sub):
                if roster.complete:
                    notes.append(f"{sub.who}: Canvas's anonymous grading hides who it is; collected as {sub.student}")
            else:
                unfiled.append(sub)
                if roster.complete:
                    notes.append(f"{sub.who}: {why}; collected as {sub.student}")
        chosen.setdefault(sub.student, []).append(sub)
    if unfiled and roster.complete:
        notes.append(
            f"to file the {len(unfiled)} student(s) above under your ids, {FILL[unfiled[0].lms]}, then collect again"
        )
    elif unfiled and unfiled[0].lms == "moodle":  # a gradebook's students: Moodle's numbers are never among them
        notes.append(
            f"{len(unfiled)} Moodle participant(s) collected under their number (moodle-<number>): the gradebook "
            f"keeps no participant number; to file them under your ids, give a roster and {FILL['moodle']}"
        )
    for student, same in chosen.items():
        if len(same) > 1:  # a roster line holding two ids of one download: file neither under it
            for sub in same:
                sub.student = rule_id(sub.lms, sub.lms_id)
            notes.append(
                f"{' and '.join(s.who for s in same)} both match the roster's {student}: each is collected "
                "under its LMS id instead; fix that line of the roster"
            )
    names: dict[str, list] = {}
    for sub in subs:
        names.setdefault(sub.display_name, []).append(sub)
    for name, same in names.items():
        if len(same) > 1 and same[0].lms != "generic":
            notes.append(
                f"{len(same)} students are named {shown(name, 60)} ({', '.join(shown(s.lms_id, 40) for s in same)}): "
                f"kept apart as {', '.join(s.student for s in same)}"
            )
    return notes
