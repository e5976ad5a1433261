"""Figures: decision regions against a tree worked by hand, tree diagrams, CD groups, CLI.

The lattice fixture: 10 x 10 points at (i + 0.5) / 10; class 1 where x0 > 0.5 and
x1 < 0.7, else class 0 (35 and 65 rows). CART's root split is x0 <= 0.5 (Gini 21/100
against 35/100 for x1 <= 0.7), its right child splits at x1 <= 0.7; thresholds are the
midpoints between neighbouring lattice values.
"""

import itertools
import re
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from matplotlib.contour import ContourSet

from obliq_cli import make_estimator
from obliq_cli.algorithms.base import check_X
from obliq_cli.algorithms.cart import CARTClassifier
from obliq_cli.cli import main
from obliq_cli.errors import ObliqError
from obliq_cli.report.plots import (
    cd_groups,
    class_colours,
    plot_critical_difference,
    plot_decision_regions,
    plot_learning_curves,
    plot_tree_diagram,
    tree_layout,
)
from obliq_cli.tree.structure import LEAF, OBLIQUE, Tree


@pytest.fixture(scope="module")
def lattice():
    values = (np.arange(10) + 0.5) / 10
    X = np.array([(a, b) for a in values for b in values])
    y = np.where((X[:, 0] > 0.5) & (X[:, 1] < 0.7), "b", "a")
    return X, y


@pytest.fixture(scope="module")
def lattice_tree(lattice):
    X, y = lattice
    est = make_estimator("cart-ap").fit(X, y)
    t = est.tree_
    # The tree worked out by hand in the module docstring.
    assert t.children_left.tolist() == [1, LEAF, 3, LEAF, LEAF]
    assert t.feature.tolist() == [0, LEAF, 1, LEAF, LEAF]
    assert t.threshold[[0, 2]] == pytest.approx([0.5, 0.7])
    return est


def test_a_long_title_stays_inside_the_figure(lattice, lattice_tree):
    """The title of a replayed task names its results folder; it is set smaller, not cut
    off at the figure's edge (it was at 10 pt)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    X, y = lattice
    title = ("GDT on checker2x2: repetition 1, fold 3 of results/a_rather_long_folder/"
             "small (240 rows grown on, 4 leaves)")
    fig = plot_decision_regions(lattice_tree, X, y, title=title, resolution=40)
    FigureCanvasAgg(fig).draw()
    box = fig.axes[0].title.get_window_extent()
    assert fig.axes[0].get_title() == title
    assert 0 <= box.x0 and box.x1 <= fig.bbox.width
    short = plot_decision_regions(lattice_tree, X, y, title="CART", resolution=40)
    assert short.axes[0].title.get_fontsize() == 10


def hyperplane_vertices(fig, node):
    """The vertices of node ``node``'s contour, read from the Axes' collections."""
    ax = fig.axes[0]
    sets = [c for c in ax.collections
            if isinstance(c, ContourSet) and c.get_gid() == f"hyperplane-{node}"]
    assert len(sets) == 1
    return np.vstack([p.vertices for p in sets[0].get_paths() if len(p.vertices)])


def test_region_colours_follow_the_tree(lattice, lattice_tree):
    X, y = lattice
    fig = plot_decision_regions(lattice_tree, X, y, resolution=120)
    image = fig.axes[0].images[0]
    shown = np.asarray(image.get_array())
    grid = fig.obliq_regions
    # By hand: class "b" (code 1) exactly where x0 > 0.5 and x1 <= 0.7.
    expected = ((grid.xx > 0.5) & (grid.yy <= 0.7)).astype(int)
    np.testing.assert_array_equal(shown, expected)
    both = np.unique(shown)
    assert both.tolist() == [0, 1]
    # ... and each code is painted in its class colour (lightened), as predict says.
    predicted = lattice_tree.predict(np.column_stack([grid.xx.ravel(), grid.yy.ravel()]))
    np.testing.assert_array_equal(np.where(predicted == "b", 1, 0).reshape(shown.shape), shown)
    rgba = image.cmap(image.norm(shown))
    base = class_colours(2)
    for code in (0, 1):
        painted = rgba[shown == code][:, :3]
        assert np.allclose(painted, base[code] + (1 - base[code]) * 0.65)
    # The extent centres pixel (i, j) on grid point (xx[i, j], yy[i, j]).
    left, right, bottom, top = image.get_extent()
    dx = grid.xx[0, 1] - grid.xx[0, 0]
    assert left == pytest.approx(grid.xx[0, 0] - dx / 2)
    assert right == pytest.approx(grid.xx[0, -1] + dx / 2)


def test_each_hyperplane_is_drawn_inside_its_node_only(lattice, lattice_tree):
    X, y = lattice
    fig = plot_decision_regions(lattice_tree, X, y, resolution=120)
    grid = fig.obliq_regions
    assert sorted(grid.hyperplanes) == [0, 2]
    dx = grid.xx[0, 1] - grid.xx[0, 0]
    root = hyperplane_vertices(fig, 0)
    np.testing.assert_allclose(root[:, 0], 0.5, atol=1e-9)
    # The root applies everywhere: its segment spans the whole grid in x1.
    assert root[:, 1].min() == pytest.approx(grid.yy[0, 0])
    assert root[:, 1].max() == pytest.approx(grid.yy[-1, 0])
    right = hyperplane_vertices(fig, 2)
    np.testing.assert_allclose(right[:, 1], 0.7, atol=1e-9)
    # Node 2 holds the rows with x0 > 0.5: its segment starts at most one grid step right
    # of 0.5 and never crosses into the left half.
    assert right[:, 0].min() > 0.5
    assert right[:, 0].min() < 0.5 + dx + 1e-9
    assert right[:, 0].max() == pytest.approx(grid.xx[0, -1])


class DoubledCART(CARTClassifier):
    """A tree grown on 2 x: ``tree_input`` does the transformation, as scaling does."""

    def fit(self, X, y):
        super().fit(2.0 * np.asarray(X), y)
        return self

    def tree_input(self, X):
        return 2.0 * check_X(X, self.n_features_in_)


def test_a_tree_on_transformed_inputs_is_drawn_in_the_original_coordinates(lattice):
    X, y = lattice
    est = DoubledCART().fit(X, y)
    assert est.tree_.threshold[[0, 2]] == pytest.approx([1.0, 1.4])  # in doubled units
    fig = plot_decision_regions(est, X, y, resolution=80)
    np.testing.assert_allclose(hyperplane_vertices(fig, 0)[:, 0], 0.5, atol=1e-9)
    np.testing.assert_allclose(hyperplane_vertices(fig, 2)[:, 1], 0.7, atol=1e-9)


def test_an_oblique_hyperplane_lies_on_its_line():
    # Class 1 above the line x0 + x1 = 1 (GDT grows an oblique root on it).
    rng = np.random.default_rng(0)
    X = rng.random((400, 2))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    est = make_estimator("gdt", random_state=0).fit(X, y)
    fig = plot_decision_regions(est, X, y, resolution=100)
    t = est.tree_
    assert t.feature[0] == OBLIQUE and np.count_nonzero(t.weights[0]) == 2
    vertices = hyperplane_vertices(fig, 0)
    np.testing.assert_allclose(vertices @ t.weights[0], t.threshold[0], atol=1e-9)


def test_decision_regions_need_two_features(lattice_tree):
    X3 = np.zeros((5, 3))
    with pytest.raises(ObliqError, match="2 features .*has 3"):
        plot_decision_regions(lattice_tree, X3, np.zeros(5))


def box_texts(fig):
    """{node id: text} of the boxes drawn (text artists with gid node-<id>)."""
    return {int(t.get_gid().split("-")[1]): t for t in fig.axes[0].texts
            if (t.get_gid() or "").startswith("node-")}


def test_tree_diagram_boxes_rules_and_counts(lattice_tree):
    t = lattice_tree.tree_
    fig = plot_tree_diagram(t, class_names=["a", "b"])
    boxes = box_texts(fig)
    assert sorted(boxes) == list(range(t.n_nodes))
    assert all(box.get_bbox_patch() is not None for box in boxes.values())
    lines = {node: box.get_text().splitlines() for node, box in boxes.items()}
    assert lines[0] == ["#0", f"{t.hyperplane_text(0)} <= 0.5", "[65, 35]"]
    assert lines[0][1] == "x1 <= 0.5"
    assert lines[2] == ["#2", "x2 <= 0.7", "[15, 35]"]
    assert lines[1] == ["#1", "class a", "[50, 0]"]
    assert lines[3] == ["#3", "class b", "[0, 35]"]
    assert lines[4] == ["#4", "class a", "[15, 0]"]
    # Layout: leaves 1, 3, 4 at in-order positions 0, 1, 2; parents centred; y = -depth.
    positions = {node: box.get_position() for node, box in boxes.items()}
    assert positions[1] == (0, -1) and positions[3] == (1, -2) and positions[4] == (2, -2)
    assert positions[2] == (1.5, -1) and positions[0] == (0.75, 0)


def test_tree_diagram_cut_at_max_depth(lattice_tree):
    t = lattice_tree.tree_
    fig = plot_tree_diagram(t, max_depth=1)
    assert sorted(box_texts(fig)) == [0, 1, 2]  # depth <= 1
    cuts = [x.get_gid() for x in fig.axes[0].texts if (x.get_gid() or "").startswith("cut-")]
    assert cuts == ["cut-2"]  # node 2 is internal at depth 1: its subtree is elided
    shown, x, depth, cut = tree_layout(t, max_depth=1)
    assert shown.tolist() == [0, 1, 2] and cut.tolist() == [False, False, True, False, False]
    wide = plot_tree_diagram(t).get_size_inches()[0]
    narrow = fig.get_size_inches()[0]
    assert narrow < wide  # 2 leaves shown instead of 3


def test_tree_diagram_oblique_rule_text():
    tree = Tree(np.array([1, LEAF, LEAF]), np.array([2, LEAF, LEAF]),
                np.array([-2, LEAF, LEAF]), np.array([[0.5, -2.0], [0, 0], [0, 0]]),
                np.array([1.25, 0, 0]), np.array([[3.0, 4.0], [3.0, 0.0], [0.0, 4.0]]))
    fig = plot_tree_diagram(tree, feature_names=["age", "dose"], class_names=["no", "yes"])
    root = box_texts(fig)[0].get_text().splitlines()
    assert root[1] == "-2*dose + 0.5*age <= 1.25" == (
        tree.hyperplane_text(0, ["age", "dose"]) + " <= 1.25")
    assert box_texts(fig)[2].get_text().splitlines()[1:] == ["class yes", "[0, 4]"]


def test_tree_diagram_of_a_multiway_split():
    X = np.array([[0, 1.0], [1, 2.0], [2, 3.0], [0, 4.0], [1, 5.0], [2, 6.0]] * 2)
    y = np.array([0, 1, 1, 0, 1, 0] * 2)
    tree = make_estimator("id3", categorical_features=[0]).fit(X, y).tree_
    fig = plot_tree_diagram(tree, feature_names=["colour", "size"])
    assert box_texts(fig)[0].get_text().splitlines()[1] == "colour"
    words = [t.get_text() for t in fig.axes[0].texts if t.get_text().startswith("= ")]
    assert words == ["= 0", "= 1", "= 2"]
    named = plot_tree_diagram(tree, category_names={0: ["red", "green", "blue"]})
    words = [t.get_text() for t in named.axes[0].texts if t.get_text().startswith("= ")]
    assert words == ["= red", "= green", "= blue"]
    # the parent sits over the middle of its three children
    positions = {n: b.get_position() for n, b in box_texts(fig).items()}
    kids = tree.children(0)
    assert positions[0][0] == (positions[kids[0]][0] + positions[kids[-1]][0]) / 2


def outside(fig) -> list[str]:
    """The texts of ``fig`` whose drawn extent (the box around it, for a node) leaves the
    figure, after a full draw."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    out = []
    for text in [*fig.texts, *(t for ax in fig.axes for t in ax.texts)]:
        if not text.get_text():
            continue
        box = text.get_window_extent(renderer)
        if text.get_bbox_patch() is not None:
            box = box.union([box, text.get_bbox_patch().get_window_extent(renderer)])
        if box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height:
            out.append(text.get_text())
    return out


@pytest.fixture(scope="module")
def wide_oblique():
    """OC1 on 300 rows of the breast-cancer data: hyperplanes of up to 30 terms."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    rows = np.random.default_rng(0).permutation(data.target.size)[:300]
    est = make_estimator("oc1", random_state=0, n_restarts=2).fit(data.data[rows],
                                                                 data.target[rows])
    assert est.n_oblique_ >= 2
    return est, list(data.feature_names)


def test_tree_diagram_shows_three_terms_and_fits_its_canvas(wide_oblique):
    est, names = wide_oblique
    tree = est.tree_
    title = "oc1 on wdbc: fitted on all 300 rows (seed 0, many leaves), a long title " * 2
    fig = plot_tree_diagram(tree, names, ["malignant", "benign"], title=title,
                            scale=est.tree_input_std_)
    assert outside(fig) == []
    for node in np.flatnonzero(tree.oblique_nodes()):
        rule = box_texts(fig)[node].get_text().splitlines()[1:-1]
        assert sum(line.count("*") for line in rule) <= 3 and " more) <= " in rule[-1], rule
        hidden = int(rule[-1].split("(+")[1].split(" ")[0])
        size = np.abs(tree.weights[node])
        spread = size * est.tree_input_std_
        # left out as dust: only a term small both in |w_j| and in |w_j| sd_j
        shown = (size >= 1e-4 * size.max()) | (spread >= 1e-4 * spread.max())
        assert 3 + hidden == np.count_nonzero(shown)
        first = re.split(r" [+-] ", rule[0])[0].lstrip("-").split("*")[-1]
        assert first == names[int(np.argmax(spread))]  # the largest |w_j| sd_j comes first
    # every term: the boxes grow, the canvas with them, and still nothing leaves it
    full = plot_tree_diagram(tree, names, terms=None)
    assert outside(full) == []
    assert full.get_size_inches()[1] > fig.get_size_inches()[1] - 0.3
    assert not any("more)" in t.get_text() for t in full.axes[0].texts)
    with pytest.raises(ObliqError, match="terms must be an integer >= 1"):
        plot_tree_diagram(tree, terms=0)


def test_a_tree_too_wide_for_the_canvas_is_drawn_smaller(monkeypatch):
    from obliq_cli.report import plots

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = rng.integers(0, 2, size=200)  # noise: a leaf for every few rows
    tree = make_estimator("cart-ap").fit(X, y).tree_
    natural = plot_tree_diagram(tree).get_size_inches()
    assert natural[0] > 50  # the 500-inch limit, lowered to 50 to keep the test quick
    monkeypatch.setattr(plots, "TREE_MAX_INCHES", 50.0)
    fig = plot_tree_diagram(tree)
    assert max(fig.get_size_inches()) == pytest.approx(50.0)
    np.testing.assert_allclose(fig.get_size_inches(), natural * 50.0 / natural[0])
    assert box_texts(fig)[0].get_fontsize() == pytest.approx(6.5 * 50.0 / natural[0])
    assert outside(fig) == []


def brute_force_groups(ranks: pd.Series, cd: float):
    """Maximal sets (size >= 2) whose every pair differs by less than cd, by enumeration."""
    names = list(ranks.sort_values(kind="stable").index)
    cliques = []
    for size in range(len(names), 1, -1):
        for combo in itertools.combinations(names, size):
            r = ranks[list(combo)]
            if r.max() - r.min() < cd and not any(set(combo) <= set(c) for c in cliques):
                cliques.append(combo)
    return sorted(cliques)


def test_cd_groups_by_hand():
    ranks = pd.Series({"E": 4.5, "A": 1.0, "C": 2.6, "B": 1.5, "D": 3.0})
    assert cd_groups(ranks, 1.2) == [("A", "B"), ("B", "C"), ("C", "D")]
    # 3.0 - 1.0 is not less than CD = 2: A and D are significantly different.
    assert cd_groups(ranks, 2.0) == [("A", "B", "C"), ("B", "C", "D"), ("C", "D", "E")]
    assert cd_groups(ranks, 0.4) == []
    assert cd_groups(ranks, 10.0) == [("A", "B", "C", "D", "E")]


def test_cd_groups_are_the_maximal_cliques():
    rng = np.random.default_rng(3)
    for _ in range(50):
        k = int(rng.integers(2, 8))
        ranks = pd.Series(np.round(rng.uniform(1, k, k), 1), index=[f"m{i}" for i in range(k)])
        cd = float(rng.uniform(0.2, 3))
        assert sorted(cd_groups(ranks, cd)) == brute_force_groups(ranks, cd), (ranks, cd)


def test_cd_diagram_bars_join_exactly_the_groups():
    ranks = pd.Series({"A": 1.0, "B": 1.5, "C": 2.6, "D": 3.0, "E": 4.5})
    fig = plot_critical_difference(ranks, 1.2, title="t")
    bars = {line.get_gid(): line.get_xdata() for line in fig.axes[0].lines
            if (line.get_gid() or "").startswith("cd-group-")}
    assert len(bars) == 3
    spans = sorted((round(min(x) + 0.03, 6), round(max(x) - 0.03, 6)) for x in bars.values())
    assert spans == [(1.0, 1.5), (1.5, 2.6), (2.6, 3.0)]
    interval = [line for line in fig.axes[0].lines if line.get_gid() == "cd-interval"][0]
    assert np.ptp(interval.get_xdata()) == pytest.approx(1.2)
    with pytest.raises(ObliqError):
        plot_critical_difference(ranks[:1], 1.0)


def test_learning_curves_one_line_per_pruner_per_unit():
    fig = plot_learning_curves({"la": [0.5, 0.7, 0.75], "ga": [0.4, 0.6]},
                               {"la": [500, 1000, 1200]},
                               {"la": "iteration", "ga": "generation"})
    assert [ax.get_xlabel() for ax in fig.axes] == ["iteration", "generation"]
    la, = fig.axes[0].lines
    np.testing.assert_array_equal(la.get_xdata(), [500, 1000, 1200])
    np.testing.assert_array_equal(la.get_ydata(), [0.5, 0.7, 0.75])
    ga, = fig.axes[1].lines
    np.testing.assert_array_equal(ga.get_xdata(), [0, 1])
    with pytest.raises(ObliqError, match="2 steps for 3 values"):
        plot_learning_curves({"la": [1, 2, 3]}, {"la": [1, 2]})


# ------------------------------------------------------------------------------ CLI
def invoke(args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result, result.output.strip().splitlines()


def test_cli_boundary_writes_png_and_svg(tmp_path):
    result, lines = invoke(["plot", "boundary", "--dataset", "checker2x2", "--algorithm",
                            "cart-ap", "--param", "max_depth=4", "-o", tmp_path / "x"])
    assert result.exit_code == 0, result.output
    png, svg = tmp_path / "x.png", tmp_path / "x.svg"
    assert lines == [str(png), str(svg)]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    # The SVG carries the hyperplanes by node id (gids become element ids).
    ids = {el.get("id") for el in root.iter() if el.get("id")}
    assert "hyperplane-0" in ids
    assert not list(tmp_path.glob(".*tmp"))


@pytest.mark.parametrize("args,fragment", [
    (["boundary", "--dataset", "pima", "--algorithm", "cart-ap"],
     "--dataset pima: decision regions need a dataset with 2 features (it has 8)"),
    (["boundary", "--dataset", "checker2x2", "--algorithm", "cart-apx"],
     "unknown algorithm 'cart-apx' (did you mean 'cart-ap'?)"),
    (["boundary", "--dataset", "checker2x", "--algorithm", "cart-ap"],
     "unknown dataset 'checker2x'"),
    (["boundary", "--dataset", "checker2x2", "--algorithm", "cart-ap", "--param", "max_depth"],
     "--param: expected key=value (got 'max_depth')"),
    (["boundary", "--dataset", "checker2x2", "--algorithm", "cart-ap", "--param", "depth=2"],
     "has no parameter 'depth'"),
    (["boundary", "--dataset", "checker2x2", "--algorithm", "cart-ap", "--pruner-param",
      "se_rule=1"], "--pruner-param needs --pruner"),
    (["tree", "--dataset", "test-iris", "--algorithm", "test-tree"],
     "test-tree gives no single tree to draw"),
    (["tree", "--dataset", "test-iris", "--algorithm", "cart-ap", "--terms", "0"],
     "--terms: must be an integer >= 1 or 'all' (got '0')"),
])
def test_cli_bad_input_is_one_line_exit_2(tmp_path, args, fragment):
    result, lines = invoke(["plot", *args, "-o", tmp_path / "y"])
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], lines
    assert not list(tmp_path.iterdir())


def test_cli_tree_writes_the_diagram(tmp_path):
    result, lines = invoke(["plot", "tree", "--dataset", "checker2x2", "--algorithm",
                            "cart-ap", "--param", "max_depth=3", "--max-depth", "2",
                            "--terms", "all", "-o",
                            tmp_path / "t.png"])
    assert result.exit_code == 0, result.output
    assert lines == [str(tmp_path / "t.png"), str(tmp_path / "t.svg")]
    ids = {el.get("id") for el in ET.parse(tmp_path / "t.svg").getroot().iter()}
    # depth <= 2 of a full-ish depth-3 tree: node ids present, cut markers below depth 2
    assert "node-0" in ids and any((i or "").startswith("cut-") for i in ids)


def test_cli_pruning_curves_take_pruner_params(tmp_path, monkeypatch):
    # --pruner-param goes to every pruner that has the key: max_iterations only to la,
    # n_generations only to ga; the curves' lengths show that each got its own.
    from obliq_cli.report import plots

    seen = {}
    original = plots.plot_learning_curves

    def spy(curves, steps, units, *args, **kwargs):
        seen.update({k: len(v) for k, v in curves.items()})
        seen.update({f"{k} at": list(v) for k, v in steps.items()}, units=units)
        return original(curves, steps, units, *args, **kwargs)

    monkeypatch.setattr(plots, "plot_learning_curves", spy)
    result, lines = invoke(["plot", "pruning", "--dataset", "apdt_problem1", "--algorithm",
                            "cart-lc", "--pruner-param", "max_iterations=1500",
                            "--pruner-param", "n_generations=7", "--pruner-param",
                            "q0=sparse", "-o", tmp_path / "curves"])
    assert result.exit_code == 0, result.output
    assert lines == [str(tmp_path / "curves.png"), str(tmp_path / "curves.svg")]
    assert seen["ga"] == 8  # generation 0 and 7 more
    assert seen["la"] <= 3  # chunks of 500 iterations, or fewer when converged
    # the x of each point is where the pruner's record says it was taken
    assert seen["ga at"] == list(range(8))
    assert seen["la at"][:-1] == [500, 1000][:seen["la"] - 1] and seen["la at"][-1] <= 1500
    assert seen["units"] == {"la": "iteration", "ga": "generation"}
    result, lines = invoke(["plot", "pruning", "--dataset", "apdt_problem1", "--algorithm",
                            "cart-lc", "--pruner-param", "nope=1", "-o", tmp_path / "x"])
    assert result.exit_code == 2 and len(lines) == 1 and "nope" in lines[0]
