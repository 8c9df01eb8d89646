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
 * caller's while the malloc preload tracks its blocks (fi_malloc_leaks_keep(), looked up
 * in the process: fi_leaks.h): ReleaseStatus() frees it through free(), which forgets
 * it, so a status FFmpeg's code does not release is left behind as a block of its own.
 */
#include <dlfcn.h>
#include <pthread.h>

const OrtApiBase *__real_OrtGetApiBase(void);
const OrtApiBase *__wrap_OrtGetApiBase(void);

static pthread_mutex_t fi_onnxruntime_table_lock = PTHREAD_MUTEX_INITIALIZER;
static const OrtApiBase *fi_onnxruntime_real_base;
static OrtApiBase fi_onnxruntime_base;
static OrtApi fi_onnxruntime_table;

typedef void (*fi_onnxruntime_keep_fn)(void *ptr, size_t size, const void *caller);

static OrtStatus *fi_onnxruntime_status(int err, const void *caller)
{
    static void *sym;
    static atomic_int looked;
    OrtStatus *status = fi_table_real->CreateStatus((OrtErrorCode)err,
                                                    "injected by ffmpeg-dnn-fault-harness");
    fi_onnxruntime_keep_fn keep;

    if (!atomic_load_explicit(&looked, memory_order_acquire)) {
        __atomic_store_n(&sym, dlsym(RTLD_DEFAULT, "fi_malloc_leaks_keep"), __ATOMIC_RELEASE);
        atomic_store_explicit(&looked, 1, memory_order_release);
    }
    keep = (fi_onnxruntime_keep_fn)__atomic_load_n(&sym, __ATOMIC_ACQUIRE);
    if (keep && status)
        keep(status, sizeof(void *), caller);
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
