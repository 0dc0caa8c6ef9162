# dpviz: `make lab` opens the lectures, `make test` runs every test.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8888
STAMP_LAB := $(VENV)/.installed-lab
STAMP_TEST := $(VENV)/.installed-test

.PHONY: lab app test test-oldest lint typecheck doctest fuzz mutation unit notebooks browser browser-deps docs-deps bench bench-browser bench-slow bench-slow-lab bench-slides docs slides-deps \
	clean student instructor slides course exports classroom assignments

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_LAB): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[lab]'
	touch $@

# nbgrader (make assignments) comes with a JupyterLab extension and server extensions, and brings the `notebook`
# package, whose Lab extension is built for JupyterLab 4.6 and breaks every Voila 0.5 page (Voila bundles Lab 4.2:
# "The getter for the shared module is not a function", 38 browser tests failed). They are switched off in this
# environment, so that the Lab and the app the browser tests drive are those students get from `make lab`/`make app`.
NBGRADER_SERVER := formgrader validate_assignment assignment_list course_list
$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,lab,docs,grading]'
	for x in @jupyter/nbgrader @jupyter-notebook/lab-extension; do \
	  $(BIN)/jupyter labextension disable --level=sys_prefix $$x >/dev/null 2>&1; done
	for e in $(NBGRADER_SERVER); do \
	  $(BIN)/jupyter server extension disable --sys-prefix nbgrader.server_extensions.$$e >/dev/null 2>&1; done
	touch $@ $(STAMP_LAB)

# Jupyter refuses to run as root without --allow-root (containers, fresh VMs); pass it only then.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

# binder/overrides.json: no "official Jupyter news?" toast over the explorers' controls, no update check (offline).
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
$(LAB_SETTINGS): binder/overrides.json | $(STAMP_LAB)
	mkdir -p $(dir $@) && cp $< $@

lab: $(STAMP_LAB) $(LAB_SETTINGS)
	@echo "Opening JupyterLab on notebooks/ at http://localhost:$(PORT)/lab (the URL with its token follows)"
	$(BIN)/jupyter lab --notebook-dir=notebooks --port=$(PORT) --ip=127.0.0.1 --no-browser $(ALLOW_ROOT) \
	  --LabApp.news_url=None --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate

# From app/: voila reads app/voila.json (preheated kernels, the page template) there; the template is in app/share;
# `python -m voila` puts app/ on sys.path for its kernel manager (app/voila_pool.py: pool kernels one at a time).
# The root is given as an absolute path: jupyter_core 5.9 refuses a relative one (every page answered HTTP 500).
app: $(STAMP_LAB)
	@echo "Serving the dpviz course app (all explorers) at http://localhost:$(PORT)/voila/render/index.ipynb"
	cd app && JUPYTER_PATH=$$PWD/share$${JUPYTER_PATH:+:$$JUPYTER_PATH} ../$(BIN)/python -m voila "$$PWD" --port=$(PORT) \
	  --Voila.ip=127.0.0.1 --no-browser

# Debian's chromium for the real-browser tests (tests/browser); Playwright drives it, it never downloads a browser.
# axe-core (npm registry) is the accessibility checker tests/browser/test_accessibility.py injects into the pages.
AXE_VERSION := 4.14.1
AXE := build/browser-deps/node_modules/axe-core/axe.min.js
browser-deps:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "chromium is not installed and apt-get is not usable here: the browser tests will be skipped"; \
	  fi; \
	fi
	@if [ ! -f $(AXE) ]; then \
	  if command -v npm >/dev/null 2>&1; then \
	    npm install --silent --no-audit --no-fund --prefix build/browser-deps axe-core@$(AXE_VERSION); \
	  else echo "npm not found: the accessibility check (tests/browser/test_accessibility.py) will be skipped"; fi; \
	fi

# MathJax 3 (npm registry) for the documentation site, so its pages render maths offline (docs/conf.py): of its
# 24 MB, what a page loads (tex-chtml.js, its fonts, the TeX extensions and the accessibility code) goes to
# build/docs-deps/mathjax, which the site copies into its _static folder.
MATHJAX_VERSION := 3.2.2
MATHJAX_PARTS := tex-chtml.js output/chtml/fonts input/tex/extensions a11y sre
docs-deps:
	@if [ ! -f build/docs-deps/mathjax/tex-chtml.js ]; then \
	  if command -v npm >/dev/null 2>&1; then \
	    npm install --silent --no-audit --no-fund --prefix build/docs-deps mathjax@$(MATHJAX_VERSION) && \
	    mkdir -p build/docs-deps/mathjax && (cd build/docs-deps/node_modules/mathjax/es5 && \
	      cp -r --parents $(MATHJAX_PARTS) ../../../mathjax/); \
	  else echo "npm not found: the documentation pages will load MathJax from a CDN"; fi; \
	fi

NBVAL := --nbval notebooks -p no:cacheprovider --nbval-sanitize-with notebooks/sanitize.cfg --nbval-current-env

# Everything CI checks: lint, types, unit + docs-build tests, the browser tests, the docstring examples, the lectures.
# The unit tests and the lectures run on two processes (pytest-xdist; one file or notebook per process at a time);
# the browser tests, whose budgets are about a student's machine, run alone.
# Each process keeps BLAS to one thread: OpenBLAS's idle threads spin, and two processes of two threads each on two
# cores ran the lectures in 3:36 against 3:28 in one process; with one thread each, 1:46 (same outputs: nbval).
XDIST := -n 2 --dist loadfile
ONE_THREAD := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
test: $(STAMP_TEST) browser-deps docs-deps slides-deps lint typecheck
	$(ONE_THREAD) $(BIN)/python -m pytest tests --ignore=tests/browser $(XDIST)
	$(BIN)/python -m pytest tests/browser
	$(BIN)/python -m pytest --doctest-modules dpviz -p no:cacheprovider
	$(ONE_THREAD) $(BIN)/python -m pytest $(NBVAL) $(XDIST)

lint: $(STAMP_TEST)
	$(BIN)/ruff check dpviz tests benchmarks tools

typecheck: $(STAMP_TEST)
	$(BIN)/mypy

doctest: $(STAMP_TEST)
	$(BIN)/python -m pytest --doctest-modules dpviz -p no:cacheprovider

# The bad-input fuzzer over the whole public API, with its full report (tests/badinput.py), then the widget
# fuzzer: every explorer control to its bounds and bad values, and 1,600 random moves per explorer.
fuzz: $(STAMP_TEST)
	$(BIN)/python -m tests.badinput
	$(BIN)/python -m tests.widget_fuzz 1600

# Mutants of the privacy-critical lines (benchmarks/mutants.py); every one must be killed by the unit tests.
mutation: $(STAMP_TEST)
	$(BIN)/python -m benchmarks.mutation

# The lowest versions pyproject.toml declares (uv's lowest-direct resolution) in .venv-oldest, then the unit tests
# there: a declared floor that does not work fails here. Third-party deprecation warnings are not errors in this
# run (an old matplotlib warns against today's pyparsing), every other warning still is.
OLDEST := .venv-oldest
test-oldest:
	$(PYTHON) -m venv $(OLDEST)
	$(OLDEST)/bin/python -m pip install --quiet uv
	$(OLDEST)/bin/uv pip install --quiet --python $(OLDEST)/bin/python --resolution lowest-direct -e '.[test,lab]'
	$(OLDEST)/bin/python -m pytest tests --ignore=tests/browser --ignore=tests/test_binder_env.py -q \
	  -p no:cacheprovider -W "ignore::DeprecationWarning"

unit: $(STAMP_TEST)
	$(BIN)/python -m pytest tests

notebooks: $(STAMP_TEST)
	$(BIN)/python -m pytest $(NBVAL)

browser: $(STAMP_TEST) browser-deps slides-deps
	$(BIN)/python -m pytest tests/browser -v

bench: $(STAMP_TEST)
	$(BIN)/python -m benchmarks

# Where the student is (not part of make test): the app in Voila and lectures 01, 03 in JupyterLab, driven in
# headless chromium; first figure (cold, warm) and input -> figure latency against budgets.
bench-browser: $(STAMP_TEST) browser-deps
	$(BIN)/python -m benchmarks.browser_bench

# A slow laptop and a busy server: every app page with Chromium's CPU throttled x6 and 8 busy processes beside it;
# fresh visits, moves made while the page loads and after; a figure that ends apart from its controls is frozen.
bench-slow: $(STAMP_TEST) browser-deps
	$(BIN)/python -m benchmarks.slow_machine --rate 6 --load 8

# The same for lectures 00, 03 and 06 in JupyterLab (benchmarks/slow_lab.py): run all, move every explorer.
bench-slow-lab: $(STAMP_TEST) browser-deps
	$(BIN)/python -m benchmarks.slow_lab --rate 6 --load 8

# Every slide of `make slides` in Chromium at 1280x720: clipped content, scrolling, text under 24 px, notes.
bench-slides: slides browser-deps
	$(BIN)/python -m benchmarks.slides_fit

# The course hand-outs (tools/course.py): student notebooks (solutions stripped, outputs cleared), instructor
# notebooks (as committed), and one reveal.js slide deck per lecture. reveal.js comes from the npm registry into
# build/slides/reveal.js so the decks work offline; without npm they load it from a CDN (a warning says so).
SLIDE_LIBS := reveal.js@4.0.2 mathjax@2.7.7 requirejs@2.1.10 jquery@2.2.4

student: $(STAMP_LAB)
	$(BIN)/python -m tools.course student

# An nbgrader course in build/assignments (tools/assignments.py): one assignment per lecture, released.
assignments: $(STAMP_TEST)
	$(BIN)/python -m tools.assignments build/assignments

instructor: $(STAMP_LAB)
	$(BIN)/python -m tools.course instructor

slides-deps:
	@if [ ! -f build/slides/lib/reveal.js/dist/reveal.js ]; then \
	  if command -v npm >/dev/null 2>&1; then \
	    mkdir -p build/slides/lib && npm install --silent --no-audit --no-fund --prefix build/slides/.npm \
	      $(SLIDE_LIBS) && cp -r build/slides/.npm/node_modules/* build/slides/lib/ && rm -rf build/slides/.npm; \
	  else echo "npm not found: the slide decks will load reveal.js, MathJax and require.js from CDNs"; fi; \
	fi

slides: $(STAMP_LAB) exports slides-deps
	$(BIN)/python -m tools.course slides

course: student instructor slides

STAMP_DOCS := $(VENV)/.installed-docs

$(STAMP_DOCS): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

# The documentation site in docs/_build/html: the lectures from their committed outputs (never re-run), a page per
# explorer with its static figure, the API from the docstrings, the data provenance. Warnings are errors;
# --keep-going reports them all first; -E re-reads every page, else a second run passes by not re-reading them.
docs: $(STAMP_DOCS) docs-deps
	$(BIN)/python -m sphinx -E -W --keep-going -b html docs docs/_build/html
	@echo "The site is in docs/_build/html/index.html"

# Kernel-free explorers (dpviz.export): one self-contained HTML page per explorer in build/exports/.
exports: $(STAMP_LAB)
	PYTHONPATH=$(CURDIR) $(BIN)/python -m dpviz.export.command build/exports

# A class on one server (benchmarks/classroom.py): a real JupyterHub on localhost (jupyterhub from PyPI,
# configurable-http-proxy from npm into build/classroom) and 5, 10, 20, 30 simulated students, each a front end
# speaking the kernel/widget protocols over the hub (ARGS="--driver browser --students 5": headless chromium).
classroom: $(STAMP_TEST) browser-deps
	$(BIN)/python -m pip install --quiet -e '.[classroom]'
	@if [ ! -x build/classroom/node_modules/.bin/configurable-http-proxy ]; then \
	  npm install --silent --no-audit --no-fund --prefix build/classroom configurable-http-proxy; fi
	PYTHONPATH=$(CURDIR) $(BIN)/python -m benchmarks.classroom $(ARGS)

clean:
	rm -rf $(VENV) $(OLDEST) build dist *.egg-info .pytest_cache .cache tests/browser/screenshots docs/_build docs/api \
	  docs/lectures docs/_generated
