/*
 * fi_family: the one core of every family. The file generated from a family's stanza
 * (<family>.fi, by harness/compile/interposers.py) includes it once: the family's lock,
 * its fault window (fi_window.h: skip/count/err, delay, counters, site stacks and
 * functions; one per function for a stanza with `window per-function`), its caller
 * target (fi_target.h), the thread's busy guard, the decision each call asks for, and,
 * through FI_FAMILY_API(fi_<family>) (or FI_FAMILY_WINDOW_API per window), the control
 * calls fi_<family>_arm, _arm_delay, _disarm, _site, _site_function, _calls, _eligible,
 * _failures and _target_caller that the harness finds by name (dlsym) at run time.
 *
 * Define FI_TLS before including it to give the busy guard another storage class (the
 * malloc family's is initial-exec: no allocation on a thread's first access).
 */
#ifndef FI_FAMILY_H
#define FI_FAMILY_H

#include <pthread.h>
#include <stdatomic.h>

#include "fi_target.h"
#include "fi_window.h"

#ifndef FI_TLS
#define FI_TLS _Thread_local
#endif

static pthread_mutex_t fi_lock = PTHREAD_MUTEX_INITIALIZER;
static FIWindow fi_window;                     /* guarded by fi_lock */
static FITarget fi_target = FI_TARGET_INIT(1); /* any caller until a target is set */
static FI_TLS int fi_busy;                     /* inside the injector on this thread */

/* Count a call of function `fn` (its index in the stanza) in window `w` and decide its
 * fate: 0 = call through, otherwise the value to fail with. *eligible: the call was
 * counted in the window (armed, its caller targeted). A call made from inside the
 * injector is neither counted nor failed. */
static int fi_decide_in(FIWindow *w, void *caller, int *eligible, unsigned fn)
{
    int err;

    *eligible = 0;
    if (fi_busy)
        return 0;
    atomic_fetch_add_explicit(&w->calls, 1, memory_order_relaxed);
    if (!atomic_load_explicit(&w->armed, memory_order_acquire) ||
        !fi_target_matches(&fi_target, caller))
        return 0;
    *eligible = 1;
    fi_busy++;
    err = fi_window_take_locked(&fi_lock, w, fn);
    fi_busy--;
    return err;
}

/* The family's one window (a stanza without `window per-function`). */
static inline int fi_decide(void *caller, int *eligible, unsigned fn)
{
    return fi_decide_in(&fi_window, caller, eligible, fn);
}

/* The control calls of window `w` (fi_pthread_create.h documents them once for all). */
#define FI_FAMILY_WINDOW_API(name, w)                                           \
    FI_WINDOW_API(name, w, fi_lock, fi_busy++, fi_busy--)                       \
    int name##_target_caller(const char *substr)                                \
    {                                                                           \
        int ret;                                                                \
                                                                                \
        fi_busy++;                                                              \
        ret = fi_target_set(&fi_target, substr, 1);                             \
        fi_busy--;                                                              \
        return ret;                                                             \
    }

/* The control calls of the family's one window. */
#define FI_FAMILY_API(name) FI_FAMILY_WINDOW_API(name, fi_window)

#endif /* FI_FAMILY_H */
