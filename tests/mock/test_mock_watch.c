/* test_mock_watch.c — the fake host's ABI 1.5 watch and paged-list slots:
 * ADDED/MODIFIED/DELETED in order, Events by reason, cancel from inside a
 * callback, overflow gives ERROR, a 10,000-object list read in pages while
 * writes go on, and obj_list with project NULL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cube_mock.h"

static const struct cube_host *host;
static cube_plugin *self;

static int probe_init(const struct cube_host *h, cube_plugin *s, void **state)
{
    host = h;
    self = s;
    const struct cube_kind_desc w = {.size = sizeof w, .kind = "Widget", .plural = "widgets",
                                     .scope = CUBE_SCOPE_PROJECT,
                                     .spec_schema = "{\"type\":\"object\"}"};
    const struct cube_kind_desc r = {.size = sizeof r, .kind = "Rack", .plural = "racks",
                                     .scope = CUBE_SCOPE_CLUSTER,
                                     .spec_schema = "{\"type\":\"object\"}"};
    int rc = h->register_kind(s, &w);
    *state = &host;
    return rc == CUBE_OK ? h->register_kind(s, &r) : rc;
}

static const struct cube_plugin_desc PROBE = {
    .magic = CUBE_PLUGIN_MAGIC, .abi_major = CUBE_ABI_MAJOR, .abi_minor = CUBE_ABI_MINOR,
    .size = sizeof PROBE, .name = "probe", .init = probe_init,
};

/* What a callback saw: "TYPE name" lines. */
struct seen {
    char lines[64][80];
    int n;
    cube_watch *self_cancel; /* cancel this from the callback */
};

static void record(void *state, void *arg, const char *type, const char *json)
{
    (void)state;
    struct seen *s = arg;
    cJSON *o = cJSON_Parse(json);
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o, "metadata"), "name"));
    const char *reason = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "reason"));
    if (s->n < 64)
        snprintf(s->lines[s->n++], 80, "%s %s", type, name ? name : reason ? reason : "?");
    cJSON_Delete(o);
    if (s->self_cancel) {
        host->watch_cancel(self, s->self_cancel);
        s->self_cancel = NULL;
    }
}

static int setup(void **st)
{
    (void)st;
    void *state;
    return cube_mock_init(&PROBE, NULL, &state);
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(NULL, NULL);
    return 0;
}

static void put(const char *project, const char *name, const char *label)
{
    char json[256];
    int rc;
    snprintf(json, sizeof json,
             "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"%s\",\"project\":\"%s\","
             "\"labels\":{\"tier\":\"%s\"}},\"spec\":{}}", name, project, label);
    char *out = host->obj_create(self, json, &rc);
    assert_int_equal(rc, CUBE_OK);
    host->free(out);
}

static cube_watch *watch_widgets(struct seen *s, const char *project, const char *sel,
                                 const char *from)
{
    int rc;
    const struct cube_watch_desc d = {.size = sizeof d, .kind = "Widget", .project = project,
                                      .label_selector = sel, .resource_version = from,
                                      .fn = record, .arg = s};
    cube_watch *w = host->watch(self, &d, &rc);
    assert_int_equal(rc, CUBE_OK);
    return w;
}

static void added_modified_deleted_in_order(void **st)
{
    (void)st;
    struct seen s = {0}, other = {0};
    cube_watch *w = watch_widgets(&s, "alpha", "tier=web", NULL);
    cube_watch *o = watch_widgets(&other, "beta", NULL, NULL);
    put("alpha", "a1", "web");
    put("alpha", "a2", "db");      /* not selected */
    put("beta", "b1", "web");      /* other project */
    int rc;
    char *cur = host->obj_get(self, "Widget", "alpha", "a1", &rc);
    cJSON *doc = cJSON_Parse(cur);
    cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "annotations"), "x", "y");
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "spec", cJSON_Parse("{\"v\":2}"));
    char *text = cJSON_PrintUnformatted(doc);
    host->free(host->obj_update(self, text, &rc));
    assert_int_equal(rc, CUBE_OK);
    free(text), cJSON_Delete(doc), host->free(cur);
    assert_int_equal(host->obj_delete(self, "Widget", "alpha", "a1"), CUBE_OK);
    assert_int_equal(s.n, 0); /* nothing before the host's worker runs */
    cube_mock_run_watches();
    assert_int_equal(s.n, 3);
    assert_string_equal(s.lines[0], "ADDED a1");
    assert_string_equal(s.lines[1], "MODIFIED a1");
    assert_string_equal(s.lines[2], "DELETED a1");
    assert_int_equal(other.n, 1);
    assert_string_equal(other.lines[0], "ADDED b1");
    host->watch_cancel(self, w);
    host->watch_cancel(self, o);
    assert_int_equal(cube_mock_watch_count(), 0);
}

static void resume_from_a_resource_version(void **st)
{
    (void)st;
    struct seen s = {0};
    put("alpha", "r1", "web");
    int rc;
    char *l = host->obj_list_page(self, "Widget", NULL, NULL, 0, NULL, &rc);
    cJSON *list = cJSON_Parse(l);
    char rv[24];
    snprintf(rv, sizeof rv, "%s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(list, "metadata"), "resourceVersion")));
    cJSON_Delete(list), host->free(l);
    put("alpha", "r2", "web");
    cube_watch *w = watch_widgets(&s, NULL, NULL, rv);
    cube_mock_run_watches();
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "ADDED r2");
    host->watch_cancel(self, w);
}

static void events_by_kind_and_reason(void **st)
{
    (void)st;
    struct seen s = {0};
    int rc;
    const struct cube_watch_desc d = {.size = sizeof d, .kind = CUBE_WATCH_EVENTS,
                                      .involved_kind = "Widget", .reason = "Started",
                                      .fn = record, .arg = &s};
    cube_watch *w = host->watch(self, &d, &rc);
    assert_int_equal(rc, CUBE_OK);
    put("alpha", "e1", "web");
    assert_int_equal(host->obj_event(self, "Widget", "alpha", "e1", "Normal", "Started", "go"),
                     CUBE_OK);
    assert_int_equal(host->obj_event(self, "Widget", "alpha", "e1", "Normal", "Stopped", "x"),
                     CUBE_OK);
    assert_int_equal(host->obj_event(self, "Rack", NULL, "r", "Normal", "Started", "x"),
                     CUBE_OK);
    cube_mock_run_watches();
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "ADDED Started");
    host->watch_cancel(self, w);
}

static void cancel_from_inside_the_callback(void **st)
{
    (void)st;
    struct seen s = {0};
    cube_watch *w = watch_widgets(&s, NULL, NULL, NULL);
    s.self_cancel = w;
    put("alpha", "c1", "web");
    put("alpha", "c2", "web");
    cube_mock_run_watches();
    assert_int_equal(s.n, 1); /* no callback after the cancel */
    assert_int_equal(cube_mock_watch_count(), 0);
    put("alpha", "c3", "web");
    cube_mock_run_watches();
    assert_int_equal(s.n, 1);
}

static void overflow_gives_error(void **st)
{
    (void)st;
    struct seen s = {0};
    int rc;
    const struct cube_watch_desc d = {.size = sizeof d, .kind = "Widget", .max_pending = 4,
                                      .fn = record, .arg = &s};
    cube_watch *w = host->watch(self, &d, &rc);
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "o%d", i);
        put("alpha", name, "web");
    }
    cube_mock_run_watches();
    assert_int_equal(s.n, 1);
    assert_string_equal(s.lines[0], "ERROR Gone");
    put("alpha", "late", "web");
    cube_mock_run_watches();
    assert_int_equal(s.n, 1); /* nothing after the ERROR */
    host->watch_cancel(self, w);
    /* a resume point the history no longer holds */
    cube_mock_set_watch_history(4);
    for (int i = 0; i < 8; i++) {
        char name[16];
        snprintf(name, sizeof name, "h%d", i);
        put("alpha", name, "web");
    }
    struct seen old = {0};
    w = watch_widgets(&old, NULL, NULL, "1");
    cube_mock_run_watches();
    assert_int_equal(old.n, 1);
    assert_string_equal(old.lines[0], "ERROR Gone");
    host->watch_cancel(self, w);
}

static void bad_descriptors_are_refused(void **st)
{
    (void)st;
    int rc;
    struct seen s = {0};
    const struct cube_watch_desc d = {.size = sizeof d, .kind = "Nope", .fn = record, .arg = &s};
    assert_null(host->watch(self, &d, &rc));
    assert_int_equal(rc, CUBE_EINVAL);
    const struct cube_watch_desc r = {.size = sizeof r, .kind = "Widget",
                                      .resource_version = "12x", .fn = record};
    assert_null(host->watch(self, &r, &rc));
    assert_int_equal(rc, CUBE_EINVAL);
    assert_null(host->obj_list_page(self, "Widget", NULL, NULL, 5001, NULL, &rc));
    assert_int_equal(rc, CUBE_EINVAL);
    assert_null(host->obj_list_page(self, "Widget", NULL, NULL, 10, "zz", &rc));
    assert_int_equal(rc, CUBE_EINVAL);
}

/* Every page's items into seen (counts per name); returns pages read. */
static int read_pages(int *count, int n_objs, int write_between)
{
    char *token = NULL;
    int pages = 0, rc;
    do {
        char *text = host->obj_list_page(self, "Widget", NULL, NULL, 500, token, &rc);
        assert_int_equal(rc, CUBE_OK);
        free(token);
        token = NULL;
        cJSON *doc = cJSON_Parse(text), *it;
        host->free(text);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "kind")),
                            "WidgetList");
        assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "items")) <= 500);
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "items")) {
            const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(it, "metadata"), "name"));
            int i;
            if (name && sscanf(name, "w%d", &i) == 1 && i >= 0 && i < n_objs)
                count[i]++;
        }
        const char *next = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "continue"));
        token = next ? strdup(next) : NULL;
        cJSON_Delete(doc);
        pages++;
        for (int j = 0; write_between && j < 20; j++) { /* writes go on */
            char name[24];
            snprintf(name, sizeof name, "new-%d-%d", pages, j);
            put(j % 2 ? "p0" : "p9", name, "late");
        }
    } while (token);
    return pages;
}

static void ten_thousand_in_pages(void **st)
{
    (void)st;
    enum { N = 10000 };
    static int count[N];
    char name[24], project[8];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "w%d", i);
        snprintf(project, sizeof project, "p%d", i % 7);
        put(project, name, "x");
    }
    memset(count, 0, sizeof count);
    int pages = read_pages(count, N, 1);
    assert_true(pages >= N / 500);
    for (int i = 0; i < N; i++)
        if (count[i] != 1)
            fail_msg("w%d seen %d times", i, count[i]);
}

static void obj_list_null_project_is_every_project(void **st)
{
    (void)st;
    int rc;
    put("alpha", "n1", "web");
    put("beta", "n2", "web");
    char *all = host->obj_list(self, "Widget", NULL, NULL, &rc);
    cJSON *doc = cJSON_Parse(all);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "items")), 2);
    cJSON_Delete(doc), host->free(all);
    char *rack = host->obj_create(self, "{\"kind\":\"Rack\",\"metadata\":{\"name\":\"r1\"}}", &rc);
    assert_int_equal(rc, CUBE_OK);
    host->free(rack);
    char *racks = host->obj_list(self, "Rack", "ignored", NULL, &rc);
    doc = cJSON_Parse(racks);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "items")), 1);
    cJSON_Delete(doc), host->free(racks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(added_modified_deleted_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(resume_from_a_resource_version, setup, teardown),
        cmocka_unit_test_setup_teardown(events_by_kind_and_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(cancel_from_inside_the_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(overflow_gives_error, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_descriptors_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(ten_thousand_in_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(obj_list_null_project_is_every_project, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
