"""Files shipped inside the package: the dataset catalog, the paper configs and the papers'
reference values.

They live under ``obliq_cli/`` (``data/catalog.yaml``, ``configs/*.yaml``,
``configs/references/``) so that a wheel installed anywhere carries them; they are found
with ``importlib.resources`` rather than by walking up from a source file, which only
works inside a checkout.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from .errors import ConfigError

CONFIG_SUFFIXES = (".yaml", ".yml")


def shipped_path(*parts: str) -> Path:
    """A file or folder of the installed package as a filesystem path.

    Configs name their reference files by relative paths, so the shipped files must be
    real files; a wheel is always unpacked, and an import from a zip is refused clearly."""
    root = files("obliq_cli")
    if not isinstance(root, Path):  # pragma: no cover - zipimport
        raise ConfigError("obliq's shipped files need an unpacked install (not a zip)")
    return root.joinpath(*parts)


def catalog_file() -> Path:
    return shipped_path("data", "catalog.yaml")


def configs_dir() -> Path:
    return shipped_path("configs")


def shipped_configs() -> dict[str, Path]:
    """The paper configs by name (the file name without .yaml), sorted."""
    return {p.stem: p for p in sorted(configs_dir().glob("*.yaml"))}


def resolve_config(text: str | Path) -> Path:
    """``text`` as a config file: an existing file first, then a shipped config by name
    (``hhcart_uci`` or ``hhcart_uci.yaml``); otherwise a ConfigError naming both."""
    path = Path(text)
    if path.is_file():
        return path
    shipped = shipped_configs()
    stem = path.name[: -len(path.suffix)] if path.suffix in CONFIG_SUFFIXES else path.name
    if path.parent == Path(".") and stem in shipped:
        return shipped[stem]
    if path.exists():  # a folder or a device was "no such file", which misled
        raise ConfigError(f"{text}: is {'a folder' if path.is_dir() else 'not a regular file'}"
                          f", not a config file")
    if path.parent != Path("."):
        raise ConfigError(f"{text}: no such file")
    raise ConfigError(f"{text}: no such file, and no shipped config of that name "
                      f"(obliq configs lists them: {', '.join(shipped)})")


def config_summary(path: Path) -> str:
    """The first comment line of a shipped config (what paper and table it reproduces)."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return line.lstrip("# ").strip()
        if line.strip():
            break
    return ""


def copy_config(name: str, folder: Path, force: bool = False) -> list[Path]:
    """Copy the shipped config ``name`` into ``folder`` for editing, with the reference
    file it names (at the same relative path, so the copy runs as is). Nothing is written
    when a target exists and ``force`` is not set. Returns the files written."""
    import yaml

    from . import safe_io

    shipped = shipped_configs()
    if name.removesuffix(".yaml") not in shipped:
        raise ConfigError(f"{name}: no shipped config of that name (known: {', '.join(shipped)})")
    source = shipped[name.removesuffix(".yaml")]
    pairs = [(source, folder / source.name)]
    reference = (yaml.safe_load(source.read_text(encoding="utf-8")) or {}).get("reference")
    if isinstance(reference, dict):
        reference = reference.get("file")
    if isinstance(reference, str) and not Path(reference).is_absolute():
        pairs.append((source.parent / reference, folder / reference))
    existing = [str(target) for _, target in pairs if target.exists() or target.is_symlink()]
    if existing and not force:
        raise ConfigError(f"{existing[0]}: already exists (--force overwrites it)")
    for _, target in pairs:  # never through a link (safe_io): all refused or all written
        safe_io.check_file(target, folder)
    for src, target in pairs:
        safe_io.write_bytes(target, src.read_bytes(), folder)
    return [target for _, target in pairs]
