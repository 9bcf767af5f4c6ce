/* test_unit.c — the models plugin through the fake host (tests/mock):
 * registration, version numbers and the check, uploads in chunks (digests
 * as OpenSSL computes them; a bad pickle or protobuf refused; 413), a
 * version read from the project's files by the controller, promote (403
 * for a dev, one production version, the controller repairing a stale
 * stage from the pointer), deploy with and without an InferenceService
 * kind, and the finalizer deleting uploads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "cube_mock.h"
#include "models.h"

const struct cube_plugin_desc *cube_plugin_models(void);

static struct mdl *P;
static struct cube_plugin_desc desc;
static int with_isvc;

static int init_plus(const struct cube_host *host, cube_plugin *self, void **state)
{
    int rc = cube_plugin_models()->init(host, self, state);
    const struct cube_kind_desc isvc = {
        .size = sizeof isvc, .kind = "InferenceService", .plural = "inferenceservices",
        .scope = CUBE_SCOPE_PROJECT, .spec_schema = "{\"type\":\"object\"}"};
    return rc == CUBE_OK && with_isvc ? host->register_kind(self, &isvc) : rc;
}

static int start(int isvc)
{
    void *state = NULL;
    with_isvc = isvc;
    desc = *cube_plugin_models();
    desc.init = init_plus;
    int rc = cube_mock_init(&desc, "{\"max_upload_bytes\":4096,\"max_model_bytes\":8192}",
                            &state);
    P = state;
    if (rc != CUBE_OK)
        fprintf(stderr, "init: %s / %s\n", cube_mock_last_error(), cube_mock_last_log());
    return rc;
}

static int setup(void **st)
{
    (void)st;
    return start(0);
}

static int setup_isvc(void **st)
{
    (void)st;
    return start(1);
}

static int teardown(void **st)
{
    (void)st;
    cube_mock_reset(&desc, P);
    return 0;
}

static void pump(void)
{
    for (int i = 0; i < 50 && (cube_mock_run_controllers() + cube_mock_run_timers() ||
                               cube_mock_controllers_pending()); i++)
        ;
}

/* Creates a Model; returns the host's code. */
static int create(const char *name, const char *spec)
{
    char doc[2048];
    int rc;
    snprintf(doc, sizeof doc, "{\"kind\":\"Model\",\"metadata\":{\"name\":\"%s\",\"project\":"
             "\"p\"},\"spec\":%s}", name, spec);
    char *out = P->host->obj_create(P->self, doc, &rc);
    P->host->free(out);
    pump();
    return rc;
}

static cJSON *model(const char *name)
{
    const char *o = cube_mock_object("Model", "p", name);
    return o ? cJSON_Parse(o) : NULL;
}

static const char *st_str(cJSON *m, const char *key)
{
    return cu_str(cJSON_GetObjectItemCaseSensitive(m, "status"), key);
}

static void hexdigest(const EVP_MD *md, const void *data, size_t n, char *out)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_Digest(data, n, d, &len, md, NULL);
    for (unsigned i = 0; i < len; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static int upload(const char *name, const char *query, const void *data, size_t n,
                  size_t chunk)
{
    char path[200];
    snprintf(path, sizeof path, "/api/v1/projects/p/models/%s/files", name);
    struct cube_mock_response r = cube_mock_request_stream("POST", path, query, NULL, data, n,
                                                           chunk, n);
    int status = r.status;
    if (status >= 300 && status != 413 && status != 422 && status != 409 && status != 403)
        fprintf(stderr, "upload %s: %d %s\n", name, r.status, r.body ? r.body : "");
    cube_mock_response_free(&r);
    pump();
    return status;
}

static int action(const char *name, const char *act, const char *body)
{
    char path[200];
    snprintf(path, sizeof path, "/api/v1/projects/p/models/%s/%s", name, act);
    struct cube_mock_response r = cube_mock_request("POST", path, NULL, NULL, body);
    int status = r.status;
    cube_mock_response_free(&r);
    pump();
    return status;
}

/* A protocol 4 pickle of {} as Python writes it. */
static const char PICKLE[] = "\x80\x04\x95\x04\x00\x00\x00\x00\x00\x00\x00}\x94.";
/* ir_version 7, graph {name: ""}: the least ONNX ModelProto. */
static const char ONNX[] = "\x08\x07\x3a\x02\x0a\x00";

static void test_registration(void **st)
{
    (void)st;
    assert_non_null(cube_mock_kind("Model"));
    assert_int_equal(cube_mock_route_count(), 4);
    assert_int_equal(cube_mock_action_count(), 2);
    assert_string_equal(cube_mock_ui(0)->route, "/p/:project/models");
}

static void test_versions_and_checks(void **st)
{
    (void)st;
    assert_int_equal(create("a", "{\"name\":\"fam\",\"framework\":\"sklearn\"}"), CUBE_OK);
    assert_int_equal(create("b", "{\"name\":\"fam\",\"framework\":\"sklearn\"}"), CUBE_OK);
    cJSON *b = model("b");
    assert_int_equal((int)cu_num(cJSON_GetObjectItemCaseSensitive(b, "spec"), "version", 0), 2);
    assert_string_equal(cu_str(cJSON_GetObjectItemCaseSensitive(
                                   cJSON_GetObjectItemCaseSensitive(b, "metadata"), "labels"),
                               "model"), "fam");
    assert_string_equal(st_str(b, "phase"), "AwaitingUpload");
    assert_string_equal(st_str(b, "stage"), "none");
    cJSON_Delete(b);
    assert_int_not_equal(create("c", "{\"name\":\"fam\",\"version\":1,\"framework\":\"sklearn\"}"),
                         CUBE_OK);
    assert_null(cube_mock_object("Model", "p", "c"));
    assert_int_not_equal(create("d", "{\"name\":\"x\",\"framework\":\"sklearn\",\"path\":\"../y\"}"),
                         CUBE_OK);
    assert_int_not_equal(create("d", "{\"name\":\"x\",\"framework\":\"sklearn\",\"path\":\"no/such\"}"),
                         CUBE_OK);
    assert_int_not_equal(create("d", "{\"name\":\"x\",\"framework\":\"pytorch\",\"pytorch\":"
                                     "{\"format\":\"state_dict\"}}"), CUBE_OK);
    assert_int_equal(create("d", "{\"name\":\"x\",\"framework\":\"pytorch\",\"pytorch\":"
                                 "{\"format\":\"state_dict\",\"class\":\"net:Net\"}}"), CUBE_OK);
}

static void test_upload_digests_and_refusals(void **st)
{
    (void)st;
    cube_mock_set_user("dana", "dev");
    assert_int_equal(create("m", "{\"name\":\"m\",\"framework\":\"sklearn\"}"), CUBE_OK);
    /* the object's owner is the plugin in the mock: a dev may not upload */
    assert_int_equal(upload("m", NULL, PICKLE, sizeof PICKLE - 1, 3), 403);
    cube_mock_set_user("olga", "ops");
    assert_int_equal(upload("m", NULL, "nope", 4, 1), 422);
    assert_int_equal(upload("m", NULL, PICKLE, sizeof PICKLE - 2, 0), 422);   /* no STOP */
    assert_int_equal(upload("m", NULL, PICKLE, sizeof PICKLE - 1, 3), 201);
    cJSON *m = model("m");
    char sha[65], md5[33];
    hexdigest(EVP_sha256(), PICKLE, sizeof PICKLE - 1, sha);
    hexdigest(EVP_md5(), PICKLE, sizeof PICKLE - 1, md5);
    assert_string_equal(st_str(m, "phase"), "Ready");
    assert_string_equal(st_str(m, "sha256"), sha);
    assert_string_equal(st_str(m, "md5"), md5);
    assert_string_equal(st_str(m, "entry"), "model.pkl");
    assert_string_equal(st_str(m, "root"), "models/m");
    cJSON_Delete(m);
    size_t n;
    int rc;
    char *f = P->host->file_read(P->self, "p", "models/m/model.pkl", &n, &rc);
    assert_non_null(f);
    assert_memory_equal(f, PICKLE, n);
    P->host->free(f);
    static char big[5000];
    assert_int_equal(upload("m", "path=big.pkl", big, sizeof big, 1000), 413);
    assert_int_equal(upload("m", "path=..%2Fx", PICKLE, sizeof PICKLE - 1, 0), 422);
    /* onnx */
    assert_int_equal(create("o", "{\"name\":\"o\",\"framework\":\"onnx\"}"), CUBE_OK);
    assert_int_equal(upload("o", NULL, PICKLE, sizeof PICKLE - 1, 0), 422);
    assert_int_equal(upload("o", NULL, ONNX, 4, 0), 422);   /* graph cut short */
    assert_int_equal(upload("o", NULL, ONNX, sizeof ONNX - 1, 2), 201);
    m = model("o");
    assert_string_equal(st_str(m, "format"), "onnx");
    cJSON_Delete(m);
}

static void test_path_version_and_finalizer(void **st)
{
    (void)st;
    assert_int_equal(P->host->file_write(P->self, "p", "runs/1/model.pkl", PICKLE,
                                         sizeof PICKLE - 1), CUBE_OK);
    assert_int_equal(P->host->file_write(P->self, "p", "runs/1/notes.txt", "hi", 2), CUBE_OK);
    assert_int_equal(P->host->file_write(P->self, "p", "runs/bad.onnx", "junk", 4), CUBE_OK);
    assert_int_equal(create("r", "{\"name\":\"r\",\"framework\":\"sklearn\",\"path\":\"runs/1\"}"),
                     CUBE_OK);
    assert_int_equal(create("q", "{\"name\":\"q\",\"framework\":\"onnx\",\"path\":"
                                 "\"runs/bad.onnx\"}"), CUBE_OK);
    cJSON *r = model("r"), *q = model("q");
    assert_string_equal(st_str(r, "phase"), "Ready");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                         cJSON_GetObjectItemCaseSensitive(r, "status"), "files")), 2);
    assert_string_equal(st_str(q, "phase"), "Failed");
    assert_string_equal(st_str(q, "field"), "spec.path");
    assert_non_null(strstr(st_str(q, "message"), "runs/bad.onnx"));
    cJSON_Delete(r);
    cJSON_Delete(q);
    /* an uploaded version's files go with it; a path version's stay */
    cube_mock_set_user("olga", "ops");
    assert_int_equal(create("u", "{\"name\":\"u\",\"framework\":\"sklearn\"}"), CUBE_OK);
    assert_int_equal(upload("u", NULL, PICKLE, sizeof PICKLE - 1, 0), 201);
    const struct cube_kind_desc *k = cube_mock_kind("Model");
    assert_int_equal(k->finalize(P, cube_mock_object("Model", "p", "u")), CUBE_OK);
    assert_int_equal(k->finalize(P, cube_mock_object("Model", "p", "r")), CUBE_OK);
    size_t n;
    int rc;
    assert_null(P->host->file_read(P->self, "p", "models/u/model.pkl", &n, &rc));
    char *kept = P->host->file_read(P->self, "p", "runs/1/model.pkl", &n, &rc);
    assert_non_null(kept);
    P->host->free(kept);
}

static void test_promote(void **st)
{
    (void)st;
    cube_mock_set_user("olga", "ops");
    for (int i = 1; i <= 2; i++) {
        char name[8];
        snprintf(name, sizeof name, "v%d", i);
        assert_int_equal(create(name, "{\"name\":\"f\",\"framework\":\"sklearn\"}"), CUBE_OK);
        assert_int_equal(upload(name, NULL, PICKLE, sizeof PICKLE - 1, 0), 201);
    }
    assert_int_equal(create("v3", "{\"name\":\"f\",\"framework\":\"sklearn\"}"), CUBE_OK);
    assert_int_equal(action("v3", "promote", "{}"), 409);   /* not Ready */
    assert_int_equal(action("v1", "promote", "{\"stage\":\"gold\"}"), 422);
    cube_mock_set_user("olga", "dev");
    assert_int_equal(action("v1", "promote", "{\"stage\":\"production\"}"), 403);
    cube_mock_set_user("olga", "ops");
    assert_int_equal(action("v1", "promote", "{\"stage\":\"production\"}"), 200);
    assert_int_equal(action("v2", "promote", "{}"), 200);
    cJSON *v1 = model("v1"), *v2 = model("v2");
    assert_string_equal(st_str(v1, "stage"), "archived");
    assert_string_equal(st_str(v2, "stage"), "production");
    cJSON_Delete(v1);
    cJSON_Delete(v2);
    char prod[64];
    assert_int_equal(mdl_prod_get(P, "p", "f", prod, sizeof prod), 0);
    assert_string_equal(prod, "v2");
    /* a stale stage (a promote cut short) is repaired from the pointer */
    cJSON *o = model("v1"), *s = cJSON_GetObjectItemCaseSensitive(o, "status");
    cu_set_str(s, "stage", "production");
    char *text = cJSON_PrintUnformatted(s);
    int rc;
    P->host->free(P->host->obj_update_status(P->self, "Model", "p", "v1", text, NULL, &rc));
    free(text);
    cJSON_Delete(o);
    pump();
    o = model("v1");
    assert_string_equal(st_str(o, "stage"), "archived");
    cJSON_Delete(o);
    assert_int_equal(action("v2", "promote", "{\"stage\":\"none\"}"), 200);
    assert_int_equal(mdl_prod_get(P, "p", "f", prod, sizeof prod), 0);
    assert_string_equal(prod, "");
}

static void test_deploy_without_serving(void **st)
{
    (void)st;
    cube_mock_set_user("olga", "ops");
    assert_int_equal(create("d", "{\"name\":\"d\",\"framework\":\"sklearn\"}"), CUBE_OK);
    assert_int_equal(upload("d", NULL, PICKLE, sizeof PICKLE - 1, 0), 201);
    struct cube_mock_response r = cube_mock_request("POST", "/api/v1/projects/p/models/d/deploy",
                                                    NULL, NULL, "{}");
    assert_int_equal(r.status, 409);
    assert_non_null(strstr(r.body, "ServingNotLoaded"));
    cube_mock_response_free(&r);
}

static void test_deploy(void **st)
{
    (void)st;
    cube_mock_set_user("olga", "ops");
    assert_int_equal(create("d1", "{\"name\":\"dep\",\"framework\":\"xgboost\"}"), CUBE_OK);
    assert_int_equal(create("d2", "{\"name\":\"dep\",\"framework\":\"xgboost\"}"), CUBE_OK);
    assert_int_equal(action("d1", "deploy", "{}"), 409);   /* nothing uploaded */
    const char xgb[] = "{\"learner\":{}}";
    assert_int_equal(upload("d1", NULL, xgb, sizeof xgb - 1, 0), 201);
    assert_int_equal(upload("d2", "path=m.json", xgb, sizeof xgb - 1, 0), 201);
    assert_int_equal(action("d1", "deploy", "{}"), 201);
    cJSON *svc = cJSON_Parse(cube_mock_object("InferenceService", "p", "dep"));
    const cJSON *pr = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                                             cJSON_GetObjectItemCaseSensitive(svc, "spec"),
                                             "predictors"), 0);
    assert_string_equal(cu_str(pr, "name"), "default");
    assert_string_equal(cu_str(pr, "runtime"), "xgboost");
    assert_string_equal(cu_str(cJSON_GetObjectItemCaseSensitive(pr, "model"), "name"), "d1");
    cJSON_Delete(svc);
    assert_int_equal(action("d2", "deploy", "{}"), 200);
    svc = cJSON_Parse(cube_mock_object("InferenceService", "p", "dep"));
    pr = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(svc, "spec"), "predictors"), 0);
    assert_string_equal(cu_str(cJSON_GetObjectItemCaseSensitive(pr, "model"), "name"), "d2");
    cJSON_Delete(svc);
    assert_int_equal(action("d2", "deploy", "{\"predictor\":\"canary\"}"), 422);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_registration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_versions_and_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_upload_digests_and_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_path_version_and_finalizer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_promote, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deploy_without_serving, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deploy, setup_isvc, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
