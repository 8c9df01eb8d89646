/*
 * fi_libtorch_hooks: how the LibTorch family throws. c10::detail::torchCheckFail() (what
 * TORCH_CHECK calls) throws a c10::Error with the message given; it is C++, reached here
 * by its mangled name, and weak, so a libtorch without it leaves the family unable to
 * throw (then the failed call aborts, said on stderr) rather than the module unable to
 * load. The exception unwinds through the C wrapper (gcc gives every x86-64 function its
 * unwind table) into FFmpeg's C++ caller.
 */
#include <stdio.h>
#include <stdlib.h>

#define FI_VALUE_c10__Error 1

extern void fi_libtorch_check_fail(const char *func, const char *file, unsigned line,
                                   const char *msg)
    __asm__("_ZN3c106detail14torchCheckFailEPKcS2_jS2_") __attribute__((weak, noreturn));

static void fi_libtorch_throw(int err)
{
    (void)err; /* one value: c10::Error */
    if (fi_libtorch_check_fail)
        fi_libtorch_check_fail(__func__, __FILE__, __LINE__,
                               "injected by ffmpeg-dnn-fault-harness");
    fprintf(stderr, "libtorch family: c10::detail::torchCheckFail() is not in this "
            "libtorch: cannot throw c10::Error\n");
    abort();
}
