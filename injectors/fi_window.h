/*
 * fi_window: the one fault window every injector family arms: let `skip`
 * eligible calls through, fail the next `count` with `err`, let the rest
 * through. A window armed with a delay (fi_window_arm_delay(), FreeBSD
 * fail(9)'s delay(ms)) lets its calls through after sleeping `delay_ms`
 * each, outside the family's lock, with the sleeping thread named
 * FI_DELAY_NAME so that a watch from outside (/proc/PID/task/TID/comm) can
 * tell an injected delay from a thread that waits for what never comes.
 * The family holds its own lock around fi_window_arm(), fi_window_disarm()
 * and fi_window_take(); `armed` mirrors count != 0 for the lock-free fast
 * path, and the counters are C11 atomics.
 *
 * Each eligible call's stack (FI_DEPTH return addresses, from backtrace())
 * and the function it was a call of (its index in the family's stanza) are
 * kept by its number since the last arm, for the first FI_SITES calls: a
 * sweep's census names every site it will fail, and which function's fault
 * profile (the values it can fail with) applies there. The family captures the
 * stack before it takes its lock; fi_window_arm() runs backtrace() once so
 * that glibc loads its unwinder then, not inside a later call.
 */
#ifndef FI_WINDOW_H
#define FI_WINDOW_H

#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define FI_SITES 1024
#define FI_DEPTH 8
#define FI_DELAY_NAME "ffdnn-delay" /* a thread's name while it sleeps an injected delay */

typedef struct FIWindow {
    int err;
    unsigned delay_ms;          /* a delay window: sleep this long, then let the call through */
    unsigned skip;
    unsigned count;             /* 0 = disarmed */
    unsigned long seen;         /* eligible calls since the last arm */
    atomic_int armed;           /* count != 0, for the fast path */
    atomic_ulong calls;         /* every call, armed or not */
    atomic_ulong eligible;      /* calls that matched the target while armed */
    atomic_ulong failures;      /* calls the window acted on: failed, or delayed */
    void *stack[FI_SITES][FI_DEPTH]; /* eligible call n's stack, n < FI_SITES */
    unsigned char depth[FI_SITES];
    unsigned char function[FI_SITES]; /* eligible call n's function (stanza order) */
} FIWindow;

static inline void fi_window_arm(FIWindow *w, int err, unsigned skip, unsigned count)
{
    void *warm[1];

    backtrace(warm, 1); /* loads glibc's unwinder now; the count does not matter */
    w->err      = err;
    w->delay_ms = 0;
    w->skip     = skip;
    w->count    = count;
    w->seen     = 0;
    atomic_store(&w->armed, count != 0);
}

/* Arm a delay: the window's calls sleep `ms` each, then go through. */
static inline void fi_window_arm_delay(FIWindow *w, unsigned ms, unsigned skip, unsigned count)
{
    fi_window_arm(w, 0, skip, count);
    w->delay_ms = ms;
}

/* Sleep `ms` with the thread named FI_DELAY_NAME (Linux), its name and errno kept. */
static inline void fi_delay(unsigned ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    int saved = errno;
#ifdef __linux__
    char name[16] = "";
    int named = !prctl(PR_GET_NAME, name, 0, 0, 0) &&
                !prctl(PR_SET_NAME, FI_DELAY_NAME, 0, 0, 0);
#endif

    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
#ifdef __linux__
    if (named)
        prctl(PR_SET_NAME, name, 0, 0, 0);
#endif
    errno = saved;
}

static inline void fi_window_disarm(FIWindow *w)
{
    atomic_store(&w->armed, 0);
    w->count = 0;
}

/* One eligible call of function `fn` with its stack: 0 to let it through, or the error
 * to fail it with; *delay (when given) the milliseconds to sleep first, outside the
 * family's lock. */
static inline int fi_window_take(FIWindow *w, void *const *stack, int depth, unsigned *delay,
                                 unsigned fn)
{
    unsigned long n;

    if (!w->count)
        return 0;
    atomic_fetch_add(&w->eligible, 1);
    n = w->seen++;
    if (n < FI_SITES) {
        depth = depth < 0 ? 0 : depth > FI_DEPTH ? FI_DEPTH : depth;
        memcpy(w->stack[n], stack, depth * sizeof(*stack));
        w->depth[n] = depth;
        w->function[n] = (unsigned char)fn;
    }
    if (n < w->skip || n - w->skip >= w->count)
        return 0;
    atomic_fetch_add(&w->failures, 1);
    if (delay)
        *delay = w->delay_ms;
    return w->err;
}

/* Copy eligible call n's stack into frames[max]: the number of frames, 0 if
 * none was kept. The family holds its lock. */
static inline int fi_window_site(const FIWindow *w, unsigned n, void **frames, int max)
{
    int depth;

    if (n >= FI_SITES || n >= w->seen || max <= 0)
        return 0;
    depth = w->depth[n] < max ? w->depth[n] : max;
    memcpy(frames, w->stack[n], depth * sizeof(*frames));
    return depth;
}

/* Eligible call n's function (its index in the family's stanza), -1 if none was kept. */
static inline int fi_window_function(const FIWindow *w, unsigned n)
{
    return n < FI_SITES && n < w->seen ? w->function[n] : -1;
}

/* One eligible call of function `fn`, its stack taken here, under the family's lock: 0
 * to let it through (or when the lock cannot be taken), or the error to fail it with; a
 * delay window's call sleeps here first, the lock released. */
static inline int fi_window_take_locked(pthread_mutex_t *lock, FIWindow *w, unsigned fn)
{
    void *stack[FI_DEPTH];
    int depth = backtrace(stack, FI_DEPTH), err;
    unsigned delay = 0;

    if (pthread_mutex_lock(lock))
        return 0;
    err = fi_window_take(w, stack, depth, &delay, fn);
    pthread_mutex_unlock(lock);
    if (delay)
        fi_delay(delay);
    return err;
}

/* fi_window_site() under the family's lock: 0 when the lock cannot be taken. */
static inline int fi_window_site_locked(pthread_mutex_t *lock, const FIWindow *w,
                                        unsigned n, void **frames, int max)
{
    int depth;

    if (pthread_mutex_lock(lock))
        return 0;
    depth = fi_window_site(w, n, frames, max);
    pthread_mutex_unlock(lock);
    return depth;
}

/*
 * The control calls a family exports over its window `w` and its lock
 * (fi_family.h, fi_pthread_create.h): <name>_arm, _arm_delay, _disarm, _site,
 * _site_function, _calls, _eligible, _failures. `enter` and `leave` run around
 * each arm (the malloc family marks the injector busy: the unwinder
 * fi_window_arm() loads allocates). The value a window fails with is the
 * family's to read (a positive errno, an AVERROR code, a backend's own code):
 * any value but 0, which would let the call through.
 */
#define FI_WINDOW_API(name, w, lock, enter, leave)                               \
    static int name##_arm_window(int err, unsigned ms, unsigned skip,           \
                                 unsigned count)                                \
    {                                                                           \
        enter;                                                                  \
        if (pthread_mutex_lock(&(lock))) {                                      \
            leave;                                                              \
            return -1;                                                          \
        }                                                                       \
        if (ms)                                                                 \
            fi_window_arm_delay(&(w), ms, skip, count);                         \
        else                                                                    \
            fi_window_arm(&(w), err, skip, count);                              \
        pthread_mutex_unlock(&(lock));                                          \
        leave;                                                                  \
        return 0;                                                               \
    }                                                                           \
    int name##_arm(int err, unsigned skip, unsigned count)                      \
    {                                                                           \
        return err ? name##_arm_window(err, 0, skip, count) : -1;               \
    }                                                                           \
    int name##_arm_delay(unsigned ms, unsigned skip, unsigned count)            \
    {                                                                           \
        return ms ? name##_arm_window(0, ms, skip, count) : -1;                 \
    }                                                                           \
    void name##_disarm(void)                                                    \
    {                                                                           \
        atomic_store(&(w).armed, 0);                                            \
        if (pthread_mutex_lock(&(lock)))                                        \
            return;                                                             \
        fi_window_disarm(&(w));                                                 \
        pthread_mutex_unlock(&(lock));                                          \
    }                                                                           \
    int name##_site(unsigned n, void **frames, int max)                         \
    {                                                                           \
        return fi_window_site_locked(&(lock), &(w), n, frames, max);            \
    }                                                                           \
    int name##_site_function(unsigned n)                                        \
    {                                                                           \
        int fn;                                                                 \
                                                                                \
        if (pthread_mutex_lock(&(lock)))                                        \
            return -1;                                                          \
        fn = fi_window_function(&(w), n);                                       \
        pthread_mutex_unlock(&(lock));                                          \
        return fn;                                                              \
    }                                                                           \
    unsigned long name##_calls(void)    { return atomic_load(&(w).calls); }     \
    unsigned long name##_eligible(void) { return atomic_load(&(w).eligible); }  \
    unsigned long name##_failures(void) { return atomic_load(&(w).failures); }

#endif /* FI_WINDOW_H */
