/*
 * fi_onnxruntime_hooks: how the ONNX Runtime family reaches FFmpeg's calls. FFmpeg's
 * ONNX backend calls OrtGetApiBase()->GetApi(ORT_API_VERSION) once and every ONNX
 * Runtime function through the table it gets; the link wraps OrtGetApiBase(), and the
 * base this wrapper hands out gives, from GetApi(), a copy of the library's table with
 * the family's wrappers put in (fi_table_install(), generated from the stanza). The copy
 * is the size of the table in the headers the tree was built with: a newer library's
 * table only grows at its end.
 *
 * A failed call returns a real OrtStatus, made by the library's own CreateStatus(), that
 * the caller owns (and must release) as it would any other. It is kept as a block of the
 * caller's (fi_keep.h), as is what a call let through makes for it to release (a type
 * info, a tensor's shape info, a value, a name, a session and its options, a memory
 * info): each release function deletes it through free(), which forgets it, so what
 * FFmpeg's code does not release is left behind as a block of its own.
 */
#include <pthread.h>

#include "fi_keep.h"

const OrtApiBase *__real_OrtGetApiBase(void);
const OrtApiBase *__wrap_OrtGetApiBase(void);

static pthread_mutex_t fi_onnxruntime_table_lock = PTHREAD_MUTEX_INITIALIZER;
static const OrtApiBase *fi_onnxruntime_real_base;
static OrtApiBase fi_onnxruntime_base;
static OrtApi fi_onnxruntime_table;

static OrtStatus *fi_onnxruntime_status(int err, const void *caller)
{
    OrtStatus *status = fi_table_real->CreateStatus((OrtErrorCode)err,
                                                    "injected by ffmpeg-dnn-fault-harness");

    fi_keep(status, caller);
    return status;
}

/* A call let through that made *out for its caller to release: kept when it succeeded. */
static OrtStatus *fi_onnxruntime_object(OrtStatus *status, void **out, const void *caller)
{
    if (!status && out)
        fi_keep(*out, caller);
    return status;
}

/* Run(): each output value it made. */
static OrtStatus *fi_onnxruntime_values(OrtStatus *status, OrtValue **out, size_t n,
                                        const void *caller)
{
    for (size_t i = 0; !status && out && i < n; i++)
        fi_keep(out[i], caller);
    return status;
}

static const OrtApi *ORT_API_CALL fi_onnxruntime_get_api(uint32_t version) NO_EXCEPTION
{
    const OrtApi *real = fi_onnxruntime_real_base->GetApi(version);

    if (!real || pthread_mutex_lock(&fi_onnxruntime_table_lock))
        return real;
    if (!fi_table_real) {
        fi_onnxruntime_table = *real;
        fi_table_install(&fi_onnxruntime_table);
        fi_table_real = real;
    }
    pthread_mutex_unlock(&fi_onnxruntime_table_lock);
    return fi_table_real == real ? &fi_onnxruntime_table : real;
}

const OrtApiBase *__wrap_OrtGetApiBase(void)
{
    const OrtApiBase *real = __real_OrtGetApiBase();

    if (!real)
        return NULL;
    fi_onnxruntime_real_base = real;
    fi_onnxruntime_base.GetApi = fi_onnxruntime_get_api;
    fi_onnxruntime_base.GetVersionString = real->GetVersionString;
    return &fi_onnxruntime_base;
}
