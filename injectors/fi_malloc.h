/*
 * fi_malloc: make malloc(), calloc(), realloc() and posix_memalign() fail on
 * demand (FFmpeg's av_malloc() is posix_memalign() on Linux, av_realloc()
 * is realloc()).
 *
 * Public API of the LD_PRELOAD interposer libfi_malloc.so; same shape as
 * fi_pthread_create.h. Usable without the harness: LD_PRELOAD the .so and
 * resolve these functions with dlsym(RTLD_DEFAULT, ...). All functions are
 * safe from any thread.
 *
 * Fault semantics: while armed, each eligible call to any of the four
 * functions (one whose caller matches the target, see below) is numbered
 * 0, 1, 2, ... since the last arm; calls skip .. skip + count - 1 fail, all
 * others go through. Failing means returning NULL with errno = err
 * (malloc, calloc, realloc; realloc leaves the old block untouched) or
 * returning err without touching *memptr (posix_memalign). free() is never
 * failed or counted. An allocation made from inside the injector is never
 * failed. The counters are cumulative since load; take deltas.
 *
 * Poison: while armed, a block an eligible malloc() or posix_memalign()
 * call returns is filled with a pattern whose 4-byte words all differ from
 * their neighbours (bytes 0xa5, every fourth the word's index), so that
 * what the caller reads before it writes is the same in every run. calloc()
 * zeroes by contract; the tail realloc() adds is left as the C library
 * returns it.
 */
#ifndef FI_MALLOC_H
#define FI_MALLOC_H

/* Arm: fail `count` calls with error `err` after letting `skip` calls
 * through. count 0 = disarmed. Returns 0, or -1 if err is not positive. */
int  fi_malloc_arm(int err, unsigned skip, unsigned count);
void fi_malloc_disarm(void);

/* Arm a delay instead: the window's calls sleep `ms` each (the thread named
 * "ffdnn-delay" meanwhile), then are served (counted in failures). Returns 0, or -1
 * if ms is 0. */
int  fi_malloc_arm_delay(unsigned ms, unsigned skip, unsigned count);

/* Optional caller targeting: only calls whose return address lies in the
 * executable segments of a loaded object whose name contains `substr` are
 * eligible; the main program is named by argv[0], as dladdr() names it.
 * NULL or "" = any caller. The matching objects' address ranges are taken
 * once, now (dl_iterate_phdr), so that each call costs a few compares:
 * set the target again after dlopen()ing the object. The substring is
 * truncated to 255 bytes. Returns 0, or -1 when no loaded object matches
 * (or too many segments do); then no call is eligible until the target is
 * set again. */
int  fi_malloc_target_caller(const char *substr);

/* The stack of eligible call n since the last arm (n < 1024), innermost
 * first: up to max return addresses into frames; returns how many. */
int  fi_malloc_site(unsigned n, void **frames, int max);

unsigned long fi_malloc_calls(void);    /* calls since load (all callers, armed or not; not the injector's own) */
unsigned long fi_malloc_eligible(void); /* calls that matched the target while armed */
unsigned long fi_malloc_failures(void); /* failures injected */

#endif /* FI_MALLOC_H */
