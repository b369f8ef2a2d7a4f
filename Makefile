# Two commands on a fresh machine: `make demo` and `make test`. Both build .venv from nothing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_VENV := .venv-bench

.PHONY: demo test lint bench clean firmware

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/cardref demo --web

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy engine

# The dealer firmware (ATmega2560) and its emulator harness: Debian's gcc-avr, avr-libc and libsimavr-dev.
firmware:
	$(MAKE) -C hardware/firmware

# tests/firmware builds the firmware itself; it is skipped (with the reason) where the toolchain is missing,
# and fails in CI, which installs it.
# -n auto: one pytest worker per core (pytest-xdist). The one folder workers share, the firmware's build, is built
# under a file lock; elsewhere the tests write to pytest's tmp_path, a fresh tempfile.mkdtemp, or hypothesis's
# example cache (.hypothesis/).
test: $(STAMP) lint
	$(BIN)/python -m pytest -q -p no:cacheprovider -n auto

# The engine benchmark, twice: as plain Python (the development install) and compiled by mypyc from the
# same source (a regular install into its own virtualenv), each beside OpenSpiel in the same run.
bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/cardref bench engine
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet --upgrade pip
	CARDREF_COMPILE=1 $(BENCH_VENV)/bin/pip install --quiet '.[bench]'
	cd /tmp && $(CURDIR)/$(BENCH_VENV)/bin/cardref bench engine

clean:
	rm -rf $(VENV) $(BENCH_VENV) build *.egg-info hardware/firmware/build
