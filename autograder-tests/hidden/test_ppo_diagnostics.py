"""Hidden tests of ppo_diagnostics: worked examples, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import strategies as st

from grader.core.submission import Record, StudentError
from grader.testing import (
    Misconception,
    accept_other,
    example_cases,
    expect,
    expect_close,
    expect_default,
    expect_example,
    expect_float,
    expect_inputs_unchanged,
    expect_raises,
    expect_right,
    given,
)

FIELDS = ("ratio_outside_fraction", "active_clip_fraction", "approx_kl_nonnegative", "mean_log_ratio")
WRONG = "the diagnostics differ from their definitions on these ratios and advantages"
# Where clipping is active, two rules are right: the module's `pessimistic < unclipped - 1e-15` and the
# reference's `pessimistic < unclipped`. They differ only on rows whose clipped branch is smaller by at
# most 1e-15 (a ratio within a few ulps of the interval's end) or equal by rounding; such a row may
# count either way (docs/feedback.md, "Two right rules near the clip interval's end").
MODULE_MARGIN = 1e-15


def active_fraction_range(reference, new_log_prob, old_log_prob, advantage, clip_epsilon) -> tuple[float, float]:
    """The least and the most active_clip_fraction a right rule gives on this batch."""
    ratio = np.exp(np.asarray(new_log_prob, dtype=float) - np.asarray(old_log_prob, dtype=float))
    advantage = np.asarray(advantage, dtype=float)
    unclipped, _, pessimistic = reference.ppo_clipped_terms(ratio, advantage, clip_epsilon)
    gap = unclipped - pessimistic  # >= 0: how much clipping lowered the minimum
    surely = gap > MODULE_MARGIN
    # Past the end its advantage favours, clipping may be active; a gap this small may count either way.
    favoured = ((ratio > 1 + clip_epsilon) & (advantage > 0)) | ((ratio < 1 - clip_epsilon) & (advantage < 0))
    return float(np.mean(surely)), float(np.mean(surely | favoured))


def diagnostics(impl, *args, **kwargs) -> dict:
    """The student's diagnostics as a dict of floats, or a Misconception about the form of the result."""
    result = impl.ppo_diagnostics(*args, **kwargs)
    # The values are checked here; the type of the result has a test of its own, so a dict still earns them.
    fields = result.fields if isinstance(result, Record) else result
    expect(
        isinstance(fields, dict),
        "ppo_diagnostics must return a PPODiagnostics instance (the dataclass provided in the module)",
    )
    missing = [f for f in FIELDS if f not in fields]
    expect(not missing, f"the PPODiagnostics result lacks the field(s) {missing}")
    return {f: expect_float(fields[f], "every field of PPODiagnostics must be a single float", what=f) for f in FIELDS}


def check(
    impl,
    reference,
    message,
    new_log_prob,
    old_log_prob,
    advantage,
    clip_epsilon=0.2,
    fields=FIELDS,
    compare=expect_close,
):
    got = diagnostics(impl, new_log_prob, old_log_prob, advantage, clip_epsilon=clip_epsilon)
    want = reference.ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=clip_epsilon)
    for field in fields:
        if field == "active_clip_fraction" and np.size(advantage):
            low, high = active_fraction_range(reference, new_log_prob, old_log_prob, advantage, clip_epsilon)
            if low - 1e-12 <= got[field] <= high + 1e-12:
                if not np.isclose(got[field], getattr(want, field), rtol=0, atol=1e-12):
                    accept_other()  # the module's rule, not the reference's: right, but not evidence
                continue  # either rule near the interval's end (MODULE_MARGIN)
        compare(got[field], getattr(want, field), message, what=field)


def from_ratios(ratios, old=0.0):
    """(new_log_prob, old_log_prob) arrays whose ratios are ``ratios``."""
    old_log_prob = np.full(len(ratios), old)
    return old_log_prob + np.log(ratios), old_log_prob


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("ppo_diagnostics"))
def test_worked_example(impl, case):
    expect_example(case, diagnostics(impl, **case.args))


# -- misconception probes: each input makes one mistake show -------------------------------
@pytest.mark.weight(2)
def test_active_clip_is_not_ratio_outside(impl, reference):
    new, old = from_ratios([0.5, 1.5, 1.5])
    check(
        impl,
        reference,
        "active_clip_fraction counts ratios outside the interval; it must count only rows where "
        "the clipped branch is strictly smaller than r * A, i.e. where clipping changed the pessimistic minimum",
        new,
        old,
        np.array([1.0, -1.0, 2.0]),
        fields=("active_clip_fraction",),
    )


@pytest.mark.weight(2)
def test_inside_ratios_are_not_active(impl, reference):
    new, old = from_ratios([0.9, 1.1, 1.0, 0.95])
    check(
        impl,
        reference,
        "rows whose clipped and unclipped terms are equal are counted as clipped; only a strictly "
        "smaller clipped branch changes the minimum (a ratio inside the interval is never active)",
        new,
        old,
        np.array([1.0, -2.0, 0.5, -1.0]),
        fields=("ratio_outside_fraction", "active_clip_fraction"),
    )
    # The pair: one ratio moved outside, so the right fractions are not zero.
    new, old = from_ratios([0.9, 1.1, 1.3, 0.95])
    check(
        impl,
        reference,
        WRONG,
        new,
        old,
        np.array([1.0, -2.0, 0.5, -1.0]),
        fields=("ratio_outside_fraction", "active_clip_fraction"),
        compare=expect_right,
    )


def near_the_interval_end():
    """(new_log_prob, old_log_prob, advantage) with eps = 0.2: ratios a few ulps on either side of 0.8
    and 1.2, advantages of both signs and two sizes. Where the clipped branch is smaller by less than
    1e-15 the module's margin and the strict rule part (both right: MODULE_MARGIN); the harmless side
    and the inside are never active."""
    ends = []
    for end, away in ((1.2, 2.0), (0.8, 0.0)):
        ends += [np.nextafter(end, 1.0), end, np.nextafter(end, away), np.nextafter(np.nextafter(end, away), away)]
    new, old = from_ratios(np.array(ends * 4))
    return new, old, np.repeat([1.0, -1.0, 1e3, -1e3], len(ends))


def test_active_clip_near_the_interval_end(impl, reference):
    new, old, advantage = near_the_interval_end()
    check(
        impl,
        reference,
        "near the ends of the clip interval, a row is active only where clipping lowered the pessimistic "
        "term: a ratio past the end its advantage favours (ratio above 1 + eps with A > 0, below 1 - eps "
        "with A < 0); a ratio inside, or past the other end, is not",
        new,
        old,
        advantage,
        fields=("ratio_outside_fraction", "active_clip_fraction"),
    )


@pytest.mark.weight(2)
def test_kl_estimator(impl, reference):
    new, old = from_ratios(np.exp([0.3, 0.1, -0.05]), old=-2.0)
    check(
        impl,
        reference,
        "approx_kl_nonnegative is not the stated estimator, the mean of (r - 1) - log r: not the "
        "k1 estimate -mean(log r) (which can be negative on a batch), not k2 = mean((log r)^2) / 2, and not the "
        "same formula with the ratio inverted",
        new,
        old,
        np.array([1.0, 1.0, -1.0]),
        fields=("approx_kl_nonnegative",),
    )


def test_mean_log_ratio(impl, reference):
    new, old = from_ratios(np.exp([0.2, 0.4, -0.1]), old=-1.5)
    check(
        impl,
        reference,
        "mean_log_ratio must average log r = new_log_prob - old_log_prob (check the sign)",
        new,
        old,
        np.array([1.0, 0.0, -1.0]),
        fields=("mean_log_ratio",),
    )


@pytest.mark.weight(2)
def test_ratio_is_exp_of_the_log_prob_difference(impl, reference):
    # Moderate log-probabilities: exp(new) / exp(old) would still work here, a quotient of log-probs not.
    new, old = np.array([-0.5, -2.0, -1.1]), np.array([-1.0, -1.6, -1.2])
    check(
        impl,
        reference,
        "the ratio must be exp(new_log_prob - old_log_prob), a ratio of probabilities: not a "
        "quotient or difference of the log-probabilities themselves",
        new,
        old,
        np.array([1.0, 1.0, -1.0]),
        fields=("ratio_outside_fraction", "active_clip_fraction"),
    )


@pytest.mark.weight(2)
def test_ratio_from_log_prob_difference(impl, reference):
    # Log-probabilities of long responses are very negative: exp of each underflows to 0.
    new, old = np.array([-1000.5, -1199.6, -950.1]), np.array([-1000.0, -1200.0, -950.0])
    message = (
        "the ratio must be computed as exp(new_log_prob - old_log_prob); exp(new_log_prob) / "
        "exp(old_log_prob) underflows (0 / 0) for very negative log-probabilities"
    )
    try:
        check(impl, reference, message, new, old, np.array([-1.0, 1.0, 2.0]), fields=("ratio_outside_fraction",))
    except StudentError as error:
        raise Misconception(message) from error


def test_outside_bounds_are_strict(impl, reference):
    # With eps = 0.25 the bounds 0.75 and 1.25 are exact in floating point.
    new, old = from_ratios([1.25, 0.75, 1.0, 1.1])
    check(
        impl,
        reference,
        "ratios exactly on the bounds lie inside [1 - eps, 1 + eps]; only ratios strictly outside "
        "count in ratio_outside_fraction",
        new,
        old,
        np.array([1.0, -1.0, 1.0, 2.0]),
        clip_epsilon=0.25,
        fields=("ratio_outside_fraction",),
    )
    # The pair: one ratio just beyond a bound, so the right fraction is not zero.
    new, old = from_ratios([1.3, 0.75, 1.0, 1.1])
    check(
        impl,
        reference,
        WRONG,
        new,
        old,
        np.array([1.0, -1.0, 1.0, 2.0]),
        clip_epsilon=0.25,
        fields=("ratio_outside_fraction",),
        compare=expect_right,
    )


def test_uses_clip_epsilon(impl, reference):
    # All four outside [0.9, 1.1], two of them inside [0.8, 1.2]; clipping changes the minimum in two rows.
    new, old = from_ratios([1.15, 0.85, 0.5, 1.3])
    check(
        impl,
        reference,
        "the diagnostics ignore clip_epsilon: the interval is [1 - clip_epsilon, 1 + clip_epsilon]",
        new,
        old,
        np.array([1.0, 1.0, -1.0, -2.0]),
        clip_epsilon=0.1,
        fields=("ratio_outside_fraction", "active_clip_fraction"),
    )


# -- properties against the reference ----------------------------------------------------
@st.composite
def batches(draw):
    n = draw(st.integers(min_value=1, max_value=16))
    eps = draw(st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5]))
    bounds = (np.log1p(-eps), np.log1p(eps))
    # Log-ratios anywhere, or close to a bound, but never within 1e-9 of it (ties are tested on their own).
    near = st.builds(lambda b, gap: b + gap, st.sampled_from(bounds), st.sampled_from([-1e-3, -1e-6, 1e-6, 1e-3]))
    log_ratio = st.one_of(st.floats(min_value=-1.5, max_value=1.5), near, st.just(0.0)).filter(
        lambda x: min(abs(x - bounds[0]), abs(x - bounds[1])) > 1e-9
    )
    advantage = st.one_of(st.just(0.0), st.floats(min_value=-5, max_value=5).filter(lambda a: abs(a) > 1e-6))
    old = np.array(draw(st.lists(st.floats(min_value=-30, max_value=0), min_size=n, max_size=n)))
    new = old + np.array(draw(st.lists(log_ratio, min_size=n, max_size=n)))
    return new, old, np.array(draw(st.lists(advantage, min_size=n, max_size=n))), eps


@pytest.mark.weight(2)
@given(batches())
def test_matches_reference_on_random_batches(impl, reference, batch):
    new, old, advantage, eps = batch
    check(
        impl,
        reference,
        "differs from the definitions on random batches (ratios near the clip bounds, zero "
        "advantages, several epsilons, very negative log-probabilities)",
        new,
        old,
        advantage,
        eps,
    )


@pytest.mark.contract
def test_returns_ppo_diagnostics_of_floats(impl):
    result = impl.ppo_diagnostics(np.array([0.1, -0.3]), np.array([0.0, 0.0]), np.array([1.0, -1.0]))
    expect(
        isinstance(result, Record) and result.type_name == "PPODiagnostics",
        "ppo_diagnostics must return a PPODiagnostics instance (the dataclass provided in the module), "
        "not a dict or a tuple",
    )
    for field in FIELDS:
        value = result.fields.get(field)
        expect(
            isinstance(value, (float, np.floating)),
            f"PPODiagnostics.{field} must be a float, not {type(value).__name__}",
        )


@pytest.mark.contract
def test_accepts_lists(impl):
    lists = ([-0.5, -1.0, -2.0], [-0.7, -0.8, -2.0], [1.0, -1.0, 0.5])
    from_lists = diagnostics(impl, *lists)
    from_arrays = diagnostics(impl, *[np.array(x) for x in lists])
    for field in FIELDS:
        expect_close(
            from_lists[field], from_arrays[field], "plain Python lists must be accepted like arrays", what=field
        )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    expect_inputs_unchanged(
        impl.ppo_diagnostics,
        np.array([-0.5, -1.0, -2.0]),
        np.array([-0.7, -0.8, -2.0]),
        np.array([1.0, -1.0, 0.5]),
        clip_epsilon=0.2,
    )


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
def test_rejects_mismatched_shapes(impl):
    expect_raises(
        ValueError,
        impl.ppo_diagnostics,
        np.array([-1.0, -2.0, -0.5]),
        np.array([-1.0, -2.0, -0.4]),
        np.array([1.0]),
        message="inputs of different shapes must raise ValueError (no silent broadcasting)",
    )


@pytest.mark.contract
@pytest.mark.course_rule("nonempty_batch")
def test_rejects_empty_batch(impl):
    expect_raises(
        ValueError,
        impl.ppo_diagnostics,
        np.array([]),
        np.array([]),
        np.array([]),
        message="an empty batch must raise ValueError (its fractions and means are undefined)",
    )


@pytest.mark.contract
@pytest.mark.course_rule("clip_epsilon_range")
@pytest.mark.parametrize("clip_epsilon", [0.0, 1.0, -0.2, 1.5], ids=["zero", "one", "negative", "above_one"])
def test_rejects_epsilon_outside_unit_interval(impl, clip_epsilon):
    expect_raises(
        ValueError,
        impl.ppo_diagnostics,
        np.array([-1.0, -0.5]),
        np.array([-1.0, -0.6]),
        np.array([1.0, 1.0]),
        clip_epsilon=clip_epsilon,
        message="clip_epsilon outside (0, 1) must raise ValueError",
    )


# -- defaults: a call without clip_epsilon uses the docstring's value ------------------------
@pytest.mark.contract
def test_default_clip_epsilon(impl, reference):
    # Ratios between 1.1 and 1.2 lie outside the interval of epsilon 0.1, inside that of 0.2.
    new, old = np.log(np.array([1.15, 0.85, 1.3, 1.0])), np.zeros(4)
    advantage = np.array([1.0, -1.0, 1.0, 1.0])
    got, given = diagnostics(impl, new, old, advantage), diagnostics(impl, new, old, advantage, clip_epsilon=0.2)
    want = vars(reference.ppo_diagnostics(new, old, advantage))

    def compare(a, b, message):
        for field in ("ratio_outside_fraction", "active_clip_fraction"):
            expect_close(a[field], b[field], message, what=field)

    expect_default(got, given, want, "clip_epsilon", 0.2, "the interval [0.8, 1.2]", compare)
