/* fuzz_router.c — libFuzzer target for the router and path parser.
 * Input: first line is a method, the rest a path; also every input is
 * tried as a route template, so both parsers see hostile bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/router.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cube_router *fixed_router(void)
{
    static int targets[6];
    static const char *const templates[][2] = {
        {"GET", "/api/v1/projects/{project}/{plural}"},
        {"GET", "/api/v1/projects/{project}/{plural}/{name}"},
        {"POST", "/api/v1/projects/{project}/{plural}/{name}/{action}"},
        {"GET", "/api/v1/projects/{project}/jobs/special"},
        {"GET", "/files/{path*}"},
        {"DELETE", "/"},
    };
    char err[256];
    struct cube_router *r = cube_router_new();
    for (size_t i = 0; r && i < 6; i++)
        cube_router_add(r, templates[i][0], templates[i][1], &targets[i], err, sizeof err);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *nl = strchr(text, '\n');
    const char *method = nl ? text : "GET";
    const char *path = nl ? nl + 1 : text;
    if (nl)
        *nl = '\0';
    struct cube_router *r = fixed_router();
    struct cube_route_match m;
    if (r && cube_router_match(r, method, path, &m) == CUBE_ROUTE_FOUND)
        cube_route_match_clear(&m);
    char err[256];
    int target;
    if (r && cube_router_add(r, method, path, &target, err, sizeof err) == 0 &&
        cube_router_match(r, method, path, &m) == CUBE_ROUTE_FOUND)
        cube_route_match_clear(&m);
    cube_router_free(r);
    free(text);
    return 0;
}
