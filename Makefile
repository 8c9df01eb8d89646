# ffmpeg-dnn-fault-harness. `make` sets up, builds the trees and runs the PR #24760
# reproduction; `make test` runs the tests. Caches live outside the clone
# (FFDNN_CACHE, default ~/.cache/ffmpeg-dnn-fault-harness).

PYTHON ?= python3
comma := ,
VENV   ?= .venv
PY      = $(VENV)/bin/python
JOBS   ?= 2
# the DNN backends of the trees: all (ONNX Runtime, OpenVINO, TensorFlow, LibTorch),
# or default (ONNX Runtime alone, the PR's Linux run)
BACKENDS ?= all
HARNESS = FFDNN_BACKENDS=$(BACKENDS) $(PY) -m harness
# the sanitizer variants of base and before: ASan runs ONNX Runtime, TSan TensorFlow
# (each its own backend set), so an ONNX-only run builds only the ASan one
SANITIZERS ?= $(if $(filter default onnx,$(BACKENDS)),asan,asan tsan)

# the backends of the registry (harness/obtain/backends/: a module each), and the default set
ALL_BACKENDS := $(shell $(PYTHON) -m harness.obtain.backends names all)
DEFAULT_BACKENDS := $(shell $(PYTHON) -m harness.obtain.backends names default)

# another FFmpeg release for `make release` (one recorded in harness/obtain/releases.py)
RELEASE ?= 8.1.2
# the releases `make releases` runs: every one pinned in harness/obtain/releases.py
# (read when the recipe runs, once the virtualenv is there), or those named
RELEASES ?= $(shell $(PY) -c 'from harness.obtain import releases; print(*releases.versions())')

# the files `make mutate-ffmpeg` mutates on after + the follow-ups (repository paths of
# FFmpeg's), or all: every file of the DNN code (many hours on 2 cores)
MUTATE_FILES ?= libavfilter/dnn/dnn_backend_onnx.c
# a random N of those mutants (--sample: the score of them all as a 95% interval), or
# empty for every one
MUTATE_SAMPLE ?=

.PHONY: all help venv deps build sanitizers run test check mutants unchanged claims sweep bench release releases clean clean-cache coverage-ffmpeg mutate-ffmpeg

all: run ## set up, build base/before/after, run the reproduction, print the table

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 12

# the project (editable) with its test tools, at the versions ci/constraints.txt pins
$(VENV)/.installed-$(BACKENDS): pyproject.toml ci/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -c ci/constraints.txt -e '.[test]'
	touch $@

$(VENV)/.installed-mutants: $(VENV)/.installed-$(BACKENDS)
	$(PY) -m pip install -q -c ci/constraints.txt -e '.[test,mutants]'
	touch $@

venv: $(VENV)/.installed-$(BACKENDS) ## create the virtualenv with the Python dependencies

deps: ## check (and as root install) the C build tools
	@BACKENDS=$(BACKENDS) PY=$(PY) sh builds/deps.sh

build: venv deps ## build (or find cached) base, before and after with $(BACKENDS) backends
	$(HARNESS) build --backend $(BACKENDS)

# the variants build side by side: one's configure and links use the core the other leaves idle
sanitizers: venv deps ## build (or find cached) the ASan and TSan variants of base and before (ASan only with BACKENDS=default)
	@pids=; for s in $(SANITIZERS); do echo "$(HARNESS) build --sanitizer $$s"; \
		$(HARNESS) build --sanitizer $$s & pids="$$pids $$!"; done; \
		rc=0; for p in $$pids; do wait $$p || rc=$$?; done; exit $$rc

run: build ## run the PR #24760 table, before and after, on every backend built
	$(HARNESS) table --backend $(BACKENDS) --jobs $(JOBS)

# deps.sh's `test`: as root with apt, also chromium (the HTML page's test renders with it)
test: build sanitizers ## run the test suite (pytest, -n $(JOBS)); as root, installs chromium for the HTML page's test
	@BACKENDS=$(BACKENDS) PY=$(PY) sh builds/deps.sh test
	FFDNN_BACKENDS=$(BACKENDS) TF_CPP_MIN_LOG_LEVEL=1 $(PY) -m pytest -n $(JOBS) -q

# the tier is its marker's (-m check: pyproject.toml, tests/conftest.py), never a list of files;
# it builds nothing: a row whose tree is not built skips, naming `make build`
check: venv ## the fast tier between edits (pytest -m check, -n $(JOBS)): the unit tests, the judge's recorded cases, the PR's table rows on the default backend; under a minute warm
	FFDNN_BACKENDS=$(BACKENDS) TF_CPP_MIN_LOG_LEVEL=1 $(PY) -m pytest -n $(JOBS) -q -m check

# no build needed: the tests it runs feed the code results recorded from real runs
mutants: venv $(VENV)/.installed-mutants ## mutation-test the code that decides a verdict (mutmut over the judge, sweep classes, diff verdict, callers, errnos, idle judgement; the fast tests on recorded runs): killed/total per module, every survivor explained in tests/mutants-equivalent.txt (about 3 min)
	$(PY) tests/mutants.py --jobs $(JOBS)

coverage-ffmpeg: build ## error-branch coverage of FFmpeg's DNN code under the default sweep of after + the follow-ups (its coverage variant built once): results/coverage.md, .json, .html
	mkdir -p results
	$(HARNESS) coverage --case followups --jobs $(JOBS) --markdown results/coverage.md \
		--json results/coverage.json --html results/coverage.html

mutate-ffmpeg: coverage-ffmpeg ## the gate's own mutation score over FFmpeg's error handling: each mutant of MUTATE_FILES (default the ONNX Runtime backend; all: every DNN file; MUTATE_SAMPLE=N: a random N of them) on after + the follow-ups, diffed (those on lines no fault ran, by the coverage, blind unbuilt): results/mutate.md, .json (hours)
	$(HARNESS) mutate --case followups --lines results/coverage.json \
		$(if $(filter all,$(MUTATE_FILES)),--all,$(addprefix --file ,$(MUTATE_FILES))) \
		$(if $(MUTATE_SAMPLE),--sample $(MUTATE_SAMPLE)) \
		--jobs $(JOBS) --markdown results/mutate.md --json results/mutate.json

unchanged: build ## ffmpeg CLI output before against after: identity MD5, a whole clip, trained MTCNN over photographs (fetched, pinned; needs OpenVINO)
	$(HARNESS) unchanged --build before,after --backend $(BACKENDS)

# the backends' own API families (injectors/*.fi with a `backend`): name:backend each
BACKEND_FAMILIES := $(shell $(PYTHON) -c 'from harness.compile.families import FAMILIES as F; print(*(f"{n}:{f.backend}" for n, f in F.items() if f.backend))')

sweep: build ## fail every site in turn: pthread_create (every backend; TensorFlow's and LibTorch's start threads), malloc (the default set's), wrap:ff_proc_from_dnn_to_frame and ff_proc_from_frame_to_dnn, and each built backend's own API (its family, every filter)
	mkdir -p results
	$(HARNESS) sweep --build before,after --backend-name $(ALL_BACKENDS) \
		--filter dnn_processing,dnn_detect --jobs $(JOBS) --json results/sweep-pthread_create.json
	$(HARNESS) sweep --build before,after --backend-name $(DEFAULT_BACKENDS) --fault malloc \
		--jobs $(JOBS) --json results/sweep-malloc.json
	$(HARNESS) sweep --build base,before,after --backend-name $(ALL_BACKENDS) \
		--fault wrap:ff_proc_from_dnn_to_frame --jobs $(JOBS) --json results/sweep-wrap.json
	$(HARNESS) sweep --build base,before,after --backend-name $(ALL_BACKENDS) \
		--fault wrap:ff_proc_from_frame_to_dnn --jobs $(JOBS) --json results/sweep-wrap-pre.json
	@for fb in $(BACKEND_FAMILIES); do f=$${fb%%:*}; b=$${fb#*:}; \
		case " $(subst $(comma), ,$(if $(filter all,$(BACKENDS)),$(ALL_BACKENDS),$(if $(filter default,$(BACKENDS)),$(DEFAULT_BACKENDS),$(BACKENDS)))) " in \
		*" $$b "*) echo "$(HARNESS) sweep --build before,after --backend-name $$b --fault $$f"; \
			$(HARNESS) sweep --build before,after --backend-name $$b \
			--filter dnn_processing,dnn_detect,dnn_classify --jobs $(JOBS) \
			--json results/sweep-$$f.json || exit 1;; esac; done

bench: build ## measure the harness's costs against their targets (results/bench.json; QUICK=1 skips the cold figures P1, P6, P7, scratch caches, about 15 min, and P9, the whole diff whole and in 4 shards)
	FFDNN_BACKENDS=$(BACKENDS) $(PY) bench/bench.py $(if $(QUICK),--quick)

claims: build sanitizers ## #24702's claims (commits 1-8), base against before: results/claims.json
	mkdir -p results
	$(HARNESS) claims --backend $(BACKENDS) --json results/claims.json

release: venv deps ## another FFmpeg release (RELEASE=8.1.2) with the series' patches that apply (git am -3): the PR's tables, then its opt-in tests (-m other_release -k RELEASE)
	$(HARNESS) table --release $(RELEASE) --backend $(BACKENDS) --jobs $(JOBS)
	TF_CPP_MIN_LOG_LEVEL=1 $(PY) -m pytest -n 0 -q -m other_release -k "$(RELEASE)"

# one release after the other, each building its own trees (-n 0: the tests share them);
# every release runs even when one fails, and the target fails if any did
releases: venv deps ## the opt-in tests (-m other_release) of every pinned release (RELEASES="7.1.5" for one): the PR's core claim from --release and from a clone's refs; JUnit in results/
	@mkdir -p results; rc=0; for r in $(RELEASES); do \
		echo "== FFmpeg $$r"; \
		TF_CPP_MIN_LOG_LEVEL=1 $(PY) -m pytest -n 0 -q -m other_release -k "$$r" \
			--junitxml=results/junit-release-$$r.xml || rc=1; \
	done; exit $$rc

clean-cache: venv ## remove the cache entries this checkout no longer names (DRY=1 lists them; python -m harness cache list)
	$(PY) -m harness cache gc $(if $(DRY),--dry-run)

clean: ## remove the virtualenv (the build cache outside the clone stays)
	rm -rf $(VENV) .pytest_cache mutants
