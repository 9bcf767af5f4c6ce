/* notebook.h — the notebook plugin: Jupyter (or VS Code) servers started as
 * owned Jobs, reached through cubed's reverse proxy at
 * /notebook/{project}/{name}/, stopped when idle or expired.
 *
 * Files: plugin.c (init, registration), conf.c (config schema and reading),
 * spec.c (the Notebook kind's semantic checks; its schemas are the .json
 * files here, compiled in), job.c (the Job a notebook runs as;
 * cube-notebook-launcher.py, installed beside the plugin, is its command), ctrl.c and ctrl_follow.c (the
 * controller), table.c (running servers,
 * their secrets and private files), probe.c (the servers' endpoints and a
 * tiny HTTP client for their status), cull.c (idle and expiry), actions.c
 * (stop, restart, renew, open, launch), proxy.c (the proxy's resolve).
 *
 * Where a server is: its Job declares spec.ports [{"name": "http"}]; the
 * host allocates the port (CUBE_PORT_HTTP, which the launcher listens on)
 * and the Job's executor reports the endpoint (status.replicas[0].
 * endpoints.http, ABI 1.5), which the controller copies into the table
 * (resolved to a numeric address) for the proxy and the probes. */
#ifndef NOTEBOOK_H
#define NOTEBOOK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include <cube/cube.h>

#define NB_KIND "Notebook"
#define NB_TOKEN_LEN 64     /* hex characters of a server's secret, at most */
#define NB_KEY_LEN 160      /* "project/name" */

/* The plugin's configuration (conf.c). Strings are owned. */
struct nb_conf {
    int64_t idle_timeout;        /* seconds; default of spec.idleTimeoutSeconds */
    int64_t gpu_expires_after;   /* default hard expiry of notebooks with devices */
    int64_t expires_after;       /* default hard expiry of the others (0: none) */
    int64_t expiry_warning;      /* warning event this long before expiry */
    int64_t cull_interval_ms;    /* how often servers are probed */
    int64_t start_timeout;       /* seconds a server may take to answer */
    int ops_access;              /* ops and creators pass the proxy (default: no) */
    int allow_remote;            /* servers on other machines (non-loopback endpoints) */
    int cull_connected;          /* a server with open connections may be culled */
    char *jupyter_command;       /* "" : JupyterLab when installed, else notebook */
    char *python;                /* the interpreter of the launcher */
    int vscode_enabled;
    char *vscode_command;        /* code-server's path */
    char *vscode_version;
    char *pythonpath;            /* the SDK's directory for PYTHONPATH; "" none */
    char *pool;
};

/* One server the plugin started, keyed by "project/name". */
struct nb_entry {
    char key[NB_KEY_LEN];
    char job[64];
    char ide[8];                 /* "jupyter" | "vscode" */
    char owner[64];              /* the notebook's metadata.owner */
    char host[64];               /* the endpoint's numeric address; "" unknown yet */
    unsigned port;               /* its port; 0 until the executor reported it */
    unsigned generation;
    char token[NB_TOKEN_LEN + 1]; /* "" until the server reported it */
    int ready;                   /* answered its status probe (culling waits for it) */
    time_t last_activity;        /* from the server, UTC seconds; 0 unknown */
    struct nb_entry *next;
};

struct nb_table {
    pthread_mutex_t mu;
    struct nb_entry *head;
    char dir[4096];              /* <plugin data dir>/servers, mode 0700 */
};

#define NB_LAUNCHER "cube-notebook-launcher.py"   /* beside the plugin */

struct nb {
    const struct cube_host *host;
    cube_plugin *self;
    struct nb_conf conf;
    struct nb_table table;
    cube_timer *cull_timer;
    char jupyter[256];           /* the resolved Jupyter command */
    char launcher[4096];         /* cube-notebook-launcher.py beside the plugin */
    int proxied;                 /* the core accepted the proxy prefixes */
};

/* conf.c */
/* Reads the validated config; 0, or -1 with msg set. */
int nb_conf_load(struct nb *nb, char *msg, size_t len);
void nb_conf_free(struct nb_conf *c);

/* spec.c */
/* The kind's validate callback (cube_kind_desc.validate). */
int nb_validate(void *state, const char *object_json, const char *old_json,
                char *field, size_t field_len, char *msg, size_t msg_len);
/* The kind's defaulting callback: ide, idleTimeoutSeconds and
 * expiresAfterSeconds from the config. */
int nb_defaulting(void *state, const char *object_json, char **out);
/* Nonzero when a resources object (JSON text member) asks for devices. */
int nb_spec_wants_devices(const void *spec_cjson);

/* The Job's port name (spec.ports) of the server. */
#define NB_PORT_NAME "http"
/* job.c: the Job of generation `gen` as JSON (malloc), or NULL. */
char *nb_job_json(const struct nb *nb, const char *notebook_json,
                  const char *job_name, unsigned gen);
/* The Job's name for a notebook and generation into out (a DNS label). */
void nb_job_name(const char *name, unsigned gen, char *out, size_t len);
/* The proxied base path "/notebook/<project>/<name>/" into out. */
void nb_base_url(const char *project, const char *name, char *out, size_t len);
/* Where a notebook with this ide ("vscode", else Jupyter) is proxied:
 * "/notebook/<project>/<name>/" or "/vscode/<project>/<name>/". */
void nb_proxied_url(const char *ide, const char *project, const char *name, char *out,
                    size_t len);

/* ctrl.c */
/* ctrl_follow.c: brings a running notebook's Job and server in line and
 * fills st (a copy of its status); returns as a reconcile callback does.
 * obj is the parsed object, obj_json its text. */
int nb_follow(struct nb *nb, const void *obj, const char *obj_json, const char *project,
              const char *name, const char *key, void *st);
int nb_reconcile(void *state, const char *kind, const char *project,
                 const char *name, const char *object_json);
/* Writes a status (JSON text) merged over the object's; CUBE_OK or error. */
int nb_status_merge(struct nb *nb, const char *project, const char *name,
                    const char *patch_json);
/* Deletes the Job of key's server, if any, and forgets the server. */
int nb_ensure_stopped(struct nb *nb, const char *project, const char *key);
/* Stops the server (deletes its Job), sets phase Stopped with reason and
 * message, records an event. */
int nb_stop(struct nb *nb, const char *project, const char *name,
            const char *reason, const char *message);

/* table.c. Entries are copied out; the table owns its nodes. */
int nb_table_init(struct nb_table *t, const char *data_dir, char *msg, size_t len);
void nb_table_fini(struct nb_table *t);
/* Reads the private files of servers that ran before a restart. */
void nb_table_load(struct nb_table *t);
/* Adds or replaces an entry and writes its file (mode 0600). */
int nb_table_put(struct nb_table *t, const struct nb_entry *e);
/* Copies the entry of key into *out; 0 found, -1 not. */
int nb_table_get(struct nb_table *t, const char *key, struct nb_entry *out);
/* Removes an entry and its file. */
void nb_table_drop(struct nb_table *t, const char *key);
/* Sets the token of key's entry when its generation matches and no token
 * was set yet; 0 set, -1 otherwise. */
int nb_table_set_token(struct nb_table *t, const char *key, unsigned gen,
                       const char *token);
/* Records where the server of key's generation gen is (host numeric);
 * 0 set, -1 otherwise. */
int nb_table_set_endpoint(struct nb_table *t, const char *key, unsigned gen, const char *host,
                          unsigned port);
/* Marks key ready / records its activity (no file write). */
void nb_table_touch(struct nb_table *t, const char *key, int ready, time_t last);
/* Copies every entry into a malloc'd array; *n gets the count. */
struct nb_entry *nb_table_snapshot(struct nb_table *t, size_t *n);
void nb_key(const char *project, const char *name, char *out, size_t len);

/* probe.c */
/* Probes a server: 1 when it answers, with *last (UTC seconds) and
 * *connections set; 0 when it does not (yet). */
int nb_probe(const struct nb_entry *e, const char *project, const char *name,
             time_t *last, int *connections);
/* Parses an ISO 8601 UTC time ("2026-01-02T03:04:05.123Z"); -1 on error. */
time_t nb_parse_time(const char *s);
void nb_format_time(time_t t, char *out, size_t len);

/* cull.c: the timer callback. */
void nb_cull(void *state, void *arg);

/* actions.c */
int nb_register_actions(struct nb *nb);

/* proxy.c */
int nb_register_proxy(struct nb *nb);
/* The header the proxy adds for a server (name and value). */
void nb_auth_header(const struct nb_entry *e, char *name, size_t nlen,
                    char *value, size_t vlen);

#endif
