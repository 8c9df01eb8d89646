/*
 * fi_target: the one caller targeting every interposed family uses: does a call's
 * return address lie in a loaded object whose file name contains a substring?
 *
 * fi_target_set() takes the executable segments of the matching objects once, now
 * (dl_iterate_phdr; the main program is named by argv[0], as dladdr() names it), so
 * that a call costs a few compares and never takes the loader's lock; set the target
 * again after dlopen()ing the object. The ranges are published under a sequence lock,
 * so a reader never blocks; writers are serialised by the target's own mutex, never a
 * family's window lock (a thread inside dlopen() holds the loader's lock and may call
 * the family while the writer waits for that lock).
 */
#ifndef FI_TARGET_H
#define FI_TARGET_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define FI_TARGET_MAX 256
#define FI_RANGES_MAX 256

#if defined(__APPLE__) && !defined(FI_TARGET_DLADDR)
#define FI_TARGET_DLADDR 1 /* no dl_iterate_phdr() */
#endif

#ifdef FI_TARGET_DLADDR
/* Where there is no dl_iterate_phdr(): each call's object is named by dladdr() (the
 * loader's lock, outside the target's) and matched under the target's lock. */
#include <dlfcn.h>

typedef struct FITarget {
    pthread_mutex_t lock;
    int any;
    char substr[FI_TARGET_MAX];
} FITarget;

#define FI_TARGET_INIT(match_any) { .lock = PTHREAD_MUTEX_INITIALIZER, .any = (match_any) }

static inline int fi_target_matches(FITarget *t, const void *caller)
{
    Dl_info info;
    const char *name = dladdr(caller, &info) ? info.dli_fname : NULL;
    int hit;

    if (pthread_mutex_lock(&t->lock))
        return 0;
    hit = t->any || (t->substr[0] && name && strstr(name, t->substr));
    pthread_mutex_unlock(&t->lock);
    return hit;
}

static inline int fi_target_set(FITarget *t, const char *substr, int empty)
{
    Dl_info info;

    if (substr && substr[0] && !dladdr((const void *)&fi_target_matches, &info))
        return -1;              /* dladdr() cannot name this object: nor any caller */
    if (pthread_mutex_lock(&t->lock))
        return -1;
    t->substr[0] = '\0';
    if (substr)
        strncat(t->substr, substr, FI_TARGET_MAX - 1);
    t->any = !t->substr[0] && empty;
    pthread_mutex_unlock(&t->lock);
    return 0;
}
#else
#include <errno.h>
#include <link.h>

typedef struct FITarget {
    pthread_mutex_t lock;       /* serialises fi_target_set() */
    atomic_uint seq;            /* odd while a writer publishes */
    atomic_int any;             /* every caller matches */
    atomic_uint n;
    atomic_uintptr_t lo[FI_RANGES_MAX];
    atomic_uintptr_t len[FI_RANGES_MAX];
} FITarget;

/* A target that matches every caller (`any` 1, the malloc family's default) or none. */
#define FI_TARGET_INIT(match_any) { .lock = PTHREAD_MUTEX_INITIALIZER, .any = (match_any) }

static inline int fi_target_matches(FITarget *t, const void *caller)
{
    uintptr_t pc = (uintptr_t)caller;
    unsigned seq, n;
    int hit;

    do {
        while ((seq = atomic_load_explicit(&t->seq, memory_order_acquire)) & 1)
            ;
        hit = atomic_load_explicit(&t->any, memory_order_relaxed);
        n   = atomic_load_explicit(&t->n, memory_order_relaxed);
        for (unsigned i = 0; !hit && i < n && i < FI_RANGES_MAX; i++)
            hit = pc - atomic_load_explicit(&t->lo[i], memory_order_relaxed) <
                  atomic_load_explicit(&t->len[i], memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
    } while (atomic_load_explicit(&t->seq, memory_order_relaxed) != seq);
    return hit;
}

typedef struct FIRanges {
    char substr[FI_TARGET_MAX];
    unsigned n;
    int overflow;
    uintptr_t lo[FI_RANGES_MAX];
    uintptr_t len[FI_RANGES_MAX];
} FIRanges;

static inline int fi_target_add_object(struct dl_phdr_info *info, size_t size, void *opaque)
{
    FIRanges *r = opaque;
    const char *name = info->dlpi_name;

    (void)size;
    if (!name || !name[0])      /* the main program: dladdr() names it argv[0] */
        name = program_invocation_name;
    if (!name || !strstr(name, r->substr))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        if (r->n == FI_RANGES_MAX) {
            r->overflow = 1;
            return 1;
        }
        r->lo[r->n]  = info->dlpi_addr + ph->p_vaddr;
        r->len[r->n] = ph->p_memsz;
        r->n++;
    }
    return 0;
}

/*
 * Target the callers in the objects whose file name contains `substr` (truncated to
 * FI_TARGET_MAX - 1 bytes); NULL or "" sets `empty` instead: 1 every caller, 0 none.
 * Returns 0, or -1 when no loaded object matches (or too many segments do): then no
 * caller matches until the target is set again.
 */
static inline int fi_target_set(FITarget *t, const char *substr, int empty)
{
    static FIRanges ranges;     /* big; one for every target of this object, under ranges_lock */
    static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;
    FIRanges *r = NULL;
    unsigned seq;
    int any = 0, ret = 0;

    if (pthread_mutex_lock(&t->lock))
        return -1;
    if (!substr || !substr[0]) {
        any = empty;
    } else if (pthread_mutex_lock(&ranges_lock)) {
        pthread_mutex_unlock(&t->lock);
        return -1;
    } else {
        r = &ranges;
        r->substr[0] = '\0';
        strncat(r->substr, substr, FI_TARGET_MAX - 1);
        r->n        = 0;
        r->overflow = 0;
        dl_iterate_phdr(fi_target_add_object, r);
        if (!r->n || r->overflow) {
            r->n = 0;           /* match nothing */
            ret  = -1;
        }
    }

    seq = atomic_load_explicit(&t->seq, memory_order_relaxed);
    atomic_store_explicit(&t->seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&t->any, any, memory_order_relaxed);
    atomic_store_explicit(&t->n, r ? r->n : 0, memory_order_relaxed);
    for (unsigned i = 0; r && i < r->n; i++) {
        atomic_store_explicit(&t->lo[i], r->lo[i], memory_order_relaxed);
        atomic_store_explicit(&t->len[i], r->len[i], memory_order_relaxed);
    }
    atomic_store_explicit(&t->seq, seq + 2, memory_order_release);

    if (r)
        pthread_mutex_unlock(&ranges_lock);
    pthread_mutex_unlock(&t->lock);
    return ret;
}
#endif /* FI_TARGET_DLADDR */

#endif /* FI_TARGET_H */
