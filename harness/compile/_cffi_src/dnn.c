/*
 * libavfilter/dnn's side of the per-tree module (dnn.py declares it): what differs
 * between trees, as HAS_* flags from the probe, and the DnnContext inside a DNN filter.
 * The flags and placeholders of DNNBackendType's values are written by dnn.py, one a
 * value, and so is ffdnn_module_backend() (which backend a DNNModule is: its .type,
 * or on a tree whose DNNModule has none, the backend whose flush it holds).
 */
#ifndef FFDNN_HAS_COMPLETE_LLTASK
#define FFDNN_HAS_COMPLETE_LLTASK 0
#endif
#ifndef FFDNN_HAS_GET_RESULT_STATUS
#define FFDNN_HAS_GET_RESULT_STATUS 0
#endif
static const int HAS_COMPLETE_LLTASK = FFDNN_HAS_COMPLETE_LLTASK;
static const int HAS_GET_RESULT_STATUS = FFDNN_HAS_GET_RESULT_STATUS;
#ifndef FFDNN_HAS_DNNMODULE_TYPE
#define FFDNN_HAS_DNNMODULE_TYPE 0
#endif
static const int HAS_PTHREAD_CANCEL = HAVE_PTHREAD_CANCEL;
static const int HAS_DNNMODULE_TYPE = FFDNN_HAS_DNNMODULE_TYPE;

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
