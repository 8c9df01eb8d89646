/*
 * fi_core: the fault decision shared by all pthread_create() injectors.
 *
 * Arming state (err, skip, count, the per-arm call number and the caller
 * target) lives under one mutex so that a call always sees a consistent
 * arm; an atomic flag keeps the unarmed path lock-free. Counters are C11
 * atomics. The caller's object is looked up with dladdr() before the lock
 * is taken (dladdr takes the loader lock, which a thread in dlopen() may
 * hold while it creates a thread), and a thread-local guard makes sure a
 * pthread_create() issued from inside the injector is never failed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "fi_core.h"
#include "fi_window.h"

#define FI_TARGET_MAX 256

static pthread_mutex_t fi_lock = PTHREAD_MUTEX_INITIALIZER;
static FIWindow fi_window;           /* guarded by fi_lock */
static char fi_target[FI_TARGET_MAX]; /* "" = any caller; guarded by fi_lock */
static _Thread_local int fi_busy;

static int caller_matches(const char *fname)
{
    if (!fi_target[0])
        return 1;
    return fname && strstr(fname, fi_target);
}

int fi_core_decide(void *caller)
{
    Dl_info info;
    const char *fname = NULL;
    void *stack[FI_DEPTH];
    int depth, err = 0;

    atomic_fetch_add(&fi_window.calls, 1);
    if (fi_busy || !atomic_load(&fi_window.armed))
        return 0;
    fi_busy = 1;

    if (dladdr(caller, &info) && info.dli_fname)
        fname = info.dli_fname;
    depth = backtrace(stack, FI_DEPTH);
    if (pthread_mutex_lock(&fi_lock))
        goto end;
    if (caller_matches(fname))
        err = fi_window_take(&fi_window, stack, depth);
    pthread_mutex_unlock(&fi_lock); /* cannot fail: we hold a default mutex */
end:
    fi_busy = 0;
    return err;
}

int fi_pthread_create_arm(int err, unsigned skip, unsigned count)
{
    if (err <= 0 || pthread_mutex_lock(&fi_lock))
        return -1;
    fi_window_arm(&fi_window, err, skip, count);
    pthread_mutex_unlock(&fi_lock);
    return 0;
}

void fi_pthread_create_disarm(void)
{
    atomic_store(&fi_window.armed, 0);
    if (pthread_mutex_lock(&fi_lock))
        return;
    fi_window_disarm(&fi_window);
    pthread_mutex_unlock(&fi_lock);
}

int fi_pthread_create_target_caller(const char *substr)
{
    Dl_info info;

    /* Probe with an address inside this object: if dladdr() cannot name
     * it, it cannot name any caller either. */
    if (substr && substr[0] && !dladdr(&fi_window, &info))
        return -1;
    if (pthread_mutex_lock(&fi_lock))
        return -1;
    fi_target[0] = '\0';
    if (substr)
        strncat(fi_target, substr, FI_TARGET_MAX - 1);
    pthread_mutex_unlock(&fi_lock);
    return 0;
}

int fi_pthread_create_site(unsigned n, void **frames, int max)
{
    return fi_window_site_locked(&fi_lock, &fi_window, n, frames, max);
}

unsigned long fi_pthread_create_calls(void)
{
    return atomic_load(&fi_window.calls);
}

unsigned long fi_pthread_create_eligible(void)
{
    return atomic_load(&fi_window.eligible);
}

unsigned long fi_pthread_create_failures(void)
{
    return atomic_load(&fi_window.failures);
}
