/*
 * fi_test: the checks shared by test_preload.c and test_wrap.c. Each check
 * prints one deterministic line, "ok ..." or "FAIL ..."; fi_test_run()
 * returns the number of failed checks. The programs differ only in how
 * they reach the injector API, passed in as an FITestAPI.
 */
#ifndef FI_TEST_H
#define FI_TEST_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

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
    check_value("target any", fi->target_caller(NULL), 0);
    check_spawn("count exhausted call", 0);
    fi->disarm();

    check_value("total calls", fi->calls() - calls, 9);
    check_value("total eligible", fi->eligible() - eligible, 5);
    check_value("total failures", fi->failures() - failures, 2);
    return failed;
}

#endif /* FI_TEST_H */
