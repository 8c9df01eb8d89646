"""Shared fixtures: the built trees (found in the cache, or the test skips naming what
is missing), the injector library, and one worker run per scenario."""

import dataclasses
import os

import pytest

from harness.run import chains as graphs, matrix
from harness.errors import HarnessError
from harness.obtain.backends import BACKENDS as REGISTRY
from harness.run.runner import run_one
from harness.obtain.trees import Plan
from harness import caseload

# the trees and expectations of the default case, by name, as the command line gets them:
# the shared fixtures import no case (tests/engine/ imports none; tests/<case>/ its own)
CASE = caseload.load()
EXPECT, LAYOUT = CASE.EXPECT, CASE.LAYOUT


BACKENDS = os.environ.get("FFDNN_BACKENDS", "default")


def pytest_configure(config):
    """A backend's marker comes from its module in harness/obtain/backends/, a case's (its
    trees, its commits) from its MARKERS, so adding either registers its markers
    (--strict-markers); the engine's own are in pyproject.toml."""
    for b in REGISTRY.values():
        config.addinivalue_line("markers", f"{b.marker}: scenarios on the {b.label} backend")
    for name in caseload.names():
        for marker, text in getattr(caseload.load(name), "MARKERS", {}).items():
            config.addinivalue_line("markers", f"{marker}: {text}")


@pytest.hookimpl(tryfirst=True)  # before -m selects by marker
def pytest_collection_modifyitems(config, items):
    """The fast tier (`make check`, -m check) holds every unit test: they need no build
    and decide verdicts on recorded runs; the other tests in it are marked check."""
    for item in items:
        if item.get_closest_marker("unit"):
            item.add_marker(pytest.mark.check)


@pytest.fixture(scope="session")
def plan():
    """The trees of the backend set `make` built (FFDNN_BACKENDS, default ONNX only)."""
    return Plan(BACKENDS, LAYOUT)


@pytest.fixture(scope="session")
def trees(plan):
    """name -> Tree for every tree already built, and why each other one is not there: a
    test that needs a tree that is not built skips; one whose tree is in the cache but
    broken (a stamp that does not check, a partial tree, a backend library gone) fails
    with the tree's error, since a broken cache must not turn the suite green."""
    found, missing = {}, {}
    for name in plan.names:
        try:
            found[name] = plan.get(name, build=False)
        except HarnessError as e:
            built = (plan.path(name) / "stamp.json").is_file()
            missing[name] = (built, str(e))
    return found, missing


def need_tree(trees, name):
    found, missing = trees
    if name not in found:
        broken, why = missing.get(name, (False, "unknown tree"))
        if broken:
            pytest.fail(f"tree '{name}' is in the cache but broken: {why}", pytrace=False)
        pytest.skip(f"tree '{name}' missing: {why} (run: make build)")
    return found[name]


@pytest.fixture
def scratch_cache(tmp_path, tree):
    """A cache of its own that shares the real cache's downloads, models and base tree
    (read-only use): a build of base there finds it, a build of before is a real one,
    from a copy of base."""
    from harness.paths import cache_root
    base = tree("base")  # the real cache has what we link to
    cache = tmp_path / "cache"
    (cache / "trees").mkdir(parents=True)
    for part in ("src", "backends", "apt", "packages", "models"):
        os.symlink(cache_root() / part, cache / part)
    os.symlink(base.path, cache / "trees" / base.path.name)
    return cache


@pytest.fixture(scope="session")
def tree(trees):
    """tree('after') -> the built Tree, or skip naming what is missing."""
    return lambda name: need_tree(trees, name)


@pytest.fixture(scope="session")
def preload():
    return matrix.preload_library()


@pytest.fixture(scope="session")
def run_scenario(trees, preload):
    """Run one scenario in a worker: (build, fault spec, **options) -> runner.Result."""
    def run(build, fault, backend="onnx", filt="dnn_processing", entry="", **kw):
        tree = need_tree(trees, build)
        have = tree.backends
        missing = graphs.needs(backend, filt) - have if (backend, filt) in graphs.GRAPHS else ()
        if missing:
            pytest.skip(f"{filt} on {backend}: tree built without {', '.join(sorted(missing))} "
                        f"(FFDNN_BACKENDS={BACKENDS}; run: make test BACKENDS=all)")
        (sc,) = matrix.scenarios([tree], backend, filt, [fault], **kw)
        return run_one(dataclasses.replace(sc, entry=entry), preload, expect=EXPECT)
    return run


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """The injectors of ../injectors, built into a cache of the session's own."""
    from harness.compile import injector_build
    return injector_build.build(tmp_path_factory.mktemp("injector-cache"))
