"""Parameter values checked against declarations in scikit-learn's constraint language.

A loader, generator or estimator declares each parameter once, as scikit-learn's
``_parameter_constraints`` do: a list of accepted forms per name (``Interval(Integral, 2,
MAX_ROWS, closed="both")``, ``Options(str, {...})``, ``None``, a type, ``"boolean"``,
or ``ListOf(str)`` below). ``first_violation`` finds the first value outside its
declaration and says what was expected, printing the value through ``brief`` so no
message is unbounded (scikit-learn's own message prints the whole value).
"""

from __future__ import annotations

from sklearn.utils._param_validation import Options, _Constraint, make_constraint

from .yaml_input import brief

_PLURAL = {str: "strings", int: "integers", float: "numbers"}


class ListOf(_Constraint):
    """A list (possibly empty) whose every item is an instance of ``kind``."""

    def __init__(self, kind: type):
        super().__init__()
        self.kind = kind

    def is_satisfied_by(self, val) -> bool:
        return isinstance(val, list) and all(isinstance(v, self.kind) for v in val)

    def __str__(self) -> str:
        return f"a list of {_PLURAL.get(self.kind, self.kind.__name__)}"


def _constraint(declared) -> _Constraint:
    return declared if isinstance(declared, _Constraint) else make_constraint(declared)


def _text(declared) -> str:
    """What one declared form accepts, in a config's words (YAML true/false, null)."""
    if declared is None:
        return "null"
    if declared == "boolean":
        return "true or false"
    if declared is str:
        return "a string"
    if isinstance(declared, type):
        return f"a {declared.__name__}"
    constraint = _constraint(declared)
    if isinstance(constraint, Options):  # sorted: a set's order changes between runs
        return f"one of {', '.join(repr(o) for o in sorted(constraint.options))}"
    return str(constraint)


def describe(declared: list) -> str:
    """'an int in the range [2, 1000000] or null' for a declaration list."""
    texts = [_text(c) for c in declared]
    return texts[0] if len(texts) == 1 else f"{', '.join(texts[:-1])} or {texts[-1]}"


def first_violation(params: dict, declarations: dict) -> tuple[str, str] | None:
    """``(name, "must be ... (got ...)")`` for the first value of ``params`` that none of
    its declared constraints accepts; None when all are accepted. A name without a
    declaration is not checked here (unknown names are refused by the caller)."""
    for name, value in params.items():
        declared = declarations.get(name)
        if declared is None:
            continue
        if not any(_constraint(c).is_satisfied_by(value) for c in declared):
            return name, f"must be {describe(declared)} (got {brief(value)})"
        if any("\x00" in v for v in (value if isinstance(value, list) else [value])
               if isinstance(v, str)):  # no file name or column holds one
            return name, f"must not hold a NUL character (got {brief(value)})"
    return None
