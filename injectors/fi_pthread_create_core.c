/*
 * fi_pthread_create_core: the fault decision shared by all pthread_create() injectors.
 *
 * Arming state (err, skip, count, the per-arm call number and the caller
 * target) lives under one mutex so that a call always sees a consistent
 * arm; an atomic flag keeps the unarmed path lock-free. Counters are C11
 * atomics. The caller's object is looked up with dladdr() before the lock
 * is taken (dladdr takes the loader lock, which a thread in dlopen() may
 * hold while it creates a thread), and a thread-local guard makes sure a
 * pthread_create() issued from inside the injector is never failed.
 *
 * Tracking: a thread a tracked caller creates starts in fi_trampoline(),
 * which runs the real start routine and counts it as running until it
 * ends. Its start routine and argument travel in one of FI_SLOTS static
 * slots (no allocation: the malloc injector may be armed).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "fi_pthread_create_core.h"
#include "fi_window.h"

#define FI_TARGET_MAX 256
#define FI_SLOTS 64

static pthread_mutex_t fi_lock = PTHREAD_MUTEX_INITIALIZER;
static FIWindow fi_window;           /* guarded by fi_lock */
static char fi_target[FI_TARGET_MAX]; /* "" = any caller; guarded by fi_lock */
static _Thread_local int fi_busy;

typedef struct FISlot {
    atomic_int used;
    void *(*start)(void *);
    void *arg;
} FISlot;

static FISlot fi_slots[FI_SLOTS];
static char fi_track[FI_TARGET_MAX];  /* "" = track none; guarded by fi_lock */
static atomic_int fi_tracking;        /* fi_track is not empty */
static atomic_ulong fi_running, fi_untracked;

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
    unsigned delay = 0;

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
        err = fi_window_take(&fi_window, stack, depth, &delay);
    pthread_mutex_unlock(&fi_lock); /* cannot fail: we hold a default mutex */
    if (delay)
        fi_delay(delay);
end:
    fi_busy = 0;
    return err;
}

static int tracked(void *caller)
{
    Dl_info info;
    int yes = 0;

    if (fi_busy || !atomic_load(&fi_tracking))
        return 0;
    fi_busy = 1;
    if (dladdr(caller, &info) && info.dli_fname && !pthread_mutex_lock(&fi_lock)) {
        yes = fi_track[0] && strstr(info.dli_fname, fi_track);
        pthread_mutex_unlock(&fi_lock);
    }
    fi_busy = 0;
    return yes;
}

static void thread_ended(void *unused)
{
    (void)unused;
    atomic_fetch_sub(&fi_running, 1);
}

static void *fi_trampoline(void *p)
{
    FISlot *slot = p;
    void *(*start)(void *) = slot->start;
    void *arg = slot->arg, *ret;

    atomic_store(&slot->used, 0);
    pthread_cleanup_push(thread_ended, NULL);
    ret = start(arg);
    pthread_cleanup_pop(1);
    return ret;
}

int fi_core_create(fi_create_fn real, void *caller, pthread_t *thread,
                   const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    FISlot *slot = NULL;
    int err = fi_core_decide(caller);

    if (err)
        return err;
    if (!tracked(caller))
        return real(thread, attr, start, arg);
    for (int i = 0; i < FI_SLOTS && !slot; i++) {
        int free_ = 0;
        if (atomic_compare_exchange_strong(&fi_slots[i].used, &free_, 1))
            slot = &fi_slots[i];
    }
    if (!slot) {
        atomic_fetch_add(&fi_untracked, 1);
        return real(thread, attr, start, arg);
    }
    slot->start = start;
    slot->arg   = arg;
    atomic_fetch_add(&fi_running, 1);  /* before the thread can end */
    err = real(thread, attr, fi_trampoline, slot);
    if (err) {
        atomic_fetch_sub(&fi_running, 1);
        atomic_store(&slot->used, 0);
    }
    return err;
}

/* Set one of the caller strings (the target, the tracked) to substr, NULL or "" for
 * none, under the lock; `nonempty`, when given, says whether it is set. Probes with an
 * address inside this object first: if dladdr() cannot name it, it cannot name any
 * caller either. */
static int set_caller(char *dst, const char *substr, atomic_int *nonempty)
{
    Dl_info info;

    if (substr && substr[0] && !dladdr(&fi_window, &info))
        return -1;
    if (pthread_mutex_lock(&fi_lock))
        return -1;
    dst[0] = '\0';
    if (substr)
        strncat(dst, substr, FI_TARGET_MAX - 1);
    if (nonempty)
        atomic_store(nonempty, dst[0] != '\0');
    pthread_mutex_unlock(&fi_lock);
    return 0;
}

int fi_pthread_create_track_caller(const char *substr)
{
    return set_caller(fi_track, substr, &fi_tracking);
}

unsigned long fi_pthread_create_running(void)
{
    return atomic_load(&fi_running);
}

unsigned long fi_pthread_create_untracked(void)
{
    return atomic_load(&fi_untracked);
}

FI_WINDOW_API(fi_pthread_create, fi_window, fi_lock, (void)0, (void)0)

int fi_pthread_create_target_caller(const char *substr)
{
    return set_caller(fi_target, substr, NULL);
}
