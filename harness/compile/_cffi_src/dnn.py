"""libavfilter/dnn: the DnnContext every DNN filter keeps, its backend module, and
the common async helper the series changes. Internal headers of the build's own tree."""

INCLUDES = """
#include "config.h"
#include "libavfilter/dnn_interface.h"
#include "libavfilter/dnn/dnn_backend_common.h"
"""

TYPES = """
typedef enum { DNN_TF, DNN_OV, DNN_TH, DNN_ONNX, ... } DNNBackendType;
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
"""

FUNCTIONS = """
/* The DnnContext inside a DNN filter's priv (NULL if ctx is not a DNN filter). */
DnnContext *ffdnn_dnn_context(AVFilterContext *ctx);
"""

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
