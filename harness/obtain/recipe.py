"""How a tree is configured: the recipe's version (in every tree's key), the filters and
options FFmpeg's configure gets for a tree and for its sanitizer variants, and the git
identity its commits are made with. Read by the build (harness/obtain/build.py) and the
plan (harness/obtain/trees.py).
"""

RECIPE = 1  # bump when the way a tree is built changes
# the filters every graph and program run needs; a layout adds those its case's claims run
FILTERS = ("buffer,buffersink,format,scale,null,fps,trim,setpts,showinfo,testsrc,testsrc2,"
           "mandelbrot,dnn_processing,dnn_detect,dnn_classify")
FILTER_ARG = "--enable-filter="  # COMMON's place for the filters: filter_arg()
COMMON = (
    "--disable-everything", "--disable-doc", "--disable-ffplay", "--disable-ffprobe",
    "--enable-pic", "--disable-x86asm", "--disable-autodetect",
    FILTER_ARG, "--enable-indev=lavfi",
)

# the ffmpeg program's unchanged-output checks: md5 of frames, a cached clip in nut
CONFIGURE = COMMON + (
    "--enable-decoder=rawvideo,mpeg4,wrapped_avframe", "--enable-encoder=rawvideo,wrapped_avframe,mpeg4",
    "--enable-demuxer=rawvideo,nut", "--enable-muxer=md5,framemd5,null,rawvideo,nut",
    "--enable-protocol=file,pipe",
)
# A sanitizer variant only runs its claims' lavfi input through the filters into an MD5
# (harness/experiments/sanitizer.py): no clip to read, so no mpeg4 and no nut, which leaves
# out about 45 of libavcodec's objects, a fifth of the compile and its slowest
# (qpeldsp, motion_est, the MPEG-4 coders).
SANITIZER_CONFIGURE = COMMON + (
    "--enable-protocol=file,pipe", "--enable-decoder=rawvideo,wrapped_avframe",
    "--enable-encoder=rawvideo,wrapped_avframe", "--enable-muxer=md5,framemd5,null",
)


def filter_arg(layout) -> str:
    """configure's --enable-filter= for a layout: the engine's filters and its own."""
    return FILTER_ARG + ",".join((FILTERS, *(layout.filters if layout else ())))


# Sanitizer variants: FFmpeg's own configure toolchains, for the trees the layout names (its
# sanitizer_trees), each with the one backend set its claim needs
# (harness/experiments/sanitizer.py). ASan is built recoverable (halt_on_error=0 at run
# time) so that one run shows every path that overflows, not only the first. Both at -O1
# (the sanitizers' documents ask for -O1 or higher), not FFmpeg's -O3: the same reports
# (commit 1's 30 overflows on both paths, commit 2's race at the same lines), the two bases
# compiled in 163 s side by side where -O3 took 214-224 s.
SANITIZERS = {"asan": ("--toolchain=gcc-asan", "--extra-cflags=-fsanitize-recover=address",
                       "--optflags=-O1"),
              "tsan": ("--toolchain=gcc-tsan", "--optflags=-O1")}
GIT_ID = {"GIT_AUTHOR_NAME": "ffdnn", "GIT_AUTHOR_EMAIL": "ffdnn@localhost",
          "GIT_COMMITTER_NAME": "ffdnn", "GIT_COMMITTER_EMAIL": "ffdnn@localhost",
          "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
          "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}
