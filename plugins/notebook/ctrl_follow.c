/* ctrl_follow.c — one step of a running notebook: its Job of the current
 * generation is created when missing, followed while queued, and once it
 * runs, its endpoint (what the executor reported for spec.ports "http") is
 * recorded and the server probed there until it answers (Running) or the
 * start timeout passes (Failed). An endpoint on another machine fails the
 * notebook unless allow_remote is set. A Job that ended stops the
 * notebook. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <cube/util/http.h>
#include <cube/util/json.h>

#include "notebook.h"

#define POLL_START_MS 50    /* while the server is coming up */
#define POLL_QUEUED_MS 1000 /* while its Job waits for room */

static void set_str(cJSON *o, const char *key, const char *v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    if (v)
        cJSON_AddStringToObject(o, key, v);
}

static void set_num(cJSON *o, const char *key, double v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    cJSON_AddNumberToObject(o, key, v);
}

static void set_time(cJSON *o, const char *key, time_t t)
{
    char buf[32];
    nb_format_time(t, buf, sizeof buf);
    set_str(o, key, buf);
}

/* The entry for this generation: the table's, else a new one (its
 * endpoint unknown until the Job's executor reports it). */
static int entry_for(struct nb *nb, const cJSON *obj, const char *key, const char *ide,
                     const char *name, unsigned gen, struct nb_entry *e)
{
    const char *owner = cu_str(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "owner");
    if (nb_table_get(&nb->table, key, e) == 0 && e->generation == gen)
        return 0;
    memset(e, 0, sizeof *e);
    snprintf(e->key, sizeof e->key, "%s", key);
    snprintf(e->ide, sizeof e->ide, "%s", ide);
    nb_job_name(name, gen, e->job, sizeof e->job);
    snprintf(e->owner, sizeof e->owner, "%s", owner && *owner ? owner : "-");
    e->generation = gen;
    return nb_table_put(&nb->table, e) == 0 ? 0 : -1;
}

static void fail(cJSON *st, const char *reason, const char *message)
{
    set_str(st, "phase", "Failed");
    set_str(st, "reason", reason);
    set_str(st, "message", message);
    cJSON_DeleteItemFromObjectCaseSensitive(st, "url");
}

/* 1 when job (NULL: none) is the notebook's own: its controller reference
 * names the notebook's uid. A Job of that name made by anyone else would
 * serve the owner someone else's server; it is never adopted. */
static int job_is_notebooks(const cJSON *obj, const cJSON *job)
{
    const char *uid = cu_str(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "uid");
    const cJSON *ref;
    int mine = 0;
    cJSON_ArrayForEach(ref, cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(job, "metadata"),
                                "ownerReferences"))
        mine |= uid && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")) &&
                cu_str(ref, "uid") && !strcmp(cu_str(ref, "uid"), uid);
    return mine;
}

static int name_taken(struct nb *nb, const struct nb_entry *e, cJSON *st)
{
    fail(st, "JobNameTaken", "a Job with this notebook's Job name exists and is not the "
         "notebook's; delete it and start the notebook again");
    nb_table_drop(&nb->table, e->key);
    return CUBE_OK;
}

/* Creates the Job of e; fills st with Pending or Failed. */
static int create_job(struct nb *nb, const cJSON *obj, const char *obj_json,
                      const struct nb_entry *e, cJSON *st)
{
    int rc = CUBE_OK;
    char *job = nb_job_json(nb, obj_json, e->job, e->generation);
    char *out = job ? nb->host->obj_create(nb->self, job, &rc) : NULL;
    free(job);
    nb->host->free(out);
    if (!out && rc == CUBE_EEXIST) {   /* made meanwhile: ours only if it says so */
        char *text = nb->host->obj_get(nb->self, "Job", cu_str(cJSON_GetObjectItemCaseSensitive(
                                           obj, "metadata"), "project"), e->job, &rc);
        cJSON *found = cu_json_take(nb->host, text);
        int mine = job_is_notebooks(obj, found);
        cJSON_Delete(found);
        if (!mine)
            return name_taken(nb, e, st);
    }
    if (!out && rc != CUBE_EEXIST) {
        fail(st, "JobRefused", "the notebook's Job was refused (check spec.resources, "
             "spec.image and spec.pool; cubed's log says why)");
        nb_table_drop(&nb->table, e->key);
        return CUBE_OK;
    }
    set_str(st, "phase", "Pending");
    set_str(st, "reason", "Starting");
    set_str(st, "message", "starting the server");
    set_str(st, "job", e->job);
    set_num(st, "generation", e->generation);
    cJSON_DeleteItemFromObjectCaseSensitive(st, "url");
    return POLL_START_MS;
}

/* The server answered: Running, with its URL, start and expiry times. */
static void now_running(struct nb *nb, const cJSON *obj, const char *project,
                        const char *name, const struct nb_entry *e, time_t last, cJSON *st)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    double expires = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(spec, "expiresAfterSeconds"));
    char url[256];
    time_t now = time(NULL);
    nb_proxied_url(e->ide, project, name, url, sizeof url);
    set_str(st, "phase", "Running");
    set_str(st, "reason", "Started");
    set_str(st, "message", "the server answers");
    set_str(st, "url", url);
    set_time(st, "started", now);
    set_time(st, "lastActivity", last > 0 ? last : now);
    cJSON_DeleteItemFromObjectCaseSensitive(st, "expiryWarned");
    if (expires > 0)
        set_time(st, "expires", now + (time_t)expires);
    else
        cJSON_DeleteItemFromObjectCaseSensitive(st, "expires");
    nb->host->obj_event(nb->self, NB_KIND, project, name, "Normal", "Started", url);
}

/* The notebook fails: its Job goes, with an event saying why. */
static void give_up(struct nb *nb, const char *project, const char *name,
                    const struct nb_entry *e, cJSON *st, const char *reason, const char *msg)
{
    fail(st, reason, msg);
    nb->host->obj_event(nb->self, NB_KIND, project, name, "Warning", reason, msg);
    nb->host->obj_delete(nb->self, "Job", project, e->job);
    nb_table_drop(&nb->table, e->key);
}

/* Records the endpoint the Job's executor reported into e and the table:
 * 0 known, 1 not (yet: none reported, or its name does not resolve now),
 * -1 on another machine without allow_remote (the notebook failed). */
static int locate(struct nb *nb, const cJSON *job, const char *project, const char *name,
                  struct nb_entry *e, cJSON *st)
{
    char host[sizeof e->host], msg[300];
    unsigned port;
    if (cu_replica_endpoint(job, 0, NB_PORT_NAME, host, sizeof host, &port) != 0)
        return 1;
    if (!nb->conf.allow_remote && !cu_is_loopback(host)) {
        snprintf(msg, sizeof msg, "the server of Job %s listens at %s, not on cubed's machine; "
                 "cubed proxies to servers elsewhere only with the notebook plugin's "
                 "allow_remote: true", e->job, host);
        give_up(nb, project, name, e, st, "RemoteEndpoint", msg);
        return -1;
    }
    if ((strcmp(e->host, host) || e->port != port) &&
        nb_table_set_endpoint(&nb->table, e->key, e->generation, host, port) < 0)
        return 1;
    snprintf(e->host, sizeof e->host, "%s", host);
    e->port = port;
    return 0;
}

/* The Job runs: find and probe the server, or give up after the start
 * timeout. */
static int job_running(struct nb *nb, const cJSON *obj, const cJSON *job, const char *project,
                       const char *name, struct nb_entry *e, cJSON *st)
{
    time_t last;
    int conns;
    const char *phase = cu_str(st, "phase");
    int where = locate(nb, job, project, name, e, st);
    if (where < 0)
        return CUBE_OK;
    if (where == 0 && nb_probe(e, project, name, &last, &conns)) {
        nb_table_touch(&nb->table, e->key, 1, last);
        if (!phase || strcmp(phase, "Running"))
            now_running(nb, obj, project, name, e, last, st);
        return CUBE_OK;
    }
    if (phase && !strcmp(phase, "Running"))
        return POLL_QUEUED_MS;          /* a restart of cubed, or a hiccup */
    set_str(st, "phase", "Starting");
    set_str(st, "reason", "Starting");
    set_str(st, "message", where ? "waiting for the server's endpoint"
                                 : "waiting for the server to answer");
    time_t started = nb_parse_time(cu_str(cJSON_GetObjectItemCaseSensitive(job, "status"), "started"));
    if (started > 0 && time(NULL) - started > nb->conf.start_timeout) {
        char msg[160];
        snprintf(msg, sizeof msg, "the server did not answer within %lld s (see the logs "
                 "of Job %s)", (long long)nb->conf.start_timeout, e->job);
        give_up(nb, project, name, e, st, "StartTimeout", msg);
        return CUBE_OK;
    }
    return POLL_START_MS;
}

/* The Job ended on its own (the server quit or crashed). */
static int job_ended(struct nb *nb, const cJSON *job, const char *jphase, const char *project,
                     const char *name, const struct nb_entry *e, cJSON *st)
{
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(job, "status");
    char msg[512];
    snprintf(msg, sizeof msg, "the server's Job %s ended: %s%s%s", e->job, jphase,
             cu_str(js, "message") ? ": " : "", cu_str(js, "message") ? cu_str(js, "message") : "");
    if (!strcmp(jphase, "Failed"))
        fail(st, "ServerFailed", msg);
    else {
        set_str(st, "phase", "Stopped");
        set_str(st, "reason", "Exited");
        set_str(st, "message", msg);
        cJSON_DeleteItemFromObjectCaseSensitive(st, "url");
    }
    nb->host->obj_event(nb->self, NB_KIND, project, name,
                        strcmp(jphase, "Failed") ? "Normal" : "Warning", cu_str(st, "reason"), msg);
    nb_table_drop(&nb->table, e->key);
    return CUBE_OK;
}

int nb_follow(struct nb *nb, const void *objv, const char *obj_json, const char *project,
              const char *name, const char *key, void *stv)
{
    const cJSON *obj = objv;
    cJSON *st = stv;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    const char *ide = cu_str(spec, "ide") ? cu_str(spec, "ide") : "jupyter";
    double g = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(st, "generation"));
    unsigned gen = g >= 1 && g < 1e9 ? (unsigned)g : 1;
    struct nb_entry e;
    int rc;
    if (entry_for(nb, obj, key, ide, name, gen, &e) < 0)
        return CUBE_EIO;
    char *text = nb->host->obj_get(nb->self, "Job", project, e.job, &rc);
    cJSON *job = cu_json_take(nb->host, text);
    if (!text && rc != CUBE_ENOTFOUND)
        return rc;
    if (!text) {
        const char *phase = cu_str(st, "phase");
        if (phase && !strcmp(phase, "Running")) {   /* someone deleted the Job */
            set_str(st, "phase", "Stopped");
            set_str(st, "reason", "JobDeleted");
            set_str(st, "message", "the server's Job was deleted");
            cJSON_DeleteItemFromObjectCaseSensitive(st, "url");
            nb_table_drop(&nb->table, key);
            return CUBE_OK;
        }
        return create_job(nb, obj, obj_json, &e, st);
    }
    if (!job_is_notebooks(obj, job)) {
        cJSON_Delete(job);
        return name_taken(nb, &e, st);
    }
    const char *jphase = cu_str(cJSON_GetObjectItemCaseSensitive(job, "status"), "phase");
    set_str(st, "job", e.job);
    set_num(st, "generation", e.generation);
    if (jphase && !strcmp(jphase, "Running"))
        rc = job_running(nb, obj, job, project, name, &e, st);
    else if (jphase && (!strcmp(jphase, "Succeeded") || !strcmp(jphase, "Failed") ||
                        !strcmp(jphase, "Cancelled")))
        rc = job_ended(nb, job, jphase, project, name, &e, st);
    else {
        const char *waiting = cu_str(cJSON_GetObjectItemCaseSensitive(job, "status"), "waiting");
        set_str(st, "phase", "Pending");
        set_str(st, "reason", waiting ? "Queued" : "Starting");
        set_str(st, "message", waiting ? waiting : "the server's Job is starting");
        rc = POLL_QUEUED_MS;
    }
    cJSON_Delete(job);
    return rc;
}
