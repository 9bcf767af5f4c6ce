/* outputs.c — what a finished task leaves behind, and the routes that show
 * a task: its outputs (CUBE_OUTPUTS: `key=value` lines or one JSON
 * object, at most 64 KiB), its result files (CUBE_OUTPUT_DIR: images,
 * CSV, JSON, ECharts options "*.echarts.json", Markdown), the result files
 * themselves and the task's Job log. Paths come from users: a task name
 * is a DNS label and a file name one segment not starting with '.'; the
 * host's project-file calls refuse symlinks on the way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

#define OUTPUTS_MAX (64 * 1024)
#define RESULTS_MAX 200

/* "key=value" lines into an object; '#' comments and blanks skipped. */
static cJSON *parse_lines(const char *text)
{
    cJSON *o = cJSON_CreateObject();
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *eq = memchr(line, '=', len);
        while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
            len--;
        if (eq && *line != '#' && eq > line) {
            char key[128], val[4096];
            const char *k = line, *ke = eq;
            while (k < ke && *k == ' ')
                k++;
            while (ke > k && ke[-1] == ' ')
                ke--;
            const char *v = eq + 1;
            while (v < line + len && *v == ' ')
                v++;
            snprintf(key, sizeof key, "%.*s", (int)(ke - k), k);
            snprintf(val, sizeof val, "%.*s", (int)(line + len - v), v);
            if (*key)
                cu_set_str(o, key, val);
        }
        line = end ? end + 1 : line + strlen(line);
    }
    return o;
}

/* The kind of a result file by its name, or NULL when not shown. */
static const char *result_type(const char *name)
{
    static const struct { const char *ext, *type; } T[] = {
        {".echarts.json", "echarts"}, {".png", "image"}, {".jpg", "image"},
        {".jpeg", "image"}, {".svg", "image"}, {".csv", "csv"}, {".json", "json"},
        {".md", "markdown"}, {".txt", "text"}, {".html", "html"}};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        size_t e = strlen(T[i].ext);
        if (n > e && !strcasecmp(name + n - e, T[i].ext))
            return T[i].type;
    }
    return NULL;
}

static const char *content_type(const char *type, const char *name)
{
    if (!strcmp(type, "image")) {
        size_t n = strlen(name);
        return n > 4 && !strcasecmp(name + n - 4, ".svg") ? "image/svg+xml"
               : n > 4 && !strcasecmp(name + n - 4, ".png") ? "image/png" : "image/jpeg";
    }
    if (!strcmp(type, "csv"))
        return "text/csv; charset=utf-8";
    if (!strcmp(type, "json") || !strcmp(type, "echarts"))
        return "application/json";
    if (!strcmp(type, "markdown"))
        return "text/markdown; charset=utf-8";
    if (!strcmp(type, "html"))
        return "text/plain; charset=utf-8";   /* never rendered as a page */
    return "text/plain; charset=utf-8";
}

static cJSON *results_list(struct pl *p, const char *project, const char *run, int layout,
                           const char *task)
{
    char rel[512];
    int rc;
    pl_task_path(layout, run, task, "results", rel, sizeof rel);
    cJSON *files = cu_json_take(p->host, p->host->file_list(p->self, project, rel, &rc)), *f;
    cJSON *out = cJSON_CreateArray();
    int n = 0;
    cJSON_ArrayForEach(f, files) {
        const char *name = cu_str(f, "name"), *type = name ? result_type(name) : NULL;
        if (!type || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "dir")) ||
            n++ >= RESULTS_MAX)
            continue;
        char url[1024];
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "name", name);
        cJSON_AddStringToObject(r, "type", type);
        cJSON_AddNumberToObject(r, "size", cu_num(f, "size", 0));
        snprintf(url, sizeof url, "/api/v1/projects/%s/pipelineruns/%s/tasks/%s/results/%s",
                 project, run, task, name);
        cJSON_AddStringToObject(r, "url", url);
        cJSON_AddItemToArray(out, r);
    }
    cJSON_Delete(files);
    return out;
}

void pl_outputs_collect(struct pl *p, const char *project, const char *run, int layout,
                        const char *task, cJSON *tstatus)
{
    char rel[512];
    size_t len = 0;
    int rc;
    pl_task_path(layout, run, task, "outputs", rel, sizeof rel);
    char *text = p->host->file_read(p->self, project, rel, &len, &rc);
    cJSON *outputs = NULL;
    if (text && len <= OUTPUTS_MAX && strlen(text) == len) {
        const char *s = text;
        while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
            s++;
        outputs = *s == '{' ? cJSON_Parse(s) : parse_lines(s);
        if (!cJSON_IsObject(outputs)) {
            cJSON_Delete(outputs);
            outputs = NULL;
            cu_set_str(tstatus, "message", "CUBE_OUTPUTS: not key=value lines or a JSON object");
        }
    } else if (text) {
        cu_set_str(tstatus, "message", "CUBE_OUTPUTS: larger than 64 KiB or not text; ignored");
    }
    p->host->free(text);
    cu_set_item(tstatus, "outputs", outputs ? outputs : cJSON_CreateObject());
    cJSON *results = results_list(p, project, run, layout, task);
    if (cJSON_GetArraySize(results))
        cu_set_item(tstatus, "results", results);
    else
        cJSON_Delete(results);
}

/* A task name (DNS label) and file name (one segment) that are safe. */
static int safe_names(const char *task, const char *file)
{
    if (!task || !*task || strlen(task) > 63 || !file || !*file || strlen(file) > 255 ||
        *file == '.' || strchr(file, '/'))
        return 0;
    for (const char *c = task; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
            return 0;
    return 1;
}

int pl_result_route(void *state, cube_req *req)
{
    struct pl *p = state;
    const struct cube_host *h = p->host;
    const char *project = h->req_param(req, "project"), *run = h->req_param(req, "name");
    const char *task = h->req_param(req, "task"), *file = h->req_param(req, "file");
    const char *type = file ? result_type(file) : NULL;
    if (!safe_names(task, file) || !type)
        return h->resp_error(req, 404, "NotFound", "no such result file");
    int rc;
    cJSON *obj = cu_json_take(p->host, h->obj_get(p->self, "PipelineRun", project, run, &rc));
    if (!obj)
        return h->resp_error(req, 404, "NotFound", "no such pipeline run");
    char dir[512], rel[1024];
    size_t len = 0;
    pl_task_path(pl_run_layout(obj), run, task, "results", dir, sizeof dir);
    cJSON_Delete(obj);
    snprintf(rel, sizeof rel, "%s/%s", dir, file);
    char *data = h->file_read(p->self, project, rel, &len, &rc);
    if (!data)
        return h->resp_error(req, 404, "NotFound", "no such result file");
    h->resp_header(req, "X-Content-Type-Options", "nosniff");
    rc = h->resp_bytes(req, 200, content_type(type, file), data, len);
    h->free(data);
    return rc;
}
