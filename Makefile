# ffmpeg-dnn-fault-harness. `make` sets up, builds the trees and runs the PR #24760
# reproduction; `make test` runs the tests. Caches live outside the clone
# (FFDNN_CACHE, default ~/.cache/ffmpeg-dnn-fault-harness).

PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
JOBS   ?= 2
HARNESS = $(PY) -m harness

.PHONY: all help venv deps build run test unchanged clean

all: run ## set up, build base/before/after, run the reproduction, print the table

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 12

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e '.[test]'
	touch $@

venv: $(VENV)/.installed ## create the virtualenv with the Python dependencies

deps: ## check (and as root install) the C build tools
	@sh builds/deps.sh

build: venv deps ## build (or find cached) base, before and after with ONNX Runtime
	$(HARNESS) build

run: build ## run the PR #24760 dnn_processing table on ONNX Runtime, before and after
	$(HARNESS) run --build before,after --jobs $(JOBS)

test: build ## run the test suite (pytest, -n $(JOBS))
	$(PY) -m pytest -n $(JOBS) -q

unchanged: build ## ffmpeg CLI output before against after: identity MD5 and a whole clip
	$(HARNESS) unchanged --build before,after

clean: ## remove the virtualenv (the build cache outside the clone stays)
	rm -rf $(VENV) .pytest_cache
