/*
 * The activate() recorder (recorder.py declares it), compiled into every per-tree module.
 */
#define FFDNN_MAX_RECORDS 1024
#ifndef FFDNN_HAS_FFFILTER
#define FFDNN_HAS_FFFILTER 0
#endif
static const int HAS_FFFILTER = FFDNN_HAS_FFFILTER;

static atomic_int ffdnn_flushes;

#if FFDNN_HAS_FFFILTER
static struct {
    const FFFilter *orig;
    FFFilter *copy;
    int returns[FFDNN_MAX_RECORDS];
    int flushed[FFDNN_MAX_RECORDS];
    atomic_int count;
} recorder;

static int recording_activate(AVFilterContext *ctx)
{
    int flushes = atomic_load(&ffdnn_flushes);
    int ret = recorder.orig->activate(ctx);
    int n = atomic_load(&recorder.count);

    if (n < FFDNN_MAX_RECORDS) {
        recorder.returns[n] = ret;
        recorder.flushed[n] = atomic_load(&ffdnn_flushes) != flushes;
        atomic_store(&recorder.count, n + 1);
    }
    return ret;
}

int ffdnn_record_activate(AVFilterContext *ctx)
{
    const FFFilter *orig = fffilter(ctx->filter);

    if (recorder.orig)
        return AVERROR(EBUSY);
    if (!orig->activate)
        return AVERROR(ENOSYS);
    recorder.copy = av_memdup(orig, sizeof(*orig));
    if (!recorder.copy)
        return AVERROR(ENOMEM);
    recorder.orig = orig;
    recorder.copy->activate = recording_activate;
    ctx->filter = &recorder.copy->p;
    return 0;
}
#else
static struct {
    int returns[FFDNN_MAX_RECORDS];
    int flushed[FFDNN_MAX_RECORDS];
    atomic_int count;
} recorder;

int ffdnn_record_activate(AVFilterContext *ctx)
{
    return AVERROR(ENOSYS);
}
#endif

int ffdnn_record_count(void)
{
    return atomic_load(&recorder.count);
}

int ffdnn_record_get(int i, int *ret, int *flushed)
{
    if (i < 0 || i >= atomic_load(&recorder.count))
        return AVERROR(EINVAL);
    *ret = recorder.returns[i];
    *flushed = recorder.flushed[i];
    return 0;
}
