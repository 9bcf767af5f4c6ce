/* log.h — the host's logger: levelled lines to stderr, as text or JSON.
 * Configured once at start-up (cube_log_setup) before threads exist; after
 * that it is read-only and safe from any thread. */
#ifndef CUBE_LOG_H
#define CUBE_LOG_H

#include <stdarg.h>

#include <cube/cube_plugin.h>

enum cube_log_format { CUBE_LOGFMT_TEXT = 0, CUBE_LOGFMT_JSON = 1 };

/* Sets minimum level (CUBE_LOG_*) and line format. */
void cube_log_setup(int level, enum cube_log_format format);
/* Parses "debug|info|warn|error" into a level; returns -1 if unknown. */
int cube_log_level_parse(const char *name);
int cube_log_enabled(int level);
/* Writes one line: time, level, component (e.g. "core", "plugin:hello"). */
void cube_log(int level, const char *component, const char *fmt, ...)
    CUBE_PRINTF(3, 4);
void cube_logv(int level, const char *component, const char *fmt, va_list ap)
    CUBE_PRINTF(3, 0);
/* Writes a pre-formatted line as-is (the access log). */
void cube_log_raw(const char *line);
enum cube_log_format cube_log_format_get(void);

#endif
