/*
 * wrap_ff: link-time fault injection into libavfilter's DNN helpers.
 *
 * Compiled into the harness's per-build module with the tree's own headers,
 * and linked with -Wl,--wrap=<symbol> for every symbol below, so each
 * call the backends make to these helpers goes through a wrapper first.
 * A disarmed wrapper only counts the call and calls the real function.
 */
#include <pthread.h>
#include <string.h>

#include "libavfilter/dnn/dnn_backend_common.h"
#include "libavfilter/dnn/dnn_io_proc.h"

#include "fi_window.h"
#include "fi_wrap.h"

enum FIWrapSymbol {
    FI_WRAP_PROC_FROM_DNN_TO_FRAME,
    FI_WRAP_PROC_FROM_FRAME_TO_DNN,
    FI_WRAP_FRAME_TO_DNN_DETECT,
    FI_WRAP_FRAME_TO_DNN_CLASSIFY,
    FI_WRAP_START_INFERENCE_ASYNC,
    FI_WRAP_NB,
};

static const char *const fi_wrap_names[FI_WRAP_NB] = {
    [FI_WRAP_PROC_FROM_DNN_TO_FRAME] = "ff_proc_from_dnn_to_frame",
    [FI_WRAP_PROC_FROM_FRAME_TO_DNN] = "ff_proc_from_frame_to_dnn",
    [FI_WRAP_FRAME_TO_DNN_DETECT]    = "ff_frame_to_dnn_detect",
    [FI_WRAP_FRAME_TO_DNN_CLASSIFY]  = "ff_frame_to_dnn_classify",
    [FI_WRAP_START_INFERENCE_ASYNC]  = "ff_dnn_start_inference_async",
};

static pthread_mutex_t fi_wrap_lock = PTHREAD_MUTEX_INITIALIZER;
static FIWindow fi_wrap_windows[FI_WRAP_NB]; /* arm state guarded by fi_wrap_lock */

static int fi_wrap_find(const char *symbol)
{
    for (int i = 0; symbol && i < FI_WRAP_NB; i++)
        if (!strcmp(fi_wrap_names[i], symbol))
            return i;
    return -1;
}

/* One call of symbol `i`: 0 to call the real function, or the value to return. */
static int fi_wrap_take(int i)
{
    FIWindow *w = &fi_wrap_windows[i];

    atomic_fetch_add(&w->calls, 1);
    if (!atomic_load(&w->armed))
        return 0;
    return fi_window_take_locked(&fi_wrap_lock, w);
}

int fi_wrap_count(void)
{
    return FI_WRAP_NB;
}

const char *fi_wrap_symbol(int i)
{
    return i >= 0 && i < FI_WRAP_NB ? fi_wrap_names[i] : NULL;
}

/* Arm symbol `symbol`'s window to return `value`, or with `ms` a delay; every other
 * symbol's is disarmed. */
static int fi_wrap_arm_window(const char *symbol, int value, unsigned ms, unsigned skip,
                              unsigned count)
{
    int i = fi_wrap_find(symbol);

    if (i < 0 || pthread_mutex_lock(&fi_wrap_lock))
        return -1;
    for (int j = 0; j < FI_WRAP_NB; j++)
        fi_window_disarm(&fi_wrap_windows[j]);
    if (ms)
        fi_window_arm_delay(&fi_wrap_windows[i], ms, skip, count);
    else
        fi_window_arm(&fi_wrap_windows[i], value, skip, count);
    pthread_mutex_unlock(&fi_wrap_lock);
    return 0;
}

int fi_wrap_arm(const char *symbol, int value, unsigned skip, unsigned count)
{
    return value ? fi_wrap_arm_window(symbol, value, 0, skip, count) : -1;
}

int fi_wrap_arm_delay(const char *symbol, unsigned ms, unsigned skip, unsigned count)
{
    return ms ? fi_wrap_arm_window(symbol, 0, ms, skip, count) : -1;
}

void fi_wrap_disarm(void)
{
    if (pthread_mutex_lock(&fi_wrap_lock))
        return;
    for (int i = 0; i < FI_WRAP_NB; i++)
        fi_window_disarm(&fi_wrap_windows[i]);
    pthread_mutex_unlock(&fi_wrap_lock);
}

int fi_wrap_site(const char *symbol, unsigned n, void **frames, int max)
{
    int i = fi_wrap_find(symbol);

    return i < 0 ? 0 : fi_window_site_locked(&fi_wrap_lock, &fi_wrap_windows[i], n, frames, max);
}

int fi_wrap_counters(const char *symbol, unsigned long *calls,
                     unsigned long *eligible, unsigned long *failures)
{
    int i = fi_wrap_find(symbol);

    if (i < 0)
        return -1;
    *calls    = atomic_load(&fi_wrap_windows[i].calls);
    *eligible = atomic_load(&fi_wrap_windows[i].eligible);
    *failures = atomic_load(&fi_wrap_windows[i].failures);
    return 0;
}

/* The wrappers: the real prototypes from the tree's headers, one line each. */
#define FI_WRAP(id, name, params, args)                  \
    int __real_##name params;                            \
    int __wrap_##name params;                            \
    int __wrap_##name params                             \
    {                                                    \
        int value = fi_wrap_take(id);                    \
        return value ? value : __real_##name args;       \
    }

FI_WRAP(FI_WRAP_PROC_FROM_DNN_TO_FRAME, ff_proc_from_dnn_to_frame,
        (AVFrame *frame, DNNData *output, void *log_ctx), (frame, output, log_ctx))
FI_WRAP(FI_WRAP_PROC_FROM_FRAME_TO_DNN, ff_proc_from_frame_to_dnn,
        (AVFrame *frame, DNNData *input, void *log_ctx), (frame, input, log_ctx))
FI_WRAP(FI_WRAP_FRAME_TO_DNN_DETECT, ff_frame_to_dnn_detect,
        (AVFrame *frame, DNNData *input, void *log_ctx), (frame, input, log_ctx))
FI_WRAP(FI_WRAP_FRAME_TO_DNN_CLASSIFY, ff_frame_to_dnn_classify,
        (AVFrame *frame, DNNData *input, uint32_t bbox_index, void *log_ctx),
        (frame, input, bbox_index, log_ctx))
FI_WRAP(FI_WRAP_START_INFERENCE_ASYNC, ff_dnn_start_inference_async,
        (void *ctx, DNNAsyncExecModule *async_module), (ctx, async_module))
