"""One declaration of the parameters of every algorithm and pruner, checked at fit and
before a run.

An estimator class declares ``_parameter_constraints`` in scikit-learn's format
(``sklearn.utils._param_validation``): parameter name -> list of constraints, a value being
valid when it satisfies any one of them (an ``Interval``, a ``StrOptions``, ``None``, a
type, ...). A class declares only its own parameters: ``DeclaredParameters`` merges the
declarations of the classes it derives from and keeps those its ``__init__`` takes, so a
shared parameter (``max_depth``, ``random_state``) is declared once, in the base class.
A pruner declares its keyword parameters with ``@pruner_parameters(name, {...})``.

The same declaration is read by

- ``estimator.validate_params()`` (called by ``fit``, and by scikit-learn's own
  ``_validate_params``), and by ``registry.check_pruner_parameters`` when a pruner runs;
- the config check before a run (``obliq_cli.config``), which reports the first bad
  value as ``<file>: algorithms[i].params.<name>: must be ... (got ...)``;
- scikit-learn's ``check_param_validation`` (``tests/algorithms/test_sklearn_checks.py``).

The same constraint objects declare the fields of the input files that are not parameters
(a claims file's entries: ``analysis/claims.py`` FIELDS; a reference CSV's cells:
``reference_file.py`` CELLS); ``violations`` reports every refused value at once and
``several_problems`` makes them one error of a line each. ``Text``, ``MappingOf`` and
``Described`` (a constraint with the words its file's errors use) serve them.

Bounds are chosen so that no accepted value can make a fit exhaust memory, run for ever
or silently mean something else (a ``max_cycles`` of 0 would turn CART-LC into CART-AP).
Every ``Interval`` of a built-in declaration has two finite bounds (the limits below say
why each is where it is; ``tests/test_parameter_bounds.py`` walks the registry for it),
and no ``Interval`` accepts NaN or an infinity: a value reaches a compiled kernel only
as the finite number, of the type, that the kernel was compiled for. Values
that only conflict with each other (UMT's margin grid) are checked by
``_validate_params_together``; values that depend on the data (column indices) by
``check_n_features`` once the dataset's width is known.
"""

from __future__ import annotations

import functools
import inspect
import math
import reprlib
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval as _Interval
from sklearn.utils._param_validation import (
    InvalidParameterError,
    Options,
    make_constraint,
)
from sklearn.utils._param_validation import StrOptions as _StrOptions

from .errors import ObliqError

__all__ = ["MAX_COUNT", "MAX_LOOP", "MAX_REAL", "MAX_SEED", "MAX_REPORTED", "MAX_THREADS",
           "N_THREADS",
           "Described", "Interval", "ListOf", "MappingOf", "ParameterError", "RANDOM_STATE",
           "StrOptions", "Text", "DeclaredParameters", "check_parameters", "first_violation",
           "several_problems", "violations",
           "pruner_parameters", "short_repr", "Integral", "Real"]

_repr = reprlib.Repr()
_repr.maxstring = 40
_repr.maxother = 40
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 6
_repr.maxlevel = 2


# The limits shared by the declarations; each bounds what one accepted value can cost.
#
# A count of rows (min_samples_split, a leaf's size, a class's rows), a depth or a column
# index: no data set held in memory has more rows or columns than this (10**9 rows of one
# float64 column are 8 GB); a larger value is a typo, and one beyond 2**63 would not fit
# the int64 of the compiled kernels.
MAX_COUNT = 10**9
# Iterations, restarts, jumps or stagnant moves run at every node in a compiled loop:
# 10**6 per node is already hours per tree (OC1's 10**9 jumps never ended).
MAX_LOOP = 10**6
# A real-valued scale, tolerance, step or temperature: finite, and far enough from the
# float64 limit (1.8e308) that its products with (conditioned) data stay finite.
MAX_REAL = 1e12
# A seed: numpy takes any non-negative int, scikit-learn's estimators 0..2**32-1.
MAX_SEED = 2**32 - 1
# The threads of one fit: more than any machine this runs on has cores; each is a thread
# of the process, so a typo of thousands would start thousands of threads.
MAX_THREADS = 256


def short_repr(value) -> str:
    """``repr`` cut to a bounded length: a message never prints an unbounded value."""
    return _repr.repr(value)


class ParameterError(ObliqError, InvalidParameterError):
    """A parameter value its declaration does not allow.

    ``str()`` is scikit-learn's wording (``The 'x' parameter of Owner must be ... Got ...
    instead.``); ``param`` names the parameter and ``detail`` says what is wrong in the
    config's words (``must be ... (got ...)``), so a config error names the field."""

    def __init__(self, message: str, param: str | None = None, detail: str | None = None):
        super().__init__(message)
        self.param = param
        self.detail = detail or message

    def __reduce__(self):  # survives the trip back from a worker process
        return type(self), (str(self), self.param, self.detail)


class Interval(_Interval):
    """scikit-learn's ``Interval`` without booleans (YAML's ``true`` is no number here) and
    without NaN or infinities (an unbounded side is ``None`` in scikit-learn's language,
    and ``inf`` would be accepted there; no parameter means "no limit" by a number)."""

    def is_satisfied_by(self, val):
        if isinstance(val, (bool, np.bool_)):
            return False
        if isinstance(val, Real) and not isinstance(val, Integral) and not math.isfinite(val):
            return False
        return super().is_satisfied_by(val)

    def __str__(self):
        # scikit-learn's wording, a large float bound shown short (1e+12, not
        # 1000000000000.0) so that its size reads at a glance
        text = super().__str__()
        if self.type is Integral:
            return text
        for bound in (self.left, self.right):
            if bound is not None and abs(float(bound)) >= 1e5:
                text = text.replace(str(float(bound)), f"{float(bound):g}", 1)
        return text


class StrOptions(_StrOptions):
    """scikit-learn's ``StrOptions``, its options shown sorted (a set's order changes
    from one process to the next; a message should not)."""

    def __str__(self):
        return f"a str among {{{', '.join(repr(o) for o in sorted(self.options))}}}"


_PLURAL = {str: "strings", int: "integers", float: "numbers"}


class ListOf(Options):
    """A list, tuple or 1-D array of ``min_len``..``max_len`` values, each satisfying
    ``item`` (a constraint). An ``Options`` subclass only so that scikit-learn's
    ``make_constraint`` accepts it as it is."""

    def __init__(self, item, min_len: int = 1, max_len: int = 1000):
        super().__init__(object, set())
        self.item = make_constraint(item)
        self.min_len, self.max_len = min_len, max_len

    def is_satisfied_by(self, val):
        if isinstance(val, np.ndarray):
            if val.ndim != 1:
                return False
            val = val.tolist()
        if not isinstance(val, (list, tuple)):
            return False
        return (self.min_len <= len(val) <= self.max_len
                and all(self.item.is_satisfied_by(v) for v in val))

    def __str__(self):
        kind = getattr(self.item, "type", None)
        items = _PLURAL[kind] if kind in _PLURAL else f"values, each {self.item}"
        if self.min_len == 0:
            return f"a list of {items} (at most {self.max_len})"
        return f"a list of {self.min_len} to {self.max_len} {items}"


# The three below are ``Options`` subclasses, as ListOf is, only so that scikit-learn's
# ``make_constraint`` accepts them as they are.

class Text(Options):
    """A string with something other than blanks in it and no NUL character (a name, a
    label, a quoted sentence of a paper)."""

    def __init__(self):
        super().__init__(str, set())

    def is_satisfied_by(self, val):
        return isinstance(val, str) and bool(val.strip()) and "\x00" not in val

    def __str__(self):
        return "a non-empty text"


class MappingOf(Options):
    """A mapping of at least one ``key`` (a constraint; a text by default) to a value
    satisfying ``item`` (a constraint)."""

    def __init__(self, item, key=None):
        super().__init__(dict, set())
        self.item = make_constraint(item)
        self.key = make_constraint(key if key is not None else Text())

    def is_satisfied_by(self, val):
        return isinstance(val, dict) and bool(val) and all(
            self.key.is_satisfied_by(k) and self.item.is_satisfied_by(v)
            for k, v in val.items())

    def __str__(self):
        return f"a mapping of names to values, each {self.item}"


class Described(Options):
    """Any of ``constraints``, with the requirement worded as a file's reader states it
    (``must`` is the whole phrase: "must be one of a, b", "must map algorithm -> rank"),
    so that a declaration keeps the words its error lines have always used."""

    def __init__(self, constraints, must: str):
        super().__init__(object, set())
        self.constraints = [make_constraint(c) for c in constraints]
        self.must = must

    def is_satisfied_by(self, val):
        return any(c.is_satisfied_by(val) for c in self.constraints)

    def __str__(self):
        return self.must.removeprefix("must be ")

    def problem(self, value) -> str:
        """The error text for a refused ``value``; a declaration whose words depend on the
        value (too small, too large, not a number) overrides it."""
        return f"{self.must} (got {short_repr(value)})"


# An int seed, a numpy Generator (used as is) or None (fresh entropy): what
# ``numpy.random.default_rng`` takes and the runner hands each task.
RANDOM_STATE = [Interval(Integral, 0, MAX_SEED, closed="both"), np.random.Generator, None]

# The threads one fit spreads its independent work over (``obliq_cli.fit_threads``):
# a count, or None for what the run leaves free.
N_THREADS = [Interval(Integral, 1, MAX_THREADS, closed="both"), None]


def _text(declared) -> str:
    """What one declared form accepts, in a config's words (YAML's null, true/false)."""
    if declared is None:
        return "null"
    if isinstance(declared, str) and declared == "boolean":
        return "true or false"
    if declared is str:
        return "a string"
    if isinstance(declared, type) and declared.__module__ == "builtins":
        return f"a {declared.__name__}"
    return str(make_constraint(declared))


def _failure(constraints, value) -> str | None:
    """None when ``value`` satisfies one of ``constraints``, else what it must be."""
    if isinstance(constraints, str) and constraints == "no_validation":
        return None
    made = [make_constraint(c) for c in constraints]
    if any(c.is_satisfied_by(value) for c in made):
        return None
    shown = [_text(c) for c, m in zip(constraints, made) if not m.hidden]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def _first_refused(constraints: dict, params: dict) -> tuple[str, str, str] | None:
    """(name, what it must be, the value shown short) for the first value of ``params``
    that its declaration in ``constraints`` refuses; undeclared names are not checked."""
    for name, value in params.items():
        if name in constraints:
            wanted = _failure(constraints[name], value)
            if wanted is not None:
                return name, wanted, short_repr(value)
    return None


def first_violation(params: dict, constraints: dict) -> tuple[str, str] | None:
    """``(name, "must be ... (got ...)")`` for the first value of ``params`` that its
    declaration refuses, or that holds a NUL character (no file name or column has one);
    None when all pass. The declarations and wording of ``check_parameters``, for a
    dataset's or generator's parameters, which have no estimator to raise from."""
    for name, value in params.items():
        if name not in constraints:
            continue
        refused = _first_refused(constraints, {name: value})
        if refused is not None:
            return name, f"must be {refused[1]} (got {refused[2]})"
        if any("\x00" in v for v in (value if isinstance(value, list) else [value])
               if isinstance(v, str)):
            return name, f"must not hold a NUL character (got {short_repr(value)})"
    return None


def violations(values: dict, constraints: dict) -> list[tuple[str, str]]:
    """``(name, "must ... (got ...)")`` for every value of ``values`` that its declaration
    in ``constraints`` refuses, in the order of ``values`` (undeclared names are not
    checked): what a file's reader reports all at once. A ``Described`` declaration says
    its own requirement (``Described.problem``)."""
    out = []
    for name, value in values.items():
        if name not in constraints:
            continue
        wanted = _failure(constraints[name], value)
        if wanted is None:
            continue
        declared = constraints[name]
        out.append((name, declared[0].problem(value)
                    if len(declared) == 1 and isinstance(declared[0], Described)
                    else f"must be {wanted} (got {short_repr(value)})"))
    return out


# How many problems of one file an error reports before saying how many more there are.
MAX_REPORTED = 10


def several_problems(problems: list[str], error=ObliqError) -> ObliqError:
    """One ``error`` for several problems of a file: its message has a line per problem
    (the first MAX_REPORTED, then how many more), and its ``problems`` holds those lines,
    which the command line prints as one ``error:`` line each."""
    lines = list(problems[:MAX_REPORTED])
    if len(problems) > MAX_REPORTED:
        lines.append(f"... and {len(problems) - MAX_REPORTED} more problems")
    exc = error("\n".join(lines))
    exc.problems = lines
    return exc


def check_parameters(constraints: dict, params: dict, owner: str) -> None:
    """Raise ``ParameterError`` for the first value in ``params`` that its constraint in
    ``constraints`` refuses (parameters without a declaration are not checked)."""
    refused = _first_refused(constraints, params)
    if refused is not None:
        name, wanted, shown = refused
        raise ParameterError(
            f"The {name!r} parameter of {owner} must be {wanted}. Got {shown} instead.",
            name, f"must be {wanted} (got {shown})")


class DeclaredParameters:
    """Mixin of every obliq estimator: ``_parameter_constraints`` merged over the class's
    bases (each class declares only what it adds or changes) and kept to the
    parameters its ``__init__`` takes, ``validate_params`` reading it."""

    _parameter_constraints: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._declared_here = dict(cls.__dict__.get("_parameter_constraints", {}))
        merged: dict = {}
        for klass in reversed(cls.__mro__):
            # a plain mixin's declaration counts as it is written
            merged.update(klass.__dict__.get(
                "_declared_here", klass.__dict__.get("_parameter_constraints", {})))
        names = _init_parameters(cls)
        cls._parameter_constraints = {k: v for k, v in merged.items() if k in names}

    def validate_params(self) -> None:
        """Raise ``ParameterError`` for a parameter value that cannot work. Called by
        ``fit`` and by the config check, so a bad value in a YAML file is reported before
        a run starts."""
        check_parameters(self._parameter_constraints, self.get_params(deep=False),
                         type(self).__name__)
        self._validate_params_together()

    def _validate_params(self):
        # scikit-learn's name for the same check (its ``_fit_context`` calls it).
        self.validate_params()

    def _validate_params_together(self) -> None:
        """Checks that involve several parameters at once (raise ``ParameterError``)."""

    def check_n_features(self, n_features: int) -> None:
        """Raise an ObliqError when a parameter does not fit data with ``n_features``
        columns (the runner asks before a run, once it knows the dataset's width)."""
        categorical = self.get_params(deep=False).get("categorical_features")
        if categorical is None:
            return
        bad = [int(j) for j in categorical if not 0 <= int(j) < n_features]
        if bad:
            raise ParameterError(
                f"categorical_features {short_repr(bad)} are not column indices of data "
                f"with {n_features} features (0..{n_features - 1})", "categorical_features",
                f"{short_repr(bad)} are not column indices of data with {n_features} "
                f"features (0..{n_features - 1})")


def _init_parameters(cls) -> set[str]:
    init = cls.__init__
    if init is object.__init__:
        return set()
    return {p.name for p in inspect.signature(init).parameters.values()
            if p.name != "self" and p.kind != p.VAR_KEYWORD}


def pruner_parameters(name: str, constraints: dict):
    """Decorator of a pruner function: its keyword parameters are checked against
    ``constraints`` on every call, and the declaration is kept for the config check
    (``registry.check_pruner_parameters``) as the function's ``_parameter_constraints``."""

    def decorate(func):
        @functools.wraps(func)
        def checked(*args, **kwargs):
            check_parameters(constraints, kwargs, f"{name} pruner")
            return func(*args, **kwargs)

        checked._parameter_constraints = constraints
        return checked

    return decorate

