/*
 * libavfilter/dnn's side of the per-tree module (dnn.py declares it): what differs
 * between trees, as HAS_* flags from the probe, and the DnnContext inside a DNN filter.
 * The flags and placeholders of DNNBackendType's values are written by dnn.py, one a
 * value.
 */
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
