/*
 * fi_core: decision logic shared by the pthread_create() injector variants
 * (internal). Each variant's replacement function calls fi_core_decide()
 * with its own return address, then either returns the errno it got or
 * calls the real pthread_create().
 */
#ifndef FI_CORE_H
#define FI_CORE_H

#include "fi_pthread_create.h"

/* Count the call and decide its fate: 0 = call through, otherwise the
 * error number to return. `caller` is the replacement function's return
 * address. Calls made while the injector itself is running on this thread
 * (e.g. from dladdr) always get 0. */
int fi_core_decide(void *caller);

#endif /* FI_CORE_H */
