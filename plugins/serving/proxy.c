/* proxy.c — /serving/{project}/{name}/... through cubed's reverse proxy.
 * The core checks the caller first (project:view on the InferenceService,
 * or, for a public service, its API key: proxy_credential_set); resolve
 * then picks a predictor by the traffic weights (smooth weighted round
 * robin, over predictors with a ready replica), the replica with the
 * fewest requests in flight, and a mirror replica when the service has
 * one; it names the replica's secret as the one header, and tags the
 * request with the replica's slot so done can count it out. With no ready
 * replica but one on its way (scale from zero, first start) the request
 * is parked until the controller wakes it. The path reaches the server
 * with the prefix removed (/v2/models/...). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "serving.h"

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void fill(struct sv *sv, struct cube_proxy_upstream *up, const struct sv_rep *r)
{
    snprintf(up->host, sizeof up->host, "%s", r->host);
    up->port = r->port;
    if (r->token[0]) {
        snprintf(up->header_name, sizeof up->header_name, "%s", SV_TOKEN_HEADER);
        snprintf(up->header_value, sizeof up->header_value, "%s", r->token);
    }
    (void)sv;
}

/* The mirror's replica into up (not counted: its answers are dropped). */
static void add_mirror(struct sv *sv, struct sv_svc *s, struct cube_proxy_upstream *up)
{
    if (s->mirror < 0 || !s->mirror_percent)
        return;
    struct sv_pred *m = &s->preds[s->mirror];
    int r = sv_pick_rep(&sv->table, m);
    if (r < 0)
        return;
    snprintf(up->mirror_host, sizeof up->mirror_host, "%s", m->reps[r].host);
    up->mirror_port = m->reps[r].port;
    up->mirror_percent = s->mirror_percent;
    atomic_fetch_add(&sv->table.stats[m->stat].mirrored, 1);
}

static int resolve(void *state, cube_req *req, struct cube_proxy_upstream *up)
{
    struct sv *sv = state;
    const char *p = sv->host->req_param(req, "project"), *n = sv->host->req_param(req, "name");
    char key[128], msg[512];
    if (!p || !n)
        return CUBE_ENOTFOUND;
    sv_key(p, n, key, sizeof key);
    pthread_mutex_lock(&sv->table.mu);
    struct sv_svc *s = sv_table_find(&sv->table, key, 0);
    if (!s || s->failed) {
        snprintf(msg, sizeof msg, "inference service %s has no predictor that can serve%s%s",
                 key, s && s->message[0] ? ": " : " yet", s ? s->message : "");
        pthread_mutex_unlock(&sv->table.mu);
        sv->host->resp_header(req, "Retry-After", "2");
        sv->host->resp_error(req, 503, "Unavailable", msg);
        return CUBE_EUNAVAIL;
    }
    s->last_ms = now_ms();
    int pi = sv_pick_pred(s);
    if (pi < 0) {                   /* nothing ready: hold the caller until a replica is */
        int was = s->wanted;
        s->wanted = 1;
        pthread_mutex_unlock(&sv->table.mu);
        if (!was)
            sv_scale_wanted(sv, p, n);
        up->park_timeout_ms = (uint64_t)sv->conf.park_timeout_ms;
        return CUBE_EAGAIN;
    }
    struct sv_pred *pred = &s->preds[pi];
    int ri = sv_pick_rep(&sv->table, pred);
    struct sv_rep *r = &pred->reps[ri];
    atomic_fetch_add(&sv->table.slots[r->slot].inflight, 1);
    atomic_fetch_add(&sv->table.stats[pred->stat].inflight, 1);
    up->tag = sv_tag(&sv->table, r->slot);
    fill(sv, up, r);
    add_mirror(sv, s, up);
    pthread_mutex_unlock(&sv->table.mu);
    return CUBE_OK;
}

void sv_count_request(struct sv *sv, int stat, int status, int error, uint64_t us)
{
    struct sv_stat *st = &sv->table.stats[stat];
    error = error || status >= 500;
    atomic_fetch_add(&st->requests, 1);
    if (error)
        atomic_fetch_add(&st->errors, 1);
    double ms = (double)us / 1000.0;
    int b = 0;
    while (b < SV_LAT_BUCKETS - 1 && ms > sv_lat_bounds_ms[b])
        b++;
    atomic_fetch_add(&st->lat[b], 1);
    sv_metrics_done(sv, stat, status, error, us);
}

/* Counts the request out of its replica and into its predictor's figures.
 * No lock: the slot's generation says whether the tag still names it. */
static void done(void *state, const struct cube_proxy_done *d)
{
    struct sv *sv = state;
    struct sv_table *t = &sv->table;
    int slot = d->tag ? sv_tag_slot(t, d->tag) : -1;
    if (slot < 0)
        return;                     /* refused or parked and gone: no replica served it */
    atomic_fetch_sub(&t->slots[slot].inflight, 1);
    int stat = t->slots[slot].stat;
    atomic_fetch_sub(&t->stats[stat].inflight, 1);
    sv_count_request(sv, stat, d->status, d->error, d->duration_us);
}

int sv_register_proxy(struct sv *sv)
{
    const struct cube_proxy_desc d = {
        .size = sizeof d, .prefix = SV_PREFIX, .permission = CUBE_PERM_PROJECT_VIEW,
        .kind = SV_KIND, .login_redirect = 0, .strip_prefix = 1,
        .allow_remote = sv->conf.allow_remote, .resolve = resolve, .done = done,
        .park_max = 4096, .mirror_body_max = 0};
    int rc = sv->host->register_proxy(sv->self, &d);
    if (rc != CUBE_OK) {
        sv->host->log(sv->self, CUBE_LOG_WARN, "cubed refused the proxy prefix %s (%d): "
                      "services run but cannot be called through cubed", SV_PREFIX, rc);
        return 0;
    }
    sv->proxied = 1;
    return 0;
}
