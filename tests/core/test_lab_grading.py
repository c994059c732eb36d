"""How the labs are graded: the trusted side trains, the student's functions only answer calls.

A lab once trained inside the student's process and sent back weights; student code
could then reach the training's frame and write a controller into them. Now the
course's training loop runs in the grader's own process with its own weights and
optimiser, and calls the student's functions across the boundary with plain data.
"""

from __future__ import annotations

from tests.helpers import ROOT, grade_json

HOSTILE = ROOT / "tests" / "data" / "hostile"
CARTPOLE_FUNCTIONS = ["gae_advantages", "ppo_clipped_terms", "ppo_diagnostics", "cartpole_ppo_lab"]


def test_a_submission_that_rewrites_the_training_from_its_frame_scores_nothing():
    # gae.py walks up to train_ppo's frame, writes a balancing controller into the weights
    # and zeroes the gradient; anywhere else its functions raise NotImplementedError. It once
    # scored 8/8 on the lab.
    [result] = grade_json(HOSTILE / "lab_frame_cheat", only=CARTPOLE_FUNCTIONS)
    functions = result["functions"]
    for name in ("gae_advantages", "ppo_clipped_terms", "ppo_diagnostics"):
        assert functions[name]["score"] == 0, (name, functions[name])
    lab = functions["cartpole_ppo_lab"]
    assert lab["score"] == 0, lab
    # The message is about the student's own function, not about the training.
    messages = " ".join(t["message"] for t in lab["tests"]) + str(lab["error"])
    assert "gae_advantages" in messages, messages


# -- whose budget a call spends --------------------------------------------------------------------
SLOW_DOUBLE = """
import time

import numpy as np


def double(x):
    if np.ndim(x) == 0 and float(x) == 99.0:
        while True:
            pass
    time.sleep(0.25)
    return 2.0 * np.asarray(x, dtype=float)


def add(a, b):
    return float(a) + float(b)
"""


def test_calls_scoped_to_an_exercise_spend_its_budget_and_fail_only_it(tmp_path):
    # A lab calls a unit exercise's function thousands of times: those calls must spend the
    # lab's time limit, and a failure during the lab must cost the lab alone (and vice versa).
    from grader.core.course import load_course
    from grader.core.submission import FunctionUnavailable, Implementation, Submission
    from tests.toy_course import TIME_LIMIT, make_toy_course

    course = load_course(make_toy_course(tmp_path / "course"))
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "toy.py").write_text(SLOW_DOUBLE, encoding="utf-8")
    submission = Submission(folder, course)
    try:
        impl = Implementation(submission)
        lab = impl.charged_to("add")  # stands for a lab exercise here
        calls = int(0.7 * TIME_LIMIT / 0.25)  # together, two such runs would overrun one budget
        for _ in range(calls):
            assert float(lab.double(1.0)) == 2.0
        assert submission.state("add").spent >= calls * 0.25
        assert submission.state("double").spent == 0.0
        for _ in range(calls):
            assert float(impl.double(2.0)) == 4.0
        assert submission.state("double").spent >= calls * 0.25
        # An endless loop during the "lab" ends the lab, and says so, not double.
        try:
            lab.double(99.0)
        except FunctionUnavailable as problem:
            assert "add used up its time limit" in str(problem) and "while calling double" in str(problem)
        else:
            raise AssertionError("an endless loop did not end the call")
        assert submission.state("add").unavailable is not None
        assert submission.state("double").unavailable is None
        assert float(impl.double(3.0)) == 6.0
    finally:
        submission.close()


def test_the_cross_check_samples_calls_and_names_where_a_function_differs():
    import types

    from grader.core.labrun import CrossCheck

    def judge(args, kwargs, got, want):
        return None if got == want else ("on negative inputs" if args[0] < 0 else "on positive inputs")

    student = types.SimpleNamespace(double=lambda x: 2 * x if x < 10 else 0)
    reference = {"double": lambda x: 2 * x}
    checked = CrossCheck(student, reference.__getitem__, {"double": judge}, first=3, every=5)
    for x in range(1, 10):
        assert checked.double(x) == 2 * x  # results pass through unchanged
    assert checked.agrees() and checked.findings() == []
    stats = checked.stats["double"]
    assert (stats.calls, stats.checked) == (9, 4)  # calls 1, 2, 3 and 5
    checked.double(10)  # call 10: sampled, and wrong
    assert not checked.agrees()
    assert checked.findings() == ["double differs from its definition on positive inputs"]
    assert not checked.agrees("double") and checked.agrees("triple")  # agreement of some functions only
    checked.double(11)  # not sampled: nothing new is learnt, and nothing is hidden either
    assert checked.stats["double"].checked == 5
    # A phrase found again, alone or among others, is said once.
    several = CrossCheck(
        student,
        reference.__getitem__,
        {
            "double": lambda a, k, got, want: (
                None
                if got == want
                else (["on large inputs"] if a[0] < 20 else ["on large inputs", "on very large inputs"])
            )
        },
        first=10,
        every=1,
    )
    for x in (10, 11, 25, 26, 12):
        several.double(x)
    assert several.findings() == ["double differs from its definition on large inputs and on very large inputs"]
    try:
        checked.triple(1)
    except AttributeError:
        pass
    else:
        raise AssertionError("a function without a judge must not be reachable")
