/*
 * joincount: an LD_PRELOAD interposer that counts pthread_join() calls on
 * threads this process never started (a zeroed pthread_t, or one already
 * joined), the undefined behaviour followup 0004 removes from
 * libavfilter/dnn/dnn_backend_common.c. Part of ffmpeg-dnn-fault-harness.
 *
 *   cc -shared -fPIC -O1 -o joincount.so joincount.c -ldl -lpthread
 *   LD_PRELOAD=./joincount.so ffmpeg_g ...
 *
 * Every successful pthread_create() adds its thread to a table; every
 * pthread_join() of a thread not in it is counted and its caller printed on
 * stderr as "object+offset" (for addr2line -f -e object offset). The call is
 * passed on unchanged, so the program behaves as it would without us. At
 * exit one line gives the totals:
 *   joincount: pthread_join N, of a never-started or joined thread M (zero id Z)
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_THREADS 4096

static int (*real_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int (*real_join)(pthread_t, void **);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t started[MAX_THREADS];
static int nb_started;
static unsigned long joins, unstarted, zero;

static void resolve(void)
{
    if (!real_create)
        real_create = dlsym(RTLD_NEXT, "pthread_create");
    if (!real_join)
        real_join = dlsym(RTLD_NEXT, "pthread_join");
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*routine)(void *), void *arg)
{
    int ret;

    resolve();
    ret = real_create(thread, attr, routine, arg);
    if (ret == 0) {
        pthread_mutex_lock(&lock);
        if (nb_started < MAX_THREADS)
            started[nb_started++] = *thread;
        pthread_mutex_unlock(&lock);
    }
    return ret;
}

int pthread_join(pthread_t thread, void **retval)
{
    void *caller = __builtin_return_address(0);
    int known = 0;
    Dl_info info;

    resolve();
    pthread_mutex_lock(&lock);
    joins++;
    for (int i = 0; i < nb_started; i++) {
        if (pthread_equal(started[i], thread)) {
            started[i] = started[--nb_started]; /* joined: no longer joinable */
            known = 1;
            break;
        }
    }
    if (!known) {
        unstarted++;
        zero += thread == 0;
    }
    pthread_mutex_unlock(&lock);
    if (!known) {
        if (dladdr(caller, &info) && info.dli_fname)
            fprintf(stderr, "joincount: join of never-started thread %#lx from %s+%#lx\n",
                    (unsigned long)thread, info.dli_fname,
                    (unsigned long)((uintptr_t)caller - (uintptr_t)info.dli_fbase - 1));
        else
            fprintf(stderr, "joincount: join of never-started thread %#lx from %p\n",
                    (unsigned long)thread, caller);
    }
    return real_join(thread, retval);
}

static void __attribute__((destructor)) report(void)
{
    fprintf(stderr, "joincount: pthread_join %lu, of a never-started or joined thread %lu "
            "(zero id %lu)\n", joins, unstarted, zero);
}
