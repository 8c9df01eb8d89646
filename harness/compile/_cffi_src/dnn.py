"""libavfilter/dnn: the DnnContext every DNN filter keeps, its backend module, and
the common async helper the series changes. Internal headers of the build's own tree.

What a tree may lack is a HAS_* flag set from the probe (harness/obtain/probe.py
passes FFDNN_HAS_* to the compiler); a name that is absent on the tree is given a
placeholder in C and removed from `lib` (CONDITIONAL_NAMES), as pyca/cryptography does."""

INCLUDES = """
#include "config.h"
#include "libavfilter/dnn_interface.h"
#include "libavfilter/dnn/dnn_backend_common.h"
"""

TYPES = """
typedef int... DNNBackendType;
static const int DNN_TF;
static const int DNN_OV;
static const int DNN_TH;
static const int DNN_ONNX;
typedef ... DNNModel;

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
static const int HAS_DNN_TF;
static const int HAS_DNN_OV;
static const int HAS_DNN_TH;
static const int HAS_DNN_ONNX;
"""

FUNCTIONS = """
/* The DnnContext inside a DNN filter's priv (NULL if ctx is not a DNN filter). */
DnnContext *ffdnn_dnn_context(AVFilterContext *ctx);
"""

CONDITIONAL_NAMES = {
    "HAS_DNN_TF": ("DNN_TF",),
    "HAS_DNN_OV": ("DNN_OV",),
    "HAS_DNN_TH": ("DNN_TH",),
    "HAS_DNN_ONNX": ("DNN_ONNX",),
}

CUSTOMIZATIONS = """
#ifndef FFDNN_HAS_COMPLETE_LLTASK
#define FFDNN_HAS_COMPLETE_LLTASK 0
#endif
#ifndef FFDNN_HAS_GET_RESULT_STATUS
#define FFDNN_HAS_GET_RESULT_STATUS 0
#endif
static const int HAS_COMPLETE_LLTASK = FFDNN_HAS_COMPLETE_LLTASK;
static const int HAS_GET_RESULT_STATUS = FFDNN_HAS_GET_RESULT_STATUS;
static const int HAS_PTHREAD_CANCEL = HAVE_PTHREAD_CANCEL;
static const int HAS_DNN_TF = FFDNN_HAS_DNN_TF;
static const int HAS_DNN_OV = FFDNN_HAS_DNN_OV;
static const int HAS_DNN_TH = FFDNN_HAS_DNN_TH;
static const int HAS_DNN_ONNX = FFDNN_HAS_DNN_ONNX;
/* placeholders for the values a tree's DNNBackendType lacks (removed from lib) */
#if !FFDNN_HAS_DNN_TF
#define DNN_TF 0
#endif
#if !FFDNN_HAS_DNN_OV
#define DNN_OV 0
#endif
#if !FFDNN_HAS_DNN_TH
#define DNN_TH 0
#endif
#if !FFDNN_HAS_DNN_ONNX
#define DNN_ONNX 0
#endif

/* Every DNN filter's private context starts like this. */
typedef struct FFDNNFilterPriv {
    const AVClass *class;
    DnnContext dnnctx;
} FFDNNFilterPriv;

DnnContext *ffdnn_dnn_context(AVFilterContext *ctx)
{
    static const char *const dnn_filters[] = {
        "dnn_processing", "dnn_detect", "dnn_classify", NULL
    };
    for (int i = 0; dnn_filters[i]; i++)
        if (!strcmp(ctx->filter->name, dnn_filters[i]))
            return &((FFDNNFilterPriv *)ctx->priv)->dnnctx;
    return NULL;
}
"""
