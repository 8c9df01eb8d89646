/*
 * fi_window: the one fault window every injector family arms: let `skip`
 * eligible calls through, fail the next `count` with `err`, let the rest
 * through. The family holds its own lock around fi_window_arm(),
 * fi_window_disarm() and fi_window_take(); `armed` mirrors count != 0 for
 * the lock-free fast path, and the counters are C11 atomics.
 */
#ifndef FI_WINDOW_H
#define FI_WINDOW_H

#include <stdatomic.h>

typedef struct FIWindow {
    int err;
    unsigned skip;
    unsigned count;             /* 0 = disarmed */
    unsigned long seen;         /* eligible calls since the last arm */
    atomic_int armed;           /* count != 0, for the fast path */
    atomic_ulong calls;         /* every call, armed or not */
    atomic_ulong eligible;      /* calls that matched the target while armed */
    atomic_ulong failures;      /* failures injected */
} FIWindow;

static inline void fi_window_arm(FIWindow *w, int err, unsigned skip, unsigned count)
{
    w->err   = err;
    w->skip  = skip;
    w->count = count;
    w->seen  = 0;
    atomic_store(&w->armed, count != 0);
}

static inline void fi_window_disarm(FIWindow *w)
{
    atomic_store(&w->armed, 0);
    w->count = 0;
}

/* One eligible call: 0 to let it through, or the error to fail it with. */
static inline int fi_window_take(FIWindow *w)
{
    unsigned long n;

    if (!w->count)
        return 0;
    atomic_fetch_add(&w->eligible, 1);
    n = w->seen++;
    if (n < w->skip || n - w->skip >= w->count)
        return 0;
    atomic_fetch_add(&w->failures, 1);
    return w->err;
}

#endif /* FI_WINDOW_H */
