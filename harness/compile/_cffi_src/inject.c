/*
 * The fault injectors' control calls, compiled into every per-tree module
 * (harness/compile/_cffi_src/inject.py declares them).
 */
#include <string.h>

#include "fi_wrap.h"
#ifdef FFDNN_WRAP_INJECTOR
#include "fi_pthread_create.h"
#endif

typedef struct FFDNNFamily {
    char name[32];
    int (*arm)(int, unsigned, unsigned);
    int (*arm_delay)(unsigned, unsigned, unsigned);  /* NULL: the family has no delay */
    void (*disarm)(void);
    int (*target)(const char *);
    unsigned long (*calls)(void);
    unsigned long (*eligible)(void);
    unsigned long (*failures)(void);
    int (*site)(unsigned, void **, int);
} FFDNNFamily;

/* Families are found by name (harness/compile/families.py), resolved on first use. */
static FFDNNFamily ffdnn_families[8];

static void *ffdnn_family_sym(const FFDNNFamily *f, const char *name)
{
    char sym[64];

    if (snprintf(sym, sizeof(sym), "fi_%s_%s", f->name, name) >= (int)sizeof(sym))
        return NULL;
    return dlsym(RTLD_DEFAULT, sym);
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
#ifdef FFDNN_WRAP_INJECTOR
    if (!strcmp(family, "pthread_create")) {
        f->disarm   = fi_pthread_create_disarm;
        f->target   = fi_pthread_create_target_caller;
        f->calls    = fi_pthread_create_calls;
        f->eligible = fi_pthread_create_eligible;
        f->failures = fi_pthread_create_failures;
        f->site     = fi_pthread_create_site;
        f->arm_delay = fi_pthread_create_arm_delay;
        f->arm      = fi_pthread_create_arm;
        return f;
    }
#endif
    f->disarm   = (void (*)(void))ffdnn_family_sym(f, "disarm");
    f->target   = (int (*)(const char *))ffdnn_family_sym(f, "target_caller");
    f->calls    = (unsigned long (*)(void))ffdnn_family_sym(f, "calls");
    f->eligible = (unsigned long (*)(void))ffdnn_family_sym(f, "eligible");
    f->failures = (unsigned long (*)(void))ffdnn_family_sym(f, "failures");
    f->site     = (int (*)(unsigned, void **, int))ffdnn_family_sym(f, "site");
    f->arm_delay = (int (*)(unsigned, unsigned, unsigned))ffdnn_family_sym(f, "arm_delay");
    if (f->disarm && f->target && f->calls && f->eligible && f->failures && f->site)
        f->arm = (int (*)(int, unsigned, unsigned))ffdnn_family_sym(f, "arm");
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
    int (*track)(const char *) = NULL;

#ifdef FFDNN_WRAP_INJECTOR
    track = fi_pthread_create_track_caller;
#else
    track = (int (*)(const char *))dlsym(RTLD_DEFAULT, "fi_pthread_create_track_caller");
#endif
    if (!track)
        return AVERROR(ENOSYS);
    return track(caller) < 0 ? AVERROR(ENOENT) : 0;
}

long ffdnn_threads_running(void)
{
    unsigned long (*running)(void) = NULL, (*untracked)(void) = NULL;

#ifdef FFDNN_WRAP_INJECTOR
    running   = fi_pthread_create_running;
    untracked = fi_pthread_create_untracked;
#else
    running   = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "fi_pthread_create_running");
    untracked = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "fi_pthread_create_untracked");
#endif
    if (!running || !untracked || untracked())
        return -1;
    return (long)running();
}
