/* fuzz_args.c — libFuzzer target for the pipeline's argument schemas: the
 * input is a schema and an args object, split at the first NUL, both JSON.
 * Checked schemas validate the args; valid args render to an array of
 * strings. Refusals must say why. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t first = nul ? (size_t)(nul - data) : size / 2;
    size_t second = nul ? first + 1 : first;
    cJSON *schema = cJSON_ParseWithLength((const char *)data, first);
    cJSON *args = cJSON_ParseWithLength((const char *)data + second, size - second);
    char err[512] = "";
    if (schema && pl_args_check_schema(schema, err, sizeof err) != 0 && !err[0])
        abort();
    if (schema && args && err[0] == '\0') {
        if (pl_args_validate(schema, args, err, sizeof err) != 0) {
            if (!err[0])
                abort();
        } else {
            cJSON *argv = pl_args_render(schema, args), *item;
            if (!cJSON_IsArray(argv))
                abort();
            cJSON_ArrayForEach(item, argv) if (!cJSON_IsString(item)) abort();
            cJSON_Delete(argv);
        }
    }
    cJSON_Delete(schema);
    cJSON_Delete(args);
    return 0;
}
