"""The module's own code, graded as a student's: every point it loses is a course rule that says so.

The module's worked answers (one of the seed files in ``../shared/seeds/``, beside the repository or
above it; ``$GRADER_SEEDS_DIR`` elsewhere) define 13 of the course's functions and the PPODiagnostics
dataclass. They are read from the seed when the tests run, never copied into the repository, and
graded as they are: no change at all, since the course's signatures are the module's (the one
parameter the course adds, response_token_mask's ``include_eos``, is passed only where it is False,
a course rule, and the lab asks the default without it). Without the seed the tests are skipped,
saying why.

What they assert: each of the 13 functions is graded; every check it fails is marked with a course
rule of autograder-tests/course_rules.yaml that names the function, and its message ends with that
rule's note; a first message, when there is one, names the course rules too; each rule of the list
that concerns one of these functions costs the module's code something (the list says nothing
untrue of it); and the CartPole lab trains to full marks with the module's functions, as the
sequence lab does with its response mask (the other functions of that lab are not in the seed, so
the course's own stand in for them).
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from grader.core.course import load_course
from grader.core.rules import course_rules
from tests.helpers import ROOT, build_submission, grade_json

COURSE = load_course(ROOT, check_tests=False)
RULES = course_rules(COURSE.tests_dir)
# The functions of the module's worked answers, and the course-provided dataclass they return.
SEED_FUNCTIONS = (
    "stable_softmax",
    "grad_log_softmax",
    "reward_to_go",
    "discounted_score_weights",
    "leave_one_out_baselines",
    "group_mean_advantages",
    "group_zscore_advantages",
    "gae_advantages",
    "ppo_clipped_terms",
    "ppo_diagnostics",
    "response_token_mask",
    "sequence_log_probability",
    "broadcast_sequence_advantages",
)
PROVIDED = {"PPODiagnostics": "ppo_diagnostics"}  # a class of the seed, in the module of this function
# A line of the seed's code starts with one of these, or is indented, or empty; every other line is prose.
CODE_LINE = re.compile(r"^(?:import |from |def |class |@|\)|\s|$)")


def seeds_dir() -> Path | None:
    """``$GRADER_SEEDS_DIR``, else the first ``shared/seeds`` beside the repository or above it."""
    if os.environ.get("GRADER_SEEDS_DIR"):
        return Path(os.environ["GRADER_SEEDS_DIR"])
    return next((p / "shared" / "seeds" for p in ROOT.parents if (p / "shared" / "seeds").is_dir()), None)


def worked_answers() -> str | None:
    """The text of the seed file that holds the module's code (the files' names are not fixed)."""
    folder = seeds_dir()
    if folder is None or not folder.is_dir():
        return None
    for path in sorted(folder.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        if "def gae_advantages(" in text and "def response_token_mask(" in text:
            return text
    return None


def seed_definitions(text: str) -> dict[str, str]:
    """Source of every top-level function and class of the seed's code, by name, as the seed gives it.

    The seed is prose with code blocks in it: from the first ``import`` on, the code lines are kept and
    the prose lines blanked, and the whole parses as one module.
    """
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("import ", "from ")))
    code = "\n".join(line if CODE_LINE.match(line) else "" for line in lines[start:])
    tree = ast.parse(code)
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            decorators = "".join(f"@{ast.get_source_segment(code, d)}\n" for d in node.decorator_list)
            found[node.name] = decorators + ast.get_source_segment(code, node)
    return found


SEED = worked_answers()
pytestmark = pytest.mark.skipif(
    SEED is None,
    reason=f"the module's worked answers are not here (no seed file with its code in {seeds_dir() or '../shared/seeds'}; "
    "set GRADER_SEEDS_DIR): this test grades the module's own code and needs it",
)


def module_submission(folder: Path) -> Path:
    """The seed's functions, in the course's modules, as a student would hand them in."""
    definitions = seed_definitions(SEED)
    missing = [n for n in (*SEED_FUNCTIONS, *PROVIDED) if n not in definitions]
    assert not missing, f"the seed no longer defines {missing}: read it again before grading it"
    modules: dict[str, list[str]] = {}
    for name in (*PROVIDED, *SEED_FUNCTIONS):
        modules.setdefault(COURSE.exercise(PROVIDED.get(name, name)).module, []).append(definitions[name])
    folder.mkdir(parents=True)
    for module, sources in modules.items():
        header = "from dataclasses import dataclass\n\nimport numpy as np\n\n\n"
        (folder / f"{module}.py").write_text(header + "\n\n\n".join(sources) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("seed")
    module = module_submission(root / "module")
    # The sequence lab needs functions the seed does not define: the course's own, with the seed's mask.
    definitions = seed_definitions(SEED)
    mask_file = root / "response_token_mask" / "seed.py"  # build_submission reads the function from the folder
    mask_file.parent.mkdir()
    mask_file.write_text("import numpy as np\n\n\n" + definitions["response_token_mask"] + "\n", encoding="utf-8")
    hybrid = build_submission(root / "hybrid", [mask_file])
    result, lab = grade_json(module, hybrid, only=[*SEED_FUNCTIONS, "cartpole_ppo_lab", "sequence_rloo_lab"])
    return result["functions"], lab["functions"]


@pytest.mark.parametrize("function", SEED_FUNCTIONS)
def test_every_point_the_module_loses_is_a_course_rule_that_says_so(graded, function):
    f = graded[0][function]
    assert f["error"] is None, f"{function}: {f['error']}"
    rules = [r for r in RULES.values() if function in r.functions]
    failed = [t for t in f["tests"] if not t["passed"]]
    for test in failed:
        assert any(test["message"].endswith(r.note) for r in rules), (
            f"{function}: '{test['name']}' costs the module's own code points, and its message names no course "
            f"rule of {function} ({[r.id for r in rules]}): {test['message']}"
        )
    if failed and f["diagnosis"]:
        assert "course rule" in f["diagnosis"], f"{function}'s first message does not say course rule: {f['diagnosis']}"
    assert failed or f["score"] == f["max"]


def test_each_rule_of_these_functions_costs_the_module_something(graded):
    for rule in RULES.values():
        functions = [f for f in rule.functions if f in SEED_FUNCTIONS]
        if not functions:
            continue  # a rule of functions the seed does not define (its lab's): the module's text leaves it open
        costs = [
            t["name"] for f in functions for t in graded[0][f]["tests"] if not t["passed"] and rule.note in t["message"]
        ]
        assert costs, f"course rule {rule.id}: the module's own {', '.join(functions)} already follows it"


def test_the_labs_train_with_the_module_functions(graded):
    for lab, functions in (("cartpole_ppo_lab", graded[0]), ("sequence_rloo_lab", graded[1])):
        f = functions[lab]
        assert f["score"] == f["max"], [t["message"] for t in f["tests"] if not t["passed"]]
