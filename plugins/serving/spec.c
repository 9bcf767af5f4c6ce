/* spec.c — the InferenceService checks its schema cannot state: unique
 * predictor names, a model or a command per predictor, traffic naming
 * predictors and adding up to 100, a mirror that is not a predictor the
 * traffic already reaches, replicas.min <= max. Each refusal names its
 * field (cube_host.set_error_field: 422). */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cube/util/json.h>

#include "serving.h"

const char *sv_model_ref(const void *predv)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(predv, "model");
    return cJSON_IsString(m) ? m->valuestring : cu_str(m, "name");
}

int sv_pred_index(const void *specv, const char *name)
{
    const cJSON *p;
    int i = 0;
    if (!name)
        return -1;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(specv, "predictors")) {
        const char *n = cu_str(p, "name");
        if (n && !strcmp(n, name))
            return i;
        i++;
    }
    return -1;
}

#define BAD(field, ...)                                              \
    do {                                                             \
        sv->host->set_error_field(sv->self, field, __VA_ARGS__);     \
        return CUBE_EINVAL;                                          \
    } while (0)

static int check_predictor(struct sv *sv, const cJSON *spec, const cJSON *p, int i)
{
    char f[96];
    const char *name = cu_str(p, "name"), *rt = cu_str(p, "runtime");
    if (sv_pred_index(spec, name) != i) {
        snprintf(f, sizeof f, "spec.predictors[%d].name", i);
        BAD(f, "predictor %s appears twice", name);
    }
    int custom = rt && !strcmp(rt, "custom");
    if (custom && !cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "command"))) {
        snprintf(f, sizeof f, "spec.predictors[%d].command", i);
        BAD(f, "runtime custom needs the server's command (it listens on $CUBE_PORT_HTTP)");
    }
    if (!custom && !sv_model_ref(p)) {
        snprintf(f, sizeof f, "spec.predictors[%d].model", i);
        BAD(f, "name the Model to serve (a registered version), or use runtime custom "
            "with a command");
    }
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(p, "replicas");
    if (cu_num(r, "min", 1) > cu_num(r, "max", 1)) {
        snprintf(f, sizeof f, "spec.predictors[%d].replicas.min", i);
        BAD(f, "min (%g) is above max (%g)", cu_num(r, "min", 1), cu_num(r, "max", 1));
    }
    return CUBE_OK;
}

static int check_traffic(struct sv *sv, const cJSON *spec)
{
    const cJSON *traffic = cJSON_GetObjectItemCaseSensitive(spec, "traffic"), *t;
    char f[64];
    int i = 0, sum = 0;
    if (!traffic)
        return CUBE_OK;
    cJSON_ArrayForEach(t, traffic) {
        const char *pred = cu_str(t, "predictor");
        snprintf(f, sizeof f, "spec.traffic[%d].predictor", i);
        if (sv_pred_index(spec, pred) < 0)
            BAD(f, "no predictor named %s in spec.predictors", pred);
        for (const cJSON *u = traffic->child; u != t; u = u->next)
            if (!strcmp(cu_str_or(u, "predictor", ""), pred))
                BAD(f, "predictor %s appears twice", pred);
        sum += (int)cu_num(t, "percent", 0);
        i++;
    }
    if (sum != 100)
        BAD("spec.traffic", "the percents add up to %d, not 100", sum);
    return CUBE_OK;
}

/* The share of traffic predictor `name` gets (the first predictor gets
 * all of it without spec.traffic). */
static int share_of(const cJSON *spec, const char *name)
{
    const cJSON *traffic = cJSON_GetObjectItemCaseSensitive(spec, "traffic"), *t;
    if (!traffic)
        return sv_pred_index(spec, name) == 0 ? 100 : 0;
    cJSON_ArrayForEach(t, traffic)
        if (!strcmp(cu_str_or(t, "predictor", ""), name))
            return (int)cu_num(t, "percent", 0);
    return 0;
}

int sv_check(void *state, const char *object_json, const char *old_json)
{
    (void)old_json;
    struct sv *sv = state;
    cJSON *obj = cJSON_Parse(object_json);
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec"), *p;
    int i = 0, rc = CUBE_OK;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(spec, "predictors"))
        if (rc == CUBE_OK)
            rc = check_predictor(sv, spec, p, i++);
    if (rc == CUBE_OK)
        rc = check_traffic(sv, spec);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(spec, "mirror");
    if (rc == CUBE_OK && m) {
        const char *mp = cu_str(m, "predictor");
        if (sv_pred_index(spec, mp) < 0) {
            sv->host->set_error_field(sv->self, "spec.mirror.predictor",
                                      "no predictor named %s in spec.predictors", mp);
            rc = CUBE_EINVAL;
        } else if (share_of(spec, mp) > 0) {
            sv->host->set_error_field(sv->self, "spec.mirror.predictor",
                                      "predictor %s gets %d%% of the traffic already: a "
                                      "mirror must be a predictor without a share (it "
                                      "would mirror itself)", mp, share_of(spec, mp));
            rc = CUBE_EINVAL;
        }
    }
    cJSON_Delete(obj);
    return rc;
}
