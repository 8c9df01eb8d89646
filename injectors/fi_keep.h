/*
 * fi_keep: an object a backend's call made for FFmpeg's code to free, kept as a block of
 * its FFmpeg caller while the malloc preload tracks its blocks (fi_malloc_leaks_keep(),
 * looked up in the process once: fi_leaks.h). The backend makes it with C++'s new (or
 * malloc()) and its release function deletes it through free(), which forgets it: one
 * FFmpeg's code never releases is left behind as a block of its own. Without the preload
 * (or with it not tracking) nothing is kept.
 */
#ifndef FI_KEEP_H
#define FI_KEEP_H

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

typedef void (*fi_keep_fn)(void *ptr, size_t size, const void *caller);

static void fi_keep(void *ptr, const void *caller)
{
    static void *sym;
    static atomic_int looked;
    fi_keep_fn keep;

    if (!ptr)
        return;
    if (!atomic_load_explicit(&looked, memory_order_acquire)) {
        __atomic_store_n(&sym, dlsym(RTLD_DEFAULT, "fi_malloc_leaks_keep"), __ATOMIC_RELEASE);
        atomic_store_explicit(&looked, 1, memory_order_release);
    }
    keep = (fi_keep_fn)__atomic_load_n(&sym, __ATOMIC_ACQUIRE);
    if (keep)
        keep(ptr, sizeof(void *), caller);
}

#endif /* FI_KEEP_H */
