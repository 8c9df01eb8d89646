"""What a tree has and can express, read from the tree itself: its headers, its
libavfilter/dnn Makefile, its filters' and backends' sources, and its configure result
(config.h). Nothing here is written down per FFmpeg release.

The readers take text (harness/obtain/sourcetext.py, so they are tested on snippets) and
what is looked for is harness/obtain/flags.py; `facts(src)` puts them together for one
tree, and `Facts.why_not()` says why a (backend, filter) pair is not expressible on it,
in the tree's own words.
"""

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from harness.obtain.backends import BACKENDS
from harness.obtain.flags import ACTIVATE_HOMES, BACKEND_TYPES, GRAPH_CALLS, NEEDS, REQUIRED
from harness.obtain.sourcetext import (async_threads, backend_objects, config_values, declared,
                                       defines, enum_numbers, enum_values, filter_function_type,
                                       filter_masks, function_types, has_activate,
                                       has_activate_member, has_context_ready, interface_flushes,
                                       module_type, option_masks, option_names, returned_errors,
                                       strip_comments, sync_unsupported, synchronous,
                                       unapplied_defaults)


def joined(words) -> str:
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


# ---- one tree ----------------------------------------------------------------------

@dataclass(frozen=True)
class Backend:
    """One DNN backend of the harness (its module in harness/obtain/backends/) as a tree has it."""

    name: str
    label: str
    config: str          # CONFIG_LIBTENSORFLOW
    source: str          # libavfilter/dnn/<file>, "" when the tree has no such backend
    type: str            # DNN_TF, "" when unknown
    enabled: bool        # configure enabled it (config.h)
    function_types: frozenset
    synchronous: bool
    async_threads: bool  # its async tasks run on threads ff_dnn_start_inference_async() starts
    sync_unsupported: frozenset = frozenset()  # function types it refuses with async 0
    flush: str = ""      # the flush ff_get_dnn_module() gives its module (dnn_interface.c),
                         # by which its type is known on a tree whose DNNModule has no .type


@dataclass(frozen=True)
class DnnFilter:
    name: str
    file: str            # vf_dnn_detect.c
    mask: str            # as written: "DNN_TF | DNN_OV"
    accepts: tuple       # ("DNN_TF", "DNN_OV")
    function_type: str   # DFT_ANALYTICS_DETECT
    activate: bool
    options: frozenset = frozenset()  # its own AVOptions' names (its file's)


@dataclass(frozen=True)
class Facts:
    version: str
    backend_types: tuple   # DNNBackendType's constants
    backends: dict         # harness name -> Backend
    filters: dict          # filter name -> DnnFilter
    flags: dict            # FFDNN_HAS_* -> 0/1, for the bindings
    graph: dict            # each of GRAPH_CALLS -> its header, or "" when not declared
    unapplied: dict        # DNN options whose declared default the filters do not get
    dnn_options: frozenset = frozenset()  # the AVOptions of libavfilter/dnn (every DNN
                                          # filter's and each backend's), by name

    @property
    def activate_home(self) -> tuple | None:
        """(struct, header) where the filters' activate() lives, which the recorder copies:
        the first of ACTIVATE_HOMES the tree has, or None."""
        return next((home for flag, home in ACTIVATE_HOMES.items() if self.flags[flag]), None)

    def missing(self, flag: str) -> str:
        """What is missing when a flag is 0, in the words of absent() and why_not()."""
        if flag in NEEDS:
            return NEEDS[flag][2]
        if flag in ACTIVATE_HOMES:
            homes = " or ".join(f"{s} ({h})" for s, h in ACTIVATE_HOMES.values())
            return f"activate() in {homes}, which the activate() recorder copies"
        calls = [c for c, h in self.graph.items() if not h]
        where = joined(f"{c}() ({h})" for h, cs in GRAPH_CALLS.items() for c in cs if c in calls)
        return f"{where}, which the graph set-up calls"

    @property
    def module_flushes(self) -> dict:
        """On a tree whose DNNModule has no .type: {DNN_TF: "ff_dnn_flush_tf"} for each
        backend configure enabled, whose flush tells the stand-in its module's backend
        (FFDNN_FLUSH_<type> to the compiler); {} where the module has its .type."""
        if self.flags["FFDNN_HAS_DNNMODULE_TYPE"]:
            return {}
        return {b.type: b.flush for b in self.backends.values()
                if b.enabled and b.source and b.type and b.flush}

    def label_of(self, dnn_type: str) -> str:
        return next((b.label for b in self.backends.values() if b.type == dnn_type), dnn_type)

    def absent(self) -> list:
        """Everything the harness looked for in this tree and did not find."""
        out = [f"DNNBackendType has no {t} (libavfilter/dnn_interface.h)"
               for t in BACKEND_TYPES if t not in self.backend_types]
        out += [f"no {b.label} backend: libavfilter/dnn/Makefile builds nothing for {b.config}"
                for b in self.backends.values() if not b.source]
        out += [f"no .type in the {b.label} backend's DNNModule ({b.source}) and no flush "
                "of its in ff_get_dnn_module() (libavfilter/dnn/dnn_interface.c)"
                for b in self.backends.values() if b.source and not b.type]
        out += [f"no {self.missing(f)}" for f in NEEDS if not self.flags[f]]
        out += [f"no {self.missing(any_of[0])}" for any_of in REQUIRED
                if any_of[0] not in NEEDS and not any(self.flags[f] for f in any_of)]
        out += [f"{f.name} has no activate()" for f in self.filters.values() if not f.activate]
        return out

    @property
    def enabled(self) -> set:
        """The harness's backends this tree's configure enabled (config.h)."""
        return {b.name for b in self.backends.values() if b.enabled and b.source}

    def describe(self, pairs=()) -> list:
        """Lines for `python -m harness probe`: what the tree has, lacks, cannot express."""
        out = [f"FFmpeg {self.version}; DNNBackendType: {', '.join(self.backend_types)}"]
        for b in self.backends.values():
            if not b.source:
                continue
            by = (f" by its flush {b.flush}, ff_get_dnn_module()'s"
                  if b.flush and not self.flags["FFDNN_HAS_DNNMODULE_TYPE"] else "")
            out.append(f"backend {b.name} ({b.type}{by}, {b.source}): "
                       f"{'enabled' if b.enabled else 'not enabled'} by configure; "
                       f"{'synchronous' if b.synchronous else 'asynchronous'} tasks"
                       f"{' (on threads ff_dnn_start_inference_async() starts)' if b.async_threads else ''}; "
                       f"handles {', '.join(sorted(b.function_types)) or 'nothing'}"
                       + (f"; refuses {', '.join(sorted(b.sync_unsupported))} with async 0"
                          if b.sync_unsupported else ""))
        for f in self.filters.values():
            out.append(f"filter {f.name} ({f.file}): accepts {f.mask}; {f.function_type}; "
                       f"{'has' if f.activate else 'no'} activate()")
        home = self.activate_home
        out.append(f"activate(): a member of {home[0]} ({home[1]}), which the recorder copies"
                   if home else f"activate(): no {self.missing(next(iter(ACTIVATE_HOMES)))}")
        out.append(f"graph set-up: {sum(map(bool, self.graph.values()))} of {len(self.graph)} "
                   f"calls the module binds declared ({', '.join(GRAPH_CALLS)})")
        if self.unapplied:
            said = ", ".join(f"{k}={v}" for k, v in self.unapplied.items())
            out.append("DNN options: ff_dnn_init_child_class() (libavfilter/dnn/dnn_interface.c) "
                       "does not apply the options' defaults, so the filters start with "
                       f"{', '.join(f'{k}=0' for k in self.unapplied)}, not the declared {said}, "
                       "and run as that (the harness's graphs set no such option)")
        if self.flags.get("FFDNN_HAS_CONTEXT_READY"):
            out.append("AVFilterContext.ready is public (libavfilter/avfilter.h): while the worker "
                       "waits for a frame, it marks the DNN filter to be activated again, as the "
                       "next frame would (where the graph does not activate it when its task ends, as 5.1's)")
        out.append("flags: " + ", ".join(f"{k}={v}" for k, v in sorted(self.flags.items())))
        out += [f"absent: {a}" for a in self.absent()]
        out += [f"not expressible: {b} / {f}: {self.why_not(b, f)}" for b, f in pairs
                if self.why_not(b, f)]
        return out

    def _clauses(self, backend: str, filt: str) -> list:
        """(first, later) wordings of each reason: "{v}'s X" / "its X", "{v} has no" / "it has no"."""
        b = self.backends.get(backend)
        if b is None:
            return [("{v} has no backend the harness calls " + repr(backend),) * 2]
        if not b.source:
            text = (f"libavfilter/dnn has no {b.label} backend (its Makefile builds nothing "
                    f"for {b.config})")
            return [("{v}'s " + text, "its " + text)]
        out = []
        # and whatever else the tree lacks (4.3: no activate(), no threads, no flush)
        if not b.type and self.flags["FFDNN_HAS_DNNMODULE_FLUSH"]:
            text = (f"{b.label} backend's DNNModule ({b.source}) sets no .type and "
                    "ff_get_dnn_module() (libavfilter/dnn/dnn_interface.c) gives it no flush "
                    "of the backend's own, by either of which the stand-in flush tells the "
                    "filter's backend")
            out.append(("{v}'s " + text, "its " + text))
        f = self.filters.get(filt)
        if f is None:
            return out + [("{v} has no DNN filter " + filt, "it has no DNN filter " + filt)]
        if b.type and b.type not in f.accepts:
            text = (f"{filt} accepts only {joined(self.label_of(t) for t in f.accepts)} "
                    f"({f.file}: {f.mask})")
            out.append(("{v}'s " + text, text))
        if f.function_type and f.function_type not in b.function_types:
            have = joined(sorted(b.function_types)) if b.function_types else "no function type"
            text = f"{b.label} backend supports only {have}"
            out.append(("{v}'s " + text, "its " + text))
        if self.unapplied.get("async") and f.function_type in b.sync_unsupported:
            text = (f"DNN filters run with async 0 (ff_dnn_init_child_class() in "
                    f"libavfilter/dnn/dnn_interface.c does not apply the async option's "
                    f"default of {self.unapplied['async']}) and its {b.label} backend does not "
                    f"run {f.function_type} with async 0 ({b.source})")
            out.append(("{v}'s " + text, "its " + text))
        if not f.activate:
            out.append(("{v}'s " + f"{filt} has no activate() to record",
                        f"{filt} has no activate() to record"))
        out += [("{v} has no " + self.missing(any_of[0]), "it has no " + self.missing(any_of[0]))
                for any_of in REQUIRED if not any(self.flags[f] for f in any_of)]
        return out

    def unknown_options(self, description: str) -> list:
        """The options a graph's description gives its DNN filters that the tree has not:
        ["dnn_detect's model_type", ...] (neither the filter's own nor libavfilter/dnn's)."""
        out = []
        for part in description.split(","):
            name, _, args = part.partition("=")
            f = self.filters.get(name.strip())
            if f is None:
                continue
            known = f.options | self.dnn_options
            for option in args.split(":"):
                key = option.partition("=")[0].strip()
                if key and key not in known:
                    out.append(f"{f.name}'s {key}")
        return out

    def why_not(self, backend: str, filt: str) -> str | None:
        """None when the pair is expressible on this tree, else why not, in the tree's
        own terms ("9.0.2's dnn_detect accepts only TensorFlow and OpenVINO
        (vf_dnn_detect.c: DNN_TF | DNN_OV) and its ONNX backend supports only ...")."""
        clauses = self._clauses(backend, filt)
        if not clauses:
            return None
        words = [clauses[0][0]] + [c[1] for c in clauses[1:]]
        return " and ".join(words).replace("{v}", self.version)


@functools.lru_cache(maxsize=None)
def profile(src: Path, function: str) -> tuple:
    """What a function of FFmpeg's DNN code returns as errors in the tree at `src`
    (libavfilter/dnn/*.c read for its definition): () when no file defines it."""
    for path in sorted((Path(src) / "libavfilter" / "dnn").glob("*.c")):
        found = returned_errors(_read(path), function)
        if found is not None:
            return found
    return ()


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def version(src: Path) -> str:
    """VERSION (release tarballs) or RELEASE (git trees), else 'unknown'."""
    for name in ("VERSION", "RELEASE"):
        text = _read(src / name).strip()
        if text:
            return text.split()[0]
    return "unknown"


@functools.lru_cache(maxsize=None)
def facts(src: Path) -> Facts:
    """What the tree at `src` (an FFmpeg source tree, configured or not) has."""
    src = Path(src)
    lavfi, dnn = src / "libavfilter", src / "libavfilter/dnn"
    config = config_values(_read(src / "config.h"))
    objects = backend_objects(_read(dnn / "Makefile"))
    types = enum_values(_read(lavfi / "dnn_interface.h"), "DNNBackendType")
    flushes = interface_flushes(_read(dnn / "dnn_interface.c"))
    backends = {}
    for name, spec in BACKENDS.items():
        cfg = "CONFIG_" + spec.library.upper()
        stem = objects.get(cfg, "")
        file = next((p for p in (dnn / f"{stem}.c", dnn / f"{stem}.cpp") if p.is_file()),
                    None) if stem else None
        text = _read(file) if file else ""
        # its type: its DNNModule's .type, else the type whose flush its source defines
        own = {f: t for t, f in flushes.items() if text and defines(text, f)}
        flush = next(iter(own), "")
        backends[name] = Backend(name, spec.label, cfg, file.name if file else "",
                                 module_type(text) or own.get(flush, ""),
                                 config.get(cfg, False), function_types(text),
                                 synchronous(text), async_threads(text),
                                 sync_unsupported(text), flush)
    filters = {}
    numbers = enum_numbers(_read(lavfi / "dnn_interface.h"), "DNNBackendType")
    for path in sorted(lavfi.glob("*.c")):
        text = _read(path)
        if "AVFILTER_DNN_DEFINE_CLASS" not in text and "dnn_backend" not in text:
            continue
        masks = filter_masks(text) or option_masks(text, numbers)
        for name, (mask, accepts) in masks.items():
            filters[name] = DnnFilter(name, path.name, mask, accepts,
                                      filter_function_type(text) or "", has_activate(text),
                                      option_names(text))
    flags = {flag: int(all(re.search(p, strip_comments(_read(src / header)), re.S)
                           for p in pattern.split(" && ")))
             for flag, (header, pattern, _) in NEEDS.items()}
    flags.update({flag: int(has_activate_member(_read(src / header), struct))
                  for flag, (struct, header) in ACTIVATE_HOMES.items()})
    flags["FFDNN_HAS_CONTEXT_READY"] = int(has_context_ready(_read(src / "libavfilter/avfilter.h")))
    graph = {call: header if declared(_read(src / header), call) else ""
             for header, calls in GRAPH_CALLS.items() for call in calls}
    flags["FFDNN_HAS_GRAPH_SETUP"] = int(all(graph.values()))
    flags.update({f"FFDNN_HAS_{t}": int(t in types) for t in BACKEND_TYPES})
    dnn_options = frozenset().union(*(option_names(_read(p)) for p in sorted(dnn.glob("*.c*"))))
    return Facts(version(src), types, backends, filters, flags, graph,
                 unapplied_defaults(_read(dnn / "dnn_interface.c")), dnn_options)
