/*
 * How long the filter has been waiting for a result that does not come: every
 * reference of the link to ff_dnn_get_result() goes through __wrap_ff_dnn_get_result()
 * (-Wl,--wrap=ff_dnn_get_result, harness/compile/ffi_build.py), which counts the
 * answers DAST_NOT_READY in a row. A DNN filter's flush at EOF polls it every 5 ms
 * (av_usleep()) until the last task is done: a streak that goes on while nothing can
 * complete a task is a run that will never end (the worker's watch, eofwatch.py).
 * The same for every other wait of FFmpeg's that polls with av_usleep(), as the
 * backends' wait at their freeing for every request to come back (9.0's
 * ff_dnn_wait_requests(), every 10 ms): av_usleep() is wrapped too, and its calls
 * counted.
 */
#include <stdatomic.h>

#include "libavfilter/dnn_filter_common.h"

static atomic_uint ffdnn_not_ready; /* DAST_NOT_READY answers in a row */
static atomic_uint ffdnn_answered;  /* every other answer: a result, or the queue empty */

static DNNAsyncStatusType ffdnn_polled(DNNAsyncStatusType state)
{
    if (state == DAST_NOT_READY) {
        atomic_fetch_add(&ffdnn_not_ready, 1);
    } else {
        atomic_store(&ffdnn_not_ready, 0);
        atomic_fetch_add(&ffdnn_answered, 1);
    }
    return state;
}

unsigned ffdnn_poll_answers(void)
{
    return atomic_load(&ffdnn_answered);
}

#if FFDNN_HAS_GET_RESULT_STATUS
DNNAsyncStatusType __real_ff_dnn_get_result(DnnContext *ctx, AVFrame **in_frame,
                                            AVFrame **out_frame, int *status);
DNNAsyncStatusType __wrap_ff_dnn_get_result(DnnContext *ctx, AVFrame **in_frame,
                                            AVFrame **out_frame, int *status);
DNNAsyncStatusType __wrap_ff_dnn_get_result(DnnContext *ctx, AVFrame **in_frame,
                                            AVFrame **out_frame, int *status)
{
    return ffdnn_polled(__real_ff_dnn_get_result(ctx, in_frame, out_frame, status));
}
#else
DNNAsyncStatusType __real_ff_dnn_get_result(DnnContext *ctx, AVFrame **in_frame,
                                            AVFrame **out_frame);
DNNAsyncStatusType __wrap_ff_dnn_get_result(DnnContext *ctx, AVFrame **in_frame,
                                            AVFrame **out_frame);
DNNAsyncStatusType __wrap_ff_dnn_get_result(DnnContext *ctx, AVFrame **in_frame,
                                            AVFrame **out_frame)
{
    return ffdnn_polled(__real_ff_dnn_get_result(ctx, in_frame, out_frame));
}
#endif

static atomic_uint ffdnn_slept; /* av_usleep() calls of FFmpeg's code */

int __real_av_usleep(unsigned usec);
int __wrap_av_usleep(unsigned usec);
int __wrap_av_usleep(unsigned usec)
{
    atomic_fetch_add(&ffdnn_slept, 1);
    return __real_av_usleep(usec);
}

unsigned ffdnn_sleeps(void)
{
    return atomic_load(&ffdnn_slept);
}

void ffdnn_poll_restart(void)
{
    atomic_store(&ffdnn_not_ready, 0);
}

unsigned ffdnn_poll_streak(void)
{
    return atomic_load(&ffdnn_not_ready);
}
