"""LMS downloads read as submissions, one per student: the collection part every verb shares.

``grader autograde --zip``, ``grader grade-class`` (a folder or ``--zip``) and any other verb that
reads a class read it here, so a student is the same student on every route::

    from grader.lms import read_download

    with read_download("ps4b_submissions.zip", lms="auto", time_zone="Europe/Paris") as download:
        for sub in download.submissions:      # one per student
            sub.lms, sub.lms_id, sub.display_name, sub.student, sub.submitted_at, sub.late
            for f in sub.files:               # the student's own names, without the LMS's prefix
                data = download.read(f, limit=2**20)
        for left in download.left_out:        # every entry not collected, with why and the fix
            print(left)
        download.passed_over                  # the LMS's own files (index.html, receipts), OS metadata
        download.complete                     # nothing left out for a problem (for the exit status)

An archive (``.zip``) or a folder goes in; every entry comes out exactly once: in a submission's
files, passed over as furniture, or left out with its reason. Who a file belongs to comes from the
fields each LMS writes (:mod:`grader.lms.shapes`: Canvas, Moodle, Blackboard, Brightspace, and names
given by the instructor), never from a name a student can edit; the student id from the LMS's id,
through a roster when one is given (:mod:`grader.lms.identity`, :mod:`grader.lms.roster`). A
resubmission keeps the latest by the LMS's own time or number. Reading is bounded and never
follows a link (:mod:`grader.lms.source`). :mod:`grader.lms.place` picks an assignment's files from
a submission and writes them.
"""

from grader.lms.collect import Download, LeftOut, Submission, SubmittedFile, course_zone, read_download
from grader.lms.identity import name_id, rule_id
from grader.lms.place import AssignmentFiles, place, write_files
from grader.lms.roster import Person, Roster, read_roster
from grader.lms.shapes import LMS_SHAPES
from grader.lms.source import MAX_ENTRIES, Budget

__all__ = [
    "AssignmentFiles",
    "Budget",
    "Download",
    "LMS_SHAPES",
    "LeftOut",
    "MAX_ENTRIES",
    "Person",
    "Roster",
    "Submission",
    "SubmittedFile",
    "course_zone",
    "name_id",
    "place",
    "read_download",
    "read_roster",
    "rule_id",
    "write_files",
]
