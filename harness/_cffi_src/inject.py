"""The pthread_create() injector's control calls, resolved at run time.

With the LD_PRELOAD interposer the functions live in the preloaded library and
are found with dlsym(RTLD_DEFAULT); in the `--wrap` variant of the module they
are linked in (FFDNN_WRAP_INJECTOR). Without either, every call fails with
AVERROR(ENOSYS) and `ffdnn_inject_available()` says 0."""

INCLUDES = """
#include <dlfcn.h>
"""

TYPES = ""

FUNCTIONS = """
int ffdnn_inject_available(void);
int ffdnn_inject_arm(int err, unsigned skip, unsigned count, const char *caller);
void ffdnn_inject_disarm(void);
int ffdnn_inject_counters(unsigned long *calls, unsigned long *eligible,
                          unsigned long *failures);
"""

CUSTOMIZATIONS = """
#ifdef FFDNN_WRAP_INJECTOR
#include "fi_pthread_create.h"
#endif

static struct {
    int (*arm)(int, unsigned, unsigned);
    void (*disarm)(void);
    int (*target)(const char *);
    unsigned long (*calls)(void);
    unsigned long (*eligible)(void);
    unsigned long (*failures)(void);
} fi;

int ffdnn_inject_available(void)
{
    if (fi.arm)
        return 1;
#ifdef FFDNN_WRAP_INJECTOR
    fi.arm      = fi_pthread_create_arm;
    fi.disarm   = fi_pthread_create_disarm;
    fi.target   = fi_pthread_create_target_caller;
    fi.calls    = fi_pthread_create_calls;
    fi.eligible = fi_pthread_create_eligible;
    fi.failures = fi_pthread_create_failures;
#else
    fi.disarm   = (void (*)(void))dlsym(RTLD_DEFAULT, "fi_pthread_create_disarm");
    fi.target   = (int (*)(const char *))dlsym(RTLD_DEFAULT, "fi_pthread_create_target_caller");
    fi.calls    = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "fi_pthread_create_calls");
    fi.eligible = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "fi_pthread_create_eligible");
    fi.failures = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "fi_pthread_create_failures");
    if (fi.disarm && fi.target && fi.calls && fi.eligible && fi.failures)
        fi.arm = (int (*)(int, unsigned, unsigned))dlsym(RTLD_DEFAULT, "fi_pthread_create_arm");
#endif
    return fi.arm != NULL;
}

int ffdnn_inject_arm(int err, unsigned skip, unsigned count, const char *caller)
{
    if (!ffdnn_inject_available())
        return AVERROR(ENOSYS);
    if (fi.target(caller) < 0)
        return AVERROR(ENOSYS);
    return fi.arm(err, skip, count) < 0 ? AVERROR(EINVAL) : 0;
}

void ffdnn_inject_disarm(void)
{
    if (ffdnn_inject_available())
        fi.disarm();
}

int ffdnn_inject_counters(unsigned long *calls, unsigned long *eligible,
                          unsigned long *failures)
{
    if (!ffdnn_inject_available())
        return AVERROR(ENOSYS);
    *calls    = fi.calls();
    *eligible = fi.eligible();
    *failures = fi.failures();
    return 0;
}
"""
