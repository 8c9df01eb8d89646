/*
 * fi_openvino_hooks: what the OpenVINO family does with a call it lets through. A call
 * that makes an object for its caller to free (an infer request, a tensor, a port, a
 * preprocess step, a layout, a name; a shape's dims) goes on to the library, and the
 * object it made is kept as a block of the caller's while the malloc preload tracks its
 * blocks (fi_malloc_leaks_keep(), looked up in the process: fi_leaks.h). The C API makes
 * each with C++'s new and its ov_*_free() deletes it through free(), which forgets it:
 * an object FFmpeg's code never frees is left behind as a block of its own.
 */
#include <dlfcn.h>

typedef void (*fi_openvino_keep_fn)(void *ptr, size_t size, const void *caller);

static void fi_openvino_keep(void *ptr, const void *caller)
{
    static void *sym;
    static atomic_int looked;
    fi_openvino_keep_fn keep;

    if (!ptr)
        return;
    if (!atomic_load_explicit(&looked, memory_order_acquire)) {
        __atomic_store_n(&sym, dlsym(RTLD_DEFAULT, "fi_malloc_leaks_keep"), __ATOMIC_RELEASE);
        atomic_store_explicit(&looked, 1, memory_order_release);
    }
    keep = (fi_openvino_keep_fn)__atomic_load_n(&sym, __ATOMIC_ACQUIRE);
    if (keep)
        keep(ptr, sizeof(void *), caller);
}

/* A call that made *out: the object kept when it succeeded. */
static ov_status_e fi_openvino_object(ov_status_e status, void **out, const void *caller)
{
    if (status == OK && out)
        fi_openvino_keep(*out, caller);
    return status;
}

/* A call that filled a shape: its dims kept (ov_shape_free() deletes them). */
static ov_status_e fi_openvino_shape(ov_status_e status, ov_shape_t *shape,
                                     const void *caller)
{
    if (status == OK && shape)
        fi_openvino_keep(shape->dims, caller);
    return status;
}

/* A call that filled a partial shape: its dims kept (ov_partial_shape_free()). */
static ov_status_e fi_openvino_partial_shape(ov_status_e status, ov_partial_shape_t *shape,
                                             const void *caller)
{
    if (status == OK && shape)
        fi_openvino_keep(shape->dims, caller);
    return status;
}
