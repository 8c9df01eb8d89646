/*
 * failalloc: fail one allocation of an FFmpeg program, chosen by where it is
 * made, for runs under AddressSanitizer (whose own malloc() the harness's
 * LD_PRELOAD injector cannot sit in front of). The test aid of followups
 * 0006-0013's and 0018-0021's sanitizer runs (README.md, "0006-0013").
 * Part of ffmpeg-dnn-fault-harness.
 *
 * Linked into the program with --wrap, so that it sees the calls of FFmpeg's
 * own objects only (av_malloc() and with it every av_*alloc() is
 * posix_memalign() on Linux; av_realloc(), and with it av_get_token(), is
 * realloc()):
 *
 *   cc -c -O1 -g -fno-omit-frame-pointer -o failalloc.o failalloc.c
 *   ./configure ... \
 *       --extra-ldflags="-Wl,--wrap=posix_memalign -Wl,--wrap=realloc" \
 *       --extra-libs="$PWD/failalloc.o"
 *
 * failalloc.py sets the variables from function names (nm -S gives each
 * function's offset and size in the program):
 *
 *   FAILALLOC_SKIP  ranges "start-end,..." (hex offsets in the program) of the
 *                   allocation functions the stack is read through
 *                   (av_malloc, av_mallocz, ...)
 *   FAILALLOC_AT    the ranges of each of the first frames past those, in
 *                   order, separated by ';' (a frame lies in one of its
 *                   ranges: a static function's name may be several): the
 *                   harness's sweep tables name a site so, "f < g < h"
 *   FAILALLOC_NTH   fail the N-th call (from 1) made at that place
 *
 * The failed call returns ENOMEM without allocating; every other call goes
 * through unchanged. At exit one line on stderr gives what happened:
 *   failalloc: N calls at the place, call K failed (or: none failed)
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANGES 32
#define MAX_FRAMES 32

typedef struct Range {
    uintptr_t start, end;
} Range;

int __real_posix_memalign(void **memptr, size_t alignment, size_t size);
void *__real_realloc(void *ptr, size_t size);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int busy;
static Range skip[MAX_RANGES], at[MAX_FRAMES][MAX_RANGES];
static int nb_skip, nb_at, nb_in[MAX_FRAMES];
static unsigned long nth, calls, failed;
static uintptr_t base;

static int parse(const char *s, Range *r)
{
    int n = 0;
    char *end;

    while (s && *s && n < MAX_RANGES) {
        r[n].start = base + strtoull(s, &end, 16);
        if (*end != '-')
            break;
        r[n].end = base + strtoull(end + 1, &end, 16);
        n++;
        s = *end == ',' ? end + 1 : NULL;
    }
    return n;
}

static void parse_at(const char *s)
{
    while (s && *s && nb_at < MAX_FRAMES) {
        nb_in[nb_at] = parse(s, at[nb_at]);
        nb_at++;
        s = strchr(s, ';');
        if (s)
            s++;
    }
}

static int in(const Range *r, int n, uintptr_t pc)
{
    for (int i = 0; i < n; i++)
        if (pc >= r[i].start && pc < r[i].end)
            return 1;
    return 0;
}

static void report(void)
{
    if (failed)
        fprintf(stderr, "failalloc: %lu calls at the place, call %lu failed\n", calls, failed);
    else
        fprintf(stderr, "failalloc: %lu calls at the place, none failed\n", calls);
}

__attribute__((constructor)) static void init(void)
{
    void *frames[2];
    Dl_info info;
    const char *n = getenv("FAILALLOC_NTH");

    if (!n || !dladdr((void *)&init, &info))
        return;
    base = (uintptr_t)info.dli_fbase;
    nb_skip = parse(getenv("FAILALLOC_SKIP"), skip);
    parse_at(getenv("FAILALLOC_AT"));
    nth = strtoul(n, NULL, 10);
    backtrace(frames, 2); /* loads the unwinder now, not inside an allocation */
    if (nth && nb_at)
        atexit(report);
    else
        nth = 0;
}

/* Is the call made at the place: past our own frames and the allocation
 * functions (FAILALLOC_SKIP), are the next frames in FAILALLOC_AT's ranges, in
 * order? */
__attribute__((noinline)) static int here(void)
{
    void *frames[MAX_FRAMES];
    int n = backtrace(frames, MAX_FRAMES), i = 1; /* 0: backtrace() or ASan's interceptor of it */

    /* a return address is just past its call: look at the call itself */
    while (i < n && in(skip, nb_skip, (uintptr_t)frames[i] - 1))
        i++;
    for (int k = 0; k < nb_at; k++, i++)
        if (i >= n || !in(at[k], nb_in[k], (uintptr_t)frames[i] - 1))
            return 0;
    return 1;
}

/* Is this call the one to fail: the N-th made at the place? (failapi.c's
 * wrappers of backend calls ask it too) */
int failalloc_fail_here(void);
int failalloc_fail_here(void)
{
    int fail = 0;

    if (nth && !busy) {
        busy = 1;
        if (here()) {
            pthread_mutex_lock(&lock);
            fail = ++calls == nth;
            if (fail)
                failed = calls;
            pthread_mutex_unlock(&lock);
        }
        busy = 0;
    }
    return fail;
}

int __wrap_posix_memalign(void **memptr, size_t alignment, size_t size)
{
    if (failalloc_fail_here())
        return ENOMEM;
    return __real_posix_memalign(memptr, alignment, size);
}

void *__wrap_realloc(void *ptr, size_t size)
{
    if (failalloc_fail_here()) {
        errno = ENOMEM;
        return NULL;
    }
    return __real_realloc(ptr, size);
}
