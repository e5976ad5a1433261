"""Put a generated text into README.md between two marker lines.

    python docs/update_reproductions.py README.md SUMMARY.md [NAME]

The markers are ``<!-- NAME: begin -->`` and ``<!-- NAME: end -->``, NAME "obliq agree" by
default. ``make reproductions`` runs it with the output of ``obliq agree --summary RESULTS``
(NAME "obliq agree") and of ``obliq claims RESULTS`` (NAME "obliq claims"). The
marker lines stay; everything between them is replaced by SUMMARY's text, everything
outside them is kept byte for byte. A README without exactly one begin and one end marker
(begin first), or an empty SUMMARY, is refused with one line on standard error and exit
code 2, and the README is left as it was. Standard library only: it runs before (and
without) the package.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

AGREE = "obliq agree"


def markers(name: str = AGREE) -> tuple[str, str]:
    """The begin and end lines of the section ``name``."""
    return f"<!-- {name}: begin -->", f"<!-- {name}: end -->"


BEGIN, END = markers(AGREE)


class MarkerError(ValueError):
    """The README's markers or the generated text do not allow a splice."""


def splice(readme: str, generated: str, name: str = AGREE) -> str:
    """``readme`` with the lines between the begin and end lines of ``name`` replaced by
    ``generated`` (set off by blank lines, so that a markdown table in it is one block)."""
    first, last = markers(name)
    lines = readme.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.strip() == first]
    ends = [i for i, line in enumerate(lines) if line.strip() == last]
    if len(begins) != 1 or len(ends) != 1:
        raise MarkerError(f"needs exactly one line {first} and one line {last} (found "
                          f"{len(begins)} and {len(ends)})")
    begin, end = begins[0], ends[0]
    if end < begin:
        raise MarkerError(f"the line {last} comes before {first}")
    body = generated.strip("\n")
    if not body.strip():
        raise MarkerError("the text to put between the markers is empty")
    newline = "\r\n" if lines[begin].endswith("\r\n") else "\n"
    middle = newline + newline.join(body.splitlines()) + newline + newline
    return "".join(lines[:begin + 1]) + middle + "".join(lines[end:])


def update(readme_path, generated_path, name: str = AGREE) -> None:
    """Splice the text of ``generated_path`` into ``readme_path`` between the markers of
    ``name`` (written through a temporary file and a rename: an interrupted update leaves
    the old README)."""
    readme_path = Path(readme_path)
    readme = readme_path.read_text(encoding="utf-8")
    try:
        text = splice(readme, Path(generated_path).read_text(encoding="utf-8"), name)
    except MarkerError as exc:
        raise MarkerError(f"{readme_path}: {exc}") from None
    temporary = readme_path.with_name(readme_path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8", newline="")
    os.replace(temporary, readme_path)


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print("usage: python docs/update_reproductions.py README.md SUMMARY.md [NAME]",
              file=sys.stderr)
        return 2
    try:
        update(*argv)
    except (MarkerError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
