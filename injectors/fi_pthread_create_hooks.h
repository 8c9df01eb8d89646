/*
 * fi_pthread_create_hooks: the pthread_create family's own part (pthread_create.fi names
 * it), included by each variant's generated file after the core (fi_family.h): how a
 * call that is not failed goes through, and the tracking of the threads a caller starts.
 *
 * Tracking: a thread a tracked caller creates starts in fi_trampoline(), which runs the
 * real start routine and counts it as running until it ends. Its start routine and
 * argument travel in one of FI_SLOTS static slots (no allocation: the malloc family may
 * be armed). The tracked callers are matched as the target is (fi_target.h).
 */
#define FI_SLOTS 64

typedef struct FISlot {
    atomic_int used;
    void *(*start)(void *);
    void *arg;
} FISlot;

static FISlot fi_slots[FI_SLOTS];
static FITarget fi_track = FI_TARGET_INIT(0); /* none tracked until set */
static atomic_ulong fi_running, fi_untracked;

static void thread_ended(void *unused)
{
    (void)unused;
    atomic_fetch_sub(&fi_running, 1);
}

static void *fi_trampoline(void *p)
{
    FISlot *slot = p;
    void *(*start)(void *) = slot->start;
    void *arg = slot->arg, *ret;

    atomic_store(&slot->used, 0);
    pthread_cleanup_push(thread_ended, NULL);
    ret = start(arg);
    pthread_cleanup_pop(1);
    return ret;
}

/* A call the window let through: the real pthread_create() (EAGAIN when it could not
 * be found), through the trampoline when its caller is tracked. */
static int fi_pthread_create_through(fi_pthread_create_fn real, void *caller,
                                     pthread_t *thread, const pthread_attr_t *attr,
                                     void *(*start)(void *), void *arg)
{
    FISlot *slot = NULL;
    int err;

    if (!real)
        return EAGAIN;
    if (fi_busy || !fi_target_matches(&fi_track, caller))
        return real(thread, attr, start, arg);
    for (int i = 0; i < FI_SLOTS && !slot; i++) {
        int free_ = 0;
        if (atomic_compare_exchange_strong(&fi_slots[i].used, &free_, 1))
            slot = &fi_slots[i];
    }
    if (!slot) {
        atomic_fetch_add(&fi_untracked, 1);
        return real(thread, attr, start, arg);
    }
    slot->start = start;
    slot->arg   = arg;
    atomic_fetch_add(&fi_running, 1);  /* before the thread can end */
    err = real(thread, attr, fi_trampoline, slot);
    if (err) {
        atomic_fetch_sub(&fi_running, 1);
        atomic_store(&slot->used, 0);
    }
    return err;
}

int fi_pthread_create_track_caller(const char *substr)
{
    return fi_target_set(&fi_track, substr, 0);
}

unsigned long fi_pthread_create_running(void)
{
    return atomic_load(&fi_running);
}

unsigned long fi_pthread_create_untracked(void)
{
    return atomic_load(&fi_untracked);
}
