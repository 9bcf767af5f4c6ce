/* log.c — see log.h.
 *
 * Every line is built in a stack buffer and handed to the kernel with one
 * write(2), so lines from different threads never interleave. Messages are
 * cut at MSG_CAP bytes (on a UTF-8 boundary) with a "…" marker, so a huge
 * message cannot blow the stack or flood the log. */
#include "log.h"
#include "utf8.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MSG_CAP 16384
#define LINE_CAP (MSG_CAP + 512)
/* Room always left for the truncation marker and the line's tail. */
#define LINE_RESERVE 16
#define ELLIPSIS "\xe2\x80\xa6" /* U+2026 */

/* Process-wide settings. They are the one deliberate piece of global mutable
 * state in core: cube_log_setup writes them once at start-up, before any
 * thread exists, and afterwards they are only read, so no lock is needed
 * (passing a logger through every call site would buy nothing). */
static int log_level = CUBE_LOG_INFO;
static enum cube_log_format log_format = CUBE_LOGFMT_TEXT;

/* Sets the minimum level and line format; call before starting threads. */
void cube_log_setup(int level, enum cube_log_format format)
{
    log_level = level;
    log_format = format;
}

/* Maps "debug|info|warn|error" (any case) to CUBE_LOG_*; -1 if unknown. */
int cube_log_level_parse(const char *name)
{
    static const struct {
        const char *name;
        int level;
    } levels[] = {{"debug", CUBE_LOG_DEBUG},
                  {"info", CUBE_LOG_INFO},
                  {"warn", CUBE_LOG_WARN},
                  {"error", CUBE_LOG_ERROR}};
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        if (strcasecmp(name, levels[i].name) == 0)
            return levels[i].level;
    }
    return -1;
}

/* True when a line at `level` would be written. */
int cube_log_enabled(int level)
{
    return level >= log_level;
}

/* The format chosen by cube_log_setup. */
enum cube_log_format cube_log_format_get(void)
{
    return log_format;
}

/* Levels between the named ones round down to the nearest name. */
static const char *level_name(int level, bool upper)
{
    if (level >= CUBE_LOG_ERROR)
        return upper ? "ERROR" : "error";
    if (level >= CUBE_LOG_WARN)
        return upper ? "WARN" : "warn";
    if (level >= CUBE_LOG_INFO)
        return upper ? "INFO" : "info";
    return upper ? "DEBUG" : "debug";
}

/* ---- line buffer ---- */

struct line {
    size_t len;
    bool full; /* something did not fit: the marker gets appended */
    char p[LINE_CAP];
};

/* Appends n bytes as a unit, or marks the line full. */
static void put(struct line *l, const char *s, size_t n)
{
    if (l->full || l->len + n > LINE_CAP - LINE_RESERVE) {
        l->full = true;
        return;
    }
    memcpy(l->p + l->len, s, n);
    l->len += n;
}

static void puts_(struct line *l, const char *s)
{
    put(l, s, strlen(s));
}

/* Tail bytes go into the reserve, which put() never touches. */
static void put_tail(struct line *l, const char *s)
{
    size_t n = strlen(s);
    if (l->len + n <= LINE_CAP) {
        memcpy(l->p + l->len, s, n);
        l->len += n;
    }
}

/* Escape for one ASCII byte, or NULL when it goes out as-is. Text lines
 * escape control characters too, so one record is always one line. */
static const char *escape_ascii(unsigned char c, bool json, char tmp[8])
{
    if (c == '\n')
        return "\\n";
    if (c == '\r')
        return "\\r";
    if (c == '\t')
        return json ? "\\t" : NULL;
    if (json && (c == '"' || c == '\\'))
        return c == '"' ? "\\\"" : "\\\\";
    if (c < 0x20 || c == 0x7f) {
        snprintf(tmp, 8, json ? "\\u%04x" : "\\x%02x", c);
        return tmp;
    }
    return NULL;
}

/* Appends s escaped for the line format. Multi-byte characters go in whole
 * (never split by truncation); invalid UTF-8 becomes U+FFFD in JSON, which
 * must be valid UTF-8, and passes through untouched in text. */
static void put_escaped(struct line *l, const char *str, bool json)
{
    const unsigned char *s = (const unsigned char *)str;
    char tmp[8];
    while (*s && !l->full) {
        size_t n = 1;
        const char *esc = NULL;
        if (*s >= 0x80) {
            n = cube_utf8_seq_len(s);
            if (n == 0) {
                n = 1;
                esc = json ? "\\ufffd" : NULL;
            }
        } else {
            esc = escape_ascii(*s, json, tmp);
        }
        if (esc)
            puts_(l, esc);
        else
            put(l, (const char *)s, n);
        s += n;
    }
}

/* ---- writing ---- */

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* nowhere left to report a logging failure */
        p += w;
        n -= (size_t)w;
    }
}

static void put_timestamp(struct line *l)
{
    struct timespec ts;
    struct tm tm;
    char buf[40];
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, sizeof buf - n, ".%03ldZ", ts.tv_nsec / 1000000);
    puts_(l, buf);
}

/* `2026-11-29T16:42:24.123Z INFO  [core] message` */
static void build_text(struct line *l, int level, const char *component,
                       const char *msg, bool cut)
{
    char lv[16];
    put_timestamp(l);
    snprintf(lv, sizeof lv, " %-5s [", level_name(level, true));
    puts_(l, lv);
    put_escaped(l, component, false);
    puts_(l, "] ");
    put_escaped(l, msg, false);
    if (l->full || cut)
        put_tail(l, ELLIPSIS);
    put_tail(l, "\n");
}

/* `{"ts":"...","level":"info","component":"core","msg":"..."}` */
static void build_json(struct line *l, int level, const char *component,
                       const char *msg, bool cut)
{
    puts_(l, "{\"ts\":\"");
    put_timestamp(l);
    puts_(l, "\",\"level\":\"");
    puts_(l, level_name(level, false));
    puts_(l, "\",\"component\":\"");
    put_escaped(l, component, true);
    puts_(l, "\",\"msg\":\"");
    put_escaped(l, msg, true);
    if (l->full || cut)
        put_tail(l, ELLIPSIS);
    put_tail(l, "\"}\n");
}

/* Cuts a truncated message back to a whole UTF-8 character. */
static void trim_partial_utf8(char *msg, size_t len)
{
    size_t i = len;
    while (i > 0 && len - i < 4 && ((unsigned char)msg[i - 1] & 0xc0) == 0x80)
        i--;
    if (i > 0 && (unsigned char)msg[i - 1] >= 0xc0 &&
        cube_utf8_seq_len((const unsigned char *)msg + i - 1) == 0)
        msg[i - 1] = '\0';
}

/* Formats and writes one line if `level` is enabled; preserves errno. */
void cube_logv(int level, const char *component, const char *fmt, va_list ap)
{
    if (!cube_log_enabled(level))
        return;
    int saved = errno;
    char msg[MSG_CAP];
    int n = fmt ? vsnprintf(msg, sizeof msg, fmt, ap) : -1;
    if (n < 0)
        msg[0] = '\0';
    bool cut = n >= (int)sizeof msg;
    if (cut)
        trim_partial_utf8(msg, sizeof msg - 1);
    struct line l; /* not zeroed: 16 KiB of memset per line buys nothing */
    l.len = 0;
    l.full = false;
    const char *comp = component ? component : "-";
    if (log_format == CUBE_LOGFMT_JSON)
        build_json(&l, level, comp, msg, cut);
    else
        build_text(&l, level, comp, msg, cut);
    write_all(STDERR_FILENO, l.p, l.len);
    errno = saved;
}

/* printf-style front end of cube_logv. */
void cube_log(int level, const char *component, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cube_logv(level, component, fmt, ap);
    va_end(ap);
}

/* Writes line as-is plus a '\n' if it lacks one, in one writev(2). */
void cube_log_raw(const char *line)
{
    if (!line)
        return;
    int saved = errno;
    size_t n = strlen(line);
    struct iovec iov[2] = {{(void *)line, n}, {(void *)"\n", 1}};
    int cnt = n > 0 && line[n - 1] == '\n' ? 1 : 2;
    ssize_t w;
    do
        w = writev(STDERR_FILENO, iov, cnt);
    while (w < 0 && errno == EINTR);
    if (w >= 0 && (size_t)w < n) /* short write: finish it, still in order */
        write_all(STDERR_FILENO, line + w, n - (size_t)w);
    if (w >= 0 && (size_t)w <= n && cnt == 2)
        write_all(STDERR_FILENO, "\n", 1);
    errno = saved;
}
