/* streamprobe.c — a test plugin driving the ABI 1.5 streamed bodies and
 * file slots (tests/files/test_streams.py, tests/bench/upload.sh, and the
 * fake host's test_mock_streams.c). An upload is written into a file with
 * file_write_at as it arrives and committed; a download answers with it.
 * Paths are "uploads/<name>" in the project's files, or with ?area=plugin
 * in the plugin's own area.
 *
 *   PUT    /api/v1/projects/{project}/streamprobe/uploads/{name}
 *          stream_body, up to 8 GiB, project:edit. ?offset=N resumes the
 *          pending upload at N (its size must be N: else 409 before the
 *          body is read); none starts it over. ?sha256=HEX commit checks
 *          it (422 DigestMismatch); ?commit=0 keeps it pending;
 *          ?fail_at=N the data callback answers 409 once N bytes are past;
 *          ?refuse_at=N it returns CUBE_EINVAL with set_error_field("body").
 *          -> {"sha256","size"} or {"pending":size}
 *   PUT    .../streamprobe/small/{name}   the same, up to 1 MiB
 *   GET    .../streamprobe/uploads/{name} resp_file (Range, ETag)
 *   GET    .../streamprobe/uploads/{name}/pending  -> {"size"} (opens the
 *          pending upload: 409 while a writer holds it)
 *   DELETE .../streamprobe/uploads/{name}/pending  file_abort
 *   GET    /api/v1/streamprobe/stats (admin) -> {"handlers","bytes",
 *          "chunks","max_chunk","closes","last_close"} */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cube/cube.h>

#define BIG_LIMIT ((uint64_t)8 << 30)
#define SMALL_LIMIT ((uint64_t)1 << 20)

static struct {
    const struct cube_host *host;
    cube_plugin *self;
    pthread_mutex_t mu;
    unsigned long long handlers, bytes, chunks, max_chunk, closes;
    int last_close;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER};

struct upload {
    cube_file *f;
    uint64_t off, fail_at, refuse_at;
    int commit;
    char expect[CUBE_SHA256_HEX_SIZE];
};

/* A decimal query argument, or def when absent; -1 when malformed. */
static long long query_u64(cube_req *req, const char *name, long long def)
{
    const char *v = P.host->req_query(req, name);
    char *end;
    if (!v)
        return def;
    long long n = strtoll(v, &end, 10);
    return *v && !*end && n >= 0 ? n : -1;
}

/* The store (project, or NULL for the plugin's area) and the file path. */
static const char *target(cube_req *req, char *path, size_t len)
{
    const char *area = P.host->req_query(req, "area");
    snprintf(path, len, "uploads/%s", P.host->req_param(req, "name"));
    return area && !strcmp(area, "plugin") ? NULL : P.host->req_param(req, "project");
}

static int open_error(cube_req *req, int rc)
{
    if (rc == CUBE_ECONFLICT)
        return P.host->resp_error(req, 409, "Conflict", "another upload writes this file");
    if (rc == CUBE_ENOTFOUND)
        return P.host->resp_error(req, 404, "NotFound", "no such file");
    return rc;
}

static int on_data(void *cls, cube_req *req, const char *data, size_t len)
{
    struct upload *u = cls;
    if (u->fail_at && u->off + len > u->fail_at)
        return P.host->resp_error(req, 409, "Conflict", "stopped at fail_at");
    if (u->refuse_at && u->off + len > u->refuse_at) {
        P.host->set_error_field(P.self, "body", "refused past byte %llu",
                                (unsigned long long)u->refuse_at);
        return CUBE_EINVAL;
    }
    int rc = P.host->file_write_at(u->f, u->off, data, len);
    if (rc != CUBE_OK)
        return rc;
    u->off += len;
    pthread_mutex_lock(&P.mu);
    P.bytes += len;
    P.chunks++;
    if (len > P.max_chunk)
        P.max_chunk = len;
    pthread_mutex_unlock(&P.mu);
    return CUBE_OK;
}

static int on_end(void *cls, cube_req *req)
{
    struct upload *u = cls;
    char sha[CUBE_SHA256_HEX_SIZE], body[200];
    uint64_t size = 0;
    if (!u->commit) {
        P.host->file_size(u->f, &size);
        snprintf(body, sizeof body, "{\"pending\":%llu}", (unsigned long long)size);
        return P.host->resp_json(req, 200, body);
    }
    int rc = P.host->file_commit(u->f, u->expect, sha);
    if (rc == CUBE_EDIGEST) {
        snprintf(body, sizeof body, "the content's sha256 is %s", sha);
        return P.host->resp_error(req, 422, "DigestMismatch", body);
    }
    if (rc != CUBE_OK)
        return rc;
    P.host->file_size(u->f, &size);
    snprintf(body, sizeof body, "{\"sha256\":\"%s\",\"size\":%llu}", sha,
             (unsigned long long)size);
    return P.host->resp_json(req, 200, body);
}

static void on_close(void *cls, int rc)
{
    struct upload *u = cls;
    P.host->file_close(u->f);   /* an unfinished upload stays pending */
    free(u);
    pthread_mutex_lock(&P.mu);
    P.closes++;
    P.last_close = rc;
    pthread_mutex_unlock(&P.mu);
}

static int put_upload(void *state, cube_req *req)
{
    (void)state;
    pthread_mutex_lock(&P.mu);
    P.handlers++;
    pthread_mutex_unlock(&P.mu);
    char path[300];
    const char *project = target(req, path, sizeof path);
    long long offset = query_u64(req, "offset", 0), fail_at = query_u64(req, "fail_at", 0);
    long long refuse_at = query_u64(req, "refuse_at", 0);
    const char *commit = P.host->req_query(req, "commit"), *sha = P.host->req_query(req, "sha256");
    if (offset < 0 || fail_at < 0 || refuse_at < 0 ||
        (sha && strlen(sha) >= CUBE_SHA256_HEX_SIZE))
        return P.host->resp_error(req, 400, "BadRequest", "bad offset, fail_at or sha256");
    int rc;
    unsigned flags = CUBE_FILE_WRITE | (offset ? 0 : CUBE_FILE_TRUNCATE);
    cube_file *f = P.host->file_open(P.self, project, path, flags, &rc);
    if (!f)
        return open_error(req, rc);
    uint64_t size = 0;
    P.host->file_size(f, &size);
    if ((uint64_t)offset != size) {
        P.host->file_close(f);
        char msg[120];
        snprintf(msg, sizeof msg, "the upload is at %llu bytes: resume there",
                 (unsigned long long)size);
        return P.host->resp_error(req, 409, "Conflict", msg);
    }
    struct upload *u = calloc(1, sizeof *u);
    if (!u) {
        P.host->file_close(f);
        return CUBE_ENOMEM;
    }
    *u = (struct upload){.f = f, .off = size, .fail_at = (uint64_t)fail_at,
                         .refuse_at = (uint64_t)refuse_at,
                         .commit = !commit || strcmp(commit, "0") != 0};
    snprintf(u->expect, sizeof u->expect, "%s", sha ? sha : "");
    const struct cube_body_desc desc = {.size = sizeof desc, .data = on_data, .end = on_end,
                                        .close = on_close, .cls = u};
    if ((rc = P.host->req_body_stream(req, &desc)) != CUBE_OK) {
        P.host->file_close(f);
        free(u);
    }
    return rc;
}

static int get_upload(void *state, cube_req *req)
{
    (void)state;
    char path[300];
    const char *project = target(req, path, sizeof path);
    int rc;
    cube_file *f = P.host->file_open(P.self, project, path, CUBE_FILE_READ, &rc);
    if (!f)
        return open_error(req, rc);
    rc = P.host->resp_file(req, f, "application/octet-stream");
    P.host->file_close(f);   /* the answer keeps its own reference */
    return rc;
}

static int pending(void *state, cube_req *req)
{
    (void)state;
    char path[300], body[64];
    const char *project = target(req, path, sizeof path);
    int rc, del = !strcmp(P.host->req_method(req), "DELETE");
    cube_file *f = P.host->file_open(P.self, project, path, CUBE_FILE_WRITE, &rc);
    if (!f)
        return open_error(req, rc);
    uint64_t size = 0;
    rc = del ? P.host->file_abort(f) : P.host->file_size(f, &size);
    P.host->file_close(f);
    if (rc != CUBE_OK)
        return rc;
    snprintf(body, sizeof body, "{\"size\":%llu}", (unsigned long long)size);
    return P.host->resp_json(req, 200, body);
}

static int stats(void *state, cube_req *req)
{
    (void)state;
    char body[300];
    pthread_mutex_lock(&P.mu);
    snprintf(body, sizeof body, "{\"handlers\":%llu,\"bytes\":%llu,\"chunks\":%llu,"
             "\"max_chunk\":%llu,\"closes\":%llu,\"last_close\":%d}", P.handlers, P.bytes,
             P.chunks, P.max_chunk, P.closes, P.last_close);
    pthread_mutex_unlock(&P.mu);
    return P.host->resp_json(req, 200, body);
}

static int probe_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    if (!CUBE_HOST_HAS(host, resp_file)) {
        host->set_error(self, "needs a host with ABI 1.5 streamed bodies and files");
        return CUBE_EVERSION;
    }
    P.host = host;
    P.self = self;
    *state = &P;
#define BASE "/api/v1/projects/{project}/streamprobe"
    const struct cube_route_desc routes[] = {
        {.size = sizeof routes[0], .method = "PUT", .path = BASE "/uploads/{name}",
         .permission = CUBE_PERM_PROJECT_EDIT, .handler = put_upload, .stream_body = 1,
         .max_body_bytes = BIG_LIMIT},
        {.size = sizeof routes[0], .method = "PUT", .path = BASE "/small/{name}",
         .permission = CUBE_PERM_PROJECT_EDIT, .handler = put_upload, .stream_body = 1,
         .max_body_bytes = SMALL_LIMIT},
        {.size = sizeof routes[0], .method = "GET", .path = BASE "/uploads/{name}",
         .permission = CUBE_PERM_PROJECT_VIEW, .handler = get_upload},
        {.size = sizeof routes[0], .method = "GET", .path = BASE "/uploads/{name}/pending",
         .permission = CUBE_PERM_PROJECT_EDIT, .handler = pending},
        {.size = sizeof routes[0], .method = "DELETE", .path = BASE "/uploads/{name}/pending",
         .permission = CUBE_PERM_PROJECT_EDIT, .handler = pending},
        {.size = sizeof routes[0], .method = "GET", .path = "/api/v1/streamprobe/stats",
         .permission = CUBE_PERM_ADMIN, .handler = stats},
    };
#undef BASE
    int rc = CUBE_OK;
    for (size_t i = 0; rc == CUBE_OK && i < sizeof routes / sizeof routes[0]; i++)
        rc = host->register_route(self, &routes[i]);
    return rc;
}

CUBE_PLUGIN_DEFINE(streamprobe, .name = "streamprobe", .version = "1.0.0", .vendor = "Cube",
                   .license = "Apache-2.0",
                   .description = "Drives the 1.5 streamed bodies and file slots",
                   .init = probe_init);
