"""A real filter graph, buffer -> description -> buffersink, driven through cffi."""

from harness import errnos
from harness.errors import ScenarioError
from harness.run.record import Box, Label


class GraphError(ScenarioError):
    """A call of libavfilter's failed: `code` is what it returned."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


class Graph:
    def __init__(self, ffi, lib, description: str, width: int, height: int):
        self.ffi, self.lib = ffi, lib
        self.width, self.height = width, height
        self.graph = lib.avfilter_graph_alloc()
        if self.graph == ffi.NULL:
            raise GraphError("avfilter_graph_alloc failed", -12)
        try:
            self._build(description)
        except ScenarioError:  # freed as a program would: the filters' uninit runs
            if getattr(self, "out", None) is not None:
                lib.av_frame_free(ffi.new("AVFrame **", self.out))
            lib.avfilter_graph_free(ffi.new("AVFilterGraph **", self.graph))
            raise

    def _build(self, description: str) -> None:
        ffi, lib = self.ffi, self.lib
        width, height = self.width, self.height
        src = ffi.new("AVFilterContext **")
        sink = ffi.new("AVFilterContext **")
        args = f"video_size={width}x{height}:pix_fmt=rgb24:time_base=1/25:pixel_aspect=1/1"
        self.check(lib.avfilter_graph_create_filter(
            src, lib.avfilter_get_by_name(b"buffer"), b"in", args.encode(), ffi.NULL,
            self.graph), "create buffer")
        self.check(lib.avfilter_graph_create_filter(
            sink, lib.avfilter_get_by_name(b"buffersink"), b"out", ffi.NULL, ffi.NULL,
            self.graph), "create buffersink")
        self.src, self.sink = src[0], sink[0]
        self.out = self.alloc_frame()
        outputs = ffi.new("AVFilterInOut **", ffi.NULL)
        inputs = ffi.new("AVFilterInOut **", ffi.NULL)
        try:  # what it allocated is freed whatever fails (a malloc fault on the setup route)
            outputs[0] = self._inout(b"in", self.src)
            inputs[0] = self._inout(b"out", self.sink)
            self.check(lib.avfilter_graph_parse_ptr(self.graph, description.encode(), inputs,
                                                    outputs, ffi.NULL), "parse graph")
            self.check(lib.avfilter_graph_config(self.graph, ffi.NULL), "configure graph")
        finally:
            lib.avfilter_inout_free(inputs)
            lib.avfilter_inout_free(outputs)

    def _inout(self, name: bytes, ctx):
        io = self.lib.avfilter_inout_alloc()
        if io == self.ffi.NULL:
            raise GraphError("avfilter_inout_alloc: AVERROR(ENOMEM) (-12)", -12)
        io.name = self.lib.av_strdup(name)
        io.filter_ctx = ctx
        io.pad_idx = 0
        io.next = self.ffi.NULL
        return io

    def check(self, ret: int, what: str) -> int:
        if ret < 0:
            raise GraphError(f"{what}: {errnos.describe(ret)} {self.strerror(ret)}", ret)
        return ret

    def strerror(self, code: int) -> str:
        buf = self.ffi.new("char[]", 128)
        self.lib.av_strerror(code, buf, 128)
        return self.ffi.string(buf).decode()

    def filter(self, name: str):
        for i in range(self.graph.nb_filters):
            ctx = self.graph.filters[i]
            if self.ffi.string(ctx.filter.name).decode() == name:
                return ctx
        raise ScenarioError(f"no {name} filter in the graph")

    def frame(self, index: int):
        """A deterministic rgb24 frame: a gradient that shifts with the frame index.
        (Plain bytes: a worker need not import numpy for 12 KiB.)"""
        f = self.alloc_frame()
        f.width, f.height, f.format, f.pts = self.width, self.height, self.lib.AV_PIX_FMT_RGB24, index
        self.check(self.lib.av_frame_get_buffer(f, 0), "av_frame_get_buffer")
        pixels, row = self.pixels(index), self.width * 3
        for y in range(self.height):
            self.ffi.memmove(f.data[0] + y * f.linesize[0], pixels[y * row:(y + 1) * row], row)
        return f

    def pixels(self, index: int) -> bytes:
        """Frame `index`'s rgb24 bytes, row after row without padding (as pull() reads):
        red (x * 4 + index * 37), green y * 4 and blue x + y + index, each mod 256."""
        w, out = self.width, bytearray(self.width * self.height * 3)
        red = bytes((x * 4 + index * 37) % 256 for x in range(w))
        blue = bytes((x + index) % 256 for x in range(w + self.height))
        for y in range(self.height):
            row = y * w * 3
            out[row:row + w * 3:3] = red
            out[row + 1:row + w * 3:3] = bytes([(y * 4) % 256]) * w
            out[row + 2:row + w * 3:3] = blue[y:y + w]
        return bytes(out)

    def alloc_frame(self):
        """av_frame_alloc(), checked: under the malloc injector it can return NULL."""
        f = self.lib.av_frame_alloc()
        if f == self.ffi.NULL:
            raise GraphError("av_frame_alloc: AVERROR(ENOMEM) (-12) Cannot allocate memory",
                             -12)
        return f

    def push(self, frame) -> int:
        ret = self.lib.av_buffersrc_add_frame_flags(self.src, frame, 0)
        fp = self.ffi.new("AVFrame **", frame)
        self.lib.av_frame_free(fp)
        return ret

    def push_eof(self) -> int:
        return self.lib.av_buffersrc_add_frame_flags(self.src, self.ffi.NULL, 0)

    def pull(self):
        """One av_buffersink_get_frame(): (return code, the frame's bytes, its boxes).
        The frame it fills is allocated once, up front, so that a malloc fault armed
        later hits FFmpeg's allocations, not the harness's."""
        f = self.out
        ret = self.lib.av_buffersink_get_frame(self.sink, f)
        if ret < 0:
            return ret, None, []
        try:
            data = b"".join(self.ffi.buffer(f.data[0] + r * f.linesize[0], f.width * 3)[:]
                            for r in range(f.height))
            return ret, data, self.boxes(f)
        finally:
            self.lib.av_frame_unref(f)

    def boxes(self, frame) -> list:
        """The frame's detection boxes (dnn_detect, dnn_classify side data): [Box]."""
        lib, ffi = self.lib, self.ffi
        sd = lib.av_frame_get_side_data(frame, lib.AV_FRAME_DATA_DETECTION_BBOXES)
        if sd == ffi.NULL:
            return []
        header = ffi.cast("AVDetectionBBoxHeader *", sd.data)
        out = []
        for i in range(header.nb_bboxes):
            b = lib.av_get_detection_bbox(header, i)
            out.append(Box(
                f"{b.w}x{b.h}+{b.x}+{b.y}",
                ffi.string(b.detect_label).decode(errors="replace"),
                f"{b.detect_confidence.num}/{b.detect_confidence.den}",
                [Label(ffi.string(b.classify_labels[j]).decode(errors="replace"),
                       f"{b.classify_confidences[j].num}/{b.classify_confidences[j].den}")
                 for j in range(b.classify_count)]))
        return out

    def close(self) -> None:
        self.lib.av_frame_free(self.ffi.new("AVFrame **", self.out))
        gp = self.ffi.new("AVFilterGraph **", self.graph)
        self.lib.avfilter_graph_free(gp)
