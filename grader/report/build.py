"""The instructor's report: one self-contained HTML page about a graded class.

Everything comes from a results directory written by ``grader grade-class`` or ``grader
autograde`` (:mod:`grader.engine.store`), one :class:`~grader.engine.record.GradeRecord` per student. Plots are drawn with matplotlib and embedded
as base64 PNG, so the page can be mailed or archived as one file.
"""

from __future__ import annotations

import base64
import datetime
import html
import io
import os
import re
import statistics
import textwrap
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from grader.calendar import describe, due_text, late_text, lateness
from grader.display import visible
from grader.engine.record import GradeRecord
from grader.engine.store import ResultStore, atomic_write
from grader.errors import GraderError
from grader.feedback import format_points

EXAMPLES = 3
TOP_MESSAGES = 15
PALETTE = {"full": "#2e7d32", "partial": "#f9a825", "zero": "#c62828", "bar": "#3f6fb5"}


@dataclass
class ClassData:
    """A graded class, as the report needs it."""

    title: str
    subtitle: str
    manifest: dict
    records: list[GradeRecord]
    assignments: list[dict]  # {"id", "title", "functions"}
    missing: list[str] = field(default_factory=list)

    @property
    def functions(self) -> list[str]:
        return [f for a in self.assignments for f in a["functions"]]


def load_class(results_dir: Path) -> ClassData:
    """Read a results directory; GraderError if it is not one."""
    results_dir = Path(results_dir)
    store = ResultStore(results_dir)
    manifest = store.manifest()
    if manifest is None:
        raise GraderError(f"{results_dir} is not a results directory of `grader grade-class` (no class.json)")
    students = manifest.get("students") or None
    records = store.all_records(students)
    if not records:
        raise GraderError(f"{results_dir} holds no graded submissions yet; run `grader grade-class` first")
    missing = sorted(set(students or []) - {r.student for r in records})
    assignments = manifest.get("assignments") or [
        {"id": "all", "title": "all functions", "functions": list(records[0].result.functions)}
    ]
    # Only what was graded (a run with --only leaves the other functions out).
    graded = {name for r in records for name in r.result.functions}
    assignments = [dict(a, functions=[f for f in a["functions"] if f in graded]) for a in assignments]
    assignments = [a for a in assignments if a["functions"]]
    title = f"{manifest.get('course_title', manifest.get('course', 'Course'))}"
    subtitle = f"Module {manifest.get('module', '')}: {manifest.get('module_title', '')}".strip(": ")
    return ClassData(title, subtitle, manifest, records, assignments, missing)


# -- plots ---------------------------------------------------------------------------
def _png(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is an instructor dependency
        raise GraderError("the report needs matplotlib: pip install 'rl-llm-m4-grader[instructor]'") from None
    plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False})
    return plt


def histogram_plot(data: ClassData) -> str:
    """One histogram of scores per assignment (and of the total)."""
    plt = _pyplot()
    panels = [(a["title"], a["id"]) for a in data.assignments] + [("Total", None)]
    columns = min(len(panels), 4)
    rows = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(3.1 * columns, 2.4 * rows), squeeze=False)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax, (title, assignment) in zip(axes.flat, panels):
        if assignment is None:
            scores = [r.total for r in data.records]
            most = max((r.max for r in data.records), default=0)
        else:
            scores = [r.assignments.get(assignment, {}).get("score", 0.0) for r in data.records]
            most = max((r.assignments.get(assignment, {}).get("max", 0.0) for r in data.records), default=0)
        bins = min(20, max(5, int(most) + 1)) if most else 5
        ax.hist(scores, bins=bins, range=(0, most or 1), color=PALETTE["bar"], edgecolor="white")
        if scores:
            ax.axvline(statistics.fmean(scores), color="#1d2330", linestyle="--", linewidth=1)
        label = f"{assignment}: {title}" if assignment else "Total (dashed: mean)"
        ax.set_title(textwrap.fill(label, 34), fontsize=9, loc="left")
        ax.set_xlabel(f"points (of {most:g})")
        ax.set_ylabel("students")
        ax.yaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    return _png(fig)


def function_stats(data: ClassData) -> list[dict]:
    stats = []
    for assignment in data.assignments:
        for function in assignment["functions"]:
            full = partial = zero = 0
            scores = []
            for r in data.records:
                f = r.result.functions.get(function)
                if f is None:
                    continue
                scores.append(f.score)
                if f.max and f.score >= f.max:
                    full += 1
                elif f.score > 0:
                    partial += 1
                else:
                    zero += 1
            n = full + partial + zero
            most = next((r.result.functions[function].max for r in data.records if function in r.result.functions), 0.0)
            stats.append(
                {
                    "function": function,
                    "assignment": assignment["id"],
                    "full": full,
                    "partial": partial,
                    "zero": zero,
                    "n": n,
                    "max": most,
                    "mean": statistics.fmean(scores) if scores else 0.0,
                    "pass_rate": full / n if n else 0.0,
                }
            )
    return stats


def pass_rate_plot(stats: list[dict]) -> str:
    """Per function: the share of students with full marks, partial credit, nothing."""
    plt = _pyplot()
    names = [f"{s['function']}  ({s['assignment']})" for s in stats]
    height = max(2.0, 0.24 * len(stats) + 0.8)
    fig, ax = plt.subplots(figsize=(8.5, height))
    y = list(range(len(stats)))[::-1]
    left = [0.0] * len(stats)
    for key, label in (("full", "full marks"), ("partial", "partial credit"), ("zero", "no points")):
        widths = [s[key] / s["n"] if s["n"] else 0 for s in stats]
        ax.barh(y, widths, left=left, color=PALETTE[key], label=label, height=0.72)
        left = [a + b for a, b in zip(left, widths)]
    ax.set_ylim(-0.6, len(stats) - 0.4)
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
    ax.set_xlabel("share of students")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False, fontsize=8)
    fig.tight_layout()
    return _png(fig)


def time_plot(data: ClassData) -> str:
    plt = _pyplot()
    times = [r.elapsed for r in data.records]
    fig, ax = plt.subplots(figsize=(5.5, 2.3))
    ax.hist(times, bins=min(30, max(5, len(times) // 3)), color=PALETTE["bar"], edgecolor="white")
    ax.set_xlabel("seconds to grade one submission")
    ax.set_ylabel("submissions")
    ax.yaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    return _png(fig)


# -- tables --------------------------------------------------------------------------
def misconceptions(data: ClassData) -> list[dict]:
    """What each student reads first about each function (the diagnosed mistake when one known
    mistake explains every failure, else the most specific failure), counted, most frequent first."""
    counts: Counter = Counter()
    examples: dict[tuple, list[str]] = defaultdict(list)
    for r in data.records:
        for function, f in r.result.functions.items():
            if f.error:
                continue  # missing, not implemented, time limit: listed elsewhere
            first = next(iter(f.messages), None)
            if first is None or _unattempted(first):
                continue
            key = (function, _shape(first))
            counts[key] += 1
            if len(examples[key]) < EXAMPLES:
                examples[key].append(r.student)
    return [
        {"function": k[0], "message": k[1], "count": n, "examples": examples[k]}
        for k, n in counts.most_common(TOP_MESSAGES)
    ]


UNATTEMPTED = ("not implemented", "not answered yet")
# Where in their own notebook or file a student's message points differs from student to student
# ('In [7], line 3', 'cell 12'); the misconception is the same, so the count ignores it.
WHERE = re.compile(r"In \[\d+\]|\b(line|cell) \d+")


def _shape(message: str) -> str:
    """``message`` with the student's own cell number and line replaced by 'n'."""
    return WHERE.sub(lambda m: f"{m.group(1)} n" if m.group(1) else "In [n]", message)


def _unattempted(message: str) -> bool:
    return any(phrase in message for phrase in UNATTEMPTED)


def function_errors(data: ClassData) -> list[tuple[str, int]]:
    """Why functions scored nothing without a misconception (missing, not implemented, ...)."""
    counts: Counter = Counter()
    for r in data.records:
        for f in r.result.functions.values():
            if f.error:
                counts[f.error.split(":")[0]] += 1
            elif (
                f.tests
                and not any(t.passed for t in f.tests)
                and all(_unattempted(t.message) for t in f.tests if t.message)
            ):
                counts["not attempted"] += 1
    return counts.most_common()


def limit_rows(data: ClassData) -> list[dict]:
    rows = []
    for r in data.records:
        for event in r.limits:
            rows.append({"student": r.student, **event})
    return rows


# -- the page -------------------------------------------------------------------------
CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2330;
       margin: 0; background: #f5f6f8; }
main { max-width: 1060px; margin: 0 auto; padding: 28px 32px 60px; background: #fff; min-height: 100vh; }
h1 { font-size: 26px; margin: 0 0 2px; }
h2 { font-size: 19px; margin: 34px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #e3e6ec; }
.subtitle { color: #5a6273; margin: 0 0 18px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; }
.card { background: #f3f5f9; border-radius: 8px; padding: 10px 14px; }
.card .value { font-size: 22px; font-weight: 650; }
.card .label { color: #5a6273; font-size: 13px; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid #e6e8ee; vertical-align: top; }
th { background: #f3f5f9; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; background: #f1f3f7; padding: 1px 4px;
       border-radius: 4px; }
img { max-width: 100%; display: block; margin: 6px 0; }
.note { color: #5a6273; font-size: 13px; }
.bad { color: #b42318; font-weight: 600; }
details summary { cursor: pointer; color: #3f6fb5; margin: 8px 0; }
"""


def _e(text) -> str:
    """``text`` as HTML text, control characters and bidirectional overrides shown as escapes."""
    return html.escape(visible(text))


def _who(data: ClassData, student: str) -> str:
    """A student as the pages name them: the id, and the name the LMS writes (Unicode, as written)."""
    person = (data.manifest.get("people") or {}).get(student)
    name = person.get("name") if isinstance(person, dict) else None
    return f"{student} ({visible(str(name), 80, one_line=True)})" if name else student


def calendar_section(data: ClassData) -> str:
    """Each assignment's due date and the late policy; each late submission with its penalty, when
    the instructor gave submission times (timestamp.txt, read by grade-class into the manifest)."""
    calendar = data.manifest.get("calendar") if isinstance(data.manifest.get("calendar"), dict) else None
    if not calendar:
        return "<p class='note'>These results carry no calendar (graded before due dates were recorded).</p>"
    submitted = data.manifest.get("submitted") if isinstance(data.manifest.get("submitted"), dict) else {}
    problems = (
        data.manifest.get("submitted_problems") if isinstance(data.manifest.get("submitted_problems"), dict) else {}
    )
    out = [
        f"<p>Late policy: {_e(describe(calendar.get('late_policy') or {}))}.</p><ul>"
        + "".join(f"<li><code>{_e(a['id'])}</code>: {_e(due_text(calendar, a['id']))}</li>" for a in data.assignments)
        + "</ul>"
    ]
    rows = []
    for r in data.records:
        for a in data.assignments:
            score = r.assignments.get(a["id"], {}).get("score", 0.0)
            late = lateness(calendar, submitted.get(r.student), a["id"], score, r.student)
            if late:
                rows.append(
                    f"<tr><td>{_e(_who(data, r.student))}</td><td><code>{_e(a['id'])}</code></td>"
                    f"<td>{_e(submitted[r.student])} UTC</td><td>{_e(late_text(late[0]))}</td>"
                    f"<td class='num'>-{format_points(late[1])}</td></tr>"
                )
    known = sum(1 for r in data.records if r.student in submitted)
    out.append(
        f"<p class='note'>Submission times: {known} of {len(data.records)} (a <code>timestamp.txt</code> "
        "in the student's folder, as nbgrader writes it; a file's own time is never used). Without one "
        "no penalty applies; an LMS download's are the times it wrote (Blackboard, Brightspace). Scores "
        "above are before penalties.</p>"
    )
    extensions = [
        f"<li>{_e(_who(data, student))}, <code>{_e(assignment)}</code>: "
        + ("lateness excused" if x.get("excused") else f"due {_e(x.get('due'))} UTC")
        + "</li>"
        for assignment, by_student in sorted((calendar.get("extensions") or {}).items())
        for student, x in sorted(by_student.items())
        if isinstance(x, dict)
    ]
    if extensions:
        out.append("<p>Extensions (calendar.extensions):</p><ul>" + "".join(extensions) + "</ul>")
    if rows:
        out.append(
            "<table><tr><th>student</th><th>assignment</th><th>submitted</th><th>late</th>"
            "<th class='num'>penalty</th></tr>" + "".join(rows) + "</table>"
        )
    elif known:
        out.append("<p>No submission was late.</p>")
    if problems:
        out.append(
            "<p class='note'>Submission times not used: "
            + _e("; ".join(f"{s}: {visible(str(p), 200, one_line=True)}" for s, p in sorted(problems.items())))
            + ".</p>"
        )
    return "\n".join(out)


def render(data: ClassData) -> str:
    """The whole page as one HTML string: its sections, in order (each a function of the class's data)."""
    parts = [section(data) for section in SECTIONS]
    return "\n".join(part for section in parts for part in section) + "\n</main></body></html>"


def _head(data: ClassData) -> list[str]:
    generated = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    return [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(data.title)}: class report</title><style>{CSS}</style></head><body><main>",
        f"<h1>{_e(data.title)}: class report</h1>",
        f"<p class='subtitle'>{_e(data.subtitle)} &middot; {len(data.records)} graded submissions "
        f"&middot; generated {generated}</p>",
    ]


def _cards(data: ClassData) -> list[str]:
    records = data.records
    totals = [r.total for r in records]
    most = max((r.max for r in records), default=0.0)
    full = sum(1 for t in totals if most and t >= most)
    cards = [
        (f"{len(records)}", "submissions graded" + (f" ({len(data.missing)} missing)" if data.missing else "")),
        (f"{statistics.fmean(totals):.1f} / {format_points(most)}", "mean total"),
        (f"{statistics.median(totals):.1f}", "median total"),
        (f"{full}", "full marks"),
        (f"{len({row['student'] for row in limit_rows(data)})}", "hit a limit"),
        (f"{statistics.median([r.elapsed for r in records]):.2f} s", "median grading time"),
    ]
    return [
        "<div class='cards'>"
        + "".join(
            f"<div class='card'><div class='value'>{_e(v)}</div><div class='label'>{_e(label)}</div></div>"
            for v, label in cards
        )
        + "</div>"
    ]


def _scores(data: ClassData) -> list[str]:
    return [
        "<h2>Scores per assignment</h2>",
        f"<img alt='score histograms' src='data:image/png;base64,{histogram_plot(data)}'>",
    ]


def _pass_rates(data: ClassData) -> list[str]:
    stats = function_stats(data)
    rows = "".join(
        f"<tr><td><code>{_e(s['function'])}</code></td><td>{_e(s['assignment'])}</td>"
        f"<td class='num'>{s['pass_rate']:.0%}</td><td class='num'>{s['full']}</td><td class='num'>{s['partial']}"
        f"</td><td class='num'>{s['zero']}</td><td class='num'>{s['mean']:.2f} / {format_points(s['max'])}</td></tr>"
        for s in stats
    )
    return [
        "<h2>Pass rate per function</h2>",
        "<p class='note'>Full marks, partial credit and no points, as shares of the class.</p>",
        f"<img alt='pass rate per function' src='data:image/png;base64,{pass_rate_plot(stats)}'>",
        "<details><summary>as a table</summary><table><tr><th>function</th><th>assignment</th>"
        "<th class='num'>full marks</th><th class='num'>full</th><th class='num'>partial</th>"
        "<th class='num'>zero</th><th class='num'>mean points</th></tr>" + rows + "</table></details>",
    ]


def _misconceptions(data: ClassData) -> list[str]:
    parts = ["<h2>Most frequent misconceptions</h2>"]
    found = misconceptions(data)
    if found:
        parts.append(
            "<p class='note'>What each student reads first about a function: the known mistake "
            "that explains all of its failures, else its most specific failure. Functions that were "
            "missing, not attempted or stopped by a limit are counted below.</p>"
        )
        parts.append(
            "<table><tr><th class='num'>students</th><th>function</th><th>message</th>"
            "<th>for example</th></tr>"
            + "".join(
                f"<tr><td class='num'>{m['count']}</td><td><code>{_e(m['function'])}</code></td>"
                f"<td>{_e(m['message'])}</td><td>{_e(', '.join(m['examples']))}</td></tr>"
                for m in found
            )
            + "</table>"
        )
    else:
        parts.append("<p>No test failed with a message.</p>")
    errors = function_errors(data)
    if errors:
        parts.append(
            "<p class='note'>Functions without points for another reason: "
            + "; ".join(f"{_e(reason)} &times;{n}" for reason, n in errors)
            + ".</p>"
        )
    return parts


def _limits(data: ClassData) -> list[str]:
    limits = limit_rows(data)
    if not limits:
        return ["<h2>Submissions that hit a limit</h2>", "<p>None: no time-out, crash, memory or output limit.</p>"]
    return [
        "<h2>Submissions that hit a limit</h2>",
        "<table><tr><th>student</th><th>function</th><th>limit</th><th>detail</th></tr>"
        + "".join(
            f"<tr><td>{_e(row['student'])}</td><td><code>{_e(row['function'] or '(whole submission)')}</code></td>"
            f"<td class='bad'>{_e(row['kind'])}</td><td>{_e(row['detail'])}</td></tr>"
            for row in limits
        )
        + "</table>",
    ]


def _grading_time(data: ClassData) -> list[str]:
    records = data.records
    times = [r.elapsed for r in records]
    wall = data.manifest.get("wall_time")
    slowest = sorted(records, key=lambda r: -r.elapsed)[:5]
    summary = [f"total {sum(times):.1f} s of grading"]
    if wall:
        summary.append(f"last run's wall time {wall:.1f} s on {data.manifest.get('where') or 'this machine'}")
    summary.append(f"median {statistics.median(times):.2f} s, slowest {max(times):.1f} s per submission")
    parts = [
        "<h2>Grading time</h2>",
        f"<p>{_e('; '.join(summary))}.</p>",
        f"<img alt='grading time histogram' src='data:image/png;base64,{time_plot(data)}'>",
        "<p class='note'>Slowest: " + ", ".join(f"{_e(r.student)} ({r.elapsed:.2f} s)" for r in slowest) + "</p>",
    ]
    sandbox = records[0].sandbox if records else ""
    if sandbox:
        parts.append(f"<p class='note'>Student code ran in: {_e(sandbox)}.</p>")
    return parts


def _calendar(data: ClassData) -> list[str]:
    return ["<h2>Due dates and late work</h2>", calendar_section(data)]


def _students(data: ClassData) -> list[str]:
    records = data.records
    head = "".join(f"<th class='num'>{_e(a['id'])}</th>" for a in data.assignments)
    body = "".join(
        f"<tr><td>{_e(r.student)}</td>"
        + "".join(
            f"<td class='num'>{format_points(r.assignments.get(a['id'], {}).get('score', 0.0))}</td>"
            for a in data.assignments
        )
        + f"<td class='num'><b>{format_points(r.total)}</b> / {format_points(r.max)}</td>"
        f"<td class='num'>{r.elapsed:.2f} s</td></tr>"
        for r in records
    )
    parts = [
        "<h2>All students</h2>",
        f"<details><summary>{len(records)} students</summary><table><tr><th>student</th>{head}"
        f"<th class='num'>total</th><th class='num'>grading</th></tr>{body}</table></details>",
    ]
    if data.missing:
        failed = data.manifest.get("failed") if isinstance(data.manifest.get("failed"), dict) else {}
        why = [
            f"{s} ({visible(failed[s], 300, one_line=True)})" if isinstance(failed.get(s), str) else s
            for s in data.missing
        ]
        parts.append(f"<p class='note'>Not graded: {_e('; '.join(why))}.</p>")
    return parts


# The report's sections, in the order a reader meets them.
SECTIONS = (_head, _cards, _scores, _pass_rates, _misconceptions, _limits, _grading_time, _calendar, _students)


def write_report(results_dir: Path, out: Path | None = None) -> Path:
    """Write the report of ``results_dir`` (default: ``results_dir/report.html``); its path."""
    data = load_class(results_dir)
    out = Path(out) if out is not None else Path(results_dir) / "report.html"
    page = render(data)
    similar = Path(results_dir) / "similarity" / "index.html"
    if similar.is_file():  # written by `grader similarity ... --results RESULTS_DIR`: for instructors, as this page
        link = _e(Path(os.path.relpath(similar.resolve(), out.resolve().parent)).as_posix())
        page = page.replace(
            "</main></body></html>",
            f"<p class='note'><a href='{link}'>Similar pairs</a> (grader similarity): evidence for instructors "
            "to weigh, never a verdict.</p></main></body></html>",
        )
    atomic_write(out, page)
    return out
