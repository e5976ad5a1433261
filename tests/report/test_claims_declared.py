"""The claims file and the reference CSV as declared data (analysis/claims.py FIELDS,
reference_file.py CELLS): what cannot be is refused when the file is read, every problem
at once, a line each naming file, entry and field."""

import pytest
import yaml
from click.testing import CliRunner
from test_claims import write_experiment  # the hand-worked results of test_claims

from obliq_cli.analysis.claims import _COMMON, FIELDS, KINDS, read_claims
from obliq_cli.cli import main
from obliq_cli.errors import ObliqError
from obliq_cli.parameters import (
    MAX_REPORTED,
    Described,
    Interval,
    MappingOf,
    Real,
    Text,
    several_problems,
    violations,
)
from obliq_cli.reference_file import read_reference
from obliq_cli.resources import shipped_path


def claim(id, kind="faster", **fields) -> dict:
    return {"id": id, "section": "§1", "quote": "q", "experiment": "e", "kind": kind,
            "algorithm": "A", "versus": "B", **fields}


def ranked(id, ranks, versus=("B", "C")) -> dict:
    return claim(id, "rank_above", versus=list(versus), metric="test_accuracy",
                 paper_ranks=ranks)


def problems(tmp_path, entries) -> list[str]:
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump({"paper": "P", "claims": entries}, sort_keys=False))
    with pytest.raises(ObliqError) as raised:
        read_claims(path)
    lines = str(raised.value).splitlines()
    assert raised.value.problems == lines
    assert all(line.startswith(f"{path}: claims") for line in lines)
    return [line.removeprefix(f"{path}: ") for line in lines]


def test_every_field_of_every_kind_is_declared():
    assert set(FIELDS) == set().union(_COMMON, *KINDS.values())


def test_three_mistakes_are_three_lines_naming_field_and_line(tmp_path):
    # a misspelt key (with the closest field), a missing one and a refused value, in one
    # entry; and an unknown key of the file itself
    path = tmp_path / "p.yaml"
    path.write_text("paper: P\n"                      # 1
                    "sorce: a book\n"                 # 2
                    "claims:\n"                       # 3
                    "  - id: c\n"                     # 4
                    "    section: §1\n"               # 5
                    "    quote: q\n"                  # 6
                    "    kind: better_means\n"        # 7
                    "    algorithm: A\n"              # 8
                    "    versus: B\n"                 # 9
                    "    metrc: n_leaves\n"           # 10
                    "    over: every\n")              # 11
    with pytest.raises(ObliqError) as raised:
        read_claims(path)
    fields = ("against, algorithm, datasets, experiment, id, kind, metric, note, over, "
              "own_table, paper_counts, paper_methods, quote, section, versus")
    assert raised.value.problems == [
        f"{path}: sorce: unknown key (did you mean 'source'?) (line 2)",
        f"{path}: claims[0].metrc: not a field of kind better_means (did you mean "
        f"'metric'?) (fields: {fields}) (claim 'c') (line 10)",
        f"{path}: claims[0].experiment: missing (claim 'c') (line 4)",
        f"{path}: claims[0].metric: missing (claim 'c') (line 4)",
        f"{path}: claims[0].over: must be one of net, most, all (got 'every') (claim 'c') "
        f"(line 11)",
    ]


def test_every_problem_of_a_file_is_one_line_naming_entry_field_and_id(tmp_path):
    lines = problems(tmp_path, [
        claim("inf", factor=float("inf")),
        claim("ok"),
        claim("self", versus=["B", "A"]),
        claim("list", kind=["faster"]),
        claim("sds", "significantly_better_count", metric="n_leaves", test="sd_gap",
              sds=float("inf"), alpha=float("nan")),
        claim("ok"),  # an id given twice
    ])
    # safe_dump writes paper, claims, then each entry's keys a line each: claims[0]'s
    # factor on line 10 (its eighth key), claims[2]'s versus (a block list) on 24, ...
    assert lines == [
        "claims[0].factor: must be a finite number > 0 (at most 1e+12) (got inf) "
        "(claim 'inf') (line 10)",
        "claims[2].versus: A is also the algorithm: a claim never compares a method with "
        "itself (claim 'self') (line 24)",
        "claims[3].kind: must be one of significantly_better_count, better_means, "
        "at_least_as_good, rank_above, time_ratio, faster, not_testable (got ['faster']) "
        "(claim 'list') (line 31)",
        "claims[4].sds: must be a finite number > 0 (at most 1e+12) (got inf) (claim 'sds') "
        "(line 44)",
        "claims[4].alpha: must be a number between 0 and 1 (got nan) (claim 'sds') "
        "(line 45)",
        "claims: id 'ok' given twice (line 46)",  # the second 'ok'
    ]


@pytest.mark.parametrize("ranks", [
    # HHCART Table 3 as printed: 14.8 where 5 methods' ranks add up to 15, within the
    # rounding of five ranks printed to 0.1 (5 × 0.05)
    {"A": 2.4, "B": 2.5, "C": 3.1, "D": 3.1, "E": 3.7},
    {"A": 1.5, "B": 1.5, "C": 3, "D": 4, "E": 5},  # a tie shares 1 and 2
    {"A": 1},  # some of the methods only: no sum to check
])
def test_paper_ranks_that_can_be_are_read(tmp_path, ranks):
    path = tmp_path / "p.yaml"
    entry = ranked("r", ranks, versus=("B", "C", "D", "E"))
    path.write_text(yaml.safe_dump({"paper": "P", "claims": [entry]}))
    (c,) = read_claims(path)
    assert c.paper_ranks == {a: float(r) for a, r in ranks.items()}


@pytest.mark.parametrize("ranks, message", [
    ({"A": 2.4, "B": 2.4, "C": 2.4}, "ranks of 3 methods add up to 6, these to 7.2"),
    ({"A": 0.5}, "must map algorithm -> average rank (a finite number >= 1)"),
    ({"A": float("nan")}, "must map algorithm -> average rank"),
    ({"A": 3.5}, "A 3.5 is beyond the 3 methods ranked (ranks run from 1 to 3)"),
    ({"Z": 1}, "'Z' is none of the claim's algorithms and versus"),
    ({"A": True}, "must map algorithm -> average rank"),
])
def test_paper_ranks_that_cannot_be_are_refused(tmp_path, ranks, message):
    (line,) = problems(tmp_path, [ranked("r", ranks)])
    assert line.startswith(f"claims[0].paper_ranks: {message}"), line


def test_the_cli_prints_each_problem_as_an_error_line(tmp_path):
    write_experiment(tmp_path / "results" / "e")
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump({"paper": "P", "claims": [
        claim(str(i), factor=0) for i in range(MAX_REPORTED + 2)]}))
    result = CliRunner().invoke(main, ["claims", str(tmp_path / "results"), "--claims",
                                       str(path)])
    lines = result.output.splitlines()
    assert result.exit_code == 2 and len(lines) == MAX_REPORTED + 1
    assert lines[0] == (f"error: {path}: claims[0].factor: must be a finite number > 0 "
                        f"(at most 1e+12) (got 0) (claim '0') (line 4)")
    assert lines[-1] == "error: ... and 2 more problems"


def test_declared_constraints_hold_and_refuse_what_they_say():
    text, names = Text(), MappingOf(Interval(Real, 1, 10, closed="both"))
    assert [text.is_satisfied_by(v) for v in ("a", " ", "", "a\x00", 3, None)] == [
        True, False, False, False, False, False]
    assert names.is_satisfied_by({"a": 1.5}) and not names.is_satisfied_by({})
    assert not names.is_satisfied_by({"a": float("inf")})
    assert not names.is_satisfied_by({"": 2}) and not names.is_satisfied_by([("a", 2)])
    declared = {"x": [Described([text], "must be a name")],
                "y": [Interval(Real, 0, 1, closed="both")], "z": [None]}
    assert violations({"x": " ", "y": 2, "z": None, "w": 5}, declared) == [
        ("x", "must be a name (got ' ')"),
        ("y", "must be a float in the range [0.0, 1.0] (got 2)")]
    err = several_problems(["a", "b"])
    assert isinstance(err, ObliqError) and str(err) == "a\nb" and err.problems == ["a", "b"]


# --- reference CSVs -------------------------------------------------------------------------

def test_every_shipped_reference_file_reads():
    files = sorted(shipped_path("configs", "references").glob("*.csv"))
    assert len(files) == 9
    for path in files:
        ref = read_reference(path)
        assert len(ref) and (ref["sd"].dropna() >= 0).all(), path.name


def test_a_reference_file_read_again_is_the_same_unless_it_changed(tmp_path):
    # read_reference keeps the frame of the file it read last (a run reads it once per
    # table): a copy each time, and a file changed since is read again
    path = tmp_path / "ref.csv"
    path.write_text("dataset,method,metric,mean,sd\nd,A,test_accuracy,80,1\n")
    first = read_reference(path)
    first.loc[0, "mean"] = -5.0  # the caller's copy: the kept frame does not change
    assert read_reference(path)["mean"].tolist() == [80.0]
    path.write_text("dataset,method,metric,mean,sd\nd,A,test_accuracy,80,1\n"
                    "d,B,test_accuracy,70.5,\n")
    assert read_reference(path)["mean"].tolist() == [80.0, 70.5]
    path.write_text("dataset,method,metric,mean,sd\nd,A,test_accuracy,8O,1\n")
    with pytest.raises(ObliqError, match="mean is not a number"):
        read_reference(path)


def test_every_bad_cell_of_a_reference_file_is_a_line(tmp_path):
    path = tmp_path / "ref.csv"
    path.write_text("dataset,method,metric,mean,sd\n"
                    "d,A,test_accuracy,inf,1\n"
                    "d,B,test_accuracy,90,-1\n"
                    "d,C,test_accuracy,8O,Infinity\n"
                    "d,D,test_accuracy,,-2\n"      # no mean: dropped, its sd not read
                    ",E,test_accuracy,80,1\n"
                    "d,B,test_accuracy,81,\n"
                    "d,F,test_accuracy,80,\n")
    with pytest.raises(ObliqError) as raised:
        read_reference(path)
    assert raised.value.problems == [f"{path}: {line}" for line in [
        "line 2: mean must be a finite number (got inf)",
        "line 3: sd must be a finite number >= 0, or empty (got -1.0)",
        "line 4: mean is not a number ('8O')",
        "line 4: sd must be a finite number >= 0, or empty (got inf)",
        "line 6: dataset must be a name (got '')",
        "line 7: (d, B, test_accuracy) appears twice"]]


def test_a_configs_reference_problems_are_each_a_line(tmp_path):
    (tmp_path / "ref.csv").write_text("dataset,method,metric,mean,sd\n"
                                      "iris,cart-ap,test_accuracy,inf,\n"
                                      "iris,id3,test_accuracy,90,-1\n")
    config = tmp_path / "c.yaml"
    config.write_text("name: c\ndatasets: [iris]\nalgorithms: [cart-ap, id3]\n"
                      "protocol: {name: kfold, folds: 2}\nreference: ref.csv\n")
    result = CliRunner().invoke(main, ["run", str(config), "-o", str(tmp_path / "out")])
    lines = result.output.splitlines()
    assert result.exit_code == 2 and len(lines) == 2
    assert lines[0].startswith(f"error: {config}: reference.file: ")
    assert lines[0].endswith("ref.csv: line 2: mean must be a finite number (got inf)")
    assert lines[1].endswith("ref.csv: line 3: sd must be a finite number >= 0, or empty "
                             "(got -1.0)")
    assert not (tmp_path / "out").exists()
