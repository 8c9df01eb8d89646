"""The Python floor for bench.py's per-scenario figure (P3a): one scenario's work with
no harness around it.  python bench/floor_py.py TREE_DIR MODEL [ERRNO]

Imports the build's cffi module (ffi_load.load), builds the same graph through it,
pushes two 64x64 rgb24 frames, installs the same stand-in flush, arms the LD_PRELOAD
injector, sends EOF and pulls until AVERROR_EOF. No worker process, scenario JSON,
activate() recorder, log capture, result JSON or judging; no numpy.
"""

import json
import sys
from pathlib import Path

from harness.compile import ffi_load
from harness.obtain.tree import Tree

AVERROR_EOF = -(ord("E") | ord("O") << 8 | ord("F") << 16 | ord(" ") << 24)
W = H = 64


def frame_bytes(i: int) -> bytes:
    return bytes(v for y in range(H) for x in range(W)
                 for v in ((x * 4 + i * 37) % 256, (y * 4) % 256, (x + y + i) % 256))


def main(tree_dir: str, model: str, err: int) -> int:
    path = Path(tree_dir)
    stamp = json.loads((path / "stamp.json").read_text())
    ffi, lib = ffi_load.load(Tree(stamp["tree"], path, stamp))

    def check(ret, what):
        if ret < 0:
            raise SystemExit(f"{what}: {ret}")
        return ret

    graph = lib.avfilter_graph_alloc()
    src, sink = ffi.new("AVFilterContext **"), ffi.new("AVFilterContext **")
    check(lib.avfilter_graph_create_filter(
        src, lib.avfilter_get_by_name(b"buffer"), b"in",
        f"video_size={W}x{H}:pix_fmt=rgb24:time_base=1/25:pixel_aspect=1/1".encode(),
        ffi.NULL, graph), "buffer")
    check(lib.avfilter_graph_create_filter(sink, lib.avfilter_get_by_name(b"buffersink"),
                                           b"out", ffi.NULL, ffi.NULL, graph), "buffersink")
    ios = []
    for name, ctx in ((b"in", src[0]), (b"out", sink[0])):
        io = lib.avfilter_inout_alloc()
        io.name, io.filter_ctx, io.pad_idx, io.next = lib.av_strdup(name), ctx, 0, ffi.NULL
        ios.append(ffi.new("AVFilterInOut **", io))
    desc = f"format=rgb24,dnn_processing=dnn_backend=onnx:model={model}:input=x:output=y"
    check(lib.avfilter_graph_parse_ptr(graph, desc.encode(), ios[1], ios[0], ffi.NULL), "parse")
    check(lib.avfilter_graph_config(graph, ffi.NULL), "config")
    lib.avfilter_inout_free(ios[0])
    lib.avfilter_inout_free(ios[1])
    dnn = next(graph.filters[i] for i in range(graph.nb_filters)
               if ffi.string(graph.filters[i].filter.name) == b"dnn_processing")
    check(lib.ffdnn_standin_flush(dnn, lib.FFDNN_FLUSH_ASYNC, 0), "stand-in flush")

    for i in range(2):
        f = lib.av_frame_alloc()
        f.width, f.height, f.format, f.pts = W, H, lib.AV_PIX_FMT_RGB24, i
        check(lib.av_frame_get_buffer(f, 0), "av_frame_get_buffer")
        data = frame_bytes(i)
        for r in range(H):
            ffi.memmove(f.data[0] + r * f.linesize[0], data[r * W * 3:(r + 1) * W * 3], W * 3)
        check(lib.av_buffersrc_add_frame_flags(src[0], f, 0), f"push {i}")
        lib.av_frame_free(ffi.new("AVFrame **", f))

    out = lib.av_frame_alloc()
    codes = []
    for until_eof in (False, True):
        if until_eof:
            check(lib.ffdnn_inject_arm(b"pthread_create", err, 0, 1, b"_ffdnn."),
                  "arm")
            check(lib.av_buffersrc_add_frame_flags(src[0], ffi.NULL, 0), "EOF")
        for _ in range(16):
            ret = lib.av_buffersink_get_frame(sink[0], out)
            if until_eof:
                codes.append(ret)
            lib.av_frame_unref(out)
            if ret < 0 and (ret == AVERROR_EOF or not until_eof):
                break
    lib.ffdnn_inject_disarm(b"pthread_create")
    lib.av_frame_free(ffi.new("AVFrame **", out))
    lib.ffdnn_standin_join()
    lib.avfilter_graph_free(ffi.new("AVFilterGraph **", graph))
    print("sink:", codes)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 11))
