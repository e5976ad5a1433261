"""What ``Results.table()``, ``Results.stats()`` and a ``Results`` show (report/display.py):
the text the command line prints for ``str()``, the same page as html and md for IPython's
display protocol, and the numbers on ``to_frame()``. The run is tests/conftest.py's
``flagged_run``: FULL clean, STUMP and DUMMY flagged on all 6 tasks of both datasets."""

import re

import html5lib
import pandas as pd
import pytest
from test_flags_shown import md_rows

import obliq_cli
from obliq_cli.report.display import TableOutput
from obliq_cli.report.render import Heading, Table, Text, render
from obliq_cli.report.significance import render_stats
from obliq_cli.report.tables import render_tables

PAGE = [[Heading("e <1>"), Text("caption"), Table(["a", "b|c"], [["x", "1.00 ⚠"]],
                                                 ["1 of 1 tasks flagged"])]]


def strict_fragment(text):
    """``text`` through html5lib's strict parser (any parse error raises)."""
    return html5lib.HTMLParser(strict=True).parseFragment(text)


def test_a_table_output_prints_its_format_and_shows_html_and_md():
    calls = []

    def numbers():
        calls.append(1)
        return pd.DataFrame({"a": ["x"], "mean": [1.0]})

    shown = TableOutput(PAGE, "latex", numbers)
    assert str(shown) == repr(shown) == render(PAGE, "latex")
    assert shown._repr_markdown_() == render(PAGE, "md")
    assert "| x   | 1.00 ⚠ |" in shown._repr_markdown_()
    html = shown._repr_html_()
    assert html == render(PAGE, "html")
    assert "<h3>e &lt;1&gt;</h3>" in html and 'title="1 of 1 tasks flagged"' in html
    strict_fragment(html)
    # the numbers are computed on the first to_frame() only, and each caller gets a copy
    assert calls == []
    first = shown.to_frame()
    first.loc[0, "mean"] = 5.0
    assert shown.to_frame()["mean"].tolist() == [1.0] and calls == [1]


def test_a_csv_table_output_shows_its_frame_as_an_html_table():
    frame = pd.DataFrame({"dataset": ["d"], "mean": [0.1]})
    shown = TableOutput(frame, "csv", lambda: frame)
    assert str(shown) == "dataset,mean\nd,0.1\n"
    assert "<td>d        </td><td>0.1   </td>" in shown._repr_html_()


@pytest.fixture(scope="module")
def results(flagged_run):
    return obliq_cli.load_results(flagged_run[1])


def test_table_and_stats_print_what_the_command_line_prints(results, flagged_run):
    out = flagged_run[1]
    table = results.table()
    assert str(table) == render_tables([out])
    assert table._repr_html_() == render_tables([out], fmt="html")
    pd.testing.assert_frame_equal(table.to_frame(), results.table(frame=True))
    stats = results.stats()
    assert str(stats) == render_stats([out])
    assert stats._repr_html_() == render_stats([out], fmt="html")
    pd.testing.assert_frame_equal(stats.to_frame(), results.stats(frame=True))


def test_results_show_a_summary_then_their_table(results):
    text = results._repr_markdown_()
    summary = text.split("\n\n", 2)
    assert summary[0] == "### obliq results: degenerate"
    facts = {line.split("|")[1].strip(): line.split("|")[2].strip()
             for line in summary[1].splitlines()[2:]}
    # 2 datasets x 3 algorithms x 2 repetitions x 3 folds, all finished
    assert facts["datasets"] == "2: test-iris, test-wine"
    assert facts["algorithms"] == "3: FULL, STUMP, DUMMY"
    assert facts["tasks"] == "36 finished, 0 failed, 0 not run, of 36"
    assert facts["cells with flagged tasks"] == "4"
    flagged = md_rows(summary[2])
    stump, dummy = ("at_majority, one_leaf, constant_predictions",
                    "at_majority, constant_predictions")
    assert [tuple(r.values()) for r in flagged] == [
        ("test-iris", "STUMP", "6 of 6", stump), ("test-iris", "DUMMY", "6 of 6", dummy),
        ("test-wine", "STUMP", "6 of 6", stump), ("test-wine", "DUMMY", "6 of 6", dummy)]
    assert text.endswith(results.table()._repr_markdown_())
    html = results._repr_html_()
    assert html.endswith(results.table()._repr_html_())
    # tabulate pads a cell to its column's width, which a long config path widens
    assert re.search(r"<td>\s*36 finished, 0 failed, 0 not run, of 36\s*</td>", html)
    strict_fragment(html)


def test_the_summary_counts_failed_and_missing_tasks(results):
    runs = results.runs.copy()
    runs.loc[runs.index[0], "status"] = "error"
    partial = obliq_cli.api.Results(results.paths, runs.iloc[:-1], results.metas)
    facts = partial._repr_markdown_().split("\n\n", 2)[1]
    assert "| 34 finished, 1 failed, 1 not run, of 36" in facts
