"""What the probe (harness/obtain/probe.py) looks for in a tree on behalf of the
harness's own C: each FFDNN_HAS_* flag the bindings are compiled with and the header it is
read from, where a filter's activate() can live, the public calls the graph set-up binds,
the DNNBackendType values the bindings name, and which flags a scenario cannot do without.
"""

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
