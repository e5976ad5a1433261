"""``obliq claims``: the papers' headline claims, checked against our runs.

``obliq agree`` counts table cells; this module checks what the papers conclude from their
tables. The claims are data, not code: one YAML file per paper
(``obliq_cli/configs/references/claims/*.yaml``, beside the reference tables) quotes each
claim verbatim with its section and states it as one of a few kinds with parameters; one
evaluator here reads every kind. A claim is checked with the test its paper uses:

- the paired t-test over the shared folds at alpha (UMT §3.1: "k-fold paired t test
  (alpha = 0.05)"), or any other per-fold test of ``stats.TESTS`` (``--test`` of ``obliq
  stats``);
- ``sd_difference``: a difference larger than ``sds`` times the sd of the difference of the
  two averages, sqrt(sd1² + sd2²) of their sds over the repetitions (HHCART §4.1.1
  "significantly (more than 2 standard deviations) higher", §4.1.2 "more than one standard
  deviation": the one reading of whose sd that names exactly the datasets the paper names
  in its Tables 2 and 5, see claims/hhcart.yaml);
- ``sd_gap``: a difference larger than ``sds`` times the larger of the two sds;
- ``sd_intervals``: the intervals mean ± ``sds`` × sd do not overlap, a difference larger
  than ``sds`` × (sd1 + sd2) (GDT §IV: "the confidence interval ... one standard deviation
  on either side of the average ... significantly better ... if the confidence intervals
  ... [are] completely to the right");
- ``means``: the means alone, as ``obliq table`` prints them (APDT, which states no test);
- Friedman's average ranks with Nemenyi's critical difference (Demšar 2006) where a paper
  ranks (HHCART Table 3);
- for speed claims, per-task ratios of fit CPU times measured in the same run.

Kinds (the parameters each takes are in KINDS):

``significantly_better_count`` / ``better_means``
    ``algorithm`` better than every ``versus`` on a dataset (every pair marked better by
    the test; with several metrics, on each) is a win; worse than any is a loss. Holds when
    wins > losses and, when the claim gives the paper's own counts (``paper_counts``), the
    share of wins is at least the paper's; without them ``over`` says what is claimed: all
    datasets won, most (more than half), or net (wins > losses, the default). Partly when
    the joint count falls short but wins > losses, or the condition holds against some of
    the ``versus`` alone. ``better_means`` is the same with ``test: means``. ``against:
    each`` reads the claim against each ``versus`` alone (every metric together on a
    dataset): holds when the condition holds against every one, partly against some; the
    counts are then of (algorithm, versus) pairs.
``at_least_as_good``
    No worse: holds when losses <= wins, or the share of losses is at most the paper's own
    (the paper called its own counts "as good"); ``over: all`` asks for no loss at all.
    Partly when it holds against some of the ``versus`` alone.
``rank_above``
    Friedman's average ranks of the metric over the datasets: holds when every
    ``algorithm`` ranks better than every ``versus``, partly when some pairs do.
    ``metric`` may map each dataset to its own metric (the minority class's tpr:K).
``time_ratio`` / ``faster``
    A dataset's ratio is the median, over the (repetition, fold) tasks both finished in
    the same run, of the per-task ratio ``fit_cpu`` of ``algorithm`` / ``fit_cpu`` of
    ``versus``: CPU seconds, with the kernels' compilation outside them (schema.py,
    Times), so a verdict reads the same on a fresh clone and a warm rerun, idle and under
    load. Results written before ``fit_cpu`` existed are read by their wall-clock
    ``fit_time`` instead, and the evidence says so. Holds when every dataset's ratio lies
    in ``between`` ([low, high], either may be null; ``over: most`` asks for more than
    half), partly when some do. ``faster``: ratio <= 1 / ``factor`` (default 1). A ratio
    within ``TIME_NOISE`` (a factor 1.25) of a bound could fall on either side of it in
    another run, so it counts as a tie, and the verdict is the one given whichever side
    such ratios fall on, else partly: a verdict does not turn over with the machine's
    load. On a paper's own table (below) a dataset's ratio is that of the table's mean
    fit times.
``not_testable``
    A claim quoted for completeness that these runs cannot test; ``why`` says why.

A results folder lacking what a claim needs (the experiment, an algorithm, a metric, two
repetitions for an sd, two folds for a 5x2 test) gives "not testable here (why)", never an
error. Only the papers with at least one experiment among the results are listed. A margin
equal to its threshold up to rounding (1e-9 relative) is no difference.

The paper's own numbers. Every claim is also evaluated on its paper's own table
(``evaluate_on_paper``): the reference file of its experiment, read by ``paper_numbers``
into the per (dataset, algorithm) means and sds the evaluators read from runs
(``TableNumbers`` beside ``RunNumbers``). Means, sd rules, ranks and the table's fit times
can be checked there; a per-fold test cannot. A claim's encoding gives "holds" there, or
its ``own_table`` says why not (the paper's text contradicts its table, the table lacks
what the claim needs); ``paper_methods`` maps a label of ours the config does not compare
with the paper to the paper's method (tests/report/test_claims_own_tables.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ObliqError
from ..experiment.degeneracy import cells_text
from ..experiment.protocols import measured_per_task
from ..fields import REQUIRED, Key, in_scope, located, mapping_problems, suggest
from ..parameters import (
    MAX_COUNT,
    MAX_REAL,
    Described,
    Integral,
    Interval,
    ListOf,
    MappingOf,
    Real,
    StrOptions,
    several_problems,
    short_repr,
    violations,
)
from ..parameters import Text as _Text
from ..resources import shipped_path
from ..yaml_input import line_of, load_yaml
from .aggregate import (
    as_single_folds,
    check_metric,
    flag_counts,
    pooled_by_paper,
    summarise,
)
from .results import Results
from .stats import COPIED_FITS, TESTS, compare_to, dataset_scores, friedman_test
from .tables import flagged_cells

HOLDS, PARTLY, FAILS, UNTESTABLE = "holds", "partly", "does not hold", "not testable here"
SD_TESTS = ("sd_gap", "sd_intervals", "sd_difference")
MEANS = "means"
OVER = ("net", "most", "all")
AGAINST = ("all", "each")
CSV_COLUMNS = ["paper", "claim", "section", "quote", "experiment", "kind", "test", "verdict",
               "unit", "wins", "ties", "losses", "n", "paper_wins", "paper_losses",
               "paper_of", "evidence"]

# The kinds of claim, in the order errors list them (each kind's fields: ClaimKey.kinds).
KIND_NAMES = ("significantly_better_count", "better_means", "at_least_as_good", "rank_above",
              "time_ratio", "faster", "not_testable")
_CPU, _WALL = "fit_cpu", "fit_time"  # what speed claims compare, and the fallback


class NotTestable(Exception):
    """What a claim needs and the results lack (said in the verdict, never raised out)."""


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, as its file states it (see the module docstring)."""

    paper: str
    source: str                      # "<file>: claims[i]" for error lines
    id: str
    section: str
    quote: str
    kind: str
    experiment: str = ""
    algorithms: tuple = ()
    versus: tuple = ()
    metrics: tuple = ()              # names; empty when metric_by_dataset is given
    metric_by_dataset: dict = field(default_factory=dict)
    datasets: tuple = ()
    test: str = MEANS
    alpha: float = 0.05
    sds: float = 1.0
    over: str = "net"
    against: str = "all"
    paper_counts: dict = field(default_factory=dict)
    paper_ranks: dict = field(default_factory=dict)
    between: tuple = (None, None)
    note: str = ""
    why: str = ""
    own_table: str = ""
    paper_methods: dict = field(default_factory=dict)


@dataclass
class Outcome:
    """A claim's verdict with its one-line evidence and the counts behind it."""

    claim: Claim
    verdict: str
    evidence: str
    unit: str = ""
    wins: int | None = None
    ties: int | None = None
    losses: int | None = None
    n: int | None = None


# --- reading the claims files ---------------------------------------------------------------

def shipped_claims() -> list[Path]:
    """The shipped claims files, one per paper, in name order."""
    return sorted(shipped_path("configs", "references", "claims").glob("*.yaml"))


# Every key of a claims file, declared once (fields.Key: scope, about, check, default):
# the reader takes from here the keys each kind of claim allows and requires and the
# constraint each value is checked with (parameters.py's objects); the rules that tie
# fields together are in _claim_rules. A finite positive number is a factor or a count of
# sds: .inf would make every difference "within" the sds and every ratio pass.
_POSITIVE = Interval(Real, 0, MAX_REAL, closed="neither")
_TEXT = Described([_Text()], "must be a non-empty text")
_NAMES = Described([_Text(), ListOf(_Text())], "must be a name or a list of names")
_FACTOR = Described([_POSITIVE], f"must be a finite number > 0 (at most {MAX_REAL:g})")
_TESTS = (*TESTS, *SD_TESTS, MEANS)
_COUNTS = ("significantly_better_count", "better_means", "at_least_as_good")
_TESTED = ("significantly_better_count", "at_least_as_good")
_COMPARED = (*_COUNTS, "rank_above")
_SPEED = ("time_ratio", "faster")
_PAIRED = (*_COMPARED, *_SPEED)  # every kind but not_testable


def _one_of(options) -> Described:
    return Described([StrOptions(set(options))], f"must be one of {', '.join(options)}")


@dataclass(frozen=True)
class ClaimKey(Key):
    """A key of a claim entry (scope ``claim``) or of the file (scope ``file``); a claim's
    key belongs to the ``kinds`` named (none named: every kind) and is required by those
    of ``needed_by`` (besides a ``default`` of REQUIRED: by every kind)."""

    kinds: tuple = ()
    needed_by: tuple = ()


CLAIM_KEYS: tuple[ClaimKey, ...] = (
    # the file
    ClaimKey("paper", "file", "the paper's short name, as tables print it", _TEXT,
             default=REQUIRED),
    ClaimKey("source", "file", "the paper's citation", _TEXT),
    ClaimKey("claims", "file", "the claims, each a claim entry",
             takes="a non-empty list", default=REQUIRED),
    # every claim
    ClaimKey("id", "claim", "the claim's name, unique in the file", _TEXT, default=REQUIRED),
    ClaimKey("section", "claim", "where the paper says it", _TEXT, default=REQUIRED),
    ClaimKey("quote", "claim", "the paper's words, verbatim", _TEXT, default=REQUIRED),
    ClaimKey("experiment", "claim", "the shipped config whose results test it", _TEXT,
             needed_by=_PAIRED),
    ClaimKey("kind", "claim", "what is claimed and how it is checked", _one_of(KIND_NAMES),
             default=REQUIRED),
    ClaimKey("note", "claim", "what the encoding reads into the quote", _TEXT),
    ClaimKey("own_table", "claim", "why the claim does not hold on the paper's own table",
             _TEXT),
    # the claims that compare
    ClaimKey("algorithm", "claim", "the claimed algorithm(s), by label", _NAMES,
             kinds=_PAIRED, needed_by=_PAIRED),
    ClaimKey("versus", "claim", "the algorithms it is compared with", _NAMES,
             kinds=_PAIRED, needed_by=_PAIRED),
    ClaimKey("metric", "claim", "what is compared (rank_above: also dataset -> metric)",
             Described([_Text(), ListOf(_Text()), MappingOf(_Text())],
                       "must be a metric, a list of metrics or a mapping of dataset -> "
                       "metric"), kinds=_COMPARED, needed_by=_COMPARED),
    ClaimKey("datasets", "claim", "the datasets the claim is about", _NAMES, kinds=_PAIRED,
             shown="all"),
    ClaimKey("paper_methods", "claim", "our label -> the paper's method, for its own table",
             Described([MappingOf(_Text())], "must map our label -> the paper's method"),
             kinds=_PAIRED),
    ClaimKey("test", "claim", "the paper's test of a difference", _one_of(_TESTS),
             kinds=_TESTED, needed_by=_TESTED, default=MEANS),
    ClaimKey("alpha", "claim", "the test's level",
             Described([Interval(Real, 0, 1, closed="neither")],
                       "must be a number between 0 and 1"),
             kinds=(*_TESTED, "rank_above"), default=0.05),
    ClaimKey("sds", "claim", "how many sds an sd test asks for", _FACTOR, kinds=_TESTED,
             default=1.0),
    ClaimKey("paper_counts", "claim", "the paper's own wins and losses of its datasets",
             Described([MappingOf(Interval(Integral, 0, MAX_COUNT, closed="both"))],
                       "must be {wins, losses, of}, each a count >= 0"), kinds=_COUNTS),
    ClaimKey("over", "claim", "on how many datasets the claim must hold", _one_of(OVER),
             kinds=(*_COUNTS, *_SPEED), shown="net (a speed claim: all)"),
    ClaimKey("against", "claim", "the versus together or each alone", _one_of(AGAINST),
             kinds=("significantly_better_count", "better_means"), default="all"),
    # an average rank is at least 1; that it is at most the number ranked is a rule
    ClaimKey("paper_ranks", "claim", "the paper's average ranks",
             Described([MappingOf(Interval(Real, 1, MAX_REAL, closed="both"))],
                       "must map algorithm -> average rank (a finite number >= 1)"),
             kinds=("rank_above",)),
    ClaimKey("between", "claim", "the bounds of the fit-time ratio",
             Described([ListOf(Described([_POSITIVE, None], "a number or null"), 2, 2)],
                       "must be [low, high], each a finite number > 0 or null"),
             kinds=("time_ratio",), needed_by=("time_ratio",)),
    ClaimKey("factor", "claim", "how many times faster", _FACTOR, kinds=("faster",),
             default=1),
    ClaimKey("why", "claim", "why these runs cannot test it", _TEXT,
             kinds=("not_testable",), needed_by=("not_testable",)),
)
FILE_KEYS = in_scope(CLAIM_KEYS, "file")
CLAIM_FIELDS = in_scope(CLAIM_KEYS, "claim")
# What each field may hold (parameters.violations' form) and which fields each kind takes
FIELDS: dict[str, list] = {k.name: [k.check] for k in CLAIM_FIELDS.values()}
_COMMON = {k.name for k in CLAIM_FIELDS.values() if not k.kinds}
KINDS: dict[str, set[str]] = {kind: {k.name for k in CLAIM_FIELDS.values()
                                     if k.kinds and kind in k.kinds}
                              for kind in KIND_NAMES}


def _declared(kind: str) -> dict[str, Key]:
    """The keys a claim of ``kind`` takes."""
    return {n: k for n, k in CLAIM_FIELDS.items() if not k.kinds or kind in k.kinds}


def _required(kind: str) -> list[str]:
    return [n for n, k in _declared(kind).items()
            if k.default is REQUIRED or kind in k.needed_by]


def _default(name: str):
    return CLAIM_FIELDS[name].default


def _metric_problem(name: str) -> str | None:
    try:
        check_metric(name.removesuffix("@best"))
    except ObliqError as exc:
        return str(exc)
    return None


def _counts_problem(value: dict) -> str | None:
    if "of" not in value or not set(value) <= {"wins", "losses", "of"}:
        return ("must be {wins, losses, of} with of (the paper's datasets) and wins or "
                "losses")
    if value["of"] < 1 or max(value.get("wins", 0), value.get("losses", 0)) > value["of"]:
        return f"counts must not exceed of = {value['of']} (>= 1)"
    return None


def _as_tuple(value) -> tuple:
    return (value,) if isinstance(value, str) else tuple(value)


def _decimals(value: float) -> int:
    """The decimals a number was printed with (2.4: 1, 3 and 3.0: 0)."""
    text = repr(float(value))
    return 0 if "e" in text else len(text.split(".")[1].rstrip("0"))


def _ranks_problem(ranks: dict, labels: tuple) -> str | None:
    """What makes the paper's average ranks of ``labels`` impossible: a name the claim
    does not rank, a rank beyond the number ranked, or ranks of all of them that do not
    add up to 1 + 2 + ... + n (Demšar 2006 §3.2.2: ranks of n methods on each dataset are
    1..n, ties sharing the mean) beyond the rounding of their printed decimals."""
    n = len(labels)
    stray = [a for a in ranks if a not in labels]
    if stray:
        return f"{stray[0]!r} is none of the claim's algorithms and versus"
    beyond = [(a, r) for a, r in ranks.items() if r > n]
    if beyond:
        return (f"{beyond[0][0]} {beyond[0][1]:g} is beyond the {n} methods ranked (ranks "
                f"run from 1 to {n})")
    if len(ranks) == n:
        total, expected = sum(ranks.values()), n * (n + 1) / 2
        slack = n * 0.5 * 10.0 ** -min(_decimals(r) for r in ranks.values())
        if abs(total - expected) > slack + 1e-9:
            return (f"ranks of {n} methods add up to {expected:g}, these to {total:g}: "
                    f"they contradict each other")
    return None


def _claim_rules(entry: dict, kind: str, ok) -> list[tuple[str, str]]:
    """(field, problem) for what the fields' declarations cannot say alone: the rules that
    tie them together. ``ok(name)``: the field is given and its declaration holds."""
    out = []
    if ok("metric"):
        metric = entry["metric"]
        if isinstance(metric, dict):
            if kind != "rank_above":
                out.append(("metric", "a mapping of dataset -> metric is for rank_above "
                                      "only, and not empty"))
            bad = [(d, p) for d, p in ((d, _metric_problem(m)) for d, m in metric.items()) if p]
            out += [(f"metric.{d}", p) for d, p in bad]
            if not bad and len({check_metric(m.removesuffix("@best")).higher
                                for m in metric.values()}) > 1:
                out.append(("metric", "the datasets' metrics must all be better higher, or "
                                      "all lower, to be ranked together"))
            if "datasets" in entry:
                out.append(("datasets", "not with a per-dataset metric (its datasets are "
                                        "the metric's keys)"))
        else:
            out += [("metric", p) for p in map(_metric_problem, _as_tuple(metric)) if p]
    if kind == "significantly_better_count" and ok("test") and entry["test"] == MEANS:
        out.append(("test", "means are no significance test; the kind for a claim on means "
                            "is better_means"))
    if ok("algorithm") and ok("versus"):
        itself = [a for a in _as_tuple(entry["algorithm"]) if a in _as_tuple(entry["versus"])]
        if itself:
            out.append(("versus", f"{itself[0]} is also the algorithm: a claim never "
                                  f"compares a method with itself"))
        if ok("paper_ranks"):
            labels = tuple(dict.fromkeys(_as_tuple(entry["algorithm"])
                                         + _as_tuple(entry["versus"])))
            problem = _ranks_problem(entry["paper_ranks"], labels)
            if problem:
                out.append(("paper_ranks", problem))
    if ok("paper_counts"):
        problem = _counts_problem(entry["paper_counts"])
        if problem:
            out.append(("paper_counts", problem))
    if ok("between"):
        low, high = entry["between"]
        if low is None and high is None:
            out.append(("between", "must be [low, high] (either may be null, not both)"))
        elif low is not None and high is not None and low > high:
            out.append(("between", f"low {low:g} > high {high:g}"))
    return out


def _entry_problems(entry, where: str, at: str = "", lines: dict | None = None) -> list[str]:
    """Every problem of one claim entry, a line each naming ``where``, the field, (when
    it has one) the claim's id and (when ``lines`` knows it) the line of field ``at``."""
    if not isinstance(entry, dict):
        return [_line(where, "", f"must be a mapping (got {short_repr(entry)})", at, lines)]
    named = f" (claim {entry['id']!r})" if _Text().is_satisfied_by(entry.get("id")) else ""
    kind = entry.get("kind")
    problems = violations({"kind": kind}, FIELDS)
    if problems:  # no kind to say which fields belong: the types alone
        problems += violations({k: v for k, v in entry.items() if k != "kind"}, FIELDS)
    else:
        allowed = _declared(kind)
        fields = ", ".join(sorted(allowed))
        refused = mapping_problems(
            entry, allowed, sorted(_required(kind)),
            unknown=lambda name: (f"not a field of kind {kind}{suggest(name, allowed)} "
                                  f"(fields: {fields})"))
        problems += refused
        wrong = {name for name, _ in refused}
        problems += _claim_rules(entry, kind,
                                 lambda name: name in entry and name not in wrong)
    return [_line(where, f".{name}", problem + named, at, lines) for name, problem in problems]


def _line(where: str, field_: str, problem: str, at: str, lines: dict | None) -> str:
    """``where`` + ``field_``: problem, then ``(line N)`` when ``lines`` (yaml_input's)
    knows the line of ``at`` + ``field_`` (a missing key: its entry's)."""
    n = line_of(lines, f"{at}{field_}") if lines and at else None
    return f"{where}{field_}: {problem}" + (f" (line {n})" if n is not None else "")


def _claim(entry: dict, paper: str, where: str) -> Claim:
    """The Claim of an entry ``_entry_problems`` found nothing wrong with."""
    kind = entry["kind"]
    args: dict = dict(paper=paper, source=where, id=entry["id"], section=entry["section"],
                      quote=" ".join(entry["quote"].split()), kind=kind,
                      experiment=entry.get("experiment", ""), note=entry.get("note", ""),
                      why=entry.get("why", ""),
                      own_table=" ".join(entry.get("own_table", "").split()))
    if kind == "not_testable":
        return Claim(**args)
    args["algorithms"] = _as_tuple(entry["algorithm"])
    args["versus"] = _as_tuple(entry["versus"])
    if "datasets" in entry:
        args["datasets"] = _as_tuple(entry["datasets"])
    metric = entry.get("metric")
    if isinstance(metric, dict):
        args["metric_by_dataset"] = {str(d): str(m) for d, m in metric.items()}
    elif metric is not None:
        args["metrics"] = _as_tuple(metric)
    args["test"] = entry.get("test", _default("test"))
    args["alpha"] = float(entry.get("alpha", _default("alpha")))
    args["sds"] = float(entry.get("sds", _default("sds")))
    # a speed claim is about every problem unless it says otherwise; a count, net
    args["over"] = entry.get("over", "all" if kind in ("time_ratio", "faster") else "net")
    args["against"] = entry.get("against", _default("against"))
    if "paper_methods" in entry:
        args["paper_methods"] = dict(entry["paper_methods"])
    if "paper_counts" in entry:
        args["paper_counts"] = dict(entry["paper_counts"])
    if "paper_ranks" in entry:
        args["paper_ranks"] = {a: float(r) for a, r in entry["paper_ranks"].items()}
    if kind == "time_ratio":
        args["between"] = tuple(None if b is None else float(b) for b in entry["between"])
    if kind == "faster":
        args["between"] = (None, 1.0 / float(entry.get("factor", _default("factor"))))
    return Claim(**args)


def parse_claim(entry, paper: str, where: str) -> Claim:
    """One entry of a claims file checked into a Claim; an ObliqError with a line per
    problem (``where``, the field, the claim's id) on anything wrong."""
    problems = _entry_problems(entry, where)
    if problems:
        raise several_problems(problems)
    return _claim(entry, paper, where)


def read_claims(path) -> list[Claim]:
    """The claims of one file: its keys are CLAIM_KEYS' of scope ``file`` (``paper``, a
    short name; optional ``source``, the citation; ``claims``, a non-empty list). Every
    entry is checked and every problem of the file reported at once
    (``several_problems``), a line each naming file, field and line; ids are unique
    within the file."""
    path = Path(path)
    lines: dict = {}
    data = load_yaml(path, lines)
    if not isinstance(data, dict):
        raise ObliqError(f"{path}: must be a mapping with paper (a name) and claims (a "
                         f"non-empty list) (got {short_repr(data)})")
    problems = [located(path, name, problem, lines)
                for name, problem in mapping_problems(data, FILE_KEYS)]
    entries = data.get("claims")
    if "claims" in data and (not isinstance(entries, list) or not entries):
        problems.append(located(path, "claims", f"must be a non-empty list of claims (got "
                                                f"{short_repr(entries)})", lines))
    entries = entries if isinstance(entries, list) else []
    for i, entry in enumerate(entries):
        problems += _entry_problems(entry, f"{path}: claims[{i}]", f"claims[{i}]", lines)
    ids = [e.get("id") if isinstance(e, dict) and isinstance(e.get("id"), str) else None
           for e in entries]
    for i in sorted({i for i in ids if i is not None and ids.count(i) > 1}):
        again = ids.index(i, ids.index(i) + 1)  # the line is the second's
        problems.append(_line(f"{path}: claims", "", f"id {i!r} given twice",
                              f"claims[{again}].id", lines))
    if problems:
        raise several_problems(problems)
    return [_claim(entry, data["paper"], f"{path}: claims[{i}]")
            for i, entry in enumerate(entries)]


# --- the numbers a claim is read from -------------------------------------------------------

def _clock(rows: pd.DataFrame, experiment: str) -> tuple[str, str]:
    """(the time column a speed claim reads, a note): ``fit_cpu`` when every row has it,
    else the wall clock's ``fit_time``, saying why; NotTestable when neither is there."""
    if _CPU in rows.columns and len(rows) and rows[_CPU].notna().all():
        return _CPU, ""
    if _WALL not in rows.columns or rows[_WALL].isna().all():
        raise NotTestable(f"no fit times stored in {experiment}")
    lacking = int(rows[_CPU].isna().sum()) if _CPU in rows.columns else len(rows)
    why = ("these results predate it" if lacking == len(rows)
           else f"{lacking} of these {len(rows)} rows lack it")
    return _WALL, (f"wall-clock {_WALL}, which counts the machine's other work and the "
                   f"kernels' compilation, as there is no {_CPU} ({why})")


class RunNumbers:
    """An experiment's finished tasks (rows of runs.csv with status ok) as the evaluators
    read them: every test, per-fold ones included."""

    def __init__(self, name: str, meta: dict, ok: pd.DataFrame):
        self.name, self.meta, self.ok = name, meta, ok
        self.labels = set(ok["algorithm"])
        self._summaries: dict[str, pd.DataFrame] = {}

    def lacking(self, labels: list[str]) -> str:
        return f"no finished task of {', '.join(labels)} in {self.name}"

    def datasets(self) -> list[str]:
        """The datasets with results, in the config's order."""
        config = [d.get("label") for d in (self.meta.get("config") or {}).get("datasets", [])
                  if isinstance(d, dict)]
        have = set(self.ok["dataset"])
        return [d for d in dict.fromkeys(config + list(pd.unique(self.ok["dataset"])))
                if d in have]

    def summary(self, metric: str) -> pd.DataFrame:
        """Mean and sd per (dataset, algorithm) as ``obliq table`` prints them (per task for
        a protocol whose tasks share one test part; pooled where the paper pools)."""
        if metric not in self._summaries:
            base, best = metric.removesuffix("@best"), metric.endswith("@best")
            pooled = pooled_by_paper(self.meta, base)
            per_task = measured_per_task((self.meta.get("config") or {}).get("protocol")) \
                and not best and not pooled
            self._summaries[metric] = summarise(
                as_single_folds(self.ok) if per_task else self.ok, base, pooled, best)
        return self._summaries[metric]

    def scores(self, metric: str, datasets: list[str], labels: list[str]) -> pd.DataFrame:
        """``stats.dataset_scores`` of ``labels`` on ``datasets``: index dataset, a column
        per label."""
        rows = self.ok[self.ok["algorithm"].isin(labels) & self.ok["dataset"].isin(datasets)]
        return dataset_scores(rows, metric).reindex(columns=labels)

    def flagged(self, labels: list[str], datasets: list[str]) -> list[tuple]:
        """``tables.flagged_cells`` of ``labels`` on ``datasets``: the cells holding tasks
        flagged degenerate (experiment/degeneracy.py)."""
        rows = self.ok[self.ok["algorithm"].isin(labels) & self.ok["dataset"].isin(datasets)]
        return flagged_cells(flag_counts(rows), datasets, labels)

    def fold_marks(self, claim: Claim, metric: str, a: str, b: str) -> pd.Series:
        """The marks of the claim's per-fold test of ``a`` against ``b`` per dataset."""
        if metric.endswith("@best"):
            raise NotTestable(f"a per-fold test has no best repetition ({metric})")
        both = self.ok[self.ok["algorithm"].isin([a, b])]
        try:
            tests = compare_to(both, metric, b, claim.alpha, claim.test,
                               (self.meta.get("config") or {}).get("protocol"))
        except ObliqError as exc:
            raise NotTestable(str(exc)) from None
        tests = tests[tests["algorithm"] == a]
        copied = tests["dataset"][tests["no_test"] == COPIED_FITS]
        if len(copied):
            # a tie there would be a verdict drawn from one fit repeated
            raise NotTestable(f"the per-fold test of {a} against {b} has nothing to test on "
                              f"{', '.join(map(str, copied))}: {COPIED_FITS}")
        return pd.Series(tests["mark"].to_numpy(), index=tests["dataset"].to_numpy(),
                         dtype=object)

    def time_ratios(self, pairs, datasets: list[str]) -> tuple[dict, str, str]:
        """((dataset, a, b) -> ratio, the clock's name, how the ratio was made): the median
        over the (repetition, fold) tasks both finished of the per-task ratio of ``a``'s
        fit time to ``b``'s, by ``_clock`` (``fit_cpu``, else ``fit_time``).

        A median of paired ratios, not a ratio of sums: a task that one worker's first call
        of its kernels, or a burst of load on the machine, made slower weighs as one task
        among the rest, where in a sum it could outweigh all of them."""
        keys = ["dataset", "repetition", "fold"]
        labels = {label for pair in pairs for label in pair}
        ok = self.ok[self.ok["dataset"].isin(datasets) & self.ok["algorithm"].isin(labels)]
        column, note = _clock(ok, self.name)
        times = ok.pivot_table(index=keys, columns="algorithm", values=column, aggfunc="mean")
        ratios, tasks = {}, set()
        for a, b in pairs:
            if a not in times.columns or b not in times.columns:
                continue
            both = times[[a, b]].dropna()
            per_task = both[a][both[b] > 0] / both[b][both[b] > 0]
            for dataset, group in per_task.groupby(level="dataset", sort=False):
                ratios[(dataset, a, b)] = float(group.median())
                tasks.add(len(group))
        fewest, most = min(tasks, default=0), max(tasks, default=0)
        shared = f"{fewest}" if fewest == most else f"{fewest}-{most}"
        basis = (f"a dataset's ratio is the median of the per-task ratios of {column} over "
                 f"the {shared} (repetition, fold) tasks both finished in the same run"
                 + (f"; {note}" if note else ""))
        return ratios, check_metric(column).title, basis


class TableNumbers:
    """A table of means and sds per (dataset, algorithm, metric), such as a paper's own
    (``paper_numbers``), as the evaluators read it. It has no folds, so a claim tested by
    fold is not testable on it; means, sd rules, ranks and ratios of the table's fit times
    are.

    ``means``: columns dataset, algorithm, metric, mean, sd (NaN where none is given), and
    when the table is a summary of runs (cells.csv) n_tasks, n_flagged and flags, the
    tasks flagged degenerate behind each mean; ``datasets``: their order (default: as first
    seen); ``what``: the table's name in the reasons a claim is not testable ("the paper's
    table")."""

    def __init__(self, name: str, means: pd.DataFrame, datasets=None,
                 what: str = "the table", metrics=None):
        self.name, self.what = name, what
        self.metrics = list(metrics or pd.unique(means["metric"]))
        counts = ["n_tasks", "n_flagged", "flags"]
        self._flags = (means[["dataset", "algorithm", *counts]].drop_duplicates(
            ["dataset", "algorithm"]).fillna({"flags": ""})
            if set(counts) <= set(means.columns) else None)
        self.means = means[["dataset", "algorithm", "metric", "mean", "sd"]]
        self.labels = set(self.means["algorithm"])
        present = set(self.means["dataset"])
        order = list(datasets or []) + list(pd.unique(self.means["dataset"]))
        self._datasets = [d for d in dict.fromkeys(order) if d in present]
        self._asked = list(datasets or self._datasets)

    def carries(self, claim: Claim) -> bool:
        """Whether the table has every number the claim reads, so that its verdict here is
        the one its runs would give: a mean of each of the claim's algorithms for each
        metric on each of its datasets (the claim's, else all ``datasets`` given), and no
        per-fold test or fit-time ratio (the runs' is a median of per-task ratios)."""
        if claim.kind in ("not_testable", "time_ratio", "faster") or claim.test in TESTS:
            return False
        have = set(zip(self.means["metric"], self.means["algorithm"], self.means["dataset"]))
        for dataset in list(claim.datasets or claim.metric_by_dataset) or self._asked:
            metrics = ([claim.metric_by_dataset[dataset]] if claim.metric_by_dataset
                       else claim.metrics)
            if any((m, a, dataset) not in have for m in metrics
                   for a in claim.algorithms + claim.versus):
                return False
        return True

    def lacking(self, labels: list[str]) -> str:
        return f"{self.what} has no {', '.join(self.metrics) or 'values'} of " \
               f"{', '.join(labels)}"

    def datasets(self) -> list[str]:
        return list(self._datasets)

    def summary(self, metric: str) -> pd.DataFrame:
        rows = self.means[self.means["metric"] == metric]
        return rows[["dataset", "algorithm", "mean", "sd"]].reset_index(drop=True)

    def scores(self, metric: str, datasets: list[str], labels: list[str]) -> pd.DataFrame:
        rows = self.summary(metric)
        rows = rows[rows["dataset"].isin(datasets)]
        return rows.pivot(index="dataset", columns="algorithm", values="mean").reindex(
            index=[d for d in datasets if d in set(rows["dataset"])], columns=labels)

    def flagged(self, labels: list[str], datasets: list[str]) -> list[tuple]:
        """The cells of ``labels`` on ``datasets`` holding tasks flagged degenerate, as
        the table records them (none for a table without the counts: a paper's own, a
        cells.csv written before flags)."""
        if self._flags is None:
            return []
        rows = self._flags[self._flags["algorithm"].isin(labels)
                           & self._flags["dataset"].isin(datasets)]
        return flagged_cells(rows, datasets, labels)

    def fold_marks(self, claim: Claim, metric: str, a: str, b: str) -> pd.Series:
        raise NotTestable(f"needs the folds ({_test_text(claim)}); {self.what} gives means "
                          f"and sds only")

    def time_ratios(self, pairs, datasets: list[str]) -> tuple[dict, str, str]:
        """As ``RunNumbers.time_ratios``, of the table's mean fit times (a paper's own were
        measured on its machine, by its clock)."""
        times = self.scores(_WALL, datasets, sorted(self.labels))
        if times.isna().all().all():
            raise NotTestable(f"{self.what} gives no fit times")
        ratios = {}
        for a, b in pairs:
            for dataset, (ta, tb) in times[[a, b]].dropna().iterrows():
                if tb > 0:
                    ratios[(dataset, a, b)] = float(ta) / float(tb)
        return ratios, "fit time", "ratio of the table's mean fit times"


def claim_metrics(claim: Claim) -> list[str]:
    """The metrics a claim reads (fit_time for a speed claim)."""
    if claim.kind in ("time_ratio", "faster"):
        return [_WALL]
    return list(dict.fromkeys(claim.metrics + tuple(claim.metric_by_dataset.values())))


def paper_numbers(claim: Claim) -> TableNumbers:
    """The paper's own table that a claim is about, as the numbers the evaluators read.

    The table is the reference file of the claim's experiment (its shipped config's
    ``reference``), its methods read as our labels by the config's ``reference.methods``
    and the claim's ``paper_methods``, on the config's datasets, for the metrics the claim
    reads (accuracy and error stand in for each other as in ``obliq table``). The paper
    gives per (dataset, method) means and sds, never folds.

    A best-of-runs metric (``m@best``) the table gives for some methods and not for one
    whose ``m`` it gives is read as that ``m``: the paper prints such a method once, its
    average tree being its best (APDT §III-A: "for ID3 and CART-AP, the average tree is
    same as the best tree learned").
    """
    from ..config import load_config
    from .references import paper_values

    if claim.kind == "not_testable":
        raise NotTestable(claim.why)
    config = load_config(claim.experiment)
    if config.reference is None:
        raise NotTestable(f"config {claim.experiment} names no paper table")
    methods = {**config.reference_methods, **claim.paper_methods}
    meta = {"reference": config.reference, "config": {"reference_methods": methods}}
    datasets = [d.label for d in config.datasets]
    frames = []
    for metric in claim_metrics(claim):
        values, _ = paper_values(meta, metric)
        values = values.assign(metric=metric)
        if metric.endswith("@best"):
            plain, _ = paper_values(meta, metric.removesuffix("@best"))
            if len(values):
                once = ~plain["algorithm"].isin(set(values["algorithm"]))
                values = pd.concat([values, plain[once].assign(metric=metric, paper_sd=np.nan)])
        frames.append(values)
    table = pd.concat(frames)
    table = table[table["dataset"].isin(datasets)].rename(
        columns={"paper_mean": "mean", "paper_sd": "sd"})
    return TableNumbers(claim.experiment, table, datasets,
                        what=f"the paper's table ({Path(config.reference).name})",
                        metrics=claim_metrics(claim))


# --- evaluating -----------------------------------------------------------------------------

def _test_text(claim: Claim) -> str:
    if claim.test in TESTS:
        name = {"t": "paired t-test"}.get(claim.test, TESTS[claim.test].name)
        return f"{name} over the shared folds, alpha {claim.alpha:g}"
    if claim.test == "sd_gap":
        return f"difference > {claim.sds:g} × the larger sd"
    if claim.test == "sd_difference":
        return f"difference > {claim.sds:g} × √(sd₁² + sd₂²)"
    if claim.test == "sd_intervals":
        return f"mean ± {claim.sds:g} sd intervals apart"
    return "means compared"


_SLACK = 1e-9

# How far a speed claim's ratio may move between two runs of the same fits: CPU time
# leaves out the machine's other work but not all of its effect (shared caches, memory
# bandwidth, frequency). Measured here on 2026-11-27, the same tasks on a fresh clone and
# on a warm rerun under load 8-11 on 2 cores: a dataset's median ratio GDT/CART-LC on
# wisconsin 0.0957 and 0.107 (12 %), APDT/CART-LC on apdt_problem2 and apdt_problem3
# within 17 %. A ratio within this factor of a bound is "within timing noise" of it.
TIME_NOISE = 1.25

# the spread an sd rule multiplies by sds, from the two sds (columns a, b)
_SPREADS = {
    "sd_gap": lambda sds: sds.max(axis=1),
    "sd_intervals": lambda sds: sds.sum(axis=1),
    "sd_difference": lambda sds: np.sqrt((sds ** 2).sum(axis=1)),
}


def _pair_marks(numbers, claim: Claim, metric: str, a: str, b: str,
                datasets: list[str]) -> pd.Series:
    """Per dataset of ``datasets`` with results of both: "v" when ``a`` is better than
    ``b`` by the claim's test, "*" when worse, "" when neither."""
    higher = check_metric(metric.removesuffix("@best")).higher
    if claim.test in TESTS:
        return numbers.fold_marks(claim, metric, a, b)
    table = numbers.summary(metric)
    table = table[table["algorithm"].isin([a, b]) & table["dataset"].isin(datasets)]
    mean = table.pivot(index="dataset", columns="algorithm", values="mean")
    sd = table.pivot(index="dataset", columns="algorithm", values="sd")
    if a not in mean.columns or b not in mean.columns:
        return pd.Series(dtype=object)
    keep = mean[[a, b]].dropna().index
    gain = (mean.loc[keep, a] - mean.loc[keep, b]) * (1.0 if higher else -1.0)
    if claim.test == MEANS:
        threshold = pd.Series(0.0, index=keep)
    else:
        sds = sd.loc[keep, [a, b]]
        if sds.isna().any().any():
            raise NotTestable(f"{claim.test} needs an sd over at least 2 repetitions of "
                              f"{a} and {b}")
        threshold = claim.sds * _SPREADS[claim.test](sds)
    # a margin equal to the threshold up to rounding is no difference: a table's printed
    # decimals are not exact in binary (97.15 - 0.72 and 95.9 + 0.53 are one number)
    slack = _SLACK * np.maximum(1.0, mean.loc[keep, [a, b]].abs().max(axis=1))
    return pd.Series(np.where(gain > threshold + slack, "v",
                              np.where(-gain > threshold + slack, "*", "")),
                     index=keep, dtype=object)


def _datasets(numbers, claim: Claim) -> tuple[list[str], str]:
    """The datasets the claim is about (its ``datasets``, the keys of a per-dataset metric,
    else all) that the numbers have, in the claim's or the config's order; and a note
    naming those of the claim's that are missing."""
    present = numbers.datasets()
    wanted = list(claim.datasets or claim.metric_by_dataset)
    if not wanted:
        return present, ""
    have = set(present)
    missing = [d for d in wanted if d not in have]
    return [d for d in wanted if d in have], (f"no results for {', '.join(missing)}"
                                              if missing else "")


def _pairs(claim: Claim) -> list[tuple[str, str]]:
    return [(a, b) for a in claim.algorithms for b in claim.versus if a != b]


def _marks(numbers, claim, datasets) -> pd.DataFrame:
    """One column per (algorithm, versus, metric): the marks on the datasets where every
    pair has a result."""
    columns = {}
    for a, b in _pairs(claim):
        for metric in claim.metrics:
            marks = _pair_marks(numbers, claim, metric, a, b, datasets)
            columns[(a, b, metric)] = marks.reindex(datasets)
    frame = pd.DataFrame(columns, index=datasets)
    return frame.dropna()


def _condition(claim: Claim, wins: int, losses: int, n: int) -> bool:
    """Whether counts of ``n`` datasets satisfy the claim (see the module docstring)."""
    counts = claim.paper_counts
    if claim.kind == "at_least_as_good":
        if claim.over == "all":
            return losses == 0
        share = counts.get("losses") / counts["of"] if "losses" in counts else None
        return losses <= wins or (share is not None and losses / n <= share)
    if "wins" in counts:
        return wins > losses and wins / n >= counts["wins"] / counts["of"]
    if claim.over == "all":
        return wins == n
    if claim.over == "most":
        return wins > n / 2
    return wins > losses


def _joint(marks: pd.DataFrame) -> tuple[int, int, int]:
    """(wins, ties, losses) over the datasets (rows): a win where every column is "v", a
    loss where any is "*"."""
    wins = int((marks == "v").all(axis=1).sum())
    losses = int((marks == "*").any(axis=1).sum())
    return wins, len(marks) - wins - losses, losses


def _pair_label(key, claim: Claim) -> str:
    a, b = key[:2]
    parts = [f"{a} vs {b}" if len(claim.algorithms) > 1 else f"vs {b}"]
    if len(key) > 2 and len(claim.metrics) > 1:
        parts.append(key[2])
    return " ".join(parts)


def _paper_counts_text(claim: Claim) -> str:
    c = claim.paper_counts
    if not c:
        return ""
    said = [f"{c[k]} {word}" for k, word in (("wins", "won"), ("losses", "lost")) if k in c]
    return f" (paper: {' and '.join(said)} of {c['of']})"


def _count_claim(numbers, claim: Claim) -> Outcome:
    datasets, missing = _datasets(numbers, claim)
    marks = _marks(numbers, claim, datasets)
    n = len(marks)
    if not n:
        raise NotTestable(f"no dataset with results of {', '.join(claim.algorithms)} and "
                          f"{', '.join(claim.versus)}"
                          + (f" for {', '.join(claim.metrics)}" if claim.metrics else ""))
    wins, ties, losses = _joint(marks)
    joint = _condition(claim, wins, losses, n)
    per_pair = {key: _joint(marks[[key]]) for key in marks.columns}
    # against each: the condition on each (algorithm, versus) alone, every metric together
    each = {pair: _joint(marks[[k for k in marks.columns if k[:2] == pair]])
            for pair in _pairs(claim)}
    met = {pair: _condition(claim, w, lo, n) for pair, (w, _, lo) in each.items()}
    some = any(_condition(claim, w, lo, n) for w, _, lo in per_pair.values())
    if claim.against == "each":
        verdict = HOLDS if all(met.values()) else PARTLY if any(met.values()) else FAILS
    elif joint:
        verdict = HOLDS
    elif some or (claim.kind != "at_least_as_good" and wins > losses):
        verdict = PARTLY
    else:
        verdict = FAILS
    who = " and ".join(claim.algorithms)
    every = (claim.versus[0] if len(claim.versus) == 1
             else f"each of {', '.join(claim.versus)}")
    any_of = " or ".join(claim.versus)
    metric = ", ".join(claim.metrics)
    direction = "; ".join(
        f"{m} {'higher' if check_metric(m.removesuffix('@best')).higher else 'lower'} is better"
        for m in claim.metrics)
    if claim.kind == "at_least_as_good":
        head = (f"{who} worse than {any_of} on {losses} of {n} datasets, better than {every} "
                f"on {wins}{_paper_counts_text(claim)}")
    else:
        head = (f"{who} better than {every} on {wins} of {n} datasets, worse than {any_of} "
                f"on {losses}{_paper_counts_text(claim)}")
    pairs = ", ".join(f"{_pair_label(k, claim)} {w}/{t}/{lo}" for k, (w, t, lo)
                      in per_pair.items())
    bits = [head, f"w/t/l {pairs}"]
    if claim.against == "each":
        both = (f" ({' and '.join(claim.metrics)} together)" if len(claim.metrics) > 1
                else "")
        bits.append(f"against each alone{both} "
                    + ", ".join(f"{_pair_label(k, claim)} {w}/{t}/{lo}"
                                for k, (w, t, lo) in each.items())
                    + f": the claim met against {sum(met.values())} of {len(met)}")
    bits.append(f"{metric} by {_test_text(claim)} ({direction})")
    if claim.kind == "at_least_as_good" and len(claim.metrics) == 1:
        ranks = _ranks_text(numbers, claim, list(marks.index), claim.metrics[0])
        if ranks:
            bits.append(ranks)
    if missing:
        bits.append(missing)
    if claim.against == "each":
        return Outcome(claim, verdict, "; ".join(bits), "algorithm pairs",
                       sum(met.values()), 0, len(met) - sum(met.values()), len(met))
    return Outcome(claim, verdict, "; ".join(bits), "datasets", wins, ties, losses, n)


def _ranks_text(numbers, claim: Claim, datasets: list[str], metric: str) -> str:
    """Friedman's average ranks of the claim's algorithms on ``datasets`` (as evidence)."""
    labels = list(dict.fromkeys(claim.algorithms + claim.versus))
    try:
        scores = numbers.scores(metric, datasets, labels)
        result = friedman_test(scores, check_metric(metric).higher, claim.alpha)
    except ObliqError:
        return ""
    ranks = ", ".join(f"{a} {r:.2f}" for a, r in result.average_ranks.items())
    return f"average ranks {ranks} (Nemenyi CD {result.critical_difference:.2f})"


def _rank_claim(numbers, claim: Claim) -> Outcome:
    datasets, missing = _datasets(numbers, claim)
    labels = list(dict.fromkeys(claim.algorithms + claim.versus))
    if claim.metric_by_dataset:
        frames = [numbers.scores(claim.metric_by_dataset[d], [d], labels) for d in datasets]
        higher = all(check_metric(m).higher for m in claim.metric_by_dataset.values())
        metric_text = ", ".join(f"{d} {claim.metric_by_dataset[d]}" for d in datasets)
    else:
        frames = [numbers.scores(claim.metrics[0], datasets, labels)]
        higher = check_metric(claim.metrics[0]).higher
        metric_text = claim.metrics[0]
    scores = pd.concat(frames) if frames else pd.DataFrame()
    scores = scores.reindex(columns=labels).dropna()
    if len(scores) < 2:
        raise NotTestable(f"ranks need at least 2 datasets with results of every one of "
                          f"{', '.join(labels)} ({len(scores)} here)")
    result = friedman_test(scores, higher, claim.alpha)
    ranks = result.average_ranks
    pairs = _pairs(claim)
    above = [ranks[a] < ranks[b] for a, b in pairs]
    verdict = HOLDS if all(above) else PARTLY if any(above) else FAILS
    beyond = [f"{a} vs {b}" for a, b in pairs
              if abs(ranks[a] - ranks[b]) >= result.critical_difference]
    bits = [f"average ranks over {len(scores)} datasets (1 = best): "
            + ", ".join(f"{a} {r:.2f}" for a, r in ranks.items())
            + (" (paper: " + ", ".join(f"{a} {r:g}" for a, r in claim.paper_ranks.items())
               + ")" if claim.paper_ranks else ""),
            f"{sum(above)} of {len(pairs)} pairs ranked as claimed",
            f"Nemenyi CD {result.critical_difference:.2f} at alpha {claim.alpha:g}: "
            + (f"beyond it {', '.join(beyond)}" if beyond else "no claimed pair beyond it"),
            f"metric {metric_text} ({'higher' if higher else 'lower'} is better)"]
    if missing:
        bits.append(missing)
    return Outcome(claim, verdict, "; ".join(bits), "algorithm pairs", sum(above), 0,
                   len(pairs) - sum(above), len(pairs))


def _time_claim(numbers, claim: Claim) -> Outcome:
    datasets, missing = _datasets(numbers, claim)
    low, high = claim.between
    ratios, clock, basis = numbers.time_ratios(_pairs(claim), datasets)
    if not ratios:
        raise NotTestable(f"no fit times of {', '.join(claim.algorithms)} and "
                          f"{', '.join(claim.versus)} on the same tasks")
    values = np.array(list(ratios.values()))

    def within(shrink: float) -> np.ndarray:
        # the bounds moved inwards (shrink > 1) or outwards (< 1) by a factor; a bound met
        # up to rounding is met (a table's 0.012 / 0.12 is 0.1)
        return (values >= (low * shrink * (1 - _SLACK) if low is not None else -np.inf)) & (
            values <= (high / shrink * (1 + _SLACK) if high is not None else np.inf))

    clear, near = within(TIME_NOISE), within(1 / TIME_NOISE)
    n, k, k_near = len(values), int(clear.sum()), int((near & ~clear).sum())

    def verdict_of(k_in: int) -> str:
        enough = (k_in == n if claim.over == "all" else k_in > n / 2 if claim.over == "most"
                  else k_in > n - k_in)
        return HOLDS if enough else PARTLY if k_in else FAILS

    # a ratio within timing noise of a bound could fall on either side of it in another
    # run: the verdict is the one both sides give, else partly
    verdict = verdict_of(k)
    if verdict_of(k + k_near) != verdict:
        verdict = PARTLY
    bound = ("<= " + _g(high) if low is None else ">= " + _g(low) if high is None
             else f"in [{_g(low)}, {_g(high)}]")
    per_pair = []
    for a, b in _pairs(claim):
        mine = [r for (_, x, y), r in ratios.items() if (x, y) == (a, b)]
        if mine:
            spread = f" ({_g(min(mine))}-{_g(max(mine))})" if min(mine) < max(mine) else ""
            per_pair.append(f"{a}/{b} median {_g(float(np.median(mine)))}{spread} over "
                            f"{len(mine)} dataset{'s' if len(mine) != 1 else ''}")
    bits = [f"{clock} ratio {', '.join(per_pair)}",
            f"{bound} on {k} of {n} (dataset, pair)s"
            + (f", within timing noise (a factor {_g(TIME_NOISE)}) of the bound on {k_near}"
               if k_near else ""), basis]
    if missing:
        bits.append(missing)
    return Outcome(claim, verdict, "; ".join(bits), "dataset pairs", k, k_near,
                   n - k - k_near, n)


def _g(value: float) -> str:
    return f"{value:.3g}"


def _degenerate_text(numbers, claim: Claim) -> str:
    """What the evidence says of the cells a verdict rests on (the claim's algorithms on
    its datasets) that hold tasks flagged degenerate (experiment/degeneracy.py), "" when
    none do."""
    datasets, _ = _datasets(numbers, claim)
    cells = numbers.flagged(list(dict.fromkeys(claim.algorithms + claim.versus)), datasets)
    if not cells:
        return ""
    return (f"⚠ rests on {len(cells)} cell{'s' if len(cells) != 1 else ''} holding tasks "
            f"flagged degenerate: {cells_text(cells)}")


def evaluate(claim: Claim, experiments: dict) -> Outcome:
    """The verdict of one claim on ``experiments`` (name -> (meta, rows of runs.csv))."""
    if claim.kind == "not_testable":
        return Outcome(claim, UNTESTABLE, claim.why)
    if claim.experiment not in experiments:
        return Outcome(claim, UNTESTABLE, f"no results of experiment {claim.experiment}")
    meta, part = experiments[claim.experiment]
    return evaluate_on(claim, RunNumbers(claim.experiment, meta,
                                         part[part["status"] == "ok"]))


def evaluate_on_paper(claim: Claim) -> Outcome:
    """The verdict of one claim on its paper's own table (``paper_numbers``)."""
    try:
        numbers = paper_numbers(claim)
    except NotTestable as why:
        return Outcome(claim, UNTESTABLE, str(why))
    return evaluate_on(claim, numbers)


def evaluate_on(claim: Claim, numbers) -> Outcome:
    """The verdict of one claim on ``numbers`` (a RunNumbers or a TableNumbers)."""
    if claim.kind == "not_testable":
        return Outcome(claim, UNTESTABLE, claim.why)
    missing = [a for a in dict.fromkeys(claim.algorithms + claim.versus)
               if a not in numbers.labels]
    try:
        if missing:
            raise NotTestable(numbers.lacking(missing))
        if claim.kind == "rank_above":
            outcome = _rank_claim(numbers, claim)
        elif claim.kind in ("time_ratio", "faster"):
            outcome = _time_claim(numbers, claim)
        else:
            outcome = _count_claim(numbers, claim)
    except (NotTestable, ObliqError) as why:
        # what the results lack (a metric left blank, too few folds for a test) is a
        # verdict; the claims files themselves were checked when they were read
        return Outcome(claim, UNTESTABLE, str(why))
    degenerate = _degenerate_text(numbers, claim)
    if degenerate:
        outcome.evidence += f"; {degenerate}"
    if claim.note:
        outcome.evidence += f"; {claim.note}"
    return outcome


def check_claims(paths, claim_files=()) -> list[Outcome]:
    """Every claim of the papers that have at least one experiment under ``paths``, in file
    order, evaluated. ``claim_files``: these files instead of the shipped ones."""
    experiments = Results.of(paths).by_name()
    # read after the results: their configs may import a plugin that registers a metric
    files = list(claim_files) or shipped_claims()
    outcomes = []
    for path in files:
        claims = read_claims(path)
        if any(c.experiment in experiments for c in claims):
            outcomes += [evaluate(c, experiments) for c in claims]
    return outcomes


__all__ = ["CSV_COLUMNS", "Claim", "KINDS", "Outcome", "check_claims", "evaluate",
           "parse_claim", "read_claims", "shipped_claims"]
