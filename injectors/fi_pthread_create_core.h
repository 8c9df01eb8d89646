/*
 * fi_pthread_create_core: decision logic shared by the pthread_create() injector variants
 * (internal). Each variant's replacement function calls fi_core_create()
 * (or fi_core_decide()) with its own return address and the real
 * pthread_create().
 */
#ifndef FI_PTHREAD_CREATE_CORE_H
#define FI_PTHREAD_CREATE_CORE_H

#include <pthread.h>

#include "fi_pthread_create.h"

/* Count the call and decide its fate: 0 = call through, otherwise the
 * error number to return. `caller` is the replacement function's return
 * address. Calls made while the injector itself is running on this thread
 * always get 0. */
int fi_core_decide(void *caller);

typedef int (*fi_create_fn)(pthread_t *thread, const pthread_attr_t *attr,
                            void *(*start)(void *), void *arg);

/* fi_core_decide(), then the real call; a thread a tracked caller starts
 * (fi_pthread_create_track_caller) runs through a small trampoline that
 * keeps fi_pthread_create_running() while it runs. */
int fi_core_create(fi_create_fn real, void *caller, pthread_t *thread,
                   const pthread_attr_t *attr, void *(*start)(void *), void *arg);

#endif /* FI_PTHREAD_CREATE_CORE_H */
