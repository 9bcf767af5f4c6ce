/* models.h — the model registry plugin: the Model kind (kinds.c), its
 * spec's rules and version numbering (spec.c, version.c), the controller
 * that hashes and checks a version's files (controller.c, scan.c,
 * sniff.c, digest.c), uploads and downloads (upload.c, download.c), the
 * promote and deploy actions (promote.c, deploy.c) and status writes
 * (status.c).
 *
 * One Model object is one registered version of a model family:
 * spec.name is the family (also the label model=<family>), spec.version
 * its number in the family, unique there. A version's files are either a
 * file or directory of the project's files (spec.path) or uploads, kept
 * in the project's files under models/<object name>/ (MDL_UPLOAD_DIR).
 * status.root is that directory (project-relative), status.files each
 * file under it with its size, SHA-256 and MD5, status.entry the file a
 * runtime loads. Whoever loads a code-bearing file (a pickle) checks it
 * against status.files first: project members may write the project's
 * files. */
#ifndef MODELS_H
#define MODELS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cube/cube.h>
#include <cube/util/json.h>

#define MDL_NAME "models"
#define MDL_KIND "Model"
#define MDL_LABEL "model"              /* metadata.labels.model = spec.name */
#define MDL_LABEL_VERSION "model-version"
#define MDL_UPLOAD_DIR "models"        /* uploads: models/<object name>/<path> */
#define MDL_SERVICE_KIND "InferenceService"
#define MDL_MAX_FILES 1000             /* files of one version */
#define MDL_HISTORY_MAX 20             /* status.stageHistory entries kept */

/* A version number held for an object between its defaulting and its
 * commit, so two creates racing for the same number cannot both pass. */
struct mdl_resv {
    char project[64], family[64], object[256];
    int64_t version;
    double until;                      /* mdl_clock(); past it: gone */
};

/* The plugin's state. */
struct mdl {
    const struct cube_host *host;
    cube_plugin *self;
    uint64_t max_upload_bytes;         /* config: one upload request's body */
    uint64_t max_model_bytes;          /* config: every file of one version */
    pthread_mutex_t mu;                /* guards resv and serializes version picks */
    struct mdl_resv *resv;
    int n_resv, cap_resv;
    pthread_mutex_t stage_mu;          /* one promote at a time */
    cube_metric *uploads;              /* cube_models_upload_bytes_total */
    cube_metric *scans;                /* cube_models_scan_seconds */
};

/* -- spec (spec.c) and versions (version.c) -------------------------------- */

/* The kind's defaulting: labels model=<family> and model-version, and
 * spec.version when omitted (version.c). */
int mdl_defaulting(void *state, const char *object_json, char **out);
/* The kind's check (1.5 error channel): path, framework options, fields
 * fixed once registered, and a version no other object of the family has
 * (CUBE_EEXIST: 409). */
int mdl_check(void *state, const char *object_json, const char *old_json);

/* The version spec.version gets when omitted: one more than the highest of
 * the family (stored or held), held for obj's name. -1 on a store error. */
int64_t mdl_version_next(struct mdl *p, const char *project, const char *family,
                         const char *object);
/* The object (not `object`) of the family that has or holds `version`
 * into who (empty: none), and holds it for `object` when free. Returns 0,
 * or -1 on a store error. */
int mdl_version_claim(struct mdl *p, const char *project, const char *family,
                      const char *object, int64_t version, char *who, size_t len);
/* Forgets what object holds (deleted). */
void mdl_version_forget(struct mdl *p, const char *project, const char *object);

/* 1 when path is a project-relative path the file store takes: relative,
 * "/"-separated, no "..", "." or empty segments nor ones starting with
 * '.', at most 1024 bytes. */
int mdl_path_ok(const char *path);

/* -- files: scanning, digests, format sniffing (scan.c, digest.c, sniff.c) -- */

/* What a framework's model file is, judged from a few bytes: cheap, never
 * loading it (no unpickling in cubed; deep checks are the serving
 * runtime's, in its sandbox). */
struct mdl_reader {
    cube_file *f;
    uint64_t size;
    const struct cube_host *host;
};

enum mdl_sniff {
    MDL_SNIFF_SKIP = 0,                /* not a model file of the framework (README ...) */
    MDL_SNIFF_OK = 1,                  /* a model file; *format names it */
    MDL_SNIFF_BAD = -1,                /* a model file by its name, wrong inside: why says */
};

/* Judges the file `name` (its base name decides whether it is a model
 * file of the framework) read through r. format gets "pickle", "joblib",
 * "onnx", "torchscript", "torch-state-dict", "xgboost-json",
 * "xgboost-ubj", "xgboost-binary"; why the reason of MDL_SNIFF_BAD. */
int mdl_sniff_file(const char *framework, const char *torch_format, const char *name,
                   const struct mdl_reader *r, char *format, size_t flen, char *why,
                   size_t wlen);
/* The file name uploads get without ?path= ("model.pkl"), or NULL. */
const char *mdl_default_file(const char *framework);

/* SHA-256 and MD5 of a whole file as lowercase hex (65 and 33 bytes).
 * Returns CUBE_OK or the host's read error. */
int mdl_digest_file(const struct mdl_reader *r, char *sha256, char *md5);

/* One file of a version (status.files[i]). */
struct mdl_file {
    char path[1025];
    uint64_t size;
    char sha256[65], md5[33];
    char format[32];                   /* "" when not a model file */
};

/* Scans what spec.path names: status.root, .files (hashed), .entry, or a
 * failure with field and message. Returns 0, or -1 with msg filled. */
cJSON *mdl_scan_path(struct mdl *p, const cJSON *obj, char *msg, size_t mlen);

/* -- status (status.c) ------------------------------------------------------- */

/* Edits the stored status of a Model under its resourceVersion, read again
 * and retried on a conflict: fn changes st (the object is given to read)
 * and returns 0 to write, 1 to write nothing, or an HTTP status (>= 400)
 * with msg to give up. Returns 0 when written (or nothing to write), the
 * fn's status, 404 when the object is gone, 503 on a store error. out
 * (may be NULL) gets the object as written. */
typedef int (*mdl_edit_fn)(struct mdl *p, const cJSON *obj, cJSON *st, void *ctx, char *msg,
                           size_t mlen);
int mdl_status_edit(struct mdl *p, const char *project, const char *name, mdl_edit_fn fn,
                    void *ctx, char *msg, size_t mlen, cJSON **out);
/* Recomputes status.size, .sha256, .md5 (of the one file, or of the
 * sorted "sha256  path" manifest lines for several), .entry and .phase
 * from status.files. framework decides which files can be the entry. */
void mdl_status_summarize(cJSON *st, const char *framework);
/* A status.files entry (new object). */
cJSON *mdl_file_json(const struct mdl_file *f);
/* A new status for a Model that has none yet. */
cJSON *mdl_status_initial(const cJSON *obj);

/* -- controller (controller.c) ------------------------------------------------ */

int mdl_reconcile(void *state, const char *kind, const char *project, const char *name,
                  const char *object_json);
int mdl_finalize(void *state, const char *object_json);
/* The key of a family's production pointer, "prod/<project>/<family>". */
void mdl_prod_key(char *key, size_t len, const char *project, const char *family);
/* The family's production version (object name) into out, "" when none.
 * 0, or -1 when the key store cannot be read. */
int mdl_prod_get(struct mdl *p, const char *project, const char *family, char *out,
                 size_t len);

/* -- routes and actions ---------------------------------------------------------- */

int mdl_kinds_register(struct mdl *p);
int mdl_routes_register(struct mdl *p);    /* upload.c, download.c */
int mdl_actions_register(struct mdl *p);   /* promote.c, deploy.c */
int mdl_download_register(struct mdl *p);  /* download.c, from mdl_routes_register */
int mdl_deploy_action(void *state, cube_req *req);   /* deploy.c */

/* Answers req with the standard error body for an HTTP status. */
int mdl_answer(struct mdl *p, cube_req *req, int status, const char *msg);
/* 1 when the caller may change the Model obj (its owner, or ops and up). */
int mdl_may_operate(struct mdl *p, cube_req *req, const cJSON *obj);
/* The Model {name} of the request's {project}, or NULL after answering. */
cJSON *mdl_request_model(struct mdl *p, cube_req *req);

/* -- small helpers (util.c) ------------------------------------------------------- */

void mdl_now(char *out, size_t len);
double mdl_clock(void);
/* Answers req with the JSON of o (status code). */
int mdl_answer_json(struct mdl *p, cube_req *req, int status, const cJSON *o);

#endif
