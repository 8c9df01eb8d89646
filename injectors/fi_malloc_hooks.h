/*
 * fi_malloc_hooks: the malloc family's own part (malloc.fi names it), included by the file
 * generated from its stanza after the core (fi_family.h): how a call that is not failed
 * is served, and free().
 *
 * The real functions come from dlsym(RTLD_NEXT). dlsym() may itself allocate, so
 * allocations made while resolving (on the resolving thread, or on any thread before
 * the resolution is complete) come from a small static arena that is never reused;
 * free() ignores arena blocks and realloc() moves them out. free() is interposed for
 * that and for the leaks (below): it is never failed or counted.
 *
 * Leaks: the blocks a tracked caller allocates are kept until freed (fi_leaks.h): each
 * call that goes through passes its caller on, and free() forgets the block first; a
 * stream it opens (fopen(), fdopen()) is kept as the FILE block it is, and what it gets
 * from C++'s operator new as the block new returns (below).
 *
 * Poison: a block an eligible malloc() or posix_memalign() call returns is filled with
 * a pattern whose 4-byte words all differ from their neighbours (bytes 0xa5, every
 * fourth the word's index), so that what the caller reads before it writes is the same
 * in every run. calloc() zeroes by contract; the tail realloc() adds is left as the C
 * library returns it.
 */
#include <stdalign.h>
#include <stdio.h>

#include "fi_leaks.h"

#define FI_ARENA_SIZE (256 * 1024)

typedef void (*free_fn)(void *ptr); /* the others: fi_<name>_fn, from the stanza */

enum { REAL_UNRESOLVED, REAL_RESOLVING, REAL_RESOLVED, REAL_FAILED };

static struct {
    fi_malloc_fn         malloc;
    fi_calloc_fn         calloc;
    fi_realloc_fn        realloc;
    fi_posix_memalign_fn posix_memalign;
    free_fn              free;
} real;                         /* written once, before real_state = REAL_RESOLVED */
static atomic_int real_state;

static alignas(64) unsigned char arena[FI_ARENA_SIZE];
static atomic_size_t arena_used;

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
    real.malloc         = (fi_malloc_fn)next_sym("malloc");
    real.calloc         = (fi_calloc_fn)next_sym("calloc");
    real.realloc        = (fi_realloc_fn)next_sym("realloc");
    real.posix_memalign = (fi_posix_memalign_fn)next_sym("posix_memalign");
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

/* ---- how a call goes through ---- */

static void *fi_malloc_through(size_t size, int eligible, const void *caller)
{
    void *out;

    if (!have_real())
        return arena_alloc(size, 0);
    out = real.malloc(size);
    if (eligible)
        poison(out, size);
    fi_leak_keep(out, size, caller);
    return out;
}

static void *fi_calloc_through(size_t nmemb, size_t size, const void *caller)
{
    void *out;

    if (!have_real()) {
        if (size && nmemb > SIZE_MAX / size) {
            errno = ENOMEM;
            return NULL;
        }
        return arena_alloc(nmemb * size, 0);
    }
    out = real.calloc(nmemb, size);
    fi_leak_keep(out, nmemb * size, caller);
    return out;
}

static void *fi_realloc_through(void *ptr, size_t size, const void *caller)
{
    void *out;

    if (in_arena(ptr)) {        /* move it out (or to a bigger arena block) */
        size_t old = arena_size(ptr);

        out = have_real() ? real.malloc(size ? size : 1) : arena_alloc(size, 0);
        if (out)
            memcpy(out, ptr, old < size ? old : size);
        return out;
    }
    if (!have_real())
        return ptr ? NULL : arena_alloc(size, 0);
    return fi_leak_realloc(real.realloc, ptr, size, caller);
}

static int fi_posix_memalign_through(void **memptr, size_t alignment, size_t size,
                                     int eligible, const void *caller)
{
    int err;

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
    if (!err)
        fi_leak_keep(*memptr, size, caller);
    return err;
}

/* The next definition of `name`, found by `resolve` once and kept in *slot. */
static void *fi_next_lazy(void **slot, const char *name, void *(*resolve)(const char *))
{
    void *next = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

    if (!next) {
        fi_busy++;
        next = resolve(name);
        fi_busy--;
        __atomic_store_n(slot, next, __ATOMIC_RELEASE);
    }
    return next;
}

/* ---- streams: kept as blocks, never failed ----
 *
 * A stream a tracked caller opens is kept as the block it is: the C library allocates
 * the FILE inside fopen() and fdopen() (its own caller: not kept) and frees it in
 * fclose() through free(), which forgets it. A stream FFmpeg's code opens and does not
 * close is then left behind as a block of sizeof(FILE) (avpriv_fopen_utf8() is fdopen():
 * the label files of dnn_detect and dnn_classify). */

typedef FILE *(*fi_fopen_fn)(const char *path, const char *mode);
typedef FILE *(*fi_fdopen_fn)(int fd, const char *mode);

FILE *fopen(const char *path, const char *mode)
{
    static void *next;
    fi_fopen_fn call = (fi_fopen_fn)fi_next_lazy(&next, "fopen", next_sym);
    FILE *out;

    if (!call) {
        errno = ENOSYS;
        return NULL;
    }
    out = call(path, mode);
    fi_leak_keep(out, sizeof(FILE), __builtin_return_address(0));
    return out;
}

FILE *fdopen(int fd, const char *mode)
{
    static void *next;
    fi_fdopen_fn call = (fi_fdopen_fn)fi_next_lazy(&next, "fdopen", next_sym);
    FILE *out;

    if (!call) {
        errno = ENOSYS;
        return NULL;
    }
    out = call(fd, mode);
    fi_leak_keep(out, sizeof(FILE), __builtin_return_address(0));
    return out;
}

/* ---- C++'s operator new: kept as blocks, never failed ----
 *
 * FFmpeg's C++ (the LibTorch backend: `new torch::Tensor()`, `new torch::jit::Module`)
 * allocates through operator new, whose malloc() is the C++ library's own call (its
 * caller: not kept). The forms of operator new and new[] (plain, nothrow, aligned) are
 * interposed here by their Itanium C++ ABI names and keep the block they return for
 * their caller; operator delete frees it through free(), which forgets it. The next
 * definition is the C++ library's, loaded by then (a caller of operator new needs it):
 * found after this object in the global scope, or, where the library came in with a
 * module dlopen()ed locally (a Python extension's, FFmpeg's here), by its soname.
 * Unwinding: a bad_alloc the next one throws goes through this frame, which has the
 * unwind tables CFLAGS asks for (harness/compile/injector_build.py). */

static void *fi_new_sym(const char *name)
{
    static const char *const libraries[] = { "libstdc++.so.6", "libc++.so.1" };
    void *sym = next_sym(name);

    for (size_t i = 0; !sym && i < sizeof(libraries) / sizeof(*libraries); i++) {
        void *lib = dlopen(libraries[i], RTLD_LAZY | RTLD_NOLOAD);

        if (lib) {
            sym = dlsym(lib, name);
            dlclose(lib);       /* RTLD_NOLOAD took a reference: the library stays */
        }
    }
    return sym;
}

#define FI_NEW(name, params, args)                                                   \
    void *name params;                                                                \
    void *name params                                                                 \
    {                                                                                 \
        static void *next;                                                            \
        void *(*call) params = (void *(*) params)fi_next_lazy(&next, #name, fi_new_sym); \
        void *out;                                                                    \
                                                                                      \
        if (!call)                                                                    \
            abort();                                                                  \
        out = call args;                                                              \
        fi_leak_keep(out, size, __builtin_return_address(0));                         \
        return out;                                                                   \
    }

typedef struct fi_nothrow fi_nothrow;  /* std::nothrow_t, passed by reference */

FI_NEW(_Znwm, (size_t size), (size))
FI_NEW(_Znam, (size_t size), (size))
FI_NEW(_ZnwmRKSt9nothrow_t, (size_t size, const fi_nothrow *nt), (size, nt))
FI_NEW(_ZnamRKSt9nothrow_t, (size_t size, const fi_nothrow *nt), (size, nt))
FI_NEW(_ZnwmSt11align_val_t, (size_t size, size_t al), (size, al))
FI_NEW(_ZnamSt11align_val_t, (size_t size, size_t al), (size, al))
FI_NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, (size_t size, size_t al, const fi_nothrow *nt),
       (size, al, nt))
FI_NEW(_ZnamSt11align_val_tRKSt9nothrow_t, (size_t size, size_t al, const fi_nothrow *nt),
       (size, al, nt))

/* ---- free(): never failed or counted, interposed for the arena and the leaks ---- */

void free(void *ptr)
{
    if (!ptr || in_arena(ptr))
        return;
    fi_leak_forget(ptr, NULL);
    if (have_real())
        real.free(ptr);
}
