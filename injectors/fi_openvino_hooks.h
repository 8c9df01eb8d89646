/*
 * fi_openvino_hooks: what the OpenVINO family does with a call it lets through. A call
 * that makes an object for its caller to free (an infer request, a tensor, a port, a
 * preprocess step, a layout, a name; a shape's dims) goes on to the library, and the
 * object it made is kept as a block of the caller's (fi_keep.h): the C API makes each with
 * C++'s new and its ov_*_free() deletes it through free(), which forgets it.
 */
#include "fi_keep.h"

/* A call that made *out: the object kept when it succeeded. */
static ov_status_e fi_openvino_object(ov_status_e status, void **out, const void *caller)
{
    if (status == OK && out)
        fi_keep(*out, caller);
    return status;
}

/* A call that filled a shape: its dims kept (ov_shape_free() deletes them). */
static ov_status_e fi_openvino_shape(ov_status_e status, ov_shape_t *shape,
                                     const void *caller)
{
    if (status == OK && shape)
        fi_keep(shape->dims, caller);
    return status;
}

/* A call that filled a partial shape: its dims kept (ov_partial_shape_free()). */
static ov_status_e fi_openvino_partial_shape(ov_status_e status, ov_partial_shape_t *shape,
                                             const void *caller)
{
    if (status == OK && shape)
        fi_keep(shape->dims, caller);
    return status;
}
