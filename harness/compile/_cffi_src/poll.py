"""libavfilter/dnn_filter_common.h: ff_dnn_get_result() watched, for the worker's judgement
of a run that can never end (its DAST_NOT_READY answers in a row). The C is poll.c
beside this file; the link wraps ff_dnn_get_result (ffi_build.WRAPPED)."""

from pathlib import Path

INCLUDES = ""

TYPES = ""

FUNCTIONS = """
/* ff_dnn_get_result()'s DAST_NOT_READY answers in a row, up to now. */
unsigned ffdnn_poll_streak(void);
"""

CUSTOMIZATIONS = Path(__file__).with_name("poll.c").read_text()
