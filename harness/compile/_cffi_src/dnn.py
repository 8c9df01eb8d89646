"""libavfilter/dnn: the DnnContext every DNN filter keeps, its backend module, and
the common async helper the series changes. Internal headers of the build's own tree.

What a tree may lack is a HAS_* flag set from the probe (harness/obtain/probe.py
passes FFDNN_HAS_* to the compiler); a name that is absent on the tree is given a
placeholder in C and removed from `lib` (CONDITIONAL_NAMES), as pyca/cryptography does.
The C is dnn.c; only the lines for each DNNBackendType value the probe looks for
(probe.BACKEND_TYPES) are written here."""

from pathlib import Path

from harness.obtain.probe import BACKEND_TYPES

INCLUDES = """
#include "config.h"
#include "libavfilter/dnn_interface.h"
#include "libavfilter/dnn/dnn_backend_common.h"
"""

TYPES = """
typedef int... DNNBackendType;
""" + "".join(f"static const int {t};\n" for t in BACKEND_TYPES) + """typedef ... DNNModel;

typedef struct DNNModule {
    DNNBackendType type;
    int (*flush)(const DNNModel *model);
    ...;
} DNNModule;

typedef struct DnnContext {
    DNNModel *model;
    DNNBackendType backend_type;
    int async;
    const DNNModule *dnn_module;
    ...;
} DnnContext;

/* Trees differ: 1 where the series' helpers exist (before and after), else 0. */
static const int HAS_COMPLETE_LLTASK;
static const int HAS_GET_RESULT_STATUS;
static const int HAS_PTHREAD_CANCEL;
/* 1 where the tree's DNNBackendType has the value (8.1.2 has no DNN_ONNX). */
""" + "".join(f"static const int HAS_{t};\n" for t in BACKEND_TYPES)

FUNCTIONS = """
/* The DnnContext inside a DNN filter's priv (NULL if ctx is not a DNN filter). */
DnnContext *ffdnn_dnn_context(AVFilterContext *ctx);
"""

CONDITIONAL_NAMES = {f"HAS_{t}": (t,) for t in BACKEND_TYPES}

# HAS_<value> from the probe's FFDNN_HAS_<value>, and a placeholder for a value the
# tree's DNNBackendType lacks (removed from lib by CONDITIONAL_NAMES)
CUSTOMIZATIONS = "".join(f"""
static const int HAS_{t} = FFDNN_HAS_{t};
#if !FFDNN_HAS_{t}
#define {t} 0
#endif""" for t in BACKEND_TYPES) + "\n" + Path(__file__).with_name("dnn.c").read_text()
