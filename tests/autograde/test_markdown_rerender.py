"""A sanitised markdown cell is one inert block to every renderer, whatever its line breaks.

The adversarial review's A15: ``<p>&#13;&#13;[Open](javascript:...) ![](http://host/beacon.png)</p>``.
nh3 decodes ``&#13;`` into a raw carriage return, the one-block check split lines on ``\\n`` only,
and mistune reads ``\\r`` as a line break: ``\\r\\r`` was a blank line that ended the HTML block, and
formgrader (nbconvert's ``markdown2html_mistune`` on the autograded notebook) rendered the cleaned
text after it as markdown again: a live ``javascript:`` link and a remote image, fetched as the page
opened. A cell shown as text (over 64 KB) carried raw ``\\r\\r`` the same way.

Now the sanitiser writes every character a renderer may read as a line break, ``\\n`` aside, as a
reference: rendering its output again (mistune as nbconvert runs it, markdown-it as CommonMark
reads it) gives back exactly that output.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from nbconvert.filters import markdown2html_mistune

from grader.autograde.sanitize import LINE_BREAKS, MAX_MARKDOWN_CELL, sanitize_cell

ATTACK = "[Open](javascript:alert(1)) ![](http://attacker.example/beacon.png) <https://attacker.example/a>"
# Line breaks as a cell's HTML spells them (decoded by the cleaner) and as raw text (a cell shown as text).
REFERENCES = {
    "CR CR": "&#13;&#13;",
    "CR CR, hex": "&#x0D;&#x0d;",
    "LF CR": "&#10;&#13;",
    "CR space CR": "&#13; &#13;",
    "CRLF CRLF": "&#13;&#10;&#13;&#10;",
    "LF FF LF": "&#10;&#12;&#10;",
    "VT VT": "&#11;&#11;",
    "LS LS": "&#x2028;&#x2028;",
    "PS PS": "&#x2029;&#x2029;",
    "FS GS RS": "&#x1c;&#x1d;&#x1e;",
}
RAW = {
    "CR CR": "\r\r",
    "LF CR": "\n\r",
    "CR tab CR": "\r\t\r",
    "CRLF CRLF": "\r\n\r\n",
    "LS PS": "\u2028\u2029",
    "VT FF": "\x0b\x0c",
}
CASES = {f"cleaned HTML, {k}": f"My notes.\n\n<p>{v}{ATTACK}</p>\n" for k, v in REFERENCES.items()}
CASES |= {f"text (over 64 KB), {k}": "x" * (MAX_MARKDOWN_CELL + 10) + v + ATTACK for k, v in RAW.items()}
BREAKS = "".join(map(chr, LINE_BREAKS))


def sanitised(source: str) -> str:
    return sanitize_cell({"cell_type": "markdown", "source": source, "metadata": {}}).source


def assert_one_inert_block(text: str) -> None:
    page = markdown2html_mistune(text)  # what formgrader's HTMLExporter does with the autograded notebook
    assert not re.search(r"""href=["']?(javascript|https?):""", page), page[-600:]
    assert not re.search(r"""<img[^>]*src=["']?(https?:)?//""", page), page[-600:]
    assert page.rstrip("\n") == text, "mistune parsed part of the cell again"
    tokens = MarkdownIt("commonmark").parse(text)  # CommonMark's reading (JupyterLab's marked follows it)
    assert [t.type for t in tokens] == ["html_block"], [t.type for t in tokens]
    assert not set(text) & set(BREAKS), "a raw line break other than \\n"


@pytest.mark.parametrize("source", list(CASES.values()), ids=list(CASES))
def test_a_sanitised_cell_renders_as_itself_whatever_its_line_breaks(source):
    once = sanitised(source)
    assert_one_inert_block(once)
    assert_one_inert_block(sanitised(once))  # generate_feedback sanitises the autograded notebook again


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.lists(
        st.sampled_from(["\n", "\r", " ", "\t", "&#13;", "&#x2028;", "&#12;", "<p>", "</p>", "<pre>", "</pre>"])
        | st.sampled_from(list(BREAKS) + ["x", "[a](javascript:b)", "![](http://h/i.png)", "$$", "`", "> ", "    "]),
        max_size=30,
    ).map("".join),
    st.booleans(),
)
def test_any_cell_renders_as_itself(body, as_text):
    source = ("y" * (MAX_MARKDOWN_CELL + 1) if as_text else "") + body
    assert_one_inert_block(sanitised(source))
