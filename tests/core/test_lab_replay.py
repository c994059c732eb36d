"""Labs graded by replaying the reference training's calls in a few large crossings.

``impl.f.map`` sends many calls of one function in one request and brings their
results back stacked; :mod:`grader.core.labreplay` records the calls of a reference
training and replays them, and a lab trains with the student's functions only when
an answer differs (the hidden tests of both labs; the lab mutants, graded by
tests/course/test_mutants.py, take that path).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from grader.core import labreplay
from grader.worker import runtime
from tests.helpers import use_cache

TOY = """
import numpy as np


def double(x):
    x = np.asarray(x, dtype=float)
    return 2.0 * x if x.sum() < {wrong_above} else 3.0 * x


def add(a, b):
    raise NotImplementedError


def scale(x, factor):
    while True:
        pass
"""


@pytest.fixture
def toy(tmp_path):
    from grader.core.course import load_course
    from tests.toy_course import make_toy_course

    return load_course(make_toy_course(tmp_path / "course"))


def submission_of(course, folder, wrong_above=1e9):
    from grader.core.submission import Submission

    folder.mkdir()
    (folder / "toy.py").write_text(TOY.replace("{wrong_above}", repr(wrong_above)), encoding="utf-8")
    (folder / "other.py").write_text(TOY.replace("{wrong_above}", "0"), encoding="utf-8")
    return Submission(folder, course)


def training(functions):
    """A stand-in for a lab's training: 40 calls of double, two shapes, results feeding the next inputs."""
    x, total = np.ones(3), 0.0
    for step in range(40):
        y = functions.double(x if step % 4 else np.ones(2) * step)
        total += float(np.sum(y))
        x = np.asarray(y, dtype=float)[:3] / 2.0 + step if np.size(y) == 3 else x
    return total


@dataclasses.dataclass
class Stats:
    mean: float
    spread: float


def test_results_of_many_calls_are_stacked_leaf_by_leaf():
    results = [(np.arange(3.0) * i, {"n": i, "stats": Stats(float(i), 2.0 * i)}) for i in range(4)]
    stacked = runtime.decode(runtime.encode_stacked(results), lambda name, fields: (name, fields))
    arrays, extra = stacked
    assert np.array_equal(arrays, np.arange(3.0)[None, :] * np.arange(4)[:, None])
    assert np.array_equal(extra["n"], np.arange(4))
    assert extra["stats"][0] == "Stats" and np.array_equal(extra["stats"][1]["spread"], 2.0 * np.arange(4))
    for unlike in ([np.ones(2), np.ones(3)], [(1.0,), (1.0, 2.0)], [1.0, "a"], [{"a": 1}, {"b": 1}]):
        with pytest.raises(runtime.UnsupportedValue):
            runtime.encode_stacked(unlike)


def test_a_batch_of_calls_crosses_once(toy, tmp_path):
    from grader.core.submission import Implementation, StudentError

    submission = submission_of(toy, tmp_path / "student")
    try:
        impl = Implementation(submission)
        rows = np.arange(12.0).reshape(4, 3)
        got = impl.double.map([rows], [0], 4, {})
        assert isinstance(got, np.ndarray) and np.array_equal(got, 2.0 * rows)
        # A call that raises ends the batch with its error, as a single call would.
        with pytest.raises(StudentError) as raised:
            impl.add.map([np.ones((3, 1)), 1.0], [0], 3, {})
        assert raised.value.error_type == "NotImplementedError"
    finally:
        submission.close()


def test_replay_agrees_with_a_correct_submission_in_few_crossings(toy, tmp_path):
    from grader.core.submission import Implementation

    record = labreplay.reference_record(("toy", str(tmp_path)), toy.reference, ["double"], training)
    assert record.calls == {"double": 40} and len(record.groups) == 2  # two shapes of input
    assert record.outcome == training(type("Reference", (), {"double": staticmethod(toy.reference("double"))}))
    submission = submission_of(toy, tmp_path / "student")
    try:
        replayed = labreplay.replay_training(
            Implementation(submission).charged_to("add"), record, dict(rtol=1e-9, atol=0)
        )
    finally:
        submission.close()
    assert replayed.agrees and replayed.calls == 40 and replayed.crossings == 2


def test_replay_stops_at_the_first_call_that_differs(toy, tmp_path):
    from grader.core.submission import Implementation

    record = labreplay.reference_record(("toy", str(tmp_path)), toy.reference, ["double"], training)
    submission = submission_of(toy, tmp_path / "student", wrong_above=30.0)
    try:
        replayed = labreplay.replay_training(
            Implementation(submission).charged_to("add"), record, dict(rtol=1e-9, atol=0), reply_bytes=2000
        )  # small chunks: several crossings per group
    finally:
        submission.close()
    inputs = []
    training(type("Spy", (), {"double": staticmethod(lambda x: inputs.append(np.asarray(x)) or 2.0 * x)}))
    first_wrong = next(i for i, x in enumerate(inputs, start=1) if x.sum() >= 30.0 and x.shape == (3,))
    assert not replayed.agrees and replayed.function == "double" and replayed.call == first_wrong
    assert "differs from the reference" in replayed.reason
    assert np.array_equal(replayed.args[0], inputs[first_wrong - 1])
    assert np.allclose(replayed.want, 2.0 * inputs[first_wrong - 1])  # for the lab's judge, never shown


def test_a_record_is_kept_on_disk_and_read_back_as_made(toy, tmp_path, monkeypatch):
    """With the course, the record is stored under its fingerprint: later processes read it, not train."""
    from grader.core.submission import Implementation

    use_cache(monkeypatch, tmp_path / "cache")
    monkeypatch.setattr(labreplay, "_RECORDS", {})
    trainings = []

    def counted(functions):
        trainings.append(1)
        return training(functions)

    made = labreplay.reference_record(("toy-disk",), toy.reference, ["double"], counted, course=toy)
    [stored] = (tmp_path / "cache" / "labs").glob("toy-disk-*.json")
    monkeypatch.setattr(labreplay, "_RECORDS", {})  # as in a new process
    read = labreplay.reference_record(("toy-disk",), toy.reference, ["double"], counted, course=toy)
    assert len(trainings) == 1 and read is not made
    assert read.outcome == made.outcome and read.calls == made.calls and len(read.groups) == len(made.groups)
    for a, b in zip(read.groups, made.groups):
        assert (a.function, a.rows, a.kwargs, a.calls, a.order, a.row_bytes) == (
            b.function,
            b.rows,
            b.kwargs,
            b.calls,
            b.order,
            b.row_bytes,
        )
        assert all(np.array_equal(x, y) and np.asarray(x).dtype == np.asarray(y).dtype for x, y in zip(a.args, b.args))
        assert np.array_equal(a.expected, b.expected) and a.expected.dtype == b.expected.dtype
    submission = submission_of(toy, tmp_path / "student", wrong_above=30.0)
    try:
        impl = Implementation(submission).charged_to("add")
        replays = [labreplay.replay_training(impl, r, dict(rtol=1e-9, atol=0)) for r in (read, made)]
        assert not replays[0].agrees and replays[0].where() == replays[1].where()
        assert np.array_equal(replays[0].want, replays[1].want) and replays[0].calls == replays[1].calls
    finally:
        submission.close()
    # Another key, or a damaged entry, is made again; no cache directory keeps nothing on disk.
    labreplay.reference_record(("toy-disk", "other"), toy.reference, ["double"], counted, course=toy)
    stored.write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(labreplay, "_RECORDS", {})
    labreplay.reference_record(("toy-disk",), toy.reference, ["double"], counted, course=toy)
    assert len(trainings) == 3 and labreplay.load_record(stored) is not None
    use_cache(monkeypatch, None)
    monkeypatch.setattr(labreplay, "_RECORDS", {})
    labreplay.reference_record(("toy-disk",), toy.reference, ["double"], counted, course=toy)
    assert len(trainings) == 4


def test_a_changed_course_does_not_read_an_old_record(toy, tmp_path, monkeypatch):
    use_cache(monkeypatch, tmp_path / "cache")
    monkeypatch.setattr(labreplay, "_FINGERPRINTS", {})
    from grader.core.fingerprint import course_fingerprint

    before = labreplay.record_cache_file(("toy",), course_fingerprint(toy))
    solution = next(toy.solutions_dir.glob("*.py"))
    solution.write_text(solution.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert labreplay.record_cache_file(("toy",), course_fingerprint(toy)) != before


def test_expected_student_records_survive_the_disk(tmp_path):
    from grader.core.submission import Record

    expected = (np.arange(4.0), Record("Stats", {"mean": np.arange(4.0), "spread": np.ones(4)}), [np.zeros(4, int)])
    group = labreplay.Group(
        "f", [np.ones((4, 2)), 0.5, None], [0], {"gamma": 0.9}, [1, 2, 3, 4], [0, 1, 2, 3], expected, 100
    )
    record = labreplay.LabRecord([group], {"success_rate": np.float64(0.75), "steps": [1, 2]}, {"f": 4})
    assert labreplay.store_record(record, tmp_path / "r.json")
    read = labreplay.load_record(tmp_path / "r.json")
    [back] = read.groups
    assert isinstance(back.expected[1], Record) and back.expected[1].type_name == "Stats"
    assert np.array_equal(back.expected[1].fields["spread"], np.ones(4)) and isinstance(back.expected[2], list)
    assert back.args[1:] == [0.5, None] and back.kwargs == {"gamma": 0.9}
    assert read.outcome == record.outcome and isinstance(read.outcome["success_rate"], np.float64)


def test_a_failing_replay_leaves_the_lab_budget_and_state_as_they_were(toy, tmp_path):
    # The replay is only a shortcut: when it fails, the training decides exactly as without it.
    # A time-out is final: the same calls one by one would take at least as long.
    from grader.core.submission import Implementation
    from tests.toy_course import TIME_LIMIT

    def calls_of(name, *extra):
        def train(functions):
            return [getattr(functions, name)(np.array(float(i)), *extra) for i in range(5)]

        return train

    raising = labreplay.reference_record(("toy-add", str(tmp_path)), toy.reference, ["add"], calls_of("add", 1.0))
    looping = labreplay.reference_record(("toy-scale", str(tmp_path)), toy.reference, ["scale"], calls_of("scale", 2.0))
    submission = submission_of(toy, tmp_path / "student")
    try:
        lab = Implementation(submission).charged_to("double")  # stands for a lab exercise here
        replayed = labreplay.replay_training(lab, raising, dict(rtol=1e-9, atol=0))
        assert not replayed.agrees and "NotImplementedError" in replayed.reason and replayed.call == 1
        state = submission.state("double")
        assert (state.spent, state.unavailable, state.not_implemented) == (0.0, None, False)
        assert float(np.sum(lab.double(np.ones(2)))) == 4.0  # the lab goes on
        replayed = labreplay.replay_training(lab, looping, dict(rtol=1e-9, atol=0))
        assert not replayed.agrees and "time limit" in replayed.reason
        assert state.spent >= TIME_LIMIT and state.unavailable is not None
        assert "used up its time limit" in str(state.unavailable)
    finally:
        submission.close()


LAB_FUNCTIONS = {
    "cartpole_ppo_lab": ["gae_advantages", "ppo_clipped_terms", "ppo_diagnostics"],
    "sequence_rloo_lab": [
        "response_token_mask",
        "leave_one_out_baselines",
        "masked_token_ppo_terms",
        "masked_token_ppo_objective",
    ],
}


@pytest.mark.slow
@pytest.mark.parametrize("lab", sorted(LAB_FUNCTIONS))
def test_correct_alternatives_of_the_lab_functions_are_replayed_without_training(lab, tmp_path):
    # tests/data/correct/ holds independent correct implementations (loops, other formulas): each
    # must agree with the reference on every call of its training, or it would train every time.
    import importlib.util

    from grader import testing
    from grader.core.course import load_course
    from grader.core.submission import Implementation, Submission
    from tests.helpers import CORRECT, ROOT, build_submission

    course = load_course(ROOT)
    testing.CONTEXT.course, testing.CONTEXT.function = course, lab
    spec = importlib.util.spec_from_file_location(f"_replay_{lab}", course.hidden_test_file(lab))
    test = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(test)
    params = testing.exercise_params(lab)
    if lab == "cartpole_ppo_lab":
        trained, cartpole = test.trusted_modules()
        records, tolerance = (
            [test.reference_record(course, trained, cartpole, params["seeds"], params["profile"])],
            test.CLOSE,
        )
    else:
        sequence = test.trusted("llm_sequence")
        records, tolerance = (
            [test.reference_record(sequence, s, params["profile"]) for s in params["seeds"]],
            test.TOLERANCE,
        )
    alternatives = [p for f in LAB_FUNCTIONS[lab] for p in sorted((CORRECT / f).glob("*.py"))]
    assert len(alternatives) >= 2 * len(LAB_FUNCTIONS[lab])
    for path in alternatives:
        submission = Submission(build_submission(tmp_path / path.parent.name / path.stem, [path]), course)
        try:
            impl = Implementation(submission).charged_to(lab)
            differing = [
                r.where()
                for r in (labreplay.replay_training(impl, record, tolerance) for record in records)
                if not r.agrees
            ]
        finally:
            submission.close()
        assert not differing, (path, differing)


# A lab mutant's message says where the replay first differed: tests/course/test_mutants.py (graded there already).
