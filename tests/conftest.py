"""Shared fixtures: the built trees (found in the cache, or the test skips naming what
is missing), the injector library, and one worker run per scenario."""

import os

import pytest

from harness.obtain.backends import BACKENDS as REGISTRY
from harness import caseload
from harness.pytest_plugin import need_tree  # noqa: F401  (tests name it from here)

# the trees and expectations of the default case, by name, as the command line gets them:
# the shared fixtures import no case (tests/engine/ imports none; tests/<case>/ its own)
CASE = caseload.load()
EXPECT, LAYOUT = CASE.expect, CASE.layout


BACKENDS = os.environ.get("FFDNN_BACKENDS", "default")  # as the plugin's --ffdnn-backend


def pytest_configure(config):
    """A backend's marker comes from its module in harness/obtain/backends/, a case's (its
    trees, its commits) from its markers, so adding either registers its markers
    (--strict-markers); the engine's own are in pyproject.toml. A forge's variables of
    the CI job that runs the suite are dropped: the commands the tests run must not
    annotate that job nor write its summary (tests/engine/test_forge.py sets them)."""
    for name in ("GITHUB_ACTIONS", "FORGEJO_ACTIONS", "GITHUB_STEP_SUMMARY"):
        os.environ.pop(name, None)
    for b in REGISTRY.values():
        config.addinivalue_line("markers", f"{b.marker}: scenarios on the {b.label} backend")
    for name in caseload.names():
        for marker, text in caseload.load(name).markers.items():
            config.addinivalue_line("markers", f"{marker}: {text}")


@pytest.hookimpl(tryfirst=True)  # before -m selects by marker
def pytest_collection_modifyitems(config, items):
    """The fast tier (`make check`, -m check) holds every unit test: they need no build
    and decide verdicts on recorded runs; the other tests in it are marked check."""
    for item in items:
        if item.get_closest_marker("unit"):
            item.add_marker(pytest.mark.check)


# the trees, the injectors' preload and the scenario runner are the plugin's
# (harness/pytest_plugin.py, the `pytest11` entry point the installed package has), whose
# --ffdnn-backend defaults to FFDNN_BACKENDS as BACKENDS does; the suite's names for them:
def alias(name: str, of: str, doc: str):
    def fixture(request):
        return request.getfixturevalue(of)
    fixture.__doc__ = doc
    return pytest.fixture(scope="session", name=name)(fixture)


plan = alias("plan", "ffdnn_plan", "The trees of the backend set `make` built "
             "(FFDNN_BACKENDS, default ONNX only).")
trees = alias("trees", "ffdnn_trees", "name -> Tree for every tree already built, and why "
              "each other one is not there (a broken cache entry fails the test, a missing "
              "one skips).")
tree = alias("tree", "ffdnn_tree", "tree('after') -> the built Tree, or skip naming what is "
             "missing.")
preload = alias("preload", "ffdnn_preload", "The injectors' LD_PRELOAD.")
run_scenario = alias("run_scenario", "ffdnn_run", "Run one scenario in a worker: (build, "
                     "fault spec, **options) -> runner.Result.")


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
def built(tmp_path_factory):
    """The injectors of ../injectors, built into a cache of the session's own."""
    from harness.compile import injector_build
    return injector_build.build(tmp_path_factory.mktemp("injector-cache"))
