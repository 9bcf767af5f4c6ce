/* age.h — the AGE column: timestamps in, "5m"/"3h"/"2d" out. */
#ifndef CUBECTL_AGE_H
#define CUBECTL_AGE_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

/* Parses an RFC 3339 time ("2024-05-01T12:00:00Z", fractions and +hh:mm
 * offsets allowed). Returns 0 and sets *out, or -1. */
int age_parse_time(const char *s, time_t *out);
/* Writes a short age for `seconds`: "42s", "5m", "3h", "2d", "1y";
 * negative ages (clock skew) print as "0s". */
void age_format(double seconds, char *out, size_t outlen);
/* Writes the age of timestamp v (an RFC 3339 string or epoch seconds)
 * relative to now, or "<unknown>" when v is missing or unparsable. */
void age_of(const cJSON *v, time_t now, char *out, size_t outlen);

/* Parses a duration: "90" or "90s", "5m", "2h", "30d", or pieces of
 * those in a row ("1h30m"). Returns 0 and sets *secs, or -1. */
int age_parse_duration(const char *s, double *secs);

#endif
