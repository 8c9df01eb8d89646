/*
 * preload_pthread_create: LD_PRELOAD interposer for pthread_create() on
 * Linux/ELF. Build as a shared object with fi_pthread_create_core.c and run the target
 * with LD_PRELOAD=libfi_pthread_create.so; arm it through the API in
 * fi_pthread_create.h (resolve it with dlsym(RTLD_DEFAULT, ...)).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "fi_pthread_create_core.h"

typedef int (*pthread_create_fn)(pthread_t *thread, const pthread_attr_t *attr,
                                 void *(*start)(void *), void *arg);

static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static pthread_create_fn real_pthread_create;

/*
 * glibc >= 2.34 exports pthread_create twice: pthread_create@@GLIBC_2.34
 * (the default) and pthread_create@GLIBC_2.2.5 (compat, for binaries linked
 * against the old libpthread; GLIBC_2.2.5 is the x86_64 base version).
 * dlsym(RTLD_NEXT) without a version gives the default one, and on glibc
 * 2.36/x86_64 both are the same address. Unversioned lookups of
 * multiply-versioned pthread symbols have handed out the compat version
 * before (the pthread_cond_* trap that interposers work around with
 * dlvsym), so ask by version: 2.34 first, then the pre-2.34 libpthread's
 * 2.2.5, and plain dlsym() for other architectures and C libraries.
 */
static void resolve_real(void)
{
    void *sym = NULL;

#ifdef __GLIBC__
    static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5" };

    for (size_t i = 0; !sym && i < sizeof(versions) / sizeof(versions[0]); i++)
        sym = dlvsym(RTLD_NEXT, "pthread_create", versions[i]);
#endif
    if (!sym)
        sym = dlsym(RTLD_NEXT, "pthread_create");
    real_pthread_create = (pthread_create_fn)sym;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*start)(void *), void *arg)
{
    if (pthread_once(&real_once, resolve_real) || !real_pthread_create) {
        int err = fi_core_decide(__builtin_return_address(0));
        return err ? err : EAGAIN;
    }
    return fi_core_create(real_pthread_create, __builtin_return_address(0),
                          thread, attr, start, arg);
}
