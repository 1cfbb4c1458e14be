# The two commands the README promises: `make kit` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: kit test bench lint clean typecheck firmware-typecheck

kit: $(VENV)/.installed
	$(BIN)/shutbox kit --out out/

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-dev
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .

# Type-check all host code (pyrightconfig.json) through a symlink tree laid out as the installed package.
typecheck: $(VENV)/.installed-dev
	$(BIN)/python tests/typecheck_tree.py
	$(BIN)/pyright

# Type-check the MicroPython firmware against the Pico stubs, kept apart from the host's packages.
firmware-typecheck: $(VENV)/.installed-dev
	$(BIN)/python -m pip install --quiet --no-user --upgrade --target .cache/firmware-typings \
		-r firmware/stubs-requirements.txt
	$(BIN)/pyright -p firmware/pyrightconfig.json

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

clean:
	rm -rf out $(VENV)
