# mlc: two commands on a fresh machine.
#   make demo   creates .venv, installs the pinned dependencies, runs the main job on a bundled default
#   make test   the whole suite: lint (ruff) + pytest + lit (installs first if needed)

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.mlc-installed
JOBS   ?= 2

.PHONY: install demo test lint pytest lit bench fuzz clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "mlc needs Python 3.11 (the MLIR wheels are cp311); set PYTHON=..."'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m mlc.demo

test: $(STAMP) lint
	$(BIN)/python -m pytest -q -n $(JOBS) tests
	$(BIN)/lit -q -j $(JOBS) lit_tests

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

pytest: $(STAMP)
	$(BIN)/python -m pytest -q -n $(JOBS) tests

lit: $(STAMP)
	$(BIN)/lit -sv -j $(JOBS) lit_tests

# make fuzz FUZZ_SECONDS=3600 [FUZZ_SEED=1]: the fuzz targets of tests/fuzz for that long in all
FUZZ_SECONDS ?= 600
FUZZ_SEED    ?= 0
fuzz: $(STAMP)
	cd tests && ../$(BIN)/python -m fuzz.campaign --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED)

bench: $(STAMP)
	$(BIN)/python bench/bench_models.py

clean:
	rm -rf $(VENV) lit_tests/Output .pytest_cache
