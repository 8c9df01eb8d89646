/*
 * failapi: with failalloc.c, fail one call of a backend's own API, chosen by
 * where it is made, as the harness's openvino, tensorflow and onnxruntime
 * families do, for the sanitizer runs of followups 0014, 0016, 0017 and 0022
 * (README.md, "0018-0022"). Part of ffmpeg-dnn-fault-harness.
 *
 * Linked into the program beside failalloc.o, one --wrap per function:
 *
 *   cc -c -O1 -g -fno-omit-frame-pointer -fexceptions -I<ONNX Runtime's, OpenVINO's
 *       and TensorFlow's include directories> -o failapi.o failapi.c
 *   ./configure ... --extra-ldflags="... -Wl,--wrap=ov_model_const_input ...
 *       -Wl,--wrap=OrtGetApiBase"
 *       --extra-libs="$PWD/failalloc.o $PWD/failapi.o -lonnxruntime"
 *
 * (-lonnxruntime again after failapi.o: FFmpeg links with --as-needed, and once
 * OrtGetApiBase() is wrapped, only failapi.o still needs the library.)
 *
 * The place and the call are failalloc's (FAILALLOC_AT, FAILALLOC_NTH; every
 * __wrap_ function is read through like an allocator). A failed OpenVINO call
 * returns GENERAL_ERROR without calling the library; a failed TF_SessionRun()
 * sets its status to TF_INTERNAL without running the session; a failed
 * pthread_create() returns EAGAIN, and a failed ff_proc_from_frame_to_dnn()
 * AVERROR(ENOMEM), as the harness's pthread_create and wrap families do
 * (0001, 0002 and 0005); LibTorch's forward (torch::jit::Method::operator(),
 * --wrap with its mangled name, METHOD_CALL below) throws c10::Error through
 * c10::detail::torchCheckFail(), as TORCH_CHECK does (0015). ONNX Runtime's
 * calls go through its API table: OrtGetApiBase() is wrapped (-Wl,--wrap=
 * OrtGetApiBase) and hands out a copy of the table whose entries below return
 * a real OrtStatus, CreateStatus(ORT_FAIL, ...), when failed.
 */

#include <errno.h>
#include <pthread.h>

#include <onnxruntime_c_api.h>
#include <openvino/c/openvino.h>
#include <tensorflow/c/c_api.h>

int failalloc_fail_here(void);
const OrtApiBase *__real_OrtGetApiBase(void);
const OrtApiBase *__wrap_OrtGetApiBase(void);

#define FAIL_OV(name, params, args)                 \
    ov_status_e __real_##name params;               \
    ov_status_e __wrap_##name params;               \
    ov_status_e __wrap_##name params                \
    {                                               \
        if (failalloc_fail_here())                  \
            return GENERAL_ERROR;                   \
        return __real_##name args;                  \
    }

FAIL_OV(ov_model_const_input, (const ov_model_t *m, ov_output_const_port_t **p), (m, p))
FAIL_OV(ov_model_const_input_by_name,
        (const ov_model_t *m, const char *n, ov_output_const_port_t **p), (m, n, p))
FAIL_OV(ov_model_const_output_by_index,
        (const ov_model_t *m, const size_t i, ov_output_const_port_t **p), (m, i, p))
FAIL_OV(ov_port_get_any_name, (const ov_output_const_port_t *p, char **n), (p, n))
FAIL_OV(ov_const_port_get_shape, (const ov_output_const_port_t *p, ov_shape_t *s), (p, s))
FAIL_OV(ov_port_get_element_type,
        (const ov_output_const_port_t *p, ov_element_type_e *t), (p, t))
FAIL_OV(ov_preprocess_prepostprocessor_build,
        (const ov_preprocess_prepostprocessor_t *pp, ov_model_t **m), (pp, m))

void __real_TF_SessionRun(TF_Session *session, const TF_Buffer *run_options,
                          const TF_Output *inputs, TF_Tensor *const *input_values,
                          int ninputs, const TF_Output *outputs, TF_Tensor **output_values,
                          int noutputs, const TF_Operation *const *target_opers,
                          int ntargets, TF_Buffer *run_metadata, TF_Status *status);
void __wrap_TF_SessionRun(TF_Session *session, const TF_Buffer *run_options,
                          const TF_Output *inputs, TF_Tensor *const *input_values,
                          int ninputs, const TF_Output *outputs, TF_Tensor **output_values,
                          int noutputs, const TF_Operation *const *target_opers,
                          int ntargets, TF_Buffer *run_metadata, TF_Status *status);

void __wrap_TF_SessionRun(TF_Session *session, const TF_Buffer *run_options,
                          const TF_Output *inputs, TF_Tensor *const *input_values,
                          int ninputs, const TF_Output *outputs, TF_Tensor **output_values,
                          int noutputs, const TF_Operation *const *target_opers,
                          int ntargets, TF_Buffer *run_metadata, TF_Status *status)
{
    if (failalloc_fail_here()) {
        TF_SetStatus(status, TF_INTERNAL, "failapi: TF_SessionRun() failed on purpose");
        return;
    }
    __real_TF_SessionRun(session, run_options, inputs, input_values, ninputs, outputs,
                         output_values, noutputs, target_opers, ntargets, run_metadata,
                         status);
}

static const OrtApi *ort;
static OrtApi ort_failing;
static OrtApiBase ort_base;

#define FAIL_ORT(name, params, args)                                        \
    static OrtStatus *ORT_API_CALL __wrap_ort_##name params                 \
    {                                                                       \
        if (failalloc_fail_here())                                          \
            return ort->CreateStatus(ORT_FAIL, "failapi: " #name " failed"); \
        return ort->name args;                                              \
    }

FAIL_ORT(GetTensorTypeAndShape, (const OrtValue *v, OrtTensorTypeAndShapeInfo **o), (v, o))
FAIL_ORT(GetDimensionsCount, (const OrtTensorTypeAndShapeInfo *i, size_t *o), (i, o))
FAIL_ORT(GetDimensions, (const OrtTensorTypeAndShapeInfo *i, int64_t *d, size_t n), (i, d, n))
FAIL_ORT(GetTensorElementType,
         (const OrtTensorTypeAndShapeInfo *i, enum ONNXTensorElementDataType *o), (i, o))
FAIL_ORT(GetTensorMutableData, (OrtValue *v, void **o), (v, o))
FAIL_ORT(SetIntraOpNumThreads, (OrtSessionOptions *o, int n), (o, n))
FAIL_ORT(SetSessionGraphOptimizationLevel, (OrtSessionOptions *o, GraphOptimizationLevel l),
         (o, l))

static const OrtApi *ORT_API_CALL get_api(uint32_t version)
{
    const OrtApi *api = __real_OrtGetApiBase()->GetApi(version);

    if (!api)
        return NULL;
    ort = api;
    ort_failing = *api;
    ort_failing.GetTensorTypeAndShape = __wrap_ort_GetTensorTypeAndShape;
    ort_failing.GetDimensionsCount = __wrap_ort_GetDimensionsCount;
    ort_failing.GetDimensions = __wrap_ort_GetDimensions;
    ort_failing.GetTensorElementType = __wrap_ort_GetTensorElementType;
    ort_failing.GetTensorMutableData = __wrap_ort_GetTensorMutableData;
    ort_failing.SetIntraOpNumThreads = __wrap_ort_SetIntraOpNumThreads;
    ort_failing.SetSessionGraphOptimizationLevel = __wrap_ort_SetSessionGraphOptimizationLevel;
    return &ort_failing;
}

const OrtApiBase *__wrap_OrtGetApiBase(void)
{
    ort_base.GetApi = get_api;
    ort_base.GetVersionString = __real_OrtGetApiBase()->GetVersionString;
    return &ort_base;
}

int __real_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*start)(void *), void *arg);
int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*start)(void *), void *arg);

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*start)(void *), void *arg)
{
    if (failalloc_fail_here())
        return EAGAIN;
    return __real_pthread_create(thread, attr, start, arg);
}

/* FFmpeg's own helper (dnn_io_proc.c): its frame, DNNData and log context are
 * passed through as they are */
int __real_ff_proc_from_frame_to_dnn(void *frame, void *input, void *log_ctx);
int __wrap_ff_proc_from_frame_to_dnn(void *frame, void *input, void *log_ctx);

int __wrap_ff_proc_from_frame_to_dnn(void *frame, void *input, void *log_ctx)
{
    if (failalloc_fail_here())
        return -ENOMEM;   /* AVERROR(ENOMEM) */
    return __real_ff_proc_from_frame_to_dnn(frame, input, log_ctx);
}

/* torch::jit::Method::operator()(std::vector<c10::IValue>, const Kwargs &) const, as
 * libtorch 2.x mangles it: in the Itanium C++ ABI it takes the storage of the IValue it
 * returns, the method, and the inputs and keyword arguments by address, so a C function
 * of four pointers stands in for it (the harness's libtorch family does the same) */
#define METHOD_CALL "_ZNK5torch3jit6MethodclESt6vectorIN3c106IValueESaIS4_EERKSt13unordered_" \
    "mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEES4_St4hashISD_ESt8equal_toISD_" \
    "ESaISt4pairIKSD_S4_EEE"

void *__real_method_call(void *result, const void *method, void *inputs, const void *kwargs)
    __asm__("__real_" METHOD_CALL);
void *__wrap_method_call(void *result, const void *method, void *inputs, const void *kwargs)
    __asm__("__wrap_" METHOD_CALL);
void torch_check_fail(const char *func, const char *file, unsigned line, const char *msg)
    __asm__("_ZN3c106detail14torchCheckFailEPKcS2_jS2_") __attribute__((noreturn));

void *__wrap_method_call(void *result, const void *method, void *inputs, const void *kwargs)
{
    if (failalloc_fail_here())
        torch_check_fail(__func__, __FILE__, __LINE__, "failapi: the forward failed");
    return __real_method_call(result, method, inputs, kwargs);
}
