"""The harness as a pytest plugin (entry point `pytest11`: on once the package is
installed): fixtures for a fault test of one's own (docs/pytest.md), the project's own tests
take them too (tests/conftest.py).

    ffdnn_tree(name)          a built tree of the case's layout (base, before, after), found
                              in the cache; missing: the test skips naming how to build it
                              (--ffdnn-build builds it), in the cache but broken: it fails
    ffdnn_patched             the tree --ffdnn-on (default the case's second tree) plus the
                              patches --ffdnn-patch names, built from that tree's objects
                              (no patch: the --ffdnn-on tree itself)
    ffdnn_run(tree, fault, backend="onnx", filt="dnn_processing", **options)
                              one scenario in a worker of its own -> runner.Result (outcome,
                              diffs, record); options as matrix.scenarios() takes them (route,
                              frames, expect, timeout, injector, model)
    ffdnn_expect              the case's expectations (runner.Expect: .lookup(scenario))
    ffdnn_case                the case (--ffdnn-case, default the harness's default case)
    ffdnn_backend             --ffdnn-backend: the backend set the trees were built with
    ffdnn_plan, ffdnn_trees, ffdnn_preload   what those are made of

Only pytest is imported here: the harness's modules load when a fixture is first used.
"""

import dataclasses
import os

import pytest


def pytest_addoption(parser):
    g = parser.getgroup("ffdnn", "ffmpeg-dnn-fault-harness (harness/pytest_plugin.py)")
    g.addoption("--ffdnn-backend", metavar="LIST", default=None,
                help="the backends the trees were built with, as `build --backend` takes "
                     "them (default: FFDNN_BACKENDS, else 'default')")
    g.addoption("--ffdnn-case", metavar="NAME", default=None,
                help="the case whose trees and expectations the fixtures give (default: "
                     "the harness's default case)")
    g.addoption("--ffdnn-patch", metavar="FILE", action="append", default=[],
                help="a git am-able patch of yours on top of --ffdnn-on: the tree "
                     "`ffdnn_patched` is (repeatable)")
    g.addoption("--ffdnn-on", metavar="TREE", default=None,
                help="the tree --ffdnn-patch goes on (default: the case's second tree)")
    g.addoption("--ffdnn-build", action="store_true",
                help="build a tree that is not in the cache (default: the test skips)")


def backend_option(config) -> str:
    return (config.getoption("ffdnn_backend") or os.environ.get("FFDNN_BACKENDS")
            or "default")


@pytest.fixture(scope="session")
def ffdnn_backend(pytestconfig) -> str:
    return backend_option(pytestconfig)


@pytest.fixture(scope="session")
def ffdnn_case(pytestconfig):
    from harness import caseload
    return caseload.load(pytestconfig.getoption("ffdnn_case"))


@pytest.fixture(scope="session")
def ffdnn_expect(ffdnn_case):
    """The case's word on a run (runner.Expect): what ffdnn_run judges it against."""
    return ffdnn_case.expect


@pytest.fixture(scope="session")
def ffdnn_plan(pytestconfig, ffdnn_backend, ffdnn_case):
    """The trees of the case's layout for the backend set; with --ffdnn-patch, one more:
    the patched tree (harness/obtain/patched.py)."""
    from harness.errors import HarnessError
    from harness.obtain.patched import PatchedPlan
    from harness.obtain.trees import Plan
    patches = pytestconfig.getoption("ffdnn_patch")
    if not patches:
        return Plan(ffdnn_backend, ffdnn_case.part("layout"))
    on = pytestconfig.getoption("ffdnn_on") or ffdnn_case.pair[1]
    try:
        return PatchedPlan(ffdnn_backend, ffdnn_case.part("layout"), on=on, patches=patches)
    except HarnessError as e:
        raise pytest.UsageError(f"--ffdnn-patch: {e}") from None


@pytest.fixture(scope="session")
def ffdnn_trees(ffdnn_plan):
    """(name -> Tree for every tree of the layout already built, name -> (in the cache
    but broken?, why not there)). A broken cache entry must not turn a suite green: a
    test that needs it fails with the tree's error."""
    from harness.errors import HarnessError
    found, missing = {}, {}
    for name in ffdnn_plan.names:
        try:
            found[name] = ffdnn_plan.get(name, build=False)
        except HarnessError as e:
            built = (ffdnn_plan.path(name) / "stamp.json").is_file()
            missing[name] = (built, str(e))
    return found, missing


def need_tree(trees, name, plan=None):
    """The built tree `name` of `trees` (ffdnn_trees), or skip naming what is missing
    (fail when it is in the cache but broken); with `plan`, build it instead of skipping."""
    found, missing = trees
    if name in found:
        return found[name]
    broken, why = missing.get(name, (False, "unknown tree"))
    if broken:
        pytest.fail(f"tree '{name}' is in the cache but broken: {why}", pytrace=False)
    if plan is not None and name in plan.names:
        from harness.errors import HarnessError
        try:
            found[name] = plan.get(name)
        except HarnessError as e:
            pytest.fail(f"tree '{name}' could not be built: {e}", pytrace=False)
        return found[name]
    pytest.skip(f"tree '{name}' missing: {why} (or pytest --ffdnn-build)")


@pytest.fixture(scope="session")
def ffdnn_tree(pytestconfig, ffdnn_trees, ffdnn_plan):
    """ffdnn_tree('after') -> the built Tree, or skip naming what is missing."""
    plan = ffdnn_plan if pytestconfig.getoption("ffdnn_build") else None
    return lambda name: need_tree(ffdnn_trees, name, plan)


@pytest.fixture(scope="session")
def ffdnn_patched(pytestconfig, ffdnn_plan, ffdnn_case, ffdnn_tree):
    """Your tree: --ffdnn-on (default the case's second tree) plus the patches
    --ffdnn-patch names, built when it is not in the cache (from the objects of the tree
    it goes on, which must be built); with no --ffdnn-patch, the --ffdnn-on tree itself."""
    from harness.errors import HarnessError
    if not pytestconfig.getoption("ffdnn_patch"):
        return ffdnn_tree(pytestconfig.getoption("ffdnn_on") or ffdnn_case.pair[1])
    ffdnn_tree(ffdnn_plan.on)
    try:
        return ffdnn_plan.get(ffdnn_plan.patched)
    except HarnessError as e:
        pytest.fail(f"--ffdnn-patch: {e}", pytrace=False)


@pytest.fixture(scope="session")
def ffdnn_preload():
    """The injectors' LD_PRELOAD (built into the cache when they are not there)."""
    from harness.run import matrix
    return matrix.preload_library()


@pytest.fixture(scope="session")
def ffdnn_run(ffdnn_tree, ffdnn_preload, ffdnn_expect, ffdnn_backend):
    """Run one scenario in a worker: (tree or its name, fault spec, backend, filter,
    **options) -> runner.Result, judged against the case's expectations (by the tree's
    own name, or expect=TREE's)."""
    from harness.run import chains, matrix
    from harness.run.runner import run_one

    def run(build, fault, backend="onnx", filt="dnn_processing", entry="", **kw):
        tree = ffdnn_tree(build) if isinstance(build, str) else build
        missing = (chains.needs(backend, filt) - tree.backends
                   if (backend, filt) in chains.GRAPHS else ())
        if missing:
            pytest.skip(f"{filt} on {backend}: tree built without "
                        f"{', '.join(sorted(missing))} (--ffdnn-backend {ffdnn_backend})")
        (sc,) = matrix.scenarios([tree], backend, filt, [fault], **kw)
        return run_one(dataclasses.replace(sc, entry=entry), ffdnn_preload,
                       expect=ffdnn_expect)
    return run
