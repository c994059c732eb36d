"""nbgrader feedback reads without scrolling sideways (issue 18, item 6).

The feedback of a wrong submission is rendered with nbgrader's own feedback template and the
course's feedback preprocessors, then opened in headless Chromium at 1280 px: no element may be
wider than its box (a scrollbar), and no bare ``Out[n]: <score>`` follows a report.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor, Preprocessor

from grader.autograde.preprocessors import HideHiddenTests, SanitizeStudentHTML, WrapFeedback, fill_outputs
from grader.build.notebook import build_notebook
from grader.core.results import SubmissionResult, TestOutcome, score_function
from grader.engine.record import GradeRecord
from grader.report.screenshot import CHROMIUM_FLAGS, find_chromium
from tests.notebooks.test_cell_isolation import COURSE

PS4B = COURSE.assignment("ps4b")
DIAGNOSIS = (
    "gae_advantages: the recursion continues across a trace cut: at a record where trace_cuts is true the "
    "advantage of the next record must not flow back (the bootstrap is still used when terminated is "
    "false); 3 of the 7 failed checks have trace cuts inside the array, the others at the last record "
    '(at the cell under "Exercise 1: gae_advantages (5 points)", In [4], line 31, in gae_advantages)'
)


def feedback_html(tmp_path: Path) -> Path:
    """The feedback page of a submission whose gae_advantages is wrong, as generate_feedback writes it."""
    import nbgrader
    from nbconvert.exporters import HTMLExporter

    tests = {
        "gae_advantages": [TestOutcome("a", True, 1, ""), TestOutcome("b", False, 1, DIAGNOSIS)],
        "ppo_clipped_terms": [TestOutcome("a", True, 1, "")],
        "ppo_diagnostics": [TestOutcome("a", True, 1, "")],
    }
    result = SubmissionResult("s", {f: score_function(COURSE, f, t, None) for f, t in tests.items()})
    nb = fill_outputs(build_notebook(COURSE, PS4B), GradeRecord("s", "s/ps4b", result))
    resources = {
        "nbgrader": {"notebook": "ps4b", "score": result.total, "max_score": result.max, "late_penalty": 0},
        "config_dir": str(tmp_path),
    }
    templates = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
    css = (
        Path(nbgrader.__file__).parent
        / "server_extensions"
        / "formgrader"
        / "static"
        / "node_modules"
        / "bootstrap"
        / "dist"
        / "css"
    )
    exporter = HTMLExporter(
        template_name="feedback", extra_template_basedirs=[str(templates)], extra_template_paths=[str(css)]
    )
    # As GenerateFeedback runs them: the exporter's own preprocessors, then FEEDBACK_PREPROCESSORS
    # (GetGrades stands in as the scores it reads from the gradebook).
    for pre in (
        SanitizeStudentHTML(),
        GradebookScores(),
        HideHiddenTests(),
        CSSHTMLHeaderPreprocessor(),
        WrapFeedback(),
    ):
        exporter.register_preprocessor(pre, enabled=True)
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    out = tmp_path / "ps4b.html"
    out.write_text(body, encoding="utf-8")
    return out


class GradebookScores(Preprocessor):
    """What GetGrades adds from the gradebook: a score per graded cell (here, full points)."""

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader")
        if meta:
            meta.setdefault("score", meta.get("points", 0))
            meta.setdefault("points", 0)
        return cell, resources


# Run in the page once laid out: every element wider than its box (it scrolls sideways, or is cut off).
MEASURE = """<script>
window.addEventListener("load", () => {
  const wide = [];
  for (const el of document.querySelectorAll("body *")) {
    const style = getComputedStyle(el);
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && style.overflowX !== "visible")
      wide.push(el.tagName + "." + el.className + ":" + el.scrollWidth + ">" + el.clientWidth + ":" +
                el.textContent.slice(0, 60));
  }
  const page = document.documentElement.scrollWidth > window.innerWidth;
  document.body.setAttribute("data-overflow", JSON.stringify({page: page, wide: wide}));
});
</script>"""


def overflow_at(html: Path, width: int) -> dict:
    import json

    page = html.with_name("measured.html")
    page.write_text(html.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="grader-chromium-") as profile:
        proc = subprocess.run(
            [
                find_chromium(),
                *[f for f in CHROMIUM_FLAGS if f != "--hide-scrollbars"],
                f"--user-data-dir={profile}",
                f"--window-size={width},2000",
                "--dump-dom",
                "--virtual-time-budget=5000",
                page.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=180,
        )
    found = re.search(r'data-overflow="([^"]*)"', proc.stdout)
    assert found, proc.stderr[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"'))


def test_the_report_wraps_and_shows_no_bare_score(tmp_path):
    text = feedback_html(tmp_path).read_text(encoding="utf-8")
    assert "the recursion continues across a trace cut" in text and "grader-report" in text
    assert not re.search(r"Out\[\d+\]", text), "a bare Out[n] score follows a report"


@pytest.mark.skipif(find_chromium() is None or os.environ.get("GRADER_NO_CHROMIUM"), reason="needs Chromium")
def test_feedback_of_a_wrong_submission_has_no_horizontal_scrollbar_at_1280_px(tmp_path):
    measured = overflow_at(feedback_html(tmp_path), 1280)
    assert not measured["page"] and measured["wide"] == [], measured
