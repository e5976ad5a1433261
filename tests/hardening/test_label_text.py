"""Labels are user text: whatever they hold, a markdown table keeps its columns."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))

from test_report import hand_rows, write_results  # noqa: E402

from obliq_cli.report.significance import render_stats  # noqa: E402
from obliq_cli.report.tables import render_tables  # noqa: E402

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def _pipe_lines(text):
    return [line for line in text.splitlines() if line.startswith("|")]


def test_a_pipe_in_a_label_does_not_add_a_column(tmp_path):
    rows = [r for a in ("x|y", "B") for d in ("d|1", "d2") for r in hand_rows(a, d)]
    folder = write_results(tmp_path / "e", rows, algorithms=["x|y", "B"],
                           datasets=["d|1", "d2"])
    for text in (render_tables([folder]), render_tables([folder], layout="long"),
                 render_stats([folder])):
        lines = _pipe_lines(text)
        assert lines and r"x\|y" in text
        for table in re.split(r"\n\s*\n", text):  # each table has one width
            widths = {len(UNESCAPED_PIPE.findall(line)) for line in _pipe_lines(table)}
            assert len(widths) <= 1, table
