/*
 * The fault families' control calls, compiled into every per-tree module
 * (harness/compile/_cffi_src/inject.py declares them). Every family exports the
 * same calls, fi_<family>_arm and so on (injectors/fi_family.h); they are found by
 * name in this module itself (the link families compiled into it, and the
 * pthread_create wrapper in its --wrap variant) or in the preloaded interposers.
 */
#include <string.h>

typedef struct FFDNNFamily {
    char name[96];
    int (*arm)(int, unsigned, unsigned);
    int (*arm_delay)(unsigned, unsigned, unsigned);  /* NULL: the family has no delay */
    void (*disarm)(void);
    int (*target)(const char *);
    unsigned long (*calls)(void);
    unsigned long (*eligible)(void);
    unsigned long (*failures)(void);
    int (*site)(unsigned, void **, int);
    int (*site_function)(unsigned);                  /* NULL: one function only */
} FFDNNFamily;

/* Families are found by name (harness/compile/families.py), resolved on first use. */
static FFDNNFamily ffdnn_families[64];

/* This module, as the loader knows it: Python loads it RTLD_LOCAL, so what it
 * defines is not in dlsym(RTLD_DEFAULT)'s reach. */
static void *ffdnn_self(void)
{
    static void *self;
    Dl_info info;

    if (!self && dladdr((void *)ffdnn_self, &info) && info.dli_fname)
        self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    return self;
}

static void *ffdnn_sym(const char *prefix, const char *name)
{
    char sym[160];
    void *self = ffdnn_self(), *fn = NULL;

    if (snprintf(sym, sizeof(sym), "fi_%s_%s", prefix, name) >= (int)sizeof(sym))
        return NULL;
    if (self)
        fn = dlsym(self, sym);
    return fn ? fn : dlsym(RTLD_DEFAULT, sym);
}

static FFDNNFamily *ffdnn_family(const char *family)
{
    FFDNNFamily *f = NULL;
    size_t i;

    if (!family || strlen(family) >= sizeof(f->name))
        return NULL;
    for (i = 0; i < sizeof(ffdnn_families) / sizeof(*ffdnn_families); i++) {
        f = &ffdnn_families[i];
        if (!strcmp(f->name, family))
            break;
        if (!f->name[0]) {
            strcpy(f->name, family);
            break;
        }
    }
    if (i == sizeof(ffdnn_families) / sizeof(*ffdnn_families))
        return NULL;
    if (f->arm)
        return f;
    f->disarm   = (void (*)(void))ffdnn_sym(family, "disarm");
    f->target   = (int (*)(const char *))ffdnn_sym(family, "target_caller");
    f->calls    = (unsigned long (*)(void))ffdnn_sym(family, "calls");
    f->eligible = (unsigned long (*)(void))ffdnn_sym(family, "eligible");
    f->failures = (unsigned long (*)(void))ffdnn_sym(family, "failures");
    f->site     = (int (*)(unsigned, void **, int))ffdnn_sym(family, "site");
    f->site_function = (int (*)(unsigned))ffdnn_sym(family, "site_function");
    f->arm_delay = (int (*)(unsigned, unsigned, unsigned))ffdnn_sym(family, "arm_delay");
    if (f->disarm && f->target && f->calls && f->eligible && f->failures && f->site)
        f->arm = (int (*)(int, unsigned, unsigned))ffdnn_sym(family, "arm");
    return f->arm ? f : NULL;
}

int ffdnn_inject_available(const char *family)
{
    return ffdnn_family(family) != NULL;
}

int ffdnn_inject_arm(const char *family, int err, unsigned skip, unsigned count, const char *caller)
{
    FFDNNFamily *f = ffdnn_family(family);

    if (!f)
        return AVERROR(ENOSYS);
    if (f->target(caller) < 0)
        return AVERROR(ENOENT);  /* no loaded object matches the caller */
    return f->arm(err, skip, count) < 0 ? AVERROR(EINVAL) : 0;
}

int ffdnn_inject_arm_delay(const char *family, unsigned ms, unsigned skip, unsigned count,
                           const char *caller)
{
    FFDNNFamily *f = ffdnn_family(family);

    if (!f || !f->arm_delay)
        return AVERROR(ENOSYS);
    if (f->target(caller) < 0)
        return AVERROR(ENOENT);
    return f->arm_delay(ms, skip, count) < 0 ? AVERROR(EINVAL) : 0;
}

void ffdnn_inject_disarm(const char *family)
{
    FFDNNFamily *f = ffdnn_family(family);

    if (f)
        f->disarm();
}

int ffdnn_inject_site(const char *family, unsigned n, void **frames, int max)
{
    FFDNNFamily *f = ffdnn_family(family);

    return f ? f->site(n, frames, max) : AVERROR(ENOSYS);
}

/* Which of the family's functions (its stanza's order) eligible call n was a call
 * of: -1 when not kept, 0 for a family whose window has one function. */
int ffdnn_inject_site_function(const char *family, unsigned n)
{
    FFDNNFamily *f = ffdnn_family(family);

    if (!f)
        return AVERROR(ENOSYS);
    return f->site_function ? f->site_function(n) : 0;
}

/* A family of the library's own codes: the value its name stands for in this tree's
 * headers (fi_<family>_value(), generated from the stanza), 0 when it names none. */
int ffdnn_inject_value(const char *family, const char *name)
{
    int (*value)(const char *) = (int (*)(const char *))ffdnn_sym(family, "value");

    return value ? value(name) : 0;
}

/* The file of the object holding addr, and where it is loaded; NULL if none. */
const char *ffdnn_addr_object(void *addr, void **base)
{
    Dl_info info;

    if (!dladdr(addr, &info) || !info.dli_fname)
        return NULL;
    *base = info.dli_fbase;
    return info.dli_fname;
}

int ffdnn_inject_counters(const char *family, unsigned long *calls, unsigned long *eligible,
                          unsigned long *failures)
{
    FFDNNFamily *f = ffdnn_family(family);

    if (!f)
        return AVERROR(ENOSYS);
    *calls    = f->calls();
    *eligible = f->eligible();
    *failures = f->failures();
    return 0;
}

/* The threads FFmpeg's own code starts (the pthread_create injector's tracking,
 * fi_pthread_create.h), counted from ffdnn_threads_track(caller) on while they run:
 * how many run now, or -1 when that is not known (no injector, or a thread the
 * injector had no slot for). */
int ffdnn_threads_track(const char *caller)
{
    int (*track)(const char *) = (int (*)(const char *))ffdnn_sym("pthread_create",
                                                                  "track_caller");

    if (!track)
        return AVERROR(ENOSYS);
    return track(caller) < 0 ? AVERROR(ENOENT) : 0;
}

long ffdnn_threads_running(void)
{
    unsigned long (*running)(void) =
        (unsigned long (*)(void))ffdnn_sym("pthread_create", "running");
    unsigned long (*untracked)(void) =
        (unsigned long (*)(void))ffdnn_sym("pthread_create", "untracked");

    if (!running || !untracked || untracked())
        return -1;
    return (long)running();
}

/* The blocks FFmpeg's own code allocates (the malloc injector's leak tracking,
 * injectors/fi_leaks.h), kept from ffdnn_leaks_track(caller) on until freed: the
 * callers in the objects whose file name contains `caller` (NULL: keep none from now
 * on, what was kept left to count); AVERROR(ENOSYS) without the injector, AVERROR(ENOENT)
 * when no loaded object matches. */
int ffdnn_leaks_track(const char *caller)
{
    int (*track)(const char *) = (int (*)(const char *))ffdnn_sym("malloc", "leaks_track");

    if (!track)
        return AVERROR(ENOSYS);
    return track(caller) < 0 ? AVERROR(ENOENT) : 0;
}

/* The blocks kept and not freed, and their bytes: how many the injector had no room
 * to keep (the counts are then at least what they say), or AVERROR(ENOSYS). */
long ffdnn_leaks(unsigned long *blocks, unsigned long *bytes)
{
    long (*leaks)(unsigned long *, unsigned long *) =
        (long (*)(unsigned long *, unsigned long *))ffdnn_sym("malloc", "leaks");

    return leaks ? leaks(blocks, bytes) : AVERROR(ENOSYS);
}

/* The n-th block kept: its stack into frames[max], its size: how many frames, -1
 * past the last block (or without the injector). */
int ffdnn_leak(unsigned n, void **frames, int max, unsigned long *size)
{
    int (*leak)(unsigned, void **, int, unsigned long *) =
        (int (*)(unsigned, void **, int, unsigned long *))ffdnn_sym("malloc", "leak");

    return leak ? leak(n, frames, max, size) : -1;
}

/* While on, this thread's allocations are not kept: the module's code that is not
 * FFmpeg's (gcov's runtime writing its counters, the harness's own C keeping its copy
 * of a filter or a DNN module for the rest of the process). */
void ffdnn_leaks_skip(int on)
{
    static void (*skip)(int);
    static int resolved;

    if (!resolved) {
        skip = (void (*)(int))ffdnn_sym("malloc", "leaks_skip");
        resolved = 1;
    }
    if (skip)
        skip(on);
}

/* gcov's runtime, in a module whose tree has objects built with --coverage (a change's
 * tree, harness/obtain/trees.py): weak, so NULL in every other module. */
extern void __gcov_dump(void) __attribute__((weak));
extern void __gcov_reset(void) __attribute__((weak));

/* Whether the module counts the lines its instrumented objects run. */
int ffdnn_coverage_available(void)
{
    return __gcov_dump && __gcov_reset;
}

/* Zero the counters (from now on only what runs is counted): -1 without gcov. */
int ffdnn_coverage_reset(void)
{
    if (!__gcov_reset)
        return -1;
    __gcov_reset();
    return 0;
}

/* Write the counters (merged into the .gcda files under GCOV_PREFIX, read when it is
 * called), then zero them, so a later dump adds only what ran since: -1 without gcov. */
int ffdnn_coverage_dump(void)
{
    if (!__gcov_dump || !__gcov_reset)
        return -1;
    ffdnn_leaks_skip(1);
    __gcov_dump();
    __gcov_reset();
    ffdnn_leaks_skip(0);
    return 0;
}
