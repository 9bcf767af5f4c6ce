/* scale.c — the autoscaler and the console's chart samples, on one timer.
 *
 * Autoscale (spec.autoscale): per predictor with traffic, the demand is
 * the requests in flight (concurrency; "cpu" is measured the same way, the
 * local executor reporting no CPU use) or the requests per second since
 * the last tick (qps); the desired count is ceil(demand / target) within
 * [minReplicas, max]. Up at once; down only once the lower count held for
 * scaleDownDelaySeconds; to zero (minReplicas 0) once no request started
 * or ended for that long. A request parked with no replica ready asks for
 * one at once (sv_scale_wanted). A change is written to
 * status.predictors[i].desired, which the controller follows, with an
 * event.
 *
 * Samples: every 5 s, per service, requests and errors per second, p50
 * and p99 latency (from the done callback's buckets), in flight and
 * ready replicas; the last SV_SAMPLES are kept in memory for the
 * console's charts (GET .../inferenceservices/{name}/samples). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <cube/util/json.h>

#include "serving.h"

#define SAMPLE_MS 5000

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

struct change {
    char project[64], name[64], pred[24];
    int from, to;
};

/* Writes the new desired counts of one service's predictors. */
static void write_desired(struct sv *sv, const struct change *c, int n)
{
    int rc;
    cJSON *obj = cu_json_take(sv->host, sv->host->obj_get(sv->self, SV_KIND, c[0].project,
                                                         c[0].name, &rc));
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status"), *pst;
    if (!st) {
        cJSON_Delete(obj);
        return;
    }
    cJSON_ArrayForEach(pst, cJSON_GetObjectItemCaseSensitive(st, "predictors"))
        for (int i = 0; i < n; i++)
            if (!strcmp(cu_str_or(pst, "name", ""), c[i].pred))
                cu_set_num(pst, "desired", c[i].to);
    char *text = cJSON_PrintUnformatted(st);
    char *out = text ? sv->host->obj_update_status(sv->self, SV_KIND, c[0].project, c[0].name,
                                                   text, cu_meta(obj, "resourceVersion"), &rc)
                     : NULL;
    if (out) {
        for (int i = 0; i < n; i++) {
            char msg[200];
            snprintf(msg, sizeof msg, "predictor %s: %d -> %d replicas", c[i].pred, c[i].from,
                     c[i].to);
            sv->host->obj_event(sv->self, SV_KIND, c[i].project, c[i].name, "Normal",
                                c[i].to == 0 ? "ScaledToZero"
                                : c[i].to > c[i].from ? "ScaledUp" : "ScaledDown", msg);
        }
    }
    sv->host->free(out);
    free(text);
    cJSON_Delete(obj);
}

/* One service's autoscaling decision; lock held. Fills c, returns n. */
static int decide(struct sv *sv, struct sv_svc *s, int64_t now, double dt_s, struct change *c)
{
    int n = 0;
    for (int pi = 0; pi < s->n_preds; pi++) {
        struct sv_pred *p = &s->preds[pi];
        if (p->weight <= 0 && pi != s->mirror)
            continue;
        struct sv_stat *st = &sv->table.stats[p->stat];
        double demand = (double)atomic_load(&st->inflight);
        uint64_t now_req = atomic_load(&st->requests);
        if (s->as_metric == 1)     /* qps: this predictor's requests since the last tick */
            demand = dt_s > 0 && p->as_prev_req ? (double)(now_req - p->as_prev_req) / dt_s : 0;
        p->as_prev_req = now_req;
        int lo = p->min, hi = p->max < p->min ? p->min : p->max;
        int want = (int)ceil(demand / (s->as_target > 0 ? s->as_target : 1));
        if (want < 1 && (lo > 0 || now - s->last_ms < s->as_delay_ms || s->wanted))
            want = 1;
        want = want < lo ? lo : want > hi ? hi : want;
        if (want >= p->desired)
            s->low_since_ms[pi] = 0;
        if (want > p->desired ||
            (want < p->desired && s->low_since_ms[pi] && now - s->low_since_ms[pi] >= s->as_delay_ms)) {
            snprintf(c[n].project, sizeof c[n].project, "%s", s->project);
            snprintf(c[n].name, sizeof c[n].name, "%s", s->name);
            snprintf(c[n].pred, sizeof c[n].pred, "%s", p->name);
            c[n].from = p->desired;
            c[n].to = want;
            p->desired = want;     /* until the controller's next apply */
            s->low_since_ms[pi] = 0;
            n++;
        } else if (want < p->desired && !s->low_since_ms[pi]) {
            s->low_since_ms[pi] = now;
        }
    }
    return n;
}

/* The latency below which `q` of the requests in the bucket deltas fall. */
static float quantile(const uint64_t *d, uint64_t total, double q)
{
    if (!total)
        return 0;
    uint64_t need = (uint64_t)ceil(q * (double)total), acc = 0;
    for (int b = 0; b < SV_LAT_BUCKETS; b++)
        if ((acc += d[b]) >= need)
            return (float)(b == SV_LAT_BUCKETS - 1 ? sv_lat_bounds_ms[b - 1] * 2
                                                   : sv_lat_bounds_ms[b]);
    return 0;
}

static void sample(struct sv *sv, struct sv_svc *s, int64_t now)
{
    uint64_t req = 0, err = 0, lat[SV_LAT_BUCKETS] = {0}, d[SV_LAT_BUCKETS];
    int64_t inflight = 0;
    int ready = 0;
    for (int pi = 0; pi < s->n_preds; pi++) {
        struct sv_stat *st = &sv->table.stats[s->preds[pi].stat];
        req += atomic_load(&st->requests);
        err += atomic_load(&st->errors);
        inflight += atomic_load(&st->inflight);
        for (int b = 0; b < SV_LAT_BUCKETS; b++)
            lat[b] += atomic_load(&st->lat[b]);
        ready += s->preds[pi].n_reps;
    }
    uint64_t dreq = req - s->s_prev_req, total = 0;
    for (int b = 0; b < SV_LAT_BUCKETS; b++)
        total += d[b] = lat[b] - s->s_prev_lat[b];
    int i = s->s_at;
    s->s_t[i] = now;
    s->s_rps[i] = (float)dreq / (SAMPLE_MS / 1000.0f);
    s->s_err[i] = (float)(err - s->s_prev_err) / (SAMPLE_MS / 1000.0f);
    s->s_p50[i] = quantile(d, total, 0.5);
    s->s_p99[i] = quantile(d, total, 0.99);
    s->s_inflight[i] = (float)inflight;
    s->s_ready[i] = (float)ready;
    s->s_at = (i + 1) % SV_SAMPLES;
    if (s->s_n < SV_SAMPLES)
        s->s_n++;
    s->s_prev_req = req;
    s->s_prev_err = err;
    memcpy(s->s_prev_lat, lat, sizeof lat);
}

void sv_scale_tick(void *state, void *arg)
{
    (void)arg;
    struct sv *sv = state;
    int64_t now = now_ms();
    double dt = sv->last_tick_ms ? (double)(now - sv->last_tick_ms) / 1000.0 : 0;
    sv->last_tick_ms = now;
    int do_sample = (sv->sample_tick += (int)sv->conf.autoscale_ms) >= SAMPLE_MS;
    if (do_sample)
        sv->sample_tick = 0;
    for (size_t i = 0;; i++) {
        struct change c[SV_MAX_PRED];
        int n = 0;
        pthread_mutex_lock(&sv->table.mu);
        if (i >= sv->table.n) {
            pthread_mutex_unlock(&sv->table.mu);
            break;
        }
        struct sv_svc *s = sv->table.svcs[i];
        if (s->as_on)
            n = decide(sv, s, now, dt, c);
        if (do_sample)
            sample(sv, s, now);
        pthread_mutex_unlock(&sv->table.mu);
        if (n)
            write_desired(sv, c, n);
    }
}

struct wanted {
    char project[64], name[64];
};

static void wanted_task(void *state, void *arg)
{
    struct sv *sv = state;
    struct wanted *w = arg;
    struct change c[SV_MAX_PRED];
    int n = 0;
    char key[160];
    sv_key(w->project, w->name, key, sizeof key);
    pthread_mutex_lock(&sv->table.mu);
    struct sv_svc *s = sv_table_find(&sv->table, key, 0);
    for (int pi = 0; s && pi < s->n_preds; pi++) {
        struct sv_pred *p = &s->preds[pi];
        if (p->weight > 0 && p->desired == 0) {
            snprintf(c[n].project, sizeof c[n].project, "%s", s->project);
            snprintf(c[n].name, sizeof c[n].name, "%s", s->name);
            snprintf(c[n].pred, sizeof c[n].pred, "%s", p->name);
            c[n].from = 0;
            c[n].to = p->max > 0 ? 1 : 0;
            p->desired = c[n].to;
            n++;
        }
    }
    pthread_mutex_unlock(&sv->table.mu);
    if (n)
        write_desired(sv, c, n);
    free(w);
}

void sv_scale_wanted(struct sv *sv, const char *project, const char *name)
{
    struct wanted *w = calloc(1, sizeof *w);
    if (!w)
        return;
    snprintf(w->project, sizeof w->project, "%s", project);
    snprintf(w->name, sizeof w->name, "%s", name);
    if (sv->host->submit(sv->self, wanted_task, w) != CUBE_OK)
        free(w);
}

char *sv_samples_json(struct sv *sv, const char *key)
{
    cJSON *o = cJSON_CreateObject();
    static const char *const NAMES[] = {"t", "rps", "errors", "p50", "p99", "inflight", "ready"};
    cJSON *cols[7];
    for (int k = 0; k < 7; k++)
        cols[k] = cJSON_AddArrayToObject(o, NAMES[k]);
    pthread_mutex_lock(&sv->table.mu);
    struct sv_svc *s = sv_table_find(&sv->table, key, 0);
    for (int j = 0; s && j < s->s_n; j++) {
        int i = (s->s_at - s->s_n + j + SV_SAMPLES) % SV_SAMPLES;
        const double v[7] = {(double)s->s_t[i], s->s_rps[i], s->s_err[i], s->s_p50[i],
                             s->s_p99[i], s->s_inflight[i], s->s_ready[i]};
        for (int k = 0; k < 7; k++)
            cJSON_AddItemToArray(cols[k], cJSON_CreateNumber(v[k]));
    }
    pthread_mutex_unlock(&sv->table.mu);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}
