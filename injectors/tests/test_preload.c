/*
 * test_preload: checks the LD_PRELOAD injector. The program has no link
 * dependency on it: run it with LD_PRELOAD=libfi_pthread_create.so and it
 * finds the API with dlsym(RTLD_DEFAULT, ...); without it, it fails.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "fi_test.h"

static int resolve(void **fn, const char *name)
{
    *fn = dlsym(RTLD_DEFAULT, name);
    if (!*fn)
        printf("FAIL resolve %s: not found (LD_PRELOAD not set?)\n", name);
    return *fn ? 0 : -1;
}

int main(void)
{
    void *fn[6];
    FITestAPI api;

    if (resolve(&fn[0], "fi_pthread_create_arm") < 0 ||
        resolve(&fn[1], "fi_pthread_create_disarm") < 0 ||
        resolve(&fn[2], "fi_pthread_create_target_caller") < 0 ||
        resolve(&fn[3], "fi_pthread_create_calls") < 0 ||
        resolve(&fn[4], "fi_pthread_create_eligible") < 0 ||
        resolve(&fn[5], "fi_pthread_create_failures") < 0)
        return 1;
    api.arm           = (int (*)(int, unsigned, unsigned))fn[0];
    api.disarm        = (void (*)(void))fn[1];
    api.target_caller = (int (*)(const char *))fn[2];
    api.calls         = (unsigned long (*)(void))fn[3];
    api.eligible      = (unsigned long (*)(void))fn[4];
    api.failures      = (unsigned long (*)(void))fn[5];

    return fi_test_run(&api, "test_preload") ? 1 : 0;
}
