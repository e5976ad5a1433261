"""report/render.py: the one renderer of every table, its one list of formats, and the
commands whose --format choices come from it."""

import pandas as pd
import pytest

from obliq_cli.cli import main
from obliq_cli.errors import ObliqError
from obliq_cli.report.agreement import agreement_page, summary_page, tally_row
from obliq_cli.report.claims import NO_CLAIMS, claims_page
from obliq_cli.report.render import (
    FORMATS,
    Heading,
    Plain,
    Table,
    Text,
    md_table,
    render,
    section,
)

PAGE = [section("exp", [Text("caption"), Table(["a", "b ± c"], [["x|y", "1 ⚠"]],
                                               ["1 of 2 tasks flagged"]),
                        Text("note one", "note two")]),
        [Plain("other: no finished task yet")]]


def test_md_page_by_hand():
    # blocks apart by a blank line, a Text's lines one under the other, a | in a cell
    # escaped; sections apart by a blank line
    assert render(PAGE, "md") == (
        "### exp\n\ncaption\n\n"
        "| a    | b ± c   |\n|:-----|:--------|\n| x\\|y | 1 ⚠     |\n\n"
        "note one\nnote two\n\nother: no finished task yet")


def test_html_page_escapes_and_titles_the_marks():
    text = render(PAGE, "html")
    lines = text.split("\n")
    assert lines[:2] == ["<h3>exp</h3>", "<p>caption</p>"]
    assert '<span class="degenerate" title="1 of 2 tasks flagged">⚠</span>' in text
    assert text.endswith("<p>note one</p>\n<p>note two</p>\n\nother: no finished task yet")
    assert "<td>x|y</td>" in text


def test_latex_page_comments_the_text_and_swaps_our_symbols():
    text = render(PAGE, "latex")
    assert text.startswith("% exp\n% caption\n\\begin{tabular}")
    assert r"b $\pm$ c" in text and r"1 \textbf{!}" in text and "⚠" not in text
    assert text.endswith("% note one\n% note two\n\nother: no finished task yet")


def test_a_frame_is_a_table_and_csv_writes_exact_floats():
    frame = pd.DataFrame({"x": ["a"], "v": [0.1 + 0.2]})
    assert render(frame, "csv") == "x,v\na,0.30000000000000004\n"
    assert render(frame, "md") == md_table([["a", "0.30000000000000004"]], ["x", "v"])


def test_unknown_format_and_csv_of_a_page_fail():
    with pytest.raises(ObliqError, match="unknown format 'pdf'; choose one of md, latex"):
        render(PAGE, "pdf")
    with pytest.raises(TypeError):
        render(PAGE, "csv")
    assert issubclass(ObliqError, ValueError)


def test_every_table_command_offers_the_one_list():
    for name in ("table", "stats", "agree", "claims"):
        option = next(p for p in main.commands[name].params if p.name == "fmt")
        assert tuple(option.type.choices) == FORMATS, name


def test_agree_and_claims_pages_in_every_format():
    tally = [tally_row("e", "A", "tpr:1", "tpr", 3, 4, 0.25, 2)]
    assert tally[0] == ["e", "A", "tpr:1 (reads tpr; not counted)", "3/4", "0.25"]
    page = agreement_page(tally, ["- e: 3 of 4 cells within tolerance"], [])
    md = render(page, "md")
    assert md.endswith("- e: 3 of 4 cells within tolerance\n\nMisses: none.")
    assert "<p>Misses: none.</p>" in render(page, "html")
    summary = summary_page([["e", "5", "1 min", "A 3/4"]], ["fit_time"])
    assert render(summary, "latex").endswith(
        "% fit_time: not compared (times depend on the machine).")
    assert render(claims_page([]), "md") == NO_CLAIMS
    rows = [("P", "§1", "“q”", "e", "holds", "a|b")]
    text = render(claims_page(rows), "md")
    assert "| a/b " in text and text.endswith(
        "1 claims: holds 1, partly 0, does not hold 0, not testable here 0.")


def test_blocks_are_values():
    assert Text("a", "b").lines == ("a", "b") and Heading("t") == Heading("t")
    assert section(None, [Plain("x")]) == [Plain("x")]
