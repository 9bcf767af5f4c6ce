/* http_static.c — the web console's files from web_root: MIME types,
 * ETag/304, and the single-page-app fallback to index.html. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctx/ctx.h"
#include "http_req.h"
#include "base/fs.h"

static const struct {
    const char *ext, *type;
} MIME[] = {
    {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
    {".json", "application/json"}, {".map", "application/json"},
    {".svg", "image/svg+xml"}, {".png", "image/png"}, {".jpg", "image/jpeg"},
    {".jpeg", "image/jpeg"}, {".gif", "image/gif"}, {".ico", "image/x-icon"},
    {".webp", "image/webp"}, {".woff", "font/woff"}, {".woff2", "font/woff2"},
    {".ttf", "font/ttf"}, {".txt", "text/plain; charset=utf-8"},
    {".wasm", "application/wasm"},
};

static const char *mime_for(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash))
        for (size_t i = 0; i < sizeof MIME / sizeof MIME[0]; i++)
            if (strcasecmp(dot, MIME[i].ext) == 0)
                return MIME[i].type;
    return "application/octet-stream";
}

int cube_http_safe_relative(const char *rel)
{
    if (strchr(rel, '\\'))
        return 0;
    const char *p = rel;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 0 || p[0] == '.')
            return 0;
        p += len;
        if (*p == '/')
            p++;
    }
    return 1;
}

static int open_regular(const char *root, const char *rel, struct stat *st)
{
    char *full = cube_path_join(root, rel);
    if (!full)
        return -1;
    int fd = open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    free(full);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        return -1;
    }
    return fd;
}

static int answer_file(cube_req *req, int fd, const struct stat *st,
                       const char *name, int immutable)
{
    char etag[64];
    snprintf(etag, sizeof etag, "\"%llx-%llx\"", (unsigned long long)st->st_size,
             (unsigned long long)st->st_mtim.tv_sec * 1000u +
                 (unsigned long long)st->st_mtim.tv_nsec / 1000000u);
    const char *inm = cube_req_header(req, "If-None-Match");
    struct MHD_Response *resp;
    int status = 200;
    if (inm && strstr(inm, etag)) {
        close(fd);
        resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        status = 304;
    } else {
        resp = MHD_create_response_from_fd((uint64_t)st->st_size, fd);
        if (!resp)
            close(fd);
        req->resp_bytes = (uint64_t)st->st_size;
    }
    if (!resp)
        return CUBE_ENOMEM;
    MHD_add_response_header(resp, "ETag", etag);
    MHD_add_response_header(resp, "Content-Type", mime_for(name));
    MHD_add_response_header(resp, "Cache-Control", immutable
                            ? "public, max-age=31536000, immutable" : "no-cache");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    return cube_http_queue(req, status, resp);
}

/* Shown at "/" while the console is not built, so a first visit after
 * `make run` explains itself instead of answering 404. */
static const char LANDING[] =
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>Cube</title></head>"
    "<body style=\"font-family:sans-serif;max-width:40em;margin:3em auto\">"
    "<h1>Cube is running</h1><p>The web console is not built (no index.html in "
    "<code>web_root</code>). The API answers:</p><ul>"
    "<li><a href=\"/healthz\">/healthz</a></li><li><a href=\"/readyz\">/readyz</a></li>"
    "<li><a href=\"/metrics\">/metrics</a></li></ul></body></html>";

static int answer_landing(cube_req *req)
{
    if (strcmp(req->path, "/") != 0)
        return 0;
    req->route_label = "static";
    return cube_http_answer(req, 200, "text/html; charset=utf-8", LANDING,
                            sizeof LANDING - 1, 1) == 0;
}

int cube_http_send_file(cube_req *req, const char *root, const char *rel, int immutable)
{
    struct stat st;
    if (!*rel || !cube_http_safe_relative(rel))
        return 0;
    int fd = open_regular(root, rel, &st);
    if (fd < 0)
        return 0;
    return answer_file(req, fd, &st, rel, immutable) == 0 ? 1 : -1;
}

int cube_http_static(cube_req *req)
{
    const char *root = req->ctx->cfg->web_root;
    if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0)
        return 0;
    if (!root || !*root)
        return answer_landing(req);
    if (strncmp(req->path, "/api/", 5) == 0 || strcmp(req->path, "/api") == 0)
        return 0;
    const char *rel = req->path + 1;
    struct stat st;
    int fd = -1;
    req->route_label = "static";
    if (*rel && cube_http_safe_relative(rel))
        fd = open_regular(root, rel, &st);
    if (fd >= 0)
        return answer_file(req, fd, &st, rel, strncmp(rel, "assets/", 7) == 0) == 0;
    /* SPA fallback: client-side routes ("/jobs/x") get index.html; missing
     * files with an extension ("/x.js") stay 404. */
    const char *last = strrchr(req->path, '/');
    if (strchr(last, '.'))
        return 0;
    fd = open_regular(root, "index.html", &st);
    if (fd < 0)
        return answer_landing(req);
    return answer_file(req, fd, &st, "index.html", 0) == 0;
}
