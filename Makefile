# Two commands on a fresh machine: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: setup demo test test-browser browser-deps bench dashboard report clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "ctxlab needs Python >= 3.11"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	rm -f $(VENV)/.installed-* && touch $@

demo: setup
	$(BIN)/ctxlab demo

# pytest exits 5 when it collects nothing: here that means the suite is broken, so say so.
test: setup
	@$(BIN)/python -m pytest -n 2 -m "not browser"; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests" >&2; fi; exit $$rc

bench: setup
	$(BIN)/ctxlab bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
