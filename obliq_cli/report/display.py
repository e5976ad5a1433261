"""What ``Results.table()`` and ``Results.stats()`` give back: the tables as an object that
prints as the command line does and shows itself in a notebook.

The object holds what ``render.render`` takes (a page, or the frame that csv writes) and
the format asked for. ``str()`` is the text of that format, the very string ``obliq
table`` / ``obliq stats`` print, so ``print(results.table())`` is unchanged; ``repr()`` is
the same text, so a plain Python prompt shows the table rather than one escaped line.
IPython and Jupyter call ``_repr_html_`` and ``_repr_markdown_`` (IPython's display
protocol), which render the same page as html and md, whatever format was asked;
``to_frame()`` gives the numbers as a DataFrame (``--format csv``'s rows).
"""

from __future__ import annotations

from collections.abc import Callable

from .render import render


class TableOutput:
    """A page of tables in one format, with its numbers.

    ``page``: what ``render.render`` takes (a list of sections, or a DataFrame for csv);
    ``fmt``: the format ``str()`` gives (``render.FORMATS``); ``numbers``: a function of
    no argument returning the DataFrame of the same numbers, called on the first
    ``to_frame()`` only (a notebook that shows a table need not compute its frame).
    """

    def __init__(self, page, fmt: str, numbers: Callable):
        self.page = page
        self.fmt = fmt
        self._numbers = numbers
        self._rendered: dict[str, str] = {}
        self._frame = None

    def render(self, fmt: str) -> str:
        """The page as ``fmt`` (rendered once per format)."""
        if fmt not in self._rendered:
            self._rendered[fmt] = render(self.page, fmt)
        return self._rendered[fmt]

    def __str__(self) -> str:
        return self.render(self.fmt)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.render("html")

    def _repr_markdown_(self) -> str:
        return self.render("md")

    def to_frame(self):
        """The numbers of the page as a DataFrame (a copy: the caller may change it)."""
        if self._frame is None:
            self._frame = self._numbers()
        return self._frame.copy()


def results_page(results, table: list) -> list:
    """What a ``Results`` shows in a notebook: a section per experiment saying what it
    holds (its config, datasets, algorithms, tasks finished and failed, the cells holding
    tasks flagged degenerate, ``analysis.results.Results.flagged``), then ``table``, the
    page of ``Results.table()``."""
    from .render import Heading, Table

    flagged = results.flagged()
    page = []
    for experiment in results.experiments():
        meta, rows = experiment.meta, experiment.rows
        config = meta.get("config") or {}
        datasets = [d.get("label") for d in config.get("datasets", [])]
        algorithms = [a.get("label") for a in config.get("algorithms", [])]
        protocol = (config.get("protocol") or {}).get("name", "?")
        planned = len(meta.get("task_identities") or rows)
        ok = int((rows["status"] == "ok").sum())
        failed = int((rows["status"] != "ok").sum())
        cells = flagged[flagged["experiment"] == experiment.name]
        # a two-column table rather than lines of text: markdown would run lines together
        facts = [["config", f"{meta.get('config_path', '?')} (protocol {protocol}, seed "
                            f"{config.get('seed', '?')})"],
                 ["datasets", f"{len(datasets)}: {', '.join(map(str, datasets))}"],
                 ["algorithms", f"{len(algorithms)}: {', '.join(map(str, algorithms))}"],
                 ["tasks", f"{ok} finished, {failed} failed, "
                           f"{max(planned - ok - failed, 0)} not run, of {planned}"],
                 ["cells with flagged tasks", str(len(cells) or "none")]]
        blocks = [Heading(f"obliq results: {experiment.name}"), Table(["", ""], facts)]
        if len(cells):
            blocks.append(Table(["dataset", "algorithm", "flagged tasks", "flags"], [
                [c.dataset, c.algorithm, f"{c.n_flagged} of {c.n_tasks}",
                 c.flags.replace(";", ", ")] for c in cells.itertuples(index=False)]))
        page.append(blocks)
    return page + table
