"""Figures: decision regions, tree diagrams, CD diagrams, Bayesian probability matrices,
accuracy vs size, learning curves.

Every function returns a ``matplotlib.figure.Figure`` built without pyplot (no global
state, no screen: a bare ``Figure`` renders with the Agg canvas when saved) and knows
nothing about files or the command line; ``save_figure`` writes one as PNG and SVG (what
``obliq plot`` keeps) and ``html_report.py`` embeds them.

What a test (or a caller) needs beyond the pixels is attached to the figure:
``fig.obliq_regions`` (the grid and its predicted class codes) and the node ids as artist
gids (``node-<id>``, ``hyperplane-<id>``, ``cd-group-<i>``), which also become element
ids in SVG output.
"""

from __future__ import annotations

import contextlib
import functools
import re
import textwrap
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import ListedColormap, to_rgb
from matplotlib.contour import ContourSet
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ..errors import ObliqError
from ..tree.structure import LEAF, NOMINAL, Tree

REGION_LIGHTNESS = 0.65
"""How far each class colour is blended toward white for its region (points stay full)."""



def plain_text(plot):
    """Text of the figure is shown as given: a label such as ``$\\undefinedmacro$`` is
    a user's name, not matplotlib math text (which would fail to parse when drawn)."""
    @functools.wraps(plot)
    def wrapper(*args, **kwargs):
        with rc_context({"text.parse_math": False}):
            return plot(*args, **kwargs)
    return wrapper


@contextlib.contextmanager
def missing_glyphs_quiet():
    """Saving a figure whose labels hold characters the font lacks (an emoji, CJK in
    DejaVu Sans) draws a box for each; matplotlib also warned twice per character on
    standard error, its own source line included, at every save (PNG and SVG)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font",
                                category=UserWarning)
        yield


def _caption(fig: Figure, note: str | None) -> Figure:
    """``note`` (a line such as ``degeneracy.figure_note``'s) under the figure, wrapped to
    its width, so a saved picture carries it; also ``fig.obliq_note`` for a page's caption
    and the command line ("" without one). It is the figure's x label, for which the
    constrained layout keeps room (a figure legend below the panels would share that
    room: ``plot_accuracy_vs_size`` puts its legend beside them when there is a note)."""
    fig.obliq_note = note or ""
    if note:
        width = fig.get_size_inches()[0]
        fig.supxlabel(textwrap.fill(note, max(40, int(width * 15))),  # ~15 a inch at 7.5 pt
                      x=0.01, ha="left", fontsize=7.5, color="#8a4b00")
    return fig


def save_figure(fig: Figure, base, root=None) -> list:
    """Write ``base``.png (120 dpi) and ``base``.svg and return their paths. Each is
    ``safe_io.write_bytes``'s: a temporary file of an unpredictable name, renamed, no link
    followed below ``root`` (default the figure's folder); both are refused before either
    is written. The SVG has no date and fixed clip-path ids: the same figure, the same
    bytes."""
    import io
    from pathlib import Path

    from .. import safe_io

    base = Path(base)
    paths = {ext: base.with_name(f"{base.name}.{ext}") for ext in ("png", "svg")}
    for path in paths.values():
        safe_io.check_file(path, root)
    for ext, path in paths.items():
        buffer = io.BytesIO()
        options = {"metadata": {"Date": None}} if ext == "svg" else {}
        with missing_glyphs_quiet(), rc_context({"svg.hashsalt": "obliq"}):
            fig.savefig(buffer, format=ext, dpi=120 if ext == "png" else None, **options)
        safe_io.write_bytes(path, buffer.getvalue(), root)
    return list(paths.values())


def class_colours(n_classes: int) -> np.ndarray:
    """One RGB row per class: tab10 up to 10 classes, tab20 up to 20, then a hue wheel."""
    from matplotlib import colormaps

    if n_classes <= 10:
        return np.array(colormaps["tab10"].colors[:n_classes])
    if n_classes <= 20:
        return np.array(colormaps["tab20"].colors[:n_classes])
    return colormaps["hsv"](np.linspace(0, 1, n_classes, endpoint=False))[:, :3]


def _lighter(rgb: np.ndarray, amount: float = REGION_LIGHTNESS) -> np.ndarray:
    return rgb + (1.0 - rgb) * amount


# ---------------------------------------------------------------- decision regions
@dataclass
class RegionGrid:
    """The grid a decision-region figure was drawn from.

    ``xx``, ``yy``: [resolution, resolution] coordinates; ``codes``: the predicted class
    of every grid point as an index into ``classes``; ``hyperplanes``: internal node id ->
    its contour set (drawn only where grid points pass through that node).
    """

    xx: np.ndarray
    yy: np.ndarray
    codes: np.ndarray
    classes: np.ndarray
    hyperplanes: dict[int, ContourSet] = field(default_factory=dict)


def _single_tree(estimator) -> Tree | None:
    tree = getattr(estimator, "tree_", None)
    return tree if isinstance(tree, Tree) else None


def _grid(X: np.ndarray, resolution: int, margin: float = 0.05):
    """A square grid over the data's bounding box widened by ``margin`` of its span; the
    box is of the known values (a missing value, NaN, has no place on the picture: its
    point is not drawn, while the regions are the model's for every grid point)."""
    known = ~np.isnan(X)
    if not known.any(axis=0).all():
        raise ObliqError("decision regions need a known value in each of the 2 features "
                         "(one is missing in every row)")
    low, high = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    span = np.where(high > low, high - low, 1.0)
    low, high = low - margin * span, high + margin * span
    xs = np.linspace(low[0], high[0], resolution)
    ys = np.linspace(low[1], high[1], resolution)
    return np.meshgrid(xs, ys)


def _draw_hyperplanes(ax, estimator, tree: Tree, grid: np.ndarray, xx, yy,
                      label_nodes: bool) -> dict[int, ContourSet]:
    """Every internal node's hyperplane w . z = t, drawn only inside the node's region.

    z = ``tree_input(grid)``, so a tree grown on transformed inputs (scaling, dummy codes)
    is drawn in the original coordinates: the 0-contour of ``w . z - t`` over the grid
    points whose leaf lies in the node's subtree (a contiguous preorder range, so one
    comparison per point). Segments therefore appear as in the APDT paper's Figs. 3-4 and
    the GDT paper's Fig. 2: each split only where its node applies.
    """
    z = estimator.tree_input(grid) if hasattr(estimator, "tree_input") else grid
    leaves = tree.apply(z)
    internal = np.flatnonzero(~tree.is_leaf)
    drawn: dict[int, ContourSet] = {}
    for node in internal:  # one pass per node over the grid, never per point
        end = int(tree.subtree_nodes(node)[-1]) + 1
        inside = (leaves >= node) & (leaves < end)
        if not inside.any() or tree.kind[node] == NOMINAL:
            continue  # a multiway test on category codes draws no hyperplane
        if tree.feature[node] >= 0:
            side = z[:, tree.feature[node]] - tree.threshold[node]
        else:
            side = z @ tree.weights[node] - tree.threshold[node]
        field_ = np.ma.masked_array(side, mask=~inside).reshape(xx.shape)
        if field_.min() > 0 or field_.max() < 0:
            continue  # the plane does not cross the node's region on this grid
        contour = ax.contour(xx, yy, field_, levels=[0.0], colors="black", linewidths=1.2)
        contour.set_gid(f"hyperplane-{node}")
        drawn[int(node)] = contour
        if label_nodes:
            segments = [s for s in contour.allsegs[0] if len(s)]
            if segments:
                longest = max(segments, key=len)
                x, y = longest[len(longest) // 2]
                ax.text(x, y, str(node), fontsize=7, ha="center", va="center",
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                              "alpha": 0.8})
    return drawn


@plain_text
def plot_decision_regions(estimator, X, y, feature_names=None, class_names=None,
                          title: str | None = None, resolution: int = 300) -> Figure:
    """Decision regions of a fitted classifier on a 2-D dataset, with its training rows.

    The regions are ``estimator.predict`` on a ``resolution`` x ``resolution`` grid over the
    data; for a single tree (``tree_`` an obliq Tree) every internal node's hyperplane is
    drawn inside that node's region only, labelled with its node id when the tree has at
    most 40 splits. ``fig.obliq_regions`` holds the grid and its predictions
    (``RegionGrid``).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        width = X.shape[1] if X.ndim == 2 else "?"
        raise ObliqError(f"decision regions need a dataset with 2 features (this one has "
                         f"{width})")
    if isinstance(resolution, bool) or not isinstance(resolution, int) or resolution < 2:
        raise ObliqError(f"resolution must be an integer >= 2 (got {resolution!r})")
    y = np.asarray(y)
    classes = np.asarray(getattr(estimator, "classes_", np.unique(y)))
    names = [str(c) for c in (class_names if class_names is not None else classes)]
    xx, yy = _grid(X, resolution)
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    predicted = np.asarray(estimator.predict(grid))
    codes = np.searchsorted(classes, predicted).reshape(xx.shape)
    k = len(classes)
    colours = class_colours(k)

    fig = Figure(figsize=(6.4, 5.6), layout="constrained")
    ax = fig.subplots()
    dx, dy = xx[0, 1] - xx[0, 0], yy[1, 0] - yy[0, 0]
    # Pixel (i, j) is centred on grid point (xx[i, j], yy[i, j]).
    ax.imshow(codes, origin="lower", interpolation="nearest", aspect="auto",
              cmap=ListedColormap(_lighter(colours)), vmin=-0.5, vmax=k - 0.5,
              extent=(xx[0, 0] - dx / 2, xx[0, -1] + dx / 2, yy[0, 0] - dy / 2,
                      yy[-1, 0] + dy / 2))
    hyperplanes = {}
    tree = _single_tree(estimator)
    if tree is not None:
        hyperplanes = _draw_hyperplanes(ax, estimator, tree, grid, xx, yy,
                                        label_nodes=tree.n_internal <= 40)
    point_codes = np.searchsorted(classes, y)
    known = (point_codes < k) & (classes[np.minimum(point_codes, k - 1)] == y)
    for code in range(k):
        rows = known & (point_codes == code)
        if rows.any():
            ax.scatter(X[rows, 0], X[rows, 1], s=9, color=colours[code], edgecolors="white",
                       linewidths=0.3, label=names[code], zorder=3)
    ax.set_xlim(xx[0, 0] - dx / 2, xx[0, -1] + dx / 2)
    ax.set_ylim(yy[0, 0] - dy / 2, yy[-1, 0] + dy / 2)
    fnames = list(feature_names) if feature_names is not None else ["x1", "x2"]
    ax.set_xlabel(str(fnames[0]))
    ax.set_ylabel(str(fnames[1]))
    ax.legend(loc="upper right", fontsize=8, framealpha=0.85, markerscale=1.5)
    title = title if title is not None else type(estimator).__name__
    # One line across the figure: shrink the type of a long title (a stored task's names
    # its results folder) rather than let the figure's edge cut it.
    width_chars = fig.get_figwidth() * 11
    ax.set_title(title, fontsize=min(10.0, 10.0 * width_chars / max(len(title), 1)))
    fig.obliq_regions = RegionGrid(xx, yy, codes, classes, hyperplanes)
    return fig


# ------------------------------------------------------------------- tree diagram
def tree_layout(tree: Tree, max_depth: int | None = None):
    """Positions of the nodes drawn: x = in-order position of the drawn leaves (a parent
    centred over its children), y = depth.

    Returns (shown node ids in preorder, x, depth, cut) where ``cut`` marks internal
    nodes at ``max_depth`` whose subtrees are not drawn. The loops run over nodes.
    """
    depth = tree.node_depth
    shown = np.ones(tree.n_nodes, dtype=bool) if max_depth is None else depth <= max_depth
    cut = shown & ~tree.is_leaf & (depth == max_depth if max_depth is not None else False)
    terminal = shown & (tree.is_leaf | cut)
    x = np.zeros(tree.n_nodes)
    # Preorder with left children first visits terminals left to right.
    x[terminal] = np.arange(np.count_nonzero(terminal))
    for node in np.flatnonzero(shown & ~terminal)[::-1]:  # children (larger ids) first
        x[node] = (x[tree.children_left[node]] + x[tree.children_right[node]]) / 2
    return np.flatnonzero(shown), x, depth, cut


def _wrap_rule(text: str, width: int = 28) -> str:
    """Break a long hyperplane between its terms, never inside one (a feature name may
    hold spaces): terms are joined on a line while it stays within ``width``."""
    lines: list[str] = []
    for term in re.split(r" (?=[+-] |\(\+\d+ more\))", text):
        if lines and len(lines[-1]) + 1 + len(term) <= width:
            lines[-1] += " " + term
        else:
            lines.append(term)
    return "\n".join(lines)


def node_label(tree: Tree, node: int, feature_names=None, class_names=None,
               digits: int = 4, terms: int | None = None, scale=None) -> str:
    """A node's box text: its id; the rule ``w.x <= t`` (Tree.hyperplane_text: the
    ``terms`` largest terms, ranked by ``scale``, and a count of the rest) or the leaf's
    class; the node's class counts of the growing data."""
    counts = "[" + ", ".join(f"{c:g}" for c in tree.value[node]) + "]"
    if tree.children_left[node] == LEAF:
        classes = class_names if class_names is not None else list(range(tree.n_classes))
        return f"#{node}\nclass {classes[int(np.argmax(tree.value[node]))]}\n{counts}"
    rule = tree.hyperplane_text(node, feature_names, digits, terms=terms, scale=scale)
    if tree.kind[node] != NOMINAL:  # a multiway node's edges name the categories
        rule = f"{rule} <= {tree.threshold[node] + 0.0:.{digits}g}"  # -0.0 prints as 0
    return f"#{node}\n{_wrap_rule(rule)}\n{counts}"


TREE_FONT = 6.5
"""Point size of a node's box text; the canvas is sized to the boxes, not the reverse."""
TREE_GAP = (0.2, 0.3)
"""Inches between the widest boxes of neighbouring columns, and between the tallest
boxes of neighbouring levels (room for the edge's "true" / "false")."""
TREE_MAX_INCHES = 500.0
"""The largest side of a tree figure (PNG at 120 dpi stays under Agg's 65 536 pixels);
a tree that needs more is drawn in smaller type."""


def _measure(fig: Figure, artists) -> np.ndarray:
    """Width and height in inches of each text artist's box (its text, the pad and the
    frame of its bbox patch, when it has one)."""
    renderer = fig.canvas.get_renderer()
    out = np.zeros((len(artists), 2))
    for i, artist in enumerate(artists):
        extent = artist.get_window_extent(renderer)
        pad = 0.0
        if artist.get_bbox_patch() is not None:  # boxstyle pad 0.3 of the font, the frame
            pad = 2 * (0.3 * artist.get_fontsize() + 0.8) * fig.dpi / 72
        out[i] = (extent.width + pad) / fig.dpi, (extent.height + pad) / fig.dpi
    return out


@plain_text
def plot_tree_diagram(tree: Tree, feature_names=None, class_names=None,
                      max_depth: int | None = None, category_names=None,
                      terms: int | None = 3, scale=None, title: str | None = None) -> Figure:
    """A fitted tree as boxes and edges, no Graphviz.

    Internal boxes hold the rule (left branch = rule true), leaves their class; every box
    its class counts; the edges of a multiway node name its categories
    (``category_names``: column -> names by code; the codes without it). An oblique rule
    shows its ``terms`` largest terms (None: all), ranked by ``|w_j| * scale[j]`` when
    ``scale`` (each column's spread, e.g. an estimator's ``tree_input_std_``) is given,
    and counts the others (``... (+27 more)``). ``max_depth`` stops the drawing at that
    depth: a cut node's box gets a "..." below it.

    The canvas is sized to what it holds: every box is measured, the columns are as wide
    as the widest box and the levels as tall as the tallest, and ``title`` (drawn above)
    widens it when longer, so no text leaves the figure (a tree that would need more
    than ``TREE_MAX_INCHES`` is drawn in smaller type instead). Each box is a text
    artist with gid ``node-<id>``.
    """
    if not isinstance(tree, Tree):
        raise ObliqError("a tree diagram needs an obliq Tree (a single-tree estimator's tree_)")
    if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, int)
                                  or max_depth < 0):
        raise ObliqError(f"max_depth must be an integer >= 0 (got {max_depth!r})")
    if terms is not None and (isinstance(terms, bool) or not isinstance(terms, int)
                              or terms < 1):
        raise ObliqError(f"terms must be an integer >= 1 or None for all (got {terms!r})")
    shown, x, depth, cut = tree_layout(tree, max_depth)
    n_columns = int(x[shown].max()) + 1 if shown.size else 1
    levels = int(depth[shown].max()) + 1
    fig = Figure()
    FigureCanvasAgg(fig)  # the renderer that measures the boxes (and saves, as before)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_axis_off()
    leaf_colours = class_colours(tree.n_classes)
    boxes, small = [], []
    for node in shown:
        xn, yn = x[node], -depth[node]
        if not tree.is_leaf[node] and not cut[node]:
            if tree.kind[node] == NOMINAL:
                names = (category_names or {}).get(int(tree.feature[node]))
                words = [f"= {names[v] if names is not None else v}"
                         for v in range(int(tree.n_branches[node]))]
            else:
                words = ["true", "false"]
            for child, word in zip(tree.children(node), words):
                xc, yc = x[child], -depth[child]
                ax.plot([xn, xc], [yn, yc], color="0.45", linewidth=0.9, zorder=1)
                small.append(ax.text((xn + xc) / 2, (yn + yc) / 2, word, fontsize=6,
                                     color="0.35", ha="center", va="center", zorder=2))
        if tree.is_leaf[node]:
            face = _lighter(np.asarray(to_rgb(leaf_colours[int(np.argmax(tree.value[node]))])),
                            0.55)
        else:
            face = "white"
        text = ax.text(xn, yn, node_label(tree, node, feature_names, class_names,
                                          terms=terms, scale=scale),
                       fontsize=TREE_FONT, ha="center", va="center", zorder=3,
                       family="monospace", bbox={"boxstyle": "round,pad=0.3", "fc": face,
                                                 "ec": "0.3", "lw": 0.8})
        text.set_gid(f"node-{node}")
        boxes.append(text)
        if cut[node]:
            small.append(ax.text(xn, yn - 0.5, "...", fontsize=10, ha="center",
                                 va="center", gid=f"cut-{node}"))
    heading = fig.suptitle(title, fontsize=9) if title else None
    size = _measure(fig, boxes)
    column = size[:, 0].max() + TREE_GAP[0]
    level = size[:, 1].max() + TREE_GAP[1]
    title_size = _measure(fig, [heading])[0] + 0.1 if heading is not None else np.zeros(2)
    width = max(n_columns * column, title_size[0], 1.0)
    height = levels * level + (0.35 * level if cut.any() else 0.0) + title_size[1]
    shrink = min(1.0, TREE_MAX_INCHES / max(width, height))
    if shrink < 1.0:  # smaller type, the same layout: every length scales alike
        for artist in [*boxes, *small] + ([heading] if heading is not None else []):
            artist.set_fontsize(artist.get_fontsize() * shrink)
        width, height, title_size = width * shrink, height * shrink, title_size * shrink
    fig.set_size_inches(width, height)
    ax.set_position((0.0, 0.0, 1.0, 1.0 - title_size[1] / height))
    ax.set_xlim(-0.5, n_columns - 0.5)
    ax.set_ylim(-(levels - 1) - 0.5 - (0.35 if cut.any() else 0.0), 0.5)
    if heading is not None:
        heading.set_y(1.0 - 0.05 / height)
        heading.set_verticalalignment("top")
    return fig


def plot_fitted_tree(estimator, info: dict, max_depth: int | None = None,
                     terms: int | None = 3, title: str | None = None,
                     what: str | None = None) -> Figure:
    """``plot_tree_diagram`` of a fitted single-tree ``estimator`` (``obliq plot tree``),
    labelled from the data's ``info``: the columns its tree reads (those of its own
    coding, ``coding_``, when it has one), the levels of the nominal columns a multiway
    split (C4.5, ID3) tests as loaded, the class names, each column's spread
    (``tree_input_std_``) ranking an oblique rule's terms. ``what`` names the fit in the
    error an estimator without one obliq Tree gives."""
    tree = getattr(estimator, "tree_", None)
    if not isinstance(tree, Tree):
        raise ObliqError(f"{what or type(estimator).__name__} gives no single tree to draw "
                         f"(a {type(estimator).__name__})")
    names = info.get("feature_names")
    coding = getattr(estimator, "coding_", None)
    if coding is not None:
        names = coding.feature_names(names)
    levels = dict(zip(info.get("categorical") or [], info.get("categories") or []))
    return plot_tree_diagram(tree, names, [str(c) for c in estimator.classes_], max_depth,
                             category_names=levels, terms=terms,
                             scale=getattr(estimator, "tree_input_std_", None), title=title)


# ------------------------------------------------------------ critical difference
def cd_groups(average_ranks: pd.Series, cd: float) -> list[tuple[str, ...]]:
    """The groups a CD diagram joins by a bar: maximal sets of two or more algorithms whose
    average ranks all differ by less than ``cd`` (Demsar 2006, §3.2.2 and Fig. 1: two
    classifiers differ significantly when their ranks differ by at least the CD).

    On a line such a set is a run of consecutive ranks: for each algorithm (sorted) the
    farthest one within ``cd`` is found by one ``searchsorted``; a run is maximal when it
    reaches further than the run starting before it. Algorithms in rank order.
    """
    ranks = average_ranks.sort_values(kind="stable")
    values = ranks.to_numpy(dtype=np.float64)
    last = np.searchsorted(values, values + cd, side="left") - 1  # farthest with diff < cd
    previous = np.concatenate([[-1], last[:-1]])
    keep = (last > np.arange(values.size)) & (last > previous)
    names = [str(n) for n in ranks.index]
    return [tuple(names[i:last[i] + 1]) for i in np.flatnonzero(keep)]


@plain_text
def plot_critical_difference(average_ranks: pd.Series, cd: float,
                             title: str | None = None, note: str | None = None) -> Figure:
    """Demsar's critical-difference diagram (2006, Fig. 1).

    A rank axis from 1 to k (best on the left), each algorithm joined to its average
    rank, the better half labelled on the left and the rest on the right, thick bars
    under the groups of ``cd_groups`` (gids ``cd-group-<i>``), and the CD interval above
    the axis; ``note``: a line under it (``_caption``).
    """
    if len(average_ranks) < 2:
        raise ObliqError("a CD diagram needs at least 2 algorithms")
    if not np.isfinite(cd) or cd <= 0:
        raise ObliqError(f"the critical difference must be a positive number (got {cd!r})")
    ranks = average_ranks.sort_values(kind="stable")
    k = len(ranks)
    groups = cd_groups(ranks, cd)
    half = (k + 1) // 2
    rows = max(half, k - half)
    labels = [f"{name} ({rank:.2f})" for name, rank in ranks.items()]
    # Room for the labels in inches (about 0.07 in a character at 9 pt), so long
    # algorithm names are never clipped; the rank axis itself gets 4 inches.
    label_inches = 0.07 * max(len(text) for text in labels) + 0.45
    axis_inches = 4.0
    high = max(k, float(np.ceil(ranks.max())))
    per_inch = (high - 1) / axis_inches  # rank units per inch
    step = 0.28
    height = 1.3 + step * (rows + len(groups) + 1)
    fig = Figure(figsize=(axis_inches + 2 * label_inches, height), layout="constrained")
    ax = fig.subplots()
    ax.set_axis_off()
    ax.set_xlim(1 - label_inches * per_inch, high + label_inches * per_inch)
    ax.set_ylim(-(0.45 + step * (rows + len(groups) + 1)), 1.05)
    # The rank axis with ticks at every integer rank.
    ax.plot([1, high], [0, 0], color="black", linewidth=1)
    for r in range(1, int(high) + 1):
        ax.plot([r, r], [0, 0.08], color="black", linewidth=1)
        ax.text(r, 0.14, str(r), ha="center", va="bottom", fontsize=9)
    # The CD interval above the axis, starting at rank 1.
    ax.plot([1, 1 + cd], [0.62, 0.62], color="black", linewidth=1.5, gid="cd-interval")
    for end in (1, 1 + cd):
        ax.plot([end, end], [0.57, 0.67], color="black", linewidth=1.5)
    ax.text(1 + cd / 2, 0.72, f"CD = {cd:.3g}", ha="center", va="bottom", fontsize=9)
    # Algorithms: the better half to the left, the rest to the right.
    left_end, right_end = 1 - 0.25 * per_inch, high + 0.25 * per_inch
    gap = 0.05 * per_inch
    for i, (rank, text) in enumerate(zip(ranks.to_numpy(), labels)):
        on_left = i < half
        row = i if on_left else k - 1 - i
        yline = -(0.35 + step * (row + len(groups) + 1))
        xend = left_end if on_left else right_end
        ax.plot([rank, rank, xend], [0, yline, yline], color="0.25", linewidth=0.9)
        ax.text(xend - gap if on_left else xend + gap, yline, text,
                ha="right" if on_left else "left", va="center", fontsize=9)
    # Non-significant groups: thick bars just under the axis, one row each.
    for g, members in enumerate(groups):
        lo, hi = ranks[list(members)].min(), ranks[list(members)].max()
        yb = -(0.25 + step * g)
        ax.plot([lo - 0.03, hi + 0.03], [yb, yb], color="black", linewidth=4,
                solid_capstyle="butt", gid=f"cd-group-{g}")
    if title:
        # One line: shrink the type rather than wrap (a wrapped title reads as two).
        width_chars = (axis_inches + 2 * label_inches) * 11
        ax.set_title(title, fontsize=min(10.0, 10.0 * width_chars / max(len(title), 1)))
    fig.obliq_groups = groups
    return _caption(fig, note)


# ------------------------------------------------------------- Bayesian probabilities
@plain_text
def plot_bayes_matrix(algorithms, better, rope, worse, title: str | None = None,
                      rope_width: float | None = None, note: str | None = None) -> Figure:
    """The pairwise probabilities of a Bayesian comparison (Benavoli et al. 2017) as a
    k x k matrix: cell (row i, column j) holds P(i better than j), P(rope), P(j better)
    and is coloured by P(i better) - P(j better) (blue: the row algorithm is better, red:
    worse, white: equivalent or undecided). ``better``, ``rope``, ``worse``: k x k
    arrays from the row's side (``analysis.bayes.probability_matrix``), NaN where untested; each
    cell's text artist has gid ``bayes-<i>-<j>``; ``note``: a line under it (``_caption``)."""
    from matplotlib import colormaps

    names = [str(a) for a in algorithms]
    k = len(names)
    if k < 2:
        raise ObliqError("a Bayesian probability matrix needs at least 2 algorithms")
    better, rope, worse = (np.asarray(m, dtype=np.float64) for m in (better, rope, worse))
    if not better.shape == rope.shape == worse.shape == (k, k):
        raise ObliqError(f"the probability matrices must be {k} x {k}")
    side = max(3.2, 1.05 * k + 1.6)
    fig = Figure(figsize=(side + 0.9, side), layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(better - worse, cmap=colormaps["RdBu"], vmin=-1, vmax=1)
    for i in range(k):
        for j in range(k):
            if i == j:
                text = "—"
            elif np.isnan(better[i, j]):
                text = "no test"
            else:
                text = (f"better {better[i, j]:.2f}\nrope {rope[i, j]:.2f}\n"
                        f"worse {worse[i, j]:.2f}")
            dark = not np.isnan(better[i, j]) and abs(better[i, j] - worse[i, j]) > 0.6
            ax.text(j, i, text, ha="center", va="center", fontsize=7.5,
                    color="white" if dark else "black", gid=f"bayes-{i}-{j}")
    ax.set_xticks(range(k), names, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(k), names, fontsize=8)
    ax.set_xlabel("versus (column)", fontsize=8)
    ax.set_ylabel("algorithm (row)", fontsize=8)
    bar = fig.colorbar(image, ax=ax, shrink=0.8)
    bar.set_label("P(row better) - P(column better)", fontsize=8)
    bar.ax.tick_params(labelsize=7)
    if title:
        ax.set_title(title + (f" (rope {rope_width:g})" if rope_width is not None else ""),
                     fontsize=9)
    return _caption(fig, note)


# ------------------------------------------------------------- accuracy vs size
@plain_text
def plot_accuracy_vs_size(tidy: pd.DataFrame, accuracy: str = "test_accuracy",
                          size: str = "n_leaves", title: str | None = None,
                          note: str | None = None) -> Figure:
    """Mean test accuracy against mean tree size (leaves), one panel per dataset, one
    marker and colour per algorithm across all panels.

    ``tidy`` has one row per (dataset, algorithm) with columns ``dataset``, ``algorithm``,
    ``accuracy`` and ``size`` (their names given). Models without a size (an SVM: NaN)
    are left out of their panel. Every panel has the same kind of size axis: logarithmic
    on all when the sizes of some dataset span more than a factor of 20, else linear on
    all; axis labels carry the metrics' units. ``note``: a line under it (``_caption``).
    """
    from ..experiment.metrics import check_metric

    missing = {"dataset", "algorithm", accuracy, size} - set(tidy.columns)
    if missing:
        raise ObliqError(f"accuracy vs size: missing column(s) {', '.join(sorted(missing))}")
    data = tidy.dropna(subset=[accuracy, size])
    if data.empty:
        raise ObliqError("accuracy vs size: no (dataset, algorithm) has both an accuracy "
                         "and a size")
    datasets = list(dict.fromkeys(data["dataset"]))
    algorithms = list(dict.fromkeys(data["algorithm"]))
    n_cols = min(3, len(datasets))
    n_rows = -(-len(datasets) // n_cols)
    # One panel gets its legend beside it: room for that too.
    fig = Figure(figsize=(3.3 * n_cols + 0.4 + (2.3 if n_cols == 1 else 0.0),
                          2.8 * n_rows + 0.6),
                 layout="constrained")
    axes = np.atleast_1d(fig.subplots(n_rows, n_cols, squeeze=False)).ravel()
    colours = class_colours(len(algorithms))
    spans = data.groupby("dataset")[size].agg(["min", "max"])
    log_x = bool(((spans["min"] > 0) & (spans["max"] > 20 * spans["min"])).any()
                 and (data[size] > 0).all())
    markers = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p"]
    for ax, dataset in zip(axes, datasets):
        part = data[data["dataset"] == dataset]
        for j, algorithm in enumerate(algorithms):
            row = part[part["algorithm"] == algorithm]
            if row.empty:
                continue
            ax.scatter(row[size], row[accuracy], s=36, color=colours[j],
                       marker=markers[j % len(markers)], label=str(algorithm),
                       edgecolors="black", linewidths=0.4, zorder=3)
        if log_x:
            ax.set_xscale("log")
            # plain numbers at 1, 2, 5 x 10^k, in the tick font (not math-text powers)
            ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(str(dataset), fontsize=9)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
        ax.set_xlabel(check_metric(size).label + (", log scale" if log_x else ""),
                      fontsize=8)
        ax.set_ylabel(check_metric(accuracy).label, fontsize=8)
    for ax in axes[len(datasets):]:
        ax.set_axis_off()
    handles, labels = [], []
    for ax in axes[: len(datasets)]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    if n_cols == 1 or note:  # one narrow panel (or a note below): the legend beside them
        fig.legend(handles, labels, loc="outside right center", fontsize=8, frameon=False)
    else:  # as many columns as fit under the panels (about 2 inches a label)
        width = fig.get_size_inches()[0]
        fig.legend(handles, labels, loc="outside lower center", frameon=False, fontsize=8,
                   ncols=max(1, min(len(labels), int(width // 2.0))))
    if title:
        fig.suptitle(title, fontsize=10)
    return _caption(fig, note)


# ------------------------------------------------------------- learning curves
@plain_text
def plot_learning_curves(curves: dict[str, list[float]], x_values: dict | None = None,
                         xlabels: dict | None = None, ylabel: str = "best training accuracy",
                         title: str | None = None) -> Figure:
    """Learning curves of network pruners (APDT paper Fig. 6): one line per pruner, in a
    panel of its own when the pruners count steps in different units (LA: iterations,
    GA: generations), with a shared accuracy axis.

    ``x_values[name]``: the step of each point (default 0, 1, ...); ``xlabels[name]``: the
    unit of the step axis.
    """
    if not curves:
        raise ObliqError("no learning curve to plot")
    x_values = x_values or {}
    xlabels = xlabels or {}
    names = list(curves)
    units = list(dict.fromkeys(xlabels.get(n, "step") for n in names))
    fig = Figure(figsize=(3.6 * len(units) + 0.6, 3.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(units), sharey=True, squeeze=False)).ravel()
    colours = class_colours(len(names))
    for i, name in enumerate(names):
        y = np.asarray(curves[name], dtype=np.float64)
        x = np.asarray(x_values.get(name, np.arange(y.size)), dtype=np.float64)
        if x.shape != y.shape:
            raise ObliqError(f"learning curve {name!r}: {x.size} steps for {y.size} values")
        ax = axes[units.index(xlabels.get(name, "step"))]
        ax.plot(x, y, color=colours[i], linewidth=1.4, label=str(name),
                drawstyle="steps-post")
    for ax, unit in zip(axes, units):
        ax.set_xlabel(unit)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    axes[0].set_ylabel(ylabel)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


__all__ = ["RegionGrid", "cd_groups", "class_colours", "node_label", "plot_accuracy_vs_size",
           "plot_bayes_matrix",
           "plot_critical_difference", "plot_decision_regions", "plot_learning_curves",
           "plot_tree_diagram", "tree_layout"]
