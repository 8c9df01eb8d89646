"""The activate() recorder: a private copy of the struct that holds one filter's
activate() (FFFilter, or the public AVFilter in trees from before FFFilter), whose
activate records every return, installed without touching the library's const data.
The probe says which struct it is (FFDNN_HAS_FFFILTER, FFDNN_HAS_AVFILTER_ACTIVATE); a
tree with neither gets AVERROR(ENOSYS)."""

from pathlib import Path

INCLUDES = """
#include <stdatomic.h>
#include "libavfilter/filters.h"
#include "libavutil/mem.h"
"""

TYPES = """
#define FFDNN_MAX_RECORDS ...
static const int HAS_FFFILTER;
static const int HAS_AVFILTER_ACTIVATE;
static const int HAS_CONTEXT_READY;
"""

FUNCTIONS = """
int ffdnn_record_activate(AVFilterContext *ctx);
int ffdnn_record_count(void);
int ffdnn_record_get(int i, int *ret, int *flushed);
int ffdnn_activate_again(AVFilterContext *ctx);
"""

CUSTOMIZATIONS = Path(__file__).with_name("recorder.c").read_text()
