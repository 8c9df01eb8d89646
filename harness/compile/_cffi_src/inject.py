"""The fault injectors' control calls: the interposed families (pthread_create, malloc),
found by name at run time, and the link-time family for FFmpeg's own helpers (fi_wrap.h),
which every variant of the module links in. The C is inject.c beside this file.

With the LD_PRELOAD interposers the functions live in the preloaded libraries and are
found with dlsym(RTLD_DEFAULT, "fi_<family>_arm") and so on; in the `--wrap` variant of
the module the pthread_create family is linked in (FFDNN_WRAP_INJECTOR). A family
that is not there fails every call with AVERROR(ENOSYS)."""

from pathlib import Path


INCLUDES = """
#include <dlfcn.h>
#include <stdio.h>
"""

TYPES = ""

FUNCTIONS = """
int ffdnn_inject_available(const char *family);
int ffdnn_inject_arm(const char *family, int err, unsigned skip, unsigned count, const char *caller);
int ffdnn_inject_arm_delay(const char *family, unsigned ms, unsigned skip, unsigned count,
                           const char *caller);
void ffdnn_inject_disarm(const char *family);

int fi_wrap_count(void);
const char *fi_wrap_symbol(int i);
int fi_wrap_arm(const char *symbol, int value, unsigned skip, unsigned count);
int fi_wrap_arm_delay(const char *symbol, unsigned ms, unsigned skip, unsigned count);
void fi_wrap_disarm(void);
int fi_wrap_counters(const char *symbol, unsigned long *calls, unsigned long *eligible,
                     unsigned long *failures);
int fi_wrap_site(const char *symbol, unsigned n, void **frames, int max);

int ffdnn_inject_site(const char *family, unsigned n, void **frames, int max);
const char *ffdnn_addr_object(void *addr, void **base);
int ffdnn_inject_counters(const char *family, unsigned long *calls, unsigned long *eligible,
                          unsigned long *failures);
int ffdnn_threads_track(const char *caller);
long ffdnn_threads_running(void);
"""

CUSTOMIZATIONS = Path(__file__).with_name("inject.c").read_text()
