/*
 * test_wrap: checks the link-time injector. Linked with
 * wrap_pthread_create.o and -Wl,--wrap=pthread_create, so this program's
 * own pthread_create() calls go through __wrap_pthread_create().
 */
#include "../fi_pthread_create.h"
#include "fi_test.h"

int main(void)
{
    static const FITestAPI api = {
        fi_pthread_create_arm,      fi_pthread_create_disarm,
        fi_pthread_create_target_caller,
        fi_pthread_create_calls,    fi_pthread_create_eligible,
        fi_pthread_create_failures,
    };

    static const FITrackAPI track = {
        fi_pthread_create_track_caller, fi_pthread_create_running,
        fi_pthread_create_untracked,
    };

    fi_test_run(&api, "test_wrap");
    return fi_test_track(&track, "test_wrap") ? 1 : 0;
}
