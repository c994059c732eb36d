"""How the grader's own test suite is spread over processes.

``make test`` runs on pytest-xdist workers (pyproject.toml: ``-n logical --dist loadfile``): a
test file runs whole on one worker, so its module-scoped set-up (a course built, a class
graded in one session, a PostgreSQL server) happens once. Workers take files in collection
order, so the longest files are put first: a long file started last would leave the other
workers idle until it ends. ``-n 0`` runs everything in this process, in the same order.
"""

from __future__ import annotations

# Imported first so that notebook-reading test modules do not pay for rfc3987_syntax (grader/__init__.py).
import grader  # noqa: F401

# The longest files, longest first: the time of each file run alone (`-n 0`, 2 idle cores, December
# 2026), in seconds, wall (what a worker is busy for; cluster waits on its workers) and CPU. The
# other files follow in pytest's own order (those measured took under 7 s). Only the order of whole
# files changes, never the order of the tests inside a file.
LONGEST_FIRST = (
    "tests/course/test_blind.py",  # 116 wall, 109 CPU (load about 1): one grading session of 695 entries, corpora 1-5
    # 80 CPU (measured at a load average of 9-10: 280 wall): the build, a venv and pip install of a kit
    # with its [notebooks] extra (21), every kit's checks (about 20), the lab's notebook (20)
    "tests/build/test_student_kit_installed.py",
    "tests/course/test_mutants.py",  # 84, 82: one session, the lab mutants train
    "tests/autograde/test_course_run.py",  # 76, 78
    # 248 wall under a load average of 7 (other sessions' work), not yet measured alone: 24 synthetic
    # classes of 52 analysed, every pair labelled.
    "tests/similarity/test_quality.py",
    "tests/engine/test_cluster.py",  # 61, 21
    "tests/classgrade/test_grade_class.py",  # 52, 42
    "tests/autograde/test_nbgrader_e2e.py",  # 51, 45
    "tests/grade/test_grade.py",  # 43, 40
    "tests/autograde/test_hostile_e2e.py",  # 41, 41
    "tests/notebooks/test_gradebook_postgres.py",  # 31, 33
    "tests/course/test_trivial.py",  # 27, 27
    "tests/similarity/test_similarity.py",  # 41 wall under a load average of 7, not yet measured alone
    "tests/fuzz/test_fuzz_submissions.py",  # 25, 26
    "tests/lms/test_routes.py",  # 35 wall beside a load of 5 (about 20 idle), 18 CPU: grade-class per LMS
    "tests/gradescope/test_gradescope.py",  # 20, 17
    "tests/build/test_student_kit.py",  # 22 wall at a load average of 4: two labs' visible checks train
    "tests/build/test_leak_check.py",  # 17, 18
    "tests/build/test_written_answers.py",  # 17, 18
    "tests/autograde/test_record_equivalence.py",  # 16, 17
    "tests/sandbox/test_sockets.py",  # 15, 4: five sandbox modes, two as root in a process of their own
    "tests/sandbox/test_hostile.py",  # 14, 2
    "tests/core/test_lab_replay.py",  # 13, 13
    "tests/report/test_report.py",  # 9, 7
    "tests/course/test_correct.py",  # 9, 9
    "tests/feedback/test_display_names.py",  # 9, 6: grade-class, feedback and report on a toy download
    # Measured beside other engineers' work (load about 10): 15 and 13 wall, 4 CPU each.
    "tests/course/test_seed_module_code.py",
    "tests/course/test_rules.py",
    "tests/core/test_lab_grading.py",  # 8, 4
    "tests/sandbox/test_accounting.py",  # 7, 1
)


def pytest_collection_modifyitems(session, config, items):
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    first_seen: dict[str, int] = {}
    for item in items:
        first_seen.setdefault(item.nodeid.split("::")[0], len(first_seen))

    def key(item):
        path = item.nodeid.split("::")[0]
        return (rank.get(path, len(rank)), first_seen[path])

    items.sort(key=key)  # stable: the tests of a file keep their order
