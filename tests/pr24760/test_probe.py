"""What a tree has, read from the tree: the probe's readers on header and source snippets
(no build needed), a synthetic tree, the bindings' conditional names, the report of a
release's patches, and the real 9.0.2 trees, whose answers must be the ones the harness
wrote down for 9.0.2 before it had a probe."""

import subprocess
import types
from pathlib import Path

import pytest

from harness.cases import pr24760
from harness.compile import declarations, ffi_build
from harness.judge import series
from harness.obtain import build, flags, probe, releases, sourcetext
from harness.obtain.tree import Tree
from harness.run import chains

pytestmark = pytest.mark.unit

ENUM_902 = """
typedef enum {
    DNN_TF = 1,
    DNN_OV = 1 << 1,
    DNN_TH = 1 << 2,
    DNN_ONNX = 1 << 3
} DNNBackendType;
"""
ENUM_812 = """
typedef enum {
    DNN_TF = 1,
    DNN_OV = 1 << 1,
    DNN_TH = 1 << 2 // LibTorch
} DNNBackendType;
"""


@pytest.mark.parametrize("text, values", [
    (ENUM_902, ("DNN_TF", "DNN_OV", "DNN_TH", "DNN_ONNX")),
    (ENUM_812, ("DNN_TF", "DNN_OV", "DNN_TH")),
    ("typedef enum { A, B, } Other;", ()),
])
def test_enum_values(text, values):
    assert sourcetext.enum_values(text, "DNNBackendType") == values


ENUM_519 = "typedef enum {DNN_NATIVE, DNN_TF, DNN_OV} DNNBackendType;\n"
# 7.0 on: the backends' own modules, with their .type
MODULE_7 = ("struct DNNModule {\n    const AVClass clazz;\n    DNNBackendType type;\n"
            "    int (*flush)(const DNNModel *model);\n};\n")


@pytest.mark.parametrize("text, numbers", [
    (ENUM_902, {"DNN_TF": 1, "DNN_OV": 2, "DNN_TH": 4, "DNN_ONNX": 8}),
    (ENUM_519, {"DNN_NATIVE": 0, "DNN_TF": 1, "DNN_OV": 2}),
    ("typedef enum { A = 3, B, C = f(1), D } DNNBackendType;", {"A": 3, "B": 4}),
])
def test_enum_numbers(text, numbers):
    assert sourcetext.enum_numbers(text, "DNNBackendType") == numbers


# 5.1's ff_get_dnn_module() fills a DNNModule of its own, with no .type
INTERFACE_519 = """
DNNModule *ff_get_dnn_module(DNNBackendType backend_type)
{
    switch(backend_type){
    case DNN_NATIVE:
        dnn_module->flush = &ff_dnn_flush_native;
        break;
    case DNN_TF:
    #if (CONFIG_LIBTENSORFLOW == 1)
        dnn_module->load_model = &ff_dnn_load_model_tf;
        dnn_module->flush = &ff_dnn_flush_tf;
    #else
        av_freep(&dnn_module);
    #endif
        break;
    case DNN_OV:
        // dnn_module->flush = &ff_dnn_flush_commented;
        break;
    default:
        dnn_module->flush = &nothing;
    }
}
"""


def test_interface_flushes():
    assert sourcetext.interface_flushes(INTERFACE_519) == {"DNN_NATIVE": "ff_dnn_flush_native",
                                                      "DNN_TF": "ff_dnn_flush_tf"}
    # 7.0 on: ff_get_dnn_module() returns the backends' own modules
    assert sourcetext.interface_flushes("case DNN_TF: return &ff_dnn_backend_tf;\n") == {}


def test_defines():
    text = "int ff_dnn_flush_tf(const DNNModel *model)\n{\n    return 0;\n}\n"
    assert sourcetext.defines(text, "ff_dnn_flush_tf")
    assert not sourcetext.defines("int ff_dnn_flush_tf(const DNNModel *model);\n",
                                  "ff_dnn_flush_tf")
    assert not sourcetext.defines("    return ff_dnn_flush_tf(model);\n", "ff_dnn_flush_tf")


def test_option_masks_of_a_filter_with_its_own_backend_option():
    """Before AVFILTER_DNN_DEFINE_CLASS (5.1): the filter's `dnn_backend` constants, named
    by DNNBackendType's values."""
    text = """
static const AVOption dnn_detect_options[] = {
    { "dnn_backend", "DNN backend", OFFSET(backend_type), AV_OPT_TYPE_INT, { .i64 = 2 }, INT_MIN, INT_MAX, FLAGS, "backend" },
#if (CONFIG_LIBTENSORFLOW == 1)
    { "tensorflow",  "tensorflow backend flag", 0, AV_OPT_TYPE_CONST, { .i64 = 1 }, 0, 0, FLAGS, "backend" },
#endif
    { "openvino",    "openvino backend flag",   0, AV_OPT_TYPE_CONST, { .i64 = 2 }, 0, 0, FLAGS, "backend" },
    { "fast", "a constant of another unit", 0, AV_OPT_TYPE_CONST, { .i64 = 1 }, 0, 0, FLAGS, "mode" },
    { NULL }
};
const AVFilter ff_vf_dnn_detect = {
    .name          = "dnn_detect",
};
"""
    numbers = sourcetext.enum_numbers(ENUM_519, "DNNBackendType")
    assert sourcetext.option_masks(text, numbers) == {
        "dnn_detect": ("dnn_backend=tensorflow|openvino", ("DNN_TF", "DNN_OV"))}
    assert sourcetext.option_masks("const AVFilter ff_vf_x = { .name = \"x\", };", numbers) == {}


CONFIGURE_HEADERS = r"""
enabled libopenvino       && { { check_pkg_config libopenvino openvino openvino/c/openvino.h ov_core_create && enable openvino2; } ||
                               { check_pkg_config libopenvino openvino c_api/ie_c_api.h ie_c_api_version ||
                                 require libopenvino c_api/ie_c_api.h ie_c_api_version -linference_engine_c_api; } }
enabled libtensorflow     && require libtensorflow tensorflow/c/c_api.h TF_Version -ltensorflow
enabled libopenvino2      && require libopenvino2 other.h f
"""


@pytest.mark.parametrize("configure, library, headers", [
    (CONFIGURE_HEADERS, "libopenvino", ("openvino/c/openvino.h", "c_api/ie_c_api.h")),
    (CONFIGURE_HEADERS, "libtensorflow", ("tensorflow/c/c_api.h",)),
    # 5.1's, one line
    ("enabled libopenvino       && require libopenvino c_api/ie_c_api.h ie_c_api_version "
     "-linference_engine_c_api\n", "libopenvino", ("c_api/ie_c_api.h",)),
    (CONFIGURE_HEADERS, "libtorch", ()),
], ids=["alternatives-over-lines", "one", "5.1-openvino", "none"])
def test_configure_headers(configure, library, headers):
    assert sourcetext.configure_headers(configure, library) == headers


def test_an_installed_backend_has_the_headers_of_its_cflags_and_pkg_config(tmp_path):
    from harness.obtain.backends import Installed
    (tmp_path / "a/c").mkdir(parents=True)
    (tmp_path / "a/c/one.h").write_text("")
    (tmp_path / "pc/b/openvino/c").mkdir(parents=True)
    (tmp_path / "pc/b/openvino/c/openvino.h").write_text("")
    (tmp_path / "pc/x.pc").write_text("prefix=${pcfiledir}\nName: x\nDescription: x\n"
                                      "Version: 1\nCflags: -I${prefix}/b\n")
    inst = Installed("x", tmp_path, {}, cflags=[f"-I{tmp_path / 'a'}"],
                     pkg_config_path=str(tmp_path / "pc"))
    assert inst.has_header("c/one.h") and inst.has_header("openvino/c/openvino.h")
    assert not inst.has_header("c_api/ie_c_api.h")


def test_config_values():
    got = sourcetext.config_values("#define CONFIG_LIBTORCH 1\n#define CONFIG_LIBONNXRUNTIME 0\n"
                              "#define HAVE_PTHREAD_CANCEL 1\n#define ARCH_X86 1\n")
    assert got == {"CONFIG_LIBTORCH": True, "CONFIG_LIBONNXRUNTIME": False,
                   "HAVE_PTHREAD_CANCEL": True}


def test_backend_objects():
    text = ("OBJS-$(CONFIG_DNN) += dnn/dnn_interface.o\n"
            "DNN-OBJS-$(CONFIG_LIBTENSORFLOW)             += dnn/dnn_backend_tf.o\n"
            "DNN-OBJS-$(CONFIG_LIBTORCH) += dnn/dnn_backend_torch.o\n")
    assert sourcetext.backend_objects(text) == {"CONFIG_LIBTENSORFLOW": "dnn_backend_tf",
                                           "CONFIG_LIBTORCH": "dnn_backend_torch"}


def test_module_type():
    text = "const DNNModule ff_dnn_backend_tf = {\n    .clazz = DNN_DEFINE_CLASS(x),\n" \
           "    .type           = DNN_TF,\n    .load_model = dnn_load_model_tf,\n};"
    assert sourcetext.module_type(text) == "DNN_TF"
    assert sourcetext.module_type("int x = 1;") is None


def test_filter_masks_as_written():
    text = ("AVFILTER_DNN_DEFINE_CLASS(dnn_detect, DNN_TF | DNN_OV);\n"
            "/* AVFILTER_DNN_DEFINE_CLASS(old, DNN_TH); */\n")
    assert sourcetext.filter_masks(text) == {"dnn_detect": ("DNN_TF | DNN_OV",
                                                          ("DNN_TF", "DNN_OV"))}


def test_function_types_are_what_every_switch_handles():
    """9.0.2's ONNX backend: its input side knows detection, its output side does not."""
    text = """
    switch (onnx_model->model.func_type) {
    case DFT_PROCESS_FRAME: if (x) { y(); } break;
    case DFT_ANALYTICS_DETECT: ff_frame_to_dnn_detect(); break;
    default: break;
    }
    switch (onnx_model->model.func_type) {
    case DFT_PROCESS_FRAME: break;
    }
    """
    assert sourcetext.function_types(text) == {"DFT_PROCESS_FRAME"}
    assert sourcetext.function_types("no switch") == frozenset()


# What the probe reads from a backend's source, line by line: whether its tasks are
# synchronous (ff_dnn_fill_task()'s async argument 0 everywhere) and whether they run on
# threads ff_dnn_start_inference_async() starts (it is called, not only named).
SOURCE_LINES = [
    ("synchronous", "ret = ff_dnn_fill_task(task, exec_params, onnx_model, 0, 1);", True),
    ("synchronous", "ret = ff_dnn_fill_task(task, exec_params, tf_model, ctx->async, 1);", False),
    ("synchronous", "a = ff_dnn_fill_task(t, p, m, 0, 1); "
                    "b = ff_dnn_fill_task(t, p, m, ctx->async, 0);", False),
    ("synchronous", "no task at all", False),
    ("async_threads", "if (ff_dnn_start_inference_async(ctx, &request->exec_module) != 0) {", True),
    ("async_threads", "return ff_dnn_start_inference_async(th_model->ctx, &request->exec_module);",
     True),
    ("async_threads", "status = ov_infer_request_start_async(request->infer_request);", False),
    ("async_threads", "ff_dnn_start_inference_async(ctx, m); "
                      "ie_infer_request_infer_async(r);", False),
    ("async_threads", "/* ff_dnn_start_inference_async(ctx, m) */ ret = run(ctx);", False),
    ("async_threads", "ret = ff_dnn_fill_task(task, exec_params, onnx_model, 0, 1);", False),
]


@pytest.mark.parametrize("reader, text, want", SOURCE_LINES)
def test_what_a_backends_source_says(reader, text, want):
    assert getattr(sourcetext, reader)(text) is want


def test_has_activate():
    assert sourcetext.has_activate("const FFFilter ff_vf_x = {\n    .activate      = activate,\n};")
    assert sourcetext.has_activate("const FFFilter ff_vf_x = { .p.name = \"x\", .activate = a };")
    assert not sourcetext.has_activate("const FFFilter ff_vf_sr = {\n    .init = init,\n};")


def test_configure_knows():
    script = "EXTERNAL_LIBRARY_LIST=\"\n    libopenvino\n    libtensorflow\n\"\n" \
             "  --enable-libtorch         enable Torch as one DNN backend [no]\n"
    assert sourcetext.configure_knows(script, "libtensorflow")
    assert sourcetext.configure_knows(script, "libtorch")
    assert not sourcetext.configure_knows(script, "libonnxruntime")


GRAPH_H = {  # the public headers' declarations of what the module binds, as in 9.0.2
    "libavfilter/avfilter.h": (
        "const AVFilter *avfilter_get_by_name(const char *name);\n"
        "AVFilterGraph *avfilter_graph_alloc(void);\n"
        "void avfilter_graph_free(AVFilterGraph **graph);\n"
        "int avfilter_graph_create_filter(AVFilterContext **filt_ctx, const AVFilter *filt,\n"
        "                                 const char *name, const char *args, void *opaque,\n"
        "                                 AVFilterGraph *graph_ctx);\n"
        "int avfilter_graph_parse_ptr(AVFilterGraph *graph, const char *filters,\n"
        "                             AVFilterInOut **inputs, AVFilterInOut **outputs,\n"
        "                             void *log_ctx);\n"
        "int avfilter_graph_config(AVFilterGraph *graphctx, void *log_ctx);\n"
        "AVFilterInOut *avfilter_inout_alloc(void);\n"
        "void avfilter_inout_free(AVFilterInOut **inout);\n"
        "unsigned avfilter_version(void);\n"),
    "libavfilter/buffersrc.h": (
        "av_warn_unused_result\n"
        "int av_buffersrc_add_frame_flags(AVFilterContext *buffer_src,\n"
        "                                 AVFrame *frame, int flags);\n"
        "int av_buffersrc_close(AVFilterContext *ctx, int64_t pts, unsigned flags);\n"),
    "libavfilter/buffersink.h": (
        "int attribute_align_arg av_buffersink_get_frame(AVFilterContext *ctx, AVFrame *frame);\n"),
}
# The public AVFilter of 7.1 (activate() at its end, a union of callbacks before it) and
# of 8.1 and later (no activate(): it is in FFFilter).
AVFILTER_71 = """
typedef struct AVFilter {
    const char *name;
    int flags;
    int (*init)(AVFilterContext *ctx);
    union {
        int (*query_func)(AVFilterContext *);
        const enum AVPixelFormat *pixels_list;
    } formats;
    int (*process_command)(AVFilterContext *, const char *cmd, const char *arg, char *res, int res_len, int flags);
    /**
     * Filter activation function. ... int (*activate)(AVFilterContext *ctx) in a comment
     */
    int (*activate)(AVFilterContext *ctx);
} AVFilter;
"""
AVFILTER_81 = """
typedef struct AVFilter {
    const char *name;
    /* activate() is in FFFilter: int (*activate)(AVFilterContext *ctx); */
    int flags;
} AVFilter;
typedef struct AVFilterPad AVFilterPad;
"""


def _tree(root: Path, onnx: bool, fffilter: bool = True, avfilter: str = AVFILTER_81,
          graph: dict = GRAPH_H) -> Path:
    """A source tree with only what the probe reads, after 9.0.2 (onnx) or 8.1.2; with
    AVFILTER_71 and fffilter=False, as 7.1 lays out the filter."""
    files = {**graph, "libavfilter/avfilter.h": avfilter + graph.get("libavfilter/avfilter.h", ""),
        "VERSION": "9.0.2\n" if onnx else "8.1.2\n",
        "config.h": "#define CONFIG_LIBTENSORFLOW 1\n#define CONFIG_LIBTORCH 0\n",
        "libavfilter/dnn_interface.h": (ENUM_902 if onnx else ENUM_812) + MODULE_7,
        "libavfilter/dnn/Makefile": "DNN-OBJS-$(CONFIG_LIBTENSORFLOW) += dnn/dnn_backend_tf.o\n"
                                    "DNN-OBJS-$(CONFIG_LIBTORCH) += dnn/dnn_backend_torch.o\n"
                                    "DNN-OBJS-$(CONFIG_LIBOPENVINO) += dnn/dnn_backend_openvino.o\n"
                                    + ("DNN-OBJS-$(CONFIG_LIBONNXRUNTIME) += "
                                       "dnn/dnn_backend_onnx.o\n" if onnx else ""),
        "libavfilter/dnn/dnn_backend_tf.c":
            "switch (m->func_type) { case DFT_PROCESS_FRAME: case DFT_ANALYTICS_DETECT: }\n"
            "ff_dnn_fill_task(task, p, m, ctx->async, 1);\n"
            "const DNNModule ff_dnn_backend_tf = { .type = DNN_TF, };\n",
        "libavfilter/dnn/dnn_backend_openvino.c":
            "const DNNModule ff_dnn_backend_openvino = { .type = DNN_OV, };\n",
        "libavfilter/dnn/dnn_backend_torch.cpp":
            "switch (m->func_type) { case DFT_PROCESS_FRAME: }\n"
            "const DNNModule ff_dnn_backend_torch = { .type = DNN_TH, };\n",
        "libavfilter/vf_dnn_detect.c":
            "ret = ff_dnn_init(&ctx->dnnctx, DFT_ANALYTICS_DETECT, context);\n"
            "AVFILTER_DNN_DEFINE_CLASS(dnn_detect, DNN_TF | DNN_OV);\n.activate = a,\n",
        "libavfilter/filters.h": ("typedef struct FFFilter {\n AVFilter p;\n"
                                  " int (*activate)(AVFilterContext *ctx);\n} FFFilter;\n"
                                  if fffilter else ""),
        "libavfilter/dnn/dnn_backend_common.h":
            "int ff_dnn_start_inference_async(void *ctx, DNNAsyncExecModule *async_module);\n",
    }
    if onnx:
        files["libavfilter/dnn/dnn_backend_onnx.c"] = (
            "switch (m->func_type) { case DFT_PROCESS_FRAME: case DFT_ANALYTICS_DETECT: }\n"
            "switch (m->func_type) { case DFT_PROCESS_FRAME: }\n"
            "ff_dnn_fill_task(task, p, m, 0, 1);\n"
            "const DNNModule ff_dnn_backend_onnx = { .type = DNN_ONNX, };\n")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    probe.facts.cache_clear()
    return root


def test_a_tree_without_onnx(tmp_path):
    f = probe.facts(_tree(tmp_path, onnx=False))
    assert f.flags["FFDNN_HAS_DNN_ONNX"] == 0 and f.flags["FFDNN_HAS_DNN_TH"] == 1
    assert f.enabled == {"tf"}
    assert "DNNBackendType has no DNN_ONNX (libavfilter/dnn_interface.h)" in f.absent()
    assert f.why_not("onnx", "dnn_detect") == (
        "8.1.2's libavfilter/dnn has no ONNX backend (its Makefile builds nothing for "
        "CONFIG_LIBONNXRUNTIME)")
    assert f.why_not("tf", "dnn_detect") is None


def test_a_graph_option_the_tree_has_not_is_named(tmp_path):
    """A graph whose DNN filter is given an option neither the filter's source nor
    libavfilter/dnn's declare (a release whose dnn_detect has no YOLO model types) is not
    expressible there, and the probe names the option; the named constants count."""
    root = _tree(tmp_path, onnx=False)
    detect = root / "libavfilter/vf_dnn_detect.c"
    detect.write_text(detect.read_text() + (
        '    { "dnn_backend", "DNN backend", OFFSET(backend_type), AV_OPT_TYPE_INT, },\n'
        '    /* { "model_type", "in a comment", }, */\n'
        '    { "confidence",  "threshold of confidence", OFFSET2(confidence), },\n'))
    (root / "libavfilter/dnn/dnn_interface.c").write_text(
        '    { "model", "path to model file", OFFSET(model_filename), },\n'
        '    { "input", "input name of the model", OFFSET(model_inputname), },\n')
    probe.facts.cache_clear()
    f = probe.facts(root)
    assert f.unknown_options("format=rgb24,dnn_detect=dnn_backend=tensorflow:model=m:"
                             "input=x:confidence=0.4") == []
    assert f.unknown_options("format=rgb24,dnn_detect=dnn_backend=tensorflow:model=m:"
                             "input=x:model_type=yolo:cell_w=2,null") == \
        ["dnn_detect's model_type", "dnn_detect's cell_w"]
    # TensorFlow's dnn_detect graph names its outputs, an option this tree's sources lack
    assert chains.not_expressible(root, "tf", "dnn_detect") == (
        "not expressible on FFmpeg 8.1.2: it declares no option dnn_detect's output, which "
        "the graph dnn_detect sets")


def test_the_902_reason_is_derived_word_for_word(tmp_path):
    """The sentence the harness printed for 9.0.2 before the probe, now from the sources."""
    f = probe.facts(_tree(tmp_path, onnx=True))
    assert f.backends["onnx"].synchronous and not f.backends["tf"].synchronous
    assert chains.not_expressible(tmp_path, "onnx", "dnn_detect") == (
        "not expressible on FFmpeg 9.0.2: 9.0.2's dnn_detect accepts only TensorFlow and "
        "OpenVINO (vf_dnn_detect.c: DNN_TF | DNN_OV) and its ONNX backend supports only "
        "DFT_PROCESS_FRAME")


def test_a_tree_without_fffilter_cannot_record(tmp_path):
    f = probe.facts(_tree(tmp_path, onnx=False, fffilter=False))
    assert f.flags["FFDNN_HAS_FFFILTER"] == f.flags["FFDNN_HAS_AVFILTER_ACTIVATE"] == 0
    assert f.activate_home is None
    assert f.why_not("tf", "dnn_detect") == (
        "8.1.2 has no activate() in FFFilter (libavfilter/filters.h) or AVFilter "
        "(libavfilter/avfilter.h), which the activate() recorder copies")
    assert ("no activate() in FFFilter (libavfilter/filters.h) or AVFilter "
            "(libavfilter/avfilter.h), which the activate() recorder copies") in f.absent()


def test_activate_in_the_public_avfilter_is_recorded_there(tmp_path):
    """7.1: no FFFilter; activate() is the public AVFilter's last member."""
    f = probe.facts(_tree(tmp_path, onnx=False, fffilter=False, avfilter=AVFILTER_71))
    assert (f.flags["FFDNN_HAS_FFFILTER"], f.flags["FFDNN_HAS_AVFILTER_ACTIVATE"]) == (0, 1)
    assert f.activate_home == ("AVFilter", "libavfilter/avfilter.h")
    assert f.why_not("tf", "dnn_detect") is None
    assert not [a for a in f.absent() if "activate() in" in a]
    assert "activate(): a member of AVFilter (libavfilter/avfilter.h), which the recorder " \
           "copies" in f.describe()


def test_fffilter_comes_first(tmp_path):
    """A tree with both (none is known; the first home found is the one copied)."""
    f = probe.facts(_tree(tmp_path, onnx=True, avfilter=AVFILTER_71))
    assert f.activate_home == ("FFFilter", "libavfilter/filters.h")


def test_activate_member_is_read_in_its_struct():
    assert sourcetext.has_activate_member(AVFILTER_71, "AVFilter")
    assert not sourcetext.has_activate_member(AVFILTER_81, "AVFilter")  # only in a comment
    other = "typedef struct AVFilter { int x; } AVFilter;\n" \
            "typedef struct Other { int (*activate)(AVFilterContext *ctx); } Other;\n"
    assert not sourcetext.has_activate_member(other, "AVFilter")
    assert sourcetext.has_activate_member(other, "Other")
    assert not sourcetext.has_activate_member(other, "FFFilter")
    assert sourcetext.struct_body(AVFILTER_71, "AVFilter").rstrip().endswith(
        "int (*activate)(AVFilterContext *ctx);\n}")


INTERFACE_71 = """
static const AVOption dnn_base_options[] = {
        {"nireq", "number of request",
                OFFSET(nireq), AV_OPT_TYPE_INT, {.i64 = 0}, 0, INT_MAX, FLAGS},
        {"async", "use DNN async inference",
                OFFSET(async), AV_OPT_TYPE_BOOL, {.i64 = 1}, 0, 1, FLAGS},
        {NULL}
};
void ff_dnn_init_child_class(DnnContext *ctx)
{
    for (int i = 0; i < FF_ARRAY_ELEMS(dnn_backend_info_list); i++) {
        const AVClass **ptr = (const AVClass **) ((char *) ctx + dnn_backend_info_list[i].offset);
        *ptr = dnn_backend_info_list[i].class;
    }
}
"""
INTERFACE_81 = INTERFACE_71.replace("        *ptr = dnn_backend_info_list[i].class;\n",
                                    "        *ptr = dnn_backend_info_list[i].class;\n"
                                    "        av_opt_set_defaults(ptr);\n")
OV_SYNC = """
    else {
        if (model->func_type == DFT_ANALYTICS_CLASSIFY) {
            // Classification filter has not been completely
            // tested with the sync mode. So, do not support now.
            avpriv_report_missing_feature(ctx, "classify for sync execution");
            return AVERROR(ENOSYS);
        }
        if (ctx->ov_option.batch_size > 1) {
            avpriv_report_missing_feature(ctx, "batch mode for sync execution");
"""


def test_option_defaults_the_tree_does_not_apply():
    assert sourcetext.unapplied_defaults(INTERFACE_71) == {"async": "1"}
    assert sourcetext.unapplied_defaults(INTERFACE_81) == {}
    assert sourcetext.unapplied_defaults("") == {}
    assert sourcetext.sync_unsupported(OV_SYNC) == {"DFT_ANALYTICS_CLASSIFY"}
    assert sourcetext.sync_unsupported("if (x) { avpriv_report_missing_feature(ctx, \"y\"); }") \
        == frozenset()


@pytest.mark.parametrize("interface, refused", [(INTERFACE_71, True), (INTERFACE_81, False)])
def test_classify_needs_async_where_it_is_not_the_default(tmp_path, interface, refused):
    root = _tree(tmp_path, onnx=False, fffilter=False, avfilter=AVFILTER_71)
    (root / "libavfilter/dnn/dnn_interface.c").write_text(interface)
    (root / "libavfilter/dnn/dnn_backend_openvino.c").write_text(
        "switch (m->func_type) { case DFT_PROCESS_FRAME: case DFT_ANALYTICS_CLASSIFY: }\n"
        + OV_SYNC + "}}\nconst DNNModule ff_dnn_backend_openvino = { .type = DNN_OV, };\n")
    (root / "libavfilter/vf_dnn_classify.c").write_text(
        "ret = ff_dnn_init(&ctx->dnnctx, DFT_ANALYTICS_CLASSIFY, context);\n"
        "AVFILTER_DNN_DEFINE_CLASS(dnn_classify, DNN_OV);\n.activate = a,\n")
    probe.facts.cache_clear()
    f = probe.facts(root)
    why = f.why_not("openvino", "dnn_classify")
    if refused:
        assert why == ("8.1.2's DNN filters run with async 0 (ff_dnn_init_child_class() in "
                       "libavfilter/dnn/dnn_interface.c does not apply the async option's "
                       "default of 1) and its OpenVINO backend does not run "
                       "DFT_ANALYTICS_CLASSIFY with async 0 (dnn_backend_openvino.c)")
        assert any(line.startswith("DNN options: ") for line in f.describe())
    else:
        assert why is None


def _tree_519(root: Path, flush_in_interface: bool = True) -> Path:
    """8.1.2's synthetic tree laid out as 5.1 lays it: a DNNModule with no .type, filled
    by ff_get_dnn_module(), and filters with their own dnn_backend option."""
    root = _tree(root, onnx=False)
    files = {
        "libavfilter/dnn_interface.h": ENUM_519 + "typedef struct DNNModule{\n"
            "    int (*flush)(const DNNModel *model);\n} DNNModule;\n",
        "libavfilter/dnn/dnn_interface.c": INTERFACE_519 if flush_in_interface else "",
        "libavfilter/dnn/dnn_backend_tf.c":
            "switch (m->func_type) { case DFT_PROCESS_FRAME: case DFT_ANALYTICS_DETECT: }\n"
            "int ff_dnn_flush_tf(const DNNModel *model)\n{\n    return 0;\n}\n",
        "libavfilter/vf_dnn_detect.c":
            "ret = ff_dnn_init(&ctx->dnnctx, DFT_ANALYTICS_DETECT, context);\n"
            '{ "dnn_backend", "DNN backend", OFFSET(backend_type), AV_OPT_TYPE_INT, '
            '{ .i64 = 2 }, INT_MIN, INT_MAX, FLAGS, "backend" },\n'
            '{ "tensorflow", "tensorflow backend flag", 0, AV_OPT_TYPE_CONST, { .i64 = 1 }, '
            '0, 0, FLAGS, "backend" },\n'
            'const AVFilter ff_vf_dnn_detect = {\n    .name = "dnn_detect",\n'
            '    .activate = a,\n};\n',
    }
    for name, text in files.items():
        (root / name).write_text(text)
    probe.facts.cache_clear()
    return root


def test_a_backend_module_without_type_is_told_by_its_flush(tmp_path):
    """5.1's DNNModule has no .type: the stand-in tells the backend by the flush
    ff_get_dnn_module() gives the module, which the backend's own source defines."""
    f = probe.facts(_tree_519(tmp_path))
    assert f.flags["FFDNN_HAS_DNNMODULE_TYPE"] == 0
    assert f.backends["tf"].type == "DNN_TF" and f.backends["tf"].flush == "ff_dnn_flush_tf"
    assert f.module_flushes == {"DNN_TF": "ff_dnn_flush_tf"}
    assert f.filters["dnn_detect"].accepts == ("DNN_TF",)
    assert f.why_not("tf", "dnn_detect") is None
    assert ("FFDNN_FLUSH_DNN_TF", "ff_dnn_flush_tf") in ffi_build._has_flags(tmp_path)


def test_a_tree_with_module_type_passes_no_flush(tmp_path):
    f = probe.facts(_tree(tmp_path, onnx=True))
    (tmp_path / "libavfilter/dnn_interface.h").write_text(ENUM_902 + MODULE_7)
    (tmp_path / "libavfilter/dnn/dnn_interface.c").write_text(INTERFACE_519)
    probe.facts.cache_clear()
    f = probe.facts(tmp_path)
    assert f.flags["FFDNN_HAS_DNNMODULE_TYPE"] == 1 and f.module_flushes == {}
    assert not [m for m, _ in ffi_build._has_flags(tmp_path) if m.startswith("FFDNN_FLUSH_")]


def test_a_backend_module_without_type_or_flush(tmp_path):
    """No .type and no flush in ff_get_dnn_module(): the stand-in cannot tell the backend."""
    f = probe.facts(_tree_519(tmp_path, flush_in_interface=False))
    assert f.why_not("tf", "dnn_detect") == (
        "8.1.2's TensorFlow backend's DNNModule (dnn_backend_tf.c) sets no .type and "
        "ff_get_dnn_module() (libavfilter/dnn/dnn_interface.c) gives it no flush of the "
        "backend's own, by either of which the stand-in flush tells the filter's backend")
    assert ("no .type in the TensorFlow backend's DNNModule (dnn_backend_tf.c) and no flush "
            "of its in ff_get_dnn_module() (libavfilter/dnn/dnn_interface.c)") in f.absent()
    assert f.module_flushes == {}


def test_a_module_with_no_flush_says_so_and_what_else_is_missing(tmp_path):
    """4.3: no flush in DNNModule, no ff_dnn_start_inference_async(), no activate()."""
    root = _tree_519(tmp_path)
    (root / "libavfilter/dnn_interface.h").write_text(
        ENUM_519 + "typedef struct DNNModule{\n    void (*free_model)(DNNModel **model);\n"
        "} DNNModule;\n")
    (root / "libavfilter/dnn/dnn_backend_common.h").write_text("")
    text = (root / "libavfilter/vf_dnn_detect.c").read_text()
    (root / "libavfilter/vf_dnn_detect.c").write_text(text.replace(".activate = a,", ""))
    probe.facts.cache_clear()
    f = probe.facts(root)
    assert f.why_not("tf", "dnn_detect") == (
        "8.1.2's dnn_detect has no activate() to record and it has no "
        "ff_dnn_start_inference_async(void *, DNNAsyncExecModule *) "
        "(libavfilter/dnn/dnn_backend_common.h), which the stand-in flush calls and it has "
        "no flush in DNNModule (libavfilter/dnn_interface.h), which the stand-in flush "
        "replaces (a backend with nothing pending at EOF)")


def test_graph_calls_are_the_ones_the_module_binds():
    """flags.GRAPH_CALLS names every call harness/compile/_cffi_src/avfilter.py binds."""
    import re
    from harness.compile._cffi_src import avfilter
    bound = set(re.findall(r"\b(\w+)\s*\(", avfilter.FUNCTIONS)) - {"av_strdup"}
    assert bound == {c for calls in flags.GRAPH_CALLS.values() for c in calls}


def test_a_graph_call_the_tree_lacks(tmp_path):
    graph = {**GRAPH_H, "libavfilter/buffersrc.h": (
        "int av_buffersrc_add_frame_flags(AVFilterContext *s, AVFrame *f, int flags);\n"
        "/* av_buffersrc_close(ctx, pts, flags) is gone */\n")}
    f = probe.facts(_tree(tmp_path, onnx=False, graph=graph))
    assert f.flags["FFDNN_HAS_GRAPH_SETUP"] == 0
    assert f.graph["av_buffersrc_close"] == "" and f.graph["avfilter_graph_alloc"]
    assert f.why_not("tf", "dnn_detect") == (
        "8.1.2 has no av_buffersrc_close() (libavfilter/buffersrc.h), which the graph "
        "set-up calls")
    assert "graph set-up: 11 of 12 calls the module binds declared (libavfilter/avfilter.h, " \
           "libavfilter/buffersrc.h, libavfilter/buffersink.h)" in f.describe()


def test_conditional_names_leave_lib():
    lib = types.SimpleNamespace(HAS_DNN_ONNX=0, DNN_ONNX=0, HAS_DNN_TF=1, DNN_TF=1, f=len)
    names = declarations.conditional_names()
    assert names["HAS_DNN_ONNX"] == ("DNN_ONNX",)
    out = declarations.conditional_lib(lib, {k: names[k] for k in ("HAS_DNN_ONNX", "HAS_DNN_TF")})
    assert not hasattr(out, "DNN_ONNX")
    assert out.DNN_TF == 1 and out.f is len and out.HAS_DNN_ONNX == 0


def test_releases_are_pinned():
    base = pr24760.CASE.layout.release  # the case names the release its series was adapted to
    r90 = releases.get(base)
    assert (base, r90.size, r90.sha256[:12]) == ("9.0.2", 12040788, "8c3850283eb2")
    r = releases.get("8.1.2")
    assert (r.size, r.sha256[:12]) == (11710924, "464beb5e7bf0")
    r71 = releases.get("7.1.5")
    assert (r71.size, r71.sha256[:12]) == (11050340, "de668509caf9")
    assert r71.debian_spec == "ffmpeg=7:7.1.5-0+deb13u1"
    assert r71.debian_name == "ffmpeg_7.1.5.orig.tar.xz"
    r51 = releases.get("5.1.9")
    assert (r51.size, r51.sha256[:12]) == (10034840, "d9b593bb2ba9")
    assert (r51.debian_spec, r51.debian_suite) == ("ffmpeg=7:5.1.9-0+deb12u1", "bookworm")
    assert (r71.debian_suite, r.debian_suite) == ("sid", "sid")
    v = releases.versions()  # oldest first
    assert v == sorted(v, key=lambda x: tuple(map(int, x.split(".")))) and {"5.1.9", "7.1.5"} <= set(v)
    assert releases.strict(r90, base) and not releases.strict(r, base)
    with pytest.raises(releases.SourceError, match="unknown FFmpeg release '7.0'"):
        releases.get("7.0")


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                   check=True, capture_output=True)


def test_a_patch_left_out_says_why(tmp_path):
    """git am -3 of a patch for a file the tree lacks, and of one whose hunk differs."""
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)
    (repo / "lib/a.c").write_text("one\ntwo\nthree\n")
    (repo / "lib/gone.c").write_text("x\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    (repo / "lib/gone.c").write_text("y\n")
    (repo / "lib/a.c").write_text("one\nTWO\nthree\n")
    _git(repo, "commit", "-qam", "change")
    _git(repo, "format-patch", "-q", "-1", "-o", str(tmp_path / "p"))
    patch = next((tmp_path / "p").glob("*.patch"))
    fresh = tmp_path / "fresh"
    (fresh / "lib").mkdir(parents=True)
    (fresh / "lib/a.c").write_text("one\n2\nthree\n")
    build.git(fresh, "init", "-q")
    build.git(fresh, "add", "-A")
    build.git(fresh, "commit", "-qm", "other release")
    why = build._try_patch("t", fresh, patch)
    assert why.startswith("no lib/gone.c in this tree; hunks do not match at lib/a.c:1")
    assert build.git(fresh, "status", "--porcelain").stdout == ""  # left as it was,
    assert not (fresh / ".git/rebase-apply").exists()  # with no git am in progress


def _stamp_tree(name, series, skipped):
    return Tree(name, Path("/nonexistent"), {"source": {"kind": "release", "version": "8.1.2"},
                                             "series": series, "skipped": skipped})


def test_series_notes_say_what_the_pair_can_show():
    before = _stamp_tree("before", ["0001-a.patch", "0005-b.patch", "0007-c.patch"],
                         [["0002-x.patch", "no f.c in this tree"]])
    after = _stamp_tree("after", before.stamp["series"] + ["0009-d.patch"],
                        before.stamp["skipped"])
    notes = series.notes([before, after], pr24760.TABLE_NEEDS)
    assert notes[0] == ("before = FFmpeg 8.1.2 + patches 1, 5, 7 (git am -3); "
                        "left out: 2 (no f.c in this tree)")
    assert notes[1] == "after = FFmpeg 8.1.2 + patches 1, 5, 7, 9 (git am -3); left out: the same"
    assert notes[2].startswith("the case's tables can be shown on these trees")
    no7 = _stamp_tree("before", ["0001-a.patch"], before.stamp["skipped"])
    assert series.notes([no7, after], pr24760.TABLE_NEEDS)[-1].endswith("before lacks commit 7")
    assert len(series.notes([no7, after], {})) == 2  # a case with no tables: patches only
    whole = [_stamp_tree("before", ["0001-a.patch"], []), _stamp_tree("after", [], [])]
    assert series.notes(whole, pr24760.TABLE_NEEDS) == []  # the series' own release: nothing to say


def test_an_unknown_release_is_one_error_line(capsys):
    from harness import cli
    assert cli.main(["probe", "--release", "7.1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: unknown FFmpeg release '7.1' (supported: {', '.join(releases.versions())}, "
                   "or a Debian suite's: debian:bookworm, debian:trixie, debian:sid; each is "
                   "pinned by sha256 in harness/obtain/releases.py)"]
    assert cli.main(["probe", "--release", "debian:buster"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: unknown Debian suite 'buster' in --release debian:buster (supported: "
                   "debian:bookworm, debian:trixie, debian:sid; each pinned in "
                   "harness/obtain/releases.py)"]


