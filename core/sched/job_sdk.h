/* job_sdk.h — Cube's Python SDK on a replica's PYTHONPATH (job_sdk.c). */
#ifndef CUBE_SCHED_JOB_SDK_H
#define CUBE_SCHED_JOB_SDK_H

#include <cjson/cJSON.h>

#include "config/config.h"

/* The directory holding the SDK's packages (cube/, nni/) that replicas get
 * on PYTHONPATH, or NULL for none: cube.yaml's sdk_pythonpath when it
 * names one ("" is none); else ("auto") the source tree's sdk/python when
 * this cubed runs from the build tree it was built in, or the installed
 * <datadir>/cube/python, whichever applies, when it holds cube/__init__.py.
 * Static or borrowed from cfg (may be NULL: auto). Any thread. */
const char *job_sdk_dir(const struct cube_config *cfg);
/* Appends job_sdk_dir(cfg) to env's PYTHONPATH (a JSON object of strings),
 * last so that the Job's own entries win; nothing when there is none or
 * PYTHONPATH lists it already. Any thread; does not block. */
void job_sdk_env(const struct cube_config *cfg, cJSON *env);

#endif
