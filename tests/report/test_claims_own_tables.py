"""Every shipped claim checked on its own paper's table (analysis/claims.py, ``paper_numbers``).

A claim's encoding must give "holds" on the paper's own numbers; where it cannot (the table
lacks what the claim needs, or the paper's text says more than its table shows) the claim
says why under ``own_table``, and that reason must still be needed. The sd rule of the
HHCART claims and the reading of APDT's "smaller and more accurate" were chosen on these
tables; the numbers below are the papers' as printed (obliq_cli/configs/references/*.csv),
worked out by hand in the comments.
"""

from dataclasses import replace

import pandas as pd
import pytest

from obliq_cli.analysis.claims import (
    FAILS,
    HOLDS,
    PARTLY,
    UNTESTABLE,
    TableNumbers,
    evaluate_on,
    evaluate_on_paper,
    paper_numbers,
    parse_claim,
    read_claims,
    shipped_claims,
)

SHIPPED = [c for path in shipped_claims() for c in read_claims(path)]


@pytest.mark.parametrize("claim", SHIPPED, ids=[c.id for c in SHIPPED])
def test_every_claim_holds_on_its_papers_table_or_says_why_not(claim):
    if claim.kind == "not_testable":
        # no experiment, no table: its reason is the claim's own
        assert claim.why and not claim.own_table
        return
    outcome = evaluate_on_paper(claim)
    if claim.own_table:
        # the reason is still needed: the encoding does not hold on the paper's numbers
        assert outcome.verdict != HOLDS, (claim.id, "holds on its paper's table: drop its "
                                          "own_table", outcome.evidence)
    else:
        assert outcome.verdict == HOLDS, (claim.id, outcome.verdict, outcome.evidence)


def test_every_claim_the_table_cannot_evaluate_is_a_fold_test_or_lacks_times():
    """Untestable on its table only for a reason the table explains: a per-fold test (the
    paper gives means and sds) or fit times the paper does not print."""
    untestable = {c.id: evaluate_on_paper(c).evidence for c in SHIPPED
                  if c.kind != "not_testable"
                  and evaluate_on_paper(c).verdict == UNTESTABLE}
    assert untestable == {
        "apdt-twice-the-time": "the paper's table (apdt_tables.csv) has no fit_time of "
                               "APDT, OC1, CART-LC",
        **{i: "needs the folds (paired t-test over the shared folds, alpha 0.05); the "
              "paper's table (umt_tables.csv) gives means and sds only"
           for i in ("umt-smaller-trees-2class", "umt-as-good-2class", "umt-ovo-as-good",
                     "umt-ovr-more-accurate", "umt-ovr-beats-ovo")},
    }


def _claim(**fields):
    entry = {"id": "x", "section": "§1", "quote": "q", **fields}
    return parse_claim(entry, "P", "test")


def _wins(experiment, algorithm, versus, metric, test, sds, datasets=None, **more):
    fields = dict(experiment=experiment, kind="significantly_better_count",
                  algorithm=algorithm, versus=versus, metric=metric, test=test, sds=sds,
                  **more)
    if datasets:
        fields["datasets"] = datasets
    o = evaluate_on_paper(_claim(**fields))
    return o.wins, o.ties, o.losses


# HHCART Table 5, accuracy of HHCART(A) against FDT (difference; sds):
#   boston -0.8 (1.2, 0.76), wisconsin 1.2 (0.3, 0.7), bupa 2.94 (2.6, 1.7),
#   pima 4.46 (1.0, 1.3), heart -0.51 (1.7, 1.7), survival 4.9 (1.9, 1.8)
# one sd of the larger: bupa 2.94 > 2.6; of the difference: sqrt(2.6² + 1.7²) = 3.11;
# summed: 4.3. The paper names BC, PIND and SUR (wisconsin, pima, survival).
@pytest.mark.parametrize("test, won", [
    ("sd_gap", 4),          # names bupa too
    ("sd_difference", 3),
    ("sd_intervals", 3),
])
def test_hhcart_table5_one_sd_rules_name_the_papers_datasets_or_more(test, won):
    assert _wins("hhcart_fdt", "HHCART(A)", "FDT", "test_accuracy", test, 1) == (
        won, 6 - won, 0)
    assert _wins("hhcart_fdt", "HHCART(A)", "FDT", "test_accuracy", test, 1,
                 datasets=["bupa"])[0] == (won == 4)


def test_the_shipped_hhcart_rule_names_exactly_bc_pind_and_sur_in_table5():
    """The claim names its three datasets; the rule it is checked with, run over all six
    of Table 5, must find no fourth (the larger sd would add BUPA, which the paper does not
    name)."""
    shipped = next(c for c in SHIPPED if c.id == "hhcart-a-more-accurate-than-fdt")
    named = set()
    for dataset in ("boston", "wisconsin", "bupa", "pima", "heart", "survival"):
        if evaluate_on_paper(replace(shipped, datasets=(dataset,))).wins:
            named.add(dataset)
    assert named == set(shipped.datasets) == {"wisconsin", "pima", "survival"}


# HHCART Table 2, BC at 2 sds: HHCART(A) 97.0 ± 0.3 against OC1 95.4 ± 0.5 (gap 1.6),
# OC1-AP 94.0 ± 0.8 (3.0), OC1-LC 95.5 ± 0.6 (1.5). Summed sds: 2 × 0.8 = 1.6 is not less
# than 1.6, 2 × 0.9 = 1.8 > 1.5; of the difference: 2 × 0.583, 2 × 0.854, 2 × 0.671.
@pytest.mark.parametrize("test, marks", [
    ("sd_difference", (1, 1, 1)),
    ("sd_gap", (1, 1, 1)),
    ("sd_intervals", (0, 1, 0)),
])
def test_hhcart_bc_two_sds_hold_by_the_difference_not_by_summed_sds(test, marks):
    got = tuple(_wins("hhcart_uci", "HHCART(A)", other, "test_accuracy", test, 2,
                      datasets=["wisconsin"])[0] for other in ("OC1", "OC1-AP", "OC1-LC"))
    assert got == marks


def test_hhcart_d_worse_than_a_by_one_sd_of_the_difference_exactly_on_bs_and_wine():
    """§4.1.1: "For all the datasets except BS and WINE, HHCART(D) performs as well as
    HHCART(A)". At one sd of the difference, D is worse exactly on balance (4.5 > 2.14)
    and wine (3.1 > 2.55); boston's 1.4 stays below sqrt(1.2² + 1.1²) = 1.63."""
    claim = _claim(experiment="hhcart_uci", kind="significantly_better_count",
                   algorithm="HHCART(A)", versus="HHCART(D)", metric="test_accuracy",
                   test="sd_difference", sds=1)
    numbers = paper_numbers(claim)
    # the config's nine (LET is hhcart_letter's, SHUT is not offline)
    assert sorted(numbers.datasets()) == ["balance", "boston", "bupa", "glass", "heart",
                                          "pima", "survival", "wine", "wisconsin"]
    o = evaluate_on(claim, numbers)
    assert (o.wins, o.ties, o.losses) == (2, 7, 0)
    only = evaluate_on(_claim(experiment="hhcart_uci", kind="significantly_better_count",
                              algorithm="HHCART(A)", versus="HHCART(D)",
                              metric="test_accuracy", test="sd_difference", sds=1,
                              datasets=["balance", "wine"]), numbers)
    assert (only.wins, only.n) == (2, 2)


APDT_SIZE_AND_ACCURACY = dict(experiment="apdt_synthetic", kind="better_means",
                              algorithm="APDT", versus=["OC1", "CART-LC", "CART-AP", "ID3"])


@pytest.mark.parametrize("metric", [["test_accuracy", "n_internal"],
                                    ["test_accuracy@best", "n_internal@best"]])
def test_apdt_against_all_at_once_fails_its_own_tables_against_each_holds(metric):
    """Read against every method on every problem at once, the claim gives 1 win
    and 2 losses on the paper's own Tables II-III (Problem 1: ID3 100 % with 3 nodes;
    Problem 3: OC1 and CART-LC more accurate). Against each method alone APDT wins 2 of 3
    problems with none lost more than once."""
    at_once = evaluate_on_paper(_claim(**APDT_SIZE_AND_ACCURACY, metric=metric, over="all"))
    assert (at_once.verdict, at_once.wins, at_once.losses, at_once.n) == (PARTLY, 1, 2, 3)
    each = evaluate_on_paper(_claim(**APDT_SIZE_AND_ACCURACY, metric=metric, over="most",
                                    against="each"))
    assert (each.verdict, each.unit, each.wins, each.n) == (HOLDS, "algorithm pairs", 4, 4)
    # every pair's own count (test_accuracy and n_internal together)
    table = {"test_accuracy": "vs OC1 2/0/1, vs CART-LC 2/0/1, vs CART-AP 2/0/1, "
                              "vs ID3 2/0/1",
             "test_accuracy@best": "vs OC1 2/1/0, vs CART-LC 2/0/1, vs CART-AP 2/1/0, "
                                   "vs ID3 2/0/1"}[metric[0]]
    assert f"together) {table}: the claim met against 4 of 4" in each.evidence


def test_a_method_the_paper_prints_once_is_its_own_best():
    """APDT's Table II has no ID3 or CART-AP rows: their single (Table III) tree is their
    best; APDT's own best is Table II's, not its average."""
    claim = _claim(**APDT_SIZE_AND_ACCURACY, metric=["test_accuracy@best"])
    best = paper_numbers(claim).summary("test_accuracy@best").set_index(
        ["dataset", "algorithm"])["mean"]
    assert best[("apdt_problem1", "ID3")] == 100.0
    assert best[("apdt_problem3", "CART-AP")] == 97.1
    assert best[("apdt_problem1", "APDT")] == 99.8      # Table III's average is 99.52


def test_a_label_of_ours_is_read_as_the_papers_method_by_paper_methods():
    claim = _claim(experiment="gdt_uci", kind="faster", algorithm="GDT e1=0.1",
                   versus="CART-LC", factor=10)
    assert evaluate_on_paper(claim).evidence == (
        "the paper's table (gdt_table2.csv) has no fit_time of GDT e1=0.1")
    mapped = _claim(experiment="gdt_uci", kind="faster", algorithm="GDT e1=0.1",
                    versus="CART-LC", factor=10,
                    paper_methods={"GDT e1=0.1": "Geometric DT"})
    # Table II: GDT / CART times; bupa 0.016 / 0.09 and votes 0.003 / 0.023 exceed 0.1;
    # wisconsin 0.01 / 0.1, wine 0.004 / 0.04 and balance 0.012 / 0.12 are the bound 0.1
    # itself, within timing noise of it (claims.TIME_NOISE): ties; the other four below
    # 0.08 meet it
    o = evaluate_on_paper(mapped)
    assert (o.verdict, o.wins, o.ties, o.losses, o.n) == (PARTLY, 4, 3, 2, 9)


def _table(rows):
    return TableNumbers("t", pd.DataFrame(rows, columns=["dataset", "algorithm", "metric",
                                                         "mean", "sd"]))


def test_intervals_that_touch_at_the_printed_precision_are_not_apart():
    """GDT Table III, Wine: 97.15 - 0.72 and 95.9 + 0.53 are both 96.43 (in binary they
    differ in the last bits); one hundredth more and the intervals are apart."""
    claim = _claim(experiment="e", kind="significantly_better_count", algorithm="A",
                   versus="B", metric="test_accuracy", test="sd_intervals", sds=1)
    touching = _table([("wine", "A", "test_accuracy", 97.15, 0.72),
                       ("wine", "B", "test_accuracy", 95.9, 0.53)])
    apart = _table([("wine", "A", "test_accuracy", 97.16, 0.72),
                    ("wine", "B", "test_accuracy", 95.9, 0.53)])
    assert (evaluate_on(claim, touching).ties, evaluate_on(claim, apart).wins) == (1, 1)


def test_a_table_without_folds_or_sds_says_what_it_lacks():
    rows = _table([("d1", "A", "test_accuracy", 80.0, float("nan")),
                   ("d1", "B", "test_accuracy", 70.0, float("nan"))])
    folds = evaluate_on(_claim(experiment="e", kind="significantly_better_count",
                               algorithm="A", versus="B", metric="test_accuracy", test="t"),
                        rows)
    assert folds.verdict == UNTESTABLE and folds.evidence.startswith(
        "needs the folds (paired t-test over the shared folds, alpha 0.05); the table "
        "gives means and sds only")
    sds = evaluate_on(_claim(experiment="e", kind="significantly_better_count",
                             algorithm="A", versus="B", metric="test_accuracy",
                             test="sd_difference", sds=1), rows)
    assert (sds.verdict, sds.evidence) == (
        UNTESTABLE, "sd_difference needs an sd over at least 2 repetitions of A and B")
    means = evaluate_on(_claim(experiment="e", kind="better_means", algorithm="B",
                               versus="A", metric="test_accuracy"), rows)
    assert (means.verdict, means.losses) == (FAILS, 1)
