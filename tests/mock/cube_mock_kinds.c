/* cube_mock_kinds.c — the fake host's registry of kinds and actions (ABI
 * 1.1), and small helpers the other 1.1 files share. See cube_mock.h.
 * Test-only code: global state is fine here. */
#include "cube_mock.h"
#include "cube_mock_priv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static struct {
    struct cube_kind_desc *kinds;                         /* strings owned */
    int n_kinds, cap_kinds;
    struct cube_action_desc *actions;                     /* strings owned */
    int n_actions, cap_actions;
} O;

void *mock_grow(void *items, int n, int *cap, size_t size)
{
    if (n < *cap)
        return items;
    int ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(items, (size_t)ncap * size);
    if (p)
        *cap = ncap;
    return p;
}

char *mock_strdup(const char *s) { return s ? strdup(s) : NULL; }

int mock_dns_label(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '-')
            return 0;
    return 1;
}

static int camel(const char *s)
{
    if (!s || !isupper((unsigned char)s[0]) || strlen(s) > 63)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s))
            return 0;
    return 1;
}

static int parses_as(const char *text, int array)
{
    cJSON *j = cJSON_Parse(text);
    int ok = array ? cJSON_IsArray(j) : cJSON_IsObject(j);
    cJSON_Delete(j);
    return ok;
}

const struct cube_kind_desc *mock_find_kind(const char *kind)
{
    for (int i = 0; kind && i < O.n_kinds; i++)
        if (strcmp(O.kinds[i].kind, kind) == 0)
            return &O.kinds[i];
    return NULL;
}


static const char *check_kind(const struct cube_kind_desc *d)
{
    if (!camel(d->kind))
        return "kind: must be CamelCase letters and digits";
    if (!mock_dns_label(d->plural))
        return "plural: must be a DNS label";
    if (d->singular && !mock_dns_label(d->singular))
        return "singular: must be a DNS label";
    if (d->scope != CUBE_SCOPE_PROJECT && d->scope != CUBE_SCOPE_CLUSTER)
        return "scope: must be CUBE_SCOPE_PROJECT or CUBE_SCOPE_CLUSTER";
    if (!d->spec_schema || !parses_as(d->spec_schema, 0))
        return "spec_schema: required, a JSON object";
    if (d->status_schema && !parses_as(d->status_schema, 0))
        return "status_schema: not a JSON object";
    if (d->printer_columns && !parses_as(d->printer_columns, 1))
        return "printer_columns: not a JSON array";
    return NULL;
}

static void kind_free(struct cube_kind_desc *d)
{
    free((char *)d->kind); free((char *)d->plural); free((char *)d->singular);
    free((char *)d->group); free((char *)d->description); free((char *)d->spec_schema);
    free((char *)d->status_schema); free((char *)d->printer_columns);
}

static int register_kind(cube_plugin *self, const struct cube_kind_desc *in)
{
    (void)self;
    struct cube_kind_desc d = {0};
    const char *why = NULL;
    if (mock_after_init())
        return mock_logf("register_kind: only during init"), CUBE_ESTATE;
    if (!in || in->size < offsetof(struct cube_kind_desc, resync_seconds) + sizeof(unsigned))
        return mock_logf("register_kind: descriptor too small"), CUBE_EINVAL;
    memcpy(&d, in, in->size < sizeof d ? in->size : sizeof d);
    if ((why = check_kind(&d)) != NULL)
        return mock_logf("register_kind: %s", why), CUBE_EINVAL;
    for (int i = 0; i < O.n_kinds; i++)
        if (strcmp(O.kinds[i].kind, d.kind) == 0 || strcmp(O.kinds[i].plural, d.plural) == 0)
            return mock_logf("register_kind: %s is already registered", d.kind), CUBE_EEXIST;
    char schema_err[300];
    if (mock_schema_kind_add(&d, schema_err, sizeof schema_err) != CUBE_OK)
        return mock_logf("register_kind: %s", schema_err), CUBE_EINVAL;
    struct cube_kind_desc *grown = mock_grow(O.kinds, O.n_kinds, &O.cap_kinds, sizeof *O.kinds);
    if (!grown)
        return CUBE_ENOMEM;
    O.kinds = grown;
    struct cube_kind_desc *k = &O.kinds[O.n_kinds];
    *k = d;
    k->size = sizeof *k;
    k->kind = mock_strdup(d.kind), k->plural = mock_strdup(d.plural);
    k->singular = mock_strdup(d.singular ? d.singular : d.kind);
    for (char *p = (char *)k->singular; !d.singular && p && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    k->group = mock_strdup(d.group ? d.group : "Other");
    k->description = mock_strdup(d.description ? d.description : "");
    k->spec_schema = mock_strdup(d.spec_schema), k->status_schema = mock_strdup(d.status_schema);
    k->printer_columns = mock_strdup(d.printer_columns);
    if (!k->kind || !k->plural || !k->singular || !k->group || !k->description ||
        !k->spec_schema || (d.status_schema && !k->status_schema) ||
        (d.printer_columns && !k->printer_columns)) {
        kind_free(k);
        return CUBE_ENOMEM;
    }
    O.n_kinds++;
    return CUBE_OK;
}

static void action_free(struct cube_action_desc *a)
{
    free((char *)a->kind); free((char *)a->method); free((char *)a->action);
    free((char *)a->permission); free((char *)a->summary);
}

/* One of the CUBE_PERM_* strings (1.0 and 1.2). */
static int mock_known_permission(const char *p)
{
    static const char *const KNOWN[] = {
        CUBE_PERM_PUBLIC, CUBE_PERM_ADMIN, CUBE_PERM_USER, CUBE_PERM_PROJECT_VIEW,
        CUBE_PERM_PROJECT_EDIT, CUBE_PERM_PROJECT_OPERATE, CUBE_PERM_PROJECT_MANAGE};
    for (size_t i = 0; p && i < sizeof KNOWN / sizeof KNOWN[0]; i++)
        if (!strcmp(p, KNOWN[i]))
            return 1;
    return 0;
}

static int register_action(cube_plugin *self, const struct cube_action_desc *in)
{
    (void)self;
    struct cube_action_desc d = {0};
    if (mock_after_init())
        return mock_logf("register_action: only during init"), CUBE_ESTATE;
    if (!in || in->size < offsetof(struct cube_action_desc, summary) + sizeof(char *))
        return mock_logf("register_action: descriptor too small"), CUBE_EINVAL;
    memcpy(&d, in, in->size < sizeof d ? in->size : sizeof d);
    if (!d.kind || !d.handler || !d.method ||
        (strcmp(d.method, "POST") != 0 && strcmp(d.method, "GET") != 0) ||
        !mock_dns_label(d.action) || strcmp(d.action, "status") == 0 ||
        strcmp(d.action, "events") == 0 || !mock_known_permission(d.permission))
        return mock_logf("register_action: a bad field"), CUBE_EINVAL;
    for (int i = 0; i < O.n_actions; i++) {
        const struct cube_action_desc *a = &O.actions[i];
        if (!strcmp(a->kind, d.kind) && !strcmp(a->method, d.method) && !strcmp(a->action, d.action))
            return mock_logf("register_action: %s %s/%s is already registered", d.method,
                             d.kind, d.action), CUBE_EEXIST;
    }
    struct cube_action_desc *grown = mock_grow(O.actions, O.n_actions, &O.cap_actions,
                                          sizeof *O.actions);
    if (!grown)
        return CUBE_ENOMEM;
    O.actions = grown;
    struct cube_action_desc *a = &O.actions[O.n_actions];
    *a = d;
    a->size = sizeof *a;
    a->kind = mock_strdup(d.kind), a->method = mock_strdup(d.method), a->action = mock_strdup(d.action);
    a->permission = mock_strdup(d.permission), a->summary = mock_strdup(d.summary ? d.summary : "");
    if (!a->kind || !a->method || !a->action || !a->permission || !a->summary) {
        action_free(a);
        return CUBE_ENOMEM;
    }
    O.n_actions++;
    return CUBE_OK;
}

int mock_action_route(int i, char *tmpl, size_t len, const char **method,
                      const char **kind, cube_route_fn *handler, const char **permission)
{
    if (i < 0 || i >= O.n_actions)
        return 0;
    const struct cube_action_desc *a = &O.actions[i];
    const struct cube_kind_desc *k = mock_find_kind(a->kind);
    if (!k)
        return -1;
    if (k->scope == CUBE_SCOPE_CLUSTER)
        snprintf(tmpl, len, "/api/v1/%s/{name}/%s", k->plural, a->action);
    else
        snprintf(tmpl, len, "/api/v1/projects/{project}/%s/{name}/%s", k->plural, a->action);
    *method = a->method;
    *kind = a->kind;
    *handler = a->handler;
    *permission = a->permission;
    return 1;
}

int cube_mock_kind_count(void) { return O.n_kinds; }
int cube_mock_action_count(void) { return O.n_actions; }

const struct cube_kind_desc *cube_mock_kind(const char *kind)
{
    const struct cube_kind_desc *k = mock_find_kind(kind);
    return k;
}


void mock_kinds_install(struct cube_host *h)
{
    h->register_kind = register_kind;
    h->register_action = register_action;
}

void mock_kinds_reset(void)
{
    for (int i = 0; i < O.n_kinds; i++)
        kind_free(&O.kinds[i]);
    for (int i = 0; i < O.n_actions; i++)
        action_free(&O.actions[i]);
    free(O.kinds);
    free(O.actions);
    memset(&O, 0, sizeof O);
    mock_schema_reset();
}
