/* cube_mock_calls.c — the fake host's error channel and allocator (ABI
 * 1.5): as cubed, every callback the host calls runs inside a call frame
 * that set_error, set_error_field and retry_after write into; outside one
 * set_error keeps its init/start meaning (cube_mock_last_error). One frame
 * stack for the process: the fake host calls plugins from the test's
 * thread. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube_mock.h"
#include "cube_mock_priv.h"

static struct mock_call *top;
static struct {
    int rc, retry_ms;
    char why[512];
} last_reconcile = {CUBE_OK, -1, ""};

void mock_call_begin(struct mock_call *c)
{
    memset(c, 0, sizeof *c);
    c->prev = top;
    top = c;
}

void mock_call_end(struct mock_call *c)
{
    if (top == c)
        top = c->prev;
}

struct mock_call *mock_call_current(void) { return top; }

static void *alloc(size_t size) { return malloc(size ? size : 1); }

static void set_error_field(cube_plugin *s, const char *field, const char *fmt, ...)
{
    (void)s;
    if (!top)
        return;
    snprintf(top->field, sizeof top->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(top->msg, sizeof top->msg, fmt ? fmt : "", ap);
    va_end(ap);
}

static void retry_after(cube_plugin *s, unsigned ms)
{
    (void)s;
    if (top) {
        top->has_retry = 1;
        top->retry_ms = ms < 86400000u ? ms : 86400000u;
    }
}

void mock_calls_install(struct cube_host *h)
{
#if CUBE_ABI_MINOR >= 5
    h->alloc = alloc;
    h->set_error_field = set_error_field;
    h->retry_after = retry_after;
#else
    (void)h, (void)alloc, (void)set_error_field, (void)retry_after;
#endif
}

void mock_calls_reset(void)
{
    top = NULL;
    last_reconcile.rc = CUBE_OK;
    last_reconcile.retry_ms = -1;
    last_reconcile.why[0] = '\0';
}

int mock_reconcile_call(cube_reconcile_fn fn, const char *kind, const char *project,
                        const char *name, const char *doc)
{
    struct mock_call c;
    mock_call_begin(&c);
    int rc = fn(mock_state(), kind, project, name, doc);
    mock_call_end(&c);
    last_reconcile.rc = rc;
    last_reconcile.retry_ms = rc == CUBE_EAGAIN ? (c.has_retry ? (int)c.retry_ms : 1000) : -1;
    snprintf(last_reconcile.why, sizeof last_reconcile.why, "%s", c.msg);
    return rc;
}

int cube_mock_last_reconcile(int *retry_ms, char *why, size_t why_len)
{
    if (retry_ms)
        *retry_ms = last_reconcile.retry_ms;
    if (why && why_len)
        snprintf(why, why_len, "%s", last_reconcile.why);
    return last_reconcile.rc;
}

int cube_mock_password_check(const char *provider, const char *user, const char *password,
                             char **identity, char *why, size_t why_len)
{
    const struct cube_auth_desc *d = cube_mock_auth_provider(provider);
    *identity = NULL;
    if (why && why_len)
        why[0] = '\0';
    if (!d || d->kind != CUBE_AUTH_PASSWORD)
        return CUBE_ENOTFOUND;
#if CUBE_ABI_MINOR >= 5
    if (d->password_check) {
        struct mock_call c;
        mock_call_begin(&c);
        int rc = d->password_check(mock_state(), user, password, identity);
        mock_call_end(&c);
        if (why && why_len)
            snprintf(why, why_len, "%s", c.msg);
        return rc;
    }
#endif
    char msg[256] = "";
    int rc = d->password_login(mock_state(), user, password, identity, msg, sizeof msg);
    if (why && why_len)
        snprintf(why, why_len, "%s", msg);
    return rc;
}
