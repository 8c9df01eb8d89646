/*
 * fi_test: the checks shared by test_preload.c and test_wrap.c. Each check
 * prints one deterministic line, "ok ..." or "FAIL ..."; fi_test_run() and
 * fi_test_track() return the number of failed checks so far. The programs differ only in how
 * they reach the injector API, passed in as an FITestAPI.
 */
#ifndef FI_TEST_H
#define FI_TEST_H

#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L  /* nanosleep() under -std=c11 */
#endif
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "fi_api.h"

static atomic_int started;
static int failed;

static void *thread_main(void *arg)
{
    atomic_fetch_add(&started, 1);
    return arg;
}

static const char *err_name(int err)
{
    static char buf[16];

    if (err == 0)
        return "0";
    if (err == EAGAIN)
        return "EAGAIN";
    snprintf(buf, sizeof(buf), "%d", err);
    return buf;
}

/* Create and join one thread: returns pthread_create()'s result and the
 * number of threads that actually ran in *ran. */
static int spawn(int *ran)
{
    pthread_t thread;
    int before = atomic_load(&started);
    int ret = pthread_create(&thread, NULL, thread_main, NULL);

    if (!ret && pthread_join(thread, NULL))
        ret = -1;
    *ran = atomic_load(&started) - before;
    return ret;
}

static void check_spawn(const char *name, int want)
{
    int ran;
    int ret = spawn(&ran);
    int ok = ret == want && ran == !want;

    failed += !ok;
    printf("%s %s: %s, threads %d\n", ok ? "ok" : "FAIL", name, err_name(ret), ran);
}

static void check_value(const char *name, long got, long want)
{
    failed += got != want;
    printf("%s %s: %ld\n", got == want ? "ok" : "FAIL", name, got);
}

/* Thread tracking (fi_pthread_create_track_caller), apart from the window. */
typedef struct FITrackAPI {
    int (*track_caller)(const char *substr);
    unsigned long (*running)(void);
    unsigned long (*untracked)(void);
} FITrackAPI;

static atomic_int released;

static void *held(void *arg)
{
    struct timespec ms = { 0, 1000000 };

    while (!atomic_load(&released))
        nanosleep(&ms, NULL);
    if (arg)
        pthread_exit(arg);
    return NULL;
}

/* Start a thread that waits for its release (and, with `exits`, ends with
 * pthread_exit()): how many tracked threads run while it waits, and after
 * it was joined. */
static void check_held(const FITrackAPI *t, const char *name, int exits, long want)
{
    pthread_t thread;
    long during, after;
    char line[96];

    atomic_store(&released, 0);
    if (pthread_create(&thread, NULL, held, exits ? &released : NULL)) {
        failed++;
        printf("FAIL %s: no thread\n", name);
        return;
    }
    during = (long)t->running();
    atomic_store(&released, 1);
    pthread_join(thread, NULL);
    after = (long)t->running();
    snprintf(line, sizeof(line), "%s, running while held", name);
    check_value(line, during, want);
    snprintf(line, sizeof(line), "%s, running after join", name);
    check_value(line, after, 0);
}

static int fi_test_track(const FITrackAPI *t, const char *self)
{
    check_held(t, "untracked thread", 0, 0);
    check_value("track self", t->track_caller(self), 0);
    check_held(t, "tracked thread", 0, 1);
    check_held(t, "tracked thread, pthread_exit", 1, 1);
    check_value("track libc.so.6", t->track_caller("libc.so.6"), 0);
    check_held(t, "thread of another caller", 0, 0);
    check_value("track no such object", t->track_caller("no-such-object.so"), -1);
    check_held(t, "thread, no object tracked", 0, 0);
    check_value("track none", t->track_caller(NULL), 0);
    check_value("untracked", (long)t->untracked(), 0);
    return failed;
}

static int fi_test_run(const FITestAPI *fi, const char *self)
{
    unsigned long calls = fi->calls(), eligible = fi->eligible();
    unsigned long failures = fi->failures();

    check_spawn("unarmed call 1", 0);
    check_spawn("unarmed call 2", 0);
    check_value("arm EAGAIN skip 1 count 1", fi->arm(EAGAIN, 1, 1), 0);
    check_spawn("armed call 1", 0);
    check_spawn("armed call 2", EAGAIN);
    check_spawn("armed call 3", 0);
    check_value("calls", fi->calls() - calls, 5);
    check_value("eligible", fi->eligible() - eligible, 3);
    check_value("failures", fi->failures() - failures, 1);

    fi->disarm();
    check_spawn("disarmed call", 0);
    check_value("target libc.so.6", fi->target_caller("libc.so.6"), 0);
    check_value("arm EAGAIN skip 0 count 1", fi->arm(EAGAIN, 0, 1), 0);
    check_spawn("call, caller not targeted", 0);
    check_value("target self", fi->target_caller(self), 0);
    check_spawn("call, caller targeted", EAGAIN);
    check_value("target no such object", fi->target_caller("no-such-object.so"), -1);
    check_value("arm EAGAIN skip 0 count 1", fi->arm(EAGAIN, 0, 1), 0);
    check_spawn("call, unmatched target", 0);
    check_value("target any", fi->target_caller(NULL), 0);
    check_spawn("call, any caller", EAGAIN);
    check_spawn("count exhausted call", 0);
    fi->disarm();

    check_value("total calls", fi->calls() - calls, 11);
    check_value("total eligible", fi->eligible() - eligible, 6);
    check_value("total failures", fi->failures() - failures, 3);
    return failed;
}

#endif /* FI_TEST_H */
