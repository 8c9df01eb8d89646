"""The fault injectors' control calls: the pthread_create and malloc families, resolved
at run time, and the link-time family for FFmpeg's own helpers (fi_wrap.h), which
every variant of the module links in.

With the LD_PRELOAD interposers the functions live in the preloaded libraries and are
found with dlsym(RTLD_DEFAULT, "fi_<family>_arm") and so on; in the `--wrap` variant of
the module the pthread_create family is linked in (FFDNN_WRAP_INJECTOR). A family
that is not there fails every call with AVERROR(ENOSYS)."""

INCLUDES = """
#include <dlfcn.h>
#include <stdio.h>
"""

TYPES = """
#define FFDNN_FAMILY_PTHREAD_CREATE ...
#define FFDNN_FAMILY_MALLOC ...
"""

FUNCTIONS = """
int ffdnn_inject_available(int family);
int ffdnn_inject_arm(int family, int err, unsigned skip, unsigned count, const char *caller);
void ffdnn_inject_disarm(int family);

int fi_wrap_count(void);
const char *fi_wrap_symbol(int i);
int fi_wrap_arm(const char *symbol, int value, unsigned skip, unsigned count);
void fi_wrap_disarm(void);
int fi_wrap_counters(const char *symbol, unsigned long *calls, unsigned long *eligible,
                     unsigned long *failures);
int fi_wrap_site(const char *symbol, unsigned n, void **frames, int max);

int ffdnn_inject_site(int family, unsigned n, void **frames, int max);
const char *ffdnn_addr_object(void *addr, void **base);
int ffdnn_inject_counters(int family, unsigned long *calls, unsigned long *eligible,
                          unsigned long *failures);
"""

CUSTOMIZATIONS = """
#include "fi_wrap.h"
#ifdef FFDNN_WRAP_INJECTOR
#include "fi_pthread_create.h"
#endif

#define FFDNN_FAMILY_PTHREAD_CREATE 0
#define FFDNN_FAMILY_MALLOC         1

typedef struct FFDNNFamily {
    const char *prefix;
    int (*arm)(int, unsigned, unsigned);
    void (*disarm)(void);
    int (*target)(const char *);
    unsigned long (*calls)(void);
    unsigned long (*eligible)(void);
    unsigned long (*failures)(void);
    int (*site)(unsigned, void **, int);
} FFDNNFamily;

static FFDNNFamily ffdnn_families[] = {
    { "fi_pthread_create" },
    { "fi_malloc" },
};

static void *ffdnn_family_sym(const FFDNNFamily *f, const char *name)
{
    char sym[64];

    if (snprintf(sym, sizeof(sym), "%s_%s", f->prefix, name) >= (int)sizeof(sym))
        return NULL;
    return dlsym(RTLD_DEFAULT, sym);
}

static FFDNNFamily *ffdnn_family(int family)
{
    FFDNNFamily *f;

    if (family < 0 || family >= (int)(sizeof(ffdnn_families) / sizeof(*ffdnn_families)))
        return NULL;
    f = &ffdnn_families[family];
    if (f->arm)
        return f;
#ifdef FFDNN_WRAP_INJECTOR
    if (family == FFDNN_FAMILY_PTHREAD_CREATE) {
        f->disarm   = fi_pthread_create_disarm;
        f->target   = fi_pthread_create_target_caller;
        f->calls    = fi_pthread_create_calls;
        f->eligible = fi_pthread_create_eligible;
        f->failures = fi_pthread_create_failures;
        f->site     = fi_pthread_create_site;
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
    if (f->disarm && f->target && f->calls && f->eligible && f->failures && f->site)
        f->arm = (int (*)(int, unsigned, unsigned))ffdnn_family_sym(f, "arm");
    return f->arm ? f : NULL;
}

int ffdnn_inject_available(int family)
{
    return ffdnn_family(family) != NULL;
}

int ffdnn_inject_arm(int family, int err, unsigned skip, unsigned count, const char *caller)
{
    FFDNNFamily *f = ffdnn_family(family);

    if (!f)
        return AVERROR(ENOSYS);
    if (f->target(caller) < 0)
        return AVERROR(ENOENT);  /* no loaded object matches the caller */
    return f->arm(err, skip, count) < 0 ? AVERROR(EINVAL) : 0;
}

void ffdnn_inject_disarm(int family)
{
    FFDNNFamily *f = ffdnn_family(family);

    if (f)
        f->disarm();
}

int ffdnn_inject_site(int family, unsigned n, void **frames, int max)
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

int ffdnn_inject_counters(int family, unsigned long *calls, unsigned long *eligible,
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
"""
