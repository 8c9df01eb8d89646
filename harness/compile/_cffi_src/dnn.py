"""libavfilter/dnn: the DnnContext every DNN filter keeps, its backend module, and
the common async helper the series changes. Internal headers of the build's own tree.

What a tree may lack is a HAS_* flag set from the probe (harness/obtain/probe.py
passes FFDNN_HAS_* to the compiler); a name that is absent on the tree is given a
placeholder in C and removed from `lib` (CONDITIONAL_NAMES), as pyca/cryptography does.
The C is dnn.c; only the lines for each DNNBackendType value the probe looks for
(flags.BACKEND_TYPES, harness/obtain/flags.py) are written here."""

from pathlib import Path

from harness.obtain.flags import BACKEND_TYPES

INCLUDES = """
#include "config.h"
#include "libavfilter/dnn_interface.h"
#include "libavfilter/dnn_filter_common.h"
#include "libavfilter/dnn/dnn_backend_common.h"
"""

# DnnContext and DNNModule are only the C's (dnn.c, standin.c): the trees lay them out
# differently (5.1's DnnContext is dnn_filter_common.h's, its DNNModule has no .type)
TYPES = """
typedef int... DNNBackendType;
""" + "".join(f"static const int {t};\n" for t in BACKEND_TYPES) + """typedef ... DNNModel;
typedef ... DNNModule;
typedef ... DnnContext;

/* Trees differ: 1 where the series' helpers exist (before and after), else 0. */
static const int HAS_COMPLETE_LLTASK;
static const int HAS_GET_RESULT_STATUS;
static const int HAS_PTHREAD_CANCEL;
static const int HAS_DNNMODULE_TYPE;
/* 1 where the tree's DNNBackendType has the value (8.1.2 has no DNN_ONNX). */
""" + "".join(f"static const int HAS_{t};\n" for t in BACKEND_TYPES)

FUNCTIONS = """
/* The DnnContext inside a DNN filter's priv (NULL if ctx is not a DNN filter). */
DnnContext *ffdnn_dnn_context(AVFilterContext *ctx);
/* Which DNNBackendType a module is (-1: none the tree lets the harness tell). */
int ffdnn_module_backend(const DNNModule *module);
"""

CONDITIONAL_NAMES = {f"HAS_{t}": (t,) for t in BACKEND_TYPES}

# HAS_<value> from the probe's FFDNN_HAS_<value>, and a placeholder for a value the
# tree's DNNBackendType lacks (removed from lib by CONDITIONAL_NAMES); where the probe
# named the flush ff_get_dnn_module() gives a backend's module (FFDNN_FLUSH_<value>, on a
# tree whose DNNModule has no .type), that flush, which tells the module's backend
CUSTOMIZATIONS = "".join(f"""
static const int HAS_{t} = FFDNN_HAS_{t};
#if !FFDNN_HAS_{t}
#define {t} 0
#endif
#ifdef FFDNN_FLUSH_{t}
int FFDNN_FLUSH_{t}(const DNNModel *model);
#endif""" for t in BACKEND_TYPES) + "\n" + Path(__file__).with_name("dnn.c").read_text() + \
    """
int ffdnn_module_backend(const DNNModule *module)
{
#if FFDNN_HAS_DNNMODULE_TYPE
    return module->type;
#else""" + "".join(f"""
#ifdef FFDNN_FLUSH_{t}
    if (module->flush == FFDNN_FLUSH_{t})
        return {t};
#endif""" for t in BACKEND_TYPES) + """
    return -1;
#endif
}
"""
