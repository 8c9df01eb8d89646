"""av_log capture: a C callback formats each line (av_log's va_list cannot cross
into Python) and appends it to a buffer the worker reads at the end; the lines logged at
AV_LOG_ERROR or worse also to one of their own (an error FFmpeg's code said, returned or
not: harness.judge.diff.dropped_error())."""

from pathlib import Path

INCLUDES = """
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
"""

TYPES = ""

FUNCTIONS = """
void ffdnn_log_capture(int level);
const char *ffdnn_log_text(void);
const char *ffdnn_log_errors(void);
"""

CUSTOMIZATIONS = Path(__file__).with_name("logshim.c").read_text()
