"""Run an FFmpeg program linked with failalloc.c with one allocation (or, with failapi.c, one
backend call) failed, named as the harness's sweep tables name a site (the functions of its
first frames) and its call at that place. Part of ffmpeg-dnn-fault-harness; see failalloc.c.

    python3 failalloc.py PROGRAM 'ff_queue_push_back < extract_lltask_from_task' N -- ARGS...

Each name is a function of the program (nm -S gives its offset and size; a static
function's name may be several, each is taken); a function the compiler inlined has no
symbol: name the one it was inlined into. The program replaces this process (exec), so
its exit status is the program's and a signal meant for it (a timeout's) reaches it.
"""

import os
import subprocess
import sys

# failalloc.c's own frames and FFmpeg's allocation functions, read through to the frame
# that asked for the memory
# (every __wrap_ function too: failalloc.c's and failapi.c's)
ALLOCATORS = ("here", "failalloc_fail_here", "av_malloc", "av_mallocz", "av_calloc",
              "av_malloc_array", "av_strdup", "av_strndup", "av_memdup", "av_realloc")


def symbols(program: str) -> dict:
    """name -> [(offset, size)] of the program's functions (C++ ones by their name
    without the parameter list)."""
    out = subprocess.run(["nm", "-C", "-S", "--defined-only", program], capture_output=True,
                         text=True, check=True).stdout
    table = {}
    for line in out.splitlines():
        parts = line.split(maxsplit=3)
        if len(parts) == 4 and parts[2] in "tTwW":
            name = parts[3].split("(")[0]
            table.setdefault(name, []).append((int(parts[0], 16), int(parts[1], 16)))
    return table


def ranges(table: dict, names) -> str:
    return ",".join(f"{o:x}-{o + s:x}" for n in names for o, s in table.get(n, ()))


def main(argv) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    program, where, nth, *args = argv
    if args[:1] == ["--"]:
        args = args[1:]
    table = symbols(program)
    chain = [n.strip() for n in where.split("<")]
    missing = [n for n in chain if n not in table]
    if missing:
        print(f"error: no function {', '.join(missing)} in {program}", file=sys.stderr)
        return 2
    skip = [*ALLOCATORS, *(n for n in table if n.startswith("__wrap_"))]
    env = dict(os.environ, FAILALLOC_NTH=nth, FAILALLOC_SKIP=ranges(table, skip),
               FAILALLOC_AT=";".join(ranges(table, [n]) for n in chain))
    os.execve(program, [program, *args], env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
