"""Which graphs a change's code can run in at all, read from the trees' own Makefiles: an
object of libavfilter built only for filters (`CONFIG_<NAME>_FILTER`) runs only in a graph
with one of them, one built only for a backend's library (`CONFIG_<LIBRARY>`, the backend
module's `library`) only in a graph one of whose filters runs on that backend
(`dnn_backend=`); anything else (`CONFIG_DNN`'s objects, a header, another library's file)
in any graph. `diff --focus` runs the censuses of the graphs that can run the change
alone (harness/experiments/diff.py)."""

import os
import re

from harness.obtain import backends
from harness.obtain.sourcetext import object_configs

MAKEFILES = ("libavfilter/Makefile", "libavfilter/dnn/Makefile")


def built_by(roots: list) -> dict:
    """A source path without its extension (`libavfilter/dnn/dnn_backend_tf`) -> the
    CONFIG_ names that build its object, in any of the trees' sources under `roots`."""
    out = {}
    for root in roots:
        for makefile in MAKEFILES:
            try:
                text = (root / makefile).read_text(errors="replace")
            except OSError:
                continue
            for obj, configs in object_configs(text, "libavfilter/").items():
                out.setdefault(obj, set()).update(configs)
    return out


def _specific(config: str) -> bool:
    """A filter's or a backend library's CONFIG_ name: what only some graphs have."""
    libraries = {f"CONFIG_{b.library.upper()}" for b in backends.BACKENDS.values()}
    return config.endswith("_FILTER") or config in libraries


def needed(paths: list, objects: dict) -> set | None:
    """The CONFIG_ names one of which a graph needs to run the code of any of `paths` (its
    objects' filters' and backends'); None when some of it could run in any graph."""
    need = set()
    for path in paths:
        configs = objects.get(os.path.splitext(path)[0])
        if not configs or not all(_specific(c) for c in configs):
            return None
        need |= configs
    return need


def graph_configs(description: str) -> set:
    """The CONFIG_ names of a graph's filters and of the backends they run on."""
    parts = re.split(r"[,;]", re.sub(r"\[[^\]]*\]", "", description))
    filters = {p.split("=", 1)[0].split("@", 1)[0].strip() for p in parts}
    libraries = {b.library for b in backends.BACKENDS.values()
                 if re.search(rf"dnn_backend={re.escape(b.option)}\b", description)}
    return ({f"CONFIG_{f.upper()}_FILTER" for f in filters if f}
            | {f"CONFIG_{lib.upper()}" for lib in libraries})


def can_run(descriptions: list, touched, roots: list) -> list:
    """For each graph's description, whether it can run a function or a declaration the
    change (harness.judge.touched.Touched) touches, by the Makefiles of the trees under
    `roots`."""
    paths = [p for ps in touched.code_paths().values() for p in ps]
    need = needed(paths, built_by(roots))
    return [need is None or bool(graph_configs(d) & need) for d in descriptions]
