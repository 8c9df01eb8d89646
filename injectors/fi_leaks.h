/*
 * fi_leaks: the blocks a caller's code allocated and has not freed, the malloc family's
 * own (fi_malloc_hooks.h includes it). After fi_malloc_leaks_track(substr), every block
 * malloc(), calloc(), realloc() or posix_memalign() returns to a caller whose object's
 * file name contains substr (fi_target.h: the caller targeting of every family) is kept,
 * with its size and its stack, until it is freed; fi_malloc_leaks() counts the blocks
 * kept, fi_malloc_leak() gives each one's stack. The harness tracks FFmpeg's own code
 * (its module) from a run's arm on and counts once the graph is freed: what is left
 * then was left behind (harness/run/worker.py).
 *
 * A realloc() of a kept block keeps the block it returns (with the realloc()'s stack);
 * one of a block not kept (allocated before tracking began, or by another object)
 * keeps nothing: only the blocks allocated while tracking count. A block allocated
 * from inside the injector is never kept.
 *
 * Nothing here allocates: the table is static, open addressing with linear probing and
 * backward-shift deletion, under one mutex, never held across a call that can allocate
 * or free. free() is called by every library in the process, so it first reads,
 * lock-free, how many kept blocks have their home in its pointer's slot: a block that
 * is not kept almost always finds 0 and takes no lock. A kept block's count is raised
 * before the allocation returns it, so the thread that frees it, which got the pointer
 * from the allocating one, sees it. Past 3/4 of the table a block is not kept but
 * counted (`untracked`): the counts are then at least what they say.
 */
#ifndef FI_LEAKS_H
#define FI_LEAKS_H

#include <execinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "fi_target.h"

#define FI_LEAK_BITS  15
#define FI_LEAK_SLOTS (1u << FI_LEAK_BITS)
#define FI_LEAK_MASK  (FI_LEAK_SLOTS - 1)
#define FI_LEAK_FULL  (FI_LEAK_SLOTS / 4 * 3)
#define FI_LEAK_DEPTH 12

typedef struct FILeak {
    void *ptr;                  /* NULL: an empty slot */
    size_t size;
    int depth;
    void *stack[FI_LEAK_DEPTH];
} FILeak;

static FITarget fi_leak_target = FI_TARGET_INIT(0);
static FI_TLS int fi_leak_skip;                   /* this thread's blocks are not kept */
static atomic_int fi_leak_on;                     /* blocks allocated now are kept */
static atomic_ushort fi_leak_home[FI_LEAK_SLOTS]; /* kept blocks whose home is slot i */
static pthread_mutex_t fi_leak_lock = PTHREAD_MUTEX_INITIALIZER;
static FILeak fi_leak_table[FI_LEAK_SLOTS];       /* the rest guarded by fi_leak_lock */
static unsigned long fi_leak_blocks, fi_leak_untracked;
static size_t fi_leak_bytes;

static unsigned fi_leak_slot(const void *ptr)
{
    uint64_t x = (uint64_t)((uintptr_t)ptr >> 4) * UINT64_C(0x9e3779b97f4a7c15);

    return (unsigned)(x >> (64 - FI_LEAK_BITS));
}

/* Under the lock: keep `leak` (a block already kept at that address is replaced: its
 * free was not seen). */
static void fi_leak_insert(const FILeak *leak)
{
    unsigned home = fi_leak_slot(leak->ptr), i = home;

    while (fi_leak_table[i].ptr && fi_leak_table[i].ptr != leak->ptr)
        i = (i + 1) & FI_LEAK_MASK;
    if (fi_leak_table[i].ptr) {
        fi_leak_bytes -= fi_leak_table[i].size;
    } else if (fi_leak_blocks >= FI_LEAK_FULL) {
        fi_leak_untracked++;
        return;
    } else {
        fi_leak_blocks++;
        atomic_fetch_add(&fi_leak_home[home], 1);
    }
    fi_leak_table[i] = *leak;
    fi_leak_bytes += leak->size;
}

/* Under the lock: forget the block at `ptr`, its entry copied to *out (when given): 1,
 * or 0 when it is not kept. */
static int fi_leak_remove(const void *ptr, FILeak *out)
{
    unsigned home = fi_leak_slot(ptr), i = home, j, k;

    while (fi_leak_table[i].ptr != ptr) {
        if (!fi_leak_table[i].ptr)
            return 0;
        i = (i + 1) & FI_LEAK_MASK;
    }
    if (out)
        *out = fi_leak_table[i];
    fi_leak_blocks--;
    fi_leak_bytes -= fi_leak_table[i].size;
    atomic_fetch_sub(&fi_leak_home[home], 1);
    for (j = i;;) {             /* shift back the entries the hole would hide */
        j = (j + 1) & FI_LEAK_MASK;
        if (!fi_leak_table[j].ptr)
            break;
        k = fi_leak_slot(fi_leak_table[j].ptr);
        if (j > i ? k > i && k <= j : k > i || k <= j)
            continue;           /* its home lies between the hole and it: it stays */
        fi_leak_table[i] = fi_leak_table[j];
        i = j;
    }
    fi_leak_table[i].ptr = NULL;
    return 1;
}

/* Could `ptr` be kept? Lock-free: 0 means it is not. */
static int fi_leak_maybe(const void *ptr)
{
    return atomic_load_explicit(&fi_leak_home[fi_leak_slot(ptr)], memory_order_acquire) != 0;
}

/* Is a block `caller` allocates now to be kept? */
static int fi_leak_wanted(const void *caller)
{
    return atomic_load_explicit(&fi_leak_on, memory_order_acquire) && !fi_busy &&
           !fi_leak_skip && fi_target_matches(&fi_leak_target, caller);
}

/* A block allocated: kept when its caller is tracked. */
static void fi_leak_keep(void *ptr, size_t size, const void *caller)
{
    FILeak leak = { .ptr = ptr, .size = size };

    if (!ptr || !fi_leak_wanted(caller))
        return;
    fi_busy++;                  /* the unwinder may allocate: never kept, never failed */
    leak.depth = backtrace(leak.stack, FI_LEAK_DEPTH);
    fi_busy--;
    if (pthread_mutex_lock(&fi_leak_lock))
        return;
    fi_leak_insert(&leak);
    pthread_mutex_unlock(&fi_leak_lock);
}

/* A block about to be freed (or moved by realloc()): forgotten; 1 (its entry in *out,
 * when given) when it was kept. */
static int fi_leak_forget(const void *ptr, FILeak *out)
{
    int kept;

    if (!ptr || !fi_leak_maybe(ptr) || pthread_mutex_lock(&fi_leak_lock))
        return 0;
    kept = fi_leak_remove(ptr, out);
    pthread_mutex_unlock(&fi_leak_lock);
    return kept;
}

/* realloc(ptr, size) through `call`, the block it returns kept when `ptr` was (or,
 * `ptr` NULL, when its caller is tracked). */
static void *fi_leak_realloc(void *(*call)(void *, size_t), void *ptr, size_t size,
                             const void *caller)
{
    FILeak old;
    int kept = fi_leak_forget(ptr, &old); /* no other thread can get ptr before realloc() */
    void *out = call(ptr, size);

    if (!kept) {
        if (!ptr)
            fi_leak_keep(out, size, caller);
        return out;
    }
    if (!out && size) {         /* failed: the old block is still there */
        if (!pthread_mutex_lock(&fi_leak_lock)) {
            fi_leak_insert(&old);
            pthread_mutex_unlock(&fi_leak_lock);
        }
        return out;
    }
    if (out) {
        fi_busy++;
        old.depth = backtrace(old.stack, FI_LEAK_DEPTH);
        fi_busy--;
        old.ptr  = out;
        old.size = size;
        if (!pthread_mutex_lock(&fi_leak_lock)) {
            fi_leak_insert(&old);
            pthread_mutex_unlock(&fi_leak_lock);
        }
    }
    return out;
}

/* ---- control calls ---- */

/*
 * Keep the blocks that callers in the objects whose file name contains `substr`
 * allocate from now on, every block kept before forgotten: 0, or -1 when no loaded
 * object matches (then nothing is kept). NULL or "": keep none from now on, the blocks
 * kept so far left to be counted.
 */
int fi_malloc_leaks_track(const char *substr);
int fi_malloc_leaks_track(const char *substr)
{
    void *warm[1];
    int ret;

    atomic_store(&fi_leak_on, 0);
    if (!substr || !substr[0])
        return 0;
    fi_busy++;
    backtrace(warm, 1);         /* loads glibc's unwinder now, not in a kept call */
    ret = fi_target_set(&fi_leak_target, substr, 0);
    if (!pthread_mutex_lock(&fi_leak_lock)) {
        memset(fi_leak_table, 0, sizeof(fi_leak_table));
        for (unsigned i = 0; i < FI_LEAK_SLOTS; i++)
            atomic_store(&fi_leak_home[i], 0);
        fi_leak_blocks = fi_leak_untracked = 0;
        fi_leak_bytes  = 0;
        pthread_mutex_unlock(&fi_leak_lock);
    }
    fi_busy--;
    if (ret == 0)
        atomic_store(&fi_leak_on, 1);
    return ret;
}

/* Keep `ptr` as a block `caller` allocated, as its malloc() would be (when tracked):
 * for what another injector hands FFmpeg's code to free through free() (fi_keep.h: an
 * OrtStatus, an ONNX Runtime or OpenVINO object). */
void fi_malloc_leaks_keep(void *ptr, size_t size, const void *caller);
void fi_malloc_leaks_keep(void *ptr, size_t size, const void *caller)
{
    fi_leak_keep(ptr, size, caller);
}

/* While `on`, the blocks this thread allocates are not kept (code of the tracked
 * object that is not the code under test: gcov's runtime in the harness's module). */
void fi_malloc_leaks_skip(int on);
void fi_malloc_leaks_skip(int on)
{
    fi_leak_skip += on ? 1 : -1;
}

/* The blocks kept and not freed, and their bytes: the blocks the table had no room for
 * (the counts are at least what they say), or -1. */
long fi_malloc_leaks(unsigned long *blocks, unsigned long *bytes);
long fi_malloc_leaks(unsigned long *blocks, unsigned long *bytes)
{
    long untracked;

    if (pthread_mutex_lock(&fi_leak_lock))
        return -1;
    *blocks   = fi_leak_blocks;
    *bytes    = fi_leak_bytes;
    untracked = (long)fi_leak_untracked;
    pthread_mutex_unlock(&fi_leak_lock);
    return untracked;
}

/* The n-th block kept (in the table's order, from 0): its stack copied into
 * frames[max], its size in *size; the number of frames, or -1 past the last block. */
int fi_malloc_leak(unsigned n, void **frames, int max, unsigned long *size);
int fi_malloc_leak(unsigned n, void **frames, int max, unsigned long *size)
{
    int depth = -1;

    if (pthread_mutex_lock(&fi_leak_lock))
        return -1;
    for (unsigned i = 0; i < FI_LEAK_SLOTS; i++) {
        const FILeak *l = &fi_leak_table[i];

        if (!l->ptr || n--)
            continue;
        depth = l->depth < max ? l->depth : max;
        depth = depth < 0 ? 0 : depth;
        memcpy(frames, l->stack, (size_t)depth * sizeof(*frames));
        *size = l->size;
        break;
    }
    pthread_mutex_unlock(&fi_leak_lock);
    return depth;
}

#endif /* FI_LEAKS_H */
