/*
 * fi_pthread_create: make pthread_create() fail on demand.
 *
 * Public API shared by the three injector variants (LD_PRELOAD interposer,
 * -Wl,--wrap object, macOS DYLD interposer). Usable without the harness:
 * link the wrap object, or LD_PRELOAD the .so and resolve these functions
 * with dlsym(RTLD_DEFAULT, ...). All functions are safe from any thread.
 *
 * Fault semantics: while armed, each eligible call (one whose caller matches
 * the target, see below) is numbered 0, 1, 2, ... since the last arm; calls
 * skip .. skip + count - 1 return `err` without creating a thread, all
 * others go through to the real pthread_create(). The counters are
 * cumulative since load; take deltas to measure one scenario.
 */
#ifndef FI_PTHREAD_CREATE_H
#define FI_PTHREAD_CREATE_H

/* Arm: fail `count` calls with error `err` after letting `skip` calls
 * through. count 0 = disarmed. Returns 0, or -1 if err is not positive. */
int  fi_pthread_create_arm(int err, unsigned skip, unsigned count);
void fi_pthread_create_disarm(void);

/* Arm a delay instead: the window's calls sleep `ms` each, then go through to the real
 * pthread_create() (counted in failures). Returns 0, or -1 if ms is 0. */
int  fi_pthread_create_arm_delay(unsigned ms, unsigned skip, unsigned count);

/* Optional caller targeting, as every family's (fi_target.h): only calls whose
 * return address lies in the executable segments of a loaded object whose file
 * name contains `substr` are eligible (counted against skip/count and failed);
 * NULL or "" = any caller. The objects' ranges are taken now: set the target
 * again after dlopen()ing the object. The substring is truncated to 255 bytes.
 * Returns 0, or -1 when no loaded object matches (then no call is eligible until
 * the target is set again). */
int  fi_pthread_create_target_caller(const char *substr);

/* The stack of eligible call n since the last arm (n < 1024), innermost
 * first: copies up to max return addresses into frames, returns how many
 * (0 when none was kept). */
int  fi_pthread_create_site(unsigned n, void **frames, int max);

/* Thread tracking, apart from arming: a thread created (not failed) by a
 * caller in an object whose file name contains `substr` (matched as the target
 * is) is counted while its start routine runs (until it returns, calls
 * pthread_exit() or is cancelled); NULL or "" tracks none (the default). A
 * thread created before the call is not counted. Returns 0, or -1 when no
 * loaded object matches. */
int  fi_pthread_create_track_caller(const char *substr);
unsigned long fi_pthread_create_running(void);   /* tracked threads running now */
unsigned long fi_pthread_create_untracked(void); /* threads of a tracked caller not
                                                    counted (more than 64 at once) */

unsigned long fi_pthread_create_calls(void);    /* calls seen since load (all callers) */
unsigned long fi_pthread_create_eligible(void); /* calls that matched the target while armed */
unsigned long fi_pthread_create_failures(void); /* failures injected */

#endif /* FI_PTHREAD_CREATE_H */
