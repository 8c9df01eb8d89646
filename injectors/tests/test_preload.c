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
    FITrackAPI track = {
        (int (*)(const char *))fi_api_sym("fi_pthread_create", "track_caller"),
        (unsigned long (*)(void))fi_api_sym("fi_pthread_create", "running"),
        (unsigned long (*)(void))fi_api_sym("fi_pthread_create", "untracked"),
    };

    if (fi_api_resolve(&api, "fi_pthread_create") < 0 || !track.track_caller ||
        !track.running || !track.untracked)
        return 1;
    fi_test_run(&api, "test_preload");
    return fi_test_track(&track, "test_preload") ? 1 : 0;
}
