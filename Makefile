# Everything a fresh machine needs: `make run` and `make test` create .venv themselves.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test

.PHONY: run test lint bench fuzz clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TSTAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@ $(STAMP)

run: $(STAMP)
	$(BIN)/tui-reader $(ARGS)

test: $(TSTAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(TSTAMP)
	$(BIN)/ruff check tui_reader tests bench
	$(BIN)/ruff format --check tui_reader tests bench
	$(BIN)/mypy

bench: $(TSTAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	$(BIN)/python -m bench $(ARGS)
	$(BIN)/python -m bench.recommend  # For you: train + rank one tag at 87k (budget 2 s)

FUZZ_SECONDS ?= 20
fuzz: $(TSTAMP)  # each target for FUZZ_SECONDS (about 15 targets), new inputs every run
	HYPOTHESIS_PROFILE=fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) $(BIN)/python -m pytest tests/fuzz -p no:cacheprovider -n0 --hypothesis-show-statistics $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache dist build
