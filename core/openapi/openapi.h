/* openapi.h — the OpenAPI 3.0.3 document of everything cubed serves:
 * GET /api/v1/openapi.json. Built on each request from the route table
 * and the kinds registry (both read-only while serving). The generic
 * resource routes are written out per kind (/api/v1/projects/{project}/
 * widgets, /api/v1/gadgets ...) with the kind's schema. */
#ifndef CUBE_OPENAPI_H
#define CUBE_OPENAPI_H

#include <cjson/cJSON.h>

struct cube_ctx;

/* The whole document (new tree); NULL on OOM. */
cJSON *cube_openapi_build(struct cube_ctx *ctx);
/* Registers GET /api/v1/openapi.json as a core route. 0 or -1 (logged). */
int cube_openapi_route_register(struct cube_ctx *ctx);

/* openapi_schema.c: a JSON Schema (draft-07, as kinds declare it) in the
 * OpenAPI 3.0 schema dialect (new tree; NULL on OOM). const becomes a
 * one-value enum, numeric exclusive bounds the boolean form, type arrays a
 * type plus nullable (or anyOf), boolean schemas {} and {"not":{}}, examples
 * an example; keywords OpenAPI 3.0 lacks are dropped. */
cJSON *cube_openapi_schema(const cJSON *schema);
/* Adds the fixed component schemas (Error, Status, Event, EventList,
 * KindList, Readiness: components.schema.json) to `schemas`. 0, or -1 on
 * OOM. */
int cube_openapi_base_schemas(cJSON *schemas);

#endif
