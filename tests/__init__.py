"""The grader's own tests, laid out as grader/ is (as otter-grader's tests mirror its verbs).

- ``tests/<package>/`` specifies ``grader/<package>/``: core, engine, worker, sandbox, notebooks, lms,
  feedback (with studentfeedback, the pages a student reads), and one folder per verb that has tests of
  its own: autograde, build, classgrade, export, grade, gradescope, report, similarity, stubs. A file is
  named for what it specifies; ``grader check`` is specified with ``grader grade`` (grade/test_grade.py).
- ``tests/course/``: the course itself rather than one part of the grader: the reference earns full
  marks on other correct implementations, mutants and blind corpora lose points with honest first
  messages, trivial and faked bodies earn nothing, the module's own code, the course's rules, the
  labs' CartPole, PPO and sequence code.
- ``tests/fuzz/``: the fuzzing harness, hostile input drawn through every route that reads a class
  (extraction, staging, zip collection, whole autograde and grade-class runs).
- The root holds the rules of the whole project (test_architecture, test_style, test_signatures,
  test_error_messages, test_suite_order: the developers' guide and docs/architecture.md name them
  here), the tests of grader's root modules (test_testing: grader/testing.py; test_concept_checks and
  test_answer_formats: grader/answers.py; test_settings: grader/options.py; test_console:
  grader/display.py), and the shared helpers, imported as ``tests.<name>`` (helpers, toy_course,
  hostile_archives, similarity_corpus, pgserver). ``tests/data/`` holds what the tests read.
"""
