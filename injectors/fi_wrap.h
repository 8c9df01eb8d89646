/*
 * fi_wrap: make FFmpeg-internal functions fail on demand, at link time.
 *
 * LD_PRELOAD cannot reach a function that a static libavfilter calls inside
 * itself. Linking with -Wl,--wrap=<symbol> sends every reference of that link
 * to __wrap_<symbol>, which asks its fault window (fi_window.h) and either
 * returns the armed value or calls __real_<symbol>. wrap_ff.c holds the named
 * set; FI_WRAP_LDFLAGS in harness/compile/injector_build.py lists the same symbols.
 *
 * The value a wrapper fails with is returned as is: an AVERROR code, or a
 * positive errno where the real function can return one (for example
 * ff_dnn_start_inference_async() before #24760). All functions are safe
 * from any thread; counters are cumulative since load.
 */
#ifndef FI_WRAP_H
#define FI_WRAP_H

/* The number of wrapped symbols and the name of the i-th, NULL past the end. */
int fi_wrap_count(void);
const char *fi_wrap_symbol(int i);

/* Arm one symbol: let `skip` calls through, return `value` from the next
 * `count`, let the rest through. Arming a symbol disarms every other one.
 * Returns 0, or -1 for an unknown symbol or a zero value. */
int  fi_wrap_arm(const char *symbol, int value, unsigned skip, unsigned count);
void fi_wrap_disarm(void);

/* Arm a delay instead: the symbol's window calls sleep `ms` each, then call the real
 * function (counted in failures). -1 for an unknown symbol or ms 0. */
int  fi_wrap_arm_delay(const char *symbol, unsigned ms, unsigned skip, unsigned count);

/* calls: every call since load; eligible: calls while armed; failures:
 * values returned in place of the real call. -1 for an unknown symbol. */
int  fi_wrap_counters(const char *symbol, unsigned long *calls,
                      unsigned long *eligible, unsigned long *failures);

/* The stack of the symbol's eligible call n since its arm (n < 1024),
 * innermost first: up to max return addresses; returns how many. */
int  fi_wrap_site(const char *symbol, unsigned n, void **frames, int max);

#endif /* FI_WRAP_H */
