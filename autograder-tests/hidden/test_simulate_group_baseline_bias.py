"""Hidden tests of simulate_group_baseline_bias: the seed, the statistics, the specified draw, validation.

The function is a Monte Carlo simulation: its results must depend on the seed as an
estimate does (the same seed repeats, different seeds differ by about a standard error,
and that spread shrinks with the number of groups), so returning the theoretical values
earns nothing. The statistical facts are checked robustly: a scale must lie within a
few standard errors of its expected value, the standard errors coming from the
reference's spreads on the same arguments (computed here, never taken from the
student's result). The function also specifies its random draw exactly, so a correct
result matches the reference closely; that is checked too, as a gate: results that are not those of
the specified draw earn nothing, however well they imitate an estimate's statistics.
"""

import numpy as np
import pytest

from grader.testing import (
    Misconception,
    example_cases,
    expect,
    expect_close,
    expect_float,
    expect_observed,
    expect_raises,
)

KEYS = (
    "true_gradient",
    "plain_scale",
    "same_group_scale",
    "rloo_scale",
    "predicted_same_group_scale",
    "plain_std",
    "same_group_std",
    "rloo_std",
)
ESTIMATORS = ("plain", "same_group", "rloo")
SCALES = tuple(f"{name}_scale" for name in ESTIMATORS)
STANDARD_ERRORS = 5.0  # how far (in standard errors) a Monte Carlo scale may be from its expectation
# Small, fast runs that are not the module's examples.
RUNS = [dict(group_size=3, groups=20000, seed=101), dict(group_size=6, groups=20000, seed=202)]
STATISTICS = ("plain_scale", "same_group_scale", "rloo_scale", "plain_std", "same_group_std", "rloo_std")
STDS = ("plain_std", "same_group_std", "rloo_std")
# Repeated runs for the seed tests: G = 4, few and many groups, eight seeds each.
SEEDS = range(1, 9)
FEW, MANY = 500, 8000
NOT_SIMULATED = (
    "the results do not vary with the seed as Monte Carlo estimates must (about one standard error "
    "from seed to seed): simulate the responses with the seeded generator (the theoretical values are "
    "what the simulation is meant to check)"
)


def simulate(impl, keys=KEYS, **args) -> dict:
    """The student's values of ``keys`` as floats, or a Misconception about the form of the result.

    Only the keys a test needs are required, so one missing key costs only the tests that use it.
    """
    result = impl.simulate_group_baseline_bias(**args)
    expect(isinstance(result, dict), "the result must be a dict mapping names to floats")
    missing = [k for k in keys if k not in result]
    expect(not missing, f"the result dict is missing the key(s) {missing}")
    return {
        k: expect_float(result[k], "every value of the result must be a single float", what=f"result['{k}']")
        for k in keys
    }


def standard_error(reference, estimator, **args) -> float:
    """The standard error of the reference's `<estimator>_scale` on these arguments."""
    ref = reference.simulate_group_baseline_bias(**args)
    return ref[f"{estimator}_std"] / np.sqrt(args["groups"]) / ref["true_gradient"]


def within(got, reference, estimator, expected, **args) -> bool:
    return abs(got[f"{estimator}_scale"] - expected) <= STANDARD_ERRORS * standard_error(reference, estimator, **args)


def expect_scale(got, reference, estimator, expected, message, **args):
    if not within(got, reference, estimator, expected, **args):
        raise Misconception(message)


def expect_estimate(impl, reference, estimator, expected, message, **args):
    """``<estimator>_scale`` lies within a few standard errors of ``expected`` (else ``message``), and it is
    an estimate: another seed gives another value (the pair: the expected value alone earns nothing)."""
    key = f"{estimator}_scale"
    got = simulate(impl, keys=(key,), **args)
    expect_scale(got, reference, estimator, expected, message, **args)
    other = simulate(impl, keys=(key,), **dict(args, seed=args["seed"] + 1, groups=FEW))  # small: just different
    expect_observed(other[key] != got[key], f"{key}: {NOT_SIMULATED}")


# -- the seed: a simulation, not a formula ------------------------------------------------
# A gate: a function whose results do not vary with the seed, or whose scatter does not shrink with
# more groups, does not simulate; it earns nothing for the exercise, however close its constants.
def test_same_seed_repeats(impl):
    first = simulate(impl, keys=STATISTICS, group_size=4, groups=2000, seed=42)
    second = simulate(impl, keys=STATISTICS, group_size=4, groups=2000, seed=42)
    expect_observed(
        first == second,
        "two calls with the same seed give different results: draw from "
        "np.random.default_rng(seed), not from an unseeded or global generator",
    )


@pytest.mark.gate
def test_seed_decides_the_draw(impl):
    first = simulate(impl, keys=STATISTICS, group_size=4, groups=2000, seed=42)
    other = simulate(impl, keys=STATISTICS, group_size=4, groups=2000, seed=43)
    expect_observed(
        all(first[k] != other[k] for k in SCALES) and first["rloo_std"] != other["rloo_std"],
        "the results do not vary with the seed: different seeds give identical results; the seed "
        "argument must seed the generator, and every scale and spread must come from the simulated "
        "responses",
    )


@pytest.mark.weight(2)
def test_seeds_spread_like_monte_carlo_estimates(impl, reference):
    # Over eight seeds each scale must scatter by about one standard error (around whatever it estimates:
    # whether that is the right value is for the tests of the statistical facts).
    runs = [simulate(impl, keys=SCALES, group_size=4, groups=FEW, seed=s) for s in SEEDS]
    for estimator in ESTIMATORS:
        error = standard_error(reference, estimator, group_size=4, groups=FEW, seed=1)
        values = np.array([run[f"{estimator}_scale"] for run in runs])
        # Too little scatter shows the results do not vary as estimates do; too much shows only that the
        # scale is not the average it should be (many mistakes do that): an observation, no cause.
        expect_observed(0.25 * error <= np.std(values), f"{estimator}_scale: {NOT_SIMULATED}")
        expect(
            np.std(values) <= 3.0 * error,
            f"{estimator}_scale scatters over seeds several times more than "
            "the Monte Carlo average of the specified estimate would",
        )


@pytest.mark.gate
def test_spread_shrinks_with_more_groups(impl):
    # Sixteen times as many groups: the scatter over seeds must shrink about fourfold.
    few = [simulate(impl, keys=SCALES, group_size=4, groups=FEW, seed=s) for s in SEEDS]
    many = [simulate(impl, keys=SCALES, group_size=4, groups=MANY, seed=s) for s in SEEDS]
    for key in SCALES:
        expect_observed(
            np.std([run[key] for run in few]) > 2.0 * np.std([run[key] for run in many]),
            f"the scatter of {key} over seeds does not shrink with more groups, as a Monte Carlo "
            "average over groups must (about as 1 / sqrt(groups))",
        )


@pytest.mark.weight(2)
@pytest.mark.parametrize("case", example_cases("simulate_group_baseline_bias"))
def test_worked_example(impl, reference, case):
    got = simulate(impl, keys=tuple(case.expected), **case.args)
    wrong = [
        key
        for key, expected in case.expected.items()
        if not (
            within(got, reference, key[: -len("_scale")], expected, **case.args)
            if key in SCALES
            else np.isclose(got[key], expected, rtol=1e-6, atol=1e-9)
        )
    ]
    expect(
        not wrong,
        f"does not reproduce the module's worked example '{case.name}': {', '.join(wrong)} "
        f"{'is' if len(wrong) == 1 else 'are'} wrong",
    )


# -- the statistical facts -------------------------------------------------------------
@pytest.mark.weight(2)
def test_same_group_scale_is_g_minus_one_over_g(impl, reference):
    for args in RUNS:
        g = args["group_size"]
        expect_estimate(
            impl,
            reference,
            "same_group",
            (g - 1) / g,
            "same_group_scale does not show the predicted shrinkage: centring on the mean of the whole "
            "group, which contains R_i, keeps only (G - 1) / G of the expected gradient",
            **args,
        )


@pytest.mark.weight(2)
def test_rloo_is_unbiased(impl, reference):
    for args in RUNS:
        expect_estimate(
            impl,
            reference,
            "rloo",
            1.0,
            "rloo_scale is not close to 1: the leave-one-out baseline must exclude the response's own "
            "reward (mean of the other G - 1 rewards), which keeps the estimator unbiased",
            **args,
        )


def test_plain_is_unbiased(impl, reference):
    for args in RUNS:
        expect_estimate(
            impl,
            reference,
            "plain",
            1.0,
            "plain_scale is not close to 1: without a baseline R_i * (Y_i - p) is unbiased; check the "
            "score Y - p and that each scale divides by the true gradient",
            **args,
        )


def test_true_gradient(impl):
    got = simulate(impl, keys=("true_gradient",), group_size=2, groups=50, seed=3)
    expect_close(
        got["true_gradient"],
        0.3 * (1 - 0.3),
        "true_gradient must be d E[R] / d theta = p * (1 - p) for the logit parameterisation",
    )


def test_predicted_same_group_scale(impl):
    for g in (2, 3, 7):
        got = simulate(impl, keys=("predicted_same_group_scale",), group_size=g, groups=20, seed=g)
        expect_close(
            got["predicted_same_group_scale"],
            (g - 1) / g,
            "predicted_same_group_scale must be (G - 1) / G as a float (beware of integer division)",
        )


def test_baselines_reduce_spread(impl):
    for args in RUNS:
        got = simulate(impl, keys=STDS, **args)
        expect(
            got["rloo_std"] < 0.6 * got["plain_std"] and got["same_group_std"] < 0.6 * got["plain_std"],
            "the reported spreads do not show the variance reduction: with a baseline (same-group or RLOO) the "
            "per-group estimates vary far less than without one, because the reward offset cancels",
        )


def test_spreads_are_std_of_group_estimates(impl, reference):
    for args in RUNS:
        got = simulate(impl, keys=STDS, **args)
        ref = reference.simulate_group_baseline_bias(**args)
        for name in ESTIMATORS:
            expect(
                abs(got[f"{name}_std"] - ref[f"{name}_std"]) <= 0.1 * ref[f"{name}_std"],
                f"{name}_std is off: it must be the (population) standard deviation, over the groups, of the "
                f"per-group {name} estimates (not a variance, a standard error, or the spread of single "
                "responses' terms)",
            )


# A gate too: the docstring specifies the draw, so a correct simulation reproduces the reference's simulated
# statistics; ones that do not (exact moments plus seeded noise of about a standard error pass every
# statistical test above) were not simulated as specified and earn nothing for the exercise. The two
# formulas (true_gradient, predicted_same_group_scale) are no part of the draw: their own tests judge them.
@pytest.mark.gate
def test_follows_specified_draw(impl, reference):
    for args in [*RUNS, dict(group_size=2, groups=3000, seed=5)]:
        got = simulate(impl, keys=STATISTICS, **args)
        want = reference.simulate_group_baseline_bias(**args)
        for key in STATISTICS:
            expect_close(
                got[key],
                want[key],
                "does not reproduce the specified random draw: use one call "
                "np.random.default_rng(seed).random((groups, group_size)) < p, with that shape, and "
                "population standard deviations",
            )


# -- the contract --------------------------------------------------------------------------
@pytest.mark.contract
def test_returns_all_keys_as_floats(impl):
    result = impl.simulate_group_baseline_bias(group_size=3, groups=100, seed=0)
    expect(isinstance(result, dict), "the result must be a dict mapping names to floats")
    missing = [k for k in KEYS if k not in result]
    expect(not missing, f"the result dict is missing the key(s) {missing}")
    for key in KEYS:
        expect(
            isinstance(result[key], (float, np.floating)) and not isinstance(result[key], bool),
            f"result['{key}'] must be a float, not {type(result[key]).__name__}",
        )


@pytest.mark.contract
@pytest.mark.parametrize(
    "args",
    [
        dict(group_size=1, groups=10, seed=0),
        dict(group_size=0, groups=10, seed=0),
        dict(group_size=3, groups=0, seed=0),
        dict(group_size=2.5, groups=10, seed=0),
        dict(group_size=3, groups=10.5, seed=0),
    ],
    ids=["group_of_one", "group_of_zero", "no_groups", "fractional_group_size", "fractional_groups"],
)
def test_rejects_invalid_arguments(impl, args):
    expect_raises(
        ValueError,
        impl.simulate_group_baseline_bias,
        **args,
        message="group_size below 2, groups below 1, or a non-integer count must raise ValueError",
    )
