/* cron_driver — reads "expression<TAB>zone<TAB>start" lines on stdin and
 * prints, per line, the next tick after start (Unix seconds), "none", or
 * "error: <message>". Used by the croniter differential test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cron.h"

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
        pl_tz *tz = pl_tz_load(zone, err, sizeof err);
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
        pl_tz_free(tz);
    }
    return 0;
}
