/* isvc_stub.c — a test plugin standing in for the serving plugin's kind:
 * it registers InferenceService (project scope) with a schema that takes
 * the shape models' deploy writes (predictors with a model ref, runtime,
 * replicas, resources; traffic) and nothing else, and no controller, so
 * the models tests check what deploy writes without running servers. The
 * real kind and its runtimes are the serving plugin's. */
#include <cube/cube.h>

static const char SPEC[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"predictors\"],"
    "\"properties\":{"
    "\"predictors\":{\"type\":\"array\",\"minItems\":1,\"items\":{\"type\":\"object\","
    "\"additionalProperties\":false,\"required\":[\"name\"],\"properties\":{"
    "\"name\":{\"type\":\"string\"},"
    "\"model\":{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"name\"],"
    "\"properties\":{\"name\":{\"type\":\"string\"}}},"
    "\"runtime\":{\"enum\":[\"sklearn\",\"xgboost\",\"pytorch\",\"onnx\",\"custom\"]},"
    "\"image\":{\"type\":\"string\"},\"command\":{\"type\":\"array\"},"
    "\"replicas\":{\"type\":\"object\",\"properties\":{\"min\":{\"type\":\"integer\","
    "\"minimum\":0},\"max\":{\"type\":\"integer\",\"minimum\":1}}},"
    "\"resources\":{\"type\":\"object\"}}}},"
    "\"traffic\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"predictor\":{\"type\":\"string\"},\"percent\":{\"type\":\"integer\"}}}}}}";

static int stub_init(const struct cube_host *host, cube_plugin *self, void **state)
{
    const struct cube_kind_desc kind = {
        .size = sizeof kind, .kind = "InferenceService", .plural = "inferenceservices",
        .scope = CUBE_SCOPE_PROJECT, .group = "Serving",
        .description = "test stand-in for the serving plugin's kind", .spec_schema = SPEC};
    *state = NULL;
    return host->register_kind(self, &kind);
}

CUBE_PLUGIN_DEFINE(isvc_stub,
    .name = "isvc-stub",
    .version = "0.0.1",
    .vendor = "Cube tests",
    .license = "Apache-2.0",
    .description = "A stand-in InferenceService kind for the models plugin's tests",
    .init = stub_init)
