# Two commands: `make run` indexes WORKSPACE and reports; `make test` runs the whole suite.
VENV ?= .venv
PYTHON ?= python3
WORKSPACE ?= .
BIN = $(VENV)/bin

.PHONY: run test bench clean vscode

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/memory-lsp index $(WORKSPACE)
	$(BIN)/memory-lsp stats --workspace $(WORKSPACE) --example

test: $(BIN)/.installed
	$(BIN)/lint-imports --no-cache  # the layers of ARCHITECTURE.md (.importlinter)
	$(BIN)/python -m pytest -q -p no:cacheprovider -n auto --maxprocesses=4  # one worker a core (pytest-xdist)
	if command -v npm >/dev/null; then $(MAKE) vscode; fi  # the VS Code extension, wherever npm is

# the VS Code extension: build from the lockfile, unit tests, a .vsix (editors/vscode/README.md)
vscode:
	cd editors/vscode && npm ci && npm run compile && npm test && npm run package

bench: $(BIN)/.installed
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
