"""Route stand-ins: the filter's backend module copied with `flush` replaced.

FFDNN_FLUSH_COUNT calls the backend's own flush (counted), FFDNN_FLUSH_ASYNC does
what 9.0.2's dnn_flush_th() -> execute_model_th() would do for a partial batch:
return ff_dnn_start_inference_async()'s result; FFDNN_FLUSH_RETURN returns a
fixed value (the AVERROR(EAGAIN) row). A tree without
ff_dnn_start_inference_async(void *, DNNAsyncExecModule *) (FFDNN_HAS_START_INFERENCE_ASYNC
0, from the probe) has no FFDNN_FLUSH_ASYNC: it returns AVERROR(ENOSYS)."""

from pathlib import Path

INCLUDES = ""

TYPES = """
#define FFDNN_FLUSH_COUNT ...
#define FFDNN_FLUSH_ASYNC ...
#define FFDNN_FLUSH_RETURN ...
static const int HAS_START_INFERENCE_ASYNC;
"""

FUNCTIONS = """
int ffdnn_standin_flush(AVFilterContext *ctx, int mode, int value);
int ffdnn_flush_calls(void);
int ffdnn_standin_join(void);
"""

CUSTOMIZATIONS = Path(__file__).with_name("standin.c").read_text()
