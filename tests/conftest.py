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

# The longest files, longest first (CPU time measured on 2 cores, December 2026); every other
# file follows in pytest's own order. Only the order of whole files changes, never the order
# of the tests inside a file.
LONGEST_FIRST = (
    "tests/test_autograde_course_run.py",
    "tests/test_gradescope.py",
    "tests/test_nbgrader_e2e.py",
    "tests/test_gradebook_postgres.py",
    "tests/test_mutants.py",
    "tests/test_blind.py",
    "tests/test_autograde_hostile_e2e.py",
    "tests/fuzz/test_fuzz_submissions.py",
    "tests/test_lab_notebook.py",
    "tests/test_ppo_training.py",
    "tests/cluster/test_cluster.py",
    "tests/classgrade/test_grade_class.py",
    "tests/test_trivial.py",
    "tests/test_student_kit.py",
    "tests/sandbox/test_hostile.py",
    "tests/test_record_equivalence.py",
    "tests/test_leak_check.py",
    "tests/test_notebook_submissions.py",
    "tests/test_written_answers.py",
    "tests/test_correct.py",
    "tests/report/test_report.py",
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
