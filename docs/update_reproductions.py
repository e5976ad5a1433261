"""Put a generated text into README.md between its two "obliq agree" marker lines.

    python docs/update_reproductions.py README.md SUMMARY.md

``make reproductions`` runs it with the output of ``obliq agree --summary RESULTS``. The
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

BEGIN = "<!-- obliq agree: begin -->"
END = "<!-- obliq agree: end -->"


class MarkerError(ValueError):
    """The README's markers or the generated text do not allow a splice."""


def splice(readme: str, generated: str) -> str:
    """``readme`` with the lines between the BEGIN and END lines replaced by ``generated``
    (set off by blank lines, so that a markdown table in it is one block)."""
    lines = readme.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.strip() == BEGIN]
    ends = [i for i, line in enumerate(lines) if line.strip() == END]
    if len(begins) != 1 or len(ends) != 1:
        raise MarkerError(f"needs exactly one line {BEGIN} and one line {END} (found "
                          f"{len(begins)} and {len(ends)})")
    begin, end = begins[0], ends[0]
    if end < begin:
        raise MarkerError(f"the line {END} comes before {BEGIN}")
    body = generated.strip("\n")
    if not body.strip():
        raise MarkerError("the text to put between the markers is empty")
    newline = "\r\n" if lines[begin].endswith("\r\n") else "\n"
    middle = newline + newline.join(body.splitlines()) + newline + newline
    return "".join(lines[:begin + 1]) + middle + "".join(lines[end:])


def update(readme_path, generated_path) -> None:
    """Splice the text of ``generated_path`` into ``readme_path`` (written through a
    temporary file and a rename: an interrupted update leaves the old README)."""
    readme_path = Path(readme_path)
    readme = readme_path.read_text(encoding="utf-8")
    try:
        text = splice(readme, Path(generated_path).read_text(encoding="utf-8"))
    except MarkerError as exc:
        raise MarkerError(f"{readme_path}: {exc}") from None
    temporary = readme_path.with_name(readme_path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8", newline="")
    os.replace(temporary, readme_path)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python docs/update_reproductions.py README.md SUMMARY.md", file=sys.stderr)
        return 2
    try:
        update(*argv)
    except (MarkerError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
