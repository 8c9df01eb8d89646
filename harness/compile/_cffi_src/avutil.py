"""libavutil: frames, errors, logging levels."""

INCLUDES = """
#include "libavutil/avutil.h"
#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/log.h"
#include "libavutil/pixfmt.h"
"""

TYPES = """
typedef struct AVFrame {
    uint8_t *data[8];
    int linesize[8];
    int width;
    int height;
    int format;
    int64_t pts;
    ...;
} AVFrame;

enum AVPixelFormat { AV_PIX_FMT_RGB24, AV_PIX_FMT_BGR24, AV_PIX_FMT_GRAY8, ... };

#define AVERROR_EOF ...
#define AVERROR_EXTERNAL ...
#define AV_LOG_QUIET ...
#define AV_LOG_ERROR ...
#define AV_LOG_WARNING ...
#define AV_LOG_INFO ...
#define AV_LOG_VERBOSE ...
#define AV_LOG_DEBUG ...
"""

FUNCTIONS = """
AVFrame *av_frame_alloc(void);
void av_frame_free(AVFrame **frame);
int av_frame_get_buffer(AVFrame *frame, int align);
void av_frame_unref(AVFrame *frame);
int av_strerror(int errnum, char *errbuf, size_t errbuf_size);
void av_log_set_level(int level);
unsigned avutil_version(void);
const char *av_version_info(void);
"""

CUSTOMIZATIONS = ""
