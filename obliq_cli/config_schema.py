"""Every key of an experiment config, declared once: where it may appear, what it holds,
its default and a line saying what it does.

``config.py``'s reader takes from here the keys each mapping allows and requires, the
defaults it fills in and the constraint each scalar value is checked with (the constraint
objects of ``parameters.py``); ``tools/docs.py`` renders the README's config reference
from the same declaration, so a key is added, documented and checked in one place. The
``Key`` and its markers are ``fields.py``'s, shared with the other formats' declarations
(a claims file's: ``analysis/claims.py`` CLAIM_KEYS).

A key whose value is a name to look up (an algorithm, a dataset, a metric, a protocol) or
a nested form (a list of entries, a pruner, a skip rule) has no ``check`` here: its
reader in ``config.py`` looks it up or walks it, and ``takes`` says what it holds.
Protocol keys are declared here, which protocol takes which (and its defaults) by the
protocol itself (``experiment/protocols.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import fields
from .fields import OPTIONAL, REQUIRED, suggest
from .parameters import Described, Integral, Interval, Real, StrOptions
from .registry import BACKENDS, DEFAULT_BACKEND
from .yaml_input import brief

# Every repetition stores a split of every row (folds/*.npz) and a task per fold and
# algorithm: beyond this a typo (1000000000) would exhaust memory, not run an experiment.
MAX_REPEATS = 1000
# Each job of the loky or dask backend is a process: a million would fork the machine to
# a halt before the first task.
MAX_JOBS = 1024
# A skip rule's reason is the text of the table cell it stands in: a few words.
MAX_REASON = 60


# --- the constraints, each with the words its errors have always used ----------------------

class IntegerRange(Described):
    """A Python int (not a bool, not a float) from ``low`` to ``high`` (None: unbounded);
    the error says which side was crossed."""

    def __init__(self, low: int, high: int | None = None):
        words = f"an integer >= {low}" if high is None else f"an integer from {low} to {high}"
        closed = "left" if high is None else "both"
        super().__init__([Interval(Integral, low, high, closed=closed)], f"must be {words}")
        self.low, self.high = low, high

    def is_satisfied_by(self, val):
        return isinstance(val, int) and super().is_satisfied_by(val)

    def problem(self, value) -> str:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be an integer (got {brief(value)})"
        if value < self.low:
            return f"must be an integer >= {self.low} (got {value})"
        return f"must be an integer <= {self.high} (got {value})"


class Strict(Described):
    """``Described`` whose accepted values are instances of ``types`` (bool for a flag,
    never numpy's bool, which meta.json could not store as JSON) or None when
    ``or_null``."""

    def __init__(self, types: tuple, must: str, or_null: bool = False):
        super().__init__([object], must)
        self.types, self.or_null = types, or_null

    def is_satisfied_by(self, val):
        return (val is None and self.or_null) or isinstance(val, self.types)


class Fraction(Described):
    """A number strictly between 0 and 1 (None too when ``or_null``: the key unset)."""

    def __init__(self, or_null: bool = False):
        constraints = [Interval(Real, 0, 1, closed="neither")] + ([None] if or_null else [])
        super().__init__(constraints, "must be a number strictly between 0 and 1")
        self.or_null = or_null

    def is_satisfied_by(self, val):
        if val is None:
            return self.or_null
        return (isinstance(val, (int, float)) and not isinstance(val, bool)
                and super().is_satisfied_by(val))

    def problem(self, value) -> str:
        return f"{self.must} (got {brief(value)})"


class Size(Described):
    """A part's size: a fraction in (0, 1) or a row count >= 1, or None (unset). NaN and
    infinities are refused (NaN compares false with every bound)."""

    def __init__(self):
        super().__init__([object], "must be a fraction in (0, 1) or a row count >= 1")

    def is_satisfied_by(self, val):
        if val is None:
            return True
        if isinstance(val, bool) or not isinstance(val, (int, float)):
            return False
        return Interval(Real, 0, None, closed="neither").is_satisfied_by(val) and not (
            isinstance(val, float) and val >= 1)

    def problem(self, value) -> str:
        if isinstance(value, float) and value >= 1 and value != float("inf"):
            return f"a fraction must be below 1; use an integer for a row count (got {value})"
        return f"{self.must} (got {brief(value)})"


class Text(Described):
    """A non-empty string without NUL (a name, a path); ``label``: without any control
    character either (a newline or NUL would break the runs.csv line and the tables)."""

    def __init__(self, label: bool = False):
        super().__init__([str], "must be a non-empty string")
        self.label = label

    def __str__(self):
        return "a non-empty string" + (" without control characters" if self.label else "")

    def _bad(self, val) -> str | None:
        return next((c for c in val if c == "\x00" or self.label and (ord(c) < 32
                                                                       or ord(c) == 127)),
                    None)

    def is_satisfied_by(self, val):
        return isinstance(val, str) and bool(val) and self._bad(val) is None

    def problem(self, value) -> str:
        if not isinstance(value, str) or not value:
            return f"{self.must} (got {brief(value)})"
        bad = self._bad(value)
        shown = brief(value) if bad == "\x00" else repr(value[:40])
        return f"must not hold a control character (got {bad!r} in {shown})"


class Choice(Described):
    """One of a few names (``options``); the error suggests the closest."""

    def __init__(self, kind: str, options: tuple):
        super().__init__([object], f"must be one of {', '.join(options)}")
        self.kind, self.options = kind, options

    def is_satisfied_by(self, val):
        return isinstance(val, str) and val in self.options

    def problem(self, value) -> str:
        return (f"unknown {self.kind} {brief(value)}{suggest(str(value), self.options)}; "
                f"known: {', '.join(self.options)}")


class Noted(Described):
    """``Described`` whose error adds a note after the refused value."""

    def __init__(self, constraints, must: str, note: str):
        super().__init__(constraints, must)
        self.note = note

    def problem(self, value) -> str:
        return f"{self.must} (got {brief(value)}); {self.note}"


STRING = Text()
LABEL = Text(label=True)
BOOLEAN = Strict((bool,), "must be true or false")
FRACTION = Fraction(or_null=True)
SIZE = Size()


# --- the keys ---------------------------------------------------------------------------------

# Where a key may appear: (scope, the field path it is read at, what the README calls it).
SCOPES = {
    "config": ("", "top level"),
    "dataset": ("datasets[i]", "a dataset entry (or just its name)"),
    "file": ("datasets[i]", "a dataset entry of your own file (with path)"),
    "algorithm": ("algorithms[i]", "an algorithm entry (or just its name)"),
    "pruner": ("algorithms[i].pruner", "an algorithm's pruner (or just its name)"),
    "skip": ("algorithms[i].skip[j]", "a skip rule"),
    "step": ("algorithms[i].pipeline[j]", "a pipeline step"),
    "protocol": ("protocol", "the protocol (a dataset's protocol: the sizes only)"),
    "reference": ("reference", "the paper's values (or just the file)"),
}


@dataclass(frozen=True)
class Key(fields.Key):
    """One config key (``fields.Key``: scope of SCOPES, about, check, takes, default,
    shown) and whether a dataset may set it for itself (a protocol size)."""

    per_dataset: bool = False


def _file_takes(name: str) -> Callable[[], str]:
    """What a key of your own file takes and its default, read from the ``file``
    dataset's declaration (data/files.py), which checks the value once the name is known."""
    def words() -> str:
        from .data.files import FILE_CONSTRAINTS, FILE_PARAMS  # pandas: only for the docs

        options = getattr(FILE_CONSTRAINTS[name][0], "options", None)
        if options:
            named = {"\t": "tab", " ": "space"}
            return ", ".join(f"`{named.get(o, o)}`" for o in sorted(options))
        return str(FILE_PARAMS[name])
    return words


KEYS: tuple[Key, ...] = (
    # top level
    Key("name", "config", "the experiment's name: results go to results/<name>",
        STRING, default=REQUIRED),
    Key("description", "config", "what the experiment is, for whoever reads the file "
        "(not read by obliq)", takes="any text"),
    Key("seed", "config", "every split and every random draw derives from it",
        IntegerRange(0), default=0),
    Key("imports", "config", "your own code that registers algorithms, pruners or datasets, "
        "imported before the names are checked", takes="a list of module names or .py files "
        "(relative to this file)", default=()),
    Key("datasets", "config", "the datasets, each a name or a dataset entry",
        takes="a non-empty list", default=REQUIRED),
    Key("algorithms", "config", "the algorithms, each a name or an algorithm entry",
        takes="a non-empty list", default=REQUIRED),
    Key("protocol", "config", "how rows are split into grow, prune and test parts",
        takes="a protocol mapping", default=REQUIRED),
    Key("metrics", "config", "what `obliq run` prints",
        takes="a non-empty list of metric names (also tpr:K, tnr:K)",
        default=("test_accuracy", "n_leaves")),
    Key("output", "config", "the results folder (`output: null` is refused: leave the key "
        "out)", takes="a folder path", shown="results/<name>"),
    Key("n_jobs", "config", "tasks run at once; -1: one per core",
        IntegerRange(-MAX_JOBS, MAX_JOBS), default=1, shown="1 (not 0)"),
    Key("backend", "config", "how tasks run in parallel (fork: Linux only)",
        Choice("backend", BACKENDS), default=DEFAULT_BACKEND,
        shown="fork on Linux, loky elsewhere"),
    Key("timeout", "config", "seconds a task's fit may take; a task over it is recorded "
        "as failed (timeout after N s)", takes="a number of seconds above 0, at most a week "
        "(checked by config._timeout)", default=None, shown="none (no limit)"),
    Key("reference", "config", "the paper's values, shown beside ours",
        takes="a CSV path (relative to this file) or a reference mapping"),
    # a dataset entry
    Key("name", "dataset", "a registered dataset (`obliq datasets`), or your name for your "
        "own file", STRING, default=REQUIRED),
    Key("label", "dataset", "the dataset's name in tables; unique", LABEL, shown="the name"),
    Key("params", "dataset", "the dataset's parameters, checked against its declaration",
        takes="a mapping", default={}),
    Key("protocol", "dataset", "this dataset's own sizes; its repetitions, stratification "
        "and noise stay the experiment's", takes="a mapping of protocol sizes"),
    # your own file: the file dataset's parameters given directly
    Key("path", "file", "your CSV or ARFF file (relative to this file)", STRING,
        default=REQUIRED),
    Key("target", "file", "the class column", STRING, shown="the last column"),
    Key("categorical", "file", "the nominal columns (every other feature must be numeric)",
        takes="a list of column names", default=[]),
    Key("delimiter", "file", "the CSV's separator", STRING, takes=_file_takes("delimiter"),
        shown=","),
    Key("decimal", "file", "the decimal mark of the CSV's numbers", STRING,
        takes=_file_takes("decimal"), shown="."),
    Key("header", "file", "whether the first line names the columns", BOOLEAN, default=True),
    Key("missing", "file", "what missing cells do: refuse the file, drop their rows, "
        "impute on the grow part, or stay for the algorithms that take them", STRING,
        takes=_file_takes("missing"), shown="error"),
    Key("nominal", "file", "how nominal columns reach algorithms without a way of their own",
        STRING, takes=_file_takes("nominal"), shown="onehot"),
    Key("target_is_label", "file", "a numeric target with many values holds class labels "
        "all the same", BOOLEAN, default=False),
    Key("weights", "file", "a column of row weights (0 or more, finite, not all 0; neither a "
        "feature nor the target), given to every fit and pruner as sample_weight; test "
        "metrics stay unweighted", STRING, takes="a column name", shown="none (equal weights)"),
    # an algorithm entry
    Key("name", "algorithm", "a registered algorithm (`obliq algorithms`); or estimator, or "
        "pipeline", STRING),
    Key("estimator", "algorithm", "any scikit-learn classifier, by its dotted path (or a "
        "class of an imports file)", STRING),
    Key("pipeline", "algorithm", "scikit-learn's make_pipeline of these steps: "
        "transformers, then a classifier", takes="a non-empty list of pipeline steps"),
    Key("label", "algorithm", "the column name in tables; unique", LABEL,
        shown="the name (an estimator's class name; a pipeline's joined by +)"),
    Key("params", "algorithm", "constructor parameters, checked against the algorithm's "
        "declaration", takes="a mapping", default={}),
    Key("pruner", "algorithm", "how the grown tree is pruned (obliq's algorithms only)",
        takes="a pruner name or mapping"),
    Key("dataset_params", "algorithm", "other parameter values on some datasets (a "
        "pipeline's as step__parameter)", takes="a mapping of dataset label -> params",
        default={}),
    Key("only", "algorithm", "run on these datasets only",
        takes="a non-empty list of dataset labels", shown="all"),
    Key("skip", "algorithm", "datasets left out, each cell with the rule's reason (the "
        "first rule that applies)", takes="a non-empty list of skip rules", default=()),
    Key("missing", "algorithm", "this algorithm's own way with the missing cells a dataset "
        "keeps", Noted([StrOptions({"impute", "native"})], "must be impute or native",
                       "drop and error are set on the dataset"),
        shown="the dataset's"),
    Key("nominal", "algorithm", "this algorithm's own way with nominal columns, unless it "
        "takes them itself (categorical_features)", takes=_file_takes("nominal"),
        shown="the dataset's"),
    # an algorithm's pruner
    Key("name", "pruner", "a registered pruner (`obliq pruners`)", STRING, default=REQUIRED),
    Key("params", "pruner", "the pruner's parameters, checked against its declaration",
        takes="a mapping", default={}),
    # a skip rule
    Key("when", "skip", "a condition on the loaded dataset: comparisons of rows, features "
        "or classes with an integer, joined by and / or", STRING),
    Key("datasets", "skip", "the dataset labels it leaves out (instead of when)",
        takes="a non-empty list of dataset labels"),
    Key("reason", "skip", f"the table cell's text (at most {MAX_REASON} characters)", LABEL,
        default=REQUIRED),
    # a pipeline step
    Key("estimator", "step", "a scikit-learn transformer, or the last step's classifier, by "
        "its dotted path", STRING, default=REQUIRED),
    Key("params", "step", "the step's parameters", takes="a mapping", default={}),
    # the protocol: which protocol takes which key, and its defaults, is the protocol's
    Key("name", "protocol",
        "a registered protocol: a shipped one, or one an `imports:` file registers",
        takes="kfold, holdout_cv, fixed_split, random_split or your own", default=REQUIRED),
    Key("folds", "protocol", "folds per repetition", IntegerRange(2), shown="per protocol"),
    Key("repeats", "protocol", "repetitions (random_split's runs)",
        IntegerRange(1, MAX_REPEATS), shown="per protocol"),
    Key("stratified", "protocol", "folds and parts keep the class proportions", BOOLEAN,
        shown="per protocol"),
    Key("prune_fraction", "protocol", "held out of each training part for the pruner",
        FRACTION, shown="per protocol", per_dataset=True),
    Key("test_fraction", "protocol", "the fixed test part of holdout_cv", FRACTION,
        shown="per protocol", per_dataset=True),
    Key("train_size", "protocol", "random_split's training part", SIZE,
        shown="per protocol", per_dataset=True),
    Key("test_size", "protocol", "random_split's test part (the rest when unset)", SIZE,
        shown="per protocol", per_dataset=True),
    Key("label_noise", "protocol", "flip this fraction of training labels (every protocol)",
        FRACTION, default=None, shown="none"),
    # the reference
    Key("file", "reference", "the CSV of the paper's values (dataset, method, metric, mean, "
        "sd), relative to this file", STRING, default=REQUIRED),
    Key("methods", "reference", "our label -> the paper's method, where they differ",
        takes="a mapping", default={}),
    Key("pooled", "reference", "the paper's accuracy is correct / tested over each "
        "repetition's folds (OC1's); table, agree and claims pool too", BOOLEAN,
        default=False),
)


def declared(scope: str) -> dict[str, Key]:
    """The keys of ``scope``, by name, in declaration order."""
    if scope not in SCOPES:
        raise KeyError(f"no config scope {scope!r}")
    return fields.in_scope(KEYS, scope)


def keys(scope: str) -> tuple[str, ...]:
    """The names ``scope`` allows."""
    return tuple(declared(scope))


def required(scope: str) -> tuple[str, ...]:
    """The names ``scope`` requires."""
    return tuple(k.name for k in declared(scope).values() if k.default is REQUIRED)


def default(scope: str, name: str):
    """The value the reader fills in when ``name`` is absent (None: OPTIONAL)."""
    value = declared(scope)[name].default
    return None if value is OPTIONAL or value is REQUIRED else value


def per_dataset_protocol_keys() -> tuple[str, ...]:
    """What a dataset may set for itself: sizes only, so every dataset keeps the
    experiment's repetitions, stratification and noise (and all algorithms still share
    each split)."""
    return tuple(k.name for k in declared("protocol").values() if k.per_dataset)


def reference_rows(scope: str) -> list[list[str]]:
    """The README's rows for ``scope``: key, what it takes, default, what it does."""
    declared(scope)  # a scope of SCOPES
    return fields.reference_rows(KEYS, scope)
