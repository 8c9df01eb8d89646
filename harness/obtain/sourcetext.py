"""Readers on the text of an FFmpeg tree's files: its headers, libavfilter/dnn Makefile,
filters' and backends' sources, configure script and config.h. Each takes text, not a
tree, so each is tested on snippets; the probe (harness/obtain/probe.py) reads a tree's
files with them.
"""

import re


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def enum_values(header: str, typename: str) -> tuple:
    """The constants of `typedef enum { ... } typename;`, in order."""
    m = re.search(r"typedef\s+enum\s*\w*\s*\{(?P<body>[^}]*)\}\s*" + re.escape(typename)
                  + r"\s*;", strip_comments(header))
    if not m:
        return ()
    return tuple(re.findall(r"\b([A-Za-z_]\w*)\s*(?:=[^,]*)?(?:,|$)", m["body"].strip()))


def enum_numbers(header: str, typename: str) -> dict:
    """{constant: its value} of `typedef enum { ... } typename;`: implicit, `= 2` or
    `= 1 << 1`; a value written otherwise is left out (and those after it)."""
    m = re.search(r"typedef\s+enum\s*\w*\s*\{(?P<body>[^}]*)\}\s*" + re.escape(typename)
                  + r"\s*;", strip_comments(header))
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


def object_configs(makefile: str, prefix: str = "") -> dict:
    """A library's Makefile (or one it includes): `OBJS-$(CONFIG_X) += a.o b/c.o` and
    `DNN-OBJS-$(CONFIG_X) += ...` -> {`prefix` + the object's path without `.o`: the set
    of CONFIG_ names that build it}."""
    out = {}
    for m in re.finditer(r"^[\w-]*OBJS-\$\((CONFIG_\w+)\)\s*\+=((?:\\\n|[^\n])*)",
                         makefile, re.M):
        for obj in m[2].replace("\\\n", " ").split():
            if obj.endswith(".o"):
                out.setdefault(prefix + obj[:-2], set()).add(m[1])
    return out


def module_type(source: str) -> str | None:
    """The `.type` of the backend's `const DNNModule ff_dnn_backend_x = { ... }`."""
    m = re.search(r"DNNModule\s+\w+\s*=\s*\{[^}]*?\.type\s*=\s*(\w+)", strip_comments(source))
    return m[1] if m else None


def interface_flushes(interface: str) -> dict:
    """libavfilter/dnn/dnn_interface.c, where ff_get_dnn_module() fills a DNNModule
    itself (before the backends exported theirs): `case DNN_TF: ... dnn_module->flush =
    &ff_dnn_flush_tf;` -> {"DNN_TF": "ff_dnn_flush_tf"}, the flush of each backend."""
    text = strip_comments(interface)
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
                     strip_comments(source), re.M) is not None


def filter_masks(source: str) -> dict:
    """`AVFILTER_DNN_DEFINE_CLASS(name, DNN_TF | DNN_OV)` -> {name: ("DNN_TF | DNN_OV",
    ("DNN_TF", "DNN_OV"))}: the backends the filter's class accepts, as written."""
    out = {}
    for m in re.finditer(r"AVFILTER_DNN_DEFINE_CLASS\s*\(\s*(\w+)\s*,\s*([^)]*)\)",
                         strip_comments(source)):
        mask = " ".join(m[2].split())
        out[m[1]] = (mask, tuple(re.findall(r"\bDNN_\w+", mask)))
    return out


def option_names(source: str) -> frozenset:
    """The names of a source's AVOption entries (`{ "labels", "path to labels file", ...`),
    the named constants among them."""
    return frozenset(re.findall(r'\{\s*"(\w+)"\s*,\s*"', strip_comments(source)))


def option_masks(source: str, numbers: dict) -> dict:
    """A filter that declares its own `dnn_backend` option (before
    AVFILTER_DNN_DEFINE_CLASS): `{ "tensorflow", ..., AV_OPT_TYPE_CONST, { .i64 = 1 },
    ..., "backend" }` -> {name: ("dnn_backend=tensorflow|openvino", ("DNN_TF", "DNN_OV"))},
    each constant's value named by DNNBackendType (`numbers`: enum_numbers())."""
    text = strip_comments(source)
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
    m = re.search(r"ff_dnn_init\s*\([^,]*,\s*(DFT_\w+)", strip_comments(source))
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
    text = strip_comments(source)
    sets = [set(re.findall(r"\bcase\s+(DFT_\w+)\s*:", _block(text, m.end())))
            for m in re.finditer(r"\bswitch\s*\([^)]*func_type\s*\)", text)]
    sets = [s for s in sets if s]
    return frozenset(set.intersection(*sets)) if sets else frozenset()


def synchronous(source: str) -> bool:
    """Whether the backend fills every task with async 0 (`ff_dnn_fill_task(task,
    exec_params, model, 0, 1)`): each task then runs on the caller's thread."""
    calls = re.findall(r"ff_dnn_fill_task\(([^;]*?)\);", strip_comments(source))
    return bool(calls) and all([a.strip() for a in c.split(",")][3:4] == ["0"] for c in calls)


def async_threads(source: str) -> bool:
    """Whether the backend's asynchronous tasks run on a thread FFmpeg's own
    ff_dnn_start_inference_async() starts, which completes the task and ends (9.0.2's
    TensorFlow and LibTorch), and on nothing else: no call to another `*_async()` (as
    OpenVINO's `ov_infer_request_start_async()`, whose callback runs on the library's
    own threads)."""
    calls = re.findall(r"\b(\w+_async)\s*\(", strip_comments(source))
    return bool(calls) and set(calls) == {"ff_dnn_start_inference_async"}


def struct_body(header: str, name: str) -> str | None:
    """The body of `typedef struct name { ... } name;` (or `struct name { ... };`) in a
    header, nested unions and all, or None."""
    text = strip_comments(header)
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
                     strip_comments(header)) is not None


def sync_unsupported(source: str) -> frozenset:
    """The DNNFunctionTypes a backend refuses to run synchronously (async 0): OpenVINO's
    `if (model->func_type == DFT_ANALYTICS_CLASSIFY) { avpriv_report_missing_feature(ctx,
    "classify for sync execution"); ...}`."""
    return frozenset(re.findall(
        r"func_type\s*==\s*(DFT_\w+)\s*\)\s*\{[^{}]*?report_missing_feature\s*\([^;]*"
        r"sync execution", strip_comments(source)))


def unapplied_defaults(interface: str) -> dict:
    """libavfilter/dnn/dnn_interface.c: the dnn_base options (model, async, ...) the
    harness's graphs rely on (`async`), each with its declared default, when the tree's
    ff_dnn_init_child_class() does not apply the options' defaults (no
    av_opt_set_defaults()): its DNN filters then start with 0 whatever the option says.
    {} when it applies them, or when the tree has no such function."""
    text = strip_comments(interface)
    m = re.search(r"\bvoid\s+ff_dnn_init_child_class\s*\([^)]*\)\s*\{", text)
    if not m or "av_opt_set_defaults" in _block(text, m.end() - 1):
        return {}
    return {name: value for name, value in re.findall(
        r'\{\s*"(async)"\s*,[^}]*?\{\s*\.i64\s*=\s*(\d+)\s*\}', text) if value != "0"}


def has_activate(source: str) -> bool:
    """Whether the filter's definition sets an activate() callback."""
    return re.search(r"\.(?:p\.)?activate\s*=\s*\w+", strip_comments(source)) is not None


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


def returned_errors(source: str, function: str) -> tuple | None:
    """The AVERROR codes a function's own body returns or sets, as written (AVERROR(EINVAL),
    AVERROR_EXTERNAL), in the order they first appear: its fault profile as read from the
    source; None when `source` does not define the function."""
    text = strip_comments(source)
    m = re.search(r"^[A-Za-z_][\w \t\*]*\b" + re.escape(function) + r"\s*\([^;{]*\)\s*\{",
                  text, re.M)
    if not m:
        return None
    body = _block(text, m.end() - 1)
    found = re.findall(r"\bAVERROR\(\s*(E[A-Z0-9]+)\s*\)|\b(AVERROR_[A-Z_]+)\b", body)
    return tuple(dict.fromkeys(f"AVERROR({e})" if e else tag for e, tag in found))
