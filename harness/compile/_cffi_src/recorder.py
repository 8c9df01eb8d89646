"""The activate() recorder: a private copy of one filter's FFFilter whose activate
records every return, installed without touching the library's const data. A tree
without FFFilter (FFDNN_HAS_FFFILTER 0, from the probe) gets AVERROR(ENOSYS)."""

from pathlib import Path

INCLUDES = """
#include <stdatomic.h>
#include "libavfilter/filters.h"
#include "libavutil/mem.h"
"""

TYPES = """
#define FFDNN_MAX_RECORDS ...
static const int HAS_FFFILTER;
"""

FUNCTIONS = """
int ffdnn_record_activate(AVFilterContext *ctx);
int ffdnn_record_count(void);
int ffdnn_record_get(int i, int *ret, int *flushed);
"""

CUSTOMIZATIONS = Path(__file__).with_name("recorder.c").read_text()
