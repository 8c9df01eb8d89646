/*
 * preload_malloc: LD_PRELOAD interposer for malloc(), calloc(), realloc()
 * and posix_memalign() on Linux/ELF (libfiu-style). Build it as a shared
 * object on its own and run the target with LD_PRELOAD=libfi_malloc.so;
 * arm it through the API in fi_malloc.h (dlsym(RTLD_DEFAULT, ...)).
 *
 * The real functions come from dlsym(RTLD_NEXT). dlsym() may itself
 * allocate, so allocations made while resolving (on the resolving thread,
 * or on any thread before the resolution is complete) come from a small
 * static arena that is never reused; free() ignores arena blocks and
 * realloc() moves them out. free() is interposed only for that.
 *
 * The unarmed path is an atomic add and a load. Caller targeting is the
 * families' one (fi_target.h: address ranges taken when the target is set,
 * no dladdr() per call, readers never block). Only a call that is armed and
 * targeted takes the mutex that keeps the arm consistent.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fi_malloc.h"
#include "fi_target.h"
#include "fi_window.h"

#define FI_ARENA_SIZE (256 * 1024)
#define FI_TLS _Thread_local __attribute__((tls_model("initial-exec")))

typedef void *(*malloc_fn)(size_t size);
typedef void *(*calloc_fn)(size_t nmemb, size_t size);
typedef void *(*realloc_fn)(void *ptr, size_t size);
typedef int   (*posix_memalign_fn)(void **memptr, size_t alignment, size_t size);
typedef void  (*free_fn)(void *ptr);

enum { REAL_UNRESOLVED, REAL_RESOLVING, REAL_RESOLVED, REAL_FAILED };

static struct {
    malloc_fn         malloc;
    calloc_fn         calloc;
    realloc_fn        realloc;
    posix_memalign_fn posix_memalign;
    free_fn           free;
} real;                         /* written once, before real_state = REAL_RESOLVED */
static atomic_int real_state;

static alignas(64) unsigned char arena[FI_ARENA_SIZE];
static atomic_size_t arena_used;

static pthread_mutex_t fi_lock = PTHREAD_MUTEX_INITIALIZER;
static FIWindow fi_window;      /* guarded by fi_lock */
static FITarget fi_target = FI_TARGET_INIT(1); /* any caller until a target is set */
static FI_TLS int fi_busy;      /* inside the injector on this thread */

/* ---- bootstrap arena ---- */

static int in_arena(const void *ptr)
{
    return (const unsigned char *)ptr >= arena &&
           (const unsigned char *)ptr < arena + FI_ARENA_SIZE;
}

/* Each block is preceded by its size, for realloc(). Zeroed: never reused. */
static void *arena_alloc(size_t size, size_t align)
{
    uintptr_t base = (uintptr_t)arena, start;
    size_t used = atomic_load(&arena_used), end;

    if (align < alignof(max_align_t))
        align = alignof(max_align_t);
    do {
        start = (base + used + sizeof(size_t) + align - 1) & ~(uintptr_t)(align - 1);
        if (start - base > FI_ARENA_SIZE || size > FI_ARENA_SIZE - (start - base)) {
            errno = ENOMEM;
            return NULL;
        }
        end = start - base + size;
    } while (!atomic_compare_exchange_weak(&arena_used, &used, end));
    memcpy((void *)(start - sizeof(size_t)), &size, sizeof(size));
    return (void *)start;
}

static size_t arena_size(const void *ptr)
{
    size_t size;

    memcpy(&size, (const unsigned char *)ptr - sizeof(size_t), sizeof(size));
    return size;
}

/* ---- the real functions ---- */

#ifdef FI_MALLOC_TEST_ARENA
/* Test build: allocate while resolving, as dlsym() does on some C libraries
 * (glibc 2.36's does not), and check in the constructor that the block
 * came from the arena and moves out of it intact. */
#include <unistd.h>

static char *arena_probe;

static void *next_sym(const char *name)
{
    void *volatile scratch;     /* volatile: keep the malloc()/free() pair */

    if (!arena_probe && (arena_probe = calloc(1, 16))) {
        memcpy(arena_probe, "arena", 6);
        arena_probe = realloc(arena_probe, 32);
        scratch = malloc(8);
        free(scratch);
    }
    return dlsym(RTLD_NEXT, name);
}

static void arena_check(void)
{
    int ok = in_arena(arena_probe) && !strcmp(arena_probe, "arena");
    char *p = ok ? realloc(arena_probe, 4096) : NULL;
    static const char msg[2][24] = { "fi_malloc: arena FAIL\n", "fi_malloc: arena ok\n" };

    ok = p && !in_arena(p) && !strcmp(p, "arena");
    free(p);
    if (write(2, msg[ok], strlen(msg[ok])) < 0)
        return;
}
#else
static void *next_sym(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}
#endif

/* 1 when real.* can be used; 0 while they are being resolved (by this or
 * another thread) or could not be: then the caller uses the arena. */
static int have_real(void)
{
    int state = atomic_load_explicit(&real_state, memory_order_acquire);

    if (state == REAL_RESOLVED)
        return 1;
    if (state != REAL_UNRESOLVED ||
        !atomic_compare_exchange_strong(&real_state, &state, REAL_RESOLVING))
        return 0;
    fi_busy++;
    real.malloc         = (malloc_fn)next_sym("malloc");
    real.calloc         = (calloc_fn)next_sym("calloc");
    real.realloc        = (realloc_fn)next_sym("realloc");
    real.posix_memalign = (posix_memalign_fn)next_sym("posix_memalign");
    real.free           = (free_fn)next_sym("free");
    fi_busy--;
    state = real.malloc && real.calloc && real.realloc && real.posix_memalign && real.free ?
            REAL_RESOLVED : REAL_FAILED;
    atomic_store_explicit(&real_state, state, memory_order_release);
    return state == REAL_RESOLVED;
}

__attribute__((constructor))
static void fi_malloc_init(void)
{
    have_real();
#ifdef FI_MALLOC_TEST_ARENA
    arena_check();
#endif
}

/* ---- the fault decision ---- */

/* Count the call and decide its fate: 0 = call through, otherwise the
 * error number to fail with. *eligible: the call counted in the window
 * (armed, and its caller targeted). */
static int fi_decide(void *caller, int *eligible)
{
    int err;

    *eligible = 0;
    if (fi_busy)  /* the injector's own allocations (the unwinder's, at arm) */
        return 0;
    atomic_fetch_add_explicit(&fi_window.calls, 1, memory_order_relaxed);
    if (!atomic_load_explicit(&fi_window.armed, memory_order_acquire) ||
        !fi_target_matches(&fi_target, caller))
        return 0;
    *eligible = 1;
    fi_busy++;
    err = fi_window_take_locked(&fi_lock, &fi_window);
    fi_busy--;
    return err;
}

/*
 * Fill an eligible block that goes through with a pattern whose 4-byte
 * words all differ from their neighbours (0xa5a5a5 and the word's index),
 * as a debugging allocator poisons new memory: what the code under test
 * reads before it writes is then the same in every run, and two fields it
 * never set never compare equal. Without it their values are whatever the
 * block held when it was freed, which depends on what else ran.
 */
static void poison(void *block, size_t size)
{
    unsigned char *p = block;

    for (size_t i = 0; p && i < size; i++)
        p[i] = (i & 3) == 0 ? (unsigned char)(i >> 2) : 0xa5;
}

/* ---- the interposed functions ---- */

void *malloc(size_t size)
{
    int eligible, err = fi_decide(__builtin_return_address(0), &eligible);
    void *out;

    if (err) {
        errno = err;
        return NULL;
    }
    if (!have_real())
        return arena_alloc(size, 0);
    out = real.malloc(size);
    if (eligible)
        poison(out, size);
    return out;
}

void *calloc(size_t nmemb, size_t size)
{
    int eligible, err = fi_decide(__builtin_return_address(0), &eligible);

    if (err) {
        errno = err;
        return NULL;
    }
    if (!have_real()) {
        if (size && nmemb > SIZE_MAX / size) {
            errno = ENOMEM;
            return NULL;
        }
        return arena_alloc(nmemb * size, 0);
    }
    return real.calloc(nmemb, size);
}

void *realloc(void *ptr, size_t size)
{
    int eligible, err = fi_decide(__builtin_return_address(0), &eligible);
    void *out;

    if (err) {
        errno = err;
        return NULL;
    }
    if (in_arena(ptr)) {        /* move it out (or to a bigger arena block) */
        size_t old = arena_size(ptr);

        out = have_real() ? real.malloc(size ? size : 1) : arena_alloc(size, 0);
        if (out)
            memcpy(out, ptr, old < size ? old : size);
        return out;
    }
    if (!have_real())
        return ptr ? NULL : arena_alloc(size, 0);
    return real.realloc(ptr, size);
}

int posix_memalign(void **memptr, size_t alignment, size_t size)
{
    int eligible, err = fi_decide(__builtin_return_address(0), &eligible);

    if (err)
        return err;
    if (!have_real()) {
        if (alignment < sizeof(void *) || alignment & (alignment - 1))
            return EINVAL;
        if (!(*memptr = arena_alloc(size, alignment)))
            return ENOMEM;
        return 0;
    }
    err = real.posix_memalign(memptr, alignment, size);
    if (!err && eligible)
        poison(*memptr, size);
    return err;
}

void free(void *ptr)
{
    if (!ptr || in_arena(ptr))
        return;
    if (have_real())
        real.free(ptr);
}

/* ---- the API ---- */

FI_WINDOW_API(fi_malloc, fi_window, fi_lock, fi_busy++, fi_busy--)

int fi_malloc_target_caller(const char *substr)
{
    int ret;

    fi_busy++;
    ret = fi_target_set(&fi_target, substr, 1);
    fi_busy--;
    return ret;
}
