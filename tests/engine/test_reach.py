"""What a change touches, read from the trees' sources (harness.judge.touched.placed), and
which graphs can run it, read from their Makefiles (harness.judge.reach): what `diff
--focus` runs."""

import pytest

from harness.judge import reach
from harness.judge.touched import parse, placed

pytestmark = pytest.mark.unit

OLD = """\
#include "x.h"
typedef struct Item {
    int a;
} Item;

static int f(int x)
{
    return x;
}

/* g: the caller */
static int g(Item *it,
             int y)
{
    return f(it->a) + y;
}
"""
# one line of f's body, a comment between the two functions, g's second parameter line
NEW = OLD.replace("return x;", "return x + 1;").replace("/* g: the caller */",
                                                         "/* g: what calls f */")
NEW = NEW.replace("             int y)", "             long y)")


def _diff(path, old, new):
    """git diff -U0 of one file, by hand: each changed line its own hunk."""
    out = [f"diff --git a/{path} b/{path}", f"--- a/{path}", f"+++ b/{path}"]
    for n, (a, b) in enumerate(zip(old.splitlines(), new.splitlines()), 1):
        if a != b:
            out += [f"@@ -{n} +{n} @@", f"-{a}", f"+{b}"]
    return "\n".join(out) + "\n"


def _trees(tmp_path, path, old, new):
    for name, text in (("a", old), ("b", new)):
        (tmp_path / name / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name / path).write_text(text)
    return placed(parse(_diff(path, old, new)), tmp_path / "a", tmp_path / "b")


def test_the_functions_a_change_is_in(tmp_path):
    """Each changed line names the function it is in, a signature's line included; a
    comment between functions changes nothing; a stack through the file elsewhere is not
    through the change."""
    t = _trees(tmp_path, "lib/x.c", OLD, NEW)
    assert set(t.functions) == {("x.c", "f"), ("x.c", "g")}
    assert t.loose == frozenset()
    assert t.mark("f (x.c:8) < h (y.c:3)") == "function"
    assert t.mark("other (x.c:40)") == ""
    # a copy the compiler made of it (constant propagation, a split-off cold part)
    assert t.mark("g.constprop.0 (x.c:15) < h (y.c:3)") == "function"
    assert t.mark("f.part.0 (x.c:8)") == "function"


def test_a_declaration_marks_the_file(tmp_path):
    """A changed struct member is in no function: every stack through the file is marked
    'file'; a header of declarations only is on no stack, so marks none."""
    t = _trees(tmp_path, "lib/x.c", OLD, OLD.replace("    int a;", "    long a;"))
    assert set(t.functions) == set() and t.loose == {"x.c"}
    assert t.mark("other (x.c:40)") == "file"
    h = _trees(tmp_path, "lib/x.h", "typedef struct T {\n    int a;\n} T;\n",
               "typedef struct T {\n    int a, b;\n} T;\n")
    assert set(h.functions) == set() and h.loose == frozenset()
    assert h.code_paths() == {}


def test_without_the_sources_every_touched_file_marks():
    """parse() alone (no tree to read) keeps the old rule: a stack through any file the
    change touches is marked 'file'."""
    t = parse(_diff("lib/x.c", OLD, NEW))
    assert t.loose is None
    assert t.mark("other (x.c:40)") == "file"


MAKEFILE = """\
include $(SRC_PATH)/libavfilter/dnn/Makefile
OBJS-$(CONFIG_DNN)                  += dnn_filter_common.o
OBJS-$(CONFIG_DNN_DETECT_FILTER)    += vf_dnn_detect.o
OBJS-$(CONFIG_DNN_PROCESSING_FILTER) += vf_dnn_processing.o \\
                                        vf_shared.o
"""
DNN_MAKEFILE = """\
OBJS-$(CONFIG_DNN)                           += dnn/dnn_backend_common.o
DNN-OBJS-$(CONFIG_LIBTENSORFLOW)             += dnn/dnn_backend_tf.o
DNN-OBJS-$(CONFIG_LIBONNXRUNTIME)            += dnn/dnn_backend_onnx.o
OBJS-$(CONFIG_DNN)                           += $(DNN-OBJS-yes)
"""
TF_DETECT = "format=rgb24,dnn_detect=dnn_backend=tensorflow:model=m:input=x"
ONNX = "format=rgb24,dnn_processing=dnn_backend=onnx:model=m:input=x:output=y"
CLASSIFY = ("format=rgb24,dnn_detect=dnn_backend=tensorflow:model=d,"
            "dnn_classify=dnn_backend=openvino:model=c")


@pytest.mark.parametrize("path, graphs", [
    # a backend's object: the graphs with a filter on that backend
    ("libavfilter/dnn/dnn_backend_tf.c", [True, False, True]),
    # a filter's object: the graphs with that filter
    ("libavfilter/vf_dnn_processing.c", [False, True, False]),
    ("libavfilter/vf_shared.c", [False, True, False]),  # a continued line's object
    # the DNN core's objects, and a file no Makefile names: any graph
    ("libavfilter/dnn/dnn_backend_common.c", [True, True, True]),
    ("libavutil/mem.c", [True, True, True]),
])
def test_which_graphs_can_run_a_file(tmp_path, path, graphs):
    (tmp_path / "libavfilter/dnn").mkdir(parents=True)
    (tmp_path / "libavfilter/Makefile").write_text(MAKEFILE)
    (tmp_path / "libavfilter/dnn/Makefile").write_text(DNN_MAKEFILE)
    t = parse(f"diff --git a/{path} b/{path}\n@@ -5 +5 @@ static int f(void)\n-a\n+b\n")
    assert reach.can_run([TF_DETECT, ONNX, CLASSIFY], t, [tmp_path]) == graphs


def test_a_graph_needs_its_filters_and_backends():
    assert reach.graph_configs(CLASSIFY) == {
        "CONFIG_FORMAT_FILTER", "CONFIG_DNN_DETECT_FILTER", "CONFIG_DNN_CLASSIFY_FILTER",
        "CONFIG_LIBTENSORFLOW", "CONFIG_LIBOPENVINO"}


# follow-up 0001 changes one function of TensorFlow's backend (and a header of
# declarations): the graphs that run a filter on TensorFlow, OpenVINO's dnn_classify among
# them (its boxes come from dnn_detect on TensorFlow)
CAN_RUN_0001 = {("tf", "dnn_processing"), ("tf", "dnn_detect"), ("openvino", "dnn_classify")}


@pytest.mark.trees
def test_the_groups_a_backend_change_can_run_in(tree, tmp_path):
    """On a built tree's own Makefiles and the scenarios' own graphs (nothing run): a
    change to one backend's function keeps only the groups whose graphs run that backend,
    on every route and family."""
    from harness.experiments.diff import plan_groups, reachable
    from harness.judge.diff import Side
    from harness.obtain.backends import BACKENDS
    from harness.paths import PATCHES
    after = tree("after")
    (patch,) = (PATCHES / "followups").glob("0001-*.patch")
    t = placed(parse(patch.read_text()), after.src, tmp_path)  # its removed lines, in after
    assert t.functions == {("dnn_backend_tf.c", "execute_model_tf")}, t.functions
    pairs = [(b, f) for b in sorted(after.backends) if b in BACKENDS
             for f in BACKENDS[b].all_graphs()]
    from harness.compile.families import sweep_fault
    groups = plan_groups(pairs, [sweep_fault("malloc"), sweep_fault("pthread_create")],
                         ("sweep", "setup"))
    kept = reachable([Side("a", after), Side("b", after)], groups, t)
    assert {(g.backend, g.filter) for g in kept} == CAN_RUN_0001 & set(pairs)
    assert len(kept) == 4 * len(CAN_RUN_0001 & set(pairs))  # 2 routes x 2 families each
