/*
 * fi_api: an injector family's control API as function pointers, and its
 * resolution with dlsym(RTLD_DEFAULT, "<prefix>_arm") and so on, for test
 * programs that reach a preloaded injector without linking to it.
 */
#ifndef FI_API_H
#define FI_API_H

#include <dlfcn.h>
#include <stdio.h>

typedef struct FITestAPI {
    int (*arm)(int err, unsigned skip, unsigned count);
    void (*disarm)(void);
    int (*target_caller)(const char *substr);
    unsigned long (*calls)(void);
    unsigned long (*eligible)(void);
    unsigned long (*failures)(void);
} FITestAPI;

static inline void *fi_api_sym(const char *prefix, const char *name)
{
    char sym[64];
    void *fn = NULL;

    if (snprintf(sym, sizeof(sym), "%s_%s", prefix, name) < (int)sizeof(sym))
        fn = dlsym(RTLD_DEFAULT, sym);
    if (!fn)
        printf("FAIL resolve %s_%s: not found (LD_PRELOAD not set?)\n", prefix, name);
    return fn;
}

/* Fill *api from the preloaded injector of `prefix` (e.g. "fi_malloc"):
 * 0, or -1 (with a FAIL line) when a function is missing. */
static inline int fi_api_resolve(FITestAPI *api, const char *prefix)
{
    void *fn[6] = {
        fi_api_sym(prefix, "arm"),   fi_api_sym(prefix, "disarm"),
        fi_api_sym(prefix, "target_caller"), fi_api_sym(prefix, "calls"),
        fi_api_sym(prefix, "eligible"), fi_api_sym(prefix, "failures"),
    };

    for (int i = 0; i < 6; i++)
        if (!fn[i])
            return -1;
    api->arm           = (int (*)(int, unsigned, unsigned))fn[0];
    api->disarm        = (void (*)(void))fn[1];
    api->target_caller = (int (*)(const char *))fn[2];
    api->calls         = (unsigned long (*)(void))fn[3];
    api->eligible      = (unsigned long (*)(void))fn[4];
    api->failures      = (unsigned long (*)(void))fn[5];
    return 0;
}

#endif /* FI_API_H */
