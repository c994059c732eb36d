"""Text a student controls, shown to people: never markup, never terminal control.

Student ids, file names, exception messages, notes and traceback lines reach the
console through rich, which reads ``[...]`` as markup (``[/bold]`` with nothing
open is an error that stops the command) and passes escape sequences through to
the terminal. Whatever a student controls goes through one of these:

- :func:`visible`: control characters and lone surrogates shown as escapes (``\\x1b``,
  ``\\udcff``), text cut to a limit: the result is always valid UTF-8;
- :func:`markup`: the same, with rich markup escaped, for an f-string printed with markup on;
- :func:`text`: the same as a rich ``Text``, which is never parsed as markup (table cells);
- :func:`spreadsheet_cell`: the same, on one line, for a CSV cell a spreadsheet shows as text, never
  runs as a formula.
"""

from __future__ import annotations

# C0 and C1 control characters, DEL, and the bidirectional overrides: they move a
# terminal's cursor, rewrite lines, set its title, or reorder what people read.
_INVISIBLE = {c: f"\\x{c:02x}" for c in [*range(0x20), *range(0x7F, 0xA0)]}
_INVISIBLE.update({c: f"\\u{c:04x}" for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]})
# Lone surrogates: no UTF-8 encoding exists for them, so a strict write or a console print
# of one stops the command (a JSON "\\ud800" from a worker, a non-UTF-8 file name
# decoded by os.fsdecode).
_INVISIBLE.update({c: f"\\u{c:04x}" for c in range(0xD800, 0xE000)})
# Multi-line text (messages) keeps its line breaks and tabs.
_INVISIBLE_KEEPING_LINES = {c: e for c, e in _INVISIBLE.items() if c not in (0x09, 0x0A)}


def visible(value, limit: int | None = None, *, one_line: bool = False) -> str:
    """``str(value)``, cut to ``limit`` characters, its control characters shown as escapes.

    ``one_line`` also escapes line breaks and tabs (ids, file names, progress lines).
    """
    value = str(value)
    if limit is not None and len(value) > limit:
        value = value[:limit] + " ..."
    return value.translate(_INVISIBLE if one_line else _INVISIBLE_KEEPING_LINES)


def markup(value, limit: int | None = None, *, one_line: bool = True) -> str:
    """:func:`visible` (cut to ``limit``), then rich markup escaped: safe inside ``console.print(f"[red]...{markup(x)}[/red]")``."""
    from rich.markup import escape

    return escape(visible(value, limit, one_line=one_line))


def text(value, *, one_line: bool = False, style: str = ""):
    """:func:`visible` as a ``rich.text.Text`` (never parsed as markup), e.g. for a table cell."""
    from rich.text import Text

    return Text(visible(value, one_line=one_line), style=style)


# A spreadsheet runs a cell that starts with one of these as a formula (=HYPERLINK sends the
# sheet's cells away); a number (-0.5) is no formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def spreadsheet_cell(value) -> str:
    """``str(value)`` (``""`` for None) for a CSV cell, as :func:`visible` shows it on one line: a text
    that would start a formula gets a leading ``'``, which spreadsheets show as text."""
    text = "" if value is None else visible(value, one_line=True)
    if text.startswith(FORMULA_STARTS):
        try:
            float(text)
            return text
        except ValueError:
            return "'" + text
    return text
