/*
 * fi_pthread_create_core: the fault decision shared by all pthread_create() injectors.
 *
 * Arming state (err, skip, count, the per-arm call number) lives under one
 * mutex so that a call always sees a consistent arm; an atomic flag keeps
 * the unarmed path lock-free. Counters are C11 atomics. The caller target
 * and the tracked callers are the families' one targeting (fi_target.h:
 * address ranges taken when set, no loader lock per call), and a
 * thread-local guard makes sure a pthread_create() issued from inside the
 * injector is never failed.
 *
 * Tracking: a thread a tracked caller creates starts in fi_trampoline(),
 * which runs the real start routine and counts it as running until it
 * ends. Its start routine and argument travel in one of FI_SLOTS static
 * slots (no allocation: the malloc injector may be armed).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "fi_pthread_create_core.h"
#include "fi_target.h"
#include "fi_window.h"

#define FI_SLOTS 64

static pthread_mutex_t fi_lock = PTHREAD_MUTEX_INITIALIZER;
static FIWindow fi_window;           /* guarded by fi_lock */
static FITarget fi_target = FI_TARGET_INIT(1); /* any caller until a target is set */
static _Thread_local int fi_busy;

typedef struct FISlot {
    atomic_int used;
    void *(*start)(void *);
    void *arg;
} FISlot;

static FISlot fi_slots[FI_SLOTS];
static FITarget fi_track = FI_TARGET_INIT(0);  /* none tracked until set */
static atomic_ulong fi_running, fi_untracked;

int fi_core_decide(void *caller)
{
    int err = 0;

    atomic_fetch_add(&fi_window.calls, 1);
    if (fi_busy || !atomic_load(&fi_window.armed))
        return 0;
    fi_busy = 1;
    if (fi_target_matches(&fi_target, caller))
        err = fi_window_take_locked(&fi_lock, &fi_window);
    fi_busy = 0;
    return err;
}

static int tracked(void *caller)
{
    return !fi_busy && fi_target_matches(&fi_track, caller);
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

int fi_pthread_create_track_caller(const char *substr)
{
    return fi_target_set(&fi_track, substr, 0);
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
    return fi_target_set(&fi_target, substr, 1);
}
