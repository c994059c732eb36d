"""Hidden test of the CartPole PPO lab: the grader trains, the student's functions answer its calls.

The course's training loop (ppo_training.py) runs here, in the trusted process,
with its own weights, optimiser and CartPole. It calls the student's
``gae_advantages``, ``ppo_clipped_terms`` and ``ppo_diagnostics`` across the
boundary with plain arrays and numbers (charged to this lab's time limit), and
never shows them a weight or a frame of the training. A sample of those calls is
compared with the reference on the same inputs: a failing run says which function
differed and on what kind of input. The verdict is the return the final weights
earn on this side's own CartPole, with evaluation seeds of its own.

A graded run stops once its greedy evaluation has held 475 for a few evaluations in
a row (ppo_training.GRADED_RUN), but only while every checked call agreed with the
reference: a run whose functions differ trains its whole budget.

Before training, the calls of the reference's graded training (recorded once per
grading process) are replayed to the student's functions in a few large crossings
(grader/core/labreplay.py): when every answer agrees with the reference's within
CLOSE, the training with the student's functions is the reference's, and earns its
verdict without training again. Otherwise the grader trains as described above, and
a failing run also says where the replay first differed.
"""

import numpy as np

from grader import testing
from grader.core import labreplay
from grader.core.labrun import CrossCheck, one_blas_thread
from grader.core.submission import StudentError
from grader.testing import Misconception, exercise_params

EVALUATION_EPISODES = 20
EVALUATION_SEED = 7_300_001  # not the seed the training code evaluates with
CLOSE = dict(rtol=1e-6, atol=1e-6)
# The functions whose answers steer the training (ppo_diagnostics only fills its history): a run
# stops early once solved only while these agree with the reference.
STEERING = ("gae_advantages", "ppo_clipped_terms")
LAB = "cartpole_ppo_lab"
FUNCTIONS = ("gae_advantages", "ppo_clipped_terms", "ppo_diagnostics")


def trusted_modules():
    """The course's lab code and CartPole, loaded in this (trusted) process."""
    course = testing._course()
    return course.reference_module("ppo_training"), course.reference_module("cartpole")


# -- where a student's function differs from its definition, in words ---------------------------
def gae_judge(stretch):
    """Judge of gae_advantages on the lab's rollouts: each copy's ``stretch`` records, one after another."""

    def judge(args, kwargs, got, want):
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
        differs = ~np.isclose(got, want, **CLOSE)
        if got.shape != want.shape or not differs.any():
            return None
        terminated, cuts = np.asarray(args[3], dtype=bool), np.asarray(args[4], dtype=bool)
        # The recursion runs backwards within a stretch between trace cuts: the last record of a
        # stretch that differs is where the difference starts.
        segment = np.concatenate([[0], np.cumsum(cuts[:-1])])
        sources = [np.flatnonzero(differs & (segment == s))[-1] for s in np.unique(segment[differs])]
        kinds = []
        for t in sources:
            if terminated[t]:
                kind = "at records where the pole fell (terminated: no bootstrap, the recursion stops)"
            elif cuts[t] and (t + 1) % stretch == 0:
                kind = (
                    "at the last record of a copy's stretch of the buffer (a trace cut without "
                    "termination: bootstrap from the next value, but no recursion past it)"
                )
            elif cuts[t]:
                kind = "at time-limit truncations (trace cuts too)"
            else:
                kind = "inside episodes (delta_t + gamma * lambda * the next advantage)"
            if kind not in kinds:
                kinds.append(kind)
        return kinds

    return judge


def clipped_terms_judge(args, kwargs, got, want):
    ratio, advantage = np.asarray(args[0], dtype=float), np.asarray(args[1], dtype=float)
    eps = args[2] if len(args) > 2 else kwargs.get("clip_epsilon", 0.2)
    got = [np.asarray(g, dtype=float) for g in got]
    if len(got) != 3 or any(g.shape != ratio.shape for g in got):
        return None
    names = ("unclipped term r * A", "clipped term clip(r, 1 - eps, 1 + eps) * A", "pessimistic term")
    wrong = [~np.isclose(g, w, **CLOSE) for g, w in zip(got, want)]
    for name, rows in zip(names[:2], wrong[:2]):
        if rows.any():
            return f"in its {name}"
    if not wrong[2].any():
        return None
    kinds = ["in its pessimistic term min(r A, clip(r) A)"]
    for where, inside in (("above", ratio > 1 + eps), ("below", ratio < 1 - eps)):
        for sign, side in (("positive", advantage > 0), ("negative", advantage < 0)):
            if np.any(wrong[2] & inside & side):
                kinds.append(f"on rows with ratios {where} the clip interval and {sign} advantages")
    inside = (ratio >= 1 - eps) & (ratio <= 1 + eps)
    if np.any(wrong[2] & inside):
        kinds.append("on rows with ratios inside the clip interval")
    return kinds


def diagnostics_judge(args, kwargs, got, want):
    fields = ("ratio_outside_fraction", "active_clip_fraction", "approx_kl_nonnegative", "mean_log_ratio")
    wrong = [f for f in fields if not np.isclose(float(getattr(got, f)), getattr(want, f), **CLOSE)]
    return f"in {', '.join(wrong)}" if wrong else None


def cross_check(impl, course, lab):
    stretch = lab.graded_config().num_steps
    return CrossCheck(
        impl.charged_to("cartpole_ppo_lab"),
        course.reference,
        {
            "gae_advantages": gae_judge(stretch),
            "ppo_clipped_terms": clipped_terms_judge,
            "ppo_diagnostics": diagnostics_judge,
        },
    )


# -- the graded runs ------------------------------------------------------------------------------------
def trained_weights(lab, cartpole, seed, profile, student):
    """Run the graded training for ``seed`` here; a student function that breaks it becomes a Misconception."""
    try:
        with one_blas_thread():
            return lab.cartpole_ppo_lab(
                seed,
                profile,
                functions=student,
                may_stop=lambda: student.agrees(*STEERING),
                vector_env=cartpole.VectorCartPole,
            )
    except StudentError as error:
        raise Misconception(f"the training (seed {seed}) stopped: {error.describe()}") from None
    except ValueError as error:  # the training loop's checks of what a student function returned
        raise Misconception(f"the training (seed {seed}) stopped: {error}") from None


def graded_runs(lab, cartpole, seeds, profile, functions, reference=False):
    """Train and evaluate every seed with ``functions``: the mean return of each and the steps it trained.

    ``reference``: ``functions`` are the reference's (recorded for the replay), not a CrossCheck.
    """
    means, steps = [], []
    for seed in seeds:
        if reference:
            with one_blas_thread():
                run = lab.cartpole_ppo_lab(seed, profile, functions=functions, vector_env=cartpole.VectorCartPole)
        else:
            run = trained_weights(lab, cartpole, seed, profile, functions)
        returns = lab.evaluate_policy(
            run["weights"], EVALUATION_EPISODES, EVALUATION_SEED + 1000 * seed, vector_env=cartpole.VectorCartPole
        )
        means.append(float(np.mean(returns)))
        steps.append(run["environment_steps"])
    return means, steps


def reference_record(course, lab, cartpole, seeds, profile):
    """The reference's graded trainings (every call of the three functions) and what they earned."""
    return labreplay.reference_record(
        (LAB, tuple(seeds), profile),
        course.reference,
        FUNCTIONS,
        lambda functions: graded_runs(lab, cartpole, seeds, profile, functions, reference=True),
        course=course,
    )


def replay_finding(replayed, stretch):
    """Where the replay of the reference training first differed, in words (no expected value)."""
    judges = {
        "gae_advantages": gae_judge(stretch),
        "ppo_clipped_terms": clipped_terms_judge,
        "ppo_diagnostics": diagnostics_judge,
    }
    kinds = None
    if replayed.got is not None:
        try:
            kinds = judges[replayed.function](replayed.args, replayed.kwargs, replayed.got, replayed.want)
        except Exception:  # a malformed answer: the reason already says so
            kinds = None
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    detail = f" ({' and '.join(kinds[:3])})" if kinds else ""
    return f"Replaying the reference training's calls, your functions first differed in {replayed.where()}{detail}."


def test_trained_policy_balances_the_pole(impl):
    """Replay the reference training's calls; train here only when an answer differs; compare the median."""
    params = exercise_params()
    course = testing._course()
    lab, cartpole = trusted_modules()
    seeds, profile, needed = params["seeds"], params["profile"], float(params["min_median_return"])
    record = reference_record(course, lab, cartpole, seeds, profile)
    replayed = labreplay.replay_training(impl.charged_to(LAB), record, CLOSE, labreplay.reply_limit_of(impl))
    if replayed.agrees:
        means, steps = record.outcome
        student = None
    else:
        student = cross_check(impl, course, lab)
        means, steps = graded_runs(lab, cartpole, seeds, profile, student)
    median = float(np.median(means))
    if median < needed:
        per_seed = ", ".join(f"{m:.0f} after {s:,} steps" for m, s in zip(means, steps))
        findings = student.findings() if student is not None else []
        if findings:
            cause = "On the same inputs as the reference: " + "; ".join(findings) + "."
        else:
            cause = (
                "Every checked call of gae_advantages, ppo_clipped_terms and ppo_diagnostics agreed with "
                "their definitions, so check the calls that were not sampled: gae_advantages (terminated "
                "alone removes the bootstrap, trace_cuts alone stop the recursion) and ppo_clipped_terms "
                "(the pessimistic term is the elementwise minimum of the unclipped and clipped terms)."
            )
        if not replayed.agrees:
            cause += " " + replay_finding(replayed, lab.graded_config().num_steps)
        raise Misconception(
            f"the trained policy balances the pole for a median of {median:.0f} steps (needs {needed:.0f}; "
            f"per training seed: {per_seed}). {cause}"
        )
