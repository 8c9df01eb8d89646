/*
 * interpose_pthread_create_darwin: macOS pthread_create() injector for
 * DYLD_INSERT_LIBRARIES. Build as a dylib with fi_pthread_create_core.c; dyld reads the
 * __DATA,__interpose tuples of inserted images and rebinds every other
 * image's pthread_create to the replacement. The inserted image itself is
 * not rebound, so the replacement's own pthread_create() call reaches the
 * real one. Untested in this project's CI (Linux); elsewhere this file
 * compiles to an empty unit.
 */
#if defined(__APPLE__)
#include <pthread.h>

#include "fi_pthread_create_core.h"

static int fi_interposed_pthread_create(pthread_t *thread,
                                        const pthread_attr_t *attr,
                                        void *(*start)(void *), void *arg)
{
    int err = fi_core_decide(__builtin_return_address(0));

    if (err)
        return err;
    return pthread_create(thread, attr, start, arg);
}

__attribute__((used)) static const struct {
    const void *replacement;
    const void *replacee;
} fi_interpose[] __attribute__((section("__DATA,__interpose"))) = {
    { (const void *)fi_interposed_pthread_create, (const void *)pthread_create },
};
#else
typedef int fi_interpose_darwin_empty; /* ISO C wants a non-empty unit */
#endif
