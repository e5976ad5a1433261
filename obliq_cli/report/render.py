"""One renderer for every table obliq prints: ``render(frame, fmt)`` in one of ``FORMATS``.

A command builds its output once, as data, and this module writes it in the format asked:

- csv: a DataFrame, written as it is (floats with ``repr``, so a number read back is the
  number computed);
- md, latex, html: a *page*, a list of sections (one per experiment, say), each a list of
  blocks: ``Heading`` (a section's title), ``Text`` (a paragraph of one or more lines),
  ``Table`` (headers and rows of text, and the titles of its cells marked ⚠) and ``Plain``
  (a line printed as it is in every format). A DataFrame is a page of one table.

md writes a section's blocks apart by a blank line (a Text's lines one under the other),
html and latex one under the other; sections are apart by a blank line in every format.
Nothing here imports pandas or tabulate before it renders: ``obliq --help`` reads FORMATS.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

FORMATS = ("md", "latex", "csv", "html")
LAYOUTS = ("wide", "long")  # a results table's: a column per algorithm, or a row per cell
# a listing of names and facts (``obliq datasets list``): tabulate's plain columns, or md
LISTING_FORMATS = ("plain", "md")
_TABLEFMT = {"latex": "latex_booktabs", "html": "html"}
# ours, not the labels': latex gets them after tabulate has escaped the cells
_LATEX_SYMBOLS = (("±", r"$\pm$"), ("Δ", r"$\Delta$"), ("✓", r"\checkmark"))


@dataclass(frozen=True)
class Heading:
    """A section's title: "### title" (md), <h3> (html), "% title" (latex)."""

    text: str


@dataclass(frozen=True)
class Text:
    """A paragraph: its lines one under the other (md), a <p> each (html), "% line" each
    (latex)."""

    lines: tuple[str, ...]

    def __init__(self, *lines: str):
        object.__setattr__(self, "lines", tuple(lines))


@dataclass(frozen=True)
class Plain:
    """A line printed as it is in every format (an experiment without a table)."""

    text: str


@dataclass(frozen=True)
class Table:
    """Headers and rows of text; ``titles``: what each cell that ends in ⚠ stands for, in
    reading order (html makes them the marks' titles)."""

    headers: list
    rows: list
    titles: list = field(default_factory=list)


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        from ..errors import ObliqError

        raise ObliqError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return fmt


def render(frame, fmt: str) -> str:
    """``frame`` (a DataFrame, or a page: a list of sections of blocks) as ``fmt``."""
    import pandas as pd

    check_format(fmt)
    if isinstance(frame, pd.DataFrame):
        if fmt == "csv":
            return frame.to_csv(index=False, float_format=lambda v: repr(float(v)))
        frame = [[Table(list(frame.columns), frame.astype(str).to_numpy().tolist())]]
    elif fmt == "csv":
        raise TypeError("render: csv is written from a DataFrame, not from a page")
    inner = "\n\n" if fmt == "md" else "\n"
    return "\n\n".join(inner.join(_block(b, fmt) for b in section) for section in frame)


def _block(block, fmt: str) -> str:
    if isinstance(block, Plain):
        return block.text
    if isinstance(block, Heading):
        return {"md": f"### {block.text}", "html": f"<h3>{html.escape(block.text)}</h3>",
                "latex": f"% {block.text}"}[fmt]
    if isinstance(block, Text):
        if fmt == "md":
            return "\n".join(block.lines)
        if fmt == "html":
            return "\n".join(f"<p>{html.escape(line)}</p>" for line in block.lines)
        return "\n".join(f"% {line}" for line in block.lines)
    return table_text(block.headers, block.rows, fmt, block.titles)


def table_text(headers, rows, fmt: str, titles=()) -> str:
    """One table as md (``pipe_table``), latex (booktabs, our symbols as TeX) or html
    (``html_marks``)."""
    from tabulate import tabulate

    from ..experiment.degeneracy import MARK

    if fmt == "md":
        return pipe_table(rows, headers)
    table = tabulate(rows, headers=headers, tablefmt=_TABLEFMT[fmt], disable_numparse=True)
    if fmt == "html":
        return html_marks(table, list(titles))
    for symbol, tex in (*_LATEX_SYMBOLS, (MARK, r"\textbf{!}")):
        table = table.replace(symbol, tex)
    return table


def pipe_table(rows, headers) -> str:
    """tabulate's pipe (markdown) table with each ``|`` in a text cell written ``\\|``: a
    label such as ``a|b`` would otherwise open a column and shift the rest of its row."""
    from tabulate import tabulate

    def cell(value):
        return value.replace("|", "\\|") if isinstance(value, str) else value

    return tabulate([[cell(c) for c in row] for row in rows], headers=[cell(h) for h in headers],
                    tablefmt="pipe", disable_numparse=True)


def html_marks(table: str, titles: list[str]) -> str:
    """An HTML table (tabulate's, cells escaped) with the ⚠ that ends a cell made a span
    of class "degenerate" whose title is the cell's (``titles``, in reading order)."""
    from ..experiment.degeneracy import MARK

    pending = iter(titles)

    def span(match):
        title = next(pending, "holds tasks flagged degenerate (see the ⚠ note)")
        return (f' <span class="degenerate" title="{html.escape(title)}">{MARK}'
                f"</span>{match.group(1)}</td>")

    return re.sub(f" {MARK}( *)</td>", span, table)


def join_pages(pages: list):
    """Several pages (one per metric) as one: the DataFrames of csv one under the other
    under one header, the sections of the other formats one after the other (a blank
    line between tables, as between experiments). One page is returned as it is."""
    if len(pages) == 1:
        return pages[0]
    import pandas as pd

    if all(isinstance(page, pd.DataFrame) for page in pages):
        return pd.concat(pages, ignore_index=True)
    return [section for page in pages for section in page]


def listing(rows: list[dict], columns: list[str], fmt: str) -> str:
    """``rows`` (dicts) as a table of ``columns``, in one of LISTING_FORMATS: plain
    (tabulate's simple columns) or md; cells as given, never read as numbers."""
    from tabulate import tabulate

    if fmt not in LISTING_FORMATS:
        from ..errors import ObliqError

        raise ObliqError(f"unknown format {fmt!r}; choose one of {', '.join(LISTING_FORMATS)}")
    return tabulate([[row[c] for c in columns] for row in rows], headers=columns,
                    tablefmt="pipe" if fmt == "md" else "simple", disable_numparse=True)


def section(title: str | None, blocks) -> list:
    """``blocks`` under a heading ``title`` (none without one)."""
    return ([Heading(title)] if title else []) + list(blocks)


def md_table(rows, headers) -> str:
    """One md table (a page of one ``Table``), for text that sets it among its own lines."""
    return render([[Table(headers, rows)]], "md")
