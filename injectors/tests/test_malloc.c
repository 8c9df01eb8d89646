/*
 * test_malloc: checks the malloc() family injector. Like test_preload, the
 * program has no link dependency on it: run it with
 * LD_PRELOAD=libfi_malloc.so and it finds the API with
 * dlsym(RTLD_DEFAULT, ...); without it, it fails. Each check prints one
 * deterministic line, "ok ..." or "FAIL ...". stdout gets a static buffer
 * so that printing allocates nothing between the armed calls.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fi_api.h"

static char out_buf[1 << 16];
static int failed;

static const char *err_name(int err)
{
    static char buf[16];

    switch (err) {
    case 0:      return "0";
    case ENOMEM: return "ENOMEM";
    case EAGAIN: return "EAGAIN";
    }
    snprintf(buf, sizeof(buf), "%d", err);
    return buf;
}

static void report(const char *name, int ok, const char *what, int err)
{
    failed += !ok;
    printf("%s %s: %s %s\n", ok ? "ok" : "FAIL", name, what, err_name(err));
}

/* The injector's poison: bytes 0xa5, every fourth the 4-byte word's index. */
static int poisoned(const void *block, size_t size)
{
    const unsigned char *p = block;

    for (size_t i = 0; i < size; i++)
        if (p[i] != ((i & 3) == 0 ? (unsigned char)(i >> 2) : 0xa5))
            return 0;
    return 1;
}

static int last_poisoned;   /* the last block check_malloc() got was poisoned */

/* want_fail: the call must return NULL with errno ENOMEM; otherwise a
 * usable block. */
static void check_malloc(const char *name, int want_fail)
{
    char *p;

    errno = 0;
    p = malloc(64);
    last_poisoned = p && poisoned(p, 64);
    if (p)
        memset(p, 0x5a, 64);
    report(name, want_fail ? !p && errno == ENOMEM : p != NULL, p ? "ptr" : "NULL",
           p ? 0 : errno);
    free(p);
}

static void check_strdup(const char *name, int want_fail)
{
    char *p;

    errno = 0;
    p = strdup("allocated by libc");
    report(name, want_fail ? !p && errno == ENOMEM : p && !strcmp(p, "allocated by libc"),
           p ? "ptr" : "NULL", p ? 0 : errno);
    free(p);
}

static void check_value(const char *name, long got, long want)
{
    failed += got != want;
    printf("%s %s: %ld\n", got == want ? "ok" : "FAIL", name, got);
}

static int run(const FITestAPI *fi, const char *self)
{
    unsigned long calls = fi->calls(), eligible = fi->eligible();
    unsigned long failures = fi->failures();
    void *block = (void *)1, *q;
    char *p;
    int ret;

    check_malloc("unarmed malloc 1", 0);
    check_malloc("unarmed malloc 2", 0);
    check_value("arm ENOMEM skip 1 count 1", fi->arm(ENOMEM, 1, 1), 0);
    check_malloc("armed malloc 1", 0);
    check_value("armed malloc 1 let through, poisoned", last_poisoned, 1);
    check_malloc("armed malloc 2", 1);
    check_malloc("armed malloc 3", 0);
    check_value("calls", fi->calls() - calls, 5);
    check_value("eligible", fi->eligible() - eligible, 3);
    check_value("failures", fi->failures() - failures, 1);

    /* each of the family fails with the armed error, leaving its inputs alone */
    check_value("arm ENOMEM skip 0 count 3", fi->arm(ENOMEM, 0, 3), 0);
    ret = posix_memalign(&block, 64, 128);
    report("armed posix_memalign", ret == ENOMEM && block == (void *)1, "returns", ret);
    errno = 0;
    q = calloc(4, 16);
    report("armed calloc", !q && errno == ENOMEM, q ? "ptr" : "NULL", q ? 0 : errno);
    free(q);
    fi->disarm();
    p = malloc(8);
    if (p)
        strcpy(p, "kept");
    check_value("arm ENOMEM skip 0 count 1", fi->arm(ENOMEM, 0, 1), 0);
    errno = 0;
    q = p ? realloc(p, 4096) : NULL;
    report("armed realloc", p && !q && errno == ENOMEM && !strcmp(p, "kept"),
           q ? "ptr" : "NULL", q ? 0 : errno);
    free(q ? q : p);
    ret = posix_memalign(&block, 64, 128);
    report("posix_memalign, count exhausted",
           !ret && block != (void *)1 && !((size_t)block & 63), "returns", ret);
    if (!ret) {
        check_value("posix_memalign let through, poisoned", poisoned(block, 128), 1);
        free(block);
    }
    check_value("arm EAGAIN skip 0 count 1", fi->arm(EAGAIN, 0, 1), 0);
    ret = posix_memalign(&block, 64, 128);
    report("posix_memalign returns the armed error", ret == EAGAIN, "returns", ret);
    fi->disarm();
    check_malloc("disarmed malloc", 0);

    /* caller targeting: the caller is the object that calls malloc(),
     * here this program or libc (strdup) */
    check_value("target libc.so.6", fi->target_caller("libc.so.6"), 0);
    check_value("arm ENOMEM skip 0 count 1", fi->arm(ENOMEM, 0, 1), 0);
    check_malloc("malloc, caller not targeted", 0);
    check_strdup("strdup, libc targeted", 1);
    check_value("target self", fi->target_caller(self), 0);
    check_value("arm ENOMEM skip 0 count 1", fi->arm(ENOMEM, 0, 1), 0);
    check_strdup("strdup, libc not targeted", 0);
    check_malloc("malloc, caller targeted", 1);
    check_value("target no such object", fi->target_caller("no-such-object.so"), -1);
    check_value("arm ENOMEM skip 0 count 1", fi->arm(ENOMEM, 0, 1), 0);
    check_malloc("malloc, unmatched target", 0);
    check_value("target any", fi->target_caller(NULL), 0);
    check_malloc("malloc, any caller", 1);
    check_malloc("count exhausted malloc", 0);
    fi->disarm();
    check_value("arm error 0", fi->arm(0, 0, 1), -1);

    check_value("total calls", fi->calls() - calls, 19);
    check_value("total eligible", fi->eligible() - eligible, 12);
    check_value("total failures", fi->failures() - failures, 8);
    return failed;
}

typedef struct FILeakAPI {
    int (*track)(const char *substr);
    long (*leaks)(unsigned long *blocks, unsigned long *bytes);
    int (*leak)(unsigned n, void **frames, int max, unsigned long *size);
} FILeakAPI;

static void check_leaks(const FILeakAPI *fi, const char *name, unsigned long blocks,
                        unsigned long bytes, long untracked)
{
    unsigned long got_blocks = 0, got_bytes = 0;
    long got = fi->leaks(&got_blocks, &got_bytes);
    int ok = got_blocks == blocks && got_bytes == bytes && got == untracked;

    failed += !ok;
    printf("%s %s: %lu blocks, %lu bytes, %ld untracked\n", ok ? "ok" : "FAIL", name,
           got_blocks, got_bytes, got);
}

#define FULL (32768 / 4 * 3) /* FI_LEAK_FULL: the blocks the table keeps */

/* A stream opened while tracked is a block of sizeof(FILE) until fclose(). */
static void check_streams(const FILeakAPI *fi)
{
    unsigned long blocks = 0, bytes = 0;
    FILE *a = fopen("/dev/null", "r");
    int fd = open("/dev/null", O_RDONLY);
    FILE *b = fd < 0 ? NULL : fdopen(fd, "r");

    fi->leaks(&blocks, &bytes);
    report("leaks: two streams kept", a && b && blocks == 2 && bytes == 2 * sizeof(FILE),
           "blocks", (int)blocks);
    if (a)
        fclose(a);
    fi->leaks(&blocks, &bytes);
    report("leaks: one closed", blocks == 1 && bytes == sizeof(FILE), "blocks", (int)blocks);
    if (b)
        fclose(b);
    check_leaks(fi, "leaks: both closed", 0, 0, 0);
}

/* Leak tracking: the blocks this program allocates while tracked, kept until freed;
 * libc's own (strdup) and those allocated before tracking began are not kept. The
 * pointers are volatile: the compiler may not elide a malloc()/free() pair. */
static void run_leaks(const FILeakAPI *fi, const char *self)
{
    static void *volatile block[FULL + 1];
    void *volatile a, *volatile b, *volatile c, *volatile d, *volatile s, *volatile e;
    void *frames[16], *cp = NULL;
    unsigned long size = 0;
    int depth;

    e = malloc(24);             /* allocated before tracking */
    check_value("leaks: track self", fi->track(self), 0);
    check_leaks(fi, "leaks: none yet", 0, 0, 0);
    a = malloc(10);
    b = calloc(2, 8);
    check_value("leaks: posix_memalign", posix_memalign(&cp, 64, 100), 0);
    c = cp;
    d = realloc(NULL, 30);
    s = strdup("libc's own");
    e = realloc(e, 4096);       /* a block not kept stays not kept */
    check_leaks(fi, "leaks: 4 kept, libc's not", 4, 10 + 16 + 100 + 30, 0);
    free(a);
    d = realloc(d, 4000);
    check_leaks(fi, "leaks: one freed, one grown", 3, 16 + 100 + 4000, 0);
    free(b);
    free(c);
    depth = fi->leak(0, frames, 16, &size);
    report("leaks: the one left has a stack", depth > 0 && size == 4000, "size", (int)size);
    check_value("leaks: no second", fi->leak(1, frames, 16, &size), -1);
    free(d);
    free(s);
    free(e);
    check_leaks(fi, "leaks: all freed", 0, 0, 0);
    check_streams(fi);
    for (int i = 0; i <= FULL; i++)
        block[i] = malloc(1);
    check_leaks(fi, "leaks: the table full", FULL, FULL, 1);
    for (int i = 0; i <= FULL; i++)
        free(block[i]);
    check_leaks(fi, "leaks: the table emptied", 0, 0, 1);
    check_value("leaks: track again", fi->track(self), 0);
    check_leaks(fi, "leaks: forgotten", 0, 0, 0);
    a = malloc(10);
    check_value("leaks: stop", fi->track(NULL), 0);
    b = malloc(10);
    check_leaks(fi, "leaks: kept until stopped", 1, 10, 0);
    free(a);
    free(b);
    check_leaks(fi, "leaks: freed once stopped", 0, 0, 0);
    check_value("leaks: track no such object", fi->track("no-such-object.so"), -1);
    a = malloc(10);
    check_leaks(fi, "leaks: none kept", 0, 0, 0);
    free(a);
}

int main(int argc, char **argv)
{
    FITestAPI api;
    FILeakAPI leaks;
    const char *self = strrchr(argv[0], '/');

    (void)argc;
    setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));
    if (fi_api_resolve(&api, "fi_malloc") < 0)
        return 1;

    if (!(leaks.track = (int (*)(const char *))fi_api_sym("fi_malloc", "leaks_track")) ||
        !(leaks.leaks = (long (*)(unsigned long *, unsigned long *))
                        fi_api_sym("fi_malloc", "leaks")) ||
        !(leaks.leak = (int (*)(unsigned, void **, int, unsigned long *))
                       fi_api_sym("fi_malloc", "leak")))
        return 1;
    self = self ? self + 1 : argv[0];
    run(&api, self);
    run_leaks(&leaks, self);
    return failed ? 1 : 0;
}
