"""libavfilter: graphs, buffersrc, buffersink (public API)."""

INCLUDES = """
#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
"""

TYPES = """
typedef struct AVFilter {
    const char *name;
    ...;
} AVFilter;

typedef struct AVFilterContext {
    const AVFilter *filter;
    char *name;
    void *priv;
    ...;
} AVFilterContext;

typedef struct AVFilterGraph {
    AVFilterContext **filters;
    unsigned nb_filters;
    ...;
} AVFilterGraph;

typedef struct AVFilterInOut {
    char *name;
    AVFilterContext *filter_ctx;
    int pad_idx;
    struct AVFilterInOut *next;
} AVFilterInOut;

#define AV_BUFFERSRC_FLAG_KEEP_REF ...
#define AV_BUFFERSRC_FLAG_PUSH ...
"""

FUNCTIONS = """
const AVFilter *avfilter_get_by_name(const char *name);
AVFilterGraph *avfilter_graph_alloc(void);
void avfilter_graph_free(AVFilterGraph **graph);
int avfilter_graph_create_filter(AVFilterContext **filt_ctx, const AVFilter *filt,
                                 const char *name, const char *args, void *opaque,
                                 AVFilterGraph *graph_ctx);
int avfilter_graph_parse_ptr(AVFilterGraph *graph, const char *filters,
                             AVFilterInOut **inputs, AVFilterInOut **outputs,
                             void *log_ctx);
int avfilter_graph_config(AVFilterGraph *graphctx, void *log_ctx);
AVFilterInOut *avfilter_inout_alloc(void);
void avfilter_inout_free(AVFilterInOut **inout);
char *av_strdup(const char *s);
int av_buffersrc_add_frame_flags(AVFilterContext *buffer_src, AVFrame *frame, int flags);
int av_buffersrc_close(AVFilterContext *ctx, int64_t pts, unsigned flags);
int av_buffersink_get_frame(AVFilterContext *ctx, AVFrame *frame);
unsigned avfilter_version(void);
"""

CUSTOMIZATIONS = ""
