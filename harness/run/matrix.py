"""From command-line choices to scenarios: trees, models, injectors, ids."""

from dataclasses import dataclass
from pathlib import Path

from harness.run import faults as faults_mod
from harness.compile import ffi_build, injector_build as injectors
from harness.run import chains as graphs
from harness.errors import HarnessError, ScenarioError
from harness.paths import cache_root
from harness.run.scenario import FRAMES, Scenario
from harness.obtain.tree import Tree, check_stamp, read_stamp
from harness.obtain.trees import Plan


@dataclass(frozen=True)
class Table:
    """One of a case's tables (its tables: title -> Table): the (backend, filter) pairs it
    runs, on which route (harness/run/scenario.py), with which faults (None: the case's
    faults) and a cap on --timeout (None: none)."""

    pairs: tuple
    route: str = "flush"
    faults: tuple | None = None
    timeout: float | None = None


def resolve_tree(spec: str, plan: Plan, build: bool = True) -> Tree:
    """A tree name (base, before, after) or the path of a built tree."""
    path = Path(spec)
    if spec not in plan.names and (path / "stamp.json").is_file():
        stamp = read_stamp(path)
        tree = Tree(stamp.get("tree", path.name), path.resolve(), stamp)
        check_stamp(tree)
        return tree
    if spec not in plan.names and ("/" in spec or path.exists()):
        raise HarnessError(f"{spec}: not a built tree (no stamp.json)")
    return plan.get(spec, build=build)


def model_path(model: str) -> Path:
    """A model file the user names: it must exist."""
    path = Path(model).expanduser().resolve()
    if not path.is_file():
        raise ScenarioError(f"{model}: model file not found")
    return path


def scenarios(trees, backend: str, filt: str, fault_specs, model=None, expect="",
              injector="preload", timeout=60.0, extra=None, route="flush",
              frames=FRAMES) -> list:
    fs = [faults_mod.parse(s) for s in fault_specs]
    why = graphs.not_on_trees(trees, backend, filt)
    if why:
        raise ScenarioError(f"{filt} on {backend}: {why}")
    desc = graphs.description(backend, filt, model_path(model) if model else None)
    out = []
    for tree in trees:
        have = tree.backends
        if not graphs.needs(backend, filt) <= have:
            raise HarnessError(f"tree {tree.name} was built without backend "
                               f"{', '.join(sorted(graphs.needs(backend, filt) - have))} "
                               f"(it has: {', '.join(sorted(have)) or 'none'})")
        # once, here, not in every worker; in a process group of its own, so a signal
        # that ends the command ends the compiler too (harness/reaper.py)
        ffi_build.finish(ffi_build.start(tree, injector))
        out += [Scenario(tree.name, str(tree.path), backend, filt, f, desc, route=route,
                         expect=expect, injector=injector, timeout=timeout,
                         frames=frames, extra=dict(extra or {}))
                for f in fs]
    return out


def preload_library() -> str:
    """LD_PRELOAD for a worker: every interposed family's injector (each idle until armed)."""
    return injectors.build(cache_root()).preloads
