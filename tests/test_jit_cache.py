"""obliq_cli.jit_cache: the compiled kernels' cache folder follows the kernels' sources,
so a kernel never runs a stale copy of a kernel it calls from another module, and an
edit outside the kernels recompiles nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from obliq_cli import jit_cache


def _package(tmp_path: Path, line_search: str) -> Path:
    pkg = tmp_path / "pkg"
    (pkg / "tree").mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "tree" / "line_search.py").write_text(line_search)
    (pkg / "notes.txt").write_text("not a source")
    return pkg


def test_digest_changes_with_any_source_file_and_only_then(tmp_path):
    pkg = _package(tmp_path, "RADIX_MIN_ROWS = 600\n")
    first = jit_cache.sources_digest(pkg)
    assert jit_cache.sources_digest(pkg) == first
    (pkg / "notes.txt").write_text("edited, but not a source")
    assert jit_cache.sources_digest(pkg) == first
    (pkg / "tree" / "line_search.py").write_text("RADIX_MIN_ROWS = 4096\n")
    assert jit_cache.sources_digest(pkg) != first


def test_import_sets_a_digest_folder_and_respects_the_users_choice(tmp_path):
    code = "import os, obliq_cli; print(os.environ['NUMBA_CACHE_DIR'])"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    digest = jit_cache.sources_digest(Path(jit_cache.__file__).resolve().parent / "kernels")
    assert Path(out) == tmp_path / "cache" / "obliq" / "numba" / digest
    assert Path(out).is_dir()
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == str(tmp_path / "mine")


def test_stale_folders_of_other_digests_are_removed(tmp_path):
    current = tmp_path / "current"
    old, recent = tmp_path / "old", tmp_path / "recent"
    for folder in (current, old, recent):
        folder.mkdir()
    week_ago = os.path.getmtime(current) - (jit_cache.STALE_DAYS + 1) * 86400
    os.utime(old, (week_ago, week_ago))
    jit_cache._remove_stale(current)
    assert current.is_dir() and recent.is_dir() and not old.exists()


def test_every_compiled_function_is_in_the_kernels_the_digest_reads():
    # the digest reads obliq_cli/kernels only: a numba function anywhere else would run
    # stale after an edit of a kernel it calls (numba.core.event, timing's listener of
    # compilations, compiles nothing)
    import ast

    package = Path(jit_cache.__file__).resolve().parent
    assert jit_cache.kernels_dir() == package / "kernels"
    outside = []
    for path in sorted(package.rglob("*.py")):
        if jit_cache.kernels_dir() in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            outside += [f"{path.relative_to(package)}: {n}" for n in names
                        if n.partition(".")[0] == "numba" and n != "numba.core.event"
                        and not (n == "numba.core" and [a.name for a in node.names] == ["event"])]
    assert outside == []
