/*
 * test_new: checks that the malloc family's injector keeps what C++'s operator new
 * returns to a tracked caller (fi_malloc_hooks.h), as FFmpeg's LibTorch backend
 * allocates its tensors, and that operator delete forgets it. Run it with
 * LD_PRELOAD=libfi_malloc.so; without it, it fails. Built at -O0: the compiler may
 * elide a new/delete pair it can see. One line a check, "ok ..." or "FAIL ...".
 */
#include <cstdio>
#include <cstring>
#include <new>

#include <dlfcn.h>

static int failed;

typedef int (*track_fn)(const char *substr);
typedef long (*leaks_fn)(unsigned long *blocks, unsigned long *bytes);

static void check(leaks_fn leaks, const char *name, unsigned long blocks,
                  unsigned long bytes)
{
    unsigned long got_blocks = 0, got_bytes = 0;
    long untracked = leaks(&got_blocks, &got_bytes);
    bool ok = got_blocks == blocks && got_bytes == bytes && untracked == 0;

    failed += !ok;
    std::printf("%s %s: %lu blocks, %lu bytes\n", ok ? "ok" : "FAIL", name, got_blocks,
                got_bytes);
}

struct alignas(64) Wide {
    char bytes[128];
};

int main(int argc, char **argv)
{
    track_fn track = (track_fn)dlsym(RTLD_DEFAULT, "fi_malloc_leaks_track");
    leaks_fn leaks = (leaks_fn)dlsym(RTLD_DEFAULT, "fi_malloc_leaks");
    const char *self = std::strrchr(argv[0], '/');

    (void)argc;
    if (!track || !leaks) {
        std::printf("FAIL resolve fi_malloc_leaks_track\n");
        return 1;
    }
    if (track(self ? self + 1 : argv[0]) != 0) {
        std::printf("FAIL track self\n");
        return 1;
    }
    int *one = new int(5);
    char *many = new char[100];
    check(leaks, "new, new[]", 2, sizeof(int) + 100);
    char *quiet = new (std::nothrow) char[10];
    Wide *wide = new Wide;
    check(leaks, "nothrow, aligned", 4, sizeof(int) + 100 + 10 + sizeof(Wide));
    delete one;
    delete[] many;
    delete[] quiet;
    delete wide;
    check(leaks, "all deleted", 0, 0);
    try {
        char *huge = new char[(size_t)1 << 62];
        std::printf("FAIL bad_alloc: none thrown\n");
        failed++;
        delete[] huge;
    } catch (const std::bad_alloc &) {
        std::printf("ok bad_alloc: caught through the interposer\n");
    }
    check(leaks, "none kept", 0, 0);
    track(nullptr);
    return failed ? 1 : 0;
}
