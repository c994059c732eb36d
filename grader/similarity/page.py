"""The instructors' pages: an index of the ranked pairs per assignment, and one page per pair with the
two codes side by side and the matching lines marked.

Self-contained (style inline, no script, no link out), every byte of a student's (code, file and
cell names, ids) escaped. Never written where students look: it is not part of feedback, kits,
exports or Gradescope's results.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from grader.engine.store import atomic_write
from grader.similarity.analyse import SIMILAR, Assignment, Pair, is_similar
from grader.similarity.fingerprints import FunctionCode

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f3f3f3}.flag{color:#a00;font-weight:bold}.note{color:#555;max-width:60em}
.side{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1em}pre{background:#fafafa;border:1px solid #ddd;
padding:.5em;overflow-x:auto;font-size:13px;line-height:1.35}mark{background:#ffe08a}
"""
NOTE = (
    "For instructors only. Similar code and shared rare wrong replies are evidence for a person to "
    "weigh, never a verdict: they do not say that anyone copied, nor who from whom. Students who worked "
    "together as allowed, or started from the same example, are similar too."
)


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>{body}</body></html>\n"
    )


def pair_file(assignment: str, rank: int) -> str:
    return f"pairs/{assignment}-{rank:04d}.html"


def marked_lines(fc: FunctionCode, slices) -> set[int]:
    """Lines (from 1) of the student's code that hold matching parts (``slices``: character ranges of the
    compared text, its canonical form when it has one)."""
    text = fc.canon.text if fc.canon is not None else fc.code
    starts = np.cumsum([0] + [len(line) + 1 for line in text.split("\n")])
    lines = set()
    if slices is None or not len(slices) or not len(slices[0]):
        return lines
    for start, end in zip(slices[0], slices[1]):
        first = int(np.searchsorted(starts, start, side="right"))
        last = int(np.searchsorted(starts, max(start, end - 1), side="right"))
        for line in range(first, last + 1):
            if fc.canon is None:
                lines.add(line)
            elif line in fc.canon.lines:
                lo, hi = fc.canon.lines[line]
                lines.update(range(lo, hi + 1))
    return lines


def _code(fc: FunctionCode | None, slices) -> str:
    if fc is None:
        return "<pre>(no code of this function)</pre>"
    marked = marked_lines(fc, slices)
    out = []
    for number, line in enumerate(fc.code.rstrip("\n").split("\n"), start=1):
        text = html.escape(line) or " "
        out.append(f"<mark>{text}</mark>" if number in marked else text)
    return "<pre>" + "\n".join(out) + "</pre>"


def pair_page(result: Assignment, pair: Pair, rank: int, where: dict) -> str:
    a, b = html.escape(pair.a), html.escape(pair.b)
    body = [
        f"<h1>{html.escape(result.id)}: {a} and {b}</h1><p class='note'>{html.escape(NOTE)}</p>",
        f"<p>Rank {rank}; score {pair.score:.2f}; evidence {pair.evidence:.1f} (rare fingerprints shared on similar "
        f"functions, weighed by rarity; this assignment's threshold: {result.threshold:.1f}), "
        f"{pair.matched} characters of matching code; "
        + ("<span class='flag'>flagged</span>" if pair.flagged else "not flagged")
        + ". <a href='../index.html'>All pairs</a></p>",
    ]
    functions = sorted(pair.matches, key=lambda f: (not is_similar(pair.matches[f]), result.functions.index(f)))
    for function in functions:
        m = pair.matches[function]
        fa, fb = result.codes.get((pair.a, function)), result.codes.get((pair.b, function))
        slices_a, slices_b = (m.slices[0], m.slices[1]) if m.a == pair.a else (m.slices[1], m.slices[0])
        share_a, share_b = (m.shares[0], m.shares[1]) if m.a == pair.a else (m.shares[1], m.shares[0])
        state = "similar" if is_similar(m) else f"not similar (below {SIMILAR:.0%})"
        body.append(
            f"<h2>{html.escape(function)}: {state}</h2><p>{share_a:.0%} of {a}'s code and {share_b:.0%} of {b}'s "
            f"match ({m.rare_similarity:.0%} counting only the fingerprints few in the class share; "
            f"{m.shared} of those in common). Marked: lines holding matching parts.</p>"
            "<div class='side'>"
            f"<div><b>{a}</b> <small>{html.escape(where.get((pair.a, function), ''))}</small>{_code(fa, slices_a)}</div>"
            f"<div><b>{b}</b> <small>{html.escape(where.get((pair.b, function), ''))}</small>{_code(fb, slices_b)}</div>"
            "</div>"
        )
    if pair.replies:
        rows = "".join(
            f"<tr><td>{html.escape(r['function'])}</td><td><code>{html.escape(r['input'])}</code></td>"
            f"<td>{r['students']}</td><td>{r['wrong']}</td></tr>"
            for r in pair.replies
        )
        body.append(
            "<h2>Shared rare wrong replies</h2><p>Hidden inputs both answered with the same wrong value, a value "
            "few students of the class give (from the grade records). A right answer is never counted.</p>"
            "<table><tr><th>function</th><th>hidden input (hash)</th><th>students giving this value</th>"
            f"<th>students wrong on this input</th></tr>{rows}</table>"
        )
    return _page(f"{result.id}: {pair.a} and {pair.b}", "".join(body))


def index_page(results: list[Assignment], shown: dict[str, int]) -> str:
    body = [f"<h1>Similar pairs</h1><p class='note'>{html.escape(NOTE)}</p>"]
    for result in results:
        body.append(
            f"<h2>{html.escape(result.id)}</h2><p>{result.students} students; threshold {result.threshold:.1f} "
            f"(evidence: rare fingerprints shared on similar functions, weighed by rarity); "
            f"{sum(p.flagged for p in result.pairs)} pairs flagged; "
            f"{result.records} grade records with wrong-reply digests.</p>"
        )
        if not result.pairs:
            body.append("<p>No pair shares rare code or rare wrong replies.</p>")
            continue
        rows = []
        for rank, pair in enumerate(result.pairs[: shown.get(result.id, len(result.pairs))], start=1):
            rows.append(
                f"<tr><td>{rank}</td><td><a href='{pair_file(result.id, rank)}'>{html.escape(pair.a)} &amp; "
                f"{html.escape(pair.b)}</a></td><td>{pair.score:.2f}</td><td>{pair.evidence:.1f}</td><td>{pair.matched}</td>"
                f"<td>{'<span class=flag>yes</span>' if pair.flagged else 'no'}</td>"
                f"<td>{html.escape(', '.join(pair.similar)) or '-'}</td><td>{len(pair.replies)}</td></tr>"
            )
        body.append(
            "<table><tr><th>rank</th><th>pair</th><th>score</th><th>evidence</th><th>matching characters</th><th>flagged</th>"
            "<th>similar functions</th><th>shared rare wrong replies</th></tr>" + "".join(rows) + "</table>"
        )
    return _page("Similar pairs", "".join(body))


def write_pages(out: Path, results: list[Assignment], where: dict, shown: dict[str, int]) -> Path:
    """index.html and one page per listed pair under ``out``; the path of the index."""
    (out / "pairs").mkdir(parents=True, exist_ok=True)
    for result in results:
        for rank, pair in enumerate(result.pairs[: shown.get(result.id, len(result.pairs))], start=1):
            atomic_write(out / pair_file(result.id, rank), pair_page(result, pair, rank, where))
    index = out / "index.html"
    atomic_write(index, index_page(results, shown))
    return index
