"""libavfilter/dnn_filter_common.h: ff_dnn_get_result() watched, for the worker's judgement
of a run that can never end (its DAST_NOT_READY answers in a row), and libavutil's
av_usleep() (its calls: a wait that polls). The C is poll.c beside this file; the link
wraps both (ffi_build.WRAPPED)."""

from pathlib import Path

INCLUDES = ""

TYPES = ""

FUNCTIONS = """
/* ff_dnn_get_result()'s DAST_NOT_READY answers in a row, up to now. */
unsigned ffdnn_poll_streak(void);
/* ff_dnn_get_result()'s other answers (a result, the queue empty), up to now. */
unsigned ffdnn_poll_answers(void);
/* The streak counted from 0 again (from EOF on: the pulls before it polled too). */
void ffdnn_poll_restart(void);
/* av_usleep()'s calls by FFmpeg's code, up to now. */
unsigned ffdnn_sleeps(void);
"""

CUSTOMIZATIONS = Path(__file__).with_name("poll.c").read_text()
