# kael playground: set up, build, test, serve.
#
#   make setup   virtualenv (.venv), web/node_modules, chromium + bubblewrap, Pyodide test wheels
#   make wheel   the kael wheel in dist/ (py3-none-any)
#   make web     the front end in web/dist/ (npm run build: Pyodide, the wheel, exercises' public data)
#   make test    every test lane; fails if any lane fails
#   make serve   setup + wheel + web, then the judge server on $(HOST):$(PORT)
#   make serve-cluster   the same in scaled mode: local Postgres, two grading workers, the API
#   make bench   the benchmarks in tests/bench (autograd, grading, page-ready), figures only
#   make mutation  the exercises' mutation scores (Cosmic Ray mutants of each reference, graded)
#
# Every target installs what it needs and is safe to run again; work is redone only when its
# inputs change (stamp files). One lane alone: make test-web | test-numpy | test-e2e | test-python | test-pyodide.
# Extra pytest arguments for the lanes: make test-numpy PYTEST_ARGS='-k matmul -x'.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := test
.DELETE_ON_ERROR:

HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=
PYTHON ?= python3

VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
VENV_STAMP := $(VENV)/.kael-setup
NODE_STAMP := web/node_modules/.kael-setup
WHEEL_STAMP := dist/.kael-wheel
WEB_STAMP := web/dist/.kael-web

# pytest and its pure-Python dependencies for the Pyodide lane (Python 3.14, emscripten).
# pytest 9.2.0 needs iniconfig, packaging, pluggy and pygments. Hypothesis releases after
# 6.155.7 ship a compiled module (hypothesis._native) and no pure-Python wheel, so Pyodide
# gets the last pure one; CPython uses the version pinned in pyproject.toml.
PYODIDE_WHEEL_DIR := .cache/pyodide-wheels
PYODIDE_PINS := \
	pytest==9.2.0 \
	iniconfig==2.3.1 \
	pluggy==1.7.0 \
	packaging==26.4 \
	pygments==2.21.0 \
	hypothesis==6.155.7 \
	sortedcontainers==2.4.0

# Lane (a) runs the whole tree on numpy; lane (b) runs these on the pure-Python backend.
PYTHON_LANE_DIRS := tests/kael tests/exercises
# Lane (c) runs these inside Pyodide under Node (the harness's in-process path is the browser's;
# tests/pyodide: what only Pyodide has, such as the JavaScript kernels).
PYODIDE_LANE_DIRS := tests/kael tests/exercises/test_inprocess.py tests/pyodide

.PHONY: setup system-packages pyodide-wheels wheel web test test-web test-numpy test-e2e test-python test-pyodide \
	fuzz serve serve-cluster bench mutation clean

# ---------------------------------------------------------------------------------- setup

setup: $(VENV_STAMP) $(NODE_STAMP) system-packages pyodide-wheels

$(VENV_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet -e '.[test,server,e2e,bench]' build
	@# PyTorch is an optional oracle (the cross-check tests and the benchmarks); kael never
	@# depends on it. This machine kind keeps the CPU wheel on disk; elsewhere the step may fail.
	$(PIP) install --quiet torch==2.13.0 || echo "torch 2.13.0 not installable here: PyTorch cross-checks will be skipped"
	touch $@

$(NODE_STAMP): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $@

# Debian packages: chromium for the end-to-end tests, bubblewrap for the judge's sandbox,
# postgresql for the scaled mode (make serve-cluster and tests/cluster start their own server),
# fonts-noto-cjk so the e2e screenshots of the Chinese page draw its text (not empty boxes).
system-packages:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing="$$missing postgresql"; \
	[ -n "$$(fc-list :lang=zh 2>/dev/null)" ] || missing="$$missing fonts-noto-cjk"; \
	if [ -n "$$missing" ]; then \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
	  echo "installing Debian packages:$$missing"; \
	  $$sudo apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing; \
	fi

# Downloads each pinned wheel once and writes wheels.txt, the exact files
# tests/pyodide/run.mjs installs (a stale wheel left in the folder is ignored).
pyodide-wheels: $(VENV_STAMP)
	@mkdir -p $(PYODIDE_WHEEL_DIR)
	@cd $(PYODIDE_WHEEL_DIR); \
	find_wheel() { ls | grep -i -E "^$$(echo "$$1" | tr '.-' '__')-$$2-[^-]+-none-any\.whl$$" | head -n 1 || true; }; \
	: > wheels.txt.new; \
	for pin in $(PYODIDE_PINS); do \
	  name="$${pin%%==*}"; version="$${pin##*==}"; \
	  wheel="$$(find_wheel "$$name" "$$version")"; \
	  if [ -z "$$wheel" ]; then \
	    $(abspath $(PY)) -m pip download --quiet --no-deps --only-binary=:all: \
	      --python-version 3.14 --implementation py --abi none --platform any -d . "$$pin"; \
	    wheel="$$(find_wheel "$$name" "$$version")"; \
	  fi; \
	  if [ -z "$$wheel" ]; then echo "no pure-Python wheel for $$pin" >&2; exit 1; fi; \
	  echo "$$wheel" >> wheels.txt.new; \
	done; \
	mv wheels.txt.new wheels.txt

# ---------------------------------------------------------------------------------- wheel

wheel: $(WHEEL_STAMP)

$(WHEEL_STAMP): $(VENV_STAMP) pyproject.toml README.md $(shell find kael -type f -not -path '*/__pycache__/*' 2>/dev/null)
	rm -f dist/kael-*.whl
	$(PY) -m build --wheel --outdir dist . > /dev/null
	ls dist/kael-*-py3-none-any.whl
	touch $@

# ---------------------------------------------------------------------------------- web

# The built front end (served by the server, needed by the end-to-end tests). web/public's
# pyodide/, wheels/ and data/ are generated by the build itself, so they are not inputs.
WEB_INPUTS := $(wildcard web/*.html) web/vite.config.ts web/tsconfig.json \
	$(shell find web/src web/scripts web/lessons -type f 2>/dev/null) $(wildcard web/public/*.*) \
	$(shell find exercises -type f -not -path '*/__pycache__/*' 2>/dev/null)

web: $(WEB_STAMP)

$(WEB_STAMP): $(NODE_STAMP) $(WHEEL_STAMP) $(WEB_INPUTS)
	cd web && npm run build --silent
	touch $@

# ---------------------------------------------------------------------------------- test

# $(call lane,NAME,DIRS,COMMAND): runs COMMAND on those of DIRS that exist, prints
# "lane NAME: <seconds> s". pytest's exit code 5 (no tests collected) passes only while DIRS
# hold no test files at all; once they do, collecting nothing is a failure.
define lane
	@dirs="$(wildcard $(2))"; \
	if [ -z "$$dirs" ]; then echo "lane $(1): skipped, none of $(2) exists"; exit 0; fi; \
	start=$$EPOCHREALTIME; rc=0; \
	$(3) || rc=$$?; \
	seconds=$$(awk "BEGIN { print $$EPOCHREALTIME - $$start }"); \
	if [ $$rc -eq 5 ] && [ -z "$$(find $$dirs -name 'test_*.py' -o -name '*_test.py' | head -n 1)" ]; then \
	  echo "lane $(1): no tests yet"; rc=0; \
	fi; \
	if [ $$rc -eq 0 ]; then status=passed; else status="FAILED (exit $$rc)"; fi; \
	line=$$(printf 'lane %s: %.1f s, %s' "$(1)" "$$seconds" "$$status"); \
	echo "$$line"; if [ -n "$${LANE_TIMES:-}" ]; then echo "$$line" >> "$$LANE_TIMES"; fi; \
	exit $$rc
endef

# Two groups at once, one per core, about as long as each other (about 19 minutes on 2 quiet
# cores): the numpy lane (the whole tree but the browser tests), then the python lane, stream
# their output; the e2e, pyodide and web lanes run one after another beside them and print theirs
# when both groups are done. Lanes that run at once get disjoint sandbox uids
# (KAEL_TEST_LANE, tests/sandbox_uids.py) and the side group keeps no pytest cache, so they share
# no state.
test: setup wheel web
	@export LANE_TIMES="$$(mktemp)"; side_log="$$(mktemp)"; side_failed="$$(mktemp)"; failed=""; \
	( for lane in e2e pyodide web; do \
	    KAEL_TEST_LANE=1 $(MAKE) --no-print-directory test-$$lane NO_SETUP=1 \
	      PYTEST_ARGS="-p no:cacheprovider $(PYTEST_ARGS)" || echo "$$lane" >> "$$side_failed"; \
	  done ) > "$$side_log" 2>&1 & side=$$!; \
	for lane in numpy python; do \
	  KAEL_TEST_LANE=0 $(MAKE) --no-print-directory test-$$lane NO_SETUP=1 || failed="$$failed $$lane"; \
	done; \
	wait $$side; \
	echo "--- the e2e, pyodide and web lanes (run beside the numpy and python lanes)"; cat "$$side_log"; \
	failed="$$failed$$(sed 's/^/ /' "$$side_failed" | tr -d '\n')"; \
	echo "---"; cat "$$LANE_TIMES"; rm -f "$$LANE_TIMES" "$$side_log" "$$side_failed"; \
	if [ -n "$$failed" ]; then echo "failed lanes:$$failed"; exit 1; fi; \
	echo "all lanes passed"

# Each pytest lane ends with its slowest tests, so that the suite's slow parts stay visible.
DURATIONS ?= --durations=10 --durations-min=1.0

# A lane run from `make test` skips the setup check that `test` has just done.
LANE_DEPS := $(if $(NO_SETUP),,setup wheel web)

# The front end's unit tests (vitest, web/src/**/*.test.ts): pure modules, in Node with jsdom.
test-web: $(if $(NO_SETUP),,$(NODE_STAMP))
	$(call lane,web,web/src,cd web && npx vitest run)

test-numpy: $(LANE_DEPS)
	$(call lane,numpy,tests,KAEL_BACKEND=numpy $(PY) -m pytest $$dirs --ignore=tests/e2e -q $(DURATIONS) $(PYTEST_ARGS))

# The browser tests (Playwright driving Debian's Chromium against the real server and sandbox).
test-e2e: $(LANE_DEPS)
	$(call lane,e2e,tests/e2e,KAEL_BACKEND=numpy $(PY) -m pytest $$dirs -q $(DURATIONS) $(PYTEST_ARGS))

test-python: $(LANE_DEPS)
	$(call lane,python,$(PYTHON_LANE_DIRS),KAEL_BACKEND=python $(PY) -m pytest $$dirs -q $(DURATIONS) $(PYTEST_ARGS))

test-pyodide: $(LANE_DEPS)
	$(call lane,pyodide,$(PYODIDE_LANE_DIRS),node tests/pyodide/run.mjs $$dirs -q $(DURATIONS) $(PYTEST_ARGS))

# ---------------------------------------------------------------------------------- run

serve: setup wheel web
	$(PY) -m server --host $(HOST) --port $(PORT)

# The scaled mode on one machine: a throw-away Postgres (unix socket, temporary data), two
# grading workers and the API server on $(HOST):$(PORT); Ctrl+C stops all of it.
serve-cluster: setup wheel web
	$(PY) -m server.cluster --host $(HOST) --port $(PORT) --workers 2

# Differential run against PyTorch (issue 12): N seeded random programs per backend, each run in
# kael and in PyTorch and compared after every statement; prints a summary by kind of difference.
# Exit 1 when a difference is neither a deliberate deviation nor a listed leniency (README).
N ?= 2000
fuzz: $(VENV_STAMP)
	@rc=0; for backend in numpy python; do \
	  KAEL_BACKEND=$$backend $(PY) tests/kael/torchdiff.py $(N) || rc=1; \
	done; exit $$rc

# Benchmarks print figures (ratios against references measured in the same run); they assert
# nothing. Autograd vs micrograd/PyTorch, the judge's grading latency, the page-ready time.
bench: setup wheel web
	$(PY) tests/bench/run.py
	$(PY) tests/bench/grading.py
	$(PY) tests/bench/page_ready.py
	node tests/bench/node_start.mjs

# Mutation score of every exercise: Cosmic Ray's operators mutate each reference solution, the
# real harness grades every mutant (minutes, not part of `make test`; tests/exercises grades a
# small sample). One line per exercise, then the total; exit 1 when a non-equivalent mutant
# survives. MUTATION_ARGS='3 5 --sample 10' narrows it.
MUTATION_ARGS ?=
mutation: $(VENV_STAMP)
	KAEL_BACKEND=numpy $(PY) exercises/mutation.py $(MUTATION_ARGS)

# Build outputs only; the virtualenv, node_modules and the wheel cache stay.
clean:
	rm -rf dist build
