# dpviz: `make lab` opens the lectures, `make test` runs every test.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8888
STAMP_LAB := $(VENV)/.installed-lab
STAMP_TEST := $(VENV)/.installed-test

.PHONY: lab test unit notebooks bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_LAB): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[lab]'
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,lab]'
	touch $@ $(STAMP_LAB)

lab: $(STAMP_LAB)
	@echo "Opening JupyterLab on notebooks/ at http://localhost:$(PORT)/lab (the URL with its token follows)"
	$(BIN)/jupyter lab --notebook-dir=notebooks --port=$(PORT) --ip=127.0.0.1 --no-browser

test: $(STAMP_TEST)
	$(BIN)/python -m pytest tests
	$(BIN)/python -m pytest --nbval notebooks -p no:cacheprovider --nbval-sanitize-with notebooks/sanitize.cfg --nbval-current-env

unit: $(STAMP_TEST)
	$(BIN)/python -m pytest tests

notebooks: $(STAMP_TEST)
	$(BIN)/python -m pytest --nbval notebooks -p no:cacheprovider --nbval-sanitize-with notebooks/sanitize.cfg --nbval-current-env

bench: $(STAMP_TEST)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
