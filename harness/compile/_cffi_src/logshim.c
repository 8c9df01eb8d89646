/*
 * The av_log callback shim (logshim.py declares it), compiled into every per-tree module.
 */
#define FFDNN_LOG_SIZE (1 << 16)

static struct {
    pthread_mutex_t lock;
    int level;
    int print_prefix;
    size_t len;
    char text[FFDNN_LOG_SIZE];
} ffdnn_log = { PTHREAD_MUTEX_INITIALIZER };

/* the lines logged at AV_LOG_ERROR or worse, apart: an error FFmpeg's code said */
static struct {
    size_t len;
    char text[FFDNN_LOG_SIZE / 4];
} ffdnn_errors;

static void ffdnn_log_callback(void *avcl, int level, const char *fmt, va_list vl)
{
    char line[1024];

    if (level > ffdnn_log.level)
        return;
    pthread_mutex_lock(&ffdnn_log.lock);
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof(line), &ffdnn_log.print_prefix);
    size_t n = strlen(line);
    if (ffdnn_log.len + n < FFDNN_LOG_SIZE) {
        memcpy(ffdnn_log.text + ffdnn_log.len, line, n + 1);
        ffdnn_log.len += n;
    }
    if (level <= AV_LOG_ERROR && ffdnn_errors.len + n < sizeof(ffdnn_errors.text)) {
        memcpy(ffdnn_errors.text + ffdnn_errors.len, line, n + 1);
        ffdnn_errors.len += n;
    }
    pthread_mutex_unlock(&ffdnn_log.lock);
}

void ffdnn_log_capture(int level)
{
    ffdnn_log.level = level;
    ffdnn_log.print_prefix = 1;
    av_log_set_level(level);
    av_log_set_callback(ffdnn_log_callback);
}

const char *ffdnn_log_text(void)
{
    return ffdnn_log.text;
}

const char *ffdnn_log_errors(void)
{
    return ffdnn_errors.text;
}
