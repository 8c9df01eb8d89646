/*
 * The activate() recorder (recorder.py declares it), compiled into every per-tree module.
 *
 * A filter's activate() is a member of FFFilter (libavfilter/filters.h) in trees that
 * have one and of the public AVFilter (libavfilter/avfilter.h) in older ones; the probe
 * says which (FFDNN_HAS_FFFILTER, FFDNN_HAS_AVFILTER_ACTIVATE) and the recorder copies
 * that struct: RecordedFilter, the struct; recorded_of(), the struct a context's
 * filter is; public_of(), the AVFilter a context points at. Beside it,
 * ffdnn_activate_again() marks a filter to be activated (FFDNN_HAS_CONTEXT_READY).
 */
#define FFDNN_MAX_RECORDS 1024
#ifndef FFDNN_HAS_FFFILTER
#define FFDNN_HAS_FFFILTER 0
#endif
#ifndef FFDNN_HAS_AVFILTER_ACTIVATE
#define FFDNN_HAS_AVFILTER_ACTIVATE 0
#endif
#ifndef FFDNN_HAS_CONTEXT_READY
#define FFDNN_HAS_CONTEXT_READY 0
#endif
static const int HAS_FFFILTER = FFDNN_HAS_FFFILTER;
static const int HAS_AVFILTER_ACTIVATE = FFDNN_HAS_AVFILTER_ACTIVATE;
static const int HAS_CONTEXT_READY = FFDNN_HAS_CONTEXT_READY;

static atomic_int ffdnn_flushes;

#if FFDNN_HAS_FFFILTER
typedef FFFilter RecordedFilter;
#define recorded_of(filter) fffilter(filter)
#define public_of(copy)     (&(copy)->p)
#elif FFDNN_HAS_AVFILTER_ACTIVATE
typedef AVFilter RecordedFilter;
#define recorded_of(filter) (filter)
#define public_of(copy)     (copy)
#endif

static struct {
#if FFDNN_HAS_FFFILTER || FFDNN_HAS_AVFILTER_ACTIVATE
    const RecordedFilter *orig;
    RecordedFilter *copy;
#endif
    int returns[FFDNN_MAX_RECORDS];
    int flushed[FFDNN_MAX_RECORDS];
    atomic_int count;
} recorder;

#if FFDNN_HAS_FFFILTER || FFDNN_HAS_AVFILTER_ACTIVATE
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
    const RecordedFilter *orig = recorded_of(ctx->filter);

    if (recorder.orig)
        return AVERROR(EBUSY);
    if (!orig->activate)
        return AVERROR(ENOSYS);
    recorder.copy = av_memdup(orig, sizeof(*orig));
    if (!recorder.copy)
        return AVERROR(ENOMEM);
    recorder.orig = orig;
    recorder.copy->activate = recording_activate;
    ctx->filter = public_of(recorder.copy);
    return 0;
}
#else
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

/* Mark a filter to be activated, as the graph marks one a frame or a request reaches:
 * the next pull runs its activate(). Only where AVFilterContext.ready is public (before
 * FFmpeg 8); AVERROR(ENOSYS) elsewhere. */
int ffdnn_activate_again(AVFilterContext *ctx)
{
#if FFDNN_HAS_CONTEXT_READY
    if (!ctx->ready)
        ctx->ready = 100;
    return 0;
#else
    return AVERROR(ENOSYS);
#endif
}
