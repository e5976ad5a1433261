"""The hardening corpus: bad and extreme inputs, run through the real command line.

Each ``Case`` is a config (and any files it names) run with ``obliq run`` (or another
command) in-process through click's ``CliRunner``. ``run_case`` classifies what happened:

- ``clean``: exit code 2, stderr exactly one ``error:`` line naming the config file and
  the field (the case's ``fragments``), and the working folder unchanged: no file
  written, none changed (a folder of earlier results sits in the output path);
- ``handled``: exit code 0, the results written (extreme data the algorithms survive,
  a label the plots must draw) and no warning printed (else ``handled-but-warned``);
- ``recorded``: exit code 1 with the failing tasks recorded in ``runs.csv``;
- ``traceback``: any exception that escaped the command (or an exit without one line);
- ``lost``: earlier results changed or gone;
- ``wrong``: a silently wrong result (exit 0 after a signal, a history entry left
  unfinished, rows that differ from an uninterrupted run's);
- ``outside``: a file outside the output folder written, changed or deleted (through a
  link planted in it: the ``outside/`` folder of each case's working folder);
- ``hang``: the command did not end within ``TIMEOUT`` seconds.

The families of links and signals (``corpus_io.py``) plant their links with a case's
``setup`` and run signals through real processes with their own ``runner``.

``tests/hardening/test_hardening_corpus.py`` asserts each case's expected outcome;
``tests/hardening/tally.py`` prints the count of cases in each outcome.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import signal
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from obliq_cli.experiment.schema import RUN_COLUMNS

_LAST = f",{RUN_COLUMNS[-1]}\r\n".encode()  # the end of runs.csv's header line
OUTCOMES = ("clean", "handled", "recorded", "traceback", "lost", "wrong", "outside", "hang")
TIMEOUT = 120  # seconds a case may take

# 40 rows, 2 features, 2 classes; every algorithm separates it.
SMALL_CSV = "a,b,class\n" + "".join(
    f"{i % 7 + 0.5 * (i % 3)},{(i * 3) % 11},{'x' if i % 7 < 3 else 'y'}\n" for i in range(40))

BASE = """name: bad
datasets: [{{name: small, path: small.csv, target: class}}]
algorithms: [cart-ap]
protocol: {{name: kfold, folds: 2, repeats: 1}}
{extra}"""


def _alias_bomb_items() -> str:
    """Nine levels of nine aliases: 9^9 = 387 million strings once expanded."""
    items = ["&a [lol,lol,lol,lol,lol,lol,lol,lol,lol]"]
    for prev, name in zip("abcdefgh", "bcdefghi"):
        items.append(f"&{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "[" + ", ".join(items) + "]"


BOMB = _alias_bomb_items()


@dataclass(frozen=True)
class Case:
    id: str
    config: str
    fragments: tuple[str, ...] = ()
    expect: str = "clean"
    files: dict = field(default_factory=dict)
    command: tuple[str, ...] = ("run",)
    # the file (in the working folder, or a path) the error names; None: none is required
    names: str | None = "exp.yaml"
    setup: Callable[[Path], None] | None = None  # makes what ``files`` cannot (a FIFO)
    damage: Callable[[Path], None] | None = None  # done to the results folder before command
    # plant(workdir, out): plants links etc. once the folder (and results) are ready
    plant: Callable[[Path, Path], None] | None = None
    # runner(case, workdir) -> (outcome, detail): a case that is not one CLI call
    runner: object = None
    changes: tuple[str, ...] = ()  # folders whose files the command may rewrite (a resume)
    says: tuple[str, ...] = ()  # what a handled (exit 0) case's output must say, else wrong


def base(extra: str = "") -> str:
    """The small valid config, with ``extra`` lines at its end."""
    return BASE.format(extra=extra)


def swap(old: str, new: str, extra: str = "") -> str:
    """The small valid config with ``old`` replaced by ``new``."""
    return BASE.format(extra=extra).replace(old, new)


CASES: list[Case] = [
    # ---- YAML reading
    Case("yaml-duplicate-top-key", base("protocol: {name: kfold, folds: 3}\n"),
         ("line 5", "duplicate key 'protocol'", "first on line 4")),
    Case("yaml-duplicate-nested-key", swap("folds: 2,", "folds: 3, folds: 2,"),
         ("line 4", "duplicate key 'folds'")),
    Case("yaml-duplicate-block-key",
         "name: bad\nname: other\ndatasets: [heart]\nalgorithms: [cart-ap]\n"
         "protocol: {name: kfold}\n", ("line 2", "duplicate key 'name'", "first on line 1")),
    Case("yaml-alias-bomb-name", f"description: {BOMB}\n" + swap("name: bad", "name: *i"),
         ("aliases expand to more than",)),
    Case("yaml-alias-bomb-seed", f"description: {BOMB}\n" + base("seed: *i\n"),
         ("aliases expand to more than",)),
    Case("yaml-alias-bomb-only", f"description: {BOMB}\n"
         + swap("algorithms: [cart-ap]", "algorithms: [{name: cart-ap, only: *i}]"),
         ("aliases expand to more than",)),
    Case("yaml-alias-bomb-categorical", f"description: {BOMB}\n"
         + swap("algorithms: [cart-ap]",
                "algorithms: [{name: hhcart-a, params: {categorical_features: *i}}]"),
         ("aliases expand to more than",)),
    Case("yaml-alias-recursive-list", "description: &a [1, *a]\n" + base(),
         ("line 1", "alias refers to the value that contains it")),
    Case("yaml-alias-recursive-map", "description: &a {x: 1, y: *a}\n" + base(),
         ("line 1", "alias refers to the value that contains it")),
    Case("yaml-nesting-5000-brackets", "description: " + "[" * 5000 + "]" * 5000 + "\n" + base(),
         ("line 1", "nested more than 64 levels")),
    Case("yaml-nesting-5000-braces", "description: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n"
         + base(), ("line 1", "nested more than 64 levels")),
    Case("yaml-nesting-block", "description:\n" + "".join(" " * i + "-\n" for i in range(1, 200))
         + base(), ("nested more than 64 levels",)),
    Case("yaml-nul-escape-name", swap("name: bad", 'name: "b\\0ad"'),
         ("name: must not hold a control character",)),
    Case("yaml-nul-escape-output", base('output: "out\\0put"\n'),
         ("output: must not hold a control character",)),
    Case("yaml-nul-escape-label", swap("algorithms: [cart-ap]",
                                       'algorithms: [{name: cart-ap, label: "a\\0b"}]'),
         ("algorithms[0].label: must not hold a control character",)),
    Case("yaml-nul-escape-file-path", swap("path: small.csv", 'path: "small\\0.csv"'),
         ("datasets[0].path: must not hold a control character",)),
    Case("yaml-nul-escape-params-path", swap("{name: small, path: small.csv, target: class}",
                                             '{name: file, params: {path: "small\\0.csv"}}'),
         ("datasets[0].params.path: must not hold a NUL character",)),
    Case("yaml-nul-raw-byte", swap("name: bad", "name: b\0ad"), ("line 1", "invalid YAML")),
    Case("yaml-not-utf8", swap("name: bad", "name: b\udcffad"), ("cannot read",)),
    Case("yaml-syntax-error", swap("algorithms: [cart-ap]", "algorithms: [cart-ap"),
         ("invalid YAML",)),
    Case("yaml-python-tag", swap("name: bad", "name: !!python/object/apply:os.system [ls]"),
         ("invalid YAML", "python/object/apply")),
    Case("yaml-too-large", base("description: '" + "x" * (1 << 20) + "'\n"),
         ("larger than 1 MiB",)),
    Case("yaml-empty-file", "", ("must hold a mapping",)),
    Case("yaml-list-document", "- a\n- b\n", ("must hold a mapping",)),
    Case("yaml-two-documents", base() + "---\n" + base(), ("invalid YAML",)),
    Case("yaml-long-value-is-cut", swap("name: bad", "name: [" + "abc, " * 5000 + "]"),
         ("name: must be a non-empty string", "...")),
    Case("yaml-merge-key-still-works", "description: &d {name: cart-ap, label: A}\n" + swap(
             "algorithms: [cart-ap]", "algorithms: [{<<: *d, label: B}, {<<: *d}]"),
         expect="handled"),
    # ---- generator and file-dataset parameters
    Case("generator-n-negative", swap("{name: small, path: small.csv, target: class}",
                                      "{name: twonorm_gen, params: {n: -5}}"),
         ("datasets[0].params.n", "in the range [2, 1000000]", "got -5")),
    Case("generator-n-word", swap("{name: small, path: small.csv, target: class}",
                                  "{name: twonorm_gen, params: {n: lots}}"),
         ("datasets[0].params.n", "got 'lots'")),
    Case("generator-n-huge", swap("{name: small, path: small.csv, target: class}",
                                  "{name: twonorm_gen, params: {n: 10000000000}}"),
         ("datasets[0].params.n", "got 10000000000")),
    Case("generator-n-float", swap("{name: small, path: small.csv, target: class}",
                                   "{name: checker4x4, params: {n: 100.5}}"),
         ("datasets[0].params.n", "got 100.5")),
    Case("generator-n-bool", swap("{name: small, path: small.csv, target: class}",
                                  "{name: checker4x4, params: {n: true}}"),
         ("datasets[0].params.n", "got True")),
    Case("generator-seed-word", swap("{name: small, path: small.csv, target: class}",
                                     "{name: wave, params: {seed: abc}}"),
         ("datasets[0].params.seed", "got 'abc'")),
    Case("generator-seed-negative", swap("{name: small, path: small.csv, target: class}",
                                         "{name: apdt_problem1, params: {seed: -1}}"),
         ("datasets[0].params.seed", "got -1")),
    Case("generator-without-size", swap("{name: small, path: small.csv, target: class}",
                                        "{name: balance, params: {n: 50}}"),
         ("datasets[0].params.n", "has no parameter 'n'")),
    Case("catalog-path-not-text", swap("{name: small, path: small.csv, target: class}",
                                       "{name: heart, params: {path: [1, 2]}}"),
         ("datasets[0].params.path", "a list of strings")),
    Case("file-delimiter-two-chars", swap("target: class}", "target: class, delimiter: ';;'}"),
         ("datasets[0].delimiter", "got ';;'")),
    Case("file-params-delimiter", swap("{name: small, path: small.csv, target: class}",
                                       "{name: file, params: {path: small.csv, delimiter: ''}}"),
         ("datasets[0].params.delimiter", "got ''")),
    Case("file-header-number", swap("{name: small, path: small.csv, target: class}",
                                    "{name: file, params: {path: small.csv, header: 3}}"),
         ("datasets[0].params.header", "true or false")),
    Case("file-path-number", swap("{name: small, path: small.csv, target: class}",
                                  "{name: file, params: {path: 3}}"),
         ("datasets[0].params.path", "a string")),
    Case("file-categorical-not-list", swap("{name: small, path: small.csv, target: class}",
                                           "{name: file, params: {path: small.csv, "
                                           "categorical: a}}"),
         ("datasets[0].params.categorical", "a list of strings")),
    Case("protocol-repeats-huge", swap("repeats: 1", "repeats: 1000000000"),
         ("protocol.repeats", "<= 1000")),
    Case("protocol-runs-huge", swap("{name: kfold, folds: 2, repeats: 1}",
                                    "{name: random_split, train_size: 0.5, runs: 100000}"),
         ("protocol.runs", "<= 1000")),
]


ROWS = SMALL_CSV.splitlines()[1:]
EXTREME_CSV = "a,b,c,class\n" + "".join(  # near the float limits and subnormal
    f"{float(a) * 1e300},{float(b) * 1e-310},{1e308 - float(a) * 1e305},{k}\n"
    for a, b, k in (row.split(",") for row in ROWS))
MINE = "{name: small, path: small.csv, target: class}"


def with_data(text: str) -> str:
    """The small config on the file mine.csv instead."""
    return swap(MINE, "{name: mine, path: mine.csv, target: class}", text)


CASES += [
    Case("data-nul-in-a-cell", with_data(""), ("mine.csv", "non-numeric value", "line 42"),
         files={"mine.csv": SMALL_CSV + "1,\x002,x\n"}),
    Case("data-field-beyond-csv-limit", with_data(""),
         ("mine.csv", "line 42", "field larger than field limit"),
         files={"mine.csv": SMALL_CSV + "1," + "9" * 200_000 + ",x\n"}),
    Case("data-1e400-is-infinite", with_data(""),
         ("mine.csv", "infinite value in column 'b', line 42"),
         files={"mine.csv": SMALL_CSV + "1,1e400,x\n"}),
    Case("data-empty-file", with_data(""), ("mine.csv", "empty"), files={"mine.csv": ""}),
    Case("data-header-only", with_data(""), ("mine.csv", "no rows"),
         files={"mine.csv": "a,b,class\n"}),
    Case("data-one-class", with_data(""), ("mine.csv", "single class"),
         files={"mine.csv": "a,class\n1,x\n2,x\n3,x\n"}),
    Case("data-ragged-line", with_data(""), ("mine.csv", "line 3 has 2 fields"),
         files={"mine.csv": "a,b,class\n1,2,x\n3,y\n"}),
    Case("data-header-names-the-target-twice", with_data(""),
         ("mine.csv", "line 1: the column name 'class' appears twice (columns 3 and 4)"),
         files={"mine.csv": "a,b,class,class\n" + "".join(
             f"{r},{r.rsplit(',', 1)[1]}\n" for r in SMALL_CSV.splitlines()[1:])}),
    Case("data-header-names-a-feature-twice", with_data(""),
         ("mine.csv", "line 1: the column name 'a' appears twice (columns 1 and 2)"),
         files={"mine.csv": "a,a,class\n" + "".join(SMALL_CSV.splitlines(True)[1:])}),
    Case("data-arff-garbage", swap(MINE, "{name: mine, path: mine.arff}"),
         ("mine.arff", "not a readable ARFF file"),
         files={"mine.arff": "@relation x\n@attribute a numeric\n@data\nfoo,bar\n"}),
    Case("data-path-is-a-folder", swap("path: small.csv", "path: earlier"),
         ("datasets[0]", "no such file")),
    Case("data-latin1-labels", with_data(""), expect="handled",
         files={"mine.csv": SMALL_CSV + "1,2,\udce9t\udce9\n"}),
    Case("data-extreme-values-every-scaling-tree",
         swap("algorithms: [cart-ap]", "algorithms: [umt, gdt, oc1, fdt, quest, ldt, hhcart-d, "
              "cart-lc]", "").replace(MINE, "{name: ext, path: ext.csv, target: class}"),
         expect="handled", files={"ext.csv": EXTREME_CSV}),
    Case("generator-two-rows-one-class", swap(MINE, "{name: twonorm_gen, params: {n: 2}}"),
         ("datasets[0]", "single class")),
    Case("seed-date", base("seed: 2020-01-01\n"), ("seed: must be an integer",)),
    Case("seed-negative", base("seed: -1\n"), ("seed: must be an integer >= 0",)),
    Case("seed-huge-is-fine", base("seed: 1000000000000000000000000000000\n"),
         expect="handled"),
    Case("folds-beyond-rows", swap("folds: 2", "folds: 1000000"),
         ("protocol", "1000000 folds need at least")),
    Case("label-noise-above-one", swap("repeats: 1}", "repeats: 1, label_noise: 1.5}"),
         ("protocol.label_noise",)),
    Case("n-jobs-huge", base("n_jobs: 1000000\n"), ("n_jobs: must be an integer <= 1024",)),
    Case("backend-unknown", base("backend: mpi\n"), ("backend", "unknown backend 'mpi'")),
    Case("yaml-unknown-tag", swap("protocol: {", "protocol: !foo {"),
         ("line 4", "invalid YAML", "!foo")),
    Case("long-name-is-cut", swap("[{name: small, path: small.csv, target: class}]",
                                  "[" + "h" * 100_000 + "]"), ("unknown dataset 'hhh", "...")),
    Case("yaml-tab-indent", "name: bad\ndatasets:\n\t- heart\n", ("invalid YAML",)),
    # more of the same family: numbers YAML reads as big ints, nan or inf; odd encodings
    Case("folds-bigint", swap("folds: 2", "folds: 100000000000000000000"),
         ("protocol", "100000000000000000000 folds need at least")),
    Case("prune-fraction-negative", swap("repeats: 1}", "repeats: 1, prune_fraction: -0.2}"),
         ("protocol.prune_fraction", "(got -0.2)")),
    Case("prune-fraction-nan", swap("repeats: 1}", "repeats: 1, prune_fraction: .nan}"),
         ("protocol.prune_fraction", "(got nan)")),
    Case("seed-inf", base("seed: .inf\n"), ("seed: must be an integer (got inf)",)),
    Case("name-dot-dot", swap("name: bad", "name: '..'"), ("name: must be a plain name",)),
    Case("config-crlf-line-ends", base().replace("\n", "\r\n"), expect="handled"),
    Case("config-utf8-bom", "\ufeff" + base(), expect="handled"),
    Case("data-class-label-with-newline", with_data(""), expect="handled",
         files={"mine.csv": SMALL_CSV + '1,2,"x\ny"\n2,3,"x\ny"\n'}),
    Case("imports-plugin-exits-0", base("imports: [plug.py]\n"),
         ("imports[0]", "plug.py failed: SystemExit: 0"),
         files={"plug.py": "import sys\nsys.exit(0)\n"}),
    Case("imports-plugin-exits-3", base("imports: [plug.py]\n"),
         ("imports[0]", "plug.py failed: SystemExit: 3"),
         files={"plug.py": "raise SystemExit(3)\n"}),
    Case("imports-plugin-raises", base("imports: [plug.py]\n"),
         ("imports[0]", "plug.py failed: ZeroDivisionError"), files={"plug.py": "1 / 0\n"}),
]

# A reference file is read with the config, not after the run's tasks (a binary one or
# one without its columns used to fail only when the tables were printed).
CASES += [
    Case("reference-binary", base("reference: ref.csv\n"),
         ("reference.file", "ref.csv", "unreadable reference file"),
         files={"ref.csv": bytes(range(256)).decode("utf-8", "surrogateescape") * 4}),
    Case("reference-without-its-columns", base("reference: ref.csv\n"),
         ("reference.file", "missing column(s) 'dataset'"), files={"ref.csv": "foo,bar\n1,2\n"}),
    Case("reference-mean-not-a-number", base("reference: {file: ref.csv}\n"),
         ("reference.file", "line 2: mean is not a number"),
         files={"ref.csv": "dataset,method,metric,mean,sd\nsmall,cart-ap,test_accuracy,lots,\n"}),
    Case("reference-is-a-folder", base("reference: earlier\n"),
         ("reference.file", "no such file")),
    Case("reference-with-bom", base("reference: ref.csv\n"), expect="handled",
         files={"ref.csv": "\ufeffdataset,method,metric,mean,sd\n"
                           "small,cart-ap,test_accuracy,90.0,1.0\n"}),
]

# A CSV saved by a spreadsheet starts with a byte-order mark: it is not part of the first
# column's name (the target 'class' was "not found" among '\ufeffclass, a, b').
TARGET_FIRST = "\ufeffclass,a,b\n" + "".join(
    f"{k.strip()},{a},{b}\n" for a, b, k in (row.split(",") for row in SMALL_CSV.splitlines()[1:]))
CASES += [
    Case("data-bom-target-first", swap(MINE, "{name: mine, path: mine.csv, target: class}"),
         expect="handled", files={"mine.csv": TARGET_FIRST}),
    Case("data-bom-no-header", swap(MINE, "{name: file, label: mine, params: {path: mine.csv, "
                                          "header: false}}"),
         expect="handled", files={"mine.csv": "\ufeff" + "".join(SMALL_CSV.splitlines(True)[1:])}),
]

MATH_LABELS = swap("algorithms: [cart-ap]",
                   "algorithms: [{name: cart-ap, label: '$\\undefinedmacro$'}, "
                   "{name: id3, label: 'x_1^2 $$'}]").replace(
    "datasets: [{name: small, path: small.csv, target: class}]",
    "datasets: [{name: '$\\frac{a}{b}$', path: small.csv, target: class}, "
    "{name: 'a$b', path: small.csv, target: class}]")
CASES += [
    Case(f"math-text-labels-{command[0]}{'-' + command[1] if command[0] == 'plot' else ''}",
         MATH_LABELS, expect="handled", command=command)
    for command in [("report", "{out}", "-o", "{out}/report.html"),
                    ("plot", "size", "{out}", "-o", "{out}/size"),
                    ("plot", "cd", "{out}", "-o", "{out}/cd"),
                    ("table", "{out}"), ("stats", "{out}")]
]


# Characters the figures' font lacks (emoji, CJK): drawn as boxes, without matplotlib's two
# warning lines per character and save.
GLYPH_LABELS = swap("algorithms: [cart-ap]",
                    "algorithms: [{name: cart-ap, label: '🌲 CART ✓'}, {name: id3, "
                    "label: 'ID3 👍'}]").replace(
    "datasets: [{name: small, path: small.csv, target: class}]",
    "datasets: [{name: '🌳 data', path: small.csv, target: class}, "
    "{name: 'データ', path: small.csv, target: class}]")
CASES += [
    Case(f"glyphless-labels-{command[0]}{'-' + command[1] if command[0] == 'plot' else ''}",
         GLYPH_LABELS, expect="handled", command=command)
    for command in [("report", "{out}", "-o", "{out}/report.html"),
                    ("plot", "size", "{out}", "-o", "{out}/size"),
                    ("plot", "cd", "{out}", "-o", "{out}/cd"),
                    ("table", "{out}")]
]


_HASHED_BYTES = 1 << 24  # larger files are compared by size and modification time


def _snapshot(folder: Path) -> dict[str, str]:
    """{path: digest} of the regular files below ``folder``, links not followed (a link
    is recorded as where it points)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_symlink():
            out[str(p.relative_to(folder))] = f"-> {os.readlink(p)}"
        elif p.is_file() and p.stat().st_size > _HASHED_BYTES:  # a planted 600 MB model
            info = p.stat()
            out[str(p.relative_to(folder))] = f"{info.st_size} bytes at {info.st_mtime_ns}"
        elif p.is_file():
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


class _Hang(Exception):
    """A case ran past ``TIMEOUT``."""


@contextlib.contextmanager
def _time_limit(seconds: int):
    """Raise ``_Hang`` in the command after ``seconds`` (SIGALRM; main thread only)."""
    def hang(signum, frame):
        raise _Hang()

    try:
        previous = signal.signal(signal.SIGALRM, hang)
    except ValueError:  # not the main thread: no limit
        yield
        return
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


EARLIER_RUNS = "config_hash,dataset\nabc,earlier\n"

# The results a command case reads, by (config, its files, its setup): about 100 cases
# read the runs of a few configs, so each config is run once in a folder of its own and
# its results copied into each case's folder, the absolute paths they hold (meta.json
# names the data file) rewritten to the case's. A run is deterministic, so the copy holds
# what a run in the case's folder would, the times apart, for every command that reads
# results. Not for a case whose command is itself a run (--resume, --force): a task's
# identity digests the data file's absolute path, so its rows and prediction files would
# be another folder's, and that command then reads them as such.
_RUNS: dict = {}


def _run_config(folder: Path) -> str:
    """``obliq run exp.yaml -o out`` in ``folder`` (its working directory too): the failed
    run's output, or ''."""
    from click.testing import CliRunner

    from obliq_cli.cli import main

    cwd = os.getcwd()
    os.chdir(folder)
    try:
        ran = CliRunner().invoke(main, ["run", str(folder / "exp.yaml"), "-o",
                                        str(folder / "out"), "--no-progress"])
    finally:
        os.chdir(cwd)
    return ran.output if ran.exit_code != 0 else ""


def _results_of_config(case: Case, workdir: Path) -> str:
    """The results of ``case``'s config in ``workdir/out``: the failed run's output, or
    ''. Copied from the config's one run, but for a case whose command is itself a run
    (made in place)."""
    if case.command[0] == "run":
        return _run_config(workdir)
    import atexit
    import shutil
    import tempfile

    key = (case.config, tuple(sorted(case.files.items())), case.setup)
    if key not in _RUNS:
        home = Path(tempfile.mkdtemp(prefix="obliq-corpus-run-"))
        atexit.register(shutil.rmtree, home, True)
        for name in [*case.files, "small.csv", "exp.yaml"]:
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(workdir / name, home / name)
        if case.setup is not None:
            case.setup(home)
        _RUNS[key] = (home, _run_config(home))
    home, failed = _RUNS[key]
    if failed:
        return failed
    out = workdir / "out"
    shutil.copytree(home / "out", out, symlinks=True)
    old, new = str(home).encode(), str(workdir).encode()
    for path in out.rglob("*"):
        if path.is_file() and not path.is_symlink() and old in path.read_bytes():
            path.write_bytes(path.read_bytes().replace(old, new))
    return ""


def run_case(case: Case, workdir: Path) -> tuple[str, str]:
    """(outcome, detail) of one case run in the empty folder ``workdir``."""
    from click.testing import CliRunner

    from obliq_cli.cli import main

    if case.runner is not None:
        return case.runner(case, workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "exp.yaml"
    text = case.config.encode("utf-8", errors="surrogateescape")
    config.write_bytes(text)
    (workdir / "small.csv").write_text(SMALL_CSV)
    for name, content in case.files.items():
        (workdir / name).parent.mkdir(parents=True, exist_ok=True)
        (workdir / name).write_bytes(content.encode("utf-8", errors="surrogateescape"))
    if case.setup is not None:
        case.setup(workdir)
    earlier = workdir / "earlier"
    earlier.mkdir()
    (earlier / "runs.csv").write_text(EARLIER_RUNS)
    outside = workdir / "outside"  # what a link planted in the output folder points at
    (outside / "folder").mkdir(parents=True)
    (outside / "secret.txt").write_text("secret\n")
    (outside / "folder" / "keep.npz").write_text("keep\n")
    out = workdir / "out"
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        if case.command == ("run",):
            args = ["run", str(config), "-o", str(out), "--no-progress"]
        elif not any("{out}" in a for a in case.command):  # on files of its own
            args = list(case.command)
        else:  # a command on the results of the (valid) config
            failed = _results_of_config(case, workdir)
            if failed:
                return "traceback", f"the config to report on failed: {failed[-300:]}"
            args = [a.replace("{out}", str(out)) for a in case.command]
            if case.damage is not None:
                case.damage(out)
        if case.plant is not None:
            case.plant(workdir, out)
        before = _snapshot(workdir)
        with warnings.catch_warnings(record=True) as caught, _time_limit(TIMEOUT):
            warnings.simplefilter("always")  # the same under pytest (which records them)
            result = CliRunner().invoke(main, args)
    finally:
        os.chdir(cwd)
    lines = result.output.strip().splitlines()
    warned = [f"{w.category.__name__}: {w.message}" for w in caught] + [
        line for line in lines if re.search(r"\w+Warning: ", line)]
    after = _snapshot(workdir)
    if isinstance(result.exception, _Hang):
        return "hang", f"no end after {TIMEOUT} s"
    touched = sorted(k for k in set(before) | set(after)
                     if k.startswith("outside/") and before.get(k) != after.get(k))
    if touched:
        return "outside", f"written outside the output folder: {touched}"
    if any(after.get(k) != v and not (k.startswith(case.changes) and k in after)
           for k, v in before.items()):
        return "lost", f"changed: {sorted(k for k, v in before.items() if after.get(k) != v)}"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return "traceback", f"{type(result.exception).__name__}: {result.exception}"[:300]
    if result.exit_code == 2:
        written = sorted(set(after) - set(before))
        errors = [line for line in lines if line.startswith("error: ")]
        if len(lines) != 1 or len(errors) != 1:
            return "traceback", f"not one error line: {lines[:5]}"
        if written:
            return "traceback", f"wrote {written} before failing"
        if len(lines[0]) > 1100:
            return "clean-but-unbounded", f"an error line of {len(lines[0])} characters"
        if case.names is None:
            named = None
        elif case.names == "exp.yaml":
            named = str(workdir / case.names)
        else:
            named = case.names.replace("{out}", str(out))
        missing = [f for f in ((named,) if named else ()) + tuple(case.fragments)
                   if f not in lines[0]]
        if missing:
            return "clean-but-vague", f"{lines[0]} lacks {missing}"
        if warned:
            return "clean-but-warned", f"{len(warned)} warning(s): {warned[0]}"
        return "clean", lines[0]
    if result.exit_code == 1 and (out / "runs.csv").is_file():
        return "recorded", lines[-1] if lines else ""
    if result.exit_code == 0:
        if warned:  # a handled case says nothing but its results (no RuntimeWarning pages)
            return "handled-but-warned", f"{len(warned)} warning(s): {warned[0]}"
        unsaid = [text for text in case.says if text not in result.output]
        if unsaid:
            return "wrong", f"the output does not say {unsaid}"
        return "handled", lines[-1] if lines else ""
    return "traceback", f"exit {result.exit_code}: {lines[-3:]}"


def algorithm(text: str) -> str:
    """The small config with ``text`` as its one algorithm."""
    return swap("algorithms: [cart-ap]", f"algorithms: [{text}]")


# Parameters bounded on both sides before the run: each of these once passed
# the config check and then hung, or failed in every task with a numba TypingError, an
# OverflowError or a libsvm run that never ended.
BIG = "100000000000000000000000000000"  # 1e29 as YAML's int, beyond int64
CASES += [
    Case("param-oc1-n-jumps-1e9", algorithm("{name: oc1, params: {n_jumps: 1000000000}}"),
         ("algorithms[0].params.n_jumps", "[0, 1000000]", "got 1000000000")),
    Case("param-oc1-max-stagnant-bigint",
         algorithm(f"{{name: oc1, params: {{max_stagnant: {BIG}}}}}"),
         ("algorithms[0].params.max_stagnant", f"got {BIG}")),
    Case("param-oc1-n-jumps-float", algorithm("{name: oc1, params: {n_jumps: 1.0e+29}}"),
         ("algorithms[0].params.n_jumps", "must be an int", "got 1e+29")),
    Case("param-apdt-window-bigint",
         algorithm(f"{{name: apdt, params: {{temperature_window: {BIG}}}}}"),
         ("algorithms[0].params.temperature_window", f"got {BIG}")),
    Case("param-apdt-delta-inf", algorithm("{name: apdt, params: {delta: .inf}}"),
         ("algorithms[0].params.delta", "got inf")),
    Case("param-umt-c-step-bigint", algorithm(f"{{name: umt, params: {{c_step: {BIG}}}}}"),
         ("algorithms[0].params.c_step", "(0.0, 2e+06]", f"got {BIG}")),
    Case("param-umt-c-min-nan", algorithm("{name: umt, params: {c_min: .nan}}"),
         ("algorithms[0].params.c_min", "got nan")),
    Case("param-svm-gamma-grid-1e308",
         algorithm("{name: svm, params: {gamma_grid: [1.0e+308]}}"),
         ("algorithms[0].params.gamma_grid", "[1e-06, 1e+06]")),
    Case("param-svm-c-grid-1e6", algorithm("{name: svm, params: {c_grid: [1.0, 1.0e+6]}}"),
         ("algorithms[0].params.c_grid", "[1e-06, 10000.0]")),
    Case("param-gepsvm-sigma-grid-1e308",
         algorithm("{name: gepsvm, params: {kernel: rbf, sigma_grid: [1.0e+308]}}"),
         ("algorithms[0].params.sigma_grid",)),
    Case("param-gepsvm-rbf-delta-0",
         algorithm("{name: gepsvm, params: {kernel: rbf, delta: 0}}"),
         ("algorithms[0].params.delta", "above 0 with kernel 'rbf'")),
    Case("param-cart-lc-tol-nan", algorithm("{name: cart-lc, params: {tol: .nan}}"),
         ("algorithms[0].params.tol", "got nan")),
    Case("param-max-depth-bigint",
         algorithm(f"{{name: cart-ap, params: {{max_depth: {BIG}}}}}"),
         ("algorithms[0].params.max_depth", f"got {BIG}")),
    Case("param-min-samples-leaf-negative",
         algorithm("{name: fdt, params: {min_samples_leaf: -1}}"),
         ("algorithms[0].params.min_samples_leaf", "got -1")),
    Case("param-hhcart-rows-per-feature-inf",
         algorithm("{name: hhcart-d, params: {oblique_rows_per_feature: .inf}}"),
         ("algorithms[0].params.oblique_rows_per_feature", "got inf")),
    Case("param-random-state-beyond-2-32",
         algorithm("{name: cart-ap, params: {random_state: 4294967296}}"),
         ("algorithms[0].params.random_state", "got 4294967296")),
    Case("param-per-dataset-bigint", algorithm(
        f"{{name: oc1, dataset_params: {{small: {{n_jumps: {BIG}}}}}}}"),
         ("algorithms[0].dataset_params.small.n_jumps", f"got {BIG}")),
    Case("pruner-cc-cv-folds-1000",
         algorithm("{name: cart-ap, pruner: {name: cc, params: {cv_folds: 1000}}}"),
         ("algorithms[0].pruner.params.cv_folds", "at most the 20 rows", "got 1000")),
    Case("pruner-cc-cv-folds-beyond-bound",
         algorithm("{name: cart-ap, pruner: {name: cc, params: {cv_folds: 1001}}}"),
         ("algorithms[0].pruner.params.cv_folds", "[2, 1000]", "got 1001")),
    Case("pruner-cc-se-rule-nan",
         algorithm("{name: cart-ap, pruner: {name: cc, params: {se_rule: .nan}}}"),
         ("algorithms[0].pruner.params.se_rule", "got nan")),
]

# Protocol and dataset fields: sizes are finite, a dataset's own sizes are used or
# refused whichever form names it, and output: null is no folder called None.
SPLIT = "{name: random_split, train_size: 0.5}"
CASES += [
    Case("protocol-train-size-nan", swap("{name: kfold, folds: 2, repeats: 1}",
                                         "{name: random_split, train_size: .nan}"),
         ("protocol.train_size", "got nan")),
    Case("protocol-test-size-nan", swap("{name: kfold, folds: 2, repeats: 1}",
                                        "{name: random_split, train_size: 0.5, test_size: .nan}"),
         ("protocol.test_size", "got nan")),
    Case("protocol-train-size-inf", swap("{name: kfold, folds: 2, repeats: 1}",
                                         "{name: random_split, train_size: .inf}"),
         ("protocol.train_size", "got inf")),
    Case("dataset-long-form-train-size-nan", swap(
        "{name: kfold, folds: 2, repeats: 1}", SPLIT).replace(
        MINE, "{name: file, label: small, params: {path: small.csv, target: class}, "
              "protocol: {train_size: .nan}}"),
         ("datasets[0].protocol.train_size", "got nan")),
    Case("dataset-shorthand-train-size-nan", swap("{name: kfold, folds: 2, repeats: 1}", SPLIT)
         .replace("target: class}", "target: class, protocol: {train_size: .nan}}"),
         ("datasets[0].protocol.train_size", "got nan")),
    Case("dataset-shorthand-train-size-too-many-rows",
         swap("{name: kfold, folds: 2, repeats: 1}", SPLIT)
         .replace("target: class}", "target: class, protocol: {train_size: 1000}}"),
         ("train_size 1000 is 1000 of its 40 rows",)),
    Case("dataset-shorthand-size-under-kfold", base()
         .replace("target: class}", "target: class, protocol: {train_size: 30}}"),
         ("datasets[0].protocol.train_size", "protocol 'kfold' has no 'train_size'")),
    Case("dataset-shorthand-size-used", swap("{name: kfold, folds: 2, repeats: 1}", SPLIT)
         .replace("target: class}", "target: class, protocol: {train_size: 30}}"),
         expect="handled"),
    Case("dataset-shorthand-path-number", swap("path: small.csv", "path: 3"),
         ("datasets[0].path", "must be a non-empty string (got 3)")),
    Case("output-null", base("output: null\n"), ("output: must be a folder path", "got null")),
    Case("output-empty", base("output:\n"), ("output: must be a folder path", "got null")),
    Case("output-list", base("output: [a, b]\n"), ("output: must be a folder path",)),
]

# Data that cannot mean what it says is refused before the run.
CODES_CSV = "a,b,class\n" + "".join(  # 20-digit codes: one float64, two classes
    f"{i % 7},{(i * 3) % 11},{12345678901234567890 + i % 2}\n" for i in range(40))
PRICES_CSV = "a,b,price\n" + "".join(f"{i % 7},{(i * 3) % 11},{i * 1.37:.2f}\n"
                                     for i in range(60))
FORTY_CLASSES_CSV = "a,b,class\n" + "".join(f"{i},{i % 3},{i // 5}\n" for i in range(200))
CASES += [
    Case("data-label-codes-collapse", with_data(""),
         ("mine.csv", "'12345678901234567890' and '12345678901234567891' are different "
          "numbers"), files={"mine.csv": CODES_CSV}),
    Case("data-target-continuous", swap(MINE, "{name: mine, path: mine.csv, target: price}"),
         ("mine.csv", "'price' looks continuous (60 distinct numbers in 60 rows)",
          "target_is_label: true"), files={"mine.csv": PRICES_CSV}),
    Case("data-many-numeric-classes-declared",
         swap(MINE, "{name: mine, path: mine.csv, target: class, target_is_label: true}"),
         expect="handled", files={"mine.csv": FORTY_CLASSES_CSV}),
    Case("data-many-numeric-classes-undeclared", with_data(""),
         ("mine.csv", "looks continuous (40 distinct numbers in 200 rows)"),
         files={"mine.csv": FORTY_CLASSES_CSV}),
    Case("data-target-is-label-not-boolean",
         swap(MINE, "{name: mine, path: mine.csv, target: class, target_is_label: yes please}"),
         ("datasets[0].target_is_label", "true or false")),
    Case("data-no-feature-columns", with_data(""), ("mine.csv", "no feature columns"),
         files={"mine.csv": "class\n" + "x\ny\n" * 10}),
    Case("data-semicolons-under-comma", with_data(""),
         ("mine.csv", "with delimiter ';' it reads as a table of 3 columns"),
         files={"mine.csv": SMALL_CSV.replace(",", ";")}),
    Case("data-tabs-ragged-under-comma", with_data(""),
         ("mine.csv", "with delimiter '\\t' it reads as a table of 3 columns"),
         files={"mine.csv": "a\tb\tclass\n1,5\t2\tx\n3\t4\ty\n" * 1}),
    Case("data-arff-no-data-section", swap(MINE, "{name: mine, path: mine.arff}"),
         ("mine.arff", "no @data section"),
         files={"mine.arff": "@relation x\n@attribute a numeric\n@attribute class {x,y}\n"}),
]

# ---- hostile model files (`obliq predict`): each was a traceback, a hang or predictions
# from a broken tree on main; the file is checked as a whole before use (model_schema).
MODEL = {
    "format": "obliq-model", "format_version": 2, "obliq_version": "0.1.0",
    "algorithm": "cart-ap", "params": {}, "pruner": None,
    "trained_on": {"dataset": "small", "seed": 0}, "feature_names": ["a", "b"],
    "classes": ["x", "y"],
    "preprocess": {"input_names": ["a", "b"], "nominal": [], "categories": None,
                   "missing": "error", "fill": None, "encoding": "codes",
                   "output_names": ["a", "b"]},
    "estimator": {"classes": ["x", "y"], "tree": {
        # root a <= 3 -> leaf 1; else node 2: b <= 5 -> leaves 3 and 4
        "format": "obliq-tree/1", "children_left": [1, -1, 3, -1, -1],
        "children_right": [2, -1, 4, -1, -1], "feature": [0, -1, 1, -1, -1],
        "weights": [[1.0, 0.0], [0.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]],
        "threshold": [3.0, 0.0, 5.0, 0.0, 0.0],
        "value": [[20, 20], [15, 2], [5, 18], [4, 3], [1, 15]]}},
}
MULTIWAY = {  # a nominal root on column a's codes 0, 1, 2 (its CSR children 1, 2, 5)
    "format": "obliq-tree/2", "children_left": [1, -1, 3, -1, -1, -1],
    "children_right": [5, -1, 4, -1, -1, -1], "feature": [0, -1, 1, -1, -1, -1],
    "weights": [[1, 0], [0, 0], [0, 1], [0, 0], [0, 0], [0, 0]],
    "threshold": [0, 0, 2.5, 0, 0, 0], "value": [[6, 6], [3, 0], [2, 3], [2, 0], [0, 3], [1, 3]],
    "kind": [1, 0, 0, 0, 0, 0], "branch_ptr": [0, 3, 3, 5, 5, 5, 5],
    "branch_child": [1, 2, 5, 3, 4], "missing": [-1, -2, 0, -2, -2, -2]}


def _model(*edits) -> str:
    """The valid model's JSON with ``edits`` made: (path, value) pairs; a path is keys
    from the top ("estimator.tree.children_left.2"); the value DROP deletes the key."""
    import copy
    import json
    data = copy.deepcopy(MODEL)
    for path, value in edits:
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        target = data
        for key in keys[:-1]:
            target = target[key]
        if value is DROP:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value
    return json.dumps(data)  # NaN and Infinity written as JSON's extension (Python reads it)


DROP = object()
T = "estimator.tree."
PREDICT = ("predict", "m.json", "small.csv")


def model_case(id: str, text: str | None, fragments=(), expect: str = "clean", **kw) -> Case:
    return Case(f"model-{id}", base(), fragments, expect,
                files={} if text is None else {"m.json": text},
                command=kw.pop("command", PREDICT), names=kw.pop("names", "m.json"), **kw)


def _fifo(workdir: Path) -> None:
    os.mkfifo(workdir / "m.json")


def _sparse(workdir: Path) -> None:
    with open(workdir / "m.json", "wb") as f:  # 600 MiB without writing them
        f.truncate(600 << 20)


def _nested(depth: int) -> str:
    return _model(("trained_on.note", json_nest(depth)))


def json_nest(depth: int):
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


CASES += [
    model_case("valid-predicts", _model(), expect="handled"),
    model_case("version-1-still-loads", _model(("format_version", 1), ("preprocess", DROP)),
               expect="handled"),
    model_case("multiway-valid-predicts", _model((T[:-1], MULTIWAY)),
               expect="handled"),
    # the node graph
    model_case("child-out-of-range", _model((T + "children_left.2", 17)),
               ("estimator.tree.children_left[2]: 17 is not a node (the tree has 5)",)),
    model_case("child-negative", _model((T + "children_right.0", -5)),
               ("estimator.tree.children_right[0]: -5 is not a node",)),
    model_case("child-bigint", _model((T + "children_left.0", 10**30)),
               ("estimator.tree.children_left[0]", "is not an integer in range")),
    model_case("child-boolean", _model((T + "children_left.0", True)),
               ("estimator.tree.children_left[0]: True is not an integer",)),
    model_case("child-float", _model((T + "children_left.0", 1.5)),
               ("estimator.tree.children_left[0]: 1.5 is not an integer",)),
    model_case("cycle-self-loop", _model((T + "children_right.2", 2)),
               ("estimator.tree.children_right[2]: 2 does not come after its parent 2",)),
    model_case("cycle-back-to-root", _model((T + "children_right.2", 0)),
               ("estimator.tree.children_right[2]: 0 does not come after its parent 2",)),
    model_case("shared-child", _model((T + "children_right.0", 3)),
               ("node 3 is a child of nodes 0 and 2",)),
    model_case("children-out-of-preorder",
               _model((T + "children_left.0", 2), (T + "children_right.0", 1)),
               ("estimator.tree.children_left[0]: node 0's child 2 is not where preorder "
                "puts it (node 1)",)),
    model_case("node-never-reached", _model(*[(T + k, v) for k, v in {
        "children_left": [1, -1, 3, -1, -1, -1], "children_right": [2, -1, 4, -1, -1, -1],
        "feature": [0, -1, 1, -1, -1, -1], "threshold": [3.0, 0, 5.0, 0, 0, 0],
        "weights": [[1, 0], [0, 0], [0, 1], [0, 0], [0, 0], [0, 0]],
        "value": [[20, 20], [15, 2], [5, 18], [4, 3], [1, 15], [9, 9]]}.items()]),
               ("estimator.tree.children_left: the tree from node 0 reaches 5 of its 6 nodes",)),
    model_case("leaf-on-one-side", _model((T + "children_right.1", 2)),
               ("estimator.tree.children_left[1]", "a leaf on both sides or on neither")),
    model_case("no-nodes", _model(*[(T + k, []) for k in (
        "children_left", "children_right", "feature", "threshold", "weights", "value")]),
               ("estimator.tree.children_left: must be a non-empty list",)),
    model_case("arrays-of-unequal-length", _model((T + "feature", [0, -1, 1])),
               ("estimator.tree.feature: has 3 entries for a tree of 5 nodes",)),
    model_case("children-not-a-list", _model((T + "children_left", "1,-1,3,-1,-1")),
               ("estimator.tree.children_left: must be a non-empty list of integers",)),
    model_case("tree-not-an-object", _model((T[:-1], [1, 2])),
               ("estimator.tree: must be an object (got a list)",)),
    model_case("tree-format-unknown", _model((T + "format", "obliq-tree/9")),
               ("estimator.tree.format", "'obliq-tree/9'")),
    # features and numbers
    model_case("feature-past-columns", _model((T + "feature.0", 5)),
               ("estimator.tree.feature[0]: 5 is not a feature index (the tree has 2 "
                "features)",)),
    model_case("feature-negative", _model((T + "feature.2", -7)),
               ("estimator.tree.feature[2]: -7 is not a feature index",)),
    model_case("feature-at-a-leaf", _model((T + "feature.3", 1)),
               ("estimator.tree.feature[3]: 1 at a leaf",)),
    model_case("weight-nan", _model((T + "weights.0.0", float("nan"))),
               ("estimator.tree.weights[0][0]: nan is not a finite number",)),
    model_case("weight-inf", _model((T + "weights.2.1", float("inf"))),
               ("estimator.tree.weights[2][1]: inf is not a finite number",)),
    model_case("weight-huge-int", _model((T + "weights.2.1", 10**400)),
               ("estimator.tree.weights[2][1]", "is not a finite number")),
    model_case("weight-string", _model((T + "weights.0.1", "0")),
               ("estimator.tree.weights[0][1]: '0' is not a number",)),
    model_case("weights-ragged", _model((T + "weights.3", [0.0])),
               ("estimator.tree.weights[3]: has 1 entries where estimator.tree.weights[0] "
                "has 2",)),
    model_case("threshold-minus-inf", _model((T + "threshold.0", float("-inf"))),
               ("estimator.tree.threshold[0]: -inf is not a finite number",)),
    model_case("threshold-null", _model((T + "threshold.2", None)),
               ("estimator.tree.threshold[2]: None is not a number",)),
    model_case("value-nan", _model((T + "value.4.1", float("nan"))),
               ("estimator.tree.value[4][1]: nan is not a finite number",)),
    model_case("value-negative", _model((T + "value.3.0", -4)),
               ("estimator.tree.value[3][0]: -4.0 is not a class count",)),
    # classes and names
    model_case("classes-scalar", _model(("classes", "x")),
               ("classes: must be a non-empty list of class labels (got a string)",)),
    model_case("classes-too-short", _model(("classes", ["x"]), ("estimator.classes", ["x"])),
               ("classes: 1 classes for a tree whose value array has 2 columns",)),
    model_case("classes-too-long", _model(("classes", ["x", "y", "z"]),
                                          ("estimator.classes", ["x", "y", "z"])),
               ("classes: 3 classes for a tree whose value array has 2 columns",)),
    model_case("classes-twice", _model(("classes", ["x", "x"]),
                                       ("estimator.classes", ["x", "x"])),
               ("classes: a class appears twice",)),
    model_case("class-an-object", _model(("classes", [{"x": 1}, "y"])),
               ("classes[0]: {'x': 1} is not a class label",)),
    model_case("classes-disagree", _model(("estimator.classes", ["y", "x"])),
               ("estimator.classes: ['y', 'x'] are not the model's classes",)),
    model_case("feature-names-not-strings", _model(("feature_names", [1, 2])),
               ("feature_names[0]: 1 is not a string",)),
    model_case("feature-names-twice", _model(("feature_names", ["a", "a"])),
               ("feature_names: 'a' appears twice",)),
    model_case("feature-names-too-many", _model(("feature_names", ["a", "b", "c"])),
               ("feature_names: 3 names for a tree of 2 features",)),
    model_case("algorithm-number", _model(("algorithm", 3)),
               ("algorithm: must be an algorithm's name (got 3)",)),
    model_case("algorithm-unknown", _model(("algorithm", "nope")), ("nope",)),
    model_case("algorithm-not-one-tree", _model(("algorithm", "svm")),
               ("algorithm: svm is not a single tree",)),
    model_case("params-a-list", _model(("params", [1, 2])),
               ("params: must be an object or null (got a list)",)),
    model_case("version-a-string", _model(("format_version", "2")),
               ("model format version '2'",)),
    model_case("version-true", _model(("format_version", True)),
               ("model format version True",)),
    model_case("input-exponents-huge", _model(("estimator.input_exponents", [5000, 0])),
               ("estimator.input_exponents[0]: 5000 is not a column scaling exponent",)),
    # the preprocess block
    model_case("preprocess-output-other", _model(("preprocess.output_names", ["b", "a"])),
               ("preprocess.output_names: are not the model's feature_names",)),
    model_case("preprocess-missing-unknown", _model(("preprocess.missing", "sometimes")),
               ("preprocess.missing: 'sometimes' is not one of",)),
    model_case("preprocess-nominal-unknown", _model(("preprocess.nominal", ["zz"])),
               ("preprocess.nominal[0]: 'zz' is not one of input_names",)),
    model_case("preprocess-input-not-strings", _model(("preprocess.input_names", [0, 1])),
               ("preprocess.input_names[0]: 0 is not a string",)),
    model_case("preprocess-fill-nan", _model(("preprocess.missing", "impute"),
                                             ("preprocess.fill", {"a": float("nan"), "b": 1})),
               ("preprocess.fill.a: nan is not a finite number",)),
    model_case("preprocess-a-string", _model(("preprocess", "codes")),
               ("preprocess: must be an object or null (got a string)",)),
    model_case("delimiter-two-chars", _model(("trained_on.delimiter", ";;")),
               ("trained_on.delimiter: must be one character (got ';;')",)),
    # the multiway CSR
    model_case("csr-child-out-of-range", _model((T[:-1], {
        **MULTIWAY, "branch_child": [1, 2, 9, 3, 4]})),
               ("estimator.tree.branch_child[2]: 9 is not a node (the tree has 6)",)),
    model_case("csr-cycle", _model((T[:-1], {
        **MULTIWAY, "children_left": [1, -1, 2, -1, -1, -1], "branch_child": [1, 2, 5, 2, 4]})),
               ("estimator.tree.branch_child[3]: 2 does not come after its parent 2",)),
    model_case("csr-half-missing", _model((T[:-1], {
        k: v for k, v in MULTIWAY.items() if k != "branch_child"})),
               ("estimator.tree.branch_child: missing",)),
    model_case("nominal-without-csr", _model((T[:-1], {
        k: v for k, v in MULTIWAY.items() if k not in ("branch_child", "branch_ptr")})),
               ("estimator.tree.branch_ptr: missing",)),
    model_case("missing-rule-no-branch", _model((T[:-1], {
        **MULTIWAY, "missing": [3, -2, 0, -2, -2, -2]})),
               ("estimator.tree.missing[0]: 3 is not a missing-value rule of node 0",)),
    # the file itself
    model_case("nesting-bomb", "[" * 200_000 + "]" * 200_000,
               ("not a model file (JSON nested more than 32 levels)",)),
    model_case("nesting-40-levels", _nested(40),
               ("not a model file (JSON nested more than 32 levels)",)),
    model_case("dev-zero", None, ("not a model file (a device or special file",),
               command=("predict", "/dev/zero", "small.csv"), names="/dev/zero"),
    model_case("fifo", None, ("not a model file (a pipe, not a regular file)",), setup=_fifo),
    model_case("a-folder", None, ("not a model file (a folder",),
               command=("predict", "earlier", "small.csv"), names="earlier"),
    model_case("over-the-size-limit", None, ("not read: 629145600 bytes, more than the 512 MiB",),
               setup=_sparse),
    model_case("not-utf8", "{\"format\": \"obliq-model\udcff\"}", ("not a model file",)),
    model_case("a-list", "[1, 2, 3]", ("not an obliq model file",)),
    model_case("empty", "", ("not a model file",)),
]

# ---- results folders with damaged metadata, runs.csv or folds: one error line naming the
# file and field for every reader (run --resume, table, agree, stats, claims, report),
# never a traceback, never rows hidden without a word; an unreadable fold file is
# rewritten from the config on resume.
TWO = swap("algorithms: [cart-ap]", "algorithms: [cart-ap, id3]")
RESUME = ("run", "exp.yaml", "-o", "{out}", "--resume", "--no-progress")
READERS = {"resume": RESUME, "table": ("table", "{out}"), "agree": ("agree", "{out}"),
           "stats": ("stats", "{out}"), "claims": ("claims", "{out}"),
           "report": ("report", "{out}", "-o", "{out}/report.html")}


def _edit_meta(**fields):
    """Set meta.json's ``fields`` (``config_<key>``: a key of its config)."""
    def damage(out: Path) -> None:
        import json
        meta = json.loads((out / "meta.json").read_text())
        for key, value in fields.items():
            if key.startswith("config_"):
                meta["config"][key[len("config_"):]] = value
            elif key.startswith("history0_"):
                meta["history"][0][key[len("history0_"):]] = value
            else:
                meta[key] = value
        (out / "meta.json").write_text(json.dumps(meta))
    return damage


def _edit_file(name: str, edit):
    def damage(out: Path) -> None:
        path = out / name
        path.write_bytes(edit(path.read_bytes()))
    return damage


def _npz(**arrays) -> bytes:
    import io

    import numpy as np
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def results_case(id: str, damage, readers, fragments, names="{out}/meta.json",
                 expect="clean", says=()) -> list[Case]:
    return [Case(f"results-{id}-{reader}", TWO, fragments, expect, command=READERS[reader],
                 names=names, damage=damage, says=says) for reader in readers]


ALL = tuple(READERS)
CASES += [
    *results_case("configs-a-list", _edit_meta(configs=[1]), ALL,
                  ("configs: must be an object",)),
    *results_case("configs-value-a-string", _edit_meta(configs={"h": "x"}), ("resume", "table"),
                  ("configs.h: must be an object (got \"x\")",)),
    *results_case("configs-algorithms-a-string", _edit_meta(configs={"h": {"algorithms": "x"}}),
                  ("report", "stats"), ("configs.h.algorithms: must be a list",)),
    *results_case("history-an-object", _edit_meta(history={"a": 1}), ("resume", "report"),
                  ("history: must be a list of runs",)),
    *results_case("history-numbers", _edit_meta(history=[1, 2]), ("agree", "report"),
                  ("history[0]: must be an object (got 1)",)),
    *results_case("history-tasks-a-string", _edit_meta(history0_tasks="x"),
                  ("report", "resume"), ("history[0].tasks: must be an object",)),
    *results_case("history-task-count-a-word",
                  _edit_meta(history0_tasks={"total": "four"}), ("report",),
                  ("history[0].tasks.total: must be an integer (got \"four\")",)),
    *results_case("config-a-list", _edit_meta(config=[1]), ALL,
                  ("config: must be an object (got [1])",)),
    *results_case("config-datasets-a-string", _edit_meta(config_datasets="x"),
                  ("table", "report", "resume"), ("config.datasets: must be a list",)),
    *results_case("config-label-a-number",
                  _edit_meta(config_algorithms=[{"label": 3, "name": "cart-ap"}]),
                  ("table", "stats", "resume"),
                  ("config.algorithms[0].label: must be a string (got 3)",)),
    *results_case("config-dataset-without-label", _edit_meta(config_datasets=[{"name": "x"}]),
                  ("table", "claims"), ("config.datasets[0].label: must be a string",)),
    *results_case("config-protocol-a-list", _edit_meta(config_protocol=[]), ("resume", "table"),
                  ("config.protocol: must be an object (got [])",)),
    *results_case("config-metrics-a-string", _edit_meta(config_metrics="x"),
                  ("report", "table"), ("config.metrics: must be a list of names",)),
    *results_case("config-seed-a-word", _edit_meta(config_seed="x"), ("table", "resume"),
                  ("config.seed: must be an integer (got \"x\")",)),
    *results_case("config-seed-true", _edit_meta(config_seed=True), ("stats",),
                  ("config.seed: must be an integer (got true)",)),
    *results_case("config-imports-numbers", _edit_meta(config_imports=[1]), ("table",),
                  ("config.imports[0]: must be a name (got 1)",)),
    *results_case("name-a-list", _edit_meta(name=[1]), ALL, ("name: must be a string",)),
    *results_case("task-identities-a-string", _edit_meta(task_identities="x"),
                  ("resume", "table"), ("task_identities: must be a list of task identities",)),
    *results_case("task-identity-a-number", _edit_meta(task_identities=["ab", 3]),
                  ("table", "report"), ("task_identities[1]: must be a task identity (got 3)",)),
    *results_case("meta-truncated", _edit_file("meta.json", lambda b: b[:50]),
                  ("table", "report"), ("not valid JSON",)),
    *results_case("meta-nesting-bomb", _edit_file("meta.json", lambda b: b"[" * 100_000),
                  ("table",), ("not valid JSON",)),
    # runs.csv
    *results_case("runs-empty-column-name",
                  _edit_file("runs.csv", lambda b: b.replace(_LAST, _LAST[:-2] + b",\r\n", 1)),
                  ("table", "stats"), (f"line 1: column {len(RUN_COLUMNS) + 1} has no name",),
                  names="{out}/runs.csv"),
    *results_case("runs-duplicate-column",
                  _edit_file("runs.csv",
                             lambda b: b.replace(_LAST, _LAST[:-2] + b",depth\r\n", 1)),
                  ("table", "report", "agree"),
                  (f"line 1: the column name 'depth' appears twice (columns "
                   f"{RUN_COLUMNS.index('depth') + 1} and {len(RUN_COLUMNS) + 1})",),
                  names="{out}/runs.csv"),
    Case("results-metric-superscript-digit-table", TWO, ("tpr:K / tnr:K",),
         command=("table", "{out}", "--metric", "tpr:²"), names="unknown metric 'tpr:²'"),
    *results_case("runs-repetition-superscript",
                  _edit_file("runs.csv", lambda b: b.replace(b",small,0,", b",small,\xc2\xb2,",
                                                             1)),
                  ("table",), ("repetition must be an integer",), names="{out}/runs.csv"),
    # runs.csv and meta.json that no run leaves behind, and another config's folder
    *results_case("runs-empty", _edit_file("runs.csv", lambda b: b""), ("table", "stats"),
                  ("runs.csv: empty: not a runs.csv obliq wrote",), names="{out}/runs.csv"),
    *results_case("runs-nul-filled", _edit_file("runs.csv", lambda b: b"\0" * len(b)),
                  ("table", "agree"), ("no header line",), names="{out}/runs.csv"),
    *results_case("runs-headerless",
                  _edit_file("runs.csv", lambda b: b.split(b"\n", 1)[1]), ("table", "report"),
                  ("line 1:",), names="{out}/runs.csv"),
    *results_case("meta-missing", lambda out: (out / "meta.json").unlink(),
                  ("table", "stats", "agree"), ("meta.json: missing",)),
    *results_case("another-configs-rows", _edit_meta(task_identities=["0" * 20]),
                  ("table", "stats", "report"),
                  ("none of its 4 task(s) belongs to the config", "another config"),
                  names="{out}/runs.csv"),
    Case("results-empty-path-table", TWO, ("an empty path",), command=("table", ""),
         names=None),
    # fold files (a resume rewrites an unreadable one from the config: tests/test_resume_kill)
    Case("results-fold-truncated-plot-tree", TWO, ("folds/small.npz", "not a fold file"),
         command=("plot", "tree", "--dataset", "small", "--algorithm", "cart-ap", "--results",
                  "{out}", "-o", "{out}/t"), names="{out}/folds/small.npz",
         damage=_edit_file("folds/small.npz", lambda b: b[: len(b) // 2])),
    Case("results-fold-2d-roles-plot-tree", TWO, ("roles: not the folds obliq writes",),
         command=("plot", "tree", "--dataset", "small", "--algorithm", "cart-ap", "--results",
                  "{out}", "-o", "{out}/t"), names="{out}/folds/small.npz",
         damage=_edit_file("folds/small.npz", lambda b: _npz(roles=[[1, 3]]))),
    *results_case("fold-other-rows", _edit_file(
        "folds/small.npz", lambda b: _npz(roles=[[[1, 3, 1, 3, 1, 3, 1]] * 2])), ("resume",),
                  ("its folds differ from the ones stored",), names="exp.yaml: datasets[0]"),
]

# ---- external estimators (``estimator:`` / ``pipeline:`` entries): code obliq does not
# own. Each was a traceback, a false success (exit 0, no rows), a hang (fork) or a task
# failure repeated in every task on main; now one error line before the run (the config's
# check, or the trial fit on each dataset: experiment/trial.py) or the task's recorded
# error, under every backend. plug.py's Late* classes pass the trial (which predicts 5
# rows) and fail in the tasks (which predict 20).
PLUG = """import sys
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class Base(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


class Exits(Base):
    def __init__(self, code=0):
        self.code = code

    def fit(self, X, y):
        sys.exit(self.code)


class Interrupts(Base):
    def fit(self, X, y):
        raise KeyboardInterrupt


class PredictExits(Base):
    def predict(self, X):
        sys.exit(0)


class Picky(Base):
    def __init__(self, k=1):
        if k < 0:
            raise ValueError("k must be >= 0")
        self.k = k

    def get_params(self, deep=True):
        if self.k == 7:
            raise RuntimeError("get_params broke")
        return {"k": self.k}


class Chatty(Base):
    def fit(self, X, y):
        print("hello from fit\\n" * 30)
        return super().fit(X, y)


class Late(Base):
    def __init__(self, how="exit0"):
        self.how = how

    def predict(self, X):
        if len(X) > 5:
            if self.how == "exit0":
                sys.exit(0)
            if self.how == "exit3":
                raise SystemExit(3)
            if self.how == "interrupt":
                raise KeyboardInterrupt
            if self.how == "sleep":  # hangs (a timeout: ends it)
                time.sleep(1e6)
            raise RuntimeError("late")
        return super().predict(X)


class Sleeps(Base):
    def fit(self, X, y):
        time.sleep(1e6)
"""


def external(id_: str, entry: str, fragments=(), expect="clean", more: str = "") -> Case:
    """The small config with cart-ap and ``entry`` (plug.py imported beside it)."""
    return Case(f"external-{id_}", swap("algorithms: [cart-ap]",
                                        f"algorithms: [cart-ap, {entry}]",
                                        "imports: [plug.py]\n" + more),
                fragments, expect, files={"plug.py": PLUG})


def _has_dask() -> bool:
    import importlib.util

    return importlib.util.find_spec("dask") is not None and \
        importlib.util.find_spec("dask.distributed") is not None


BACKEND_LINES = {"j1": "", "fork": "n_jobs: 2\nbackend: fork\n",
                 "loky": "n_jobs: 2\nbackend: loky\n"}
if _has_dask():  # dask only where it is installed (pip install "obliq[dask]")
    BACKEND_LINES["dask"] = "n_jobs: 2\nbackend: dask\n"
TRIED = "on small: a trial fit on 20 training rows"
CASES += [
    *[external(f"fit-exits-{code}-{b}", f"{{estimator: plug.Exits, params: {{code: {code}}}}}",
               ("algorithms[1] (Exits)", TRIED, f"SystemExit: {code}"), more=lines)
      for code in (0, 3) for b, lines in BACKEND_LINES.items()],
    *[external(f"fit-interrupts-{b}", "{estimator: plug.Interrupts}",
               ("algorithms[1] (Interrupts)", TRIED, "failed: KeyboardInterrupt"), more=lines)
      for b, lines in BACKEND_LINES.items()],
    external("predict-exits", "{estimator: plug.PredictExits}", (TRIED, "SystemExit: 0")),
    external("get-params-raises", "{estimator: plug.Picky, params: {k: 7}}",
             ("algorithms[1].params", "RuntimeError: get_params broke")),
    external("init-raises-on-bad-parameter", "{estimator: plug.Picky, params: {k: -1}}",
             ("algorithms[1].params", "ValueError: k must be >= 0")),
    external("unknown-parameter", "{estimator: plug.Picky, params: {kk: 1}}",
             ("algorithms[1].params.kk", "Picky has no parameter 'kk' (did you mean 'k'?)")),
    external("no-parameter-constraints", "{estimator: plug.Picky, params: {k: 2}}",
             expect="handled"),
    external("prints-in-fit", "{estimator: plug.Chatty}", expect="handled"),
    external("knn-neighbors-above-rows",
             "{estimator: sklearn.neighbors.KNeighborsClassifier, params: {n_neighbors: 25}}",
             ("algorithms[1] (KNeighborsClassifier)", TRIED, "n_neighbors = 25")),
    external("svc-c-inf", "{estimator: sklearn.svm.SVC, params: {C: .inf}}",
             ("algorithms[1].params.C", "must be a finite number (got inf)")),
    external("svc-gamma-nan", "{estimator: sklearn.svm.SVC, params: {gamma: .nan}}",
             ("algorithms[1].params.gamma", "(got nan)")),
    external("svc-per-dataset-c-inf", "{estimator: sklearn.svm.SVC, dataset_params: "
                                      "{small: {C: -.inf}}}",
             ("algorithms[1].dataset_params.small.C", "(got -inf)")),
    external("nested-nan", "{estimator: sklearn.neural_network.MLPClassifier, params: "
                           "{hidden_layer_sizes: [3, .nan]}}",
             ("algorithms[1].params.hidden_layer_sizes", "(got nan)")),
    external("import-prints", "{estimator: this.Nope}",
             ("algorithms[1].estimator", "module this has no 'Nope'")),
    external("value-refused-by-fit",
             "{estimator: sklearn.ensemble.RandomForestClassifier, params: {n_estimators: -3}}",
             (TRIED, "'n_estimators' parameter of RandomForestClassifier")),
    *[external(f"late-{how}-{b}", f"{{estimator: plug.Late, params: {{how: {how}}}}}",
               expect="recorded", more=lines)
      for how in ("exit0", "exit3", "interrupt", "raise") for b, lines in BACKEND_LINES.items()],
    # the config's timeout: a hung fit fails its task (or, in the trial, the run) after it
    *[external(f"late-sleep-timeout-{b}", "{estimator: plug.Late, params: {how: sleep}}",
               expect="recorded", more="timeout: 1\n" + lines)
      for b, lines in BACKEND_LINES.items()],
    *[external(f"fit-sleeps-timeout-{b}", "{estimator: plug.Sleeps}",
               ("algorithms[1] (Sleeps)", TRIED, "failed: timeout after 0.5 s"),
               more="timeout: 0.5\n" + lines) for b, lines in BACKEND_LINES.items()],
    external("timeout-zero", "{estimator: plug.Picky}", ("timeout: must be a number of "
                                                         "seconds above 0", "(got 0)"),
             more="timeout: 0\n"),
    external("timeout-infinite", "{estimator: plug.Picky}", ("timeout:", "(got inf)"),
             more="timeout: .inf\n"),
    external("timeout-a-list", "{estimator: plug.Picky}", ("timeout:", "(got [1])"),
             more="timeout: [1]\n"),
    external("imports-file-class-by-stem", "{estimator: plug.Picky, label: P}",
             expect="handled"),
    external("imports-file-class-unknown", "{estimator: plug.Nope}",
             ("algorithms[1].estimator", "module plug has no 'Nope'")),
    *[external(f"pipeline-{b}", "{pipeline: [{estimator: sklearn.preprocessing.StandardScaler},"
                                " {estimator: sklearn.linear_model.LogisticRegression}]}",
               expect="handled", more=lines) for b, lines in BACKEND_LINES.items()],
    external("pipeline-empty", "{pipeline: []}", ("algorithms[1].pipeline",
                                                  "must be a non-empty list")),
    external("pipeline-classifier-first",
             "{pipeline: [{estimator: sklearn.svm.SVC}, {estimator: sklearn.svm.SVC}]}",
             ("algorithms[1].pipeline[0].estimator", "is not a transformer")),
    external("pipeline-last-not-classifier",
             "{pipeline: [{estimator: sklearn.preprocessing.StandardScaler}]}",
             ("algorithms[1].pipeline[0].estimator", "is not a scikit-learn classifier")),
    external("pipeline-step-c-inf", "{pipeline: [{estimator: sklearn.preprocessing.StandardScaler},"
                                    " {estimator: sklearn.svm.SVC, params: {C: .inf}}]}",
             ("algorithms[1].pipeline[1].params.C", "(got inf)")),
    external("pipeline-pca-wider-than-data",
             "{pipeline: [{estimator: sklearn.decomposition.PCA, params: {n_components: 5}}, "
             "{estimator: sklearn.linear_model.LogisticRegression}]}",
             ("algorithms[1] (PCA+LogisticRegression)", TRIED, "n_components=5")),
    external("pipeline-step-exits",
             "{pipeline: [{estimator: sklearn.preprocessing.StandardScaler}, "
             "{estimator: plug.Exits}]}", (TRIED, "SystemExit: 0")),
    external("pipeline-with-params", "{pipeline: [{estimator: sklearn.svm.SVC}], params: {C: 1}}",
             ("algorithms[1].params", "its steps'")),
    external("pipeline-unknown-step-parameter",
             "{pipeline: [{estimator: sklearn.preprocessing.StandardScaler}, {estimator: "
             "sklearn.svm.SVC}], dataset_params: {small: {svc__CC: 2}}}",
             ("algorithms[1].dataset_params.small.svc__CC", "did you mean 'svc__C'?")),
]


# Links planted in the output folder, and signals (corpus_io.py)
from corpus_io import io_cases  # noqa: E402

CASES += io_cases(Case, base)

# ---- claims files and reference CSVs: what cannot be (an infinite factor or sd, paper ranks
# of NaN or that contradict each other, a method compared with itself, a kind given as a
# list; a reference mean that is infinite, an sd below 0) is refused when the file is read,
# one line naming file, entry (claim id, CSV line) and field. Each was evaluated into a
# verdict, summarised as an ordinary number or (a list as kind) a traceback on main.
CLAIM = ("{{id: k, section: §1, quote: q, experiment: bad, kind: {kind}, algorithm: cart-ap, "
         "versus: {versus}, {more}}}")


def claims_case(id_: str, fragments: tuple, kind: str = "faster", versus: str = "id3",
                more: str = "over: all") -> Case:
    entry = CLAIM.format(kind=kind, versus=versus, more=more)
    return Case(f"claims-{id_}", TWO, ("bad.yaml", "claims[0].", *fragments),
                command=("claims", "{out}", "--claims", "bad.yaml"), names="bad.yaml",
                files={"bad.yaml": f"paper: P\nclaims:\n  - {entry}\n"})


RANKED = "rank_above", "[id3, oc1]"
CASES += [
    claims_case("factor-inf", ("factor: must be a finite number > 0", "got inf",
                               "(claim 'k')"), more="factor: .inf"),
    claims_case("factor-nan", ("factor: must be a finite number > 0", "got nan"),
                more="factor: .nan"),
    claims_case("factor-zero", ("factor: must be a finite number > 0", "got 0"),
                more="factor: 0"),
    claims_case("sds-inf", ("sds: must be a finite number > 0", "got inf"),
                "significantly_better_count", more="metric: test_accuracy, test: sd_gap, "
                                                   "sds: .inf"),
    claims_case("between-inf", ("between: must be [low, high]", "got [1, inf]"),
                "time_ratio", more="between: [1, .inf]"),
    claims_case("paper-ranks-nan", ("paper_ranks: must map algorithm -> average rank",
                                    "got {'cart-ap': nan"), *RANKED,
                more="metric: test_accuracy, paper_ranks: {cart-ap: .nan, id3: 2, oc1: 2}"),
    claims_case("paper-ranks-inf", ("paper_ranks: must map algorithm -> average rank",),
                *RANKED, more="metric: test_accuracy, paper_ranks: {cart-ap: .inf}"),
    claims_case("paper-ranks-contradict", ("paper_ranks: ranks of 3 methods add up to 6, "
                                           "these to 3",), *RANKED,
                more="metric: test_accuracy, paper_ranks: {cart-ap: 1, id3: 1, oc1: 1}"),
    claims_case("paper-rank-beyond", ("paper_ranks: cart-ap 4 is beyond the 3 methods",),
                *RANKED, more="metric: test_accuracy, paper_ranks: {cart-ap: 4}"),
    claims_case("paper-rank-stranger", ("paper_ranks: 'c45' is none of the claim's",),
                *RANKED, more="metric: test_accuracy, paper_ranks: {c45: 2}"),
    claims_case("versus-itself", ("versus: cart-ap is also the algorithm",),
                versus="[id3, cart-ap]"),
    claims_case("kind-a-list", ("kind: must be one of", "got ['faster']"), kind="[faster]"),
    claims_case("kind-a-mapping", ("kind: must be one of", "got {'a': 1}"), kind="{a: 1}"),
    claims_case("kind-missing", ("kind: must be one of", "got None"), kind="null"),
]


def reference_case(id_: str, row: str, fragments: tuple) -> Case:
    return Case(f"reference-{id_}", base("reference: ref.csv\n"),
                ("reference.file", "ref.csv: line 2: ", *fragments),
                files={"ref.csv": f"dataset,method,metric,mean,sd\n{row}\n"})


CASES += [
    reference_case("mean-inf", "small,cart-ap,test_accuracy,inf,1",
                   ("mean must be a finite number", "got inf")),
    reference_case("mean-minus-inf", "small,cart-ap,test_accuracy,-Infinity,1",
                   ("mean must be a finite number", "got -inf")),
    reference_case("mean-nan", "small,cart-ap,test_accuracy,nan,1",
                   ("mean is not a number ('nan')",)),
    reference_case("sd-negative", "small,cart-ap,test_accuracy,90,-0.5",
                   ("sd must be a finite number >= 0, or empty", "got -0.5")),
    reference_case("sd-inf", "small,cart-ap,test_accuracy,90,inf",
                   ("sd must be a finite number >= 0, or empty", "got inf")),
    reference_case("method-empty", "small,,test_accuracy,90,1", ("method must be a name",)),
]

# ---- own files on the command line: each was a traceback or a disagreement of fit and
# predict (a delimiter of two characters, blanks read natively under a picture, a
# nominal column declared twice)
BLANKS_CSV = "a,b,y\n1,2,0\n2,,1\n3,4,0\n4,5,1\n5,1,1\n6,2,0\n,3,1\n"
CASES += [
    model_case("predict-delimiter-two-chars", _model(), ("delimiter ';;': must be one of",),
               command=PREDICT + ("--delimiter", ";;"), names="small.csv"),
    Case("plot-boundary-blank-cells-native", base(), expect="handled",
         files={"blanks.csv": BLANKS_CSV}, names=None,
         command=("plot", "boundary", "--data", "blanks.csv", "--target", "y", "--missing",
                  "native", "--algorithm", "c45", "-o", "regions")),
    Case("datasets-show-categorical-twice", base(), expect="handled", names=None,
         command=("datasets", "show", "--data", "small.csv", "--categorical", "a",
                  "--categorical", "a")),
]


def _cell(column: str, value: str):
    """runs.csv's first row with ``column`` set to ``value`` (a number no task can give)."""
    def edit(data: bytes) -> bytes:
        import csv
        import io
        rows = list(csv.reader(io.StringIO(data.decode())))
        rows[1][rows[0].index(column)] = value
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\r\n").writerows(rows)
        return buffer.getvalue().encode()
    return _edit_file("runs.csv", edit)


# ---- numbers read back: a cell no task can write is named and left out, never averaged
for _name, _column, _value in (("accuracy-150", "test_accuracy", "150"),
                               ("accuracy-nan", "test_accuracy", "nan"),
                               ("accuracy-inf", "test_accuracy", "inf"),
                               ("leaves-negative", "n_leaves", "-3")):
    CASES += results_case(f"cell-{_name}", _cell(_column, _value),
                          ("table", "stats", "report"), (), expect="handled",
                          says=(f"runs.csv: line 2: column {_column}: ", "left out"))
