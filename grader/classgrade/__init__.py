"""Grade a whole class: parallel, resumable, one sandboxed worker per submission.

``grader grade-class SUBMISSIONS_DIR -j N --out DIR`` (:mod:`grader.classgrade.command`)
coordinates N trusted processes (:mod:`grader.classgrade.worker`); each runs one
pytest session that takes submissions from a shared queue
(:mod:`grader.classgrade.session`). Results land in DIR one file per student
(:mod:`grader.classgrade.store`), keyed by fingerprints of the submission and the
course (:mod:`grader.classgrade.fingerprint`).
"""
