"""What a tree has and can express, read from the tree itself: its headers, its
libavfilter/dnn Makefile, its filters' and backends' sources, and its configure result
(config.h). Nothing here is written down per FFmpeg release.

The readers at the top take text (so they are tested on snippets); `facts(src)` puts
them together for one tree, and `Facts.why_not()` says why a (backend, filter) pair is
not expressible on it, in the tree's own words.
"""

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from harness.obtain.backends import BACKENDS

# What the harness's own C (harness/compile/_cffi_src/) may find missing, each probed
# from a header of the tree: flag -> (header, pattern, what is missing when it is absent).
# Patterns joined by " && " must all match.
NEEDS = {
    "FFDNN_HAS_START_INFERENCE_ASYNC": (
        "libavfilter/dnn/dnn_backend_common.h",
        r"\bint\s+ff_dnn_start_inference_async\s*\(\s*void\s*\*\s*\w*\s*,\s*DNNAsyncExecModule\b",
        "ff_dnn_start_inference_async(void *, DNNAsyncExecModule *) "
        "(libavfilter/dnn/dnn_backend_common.h), which the stand-in flush calls"),
    "FFDNN_HAS_COMPLETE_LLTASK": (
        "libavfilter/dnn/dnn_backend_common.h", r"\bff_dnn_complete_lltask\s*\(",
        "ff_dnn_complete_lltask() (libavfilter/dnn/dnn_backend_common.h)"),
    "FFDNN_HAS_GET_RESULT_STATUS": (
        "libavfilter/dnn_filter_common.h", r"\bff_dnn_get_result\s*\([^)]*\bstatus\b",
        "ff_dnn_get_result()'s status argument (libavfilter/dnn_filter_common.h)"),
    "FFDNN_HAS_DNNMODULE_FLUSH": (
        "libavfilter/dnn_interface.h", r"\bstruct\s+DNNModule\s*\{[^}]*\(\s*\*\s*flush\s*\)",
        "flush in DNNModule (libavfilter/dnn_interface.h), which the stand-in flush replaces "
        "(a backend with nothing pending at EOF)"),
    "FFDNN_HAS_DNNCONTEXT_CLASS": (
        "libavfilter/dnn_interface.h", r"\bstruct\s+DnnContext\s*\{\s*const\s+AVClass\s*\*",
        "an AVClass first in DnnContext (libavfilter/dnn_interface.h), which the stand-in "
        "flush logs with (without it, with the filter's context)"),
    "FFDNN_HAS_DNNMODULE_TYPE": (
        "libavfilter/dnn_interface.h", r"\bstruct\s+DNNModule\s*\{[^}]*\bDNNBackendType\s+type\s*;",
        "DNNModule.type (libavfilter/dnn_interface.h), by which the stand-in flush tells "
        "a module's backend (without it, by the flush ff_get_dnn_module() gives the module)"),
}
# Where a filter's activate() callback can live, the first found wins: flag -> (the
# struct that has it as a member, its header). The recorder copies that struct
# (FFmpeg 8 moved activate() from the public AVFilter into the private FFFilter, whose
# first member is the AVFilter).
ACTIVATE_HOMES = {
    "FFDNN_HAS_FFFILTER": ("FFFilter", "libavfilter/filters.h"),
    "FFDNN_HAS_AVFILTER_ACTIVATE": ("AVFilter", "libavfilter/avfilter.h"),
}
# The public calls the module binds to set up the graph and drain it
# (harness/compile/_cffi_src/avfilter.py), by the header that declares them; one the
# tree does not declare clears FFDNN_HAS_GRAPH_SETUP.
GRAPH_CALLS = {
    "libavfilter/avfilter.h": (
        "avfilter_get_by_name", "avfilter_graph_alloc", "avfilter_graph_free",
        "avfilter_graph_create_filter", "avfilter_graph_parse_ptr", "avfilter_graph_config",
        "avfilter_inout_alloc", "avfilter_inout_free", "avfilter_version"),
    "libavfilter/buffersrc.h": ("av_buffersrc_add_frame_flags", "av_buffersrc_close"),
    "libavfilter/buffersink.h": ("av_buffersink_get_frame",),
}
# What a scenario cannot do without (the other flags only change behaviour): each entry
# is met by any one of its flags.
REQUIRED = (tuple(ACTIVATE_HOMES), ("FFDNN_HAS_START_INFERENCE_ASYNC",),
            ("FFDNN_HAS_DNNMODULE_FLUSH",), ("FFDNN_HAS_GRAPH_SETUP",))
# DNNBackendType values the bindings name, each backend's own (its module's dnn_type);
# each is a HAS flag of its own.
BACKEND_TYPES = tuple(b.dnn_type for b in BACKENDS.values())


# ---- readers on text -------------------------------------------------------------

def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def enum_values(header: str, typename: str) -> tuple:
    """The constants of `typedef enum { ... } typename;`, in order."""
    m = re.search(r"typedef\s+enum\s*\w*\s*\{(?P<body>[^}]*)\}\s*" + re.escape(typename)
                  + r"\s*;", _strip_comments(header))
    if not m:
        return ()
    return tuple(re.findall(r"\b([A-Za-z_]\w*)\s*(?:=[^,]*)?(?:,|$)", m["body"].strip()))


def enum_numbers(header: str, typename: str) -> dict:
    """{constant: its value} of `typedef enum { ... } typename;`: implicit, `= 2` or
    `= 1 << 1`; a value written otherwise is left out (and those after it)."""
    m = re.search(r"typedef\s+enum\s*\w*\s*\{(?P<body>[^}]*)\}\s*" + re.escape(typename)
                  + r"\s*;", _strip_comments(header))
    out, nxt = {}, 0
    for name, value in re.findall(r"\b([A-Za-z_]\w*)\s*(?:=([^,]*))?(?:,|$)",
                                  m["body"].strip() if m else ""):
        v = re.fullmatch(r"\s*(\d+)\s*(?:<<\s*(\d+)\s*)?", value) if value else None
        if value and not v:
            break
        nxt = (int(v[1]) << int(v[2] or 0)) if v else nxt
        out[name], nxt = nxt, nxt + 1
    return out


def config_values(config_h: str) -> dict:
    """`#define CONFIG_X 1` and `#define HAVE_X 0` lines -> {name: bool}."""
    return {m[1]: m[2] != "0"
            for m in re.finditer(r"^#define\s+((?:CONFIG|HAVE)_\w+)\s+(\d+)", config_h, re.M)}


def backend_objects(makefile: str) -> dict:
    """libavfilter/dnn/Makefile: `DNN-OBJS-$(CONFIG_X) += dnn/<name>.o` -> {CONFIG_X: name}."""
    return {m[1]: m[2] for m in
            re.finditer(r"^DNN-OBJS-\$\((CONFIG_\w+)\)\s*\+=\s*dnn/(\w+)\.o", makefile, re.M)}


def module_type(source: str) -> str | None:
    """The `.type` of the backend's `const DNNModule ff_dnn_backend_x = { ... }`."""
    m = re.search(r"DNNModule\s+\w+\s*=\s*\{[^}]*?\.type\s*=\s*(\w+)", _strip_comments(source))
    return m[1] if m else None


def interface_flushes(interface: str) -> dict:
    """libavfilter/dnn/dnn_interface.c, where ff_get_dnn_module() fills a DNNModule
    itself (before the backends exported theirs): `case DNN_TF: ... dnn_module->flush =
    &ff_dnn_flush_tf;` -> {"DNN_TF": "ff_dnn_flush_tf"}, the flush of each backend."""
    text = _strip_comments(interface)
    cases = list(re.finditer(r"\bcase\s+(DNN_\w+)\s*:", text))
    out = {}
    for i, m in enumerate(cases):
        end = cases[i + 1].start() if i + 1 < len(cases) else len(text)
        body = text[m.end():end].split("default:", 1)[0]
        flush = re.search(r"->\s*flush\s*=\s*&?\s*(\w+)\s*;", body)
        if flush:
            out[m[1]] = flush[1]
    return out


def defines(source: str, function: str) -> bool:
    """Whether the source defines the function (a body, not a call or a prototype)."""
    return re.search(r"^[A-Za-z_][\w \t\*]*\b" + re.escape(function) + r"\s*\([^;{]*\)\s*\{",
                     _strip_comments(source), re.M) is not None


def filter_masks(source: str) -> dict:
    """`AVFILTER_DNN_DEFINE_CLASS(name, DNN_TF | DNN_OV)` -> {name: ("DNN_TF | DNN_OV",
    ("DNN_TF", "DNN_OV"))}: the backends the filter's class accepts, as written."""
    out = {}
    for m in re.finditer(r"AVFILTER_DNN_DEFINE_CLASS\s*\(\s*(\w+)\s*,\s*([^)]*)\)",
                         _strip_comments(source)):
        mask = " ".join(m[2].split())
        out[m[1]] = (mask, tuple(re.findall(r"\bDNN_\w+", mask)))
    return out


def option_masks(source: str, numbers: dict) -> dict:
    """A filter that declares its own `dnn_backend` option (before
    AVFILTER_DNN_DEFINE_CLASS): `{ "tensorflow", ..., AV_OPT_TYPE_CONST, { .i64 = 1 },
    ..., "backend" }` -> {name: ("dnn_backend=tensorflow|openvino", ("DNN_TF", "DNN_OV"))},
    each constant's value named by DNNBackendType (`numbers`: enum_numbers())."""
    text = _strip_comments(source)
    name = re.search(r"\bAVFilter\s+ff_vf_\w+\s*=\s*\{[^;]*?\.name\s*=\s*\"(\w+)\"", text)
    if not name or not re.search(r'\{\s*"dnn_backend"\s*,', text):
        return {}
    consts = re.findall(r'\{\s*"(\w+)"\s*,\s*"[^"]*"\s*,\s*0\s*,\s*AV_OPT_TYPE_CONST\s*,\s*'
                        r'\{\s*\.i64\s*=\s*(\w+)\s*\}[^{}]*"backend"\s*\}', text)
    by_number = {str(v): k for k, v in numbers.items()}
    types = tuple(dict.fromkeys(by_number.get(v, v) for _, v in consts
                                if by_number.get(v, v).startswith("DNN_")))
    return {name[1]: ("dnn_backend=" + "|".join(n for n, _ in consts), types)}


def filter_function_type(source: str) -> str | None:
    """The DNNFunctionType the filter initialises its DnnContext with (ff_dnn_init)."""
    m = re.search(r"ff_dnn_init\s*\([^,]*,\s*(DFT_\w+)", _strip_comments(source))
    return m[1] if m else None


def _block(text: str, start: int) -> str:
    """The brace block opening at or after `start`."""
    i = text.index("{", start)
    depth = 0
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i:j + 1]
    return text[i:]


def function_types(source: str) -> frozenset:
    """The DNNFunctionTypes a backend handles in every `switch (...func_type)`: what both
    its input and its output side know (a type only one side knows does not run)."""
    text = _strip_comments(source)
    sets = [set(re.findall(r"\bcase\s+(DFT_\w+)\s*:", _block(text, m.end())))
            for m in re.finditer(r"\bswitch\s*\([^)]*func_type\s*\)", text)]
    sets = [s for s in sets if s]
    return frozenset(set.intersection(*sets)) if sets else frozenset()


def synchronous(source: str) -> bool:
    """Whether the backend fills every task with async 0 (`ff_dnn_fill_task(task,
    exec_params, model, 0, 1)`): each task then runs on the caller's thread."""
    calls = re.findall(r"ff_dnn_fill_task\(([^;]*?)\);", _strip_comments(source))
    return bool(calls) and all([a.strip() for a in c.split(",")][3:4] == ["0"] for c in calls)


def async_threads(source: str) -> bool:
    """Whether the backend's asynchronous tasks run on a thread FFmpeg's own
    ff_dnn_start_inference_async() starts, which completes the task and ends (9.0.2's
    TensorFlow and LibTorch), and on nothing else: no call to another `*_async()` (as
    OpenVINO's `ov_infer_request_start_async()`, whose callback runs on the library's
    own threads)."""
    calls = re.findall(r"\b(\w+_async)\s*\(", _strip_comments(source))
    return bool(calls) and set(calls) == {"ff_dnn_start_inference_async"}


def struct_body(header: str, name: str) -> str | None:
    """The body of `typedef struct name { ... } name;` (or `struct name { ... };`) in a
    header, nested unions and all, or None."""
    text = _strip_comments(header)
    m = re.search(r"\bstruct\s+" + re.escape(name) + r"\s*\{", text)
    return _block(text, m.start()) if m else None


def has_activate_member(header: str, struct: str) -> bool:
    """Whether `struct` (in `header`'s text) has an `int (*activate)(AVFilterContext *)`
    member: where the filter's activate() callback lives."""
    body = struct_body(header, struct)
    return body is not None and re.search(
        r"\bint\s*\(\s*\*\s*activate\s*\)\s*\(\s*AVFilterContext\b", body) is not None


def has_context_ready(header: str) -> bool:
    """Whether the public AVFilterContext (libavfilter/avfilter.h) has its `unsigned
    ready`, by which the graph knows a filter is to be activated (FFmpeg 8 moved it into
    the private FFFilterContext)."""
    body = struct_body(header, "AVFilterContext")
    return body is not None and re.search(r"\bunsigned\s+(?:int\s+)?ready\s*;", body) is not None


def declared(header: str, call: str) -> bool:
    """Whether a header declares the function `call` (a prototype, not a mention)."""
    return re.search(r"\b" + re.escape(call) + r"\s*\([^;{]*\)\s*(?:av_\w+\s*)*;",
                     _strip_comments(header)) is not None


def sync_unsupported(source: str) -> frozenset:
    """The DNNFunctionTypes a backend refuses to run synchronously (async 0): OpenVINO's
    `if (model->func_type == DFT_ANALYTICS_CLASSIFY) { avpriv_report_missing_feature(ctx,
    "classify for sync execution"); ...}`."""
    return frozenset(re.findall(
        r"func_type\s*==\s*(DFT_\w+)\s*\)\s*\{[^{}]*?report_missing_feature\s*\([^;]*"
        r"sync execution", _strip_comments(source)))


def unapplied_defaults(interface: str) -> dict:
    """libavfilter/dnn/dnn_interface.c: the dnn_base options (model, async, ...) the
    harness's graphs rely on (`async`), each with its declared default, when the tree's
    ff_dnn_init_child_class() does not apply the options' defaults (no
    av_opt_set_defaults()): its DNN filters then start with 0 whatever the option says.
    {} when it applies them, or when the tree has no such function."""
    text = _strip_comments(interface)
    m = re.search(r"\bvoid\s+ff_dnn_init_child_class\s*\([^)]*\)\s*\{", text)
    if not m or "av_opt_set_defaults" in _block(text, m.end() - 1):
        return {}
    return {name: value for name, value in re.findall(
        r'\{\s*"(async)"\s*,[^}]*?\{\s*\.i64\s*=\s*(\d+)\s*\}', text) if value != "0"}


def has_activate(source: str) -> bool:
    """Whether the filter's definition sets an activate() callback."""
    return re.search(r"\.(?:p\.)?activate\s*=\s*\w+", _strip_comments(source)) is not None


def configure_knows(configure: str, library: str) -> bool:
    """Whether a configure script has `--enable-<library>`."""
    return re.search(r"^\s*" + re.escape(library) + r"\s*$", configure, re.M) is not None \
        or f"--enable-{library} " in configure


def configure_headers(configure: str, library: str) -> tuple:
    """The headers a configure script's `enabled <library> && ...` statement checks for
    (any one of them will do: 9.0's OpenVINO takes openvino/c/openvino.h or the older
    c_api/ie_c_api.h), in order; () when it has no such statement."""
    lines = configure.splitlines()
    start = next((i for i, l in enumerate(lines)
                  if re.match(r"\s*enabled\s+" + re.escape(library) + r"\s+&&", l)), None)
    if start is None:
        return ()
    text, depth = "", 0
    for line in lines[start:]:
        text += line + "\n"
        depth += line.count("{") - line.count("}")
        if depth <= 0 and not re.search(r"(\|\||&&|\\)\s*$", line):
            break
    return tuple(dict.fromkeys(re.findall(r"(?<![\w./-])([\w./-]+\.h)\b", text)))


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


@dataclass(frozen=True)
class Facts:
    version: str
    backend_types: tuple   # DNNBackendType's constants
    backends: dict         # harness name -> Backend
    filters: dict          # filter name -> DnnFilter
    flags: dict            # FFDNN_HAS_* -> 0/1, for the bindings
    graph: dict            # each of GRAPH_CALLS -> its header, or "" when not declared
    unapplied: dict        # DNN options whose declared default the filters do not get

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

    def why_not(self, backend: str, filt: str) -> str | None:
        """None when the pair is expressible on this tree, else why not, in the tree's
        own terms ("9.0.2's dnn_detect accepts only TensorFlow and OpenVINO
        (vf_dnn_detect.c: DNN_TF | DNN_OV) and its ONNX backend supports only ...")."""
        clauses = self._clauses(backend, filt)
        if not clauses:
            return None
        words = [clauses[0][0]] + [c[1] for c in clauses[1:]]
        return " and ".join(words).replace("{v}", self.version)


def returned_errors(source: str, function: str) -> tuple | None:
    """The AVERROR codes a function's own body returns or sets, as written (AVERROR(EINVAL),
    AVERROR_EXTERNAL), in the order they first appear: its fault profile as read from the
    source; None when `source` does not define the function."""
    text = _strip_comments(source)
    m = re.search(r"^[A-Za-z_][\w \t\*]*\b" + re.escape(function) + r"\s*\([^;{]*\)\s*\{",
                  text, re.M)
    if not m:
        return None
    body = _block(text, m.end() - 1)
    found = re.findall(r"\bAVERROR\(\s*(E[A-Z0-9]+)\s*\)|\b(AVERROR_[A-Z_]+)\b", body)
    return tuple(dict.fromkeys(f"AVERROR({e})" if e else tag for e, tag in found))


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
                                      filter_function_type(text) or "", has_activate(text))
    flags = {flag: int(all(re.search(p, _strip_comments(_read(src / header)), re.S)
                           for p in pattern.split(" && ")))
             for flag, (header, pattern, _) in NEEDS.items()}
    flags.update({flag: int(has_activate_member(_read(src / header), struct))
                  for flag, (struct, header) in ACTIVATE_HOMES.items()})
    flags["FFDNN_HAS_CONTEXT_READY"] = int(has_context_ready(_read(src / "libavfilter/avfilter.h")))
    graph = {call: header if declared(_read(src / header), call) else ""
             for header, calls in GRAPH_CALLS.items() for call in calls}
    flags["FFDNN_HAS_GRAPH_SETUP"] = int(all(graph.values()))
    flags.update({f"FFDNN_HAS_{t}": int(t in types) for t in BACKEND_TYPES})
    return Facts(version(src), types, backends, filters, flags, graph,
                 unapplied_defaults(_read(dnn / "dnn_interface.c")))
