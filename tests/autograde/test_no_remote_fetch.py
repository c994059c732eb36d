"""A student's HTML never makes the reader's browser fetch anything as the page opens.

Review attack sanitizer_payloads: ``<img src="http://...">`` in markdown, a raw cell or a
``text/html`` output survived the sanitiser, so a student learned when and where their feedback
or formgrader page was opened. An image's source is kept only as a data URL of an image type.
"""

from __future__ import annotations

import pytest

from grader.autograde.sanitize import clean_html, sanitize_markdown

PNG = "data:image/png;base64,iVBORw0KGgo="


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/beacon.png",
        "https://example.org/x.gif",
        "//example.org/x",
        " HTTP://example.org/x",
        "x.png",
        "data:image/svg+xml;base64,PHN2Zz4=",
    ],
)
def test_an_image_keeps_no_source_but_an_inlined_image(url):
    for page in (clean_html(f'<p><img src="{url}" alt="pic"></p>'), sanitize_markdown(f"![pic]({url.strip()})")):
        assert "src=" not in page, page
    kept = clean_html(f'<img src="{PNG}" alt="pic">')
    assert f'src="{PNG}"' in kept


def test_a_link_keeps_its_url():
    # A link is followed only on a click: it stays, as the student wrote it.
    assert 'href="https://example.org/"' in clean_html('<a href="https://example.org/">see</a>')
