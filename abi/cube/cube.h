/*
 * cube.h — the one header a Cube plugin includes.
 *
 * The Cube plugin ABI, version 1.4. See cube_plugin.h for the descriptor
 * and the compatibility rules, cube_host.h for the host function table.
 */
#ifndef CUBE_H
#define CUBE_H

#include "cube_plugin.h"
#include "cube_http.h"
#include "cube_metrics.h"
#include "cube_kind.h"
#include "cube_auth.h"
#include "cube_fetch.h"
#include "cube_sched.h"
#include "cube_proxy.h"
#include "cube_ui.h"
#include "cube_watch.h"
#include "cube_host.h"

#endif /* CUBE_H */
