/* cmd_version.c — cubectl version: the client's version, then the
 * server's (GET /api/v1/version). */
#include <stdio.h>

#include <cube/util/json.h>

#include "api.h"

#ifndef CUBECTL_VERSION
#define CUBECTL_VERSION "dev"
#endif

static const char usage[] =
    "Usage: cubectl version [--client]\n"
    "\n"
    "Prints the client's version and the server's version and plugin ABI.\n"
    "\n"
    "Flags:\n"
    "      --client   only the client's version (no server needed)\n";

int cmd_version(struct cli *cli, int argc, char **argv)
{
    int client_only = 0;
    const struct cli_flag flags[] = {
        FLAG_ON("client", 0, &client_only),
        FLAG_END,
    };
    int rc = cli_parse(cli, argc, argv, flags, usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos)
        return cli_usage_error(cli, "version takes no arguments");
    printf("Client Version: %s\n", CUBECTL_VERSION);
    fflush(stdout);
    if (client_only)
        return EXIT_OK;
    struct api_result r;
    if ((rc = cli_connect(cli)) ||
        (rc = api_call(cli, "GET", "/api/v1/version", NULL, NULL, &r)))
        return rc;
    if (api_ok(&r) && cJSON_IsObject(r.json))
        printf("Server Version: %s (plugin ABI %s)\n", cu_str_or(r.json, "version", "unknown"),
               cu_str_or(r.json, "abi", "unknown"));
    else
        rc = api_ok(&r) ? cli_fail("the server's version is not JSON") : api_fail(&r);
    api_result_free(&r);
    return rc;
}
