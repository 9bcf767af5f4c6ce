/* fuzz_tmpl.c — libFuzzer target for the pipeline's template language:
 * the input is a template rendered against fixed variables. It renders
 * (within the output cap) or fails with a message. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tmpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cJSON *vars;
    if (!vars)
        vars = cJSON_Parse("{\"execution_date\":\"2024-02-29T10:00:00Z\",\"ds\":\"2024-02-29\","
                           "\"creator\":\"alice\",\"n\":1.5,\"list\":[1,{\"a\":null}],"
                           "\"tasks\":{\"a\":{\"outputs\":{\"k\":\"{{ creator }}\"}}}}");
    char *src = malloc(size + 1), err[512];
    memcpy(src, data, size);
    src[size] = '\0';
    err[0] = '\0';
    char *out = pl_tmpl_render(src, vars, err, sizeof err);
    if ((!out && !err[0]) || (out && strlen(out) > 1024 * 1024))
        abort();
    free(out);
    free(src);
    return 0;
}
