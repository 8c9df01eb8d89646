/*
 * dnn_floor: the C floor for bench.py's per-scenario figure (P3b).
 *
 * This file is part of ffmpeg-dnn-fault-harness (LGPL-2.1-or-later, like the
 * FFmpeg code it links to).
 *
 * Usage: LD_PRELOAD=libfi_pthread_create.so dnn_floor MODEL.onnx [ERRNO]
 *
 * Does what one harness scenario does, with nothing around it: builds
 * buffer -> format=rgb24,dnn_processing=dnn_backend=onnx:model=M:input=x:output=y
 * -> buffersink, pushes two 64x64 rgb24 frames through real ONNX Runtime
 * inference and drains them, installs the same stand-in flush as the harness
 * (harness/compile/_cffi_src/standin.py, FFDNN_FLUSH_ASYNC: 9.0.2's dnn_flush_th() ->
 * execute_model_th() for a partial batch, i.e. ff_dnn_start_inference_async()),
 * arms the LD_PRELOAD injector (resolved with dlsym) to fail this program's next
 * pthread_create() with ERRNO (default EAGAIN), sends EOF and pulls until
 * AVERROR_EOF. It prints the sink's codes and the injector's failure count.
 * There is no activate() recorder and no log capture: those are the harness's.
 *
 * Built against one tree's headers (internal ones included: the stand-in needs
 * DnnContext) and linked to that tree's static libraries; see bench.py.
 */

#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/mem.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libavfilter/dnn_interface.h"
#include "libavfilter/dnn/dnn_backend_common.h"

#define WIDTH     64
#define HEIGHT    64
#define FRAMES    2
#define MAX_PULLS 16

/* Every DNN filter's private context starts like this. */
typedef struct DNNFilterPriv {
    const AVClass *class;
    DnnContext dnnctx;
} DNNFilterPriv;

static struct {
    DNNModule *module;
    DnnContext *dnnctx;
    DNNAsyncExecModule async;
    int started;
} standin;

static int standin_start_inference(void *request)
{
    return 0;
}

static void standin_callback(void *args)
{
}

static int standin_flush(const DNNModel *model)
{
    int ret = ff_dnn_start_inference_async(standin.dnnctx, &standin.async);

    standin.started |= ret == 0;
    return ret;
}

static int install_standin(AVFilterContext *ctx)
{
    DnnContext *dnnctx = &((DNNFilterPriv *)ctx->priv)->dnnctx;

    if (!dnnctx->dnn_module || !dnnctx->model)
        return AVERROR(EINVAL);
    standin.module = av_memdup(dnnctx->dnn_module, sizeof(*standin.module));
    if (!standin.module)
        return AVERROR(ENOMEM);
    standin.module->flush          = standin_flush;
    standin.dnnctx                 = dnnctx;
    standin.async.start_inference  = standin_start_inference;
    standin.async.callback         = standin_callback;
    standin.async.args             = NULL;
    dnnctx->dnn_module             = standin.module;
    return 0;
}

static int arm_injector(int err, const char *caller)
{
    int (*arm)(int, unsigned, unsigned);
    int (*target)(const char *);

    arm    = (int (*)(int, unsigned, unsigned))dlsym(RTLD_DEFAULT, "fi_pthread_create_arm");
    target = (int (*)(const char *))dlsym(RTLD_DEFAULT, "fi_pthread_create_target_caller");
    if (!arm || !target) {
        fprintf(stderr, "the injector is not loaded (LD_PRELOAD=libfi_pthread_create.so)\n");
        return AVERROR(ENOSYS);
    }
    if (target(caller) < 0 || arm(err, 0, 1) < 0) {
        fprintf(stderr, "cannot arm the injector with error %d\n", err);
        return AVERROR(EINVAL);
    }
    return 0;
}

static unsigned long injector_failures(void)
{
    unsigned long (*failures)(void);

    failures = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "fi_pthread_create_failures");
    return failures ? failures() : 0;
}

static AVFrame *make_frame(int index)
{
    AVFrame *frame = av_frame_alloc();

    if (!frame)
        return NULL;
    frame->width  = WIDTH;
    frame->height = HEIGHT;
    frame->format = AV_PIX_FMT_RGB24;
    frame->pts    = index;
    if (av_frame_get_buffer(frame, 0) < 0) {
        av_frame_free(&frame);
        return NULL;
    }
    /* the harness's gradient (harness/run/filtergraph.py: Graph.frame) */
    for (int y = 0; y < HEIGHT; y++) {
        uint8_t *row = frame->data[0] + y * frame->linesize[0];
        for (int x = 0; x < WIDTH; x++) {
            row[3 * x + 0] = (x * 4 + index * 37) % 256;
            row[3 * x + 1] = (y * 4) % 256;
            row[3 * x + 2] = (x + y + index) % 256;
        }
    }
    return frame;
}

static int init_graph(AVFilterGraph *graph, const char *model, AVFilterContext **src,
                      AVFilterContext **sink, AVFilterContext **dnn)
{
    const AVFilter *buffer = avfilter_get_by_name("buffer");
    const AVFilter *buffersink = avfilter_get_by_name("buffersink");
    char args[128], desc[4096];
    AVFilterInOut *outputs = avfilter_inout_alloc();
    AVFilterInOut *inputs  = avfilter_inout_alloc();
    int ret;

    if (!outputs || !inputs) {
        ret = AVERROR(ENOMEM);
        goto end;
    }
    if (!buffer || !buffersink) {
        fprintf(stderr, "This build has no buffer or buffersink filter\n");
        ret = AVERROR_FILTER_NOT_FOUND;
        goto end;
    }
    snprintf(args, sizeof(args),
             "video_size=%dx%d:pix_fmt=rgb24:time_base=1/25:pixel_aspect=1/1", WIDTH, HEIGHT);
    ret = avfilter_graph_create_filter(src, buffer, "in", args, NULL, graph);
    if (ret < 0) {
        fprintf(stderr, "Cannot create the buffer source: %s\n", av_err2str(ret));
        goto end;
    }
    ret = avfilter_graph_create_filter(sink, buffersink, "out", NULL, NULL, graph);
    if (ret < 0) {
        fprintf(stderr, "Cannot create the buffer sink: %s\n", av_err2str(ret));
        goto end;
    }
    outputs->name       = av_strdup("in");
    outputs->filter_ctx = *src;
    inputs->name        = av_strdup("out");
    inputs->filter_ctx  = *sink;
    if (!outputs->name || !inputs->name) {
        ret = AVERROR(ENOMEM);
        goto end;
    }
    snprintf(desc, sizeof(desc), "format=rgb24,dnn_processing=dnn_backend=onnx"
             ":model=%s:input=x:output=y", model);
    ret = avfilter_graph_parse_ptr(graph, desc, &inputs, &outputs, NULL);
    if (ret < 0) {
        fprintf(stderr, "Cannot parse the graph: %s\n", av_err2str(ret));
        goto end;
    }
    ret = avfilter_graph_config(graph, NULL);
    if (ret < 0) {
        fprintf(stderr, "Cannot configure the graph: %s\n", av_err2str(ret));
        goto end;
    }
    ret = AVERROR(EINVAL);
    for (unsigned i = 0; i < graph->nb_filters; i++)
        if (!strcmp(graph->filters[i]->filter->name, "dnn_processing")) {
            *dnn = graph->filters[i];
            ret = 0;
        }
    if (ret < 0)
        fprintf(stderr, "No dnn_processing filter in the graph\n");
end:
    avfilter_inout_free(&inputs);
    avfilter_inout_free(&outputs);
    return ret;
}

/* Pull until the sink has nothing for now, AVERROR(EAGAIN): return the number of
 * frames, or the first other error. until_eof: pull (past errors) until AVERROR_EOF,
 * printing every code; return the number of frames, or AVERROR_BUG if EOF never came. */
static int drain(AVFilterContext *sink, int until_eof)
{
    AVFrame *frame = av_frame_alloc();
    int frames = 0, ret = AVERROR_BUG;

    if (!frame)
        return AVERROR(ENOMEM);
    for (int i = 0; i < MAX_PULLS; i++) {
        ret = av_buffersink_get_frame(sink, frame);
        if (until_eof)
            printf("sink: %d (%s)\n", ret, ret < 0 ? av_err2str(ret) : "frame");
        if (ret >= 0) {
            frames++;
            av_frame_unref(frame);
        } else if (!until_eof || ret == AVERROR_EOF) {
            break;
        }
    }
    av_frame_free(&frame);
    if (!until_eof && ret != AVERROR(EAGAIN)) {
        fprintf(stderr, "Unexpected sink return before EOF: %s\n", av_err2str(ret));
        return ret < 0 ? ret : AVERROR_BUG;
    }
    if (until_eof && ret != AVERROR_EOF) {
        fprintf(stderr, "No AVERROR_EOF after %d pulls\n", MAX_PULLS);
        return AVERROR_BUG;
    }
    return frames;
}

int main(int argc, char **argv)
{
    AVFilterGraph *graph = NULL;
    AVFilterContext *src = NULL, *sink = NULL, *dnn = NULL;
    AVFrame *frame = NULL;
    const char *caller;
    int err = argc > 2 ? atoi(argv[2]) : EAGAIN;
    int ret, frames;

    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL.onnx [ERRNO]\n", argv[0]);
        return 2;
    }
    caller = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

    graph = avfilter_graph_alloc();
    if (!graph) {
        fprintf(stderr, "Cannot allocate the filter graph\n");
        ret = AVERROR(ENOMEM);
        goto end;
    }
    ret = init_graph(graph, argv[1], &src, &sink, &dnn);
    if (ret < 0)
        goto end;
    ret = install_standin(dnn);
    if (ret < 0) {
        fprintf(stderr, "Cannot install the stand-in flush: %s\n", av_err2str(ret));
        goto end;
    }
    for (int i = 0; i < FRAMES; i++) {
        frame = make_frame(i);
        if (!frame) {
            ret = AVERROR(ENOMEM);
            goto end;
        }
        ret = av_buffersrc_add_frame_flags(src, frame, 0);
        av_frame_free(&frame);
        if (ret < 0) {
            fprintf(stderr, "Cannot push frame %d: %s\n", i, av_err2str(ret));
            goto end;
        }
    }
    frames = drain(sink, 0);
    if (frames < 0) {
        ret = frames;
        goto end;
    }
    printf("frames: %d\n", frames);

    ret = arm_injector(err, caller);
    if (ret < 0)
        goto end;
    ret = av_buffersrc_add_frame_flags(src, NULL, 0);
    if (ret < 0) {
        fprintf(stderr, "Cannot send EOF: %s\n", av_err2str(ret));
        goto end;
    }
    ret = drain(sink, 1);
    if (ret < 0)
        goto end;
    printf("injected failures: %lu\n", injector_failures());
    ret = 0;

end:
#if HAVE_PTHREAD_CANCEL
    if (standin.started && pthread_join(standin.async.thread_id, NULL))
        fprintf(stderr, "Cannot join the stand-in's inference thread\n");
#endif
    avfilter_graph_free(&graph);
    av_freep(&standin.module);
    if (ret < 0)
        fprintf(stderr, "dnn_floor: %s\n", av_err2str(ret));
    return ret < 0;
}
