# Two commands on a fresh machine: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: setup demo test lint docs test-browser browser-deps bench learned-model dashboard report clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "ctxlab needs Python >= 3.11"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	rm -f $(VENV)/.installed-* && touch $@

demo: setup
	$(BIN)/ctxlab demo

# Every test, the real-browser ones included (they drive Debian's chromium, installed here);
# loadfile keeps each browser module, and its one Streamlit server, on one worker.
# pytest exits 5 when it collects nothing: here that means the suite is broken, so say so.
test: setup browser-deps
	@$(BIN)/python -m pytest -n 2 --dist loadfile; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests" >&2; fi; exit $$rc

# Pages of docs/ generated from the code (CLI reference, strategy parameter tables).
GENERATED_DOCS := docs/cli.md docs/strategies.md docs/tuning.md

# The gate CI runs before the tests: ruff (pyflakes, isort, pyupgrade and bugbear rules), mypy on
# the package (zero findings), and generated docs that still match the code.
lint: setup
	$(BIN)/ruff check ctxlab dashboard tests notebooks
	$(BIN)/mypy
	$(BIN)/cog --check --diff --check-fail-msg='run make docs' $(GENERATED_DOCS)

docs: setup
	$(BIN)/cog -r $(GENERATED_DOCS)

bench: setup
	$(BIN)/ctxlab bench

# The need model shipped with ctxlab (the `learned` policy's default; docs/learned.md): fitted on the
# bundled agent sessions and the shared real logs, every session (no split), stored in a scratch store.
learned-model: setup
	$(BIN)/ctxlab learn sample:agent_sessions ../shared/reallogs --split none \
	  --out ctxlab/strategies/models/learned.json --db $${TMPDIR:-/tmp}/ctxlab-learned-model.duckdb

DB      ?= ctxlab.duckdb
SUDO    := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

# Debian Chromium and CJK fonts for the browser test: Playwright drives the system browser, so
# nothing is downloaded by Playwright itself.
browser-deps:
	@if [ ! -x /usr/bin/chromium ] || [ ! -d /usr/share/fonts/opentype/noto ]; then \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y chromium fonts-noto-cjk; fi

# Only the browser tests. Screenshots land in screenshots/ (CTXLAB_SCREENSHOTS overrides).
test-browser: setup browser-deps
	$(BIN)/python -m pytest -m browser

dashboard: setup
	$(BIN)/ctxlab dashboard --db $(DB)

report: setup
	$(BIN)/ctxlab report --db $(DB) --out reports

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
