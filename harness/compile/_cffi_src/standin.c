/*
 * The route stand-ins (standin.py declares them), compiled into every per-tree module.
 */
#define FFDNN_FLUSH_COUNT  0
#define FFDNN_FLUSH_ASYNC  1
#define FFDNN_FLUSH_RETURN 2
#ifndef FFDNN_HAS_START_INFERENCE_ASYNC
#define FFDNN_HAS_START_INFERENCE_ASYNC 0
#endif
#ifndef FFDNN_HAS_DNNCONTEXT_CLASS
#define FFDNN_HAS_DNNCONTEXT_CLASS 0
#endif
static const int HAS_START_INFERENCE_ASYNC = FFDNN_HAS_START_INFERENCE_ASYNC;

static struct {
    DNNModule *module;
    const DNNModule *orig;
    DnnContext *dnnctx;
    void *log_ctx;  /* what ff_dnn_start_inference_async() logs with: an AVClass first */
#if FFDNN_HAS_START_INFERENCE_ASYNC
    DNNAsyncExecModule async;
#endif
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
#if FFDNN_HAS_START_INFERENCE_ASYNC
        ret = ff_dnn_start_inference_async(standin.log_ctx, &standin.async);
        standin.started |= ret == 0;
        return ret;
#else
        return AVERROR(ENOSYS);
#endif
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
    /* the module is the filter's backend's (dnn.py: its .type, or its flush where the
     * tree's DNNModule has no .type); where the filter owns its module (5.1's
     * ff_dnn_uninit() frees it), it frees this copy and the original is not freed */
    if (ffdnn_module_backend(dnnctx->dnn_module) != dnnctx->backend_type)
        return AVERROR_BUG;
    if (standin.orig)
        return AVERROR(EBUSY);
    standin.module = av_memdup(dnnctx->dnn_module, sizeof(*standin.module));
    if (!standin.module)
        return AVERROR(ENOMEM);
    standin.orig   = dnnctx->dnn_module;
    standin.module->flush = standin_flush;
    standin.dnnctx = dnnctx;
#if FFDNN_HAS_DNNCONTEXT_CLASS
    standin.log_ctx = dnnctx;
#else
    standin.log_ctx = ctx;  /* 5.1's DnnContext starts with no AVClass: the filter's */
#endif
    standin.mode   = mode;
    standin.value  = value;
#if FFDNN_HAS_START_INFERENCE_ASYNC
    standin.async.start_inference = standin_start_inference;
    standin.async.callback        = standin_callback;
    standin.async.args            = NULL;
#else
    (void)standin_start_inference;
    (void)standin_callback;
#endif
    dnnctx->dnn_module = standin.module;
    return 0;
}

int ffdnn_flush_calls(void)
{
    return atomic_load(&ffdnn_flushes);
}

int ffdnn_standin_join(void)
{
#if HAVE_PTHREAD_CANCEL && FFDNN_HAS_START_INFERENCE_ASYNC
    if (standin.started) {
        standin.started = 0;
        return pthread_join(standin.async.thread_id, NULL);
    }
#endif
    return 0;
}
