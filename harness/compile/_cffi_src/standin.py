"""Route stand-ins: the filter's backend module copied with `flush` replaced.

FFDNN_FLUSH_COUNT calls the backend's own flush (counted), FFDNN_FLUSH_ASYNC does
what 9.0.2's dnn_flush_th() -> execute_model_th() would do for a partial batch:
return ff_dnn_start_inference_async()'s result; FFDNN_FLUSH_RETURN returns a
fixed value (the AVERROR(EAGAIN) row)."""

INCLUDES = ""

TYPES = """
#define FFDNN_FLUSH_COUNT ...
#define FFDNN_FLUSH_ASYNC ...
#define FFDNN_FLUSH_RETURN ...
"""

FUNCTIONS = """
int ffdnn_standin_flush(AVFilterContext *ctx, int mode, int value);
int ffdnn_flush_calls(void);
int ffdnn_standin_join(void);
"""

CUSTOMIZATIONS = """
#define FFDNN_FLUSH_COUNT  0
#define FFDNN_FLUSH_ASYNC  1
#define FFDNN_FLUSH_RETURN 2

static struct {
    DNNModule *module;
    const DNNModule *orig;
    DnnContext *dnnctx;
    DNNAsyncExecModule async;
    int started;
    int mode;
    int value;
} standin;

static int standin_start_inference(void *request)
{
    return 0;
}

static void standin_callback(void *args)
{
}

static int standin_flush(const DNNModel *model)
{
    int ret;

    atomic_fetch_add(&ffdnn_flushes, 1);
    switch (standin.mode) {
    case FFDNN_FLUSH_ASYNC:
        ret = ff_dnn_start_inference_async(standin.dnnctx, &standin.async);
        standin.started |= ret == 0;
        return ret;
    case FFDNN_FLUSH_RETURN:
        return standin.value;
    default:
        return standin.orig->flush(model);
    }
}

int ffdnn_standin_flush(AVFilterContext *ctx, int mode, int value)
{
    DnnContext *dnnctx = ffdnn_dnn_context(ctx);

    if (!dnnctx || !dnnctx->dnn_module || !dnnctx->model)
        return AVERROR(EINVAL);
    if (dnnctx->dnn_module->type != dnnctx->backend_type)
        return AVERROR_BUG;
    if (standin.orig)
        return AVERROR(EBUSY);
    standin.module = av_memdup(dnnctx->dnn_module, sizeof(*standin.module));
    if (!standin.module)
        return AVERROR(ENOMEM);
    standin.orig   = dnnctx->dnn_module;
    standin.module->flush = standin_flush;
    standin.dnnctx = dnnctx;
    standin.mode   = mode;
    standin.value  = value;
    standin.async.start_inference = standin_start_inference;
    standin.async.callback        = standin_callback;
    standin.async.args            = NULL;
    dnnctx->dnn_module = standin.module;
    return 0;
}

int ffdnn_flush_calls(void)
{
    return atomic_load(&ffdnn_flushes);
}

int ffdnn_standin_join(void)
{
#if HAVE_PTHREAD_CANCEL
    if (standin.started) {
        standin.started = 0;
        return pthread_join(standin.async.thread_id, NULL);
    }
#endif
    return 0;
}
"""
