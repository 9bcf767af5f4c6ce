/* fuzz_cron.c — libFuzzer target for the pipeline's cron library: the
 * input is an expression, a NUL, then a start instant (8 bytes) and a zone
 * pick (1 byte). Parsed expressions must give a next tick strictly after
 * the start and within 5 years, or -1; asking again from just before the
 * tick must give the same tick. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cron.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const zones[] = {"UTC", "America/New_York", "Australia/Lord_Howe",
                                    "Europe/London", "Pacific/Chatham", "Asia/Shanghai"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pl_tz *tz[6];
    char err[256], expr[512];
    const uint8_t *nul = memchr(data, '\0', size);
    size_t n = nul ? (size_t)(nul - data) : size;
    if (n >= sizeof expr)
        return 0;
    memcpy(expr, data, n);
    expr[n] = '\0';
    int64_t after = 1700000000;
    unsigned zone = 0;
    if (nul && size - n - 1 >= 9) {
        memcpy(&after, nul + 1, 8);
        after %= (int64_t)1 << 36;  /* about 2,000 years either way */
        zone = nul[9] % 6;
    }
    if (!tz[zone] && !(tz[zone] = pl_tz_load(zones[zone], err, sizeof err)))
        abort();
    pl_cron *c = pl_cron_parse(expr, err, sizeof err);
    if (!c) {
        if (!err[0])
            abort();  /* a refusal always says why */
        return 0;
    }
    int64_t next = pl_cron_next(c, tz[zone], after);
    if (next != -1 && (next <= after || next - after > (int64_t)5 * 366 * 86400 ||
                       pl_cron_next(c, tz[zone], next - 1) != next))
        abort();
    pl_cron_free(c);
    return 0;
}
