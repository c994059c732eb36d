"""What the grader observes in wrong answers no known mistake explains (grader.core.observation, grader.core.relations).

Each relation to the right answer is said on inputs where it holds, and not on inputs where it would hold
vacuously: right answers of 0 and wrong answers of inf are no log of anything, a single wrong answer or one
wrong number proves no relation, a constant fits any offset. The statements come narrowest first, the count
of wrong answers last.
"""

from __future__ import annotations

import numpy as np
import pytest

from grader.core.course import load_course
from grader.core.diagnosis import Answers, Call, Raised, run
from grader.core.observation import observations, observe
from tests.helpers import ROOT

COURSE = load_course(ROOT, check_tests=False)


def call(function, answer=None, readonly=False, **args):
    """A call of ``function`` answered by ``answer(right, args)`` (the right answer when None)."""
    right = run(COURSE.reference(function), Call((), args, None))
    return Call((), args, right if answer is None else answer(right, args), readonly)


def seen(function, failed, passed=()):
    """What the observation says, in order, without the count."""
    found = observations(COURSE, function, list(failed), list(passed))
    return found[1] if found else []


def said(words, phrase):
    return any(phrase in w for w in words)


LOGITS = ([1.0, 2.0, 0.5], [0.3, -1.0, 2.0, 0.0])
REWARDS = ([1.0, 2.0, 4.0], [3.0, -1.0, 0.5, 2.0])


def softmax(answer):
    return [call("stable_softmax", answer, logits=np.array(x)) for x in LOGITS]


def rtg(answer, gammas=(0.9, 0.5)):
    return [call("reward_to_go", answer, rewards=np.array(r), gamma=g) for r, g in zip(REWARDS, gammas)]


def centred(answer):
    return [call("group_mean_advantages", answer, rewards=np.array(r)) for r in REWARDS]


def weights(answer):
    return [call("discounted_score_weights", answer, rewards=np.array(r), gamma=g) for r, g in zip(REWARDS, (0.9, 0.5))]


def baselines(answer, rewards=([1.0, 2.0, 4.5], [3.0, -1.0, 0.5, 2.5])):
    return [call("leave_one_out_baselines", answer, rewards=np.array(r)) for r in rewards]


def clipped_terms(answer, batches=2):
    ratios = ([1.3, 0.7, 1.0, 1.5], [0.5, 1.25, 0.9, 1.1], [1.6, 0.6, 1.05, 0.95], [0.75, 1.4, 1.0, 0.85])
    advantages = ([1.0, -1.0, 2.0, -2.0], [-0.5, 1.5, 1.0, -1.0], [2.0, -2.0, 1.0, 1.0], [-1.0, 1.0, -3.0, 2.0])
    return [
        call("ppo_clipped_terms", answer, ratio=np.array(r), advantage=np.array(a), clip_epsilon=0.2)
        for r, a in list(zip(ratios, advantages))[:batches]
    ]


def field(name, value):
    """An answer of ppo_clipped_terms whose term ``name`` is ``value(unclipped, clipped, pessimistic, args)``."""
    names = ("unclipped", "clipped", "pessimistic")

    def answer(right, args):
        terms = dict(zip(names, (np.array(t) for t in right)))
        terms[name] = value(*right, args)
        return tuple(terms[n] for n in names)

    return answer


def upper_clip_only(right, args):
    r, a = args["ratio"], args["advantage"]
    clipped = np.minimum(r, 1 + args["clip_epsilon"]) * a
    return r * a, clipped, np.minimum(r * a, clipped)


def objective(reduction, answered_as=None):
    args = dict(
        new_log_probs=np.log(np.array([[1.3, 0.9, 1.1, 1.0], [0.7, 1.2, 1.0, 1.0]])),
        old_log_probs=np.zeros((2, 4)),
        advantages=np.array([1.0, -0.5]),
        mask=np.array([[1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]]),
        reduction=reduction,
    )
    other = dict(args, reduction=answered_as or reduction)
    reference = COURSE.reference("masked_token_ppo_objective")
    return Call((), args, run(reference, Call((), other, None)))


def log_ratio_batch(answer, shapes=((2, 3), (3, 2))):
    rng = np.random.default_rng(3)
    calls = []
    for shape in shapes:
        new, old = np.log(rng.uniform(0.5, 1.5, shape)), np.log(rng.uniform(0.5, 1.5, shape))
        mask = (rng.uniform(size=shape) < 0.7).astype(float)
        calls.append(call("sequence_log_probability_ratio", answer, new_log_probs=new, old_log_probs=old, mask=mask))
    return calls


def column_sums(right, args):
    return ((args["new_log_probs"] - args["old_log_probs"]) * args["mask"]).sum(axis=0)


def broadcast(answer, rows=((1.5, -0.5), (2.0, 1.0, -1.0))):
    masks = (np.array([[0, 1, 1, 1], [0, 0, 1, 1.0]]), np.array([[1, 1, 0], [0, 1, 1], [1, 1, 1.0]]))
    return [
        call("broadcast_sequence_advantages", answer, sequence_advantages=np.array(a), token_mask=m)
        for a, m in zip(rows, masks)
    ]


def gae(answer, gammas=(0.9, 0.8)):
    calls = []
    for gamma, rewards in zip(gammas, ([1.0, 0.5, 2.0, -1.0], [0.2, 1.5, -0.5])):
        n = len(rewards)
        args = dict(
            rewards=np.array(rewards),
            values=np.linspace(0.5, 1.5, n),
            next_values=np.linspace(1.0, 3.0, n),
            terminated=np.zeros(n, bool),
            trace_cuts=np.zeros(n, bool),
            gamma=gamma,
            gae_lambda=0.7,
        )
        calls.append(call("gae_advantages", answer, **args))
    return calls


def next_record_value(right, args):
    values = dict(args, next_values=np.concatenate([args["values"][1:], args["next_values"][-1:]]))
    return run(COURSE.reference("gae_advantages"), Call((), values, None))


def forward_rtg(right, args):
    r, g = args["rewards"], args["gamma"]
    out, running = np.empty_like(r), 0.0
    for t in range(len(r)):
        running = r[t] + g * running
        out[t] = running
    return out


def action_minus_one(right, args):
    return run(COURSE.reference("grad_log_softmax"), Call((), dict(args, action=args["action"] - 1), None))


def swapped_diagnostics(right, args):
    swapped = dict(args, new_log_prob=args["old_log_prob"], old_log_prob=args["new_log_prob"])
    return run(COURSE.reference("ppo_diagnostics"), Call((), swapped, None))


def diagnostics_calls(answer):
    rows = (([-0.5, -1.0, -0.2], [-0.4, -0.6, -0.9]), ([0.3, -0.2], [-0.1, 0.4]))
    return [
        call(
            "ppo_diagnostics",
            answer,
            new_log_prob=np.array(new),
            old_log_prob=np.array(old),
            advantage=np.array([1.0, -1.0, 0.5][: len(new)]),
        )
        for new, old in rows
    ]


def inverted_mask(right, args):
    return run(COURSE.reference("sequence_log_probability"), Call((), dict(args, mask=1 - args["mask"]), None))


def masked_sums(answer):
    return [
        call("sequence_log_probability", answer, token_log_probs=np.array(lp), mask=np.array(m))
        for lp, m in (
            ([[-1.0, -2.0, -0.5], [-0.3, -0.7, -1.1]], [[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]),
            ([[-0.2, -1.5], [-2.0, -0.1], [-0.4, -0.9]], [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
        )
    ]


# (id, calls, the phrase said first or among the statements, passed calls)
HOLDS = [
    ("log", lambda: softmax(lambda a, _: np.log(a)), "each wrong answer is the log of the right answer"),
    ("exp", lambda: softmax(lambda a, _: np.exp(a)), "each wrong answer is the exp of the right answer"),
    ("reciprocal", lambda: softmax(lambda a, _: 1 / a), "each wrong answer is the reciprocal of the right answer"),
    ("sign", lambda: centred(lambda a, _: -a), "each wrong answer is the right answer with its sign flipped"),
    ("abs", lambda: centred(lambda a, _: np.abs(a)), "each wrong answer is the absolute value of the right answer"),
    ("complement", lambda: softmax(lambda a, _: 1 - a), "each wrong answer is one minus the right answer"),
    ("square", lambda: softmax(lambda a, _: a**2), "each wrong answer is the square of the right answer"),
    ("root", lambda: softmax(lambda a, _: np.sqrt(a)), "each wrong answer is the square root of the right answer"),
    ("floor", lambda: baselines(lambda a, _: np.floor(a)), "the right answer rounded down to a whole number"),
    ("reversed", lambda: rtg(lambda a, _: a[::-1]), "each wrong answer is the right answer reversed"),
    ("rolled", lambda: rtg(lambda a, _: np.roll(a, 1)), "the right answer rolled by one position"),
    (
        "shifted",
        lambda: rtg(lambda a, _: np.concatenate([[7.0], a[:-1]])),
        "the right answer shifted one position later",
    ),
    (
        "transposed",
        lambda: broadcast(lambda a, _: a.T, rows=((1.5, -0.5), (2.0, 1.0, -1.0)))[1:] * 2,
        "each wrong answer is the right answer transposed",
    ),
    ("running", lambda: centred(lambda a, _: np.cumsum(a)), "the running total of the right answer from the start"),
    (
        "terms",
        lambda: weights(lambda a, args: args["gamma"] ** np.arange(len(a)) * args["rewards"]),
        "not added up (their running total from the end is the right answer)",
    ),
    (
        "count factor",
        lambda: baselines(lambda a, args: a * (len(a) - 1)),
        "each wrong answer is the right answer times n - 1, with n the number of elements of rewards",
    ),
    ("one factor", lambda: rtg(lambda a, _: 2.5 * a), "times one constant factor, the same for every input"),
    (
        "own factor",
        lambda: rtg(lambda a, args: a * (1 + abs(args["rewards"].sum()))),
        "each wrong answer is the right answer times a constant factor",
    ),
    ("one offset", lambda: rtg(lambda a, _: a + 0.5), "plus one constant, the same for every input"),
    (
        "own offset",
        lambda: centred(lambda a, args: a - args["rewards"].mean() / 3),
        "each wrong answer is the right answer plus a constant",
    ),
    ("minus input", lambda: rtg(lambda a, args: a - args["rewards"]), "the right answer minus rewards"),
    (
        "power",
        lambda: weights(lambda a, args: a * args["gamma"] ** np.arange(len(a))),
        "each wrong answer is the right answer times gamma ** t, with t the position",
    ),
    (
        "inverse power",
        lambda: weights(lambda a, args: a / args["gamma"] ** np.arange(len(a))),
        "each wrong answer is the right answer divided by gamma ** t",
    ),
    (
        "field maximum",
        lambda: clipped_terms(field("pessimistic", lambda u, c, p, args: np.maximum(u, c))),
        "each wrong value of pessimistic is the elementwise maximum of what unclipped and clipped should be",
    ),
    (
        "other word",
        lambda: [objective("token_mean", "sequence_mean"), objectives_other()],
        "your answers for reduction='token_mean' are the right answers for reduction='sequence_mean'",
    ),
    (
        "action - 1",
        lambda: [
            call("grad_log_softmax", action_minus_one, logits=np.array(x), action=a) for x, a in zip(LOGITS, (1, 2))
        ],
        "each wrong answer is the right answer for action - 1",
    ),
    (
        "swapped",
        lambda: diagnostics_calls(swapped_diagnostics),
        "each wrong answer is the right answer with new_log_prob and old_log_prob swapped",
    ),
    ("time reversed", lambda: rtg(forward_rtg), "on the sequence read from the other end"),
    (
        "taken from the next record",
        lambda: gae(next_record_value),
        "each wrong answer is the right answer with next_values[t] taken from values[t + 1]",
    ),
    ("other axis", lambda: log_ratio_batch(column_sums), "it is reduced over the other axis"),
    (
        "masked flat",
        lambda: broadcast(lambda a, args: a[args["token_mask"] != 0]),
        "the right answer's values where the mask is set, in one flat vector",
    ),
    ("total", lambda: masked_sums(lambda a, _: np.sum(a)), "each wrong answer is one number: the total of the right"),
    ("inverted mask", lambda: masked_sums(inverted_mask), "each wrong answer is the right answer with mask inverted"),
    (
        "zeros",
        lambda: broadcast(lambda a, args: np.where(np.arange(a.shape[1]) < a.shape[1] - 1, 0.0, a)),
        "your answer is 0 wherever it is wrong",
    ),
    (
        "ordered positions",
        lambda: clipped_terms(upper_clip_only, batches=4),
        "the wrong values sit where ratio is smallest (at every position with a larger ratio the answer is right)",
    ),
    (
        "error unchanged",
        lambda: [
            call("reward_to_go", lambda a, args: a - args["rewards"], rewards=np.array(REWARDS[0]), gamma=g)
            for g in (0.5, 0.9)
        ],
        "your error does not change with gamma (two inputs that differ in gamma alone are wrong by the same amounts)",
    ),
]


def objectives_other():
    # A second wrong answer of the same mistake, on other advantages.
    args = dict(objective("token_mean").kwargs, advantages=np.array([-1.0, 2.0]))
    wrong = run(COURSE.reference("masked_token_ppo_objective"), Call((), dict(args, reduction="sequence_mean"), None))
    return Call((), args, wrong)


FUNCTIONS = {
    "log": "stable_softmax",
    "exp": "stable_softmax",
    "reciprocal": "stable_softmax",
    "complement": "stable_softmax",
    "square": "stable_softmax",
    "root": "stable_softmax",
    "sign": "group_mean_advantages",
    "abs": "group_mean_advantages",
    "running": "group_mean_advantages",
    "own offset": "group_mean_advantages",
    "floor": "leave_one_out_baselines",
    "count factor": "leave_one_out_baselines",
    "terms": "discounted_score_weights",
    "power": "discounted_score_weights",
    "inverse power": "discounted_score_weights",
    "transposed": "broadcast_sequence_advantages",
    "masked flat": "broadcast_sequence_advantages",
    "zeros": "broadcast_sequence_advantages",
    "field maximum": "ppo_clipped_terms",
    "ordered positions": "ppo_clipped_terms",
    "other word": "masked_token_ppo_objective",
    "action - 1": "grad_log_softmax",
    "swapped": "ppo_diagnostics",
    "taken from the next record": "gae_advantages",
    "other axis": "sequence_log_probability_ratio",
    "total": "sequence_log_probability",
    "inverted mask": "sequence_log_probability",
}


@pytest.mark.parametrize("case, calls, phrase", HOLDS, ids=[h[0] for h in HOLDS])
def test_each_relation_is_said_where_it_holds(case, calls, phrase):
    passed = [objective("sequence_mean")] if case == "other word" else []
    words = seen(FUNCTIONS.get(case, "reward_to_go"), calls(), passed)
    assert said(words, phrase), (case, words)


# -- never vacuously: what each relation needs besides holding ---------------------------------------
def zscores(answer):
    """z-scores of constant groups: the right answers are all 0."""
    return [call("group_zscore_advantages", answer, rewards=np.full(n, v)) for n, v in ((3, 0.1), (4, 2.0), (5, -1.5))]


def test_infinite_answers_where_the_right_ones_are_zero_show_no_relation():
    # The case: a z-score that divides a rounding residue by a spread of 0 answers +-inf where every
    # right answer is 0. log(0) = -inf and 1 / 0 = inf, so a comparison whose tolerance grows with the value
    # (rtol * inf) found "the log of" and "the reciprocal of" the right answer.
    signs = {3: [1.0, -1.0, 1.0], 4: [-1.0, 1.0, -1.0, 1.0], 5: [1.0, 1.0, -1.0, -1.0, 1.0]}
    words = seen("group_zscore_advantages", zscores(lambda a, args: np.inf * np.array(signs[len(a)])))
    for relation in ("the log of", "the reciprocal of", "the exp of", "sign flipped", "constant factor", "constant"):
        assert not said(words, relation), words
    assert said(words, "NaN or inf where the answer is finite"), words
    # All -inf is log(0) exactly, still no finite wrong value: nothing shown.
    words = seen("group_zscore_advantages", zscores(lambda a, args: np.full(len(a), -np.inf)))
    assert not said(words, "the log of") and not said(words, "reciprocal"), words


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_an_infinite_right_answer_is_close_to_no_number():
    answers = Answers(COURSE, "reward_to_go")
    assert not answers.same(np.array([5.0, 1.0]), np.array([np.inf, 1.0]))
    assert not answers.same(np.array([-1e300]), np.array([-np.inf]))
    assert answers.same(np.array([np.inf]), np.array([np.inf]))
    # 0 / 0 with a rounding residue of either sign: an infinity still agrees with an infinity.
    assert answers.same(np.array([-np.inf]), np.array([np.inf]))


VACUOUS = [
    # (id, function, calls, a phrase that must not be said)
    ("one answer: log", "stable_softmax", lambda: softmax(lambda a, _: np.log(a))[:1], "the log of"),
    ("one answer: sign", "group_mean_advantages", lambda: centred(lambda a, _: -a)[:1], "sign flipped"),
    ("one answer: rolled", "reward_to_go", lambda: rtg(lambda a, _: np.roll(a, 1))[:1], "rolled"),
    ("one answer: minus an input", "reward_to_go", lambda: rtg(lambda a, args: a - args["rewards"])[:1], "minus"),
    (
        "ones for zeros: exp",
        "reward_to_go",
        lambda: [call("reward_to_go", lambda a, _: np.ones_like(a), rewards=np.zeros(3), gamma=g) for g in (0.5, 0.9)],
        "the exp of",
    ),
    (
        "one wrong number: rounded",
        "leave_one_out_baselines",
        lambda: baselines(lambda a, _: np.floor(a), rewards=([0.5, 0.5, 0.5], [0.25, 0.75])),
        "rounded",
    ),
    (
        "one wrong number: complement",
        "stable_softmax",
        lambda: [call("stable_softmax", lambda a, _: np.full_like(a, 0.7), logits=np.array(x)) for x in LOGITS],
        "one minus",
    ),
    (
        "single numbers: factor",
        "reward_to_go",
        lambda: [
            call("reward_to_go", lambda a, _: 3.0 * a + 1.0, rewards=np.array([r]), gamma=0.9) for r in (1.0, 2.0)
        ],
        "constant factor",
    ),
    (
        "single numbers: offset",
        "reward_to_go",
        lambda: [call("reward_to_go", lambda a, _: 3.0 * a, rewards=np.array([r]), gamma=0.9) for r in (1.0, 2.0)],
        "plus a constant",
    ),
    (
        "zeros: no factor of 0",
        "reward_to_go",
        lambda: rtg(lambda a, _: np.zeros_like(a)),
        "factor",
    ),
    (
        "one length: no count",
        "leave_one_out_baselines",
        lambda: baselines(lambda a, _: a * 2, rewards=([1.0, 2.0, 4.5], [3.0, -1.0, 0.5])),
        "with n the number",
    ),
    (
        "first element only: no shift",
        "reward_to_go",
        lambda: [
            call("reward_to_go", lambda a, _: np.concatenate([[a[0] + 1], a[1:]]), rewards=np.ones(4), gamma=1.0),
            call("reward_to_go", lambda a, _: np.concatenate([[a[0] + 2], a[1:]]), rewards=np.ones(3), gamma=1.0),
        ],
        "shifted",
    ),
    (
        "one answer: other input",
        "grad_log_softmax",
        lambda: [call("grad_log_softmax", action_minus_one, logits=np.array(LOGITS[0]), action=1)],
        "action - 1",
    ),
    (
        "square batches only: no axis",
        "sequence_log_probability_ratio",
        lambda: log_ratio_batch(column_sums, shapes=((2, 2), (3, 3))),
        "other axis",
    ),
    (
        "few answers: no ordered positions",
        "ppo_clipped_terms",
        lambda: clipped_terms(upper_clip_only, batches=2),
        "where ratio is smallest",
    ),
]


@pytest.mark.parametrize("case, function, calls, phrase", VACUOUS, ids=[v[0] for v in VACUOUS])
def test_no_relation_is_said_vacuously(case, function, calls, phrase):
    words = seen(function, calls())
    assert not said(words, phrase), (case, words)


# -- the narrowest first, the count last --------------------------------------------------------------
def test_the_narrowest_statement_comes_first_and_the_count_last():
    # The leave-one-out sum not divided by G - 1, wrong with several rewards only (right with one... of two
    # equal ones): the factor that follows the count comes before what every mistake of several rewards shares.
    calls = baselines(lambda a, args: a * (len(a) - 1))
    passed = [call("leave_one_out_baselines", rewards=np.array([2.0, 2.0]))]
    said_ = observe(COURSE, "leave_one_out_baselines", calls, passed)
    shown = said_.split("what your answers show: ", 1)[1].split("; ")
    assert shown[0].startswith("each wrong answer is the right answer times n - 1"), shown
    assert shown[-1] == "2 of 3 answers checked are wrong", shown
    # A sign flipped is not said again as "times a constant factor".
    words = seen("group_mean_advantages", centred(lambda a, _: -a))
    assert words == ["each wrong answer is the right answer with its sign flipped"], words
    # An ignored flag is said before the factors it shares with other mistakes.
    calls = [
        call("reward_to_go", lambda a, _: np.array([7.0, 6.0, 4.0]), rewards=np.array([1.0, 2.0, 4.0]), gamma=g)
        for g in (0.5, 0.9)
    ]
    assert seen("reward_to_go", calls)[0].startswith("your answers do not change with gamma")


def test_raising_says_where_each_error_is_raised():
    integers = call("group_mean_advantages", lambda a, _: Raised("UFuncTypeError"), rewards=np.array([1, 2, 4]))
    read_only = call("group_mean_advantages", lambda a, _: Raised("ValueError"), True, rewards=np.array([1.0, 3.0]))
    right = [call("group_mean_advantages", rewards=np.array(r)) for r in REWARDS]
    words = seen("group_mean_advantages", [integers], right)
    assert words[0] == (
        "it raises UFuncTypeError only with rewards of integers (every answer with rewards of floats is right), "
        "on 1 input(s) where the contract defines an answer"
    ), words
    words = seen("group_mean_advantages", [integers, read_only], right)
    assert words[0].startswith(
        "it raises UFuncTypeError only with rewards of integers (every answer with rewards of floats is right), and "
        "ValueError only with read-only input arrays (every answer with writeable input arrays is right), on 2 input"
    ), words
    # What most inputs are (floats, finite, writeable, distinct values) is never said as "wrong only with".
    words = seen("group_mean_advantages", centred(lambda a, _: a + 1.0), [integers])
    assert not said(words, "of floats") and not said(words, "writeable"), words


def test_a_factor_of_the_inputs_names_tied_values_and_non_finite_inputs():
    tied = [call("leave_one_out_baselines", lambda a, _: a + 1.0, rewards=np.array(r)) for r in ([1.0, 1.0, 2.0],)]
    distinct = [call("leave_one_out_baselines", rewards=np.array(r)) for r in ([1.0, 2.0, 4.0], [0.5, 3.0])]
    assert said(seen("leave_one_out_baselines", tied, distinct), "wrong only with rewards holding tied values")


def test_a_neighbouring_input_costs_no_more_than_the_tests_own():
    # Two numbers swapped may turn a seed into a group size: the reference is never run beyond the tests' numbers.
    from grader.core.relations import other_inputs

    seen_args = []

    def reference(group_size, groups, seed):
        seen_args.append((group_size, groups, seed))
        return {"x": float(group_size * 1000 + groups + seed)}

    calls = [Call((), dict(group_size=g, groups=50, seed=s), {"x": -1.0}) for g, s in ((3, 2026), (4, 7))]
    wrong = [(c, reference(**c.kwargs), dict(c.kwargs)) for c in calls]
    seen_args.clear()
    other_inputs(reference, wrong, [(c, dict(c.kwargs)) for c in calls], Answers(COURSE, "reward_to_go"))
    assert seen_args and all(g <= 5 and n <= 51 and s <= 2027 for g, n, s in seen_args), seen_args


def test_a_factor_most_inputs_share_narrows_little():
    # Three wrong answers with integer rewards, one right with floats: "wrong only with rewards of integers" is
    # true, but most inputs checked are integers: it comes after a relation of the answers' own.
    wrong = [
        call("reward_to_go", lambda a, args: a + args["rewards"].sum(), rewards=np.array(r), gamma=0.9)
        for r in ([1, 2, 4], [3, -1, 2], [2, 5, 1])
    ]
    right = [call("reward_to_go", rewards=np.array([0.5, 1.5]), gamma=0.9)]
    words = seen("reward_to_go", wrong, right)
    assert words[0] == "each wrong answer is the right answer plus a constant", words
    assert said(words[1:], "wrong only with rewards of integers"), words


def test_a_list_where_an_array_is_meant_is_the_factor_said():
    # Code that calls .shape on its input raises on the contract's list input: the raise follows the list.
    listed = Call((), dict(rewards=[1.0, 3.0, 2.0]), Raised("AttributeError"))
    right = [call("leave_one_out_baselines", rewards=np.array(r)) for r in ([1.0, 2.0, 4.0], [0.5, 3.0])]
    words = seen("leave_one_out_baselines", [listed], right)
    assert words[0].startswith("it raises AttributeError only with rewards given as a list (every answer with"), words
    # A list of integers: two factors of one input split the answers alike, and which one the raise follows the
    # answers do not show: both are said, in one statement.
    integers = Call((), dict(rewards=[1, 3, 2]), Raised("UFuncTypeError"))
    words = seen("leave_one_out_baselines", [integers], right)
    assert words[0].startswith(
        "it raises UFuncTypeError only with rewards given as a list and rewards of integers (every answer with"
    ), words
