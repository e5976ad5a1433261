"""The built documentation site: it builds with warnings as errors (the ``site``
fixture), every page the issue names is there, and every link from one page to another,
or to an anchor, a figure or a download, arrives (a small link walker over the html)."""

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytestmark = pytest.mark.slow

PAGES = ["index", "tutorial", "guide/install", "guide/commands", "guide/configs",
         "guide/statistics", "guide/algorithms", "guide/datasets", "guide/python",
         "guide/protocols", "guide/data", "guide/results", "guide/plots", "guide/cluster",
         "gallery",
         "reference/cli", "reference/api", "reproduced/index", "reproduced/apdt",
         "reproduced/hhcart", "reproduced/gdt", "reproduced/umt", "reproduced/oc1",
         "reproduction", "agreement", "benchmark", "extending", "layout", "internals",
         "contributing", "changelog", "citation"]


class _Links(HTMLParser):
    """Every id, and every href / src, of one page."""

    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key) is not None:
                self.links.append(attrs[key])


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def broken_links(site: Path) -> list[str]:
    """Every local link of every built page whose file, or whose #anchor in it, is
    missing: '<page>: <link>'. Links with a scheme (https:, mailto:) are not followed
    (the site is built offline and links nowhere else by design)."""
    pages = {p: _parse(p) for p in site.rglob("*.html")
             if "_sources" not in p.parts and "_modules" not in p.parts}
    broken = []
    for page, parsed in pages.items():
        for link in parsed.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("javascript:"):
                continue
            target = page if not parts.path else (page.parent / unquote(parts.path))
            target = target.resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {link}")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    return broken


def test_every_page_the_issue_names_is_built(site):
    missing = [p for p in PAGES if not (site / f"{p}.html").is_file()]
    assert not missing, missing


def test_every_internal_link_and_anchor_arrives(site):
    broken = broken_links(site)
    assert not broken, "broken links in the built site:\n" + "\n".join(broken[:50])


def test_the_link_walker_finds_a_broken_link_and_anchor(tmp_path):
    (tmp_path / "a.html").write_text('<h1 id="top">A</h1><a href="b.html#here">b</a>'
                                     '<a href="a.html#top">self</a><img src="gone.svg">'
                                     '<a href="b.html#nowhere">x</a><a href="https://x.org">'
                                     'out</a>')
    (tmp_path / "b.html").write_text('<p id="here">B</p>')
    assert broken_links(tmp_path) == ["a.html: gone.svg", "a.html: b.html#nowhere (no such anchor)"]


def test_the_generated_pages_carry_their_generated_content(site):
    """The CLI reference is the click group's (every top-level command), the config
    reference the declarations' (every scope), the tutorial executed (its outputs)."""
    from obliq_cli import config_schema
    from obliq_cli.cli import main

    cli = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    for name in main.commands:
        assert f'id="obliq-{name}"' in cli, name
    configs = (site / "guide" / "configs.html").read_text(encoding="utf-8")
    for where, _ in config_schema.SCOPES.values():
        if where:  # every scope's place in a config, as the generator writes it
            assert f"<code class=\"docutils literal notranslate\"><span class=\"pre\">" \
                   f"{where}</span>" in configs, where
    tutorial = (site / "tutorial.html").read_text(encoding="utf-8")
    assert "cell_output" in tutorial and "5x2f" in tutorial
    assert 'class="problematic"' not in cli + configs + tutorial  # rst misread
    assert "OC1" in tutorial and "RF" in tutorial


def test_the_gallery_draws_every_kind_of_figure_at_build_time(site):
    """The gallery notebook ran: its experiment's output and one image per command it
    runs (cd, size, boundary, tree, pruning), beside the benchmark's three committed
    figures, each of which arrives (the link walker checks the files)."""
    gallery = (site / "gallery.html").read_text(encoding="utf-8")
    assert "mean over 5 folds of each repetition" in gallery  # the experiment's table
    for kind in ("cd", "size", "boundary", "tree", "pruning"):
        assert f"$ obliq plot {kind} " in gallery, kind
    images = _parse(site / "gallery.html").links
    assert len({link for link in images if link.endswith(".png")}) == 5  # src, and a link
    assert {"_images/cd_all.svg", "_images/cd_everywhere.svg", "_images/bayes.svg"} <= set(images)
