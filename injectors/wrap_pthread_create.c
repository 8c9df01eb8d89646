/*
 * wrap_pthread_create: link-time pthread_create() injector. Link this
 * object (with fi_pthread_create_core.c) using -Wl,--wrap=pthread_create: the linker then
 * sends every pthread_create() reference of that link to
 * __wrap_pthread_create() and __real_pthread_create to the real function.
 * Only references inside the objects of that link are wrapped; calls made
 * from other shared libraries are not (use the LD_PRELOAD variant there).
 */
#include <pthread.h>

#include "fi_pthread_create_core.h"

int __real_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*start)(void *), void *arg);
int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*start)(void *), void *arg);

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*start)(void *), void *arg)
{
    return fi_core_create(__real_pthread_create, __builtin_return_address(0),
                          thread, attr, start, arg);
}
