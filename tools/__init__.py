"""The maintainers' docs pipeline, kept out of the wheel (pyproject's package list names
obliq_cli only): summary.py turns results folders into the committed summary docs/results,
leaderboard.py does the same for a benchmark config, and docs.py renders every marked figure
of README.md and docs/*.md from that summary. Run from the checkout's root: ``python -m
tools.summary`` and ``python -m tools.docs`` (``make reproductions``)."""
