# The two commands the README promises: `make kit` and `make test`; `make check` is the quick tier.
PYTHON ?= python3
# The fast tests spend much of their time waiting on the commands they run: more workers than cores keep both busy.
TEST_WORKERS ?= 3
VENV := .venv
# The emulated Pico's harness and its locked npm packages (rp2040js), on the Node and npm the machine has.
EMULATOR := firmware/shutbox/firmware/emulator
NODE_PACKAGES := $(EMULATOR)/node_modules/.package-lock.json
BIN := $(VENV)/bin
# Every install is held to the versions CI tested (regenerate with `make constraints`).
PIP_INSTALL := $(BIN)/python -m pip install --quiet -c constraints.txt

.PHONY: kit test check fast-tests bench lint clean typecheck typecheck-code firmware-typecheck constraints

kit: $(VENV)/.installed
	$(BIN)/shutbox kit --out out/

# Everything: every test, the slow ones (CAD builds, browsers, long simulations) too. .ci/run runs this. Two
# workers on two cores (the CAD tests on one of them, --dist loadgroup): the slow tests are mostly CPU.
SUITE_WORKERS ?= 2
test: $(VENV)/.installed-dev $(NODE_PACKAGES)
	$(BIN)/python -m pytest -n $(SUITE_WORKERS) --dist loadgroup

# Lint, type-check the shipped code and the fast tests (not marked slow): under a minute on two idle cores. The
# three run side by side, each one's output printed whole when it ends. pyright is one process and the longest
# single job, so the tests (spread over the cores by pytest-xdist) run niced: they take what pyright leaves.
# The tests' and benchmarks' own types are checked by `make typecheck` and `make test`.
check: $(VENV)/.installed-dev
	$(MAKE) --no-print-directory -j3 --output-sync=target lint typecheck-code fast-tests

fast-tests: $(VENV)/.installed-dev $(NODE_PACKAGES)
	nice -n 10 $(BIN)/python -m pytest -q -m "not slow" -n $(TEST_WORKERS) --dist loadgroup

bench: $(VENV)/.installed-dev
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .

# Type-check all host code (pyrightconfig.json): the tree is laid out as the package installs.
typecheck: $(VENV)/.installed-dev
	$(BIN)/pyright

# The same, over the shipped code only (pyrightconfig.json's folders but tests/ and bench/): `make check`'s share.
typecheck-code: $(VENV)/.installed-dev
	$(BIN)/pyright shutbox cad companion print dice firmware/shutbox/firmware/host

# Type-check the MicroPython firmware against the Pico stubs, kept apart from the host's packages.
firmware-typecheck: $(VENV)/.installed-dev
	$(BIN)/python -m pip install --quiet --no-user --upgrade --target .cache/firmware-typings \
		-r firmware/stubs-requirements.txt
	$(BIN)/pyright -p firmware/pyrightconfig.json

$(NODE_PACKAGES): $(EMULATOR)/package-lock.json
	npm ci --prefix $(EMULATOR) --no-audit --no-fund --loglevel=error

# The whole kit: the scorekeeper and the CAD generator (`pip install .` alone leaves the CAD out).
$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(PIP_INSTALL) -e '.[cad]'
	touch $@

$(VENV)/.installed-dev: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(PIP_INSTALL) -e '.[cad,dev]'
	touch $@ $(VENV)/.installed

# Pin what the current venv holds (after `make test` passed in it) as the versions CI tests.
constraints: $(VENV)/.installed-dev
	{ echo "# The versions CI tested: \`make kit\` and \`make test\` install with \`pip install -c constraints.txt\`."; \
	  echo "# Regenerate from a tested venv with \`make constraints\`."; \
	  $(BIN)/python -m pip freeze --exclude-editable; } > constraints.txt

clean:
	rm -rf out $(VENV)
