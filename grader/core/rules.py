"""The course's rules beyond the module: what its contract asks that the module's own code does not.

``autograder-tests/course_rules.yaml`` is the one list. Each entry names the functions it concerns,
the rule (what the course asks) and what the module's own code or words do instead. A hidden test
that enforces a rule is marked ``@pytest.mark.course_rule("<id>")``; the plugin
(grader.core.plugin) ends its failure message with the rule's :attr:`CourseRule.note`, keeps that note
when it rewrites the message as an observation, and adds the rules of the failed checks to the
function's first message. A student who follows the module then reads, for every point such a rule
costs, that it is the course's rule and not a misconception.

A course without the file has no rules (``{}``); a test marked with an id the list lacks is an error
of the course, reported when the tests are collected.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from grader.errors import CourseError

RULES_FILE = "course_rules.yaml"
RULE_KEYS = ("title", "functions", "rule", "module")
MARKER = "course_rule"


@dataclass(frozen=True)
class CourseRule:
    """One rule of the course's contract beyond the module's code."""

    id: str
    title: str  # a few words, as the first message lists it ("pad == eos")
    functions: tuple[str, ...]
    rule: str  # what the course asks
    module: str  # what the module's own code (or text) does instead

    @property
    def note(self) -> str:
        """The text a failed check that enforces it ends with."""
        return f"[course rule, beyond the module: {self.rule}; {self.module}]"


_cache: dict[str, tuple[tuple[int, int], dict[str, CourseRule]]] = {}


def course_rules(tests_dir: Path, exercises: set[str] | None = None) -> dict[str, CourseRule]:
    """The rules of ``tests_dir/course_rules.yaml`` by id, in the file's order (``{}`` without the file).

    ``exercises``: the course's function names; a rule naming another is a ``CourseError``.
    """
    path = Path(tests_dir) / RULES_FILE
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return {}
    key, stamp = str(path), (stat.st_mtime_ns, stat.st_size)
    if key in _cache and _cache[key][0] == stamp:
        rules = _cache[key][1]
    else:
        rules = _read(path)
        _cache[key] = (stamp, rules)
    if exercises is not None:
        for rule in rules.values():
            unknown = [f for f in rule.functions if f not in exercises]
            if unknown:
                raise CourseError(f"{path.name}: {rule.id}: {unknown[0]!r} is not an exercise of course.yaml")
    return rules


def _read(path: Path) -> dict[str, CourseRule]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise CourseError(f"{path.name}: not valid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CourseError(f"{path.name}: expected a mapping of rule ids to rules")
    rules = {}
    for rule_id, entry in data.items():
        where = f"{path.name}: {rule_id}"
        if not isinstance(rule_id, str) or not rule_id.isidentifier():
            raise CourseError(f"{where}: a rule id is an identifier")
        if not isinstance(entry, dict) or set(entry) != set(RULE_KEYS):
            raise CourseError(f"{where}: a rule has exactly the keys {', '.join(RULE_KEYS)}")
        functions = entry["functions"]
        if not isinstance(functions, list) or not functions or not all(isinstance(f, str) for f in functions):
            raise CourseError(f"{where}: functions is a non-empty list of exercise names")
        texts = {k: entry[k] for k in ("title", "rule", "module")}
        if not all(isinstance(t, str) and t.strip() for t in texts.values()):
            raise CourseError(f"{where}: title, rule and module are non-empty strings")
        one_line = {k: " ".join(t.split()) for k, t in texts.items()}  # YAML's folded lines, as one
        rules[rule_id] = CourseRule(rule_id, functions=tuple(functions), **one_line)
    return rules


def failed_rules_note(rules: list[CourseRule], enforcing: int, failed: int) -> str:
    """What a function's first message adds when ``enforcing`` of its ``failed`` checks enforce ``rules``."""
    titles = "; ".join(r.title for r in rules)
    if enforcing == failed:
        who = "the failed check enforces" if failed == 1 else f"every failed check ({failed}) enforces"
    else:
        who = f"{enforcing} of the {failed} failed checks enforce"
    rule = "a course rule" if len(rules) == 1 else "course rules"
    return f"({who} {rule} beyond the module, not a misconception: {titles})"
