/*
 * test_preload: checks the LD_PRELOAD injector. The program has no link
 * dependency on it: run it with LD_PRELOAD=libfi_pthread_create.so and it
 * finds the API with dlsym(RTLD_DEFAULT, ...); without it, it fails.
 */
#define _GNU_SOURCE

#include "fi_test.h"

int main(void)
{
    FITestAPI api;

    if (fi_api_resolve(&api, "fi_pthread_create") < 0)
        return 1;
    return fi_test_run(&api, "test_preload") ? 1 : 0;
}
