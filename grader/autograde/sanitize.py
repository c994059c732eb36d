"""Student-authored HTML in what nbconvert renders: feedback and the autograded notebook.

nbconvert passes the HTML of markdown cells, raw cells and ``text/html`` outputs
through as it is, runs ``application/javascript`` outputs, inlines SVG, and nbgrader's
templates put metadata (grade ids, execution counts, output names) into the page
unescaped. A student's ``<script>``, ``<img onerror=...>`` or ``javascript:`` link
would run in the instructor's formgrader and in everyone's feedback.

:func:`sanitize_notebook` leaves a notebook in which nothing can run, whatever renders it:

- a markdown cell becomes the HTML nbconvert would render for it (attachments inlined
  as data URLs, images only), cleaned by `nh3 <https://nh3.readthedocs.io>`_ (the
  maintained binding of the Rust sanitizer ammonia) and kept as one raw HTML block,
  so that rendering it again changes nothing, whatever a renderer takes for a line break
  (:data:`LINE_BREAKS`);
- a raw cell's text is cleaned the same way;
- an output keeps text, PNG/JPEG/GIF images (when they are base64) and cleaned
  ``text/html``; javascript, SVG, LaTeX, widgets and every other type are dropped;
- a cell keeps only its ``nbgrader`` metadata, and only when it is exactly what
  nbgrader writes (:func:`grader.notebooks.extract.nbgrader_problem`); the notebook
  keeps only its kernel and language names.

Code cell sources are left alone: nbconvert highlights them, escaped.
"""

from __future__ import annotations

import functools
import html
import re

import nbformat
import nh3
from nbconvert.filters import markdown2html_mistune

from grader.notebooks.extract import CELL_ID, kept_metadata, nbgrader_problem, new_cell
from grader.untrusted import valid_text

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif")
BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif);base64,[A-Za-z0-9+/=]*$")
ATTACHMENT = re.compile(r"attachment:([^\s)\"'<>]+)")
# Syntax highlighting and nbconvert's anchors use classes; no attribute can hold script.
ATTRIBUTES = {tag: set(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items()}
for _tag in ("span", "div", "code", "pre", "a"):
    ATTRIBUTES.setdefault(_tag, set()).add("class")
NBGRADER_KEYS = ("grade", "grade_id", "locked", "points", "schema_version", "solution", "task", "checksum", "cell_type")
OUTPUT_NAMES = ("stdout", "stderr")
MAX_TEXT = 2**20
# Markdown rendering (mistune) slows down on adversarial text (a 1 MB cell of "$" takes 20 s):
# beyond these, a notebook's markdown is shown as plain text.
MAX_MARKDOWN_CELL = 64 * 1024
MAX_MARKDOWN_NOTEBOOK = 256 * 1024
# Bytes of data URLs inlined into a notebook's markdown, all references together: one
# attachment referenced 4,000 times turned 187 KB of notebook into a 410 MB autograded
# notebook (2.9 GB of grader memory, 134 s). Every derived size is counted before it is built.
MAX_INLINED = 8 * 2**20
# What a markdown renderer may read as a line break besides "\n": "\r" (CommonMark's line endings;
# mistune, markdown-it and marked turn "\r\n" and "\r" into "\n" before parsing), what Python's
# str.splitlines breaks at (mistune's plugins split on it: \v \f \x1c-\x1e \x85 \u2028 \u2029) and
# JavaScript's line terminators (\u2028 \u2029, JupyterLab's marked). Cleaning decodes a reference
# (nh3 turns "&#13;" into a raw "\r"): "&#13;&#13;" was a blank line to mistune that ended the block,
# and formgrader rendered the cleaned text after it as markdown again, a javascript: link and a remote
# image among it (the adversarial review's A15). Written back as references, these mean the same
# character to HTML and end no line in markdown.
LINE_BREAKS = {c: f"&#{c};" for c in map(ord, "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")}


class Budget:
    """What is left of a notebook's allowance for derived text (inlined attachments)."""

    def __init__(self, inlined: int = MAX_INLINED):
        self.inlined = inlined


def _only_image_data(tag: str, attribute: str, value: str) -> str | None:
    """A ``data:`` URL only as an image's source, and only of an image type (no SVG, no HTML); an
    image's source only as such a URL. A page fetches an image's source as it opens, so a remote
    one told the student when and where their feedback or formgrader was opened (review attack
    sanitizer_payloads); a link needs a click and keeps its URL."""
    if tag == "img" and attribute == "src":
        return value if DATA_IMAGE.match(value.strip()) else None
    if value.strip().lower().startswith("data:"):
        return None
    return value


def clean_html(text: str) -> str:
    """``text`` with every element, attribute and URL that could run script removed."""
    return nh3.clean(
        valid_text(text),
        attributes=ATTRIBUTES,
        attribute_filter=_only_image_data,
        url_schemes={"http", "https", "mailto", "data"},
    )


def as_one_block(html: str) -> str:
    """Cleaned HTML that markdown renders verbatim: one HTML block (a ``<div>`` with no blank line
    inside, so no markdown, math or link syntax in it is ever parsed again).

    "Line" is meant as every renderer means it: each character one of them reads as a line break,
    ``\n`` aside, is written as a character reference (:data:`LINE_BREAKS`), so the only line
    breaks left are the ``\n`` this block is split on, and no line between them is blank.
    """
    html = html.translate(LINE_BREAKS)
    lines = [line if line.strip() else "<span></span>" for line in html.strip("\n").split("\n")]
    return "<div>\n" + "\n".join(lines) + "\n</div>"


def _inline_attachments(source: str, attachments, budget: Budget | None = None) -> str:
    """``attachment:name`` -> a data URL, for the image attachments of a markdown cell.

    The text this makes is sized first (references x data URLs, a linear count): what would
    take more than ``budget`` has left is not inlined, every reference becoming ``#``.
    """
    images = {}
    for name, bundle in (attachments or {}).items() if isinstance(attachments, dict) else ():
        for mime in IMAGE_TYPES:
            data = bundle.get(mime) if isinstance(bundle, dict) else None
            if isinstance(data, str) and BASE64.match(data):
                images[name] = f"data:{mime};base64,{''.join(data.split())}"
                break
    budget = budget if budget is not None else Budget()
    derived = sum(len(images.get(m.group(1), "#")) for m in ATTACHMENT.finditer(source))
    if derived > budget.inlined:
        images = {}  # too much text derived from too little: the images are left out
    else:
        budget.inlined -= derived
    return ATTACHMENT.sub(lambda m: images.get(m.group(1), "#"), source)


def sanitize_markdown(source: str, attachments=None, render: bool = True, budget: Budget | None = None) -> str:
    """What nbconvert would render for a markdown cell, cleaned, as markdown that renders to exactly that;
    with ``render=False`` (a cell too long to render), the text itself, escaped. ``budget``: the
    notebook's allowance for inlined attachments (see :data:`MAX_INLINED`)."""
    if not render:
        return as_one_block("<pre>" + html.escape(valid_text(source[:MAX_TEXT])) + "</pre>")
    text = _inline_attachments(source, attachments, budget)
    return rendered_markdown(text) if len(text) <= MAX_MARKDOWN_CELL else render_markdown(text)


def render_markdown(text: str) -> str:
    """Markdown as nbconvert renders it, cleaned, as one HTML block."""
    return as_one_block(clean_html(markdown2html_mistune(text)))


# The course's own cells are alike in every notebook of a class: each is rendered once.
rendered_markdown = functools.lru_cache(maxsize=256)(render_markdown)


def _output(output_type: str, **fields) -> nbformat.NotebookNode:
    return nbformat.from_dict({"output_type": output_type, **fields})  # made of checked parts: no schema pass


def sanitize_output(output) -> nbformat.NotebookNode | None:
    """An output with only what cannot run script, or None when nothing is left of it."""
    kind = output.get("output_type") if isinstance(output, dict) else None
    if kind == "stream":
        text = output.get("text")
        text = "".join(text) if isinstance(text, list) and all(isinstance(t, str) for t in text) else text
        if output.get("name") in OUTPUT_NAMES and isinstance(text, str):
            return _output("stream", name=output["name"], text=valid_text(text))
        return None
    if kind == "error":
        traceback = output.get("traceback")
        if isinstance(traceback, list) and all(isinstance(line, str) for line in traceback):
            return _output(
                "error",
                ename=valid_text(str(output.get("ename", ""))[:200]),
                evalue=valid_text(str(output.get("evalue", ""))[:2000]),
                traceback=[valid_text(line) for line in traceback],
            )
        return None
    if kind not in ("display_data", "execute_result") or not isinstance(output.get("data"), dict):
        return None
    data = {}
    for mime, value in output["data"].items():
        value = "".join(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else value
        if not isinstance(value, str):
            continue
        if mime == "text/plain":
            data[mime] = valid_text(value)
        elif mime == "text/html":
            data[mime] = clean_html(value)
        elif mime in IMAGE_TYPES and BASE64.match(value):
            data[mime] = value
    if not data:
        return None
    if kind == "execute_result":
        count = output.get("execution_count")
        return _output(
            kind, data=data, metadata={}, execution_count=count if type(count) is int and 0 <= count < 10**9 else None
        )
    return _output(kind, data=data, metadata={})


def _nbgrader_metadata(meta) -> dict | None:
    if meta is None or nbgrader_problem(meta):
        return None
    return {key: meta[key] for key in NBGRADER_KEYS if key in meta}


def sanitize_cell(cell, render: bool = True, budget: Budget | None = None) -> nbformat.NotebookNode:
    """A copy of ``cell`` (a notebook cell as nbformat reads it, valid or not) that cannot run script
    when rendered; what is not a cell becomes a raw cell of its text. ``render=False``: markdown
    is shown as text."""
    if not isinstance(cell, dict):
        cell = {"cell_type": "raw", "source": str(cell)[:MAX_TEXT]}
    source = cell.get("source", "")
    source = valid_text("".join(map(str, source)) if isinstance(source, list) else str(source))
    cell_type = cell.get("cell_type")
    metadata = cell.get("metadata")
    meta = _nbgrader_metadata(metadata.get("nbgrader")) if isinstance(metadata, dict) else None
    cell_id = cell.get("id")
    cell_id = cell_id if isinstance(cell_id, str) and CELL_ID.match(cell_id) else ""
    metadata = {"nbgrader": meta} if meta is not None else {}
    if cell_type == "code":
        new = new_cell("code", source, cell_id, metadata)
        count = cell.get("execution_count")
        new.execution_count = count if type(count) is int and 0 <= count < 10**9 else None
        outputs = cell.get("outputs")
        new.outputs = [o for o in map(sanitize_output, outputs if isinstance(outputs, list) else []) if o is not None]
    elif cell_type == "markdown":
        text = sanitize_markdown(source, cell.get("attachments"), render and len(source) <= MAX_MARKDOWN_CELL, budget)
        new = new_cell("markdown", text, cell_id, metadata)
    else:
        new = new_cell("raw", clean_html(source), cell_id, metadata)
    return new


def sanitize_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Sanitize ``nb`` in place (see the module's docstring) and return it."""
    budget = MAX_MARKDOWN_NOTEBOOK
    inlined = Budget()
    sanitized = []
    for cell in nb.get("cells") if isinstance(nb.get("cells"), list) else []:
        sanitized.append(sanitize_cell(cell, render=budget > 0, budget=inlined))
        if sanitized[-1].cell_type == "markdown":
            budget -= len(str(cell.get("source", "")))
    nb.cells = sanitized
    seen = set()
    for number, cell in enumerate(nb.cells, start=1):  # ids go into the page: unique and plain
        if not cell.id or cell.id in seen:
            cell.id = f"cell-{number}"
        seen.add(cell.id)
    nb.metadata = nbformat.from_dict(kept_metadata(nb.get("metadata")))
    nb.nbformat, nb.nbformat_minor = 4, 5
    return nb
