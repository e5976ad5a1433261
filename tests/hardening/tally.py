"""Run the hardening corpus and print its counts: tried / clean / recorded task failure /
handled / traceback / lost (and each case that did not give its expected outcome).

    .venv/bin/python tests/hardening/tally.py [-v]
"""

import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import CASES, OUTCOMES, run_case  # noqa: E402


def main(verbose: bool = False) -> int:
    with tempfile.TemporaryDirectory(prefix="obliq-hardening-") as tmp:
        os.environ.setdefault("OBLIQ_CACHE", str(Path(tmp) / "cache"))
        counts, unexpected = Counter(), []
        for i, case in enumerate(CASES):
            outcome, detail = run_case(case, Path(tmp) / f"case{i}")
            counts[outcome] += 1
            if outcome != case.expect:
                unexpected.append(f"{case.id}: expected {case.expect}, got {outcome}: {detail}")
            if verbose:
                print(f"{case.id:40s} {outcome:10s} {detail[:150]}")
    print(f"tried {len(CASES)}: " + ", ".join(f"{counts[o]} {o}" for o in OUTCOMES)
          + "".join(f", {n} {o}" for o, n in counts.items() if o not in OUTCOMES))
    for line in unexpected:
        print("unexpected:", line)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main("-v" in sys.argv))
