"""The fault families' control calls, every family's the same (fi_family.h), found by name
at run time: "fi_<family>_arm" and so on, in the preloaded interposers (dlsym(RTLD_DEFAULT))
or in this module itself (the link families compiled into it, and in its `--wrap` variant
the pthread_create wrapper). The C is inject.c beside this file. A family that is not
there fails every call with AVERROR(ENOSYS)."""

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

int ffdnn_inject_site(const char *family, unsigned n, void **frames, int max);
int ffdnn_inject_site_function(const char *family, unsigned n);
int ffdnn_inject_value(const char *family, const char *name);
const char *ffdnn_addr_object(void *addr, void **base);
int ffdnn_inject_counters(const char *family, unsigned long *calls, unsigned long *eligible,
                          unsigned long *failures);
int ffdnn_threads_track(const char *caller);
int ffdnn_coverage_available(void);
int ffdnn_coverage_reset(void);
int ffdnn_coverage_dump(void);
long ffdnn_threads_running(void);
int ffdnn_leaks_track(const char *caller);
long ffdnn_leaks(unsigned long *blocks, unsigned long *bytes);
int ffdnn_leak(unsigned n, void **frames, int max, unsigned long *size);
void ffdnn_leaks_skip(int on);
"""

CUSTOMIZATIONS = Path(__file__).with_name("inject.c").read_text()
