/* cron_driver — reads "expression<TAB>zone<TAB>start" lines on stdin and
 * prints, per line, the next tick after start (Unix seconds), "none", or
 * "error: <message>". The expression "=offset" prints instead the zone's
 * UTC offset (seconds east) at that instant. Used by the croniter and
 * zoneinfo differential tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cron_internal.h"

/* The zone of the previous line, kept: lines come grouped by zone. */
static pl_tz *zone_for(const char *name, char *err, size_t errlen)
{
    static char last[256];
    static pl_tz *tz;
    if (tz && strcmp(name, last) == 0)
        return tz;
    pl_tz_free(tz);
    snprintf(last, sizeof last, "%s", name);
    return tz = pl_tz_load(name, err, errlen);
}

int main(void)
{
    char line[1024], err[256];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *zone = strchr(line, '\t');
        char *start = zone ? strchr(zone + 1, '\t') : NULL;
        if (!start) {
            printf("error: bad input line\n");
            continue;
        }
        *zone++ = '\0';
        *start++ = '\0';
        pl_tz *tz = zone_for(zone, err, sizeof err);
        if (tz && strcmp(line, "=offset") == 0) {
            printf("%d\n", (int)pl_tz_offset_at(tz, strtoll(start, NULL, 10)));
            continue;
        }
        pl_cron *c = tz ? pl_cron_parse(line, err, sizeof err) : NULL;
        if (!c)
            printf("error: %s\n", err);
        else {
            long long next = (long long)pl_cron_next(c, tz, strtoll(start, NULL, 10));
            if (next < 0)
                printf("none\n");
            else
                printf("%lld\n", next);
        }
        pl_cron_free(c);
    }
    pl_tz_free(zone_for("", err, sizeof err));
    return 0;
}
