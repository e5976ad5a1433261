"""``obliq claims``' page: the claims' verdicts (``analysis.claims``, whose docstring gives
every kind and verdict rule) rendered as md, latex, html or csv."""

from __future__ import annotations

import pandas as pd

from ..analysis.claims import (
    CSV_COLUMNS,
    FAILS,
    HOLDS,
    PARTLY,
    UNTESTABLE,
    Claim,
    check_claims,
)
from .render import Table, Text, check_format, render

RULES = ("Each paper's claims, quoted with their section, checked against these results "
         "with the test the paper itself uses (`obliq claims`; the claims are data in "
         "obliq_cli/configs/references/claims/, the rules in obliq_cli/analysis/claims.py). A "
         "win is a dataset where the claimed algorithm is better than every algorithm it is "
         "compared with, a loss one where it is worse than any. *Better*: holds when wins > "
         "losses and the share of wins is at least the paper's own (without the paper's "
         "counts: wins on every dataset, on most, or more wins than losses, as the claim "
         "says); *as good*: holds when losses <= wins or their share is at most the paper's "
         "own; *ranks*: holds when every claimed algorithm has a better Friedman average "
         "rank than every other named; *speed*: holds when on every dataset the median of "
         "the per-task ratios of fit CPU times of the same run is within the claimed bounds "
         "(wall fit times for results without CPU times, as the evidence then says). A "
         "claim read against each algorithm alone holds when it holds against every one. "
         "*Partly*: it holds against some of the algorithms compared, or wins > losses "
         "short of the claim.")


def _quote(claim: Claim) -> str:
    return f"“{claim.quote}”"


NO_CLAIMS = "No claim of the papers concerns the experiments here."
HEADERS = ["paper", "section", "claim", "experiment", "verdict", "evidence"]


def claims_page(rows: list[tuple]) -> list:
    """``obliq claims``' page (``render.render``): the rules, a row per claim (paper,
    section, quote, experiment, verdict, evidence; a ``|`` in a cell written ``/``) and the
    verdicts counted. ``tools/docs.py`` renders the same page from the committed summary."""
    if not rows:
        return [[Text(NO_CLAIMS)]]
    counts = pd.Series([row[4] for row in rows]).value_counts()
    tally = ", ".join(f"{v} {int(counts.get(v, 0))}" for v in (HOLDS, PARTLY, FAILS,
                                                                 UNTESTABLE))
    return [[Text(RULES), Table(HEADERS, [[cell.replace("|", "/") for cell in row]
                                          for row in rows]),
             Text(f"{len(rows)} claims: {tally}.")]]


def claim_row(claim: Claim, verdict: str, evidence: str) -> tuple:
    """A claim's row of ``claims_page``."""
    return (claim.paper, claim.section, _quote(claim), claim.experiment or "-", verdict,
            evidence)


def render_claims(paths, claim_files=(), fmt: str = "md") -> str:
    """``obliq claims``: md, latex or html (``claims_page``) or csv (CSV_COLUMNS)."""
    check_format(fmt)
    outcomes = check_claims(paths, claim_files)
    if fmt == "csv":
        rows = []
        for o in outcomes:
            c = o.claim
            rows.append([c.paper, c.id, c.section, c.quote, c.experiment, c.kind,
                         "" if c.kind in ("not_testable", "time_ratio", "faster") else
                         "friedman" if c.kind == "rank_above" else c.test, o.verdict, o.unit,
                         o.wins, o.ties, o.losses, o.n, c.paper_counts.get("wins"),
                         c.paper_counts.get("losses"), c.paper_counts.get("of"), o.evidence])
        frame = pd.DataFrame(rows, columns=CSV_COLUMNS)
        for column in ("wins", "ties", "losses", "n", "paper_wins", "paper_losses",
                       "paper_of"):
            frame[column] = frame[column].astype("Int64")
        return render(frame, fmt)
    return render(claims_page([claim_row(o.claim, o.verdict, o.evidence)
                               for o in outcomes]), fmt)


__all__ = ["claims_page", "claim_row", "render_claims"]
