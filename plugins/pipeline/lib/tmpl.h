/* tmpl.h — the small, safe template language of pipeline arguments.
 *
 * Contract: pl_tmpl_render replaces every "{{ expr }}" in src. expr is a
 * dotted variable path looked up in `vars` (a cJSON object; nested objects
 * for dotted paths, e.g. tasks.split.outputs.rows), followed by zero or
 * more filters "| name(arg, ...)" with string or number literals:
 * ds_add(days) on a YYYY-MM-DD or ISO date-time, ds_format(in, out) and
 * strftime-style format(out), upper, lower, default(value). An unknown
 * variable or filter, a bad argument or an unclosed "{{" gives NULL with a
 * message naming it in err. No code execution, no loops, no includes.
 * Returns a malloc()ed string.
 *
 * Details (tmpl.c): spaces inside "{{ }}" are optional; string literals
 * render as themselves, so {{ '{{' }} writes a literal "{{"; a stray "}}"
 * is copied as is; rendered values are not scanned again; default(v)
 * also replaces null and ""; an object value is an error, an array renders
 * as JSON; output is capped at 1 MiB; literals, variable paths and filter
 * names are at most 255 bytes (longer is an error naming which). Dates
 * for ds_add and format are YYYY-MM-DD or ISO date-times (ds_add keeps the
 * time part); formats support %Y %y %m %d %e %H %M %S %j %b %B %a %A %u
 * %w %F %T %s %%.
 */
#ifndef PL_TMPL_H
#define PL_TMPL_H

#include <stddef.h>

#include <cjson/cJSON.h>

char *pl_tmpl_render(const char *src, const cJSON *vars, char *err, size_t errlen);

#endif
